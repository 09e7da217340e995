#!/usr/bin/env bash
# Further VLs inside the stock OpenSM with ibsim (issue 23 goal 1). A fat 4,3
# with four faults (tests/cli/route_vls.sh) routed fresh needs a third VL: 4
# switch-sourced routes close a credit loop on VL 1 among its other routes.
# ibsim's ports offer VL0-7 (VLCap), so with qos TRUE the plugin puts them on
# VL 2: one INFO line counts each VL's routes, the core's line says 3 of the
# 8 data VLs are used, every switch port's SL2VL table maps SL 1 to VL 1 and
# SL 2 to VL 2 and no other SL there, and the every-source audit of the
# tables OpenSM set, split as vartree splits them, is clean on each VL with
# the counts OpenSM logged. After a host's link goes down (-F, so OpenSM's SA
# answers while the probe runs), a path record of a route the live tables'
# split puts on VL 2 carries SL 2, one on VL 1 SL 1, and a CA-to-CA one SL 0.
# With max_op_vls 2 one ERR VT11 line says the 4 routes are not covered, and why.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"
for x in saquery smpquery python3; do command -v $x >/dev/null || skip "$x is not installed"; done

"$gen" fat 4,3 -o "$tmp/r0.topo" || fail "vartree-gen fat"
k=0
for f in down:S-0002c95001000012 down:S-0002c95002000011:2 down:S-0002c95001000000 down:S-0002c95001000011; do
	k=$((k + 1))
	python3 "$VT_TOP/tests/data/topo_fault.py" "$tmp/r$((k - 1)).topo" "$f" >"$tmp/r$k.topo" || fail "topo_fault $f"
done
# run after each sweep as an ibsim client: the split of the switches' own
# tables (--live), path records of the first VL-2 and VL-1 routes and of two
# hosts, and the SL2VL tables of the VL-2 route's switch
cat >"$tmp/probe.sh" <<PROBE
set -u
"$VT_BIN/vartree-analyze" --live --all-sources --vl-split -q >live.out 2>&1
ibnetdiscover >live.topo 2>/dev/null || exit 3
lid_of() { awk -v g="\$1" '/^Switch/ && index(\$0, "\"S-" substr(g, 3) "\"") { sub(/.* lid /, ""); sub(/ .*/, ""); print; exit }' live.topo; }
v2=\$(sed -n 's/^audit: VLs 1-2: .*VL 2: [0-9]* from [0-9]*, first "[^"]*" (\(0x[0-9a-f]*\)) to LID \([0-9]*\)).*/\1 \2/p' live.out)
v1=\$(sed -n 's/^audit: VLs 1-2: .* audited apart (first: "[^"]*" (\(0x[0-9a-f]*\)) to LID \([0-9]*\)).*/\1 \2/p' live.out)
[ -n "\$v2" ] && [ -n "\$v1" ] || exit 4
set -- \$v2
echo "\$(lid_of \$1) \$2" >pair2
saquery --src-to-dst "\$(lid_of \$1):\$2" >path.vl2 2>&1
smpquery sl2vl "\$(lid_of \$1)" >sl2vl.txt 2>&1
set -- \$v1
echo "\$(lid_of \$1) \$2" >pair1
saquery --src-to-dst "\$(lid_of \$1):\$2" >path.vl1 2>&1
h=\$(awk '/^Ca/ { getline; sub(/.*# lid /, ""); sub(/ .*/, ""); print }' live.topo | head -2 | tr '\n' ':')
saquery --src-to-dst "\${h%:}" >path.ca 2>&1
PROBE
d=$tmp/qos
run_harness "$d" "$tmp/r4.topo" -e vartree -c "qos TRUE" -F "down:H-0063" -x "sh $tmp/probe.sh"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "not routed by vartree"; }
line=$(grep -m1 'vtp_vl_check: ' "$d/opensm.log")
grep -q 'vtp_vl_check: vartree: [0-9]* routes from [0-9]* switches use SL 1 and VL 1, [0-9]* routes from [0-9]* switches SL 2 and VL 2; every other route VL 0$' <<<"$line" ||
	fail "no VL 2 line: $line"
