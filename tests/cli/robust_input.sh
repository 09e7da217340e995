#!/usr/bin/env bash
# Hostile inputs found by fuzzing and fault runs: each ends with one line naming
# the file (and line), a non-zero exit and nothing written.
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route
mkbad
# LeakSanitizer lists its libibnetdisc suppression on stderr after a cache load
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:print_suppressions=0"

# a switch GUID of 0 used to route, but its tables could not be read back
sed 's/^switchguid=0x2c95000000000(2c95000000000)$/switchguid=0x0(0)/' "$tmp/good.topo" >"$tmp/guid0.topo"
expect 2 "vartree-route: $tmp/guid0.topo:9: switch \"L0-S0000\" (0x0000000000000000): GUID 0 is not valid" \
	"$r" -q "$tmp/guid0.topo" -o l
# libibnetdisc caches: libibnetdisc trusts the counts and port numbers it reads
# (a port LMC of 255 was undefined behaviour; a 3.5 KB file made it allocate GBs)
patch_cache() { # OUT PYTHON-STATEMENTS on b (bytearray), nodes end at n_end
	python3 - "$top/tests/data/load-2sw.cache" "$1" "$2" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
le = lambda x: int.from_bytes(x, 'little')
n_end = 28
for i in range(le(b[8:12])):
    n_end += 207 + 9 * b[n_end + 206]
exec(sys.argv[3])
open(sys.argv[2], 'wb').write(b)
PY
}
c=$tmp/bad.cache
cause="vartree-route: $c: corrupt libibnetdisc cache file"
patch_cache "$c" 'b[n_end + 12] = 255'
expect 2 "$cause: port LMC over 7" "$r" -q "$c" -o l
patch_cache "$c" 'b[8:12] = (0x10000000).to_bytes(4, "little")'
expect 2 "$cause: node or port count larger than the file holds" "$r" -q "$c" -o l
patch_cache "$c" 'b[12:16] = (le(b[12:16]) + 1).to_bytes(4, "little")'
expect 2 "$cause: port count does not match the file size" "$r" -q "$c" -o l
patch_cache "$c" 'b[n_end + 8] = 200'
expect 2 "$cause: port number beyond its node's ports" "$r" -q "$c" -o l
patch_cache "$c" 'b[n_end + 95:n_end + 190] = b[n_end:n_end + 95]'
expect 2 "$cause: port listed twice" "$r" -q "$c" -o l
patch_cache "$c" 'del b[-40:]'
expect 2 "$cause: port count does not match the file size" "$r" -q "$c" -o l
# unpatched, the copy loads: the refusal comes from the tree extraction, past the loader
patch_cache "$c" 'pass'
# (a cache has no lines: the file alone)
expect 1 "vartree-route: $c: switches \"sw-b\" (0x0000000000200001) port 3 and \"sw-a\" (0x0000000000200000) port 3 are linked but both at level 0; an up/down tree links only adjacent levels" \
	"$r" -q "$c" -o l
finish
