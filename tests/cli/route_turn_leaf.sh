#!/usr/bin/env bash
# Why vartree's detours turn at the turn leaf and are not minimal (vt_route_turn.c).
# On vartree-gen gpu (4 pods, 4 rail groups of top switches, management HCAs on
# tops, aggregation nodes everywhere) vartree's tables pass the every-source
# audit but for non-minimal hops: 360 on the paths CA traffic takes, 684 with
# every switch a source. Each level-1 switch routes a management HCA on a top
# of another rail group over the turn leaf (5 switch hops). Its minimal route
# turns at a leaf of its own pod (3 hops): that entry alone, for every one of
# the 64 level-1 switch and management LID pairs, is either a forwarding loop
# (the switch is in the HCA's rail group: its route was minimal), or still
# clean (pod 0, whose leaf is the turn leaf: the route was minimal), or it
# closes a credit loop: all 36 non-minimal ones do.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

"$bin/vartree-gen" gpu -o "$tmp/g.topo" || exit 1
"$bin/vartree-route" -q "$tmp/g.topo" -o "$tmp/l" || exit 1
audit() { # TABLES [--all-sources]: the audit lines
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$1" -q -p shift:1 ${2:+"$2"} | grep '^audit'
}
ok='audit: ok (no unreachable destination, loop, misdelivery or credit loop)'
# the non-minimal hops are reported but pass: the analysis exits 0
"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" -q -p shift:1 >/dev/null || bad "exit $?, want 0"
a=$(audit "$tmp/l")
[[ $a == "$ok"$'\n'"audit: non-minimal: 360 (first: \"L1-S0005\" (0x0002c95001000005), LID 369: non-minimal hop to \"L2-S0001\" (0x0002c95002000001) (5 switch hops where 3 would do))" ]] ||
	bad "CA audit: $a"
a=$(audit "$tmp/l" --all-sources)
[[ $a == "$ok"$'\n'"audit: non-minimal: 684 "* ]] && [ "$(grep -c . <<<"$a")" = 2 ] || bad "every-source audit: $a"

# management HCAs mgmt01..04: LIDs 369..372 (0x0171..0x0174)
mlids=$(sed -n 's/.*"mgmt0[1-4] mlx5_0" lid \([0-9]*\) .*/\1/p' "$tmp/g.topo" | sort -un | tr '\n' ' ')
[ "$mlids" = "369 370 371 372 " ] || bad "management LIDs: $mlids"
cloop=0 floop=0 clean=0
for s in $(seq 0 15); do
	sw=$(printf 'L1-S%04d' "$s")
	for lid in $mlids; do
		# the entry down to port 1, the switch's first leaf (ports 1-20 go down)
		awk -v sw="('$sw'):" -v e="$(printf '0x%04x' "$lid")" \
			'/^Unicast/ { on = index($0, sw) > 0 }
			 on && $1 == e { $2 = "001" } { print }' "$tmp/l" >"$tmp/e"
		cmp -s "$tmp/l" "$tmp/e" && { bad "$sw LID $lid: no entry changed"; continue; }
		a=$(audit "$tmp/e" --all-sources)
		if grep -q '^audit: credit-loop: 1 ' <<<"$a"; then
			cloop=$((cloop + 1))
		elif grep -q '^audit: loop: ' <<<"$a"; then
			floop=$((floop + 1))
		elif [[ $a == "$ok"$'\n'"audit: non-minimal: "* ]] && [ "$(grep -c . <<<"$a")" = 2 ]; then
			clean=$((clean + 1))
		else
			bad "$sw LID $lid: $a"
		fi
	done
done
[ "$cloop $floop $clean" = "36 16 12" ] ||
	bad "credit loops $cloop, forwarding loops $floop, clean $clean; want 36 16 12"
echo "gpu: 36 minimal level-1 detours, each a credit loop; $nfail failures"
[ $nfail = 0 ]
