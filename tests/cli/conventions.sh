#!/usr/bin/env bash
# Habits every command shares: --version prints "NAME VERSION" (the one of lib/base/vt_version.h)
# and exits 0; --help and the man page's OPTIONS list the same options; every command and
# script has a man page (vartree-sim included).
set -u
VT_TMP_HELP=$(mktemp)
trap 'rm -f "$VT_TMP_HELP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
top=$VT_TOP
ver=$(sed -n 's/^#define VT_VERSION "\(.*\)"$/\1/p' "$top/lib/base/vt_version.h")
[ -n "$ver" ] || fail "no VT_VERSION"
bin() { if [ -x "$VT_BIN/$1" ]; then echo "$VT_BIN/$1"; else echo "$top/sim/$1"; fi; }
for c in vartree-analyze vartree-route vartree-trace vartree-gen vartree-sim vartree-sweep vartree-harness vartree-compare vartree-demo; do
	out=$("$(bin $c)" --version 2>&1); rc=$?
	[ $rc = 0 ] && [ "$out" = "$c $ver" ] || fail "$c --version: rc $rc, '$out'"
	[ -f "$top/man/$c.1" ] || fail "$c has no man page"
	"$(bin $c)" --help >"$VT_TMP_HELP" 2>&1 || fail "$c --help exit"
	python3 - "$VT_TMP_HELP" "$top/man/$c.1" "$c" <<'P' || fail "$c: --help and man page differ"
import re, sys
help_text, man, cmd = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
opt = re.compile(r"(?<![\w-])--?[a-zA-Z][a-zA-Z-]*")
# --help: option lines ("  -o, --output FILE  ...") and the synopsis lines of the usage
helps = set()
for line in help_text.splitlines():
    if re.match(r"\s+-", line):
        helps |= set(opt.findall(re.split(r"\s{2,}", line.strip())[0]))
    elif re.match(r"(usage:|Usage:)|\s+\[", line):
        helps |= set(opt.findall(line))
helps -= {"--"}
# man: the tag line after each .TP that starts with an option, in any section
# (OPTIONS, or one of its own like vartree-gen's REAL-FABRIC FEATURES)
sec = man.splitlines()
mans = set()
for i, l in enumerate(sec):
    if l.startswith(".TP") and i + 1 < len(sec):
        tag = re.sub(r"\\f[BIRP]", "", sec[i + 1]).replace("\\-", "-")
        if re.match(r"\.B[IR]*\s+-", tag):
            mans |= set(opt.findall(tag))
if helps != mans:
    print(cmd, "only in --help:", sorted(helps - mans), "only in the man page:", sorted(mans - helps))
    sys.exit(1)
P
done
echo ok