grep -q 'VLs: the routes use 3 of the 8 data VLs the fabric has: VL 1: ' "$d/opensm.log" ||
	fail "no VLs line: $(grep 'VLs: ' "$d/opensm.log")"
! grep -q 'ERR VT11' "$d/opensm.log" || fail "$(grep 'ERR VT11' "$d/opensm.log")"
# the tables OpenSM set at sweep 0, split as vartree splits them: clean per VL, OpenSM's counts
o=$d/sweep-0
a=$("$VT_BIN/vartree-analyze" "$o/ibnetdiscover.topo" --lfts "$o/opensm-lfts.dump" --all-sources --vl-split --vls 8 -q)
[ $? = 0 ] && grep -q '^audit: ok' <<<"$a" || fail "sweep 0's tables: $(grep '^audit' <<<"$a")"
got=$(sed 's/.*vartree: \([0-9]*\) routes from \([0-9]*\) switches use SL 1 and VL 1, \([0-9]*\) routes from \([0-9]*\) switches SL 2.*/\1 \2 \3 \4/' <<<"$line")
want=$(sed -n 's/^audit: VLs 1-2: .* (VL 1: \([0-9]*\) from \([0-9]*\), VL 2: \([0-9]*\) from \([0-9]*\),.*/\1 \2 \3 \4/p' <<<"$a")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "OpenSM logged '$got' (VL 1, VL 2 routes switches); the audit splits '$want'"
# the probe at sweep 1 (OpenSM up): SLs of path records, SL2VL of a switch
p=$d/sweep-1
[ "$(cat "$p/exec.status")" = 0 ] || { cat "$p/exec.out" "$p/live.out" 2>/dev/null; fail "probe failed"; }
grep -q '^audit: ok' "$p/live.out" || fail "live tables: $(grep '^audit' "$p/live.out")"
# without --vls the live audit takes the VLs the switch ports run (OpenSM set 8 on ibsim's)
grep -qxF "audit: VLs: the routes use 3 of the 8 data VLs the fabric runs (its switch ports' operational VLs)" "$p/live.out" ||
	fail "live VLs: $(grep '^audit: VLs:' "$p/live.out")"
grep -q '^[[:space:]]*sl\.*0x2$' "$p/path.vl2" || { cat "$p/pair2" "$p/path.vl2"; fail "VL-2 route's path record is not SL 2"; }
grep -q '^[[:space:]]*sl\.*0x1$' "$p/path.vl1" || { cat "$p/pair1" "$p/path.vl1"; fail "VL-1 route's path record is not SL 1"; }
grep -q '^[[:space:]]*sl\.*0x0$' "$p/path.ca" || { cat "$p/path.ca"; fail "CA-to-CA path record is not SL 0"; }
# SL2VL, every in/out pair shown: SL 1 -> VL 1, SL 2 -> VL 2, no other SL on either
awk -F'|' '/^ports: in/ { for (i = 2; i <= 17; i++) { v = $i + 0; sl = i - 2
	if ((sl == 1 || sl == 2) && v != sl) bad = 1; if (sl != 1 && sl != 2 && (v == 1 || v == 2)) bad = 1 } n++ }
	END { exit bad || !n }' "$p/sl2vl.txt" || { cat "$p/sl2vl.txt"; fail "SL2VL: SL 1 and 2 are not alone on VL 1 and 2"; }

# max_op_vls 2: the links run two data VLs, too few; one line says which routes are not covered and why
d=$tmp/two
run_harness "$d" "$tmp/r4.topo" -e vartree -c "qos TRUE" -c "max_op_vls 2"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "max_op_vls 2: not routed by vartree"; }
[ "$(grep -c 'ERR VT11: ' "$d/opensm.log")" = 1 ] &&
	grep -q 'ERR VT11: 422 routes from 45 switches use SL 1 and VL 1; every other route VL 0; 4 of them (from 4 switches) close a credit loop on either VL and are not covered: the links run 2 data VLs, too few$' "$d/opensm.log" &&
	grep -q 'VLs: the routes use 2 of the 2 data VLs the fabric has: VL 1: 422 routes from 45 switches$' "$d/opensm.log" ||
	fail "max_op_vls 2: $(grep -E 'VT11|VLs: ' "$d/opensm.log")"
echo "vls ok"
