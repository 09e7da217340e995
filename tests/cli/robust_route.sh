#!/usr/bin/env bash
# vartree-route on bad input: missing, empty, truncated and malformed fabrics, a
# fabric that is not a tree, bad option values, unwritable outputs: one line
# "vartree-route: FILE:LINE: cause", exit 2 (1 when the fabric is refused; usage errors name the
# option or value), no file left: with two outputs, a failure of either leaves neither.
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route
mkbad

expect 2 "vartree-route: $tmp/missing.topo: cannot open: No such file or directory" "$r" "$tmp/missing.topo" -o l
expect 2 "vartree-route: $tmp/empty.topo:1: no node records (Switch, Ca, Hca or Rt)" "$r" "$tmp/empty.topo" -o l
expect 2 "vartree-route: $tmp/foreign.topo:1: no node records (Switch, Ca, Hca or Rt)" "$r" "$tmp/foreign.topo" -o l
# --previous with another fabric's tables (its CA LIDs elsewhere): said so, not "the fabric gained"
"$VT_BIN/vartree-gen" fat 4,3 -o "$tmp/la.topo" && "$r" -q "$tmp/la.topo" -o "$tmp/la.lfts" ||
	{ echo "FAIL: fat 4,3 tables"; nfail=$((nfail + 1)); }
python3 -c 'import re, sys; print(re.sub(r"\blid (\d+)\b", lambda m: "lid %d" % (int(m[1]) + 100 if int(m[1]) >= 49 else int(m[1])), sys.stdin.read()), end="")' \
	<"$tmp/la.topo" >"$tmp/lb.topo"
expect 2 "vartree-route: --previous $tmp/la.lfts: tables of another fabric (they route 0 of the fabric's 64 CA LIDs)" \
	"$r" -q "$tmp/lb.topo" -o l --previous "$tmp/la.lfts"
# forwarding tables given as the topology (OpenSM's dump, ibdiagnet2.fdbs): what they are, what to pass
L=$VT_TOP/tests/data/lft/2sw2path4hca
expect 2 "vartree-route: $L.lfts.dump:1: no node records: forwarding tables (\"Unicast lids\": opensm-lfts.dump, dump_fts), not a topology: give it to --lfts, and ibnetdiscover's output as the topology" \
	"$r" "$L.lfts.dump" -o l
expect 2 "vartree-route: $L.ibdiagnet2.fdbs:4: no node records: forwarding tables (ibdiagnet2.fdbs, \"osm_ucast_mgr_dump_ucast_routes:\"), not a topology: give it to --lfts, and ibnetdiscover's output as the topology" \
	"$r" "$L.ibdiagnet2.fdbs" -o l
expect 2 "vartree-route: $tmp/trunc.topo:14: \"L0-S0000\" (0x0002c95000000000) port 5: unterminated quote in remote node id" \
	"$r" "$tmp/trunc.topo" -o l
expect 2 "vartree-route: $tmp/badport.topo:11: \"L0-S0000\" (0x0002c95000000000): port 99 out of range 1..8" \
	"$r" "$tmp/badport.topo" -o l
expect 2 "vartree-route: $tmp/badportnum.topo:11: \"L0-S0000\" (0x0002c95000000000): bad port number \"x\"" \
	"$r" "$tmp/badportnum.topo" -o l
# the line listing the link: L0-S0000's port 5 line
expect 1 "vartree-route: $top/topofiles/matsuoka-clique-8.topo:14: switches \"L0-S0000\" (0x0002c95000000000) port 5 and \"L0-S0001\" (0x0002c95000000001) port 5 are linked but both at level 0; an up/down tree links only adjacent levels" \
	"$r" "$top/topofiles/matsuoka-clique-8.topo" -o l
expect 2 "vartree-route: --lmc: '9' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc 9 -o l
expect 2 "vartree-route: --lmc: 'x' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc x -o l
expect 2 "vartree-route: $tmp/missing: cannot open: No such file or directory" \
	"$r" "$tmp/good.topo" --root-guid-file "$tmp/missing" -o l
# a GUID file entry naming no switch: the file and the entry's line, and what has the GUID
printf '# tops\n0x0002c95001000000\n\n0x0002c91000000010 # a host\n' >"$tmp/roots"
expect 1 "vartree-route: $tmp/roots:4: root GUID 0x0002c91000000010 is not a switch of the fabric: it is CA \"H-0001\" (0x0002c91000000010)" \
	"$r" "$tmp/good.topo" --root-guid-file "$tmp/roots" -o l
