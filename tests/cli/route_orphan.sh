#!/usr/bin/env bash
# Trees a fault left with a switch stranded between levels that were refused
# and are routed (issue 24 goal 5). A leaf whose every up-link leads to a
# stranded switch (an orphan: its links to the other level-1 switches failed
# too) is routed around with it (was refused: 'switch "L1-S0004" ... has no
# up-link left ... and its leaf "L0-S0004" ... has no other way up'), also
# where its links lead to two stranded switches (it takes the first). Its CAs
# are no compute nodes (no rank), the departure says so, the audit with every
# switch and CA a source finds nothing, and the other ranks' shift is what it
# is with the orphan unplugged (checked by hand on each fabric with the orphan
# leaves and their CAs removed: the same worst and average). A top that kept
# links to one pod only reads as a host-less leaf of it and is taken as a
# root, where that puts the leaves on one level once the stranded switch is
# cut (slender 4:2,3 seed 5, was refused with 'switch "L1-S0002" ...'): its
# shift is the cut bound, as with both tops given in a root GUID file.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0 n=0
bad() { echo "FAIL: $spec: $*"; nfail=$((nfail + 1)); }

# orphan SPEC RANKS SHIFT DEPARTURES: routed, RANKS ranks, a clean audit, SHIFT
# the shift's "worst avg", DEPARTURES the "routed around" and "taken as a root" lines
orphan() {
	spec=$1
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec -o "$tmp/g.topo" || { bad "gen"; return; }
	"$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "refused: $(cat "$tmp/err")"; return; }
	[ "$(grep -c . "$tmp/o")" = "$2" ] || bad "$(grep -c . "$tmp/o") ranks, want $2"
	[ "$(grep 'routed around\|taken as a root' "$tmp/err")" = "$4" ] ||
		bad "$(grep 'routed around\|taken as a root' "$tmp/err")"
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources \
		>"$tmp/a" 2>&1
	grep -q '^audit: ok (no unreachable destination, loop, misdelivery or credit loop)$' "$tmp/a" ||
		bad "audit: $(grep '^audit' "$tmp/a")"
	"$bin/vartree-analyze" "$tmp/g.topo" --route vartree -p shift >"$tmp/a" 2>&1 ||
		bad "analyze --route vartree: $(tail -1 "$tmp/a")"
	[ "$(awk '$1 == "shift" { print $4, $5 }' "$tmp/a")" = "$3" ] ||
		bad "shift $(awk '$1 == "shift" { print $4, $5 }' "$tmp/a"), want $3"
}

v="vartree-route:"
d="has no up-link left but switches below it have others (a failed top or failed up-links cut it off): routed around, it carries only its own"
o="routed around with it, through the switch's other leaves"
c="CAs are not compute nodes (no rank: their routes cannot be free of congestion)"
orphan "pruned 8,2 --drop-switches 1 --drop-links 8@0 --seed 2" 28 "4 3.04" \
	"$v switch \"L1-S0000\" (0x0002c95001000000) $d and its CAs' routes
$v switch \"L1-S0004\" (0x0002c95001000004) $d, its CAs' and its orphan leaves' routes
$v leaf \"L0-S0004\" (0x0002c95000000004) has no up-link but to stranded switch \"L1-S0004\" (0x0002c95001000004): $o; its 4 $c"
# H-0016 .. H-0019 hang off the orphan: no rank
grep -q 'H-001[6-9]$' "$tmp/o" && bad "an orphan's CA has a rank"
orphan "pruned 4,2 --drop-switches 1 --drop-links 1@0 --seed 4" 6 "2 1.60" \
	"$v switch \"L1-S0000\" (0x0002c95001000000) $d, its CAs' and its orphan leaves' routes
$v switch \"L1-S0002\" (0x0002c95001000002) $d and its CAs' routes
$v leaf \"L0-S0000\" (0x0002c95000000000) has no up-link but to stranded switch \"L1-S0000\" (0x0002c95001000000): $o; its 2 $c"
# L0-S0004's links lead to L1-S0005 and L1-S0006, both stranded, L0-S0007's
# to L1-S0006 only (seed 11 of the same: 4 / 3.56, the bound)
orphan "pruned 8,2 --drop-switches 2 --drop-links 8@0 --seed 20" 24 "4 3.48" \
	"$v switch \"L1-S0001\" (0x0002c95001000001) $d and its CAs' routes
$v switch \"L1-S0002\" (0x0002c95001000002) $d and its CAs' routes
$v switch \"L1-S0005\" (0x0002c95001000005) $d, its CAs' and its orphan leaves' routes
$v switch \"L1-S0006\" (0x0002c95001000006) $d, its CAs' and its orphan leaves' routes
$v leaf \"L0-S0004\" (0x0002c95000000004) has no up-link but to stranded switch \"L1-S0005\" (0x0002c95001000005) (and to 1 other stranded switch, unused): $o; its 4 $c
$v leaf \"L0-S0007\" (0x0002c95000000007) has no up-link but to stranded switch \"L1-S0006\" (0x0002c95001000006): $o; its 4 $c"
orphan "slender 4:2,3 --drop-links 4@1 --seed 5" 32 "16 8.26" \
	"$v switch \"L2-S0001\" (0x0002c95002000001) is cabled like a host-less leaf but as far from the leaves as the roots: a top left with one pod's links, taken as a root (as a host-less leaf, a switch below it would be stranded)
$v switch \"L1-S0002\" (0x0002c95001000002) $d and its CAs' routes"
# the bound: one link joins the two pods of 16 ranks each
[ "$(awk '$1 == "shift" { print $6, $7 }' "$tmp/a")" = "16 8.26" ] ||
	bad "bound $(awk '$1 == "shift" { print $6, $7 }' "$tmp/a")"
# the same twin top with no switch stranded: L1-S0003's one up-link leads to
# L2-S0003, which reaches three level-1 switches of one pod (was refused:
# 'CA "H-0000" ... at level 1, but compute nodes must all hang off level 0');
# shift 23/11.85 before oversubscribed leaves weighed their parents by up-links kept,
# 18/9.95 before the leaves' entries were moved on a shift model wherever a stage
# loads a link twice (vt_route_leaf_moves.c, 70b7813)
orphan "slender 8:4,3 --drop-links 17@1 --seed 15" 128 "14 7.69" \
	"$v switch \"L2-S0003\" (0x0002c95002000003) is cabled like a host-less leaf but as far from the leaves as the roots: a top left with one pod's links, taken as a root (as a host-less leaf, a switch below it would be stranded)"
echo "$n fabrics, $nfail failures"
[ $nfail = 0 ]
