#!/usr/bin/env bash
# vartree-route on bad input: missing, empty, truncated and malformed fabrics, a
# fabric that is not a tree, bad option values, unwritable outputs: one line
# "vartree-route: FILE:LINE: cause", exit 1 (2 for getopt's usage errors), no file left.
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route
mkbad

expect 1 "vartree-route: $tmp/missing.topo: cannot open: No such file or directory" "$r" "$tmp/missing.topo" -o l
expect 1 "vartree-route: $tmp/empty.topo:1: no node records (Switch, Ca, Hca or Rt)" "$r" "$tmp/empty.topo" -o l
expect 1 "vartree-route: $tmp/foreign.topo:1: no node records (Switch, Ca, Hca or Rt)" "$r" "$tmp/foreign.topo" -o l
expect 1 "vartree-route: $tmp/trunc.topo:14: \"S-0002c95000000000\" port 5: unterminated quote in remote node id" \
	"$r" "$tmp/trunc.topo" -o l
expect 1 "vartree-route: $tmp/badport.topo:11: \"S-0002c95000000000\": port 99 out of range 1..8" \
	"$r" "$tmp/badport.topo" -o l
expect 1 "vartree-route: $tmp/badportnum.topo:11: \"S-0002c95000000000\": bad port number \"x\"" \
	"$r" "$tmp/badportnum.topo" -o l
expect 1 'vartree-route: switches "L0-S0000" (port 5) and "L0-S0001" are linked but both at level 0; an up/down tree links only adjacent levels' \
	"$r" "$top/topofiles/matsuoka-clique-8.topo" -o l
expect 1 "vartree-route: --lmc takes 0..7" "$r" "$tmp/good.topo" --lmc 9 -o l
expect 1 "vartree-route: $tmp/missing: cannot open: No such file or directory" \
	"$r" "$tmp/good.topo" --root-guid-file "$tmp/missing" -o l
expect 1 "vartree-route: $tmp/run/nodir/l: cannot create: No such file or directory" \
	"$r" -q "$tmp/good.topo" -o "$tmp/run/nodir/l"
# getopt's usage errors: status 2, the usage after getopt's own line
"$r" "$tmp/good.topo" --bogus >/dev/null 2>"$tmp/u"; rc=$?
[ $rc = 2 ] && grep -q '^usage: vartree-route TOPOLOGY' "$tmp/u" || { echo "FAIL: --bogus: rc $rc"; nfail=$((nfail + 1)); }
"$r" >/dev/null 2>"$tmp/u"; rc=$?
[ $rc = 2 ] || { echo "FAIL: no topology: rc $rc"; nfail=$((nfail + 1)); }
finish
