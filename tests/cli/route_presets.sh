#!/usr/bin/env bash
# Every vartree-gen tree family at a small size (one-pod pruned trees too) and
# the gpu preset at every pod count: vartree-route routes each (exit 0,
# the compute ranks listed) and vartree-analyze's audit, with every switch and
# CA a source, finds no unreachable destination, loop, misdelivery or credit
# loop. gpu 1 was refused ('no up/down path from CA "mgmt01 mlx5_0" ... to CA
# "mgmt02 mlx5_0"': the management HCAs on the one pod's tops read as compute
# nodes on leaves). The split cores (superpod, cores) are audited with the
# second VL their switch-sourced routes take (--vl-split; one VL elsewhere),
# superpod 3,2,4,4,2,2 and 4,4,8,4,3,2 with as many tops per group as do not
# divide a spine's up-links (refused by vartree-gen before). Not here: clique
# (no tree, refused by design: tests/data/route-golden.txt).
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0 n=0
bad() { echo "FAIL: $spec: $*"; nfail=$((nfail + 1)); }

for c in "fat 2,4|16" "fat 4,3|64" "thin 4:2,3|64" "slender 4:2,3|32" "varary 4,4,2:4,2:1,2|32" \
	"pruned 4,1|4" "pruned 8,1|16" "pruned 4,4|16" "oversub 4,4,2,2|16" \
	"gpu 1|80" "gpu 2|160" "gpu 3|240" "gpu 4|320" "rails 2 fat 2,2|4" \
	"superpod 2,2,4,4,2,2|16" "superpod 3,2,4,4,2,2|24" "superpod 4,4,8,4,3,2|128" \
	"cores 2,3,2,6,4|24"; do
	spec=${c%|*} want=${c#*|}
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec -o "$tmp/g.topo" 2>"$tmp/err" || { bad "gen: $(cat "$tmp/err")"; continue; }
	"$bin/vartree-route" -q "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "refused: $(cat "$tmp/err")"; continue; }
	[ "$(grep -c . "$tmp/o")" = "$want" ] || bad "$(grep -c . "$tmp/o") ranks, want $want"
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources --vl-split \
		--json >"$tmp/a.json" 2>"$tmp/err"
	[ $? -le 1 ] || { bad "analyze: $(head -2 "$tmp/err")"; continue; }
	for k in unreachable loop misdelivery credit-loop; do
		v=$(grep -o "\"$k\": {\"count\": [0-9]*" "$tmp/a.json" | sed 's/.*: //')
		[ "$v" = 0 ] || bad "audit $k: ${v:-missing}"
	done
done
# gpu 1's management HCAs, on tops left with their one pod's links, are no compute nodes
spec="gpu 1"
"$bin/vartree-gen" gpu 1 -o "$tmp/g.topo"
v=$("$bin/vartree-route" "$tmp/g.topo" -o /dev/null 2>&1 | grep -c "holds CAs but is cabled like a top left with one pod's links")
[ "$v" = 4 ] || bad "$v departures for the management tops, want 4"
echo "$n fabrics, $nfail failures"
[ $nfail = 0 ]
