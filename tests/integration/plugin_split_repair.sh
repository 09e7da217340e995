#!/usr/bin/env bash
# A split core's repaired tables get their own VL split inside OpenSM. On
# superpod 2,4,4,4,2,2 with one leaf up-link down (L0-S0004 port 8), the
# repair keeps the switch routes and takes fresh CA routes ("switch routes
# repaired, CA routes fresh"): tables that are neither the last sweep's nor
# the fresh ones. Which switch-sourced routes need VL 1 depends on the
# tables, so the count OpenSM logs for that sweep must be the one the
# every-source audit finds for the tables OpenSM set; the split of the fresh
# tables (461 routes here, where the repaired tables need 445) left some on
# VL 0 before.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"

"$gen" superpod 2,4,4,4,2,2 -o "$tmp/sp.topo" || fail "vartree-gen superpod"
d=$tmp/run
run_harness "$d" "$tmp/sp.topo" -e vartree -c "qos TRUE" -F "down:L0-S0004:8"
grep -q '^osm_sweep 1: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
	{ cat "$d/summary.txt"; fail "the fault's sweep not routed by vartree"; }
grep -q 'vartree: switch routes repaired, CA routes fresh: ' "$d/opensm.log" ||
	fail "no partial repair: $(grep -E 'vartree: (repaired|fresh|switch routes|previous)' "$d/opensm.log")"
# the VL-1 lines, one per sweep: the second is the fault's
got=$(grep 'vtp_vl_check: vartree: ' "$d/opensm.log" | sed -n '2s/.*vtp_vl_check: vartree: \([0-9]*\) routes from \([0-9]*\) switches.*/\1 \2/p')
o=$d/sweep-1
want=$("$VT_BIN/vartree-analyze" "$o/ibnetdiscover.topo" --lfts "$o/opensm-lfts.dump" --all-sources --vl-split -q |
	sed -n 's/^audit: VL 1: \([0-9]*\) routes from \([0-9]*\) switches.*/\1 \2/p')
[ -n "$want" ] || fail "the audit of sweep 1's tables found no VL-1 routes"
[ "$got" = "$want" ] || fail "OpenSM put '$got' (routes switches) on VL 1; the tables it set need '$want'"
"$VT_BIN/vartree-analyze" "$o/ibnetdiscover.topo" --lfts "$o/opensm-lfts.dump" --all-sources --vl-split -q |
	grep -q '^audit: ok' || fail "sweep 1's tables fail the every-source audit split over two VLs"
echo "split repair ok: $got"
