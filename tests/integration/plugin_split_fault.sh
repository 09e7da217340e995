#!/usr/bin/env bash
# A damaged tree whose CA-to-CA routes themselves turn down-up (thin 4:2,3
# --drop-links 6@1 --seed 20: leaves with no up*-down* path between them,
# refused before): vartree places every route on VL 0 where it closes no
# credit loop there, else VL 1 (tests/cli/route_split_fault.sh), so CA
# traffic needs VL 1 too. With qos TRUE OpenSM routes it with vartree: the 3
# switch-sourced routes that fit on neither VL 0 nor VL 1 take VL 2 (ibsim's
# links run 8 data VLs), and with max_op_vls 2 one ERR VT11 line names them
# as not covered, and why; with QoS off the sweep is refused (ERR VT01) and
# the next engine routes, rather than CA traffic sharing one VL with a
# credit loop.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

"$gen" thin 4:2,3 --drop-links 6@1 --seed 20 -o "$tmp/t.topo" || fail "vartree-gen thin"
d=$tmp/qos
run_harness "$d" "$tmp/t.topo" -e vartree -c "qos TRUE"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "qos: not routed by vartree"; }
! grep -q 'ERR VT11: ' "$d/opensm.log" &&
	grep -q 'vtp_vl_check: vartree: 191 routes from 28 switches use SL 1 and VL 1, 3 routes from 1 switches SL 2 and VL 2; every other route VL 0$' "$d/opensm.log" ||
	fail "qos: $(grep 'VT11\|vtp_vl_check' "$d/opensm.log")"
d=$tmp/two
run_harness "$d" "$tmp/t.topo" -e vartree -c "qos TRUE" -c "max_op_vls 2"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "max_op_vls 2: not routed by vartree"; }
[ "$(grep -c 'ERR VT11: ' "$d/opensm.log")" = 1 ] &&
	grep -q 'ERR VT11: 194 routes from 28 switches use SL 1 and VL 1; every other route VL 0; 3 of them (from 1 switches) close a credit loop on either VL and are not covered: the links run 2 data VLs, too few$' "$d/opensm.log" ||
	fail "max_op_vls 2: $(grep 'VT11\|vtp_vl_check' "$d/opensm.log")"
d=$tmp/noqos
run_harness "$d" "$tmp/t.topo" -e vartree,updn
# (updn finds no root on this tree either, so OpenSM ends on minhop)
grep -q '^osm_sweep 0: SUBNET UP, engine minhop, fallbacks vartree, updn,' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "no qos: no fallback"; }
grep -q 'ERR VT01: fabric refused: its CA-to-CA routes turn down-up and close a credit loop on one VL; [0-9]* routes from [0-9]* switches need VL 1, and QoS is off (qos FALSE): OpenSM sets no SL2VL tables; falling back to the next routing engine$' "$d/opensm.log" ||
	fail "no qos: $(grep 'VT01' "$d/opensm.log")"
echo "split fault ok"
