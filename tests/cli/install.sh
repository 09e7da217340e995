#!/usr/bin/env bash
# make install PREFIX=/usr DESTDIR=...: binaries, scripts, man pages, and the plugin in
# a directory ld.so searches by itself (OpenSM opens it by bare name); the installed
# harness and compare find the installed plugin and tools, not the source tree's.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$top/build/lib/libvartree.so" ] || { echo "plugin not built (make)"; exit 77; }
d=$tmp/root
make -s -C "$top" install PREFIX=/usr DESTDIR="$d" >"$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make install"; }

ma=$(cc -print-multiarch)
[ -n "$ma" ] || fail "no multiarch triplet"
for b in vartree-gen vartree-route vartree-analyze vartree-trace vartree-sim vartree-sweep vartree-harness vartree-compare vartree-demo; do
	[ -x "$d/usr/bin/$b" ] || fail "$b not installed"
done
for m in man1/vartree-gen.1 man1/vartree-route.1 man1/vartree-analyze.1 man1/vartree-trace.1 man1/vartree-sim.1 man1/vartree-sweep.1 \
	man1/vartree-harness.1 man1/vartree-compare.1 man1/vartree-demo.1 man7/vartree.7 man8/vartree-plugin.8; do
	[ -f "$d/usr/share/man/$m" ] || fail "$m not installed"
done
so=$d/usr/lib/$ma/libvartree.so
[ -f "$so" ] || fail "plugin not in /usr/lib/$ma: $(cd "$d" && find . -name 'libvartree*')"
nm -D --defined-only "$so" | grep -q ' osm_event_plugin$' || fail "plugin lacks osm_event_plugin"
# /usr/lib/<multiarch> is one of ld.so's own search directories (no ldconfig needed)
/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null | grep -q "^ */usr/lib/$ma (system search path)" ||
	fail "/usr/lib/$ma is not a system search path of ld.so"
# exactly what was listed, nothing else (no build tree, no stray files)
n=$(cd "$d" && find . -type f | wc -l)
[ "$n" = 21 ] || fail "$n files installed: $(cd "$d" && find . -type f | sort | tr '\n' ' ')"
# make uninstall takes back every file, and the same again is harmless
cp -a "$d" "$tmp/installed"
make -s -C "$top" uninstall PREFIX=/usr DESTDIR="$d" >"$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make uninstall"; }
[ -z "$(cd "$d" && find . -type f)" ] || fail "left after uninstall: $(cd "$d" && find . -type f | tr '\n' ' ')"
make -s -C "$top" uninstall PREFIX=/usr DESTDIR="$d" >/dev/null 2>&1 || fail "second uninstall"
rm -rf "$d" && mv "$tmp/installed" "$d"
# other prefixes: $(PREFIX)/lib
make -s -n -C "$top" install PREFIX=/usr/local DESTDIR=/x | grep -q ' /x/usr/local/lib/libvartree.so$' ||
	fail "PREFIX=/usr/local: plugin not in /usr/local/lib"

# the installed scripts work from the installed tree alone
"$d/usr/bin/vartree-demo" --help | grep -q '^usage: vartree-demo' || fail "installed demo"
command -v ibsim >/dev/null && [ -x /usr/sbin/opensm ] || { echo "ibsim or opensm missing"; exit 77; }
"$d/usr/bin/vartree-gen" fat 2,2 -o "$tmp/f.topo" || fail "installed gen"
cd "$tmp"
PATH=/usr/sbin:/usr/bin:/sbin:/bin "$d/usr/bin/vartree-harness" -q -o "$tmp/h" "$tmp/f.topo" >/dev/null 2>"$tmp/h.err" ||
	fail "installed harness: $(cat "$tmp/h.err")"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$tmp/h/summary.txt" ||
	fail "installed harness did not route with vartree: $(cat "$tmp/h/summary.txt")"
# compare runs the installed harness and analyzer end to end
PATH=/usr/sbin:/usr/bin:/sbin:/bin "$d/usr/bin/vartree-compare" -q -e vartree "$tmp/f.topo" >"$tmp/c.out" 2>&1 || fail "installed compare: $(cat "$tmp/c.out")"
grep -Eq '^vartree +own +[0-9.]+ +1/1\.00  ' "$tmp/c.out" || fail "installed compare table: $(cat "$tmp/c.out")"
echo ok
