#!/usr/bin/env bash
# OpenSM's whole routing step inside the stock OpenSM 3.3.23 (from its log), vartree
# beside ftree on pruned 3-level trees of 36-port switches: 3888, 5832 and 11664 hosts
# (vartree-gen pruned 36,12 / 36,18 / 36,36), first sweep, one run of each.
#   step:  "building routing with '<engine>'" to "<engine> tables configured on all
#          switches": everything the administrator waits for, including OpenSM's LFT
#          send (every 64-entry block of every switch is queued on the first sweep).
#   vartree: own = subnet model + vt_route (its "routed" log line); hops = its
#          "min-hop tables filled" line (OpenSM's own matrices are skipped), a
#          second thread's time beside "own", so the step is not their sum;
#          copy = its tables copied into OpenSM's new_lft (the VERBOSE "copied" line);
#          send = from that line to "tables configured": OpenSM's
#          osm_ucast_mgr_set_fwd_tables, one MAD per LFT block, as for ftree.
#   ftree: own = "building routing" to "FatTree routing is done", less OpenSM's hop
#          matrices that ftree has built in the middle; hops = those matrices
#          ("Max LID in switch LFTs" to "Starting FatTree routing"); ftree writes
#          new_lft while routing, so it has no copy; send = "FatTree routing is
#          done" to "tables configured".
# Ratios are ftree / vartree. A second table splits vartree's min-hop tables
# (its VERBOSE line): switch distances, the rows' mallocs (first sweep only), writing.
# The 11664-host ftree run takes minutes (ibsim discovery and ftree's step);
# VT_BENCH_PODS="12 18" skips it.
set -u
top=${VT_TOP:?}
. "$top/tests/bench/lib.bash"
h=$top/sim/vartree-harness
gen=$top/build/bin/vartree-gen
tmp=$(mktemp -d /tmp/vt-bench-plugin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
hops=()
echo "ftree / vartree from one run of each (goal: step >= 10x at 3888 and 5832 hosts)"
printf '%-14s %6s | %8s %8s %7s %8s %9s | %8s %8s %8s %9s | %9s %9s %10s\n' fabric hosts \
	"vt own" "vt hops" "vt copy" "vt send" "vt step" "ft own" "ft hops" "ft send" "ft step" \
	"own ft/vt" "send ft/vt" "step ft/vt"
for pods in ${VT_BENCH_PODS:-12 18 36}; do
	f=$tmp/p$pods.topo
	"$gen" pruned 36,$pods -o "$f" || exit 1
	hosts=$((pods * 324))
	"$h" -q -T 1800 -e vartree -o "$tmp/vartree$pods" "$f" >/dev/null || { cat "$tmp/vartree$pods/summary.txt"; exit 1; }
	grep -q "^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none," "$tmp/vartree$pods/summary.txt" ||
		{ cat "$tmp/vartree$pods/summary.txt"; exit 1; }
	ftree_run $pods "$f" "$tmp/ftree$pods" || exit 1
	lv=$tmp/vartree$pods/opensm.log lf=$tmp/ftree$pods/opensm.log
	grep -q "Min Hop Table Assignment" "$lv" && { echo "vartree: OpenSM built its own hop matrices" >&2; exit 1; }
	vown=$(sed -n 's/.*vartree: routed .* in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	vhop=$(sed -n 's/.*vartree: min-hop tables filled in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	vcopy=$(sed -n 's/.*vartree: tables of [0-9]* switches copied in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	vsend=$(ms "$lv" "vartree: tables of [0-9]* switches copied" "vartree tables configured")
	vstep=$(ms "$lv" "building routing with 'vartree'" "vartree tables configured")
	vwait=$(sed -n 's/.*vartree: min-hop tables filled in .*; \([0-9.]*\) ms waited for after it.*/\1/p' "$lv" | head -1)
	hops+=("$(sed -n 's/.*min-hop tables: \([0-9]*\) rows ([0-9]* allocated now): distances \([0-9.]*\) ms, row allocation \([0-9.]*\) ms, rows written \([0-9.]*\) ms.*/\1 \2 \3 \4/p' "$lv" | head -1) $vhop ${vwait:-nan} pruned 36,$pods")
	fall=$(ms "$lf" "building routing with 'ftree'" "FatTree routing is done")
	fhop=$(ms "$lf" "Max LID in switch LFTs" "Starting FatTree routing")
	fown=$(calc "$fall - $fhop")
	fsend=$(ms "$lf" "FatTree routing is done" "ftree tables configured")
	fstep=$(ms "$lf" "building routing with 'ftree'" "ftree tables configured")
	printf '%-14s %6d | %6.1fms %6.1fms %5.1fms %6.1fms %7.1fms | %6.1fms %6.1fms %6.1fms %7.1fms | %8.1fx %9.1fx %9.1fx\n' \
		"pruned 36,$pods" $hosts "$vown" "$vhop" "$vcopy" "$vsend" "$vstep" "$fown" "$fhop" "$fsend" "$fstep" \
		"$(calc "$fown / $vown")" "$(calc "$fsend / $vsend")" "$(calc "$fstep / $vstep")"
	rm -rf "$tmp/vartree$pods" "$tmp/ftree$pods" "$f"
done
echo
echo "vartree's min-hop tables (first sweep: every row is allocated; a second thread, beside the routing), beside ftree's hops above"
printf '%-14s %9s | %10s %10s %10s %10s | %s\n' fabric rows distances allocation written whole \
	"routing waited for them"
for l in "${hops[@]}"; do
	read -r rows d a w whole wait name <<<"$l"
	printf '%-14s %9d | %8.1fms %8.1fms %8.1fms %8.1fms | %8.1fms\n' "$name" "$rows" "$d" "$a" "$w" "$whole" "$wait"
done