printf '2c91000000011\n' >"$tmp/roots"
expect 1 "vartree-route: $tmp/roots:1: root GUID 0x0002c91000000011 is not a switch of the fabric: it is port 1 of CA \"H-0001\" (0x0002c91000000010)" \
	"$r" "$tmp/good.topo" --root-guid-file "$tmp/roots" -o l
# a GUID no node or port has is a listed top that failed: refused only when every listed root is
printf '# tops\n0x1234\n' >"$tmp/roots"
expect 1 "vartree-route: $tmp/roots:2: root GUID 0x0000000000001234 is not a switch of the fabric: no node or port of $tmp/good.topo has it" \
	"$r" "$tmp/good.topo" --root-guid-file "$tmp/roots" -o l
# ... and with other roots left, a departure (was refused as above): the tables are those
# routed without the file
printf '0x0002c95001000000\n0x1234\n0x2c95001000001\n0x2c95001000002\n0x2c95001000003\n' >"$tmp/roots"
"$r" "$tmp/good.topo" -o "$tmp/plain.lfts" 2>/dev/null
expect 0 "" "$r" -q "$tmp/good.topo" --root-guid-file "$tmp/roots" -o "$tmp/gone.lfts"
cmp -s "$tmp/plain.lfts" "$tmp/gone.lfts" || { echo "FAIL: a root gone: tables differ from those without the file"; nfail=$((nfail + 1)); }
"$r" "$tmp/good.topo" --root-guid-file "$tmp/roots" -o /dev/null 2>&1 | grep -qx "vartree-route: root GUID 0x0000000000001234 ($tmp/roots:2) is no node of the fabric: a listed top that failed, the tree is counted from the other roots" ||
	{ echo "FAIL: a root gone: no departure line"; nfail=$((nfail + 1)); }
# a compute-node or I/O list that leaves no compute node: named by its file
expect 1 "vartree-route: $tmp/good.topo: no compute nodes (no CA attached to a switch is listed in $tmp/roots)" \
	"$r" "$tmp/good.topo" --cn-guid-file "$tmp/roots" -o l
sed -n 's/^\[1\](\([0-9a-f]*\)).*/\1/p' "$tmp/good.topo" >"$tmp/io"
expect 1 "vartree-route: $tmp/good.topo: no compute nodes (every CA attached to a switch is listed in $tmp/io)" \
	"$r" "$tmp/good.topo" --io-guid-file "$tmp/io" -o l
expect 2 "vartree-route: $tmp/run/nodir/l: cannot create: No such file or directory" \
	"$r" -q "$tmp/good.topo" -o "$tmp/run/nodir/l"
# either output unwritable: neither is left (expect checks the run dir is empty)
expect 2 "vartree-route: $tmp/nodir/x: cannot create: No such file or directory" \
	"$r" -q "$tmp/good.topo" --order-out "$tmp/nodir/x" -o o.lfts
expect 2 "vartree-route: $tmp/nodir/o.lfts: cannot create: No such file or directory" \
	"$r" -q "$tmp/good.topo" --order-out ord -o "$tmp/nodir/o.lfts"
# usage errors: one line naming the option, status 2
expect 2 "vartree-route: unknown option '--bogus'. Try 'vartree-route --help'." "$r" "$tmp/good.topo" --bogus
expect 2 "vartree-route: unknown option '--bogus'. Try 'vartree-route --help'." "$r" "$tmp/good.topo" --bogus=1
expect 2 "vartree-route: unknown option '-z'. Try 'vartree-route --help'." "$r" "$tmp/good.topo" -qz
expect 2 "vartree-route: option '--quiet' takes no value. Try 'vartree-route --help'." "$r" "$tmp/good.topo" --quiet=1
expect 2 "vartree-route: option '--order-out' needs a value. Try 'vartree-route --help'." "$r" "$tmp/good.topo" --order-out
expect 2 "vartree-route: option '-o' needs a value. Try 'vartree-route --help'." "$r" "$tmp/good.topo" -qo
expect 2 "vartree-route: no TOPOLOGY given. Try 'vartree-route --help'." "$r"
expect 2 "vartree-route: one TOPOLOGY only, extra argument 'x'. Try 'vartree-route --help'." "$r" "$tmp/good.topo" x
finish
