#!/usr/bin/env bash
# OpenSM's whole routing step inside the stock OpenSM 3.3.23 (from its log), vartree
# beside ftree on pruned 3-level trees of 36-port switches: 3888, 5832 and 11664 hosts
# (vartree-gen pruned 36,12 / 36,18 / 36,36), first sweep, one run of each.
#   step:  "building routing with '<engine>'" to "<engine> tables configured on all
#          switches": everything the administrator waits for, including OpenSM's LFT
#          send (every 64-entry block of every switch is queued on the first sweep).
#   vartree: own = subnet model + vt_route (its "routed" log line); hops = its
#          "min-hop tables filled" line (OpenSM's own matrices are skipped);
#          send = from that line to "tables configured" (LFT copy + OpenSM's send).
#   ftree: own = "building routing" to "FatTree routing is done", less OpenSM's hop
#          matrices that ftree has built in the middle; hops = those matrices
#          ("Max LID in switch LFTs" to "Starting FatTree routing");
#          send = "FatTree routing is done" to "tables configured".
# Ratios are ftree / vartree. The 11664-host runs take several minutes each (ibsim
# discovery); VT_BENCH_PODS="12 18" skips them.
set -u
top=${VT_TOP:?}
h=$top/sim/vartree-harness
gen=$top/build/bin/vartree-gen
tmp=$(mktemp -d /tmp/vt-bench-plugin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ms() { # LOG START-REGEX END-REGEX: ms between the first matching lines
	awk -v a="$2" -v b="$3" 'function ts(  t) { split($3, t, ":"); return (t[1] * 3600 + t[2] * 60 + t[3]) * 1000 + $4 / 1000 }
		$0 ~ a && !s { s = ts() } $0 ~ b && s && !e { e = ts() } END { printf "%.1f", e - s }' "$1"
}
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
echo "ftree / vartree from one run of each (goal: step >= 10x at 3888 and 5832 hosts)"
printf '%-14s %6s | %8s %8s %8s %9s | %8s %8s %8s %9s | %9s %10s\n' fabric hosts \
	"vt own" "vt hops" "vt send" "vt step" "ft own" "ft hops" "ft send" "ft step" \
	"own ft/vt" "step ft/vt"
for pods in ${VT_BENCH_PODS:-12 18 36}; do
	f=$tmp/p$pods.topo
	"$gen" pruned 36,$pods -o "$f" || exit 1
	hosts=$((pods * 324))
	for e in vartree ftree; do
		"$h" -q -T 1800 -e $e -o "$tmp/$e$pods" "$f" >/dev/null || { cat "$tmp/$e$pods/summary.txt"; exit 1; }
		grep -q "^osm_sweep 0: SUBNET UP, engine $e, fallbacks none," "$tmp/$e$pods/summary.txt" ||
			{ cat "$tmp/$e$pods/summary.txt"; exit 1; }
	done
	lv=$tmp/vartree$pods/opensm.log lf=$tmp/ftree$pods/opensm.log
	grep -q "Min Hop Table Assignment" "$lv" && { echo "vartree: OpenSM built its own hop matrices" >&2; exit 1; }
	vown=$(sed -n 's/.*vartree: routed .* in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	vhop=$(sed -n 's/.*vartree: min-hop tables filled in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	vsend=$(ms "$lv" "vartree: min-hop tables filled" "vartree tables configured")
	vstep=$(ms "$lv" "building routing with 'vartree'" "vartree tables configured")
	fall=$(ms "$lf" "building routing with 'ftree'" "FatTree routing is done")
	fhop=$(ms "$lf" "Max LID in switch LFTs" "Starting FatTree routing")
	fown=$(calc "$fall - $fhop")
	fsend=$(ms "$lf" "FatTree routing is done" "ftree tables configured")
	fstep=$(ms "$lf" "building routing with 'ftree'" "ftree tables configured")
	printf '%-14s %6d | %6.1fms %6.1fms %6.1fms %7.1fms | %6.1fms %6.1fms %6.1fms %7.1fms | %8.1fx %9.1fx\n' \
		"pruned 36,$pods" $hosts "$vown" "$vhop" "$vsend" "$vstep" "$fown" "$fhop" "$fsend" "$fstep" \
		"$(calc "$fown / $vown")" "$(calc "$fstep / $vstep")"
	rm -rf "$tmp/vartree$pods" "$tmp/ftree$pods" "$f"
done
