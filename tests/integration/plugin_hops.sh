#!/usr/bin/env bash
# The min-hop tables vartree fills for OpenSM equal the ones OpenSM's own
# osm_ucast_mgr_build_lid_matrices computes: each fabric is routed twice by
# vartree in ibsim, once with vartree's tables (OpenSM skips its own) and once
# with vartree.hops=opensm, and OpenSM's opensm-lid-matrix.dump (every switch's
# row for every switch LID, every port) must be byte-identical, on every sweep:
# regular, thin and pruned trees, degraded ones, LMC 1, and a link and a top
# switch taken down and back.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

check() { # NAME "GEN SPEC" [harness options]
	local n=$1 spec=$2 a=$tmp/$1-vt b=$tmp/$1-osm k=0 sw rows
	shift 2
	# shellcheck disable=SC2086
	"$gen" $spec -o "$tmp/$n.topo" || fail "vartree-gen $spec"
	run_harness "$a" "$tmp/$n.topo" -e vartree "$@"
	run_harness "$b" "$tmp/$n.topo" -e vartree -O vartree.hops=opensm "$@"
	grep -q "vartree: min-hop tables filled" "$a/opensm.log" || fail "$n: vartree did not fill the tables"
	grep -q "Min Hop Table Assignment" "$a/opensm.log" && fail "$n: OpenSM built its own tables too"
	grep -q "Min Hop Table Assignment" "$b/opensm.log" || fail "$n: hops=opensm: OpenSM did not build its tables"
	# core lines carry the core function's name, as OpenSM's own lines carry theirs
	grep -q "vt_tree_describe: vartree: level 0: " "$a/opensm.log" || fail "$n: no core line named vt_tree_describe"
	grep -q "route_subnet: vartree: routed " "$a/opensm.log" || fail "$n: no route_subnet line"
	# filled on a second thread while vartree routes, joined before OpenSM reads them
	grep -q "hops_finish: vartree: min-hop tables filled in [0-9.]* ms (beside the routing; [0-9.]* ms waited for after it)" \
		"$a/opensm.log" || fail "$n: the tables were not filled beside the routing"
	! grep -q "core_log" "$a/opensm.log" || fail "$n: a line is named core_log"
	while [ -d "$a/sweep-$k" ]; do
		grep -q "^osm_sweep $k: SUBNET UP, engine vartree, fallbacks none" "$a/summary.txt" ||
			{ cat "$a/summary.txt"; fail "$n: sweep $k not routed by vartree"; }
		[ -s "$a/sweep-$k/opensm-lid-matrix.dump" ] || fail "$n: sweep $k: no lid matrix dump"
		cmp "$a/sweep-$k/opensm-lid-matrix.dump" "$b/sweep-$k/opensm-lid-matrix.dump" ||
			{ diff "$a/sweep-$k/opensm-lid-matrix.dump" "$b/sweep-$k/opensm-lid-matrix.dump" | head; fail "$n: sweep $k: min-hop tables differ from OpenSM's"; }
		k=$((k + 1))
	done
	# every switch has a row for every switch LID (the fabrics are connected)
	sw=$(grep -c '^Switch: guid' "$a/sweep-0/opensm-lid-matrix.dump")
	rows=$(grep -c '^0x' "$a/sweep-0/opensm-lid-matrix.dump")
	[ "$rows" = $((sw * sw)) ] || fail "$n: $rows rows for $sw switches"
	# the VERBOSE timing lines: every row allocated on the first sweep, none on a
	# sweep where no switch is new (a link down), and the LFT copy
	grep -q "vartree: min-hop tables: $rows rows ($rows allocated now): distances [0-9.]* ms, row allocation [0-9.]* ms, rows written [0-9.]* ms" "$a/opensm.log" ||
		{ grep "min-hop tables:" "$a/opensm.log"; fail "$n: no timing line for $rows rows all allocated"; }
	if [ "$k" -gt 1 ]; then
		sed -n 's/.*min-hop tables: \([0-9]*\) rows (\([0-9]*\) allocated now).*/\1 \2/p' "$a/opensm.log" | sed -n 2p |
			grep -qx "$rows 0" || fail "$n: sweep 1 allocated rows again"
	fi
	grep -q "vtp_fill: vartree: tables of $sw switches copied in [0-9.]* ms; OpenSM sends their blocks next" "$a/opensm.log" ||
		fail "$n: no LFT copy timing line"
	echo "$n: $k sweeps, $sw switches, $rows rows equal OpenSM's"
}

check fat43 "fat 4,3" -F down:S-0002c95000000000:5 -F up:S-0002c95000000000:5 -F down:S-0002c95002000000 -F up:S-0002c95002000000
check thin "thin 4:2,3"
check pruned "pruned 8,3" --lmc 1
check degraded-links "fat 4,3 --drop-links 3@1 --seed 2"
check degraded-switches "pruned 8,3 --drop-switches 2@1 --seed 3"
echo "hops ok"
