#!/usr/bin/env bash
# Fewer detours inside the stock OpenSM with ibsim (issue 23, goal 3): on a
# 4-ary-3-tree with an aggregation node on every switch (real-sharp-4ary3's
# shape), vartree.detours=shortest with qos TRUE gives OpenSM vartree-route
# --shortest-detours' tables: the every-source audit of the tables OpenSM set,
# each VL apart, is clean with no non-minimal hop (648 with the detours at
# the turn leaf), and the plugin puts exactly the split's 2508 routes from 32
# switches on SL 1 / VL 1. With QoS off the option gives way: one line says
# why, the detours turn at the turn leaf on one VL (648 non-minimal hops, no
# credit loop on one VL) and no ERR VT11.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-route" ] || skip "vartree-route is not built"
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"
ok='audit: ok (no unreachable destination, loop, misdelivery or credit loop)'

"$gen" fat 4,3 aggregation-nodes speed=EDR -o "$tmp/f.topo" || fail "vartree-gen fat 4,3"
# same OPTS: OpenSM's tables of run D equal vartree-route OPTS's of the live fabric
same() {
	"$VT_BIN/vartree-route" "$1/sweep-0/ibnetdiscover.topo" -q $2 -o "$tmp/off" || fail "vartree-route $2"
	lft_norm "$1/sweep-0/opensm-lfts.dump" >"$tmp/osm"
	lft_norm "$tmp/off" >"$tmp/want"
	[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/osm" || fail "$1: OpenSM's tables differ from vartree-route $2's"
}
d=$tmp/qos
run_harness "$d" "$tmp/f.topo" -e vartree -c "qos TRUE" -O vartree.detours=shortest
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "qos: not routed by vartree"; }
grep -q 'vtp_vl_check: vartree: 2508 routes from 32 switches that are not leaves use SL 1 and VL 1; every other route VL 0$' "$d/opensm.log" ||
	fail "qos: no VL 1 line: $(grep 'vtp_vl_check' "$d/opensm.log")"
grep -q 'routed with a second VL: switches with no up\*-down\* route to a destination take a shortest way over any link; 2508 routes' "$d/opensm.log" ||
	fail "qos: no routing line: $(grep -c 'second VL' "$d/opensm.log")"
same "$d" --shortest-detours
a=$("$VT_BIN/vartree-analyze" "$d/sweep-0/ibnetdiscover.topo" --lfts "$d/sweep-0/opensm-lfts.dump" --all-sources --vl-split -q)
grep -qxF "$ok" <<<"$a" && ! grep -q '^audit: non-minimal' <<<"$a" &&
	grep -q '^audit: VL 1: 2508 routes from 32 switches' <<<"$a" || fail "qos: audit: $(grep '^audit' <<<"$a")"

d=$tmp/noqos
run_harness "$d" "$tmp/f.topo" -e vartree -O vartree.detours=shortest
grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "no qos: not routed by vartree"; }
grep -q 'vartree: vartree.detours=shortest needs a second VL, and QoS is off (qos FALSE): OpenSM sets no SL2VL tables: the detours turn at the turn leaf on one VL$' "$d/opensm.log" ||
	fail "no qos: no line: $(grep 'detours' "$d/opensm.log")"
! grep -q 'ERR VT11' "$d/opensm.log" || fail "no qos: $(grep 'VT11' "$d/opensm.log")"
same "$d" ""
a=$("$VT_BIN/vartree-analyze" "$d/sweep-0/ibnetdiscover.topo" --lfts "$d/sweep-0/opensm-lfts.dump" --all-sources -q)
grep -qxF "$ok" <<<"$a" && grep -q '^audit: non-minimal: 648 (first: ' <<<"$a" ||
	fail "no qos: audit: $(grep '^audit' <<<"$a")"
echo "detours ok"
