#!/usr/bin/env bash
# The command-line layer every command shares (lib/vt_cli.c): for each command a bad
# number exits 2 with "NAME: --OPT: 'V' is not an integer (LO..HI)", an unknown option
# and a missing operand exit 2 ending "Try 'NAME --help'.", a missing input file exits 2,
# --version prints "NAME VERSION"; options that mean nothing in the combination given
# are refused.
. "$(dirname "$0")/robust_lib.bash"
mkbad
ver=$(sed -n 's/^#define VT_VERSION "\(.*\)"$/\1/p' "$top/lib/vt_version.h")
try() { echo ". Try '$1 --help'."; }

# vartree-route
r=$VT_BIN/vartree-route
expect 2 "vartree-route: --lmc: 'abc' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc abc
expect 2 "vartree-route: --lmc: '-1' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc=-1
expect 2 "vartree-route: unknown option '--bogus'$(try vartree-route)" "$r" "$tmp/good.topo" --bogus
expect 2 "vartree-route: no TOPOLOGY given$(try vartree-route)" "$r"
expect 2 "vartree-route: --order-format needs --order-out FILE$(try vartree-route)" \
	"$r" "$tmp/good.topo" --order-format hostfile
expect 2 "vartree-route: $tmp/missing.topo: cannot open: No such file or directory" "$r" "$tmp/missing.topo"
expect 0 "" "$r" --version
[ "$("$r" --version)" = "vartree-route $ver" ] || { echo "FAIL: vartree-route --version"; nfail=$((nfail + 1)); }

finish
