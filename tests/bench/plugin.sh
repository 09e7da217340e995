#!/usr/bin/env bash
# Routing time inside the stock OpenSM 3.3.23 (from its log), vartree beside
# ftree, on pruned 3-level trees of 36-port switches up to 5832 hosts.
#   own:   the engine's own work. vartree: subnet model + vt_route (its log line);
#          ftree: "building routing with 'ftree'" to "FatTree routing is done",
#          less OpenSM's hop matrices that ftree builds in the middle
#          ("Max LID in switch LFTs" to "Starting FatTree routing").
#   total: "building routing with" to "tables configured on all switches"
#          (both include OpenSM's hop matrices and the LFT send).
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
printf '%-14s %6s | %10s %10s %7s | %10s %10s %7s\n' fabric hosts "vt own" "ftree own" ratio "vt total" "ft total" ratio
for pods in 4 12 18; do
	f=$tmp/p$pods.topo
	"$gen" pruned 36,$pods -o "$f" || exit 1
	hosts=$((pods * 324))
	for e in vartree ftree; do
		"$h" -q -T 900 -e $e -o "$tmp/$e$pods" "$f" >/dev/null || { cat "$tmp/$e$pods/summary.txt"; exit 1; }
		grep -q "^osm_sweep 0: SUBNET UP, engine $e," "$tmp/$e$pods/summary.txt" || { cat "$tmp/$e$pods/summary.txt"; exit 1; }
	done
	lv=$tmp/vartree$pods/opensm.log lf=$tmp/ftree$pods/opensm.log
	vown=$(sed -n 's/.*vartree: routed .* in \([0-9.]*\) ms.*/\1/p' "$lv" | head -1)
	fall=$(ms "$lf" "building routing with 'ftree'" "FatTree routing is done")
	fhop=$(ms "$lf" "Max LID in switch LFTs" "Starting FatTree routing")
	fown=$(awk -v a="$fall" -v b="$fhop" 'BEGIN { printf "%.1f", a - b }')
	vtot=$(ms "$lv" "building routing with 'vartree'" "vartree tables configured")
	ftot=$(ms "$lf" "building routing with 'ftree'" "ftree tables configured")
	printf '%-14s %6d | %8.1fms %8.1fms %6.1fx | %8.1fms %8.1fms %6.2fx\n' "pruned 36,$pods" $hosts \
		"$vown" "$fown" "$(awk -v a="$fown" -v b="$vown" 'BEGIN { print a / b }')" \
		"$vtot" "$ftot" "$(awk -v a="$ftot" -v b="$vtot" 'BEGIN { print a / b }')"
done
