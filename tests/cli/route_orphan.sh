#!/usr/bin/env bash
# A leaf whose every up-link leads to a stranded switch (an orphan: its links
# to the other level-1 switches failed too) is routed around with that switch
# (issue 24 goal 5; both fabrics were refused: 'switch "L1-S0004" ... has no
# up-link left ... and its leaf "L0-S0004" ... has no other way up'). Its CAs
# are no compute nodes (no rank), the departure says so, the audit with every
# switch and CA a source finds nothing, and the other ranks' shift is what it
# is with the orphan unplugged (pruned 8,2 seed 2: 4 / 3.04, pruned 4,2
# seed 4: 2 / 1.60, both checked by hand on the fabric with the orphan leaf
# and its CAs removed).
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0 n=0
bad() { echo "FAIL: $spec: $*"; nfail=$((nfail + 1)); }

# orphan SPEC RANKS SHIFT DEPARTURES: routed, RANKS ranks none of them on the
# orphan, a clean audit, SHIFT the "worst avg" of the shift, DEPARTURES the
# "routed around" lines
orphan() {
	spec=$1
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec -o "$tmp/g.topo" || { bad "gen"; return; }
	"$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "refused: $(cat "$tmp/err")"; return; }
	[ "$(grep -c . "$tmp/o")" = "$2" ] || bad "$(grep -c . "$tmp/o") ranks, want $2"
	[ "$(grep 'routed around' "$tmp/err")" = "$4" ] || bad "$(grep 'routed around' "$tmp/err")"
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources \
		>"$tmp/a" 2>&1
	grep -q '^audit: ok (no unreachable destination, loop, misdelivery or credit loop)$' "$tmp/a" ||
		bad "audit: $(grep '^audit' "$tmp/a")"
	"$bin/vartree-analyze" "$tmp/g.topo" --route vartree -p shift >"$tmp/a" 2>&1 ||
		bad "analyze --route vartree: $(tail -1 "$tmp/a")"
	[ "$(awk '$1 == "shift" { print $4, $5 }' "$tmp/a")" = "$3" ] ||
		bad "shift $(awk '$1 == "shift" { print $4, $5 }' "$tmp/a"), want $3"
}

d="has no up-link left but switches below it have others (a failed top or failed up-links cut it off): routed around, it carries only its own"
o="routed around with it, through the switch's other leaves"
c="CAs are not compute nodes (no rank: their routes cannot be free of congestion)"
orphan "pruned 8,2 --drop-switches 1 --drop-links 8@0 --seed 2" 28 "4 3.04" \
	"vartree-route: switch \"L1-S0000\" (0x0002c95001000000) $d and its CAs' routes
vartree-route: switch \"L1-S0004\" (0x0002c95001000004) $d, its CAs' and its orphan leaves' routes
vartree-route: leaf \"L0-S0004\" (0x0002c95000000004) has no up-link but to stranded switch \"L1-S0004\" (0x0002c95001000004): $o; its 4 $c"
# H-0016 .. H-0019 hang off the orphan: no rank
grep -q 'H-001[6-9]$' "$tmp/o" && bad "an orphan's CA has a rank"
orphan "pruned 4,2 --drop-switches 1 --drop-links 1@0 --seed 4" 6 "2 1.60" \
	"vartree-route: switch \"L1-S0000\" (0x0002c95001000000) $d, its CAs' and its orphan leaves' routes
vartree-route: switch \"L1-S0002\" (0x0002c95001000002) $d and its CAs' routes
vartree-route: leaf \"L0-S0000\" (0x0002c95000000000) has no up-link but to stranded switch \"L1-S0000\" (0x0002c95001000000): $o; its 2 $c"
echo "$n fabrics, $nfail failures"
[ $nfail = 0 ]
