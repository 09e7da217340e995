#!/usr/bin/env bash
# Shift congestion of vartree against the cut bound (issue 23 goal 2) on every
# fabric of topofiles/ and on generated irregular and degraded trees (several
# seeds): worst and average link load of a shift all-to-all in vartree's own
# order, the bound's, the average's excess over the bound's in per cent, and
# the every-source audit (ok, or the first failing count). One line a fabric,
# so two runs diff line by line; a last line counts the fabrics at the bound
# (worst equal, average within 5 %) and the failed audits.
#   VT_IRR_TOPO=0      leave out topofiles/ (generated trees only)
#   VT_IRR_GEN=0       leave out the generated trees
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${VT_BIN:-$top/build/bin}
tmp=$(mktemp -d /tmp/vt-bench-irr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# generated: "SPEC OPTIONS" (seeds as --seed S in the spec)
gen=(
	"fat 4,3 --hosts-per-leaf 3 --drop-links 1@1"
	"fat 4,3 --hosts-per-leaf 3 --drop-links 1@1 --seed 2"
	"fat 4,3 --hosts-per-leaf 3 --drop-links 2@1 --seed 3"
	"fat 4,3 --drop-links 1@1"
	"fat 4,3 --drop-links 2@1 --seed 2"
	"fat 4,3 --drop-links 1@0 --seed 2"
	"fat 4,3 --drop-links 2@0 --seed 3"
	"fat 4,3 leaf-uplinks=1:3"
	"fat 4,3 leaf-uplinks=2:2 --seed 2"
	"fat 4,3 --hostless-leaves 2 --seed 2"
	"fat 4,3 slow-leaves=2"
	"fat 4,3 --drop-switches 1@1"
	"fat 8,3 --drop-links 2@1"
	"fat 8,3 --drop-links 3@1 --seed 2"
	"fat 8,3 --hosts-per-leaf 6 --drop-links 2@1 --seed 3"
	"fat 8,3 leaf-uplinks=3:6"
	"pruned 8,3 --drop-links 2@1"
	"pruned 8,3 --drop-links 2@0 --seed 2"
	"thin 4:2,3 --drop-links 1@1"
	"slender 4:2,3 --drop-links 2@1"
	"oversub 8,4,2,2 --drop-links 1@0"
	"uneven 8,8,6,4:4,4,4,2:4"
	"uneven 12,10,8,8,3,0:6,6,6,6,2,6:6"
	"uneven 24,20,16,12,12,5,0:12,12,12,12,12,4,12:5 slow-leaves=2 --seed 2"
	"superpod 3,4,8,4,3,2 --drop-links 2@1"
	"superpod 2,2,4,4,2,2 --drop-links 1@1 --seed 2"
	"gpu 2 --hostless-leaves 3 slow-leaves=2@EDR"
)

nb=0 n=0 nbad=0
# json KEY: the first number after "KEY": in $tmp/a.json
json() { grep -o "\"$1\": [0-9.]*" "$tmp/a.json" | head -1 | sed 's/.*: //'; }
one() { # name, topology file
	local name=$1 f=$2 k c au=ok
	n=$((n + 1))
	if ! "$bin/vartree-route" -q "$f" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err"; then
		printf '%-58s refused: %s\n' "$name" "$(head -1 "$tmp/err" | cut -c1-60)"
		return
	fi
	# --vl-split: split cores route switch-sourced traffic on VL 1 (one VL: no change)
	"$bin/vartree-analyze" "$f" --lfts "$tmp/l" --order "$tmp/o" --all-sources --vl-split \
		-p shift --json >"$tmp/a.json" 2>"$tmp/err"
	for k in unreachable loop misdelivery credit-loop; do
		c=$(grep -o "\"$k\": {\"count\": [0-9]*" "$tmp/a.json" | sed 's/.*: //')
		[ "$c" = 0 ] || { au="$k=${c:-?}"; nbad=$((nbad + 1)); break; }
	done
	local w a bw ba
	w=$(json worst) a=$(json avg) bw=$(json bound_worst) ba=$(json bound_avg)
	local ex
	ex=$(awk -v a="$a" -v b="$ba" 'BEGIN { if (b > 0) printf "%.1f", (a / b - 1) * 100; else print "-" }')
	awk -v w="$w" -v bw="$bw" -v e="$ex" 'BEGIN { exit !(w == bw && e + 0 <= 5) }' && nb=$((nb + 1))
	printf '%-58s %3s %8.4f | %3s %8.4f | %6s%% | %s\n' "$name" "$w" "$a" "$bw" "$ba" "$ex" "$au"
}

printf '%-58s %3s %8s | %3s %8s | %7s | %s\n' fabric worst avg bnd bnd-avg excess audit
if [ "${VT_IRR_TOPO:-1}" != 0 ]; then
	for f in "$top"/topofiles/*.topo; do
		one "$(basename "$f" .topo)" "$f"
	done
fi
if [ "${VT_IRR_GEN:-1}" != 0 ]; then
	for s in "${gen[@]}"; do
		# shellcheck disable=SC2086
		"$bin/vartree-gen" $s -o "$tmp/g.topo" 2>"$tmp/err" ||
			{ printf '%-58s gen: %s\n' "$s" "$(head -1 "$tmp/err")"; continue; }
		one "$s" "$tmp/g.topo"
	done
fi
echo "$n fabrics, $nb at the bound (worst equal, average within 5 %), $nbad audits failed"
