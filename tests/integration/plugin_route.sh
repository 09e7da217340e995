#!/usr/bin/env bash
# vartree inside the stock OpenSM routes a 4-ary-3-tree, a thin tree, a pruned
# tree, a degraded tree, and 4-ary-3-trees with aggregation nodes, storage CAs on
# spines, a host-less leaf and loop-backs, or a director chassis, bypassed or
# not, and an irregular two-level tree. For each: the tables OpenSM dumped and the tables
# read back from the switches (dump_fts; infiniband-diags 44 skips a LID alone
# in a block, so only LIDs at a block start may be missing there) equal what
# vartree-route computes offline from the ibnetdiscover view (OpenSM's LIDs),
# the ca-order dump equals vartree-route's order, and the live tables pass the
# analyzer's audit; on the 4-ary-3-tree shift is congestion-free (worst = avg = 1).
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-route" ] || skip "vartree-route is not built"
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"

check() { # NAME SPEC...
	local n=$1 d=$tmp/$1 o
	shift
	"$gen" "$@" -o "$tmp/$n.topo" || fail "vartree-gen $*"
	run_harness "$d" "$tmp/$n.topo" -e vartree --read-back \
		-x "$VT_BIN/vartree-analyze --live --order opensm-vartree-ca-order.dump --pattern shift --json"
	o=$d/sweep-0
	grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none' "$d/summary.txt" ||
		{ cat "$d/summary.txt"; fail "$n: not routed by vartree"; }
	"$VT_BIN/vartree-route" "$o/ibnetdiscover.topo" -q -o "$tmp/$n.off" --order-out "$tmp/$n.order" ||
		fail "$n: vartree-route failed"
	lft_norm "$o/opensm-lfts.dump" >"$tmp/$n.osm"
	lft_norm "$tmp/$n.off" >"$tmp/$n.want"
	[ -s "$tmp/$n.want" ] || fail "$n: empty offline tables"
	diff "$tmp/$n.want" "$tmp/$n.osm" >"$tmp/$n.diff" || { head "$tmp/$n.diff"; fail "$n: OpenSM's tables differ from vartree-route"; }
	lft_norm "$o/switch-lfts.dump" >"$tmp/$n.sw"
	[ -z "$(comm -13 "$tmp/$n.want" "$tmp/$n.sw")" ] || fail "$n: a switch holds an entry vartree-route did not compute"
	comm -23 "$tmp/$n.want" "$tmp/$n.sw" | awk '{ l = tolower($2); sub(/^0x0*/, "", l); if (l !~ /^[0-9a-f]*[048c]0$/) { print; bad = 1 } } END { exit bad }' ||
		fail "$n: entries missing from the switches"
	cmp "$tmp/$n.order" "$o/opensm-vartree-ca-order.dump" || fail "$n: ca-order dump differs from vartree-route's"
	w=$(lft_walk "$o/ibnetdiscover.topo" "$o/switch-lfts.dump")
	grep -q unreachable <<<"$w" && { head <<<"$w"; fail "$n: a host does not reach another"; }
	# a degraded tree leaves switch/LID pairs that no host route uses unset; the
	# analyzer counts those as unreachable, so there only the rest must be clean
	if [ "$n" = sharp ] || [ "$n" = director ] || [ "$n" = bypass-sharp ]; then
		# aggregation nodes start traffic on every switch: their routes to tops
		# they are not below detour through the turn leaf, so non-minimal hops
		# are expected there; every other kind must be clean
		for k in unreachable loop misdelivery credit-loop; do
			grep -q "\"$k\": {\"count\": 0}" "$o/exec.out" ||
				{ cat "$o/exec.out"; fail "$n: audit of the live tables: $k"; }
		done
	elif [ "$n" = degraded ]; then
		grep -q '"loop": {"count": 0}, "misdelivery": {"count": 0}, "non-minimal": {"count": 0}, "credit-loop": {"count": 0}}' "$o/exec.out" ||
			{ cat "$o/exec.out"; fail "$n: audit of the live tables"; }
	else
		[ "$(cat "$o/exec.status")" = 0 ] || { cat "$o/exec.out"; fail "$n: live analysis or its audit failed"; }
		grep -q '"audit": {"unreachable": {"count": 0}, "loop": {"count": 0}, "misdelivery": {"count": 0}, "non-minimal": {"count": 0}, "credit-loop": {"count": 0}}' "$o/exec.out" ||
			{ cat "$o/exec.out"; fail "$n: audit of the live tables"; }
	fi
	echo "$n: $(wc -l <"$tmp/$n.want") entries equal; live shift $(grep -o '"worst": [0-9]*, "avg": [0-9.]*' "$o/exec.out")"
}

check fat43 fat 4,3
grep -q '"pattern": "shift", "stages": 63, "flows": 4032, "unrouted": 0, "worst": 1, "avg": 1.0,' "$tmp/fat43/sweep-0/exec.out" ||
	fail "fat43: shift is not congestion-free on the live tables"
check thin thin 4:2,3
check pruned pruned 8,3
check degraded fat 4,3 --drop-links 3@1 --seed 2
# real-fabric features: aggregation nodes on every switch, storage CAs on two
# spines, a host-less leaf, loop-back cables; and a director chassis
check sharp fat 4,3 --aggregation-nodes --spine-cas 2:dual --hostless-leaves 1 --loopbacks 2 --seed 3
check director fat 4,3 --director CS7500 --aggregation-nodes
# bypassed directors: leaves on every line ASIC, the spine ASICs at level 0
check bypass fat 4,3 --director CS8500:bypass
check bypass-sharp fat 4,2 --director CS7500:bypass --aggregation-nodes
# an irregular two-level tree (a leaf linked to 2 of 4 spines): the look-ahead's
# tables inside OpenSM too, at the cut bound (2/1.74)
check uneven uneven 8,8,6,4:4,4,4,2:4
grep -q '"pattern": "shift", "stages": 31, "flows": 650, "unrouted": 0, "worst": 2, "avg": 1.741935' \
	"$tmp/uneven/sweep-0/exec.out" || fail "uneven: live shift is not at the cut bound"
echo "route ok"
