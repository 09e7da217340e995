#!/usr/bin/env bash
# A split core inside the stock OpenSM with ibsim: superpod 2,2,4,4,2,2 (core
# groups that share no switch below them) was refused and fell back to
# minhop. With qos TRUE vartree routes it (no fallback, its tables equal
# vartree-route's), logs the routes on VL 1, sets every switch port's SL2VL
# table to map SL 1 to VL 1 and no other SL there, and answers path records
# (OpenSM's SA, while OpenSM runs after the first sweep: -F) with SL 1 for a
# route the split puts on VL 1 and SL 0 for a CA-to-CA route. With QoS off
# the fabric still routes and one ERR VT11 line says the VL-1 routes are not
# covered and why.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-route" ] || skip "vartree-route is not built"
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"
for x in saquery smpquery; do command -v $x >/dev/null || skip "$x is not installed"; done

"$gen" superpod 2,2,4,4,2,2 -o "$tmp/sp.topo" || fail "vartree-gen superpod"
# run after each sweep as an ibsim client: the split of the live fabric
# (vartree's own routing of OpenSM's LIDs), a path record for the first VL-1
# route and one between two hosts, and the SL2VL tables of a level-1 switch
cat >"$tmp/probe.sh" <<PROBE
set -u
ibnetdiscover >live.topo 2>/dev/null || exit 3
vl=\$("$VT_BIN/vartree-analyze" live.topo --route vartree --all-sources -q | grep '^audit: VL 1: ')
echo "\$vl" >vl1.line
guid=\$(sed 's/.*(first: "[^"]*" (\(0x[0-9a-f]*\)) to LID \([0-9]*\)).*/\1/' vl1.line)
dlid=\$(sed 's/.*(first: "[^"]*" (0x[0-9a-f]*) to LID \([0-9]*\)).*/\1/' vl1.line)
slid=\$(awk -v g="\$guid" '/^Switch/ && index(\$0, "\"S-" substr(g, 3) "\"") { sub(/.* lid /, ""); sub(/ .*/, ""); print; exit }' live.topo)
echo "switch \$guid lid \$slid to \$dlid" >pair
saquery --src-to-dst "\$slid:\$dlid" >path.vl1 2>&1
h=\$(awk '/^Ca/ { getline; sub(/.*# lid /, ""); sub(/ .*/, ""); print }' live.topo | head -2 | tr '\n' ':')
saquery --src-to-dst "\${h%:}" >path.ca 2>&1
smpquery sl2vl "\$slid" >sl2vl.txt 2>&1
PROBE
d=$tmp/qos
run_harness "$d" "$tmp/sp.topo" -e vartree -c "qos TRUE" -F "down:H-0015" -x "sh $tmp/probe.sh"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "qos: not routed by vartree"; }
grep -q 'vtp_vl_check: vartree: 140 routes from 12 switches that are not leaves use SL 1 and VL 1; every other route VL 0$' "$d/opensm.log" ||
	fail "qos: no VL 1 line: $(grep 'vtp_vl_check' "$d/opensm.log")"
o=$d/sweep-0
"$VT_BIN/vartree-route" "$o/ibnetdiscover.topo" -q -o "$tmp/off" || fail "vartree-route of the live fabric"
lft_norm "$o/opensm-lfts.dump" >"$tmp/osm"
lft_norm "$tmp/off" >"$tmp/want"
[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/osm" || fail "OpenSM's tables differ from vartree-route's"
# the probe ran while OpenSM was up (after the fault's sweep, sweep-1)
p=$d/sweep-1
[ "$(cat "$p/exec.status")" = 0 ] || { cat "$p/exec.out"; fail "probe failed"; }
grep -q '^audit: VL 1: [0-9]* routes from 12 switches' "$p/vl1.line" || fail "probe: $(cat "$p/vl1.line")"
grep -q '^switch 0x[0-9a-f]* lid [0-9][0-9]* to [0-9][0-9]*$' "$p/pair" || fail "probe pair: $(cat "$p/pair")"
grep -q '^[[:space:]]*sl\.*0x1$' "$p/path.vl1" || { cat "$p/pair" "$p/path.vl1"; fail "VL-1 route's path record is not SL 1"; }
grep -q '^[[:space:]]*sl\.*0x0$' "$p/path.ca" || { cat "$p/path.ca"; fail "CA-to-CA path record is not SL 0"; }
# SL2VL of the switch, every in/out pair it shows: SL 1 -> VL 1, no other SL on VL 1
awk -F'|' '/^ports: in/ { for (i = 2; i <= 17; i++) { v = $i + 0; if (i == 3 && v != 1) bad = 1; if (i != 3 && v == 1) bad = 1 } n++ }
	END { exit bad || !n }' "$p/sl2vl.txt" || { cat "$p/sl2vl.txt"; fail "SL2VL: SL 1 is not alone on VL 1"; }

# QoS off: routed all the same, one line says what is not covered
d=$tmp/noqos
run_harness "$d" "$tmp/sp.topo" -e vartree
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "no qos: not routed by vartree"; }
[ "$(grep -c 'ERR VT11: ' "$d/opensm.log")" = 1 ] &&
	grep -q 'ERR VT11: 140 routes from 12 switches that are not leaves (switch-sourced: management traffic, CAs on spines) need VL 1 and are not covered: QoS is off (qos FALSE): OpenSM sets no SL2VL tables; they share VL 0, where they can close a credit loop$' "$d/opensm.log" ||
	fail "no qos: $(grep 'VT11' "$d/opensm.log")"
echo "split ok"
