#!/usr/bin/env bash
# Real-fabric features on generated trees (vartree-gen's aggregation nodes, spine
# CAs single and dual-homed, host-less leaves, loop-backs, directors), alone and
# with links cut by several seeds: vartree-route routes each with the ranks
# listed (aggregation nodes and spine CAs are not compute nodes) and
# vartree-analyze's audit, with every switch and CA a source and every LID a
# destination, finds no unreachable destination, loop, misdelivery or credit
# loop, slender trees with a top's link cut too.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0 n=0
bad() { echo "FAIL: $spec $opts: $*"; nfail=$((nfail + 1)); }

# lines SPEC OPTS PATTERN WANT: vartree-route's stderr lines matching PATTERN are WANT
lines() {
	spec=$1 opts=$2
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec $opts -o "$tmp/g.topo"
	v=$("$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" 2>&1 >/dev/null | grep "$3")
	[ "$v" = "$4" ] || bad "$v"
}

# refused SPEC OPTS: vartree-route exits 1 and writes nothing, its message in $tmp/err
refused() {
	spec=$1 opts=$2
	n=$((n + 1))
	rm -f "$tmp/l"
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec $opts -o "$tmp/g.topo"
	"$bin/vartree-route" -q "$tmp/g.topo" -o "$tmp/l" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] || bad "exit $rc: $(cat "$tmp/err")"
	[ ! -e "$tmp/l" ] || bad "refused but left output"
}

# routes SPEC OPTS RANKS: routed, clean audit, RANKS compute ranks
routes() {
	spec=$1 opts=$2
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec $opts -o "$tmp/g.topo" 2>"$tmp/err" || { bad "gen: $(cat "$tmp/err")"; return; }
	audited "$3"
}

# audited RANKS: $tmp/g.topo routed, clean audit, RANKS compute ranks
audited() {
	"$bin/vartree-route" -q "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "refused: $(cat "$tmp/err")"; return; }
	[ "$(grep -c . "$tmp/o")" = "$1" ] || bad "$(grep -c . "$tmp/o") ranks, want $1"
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources --json \
		>"$tmp/a.json" 2>"$tmp/err"
	[ $? -le 1 ] || { bad "analyze: $(head -2 "$tmp/err")"; return; }
	for k in unreachable loop misdelivery credit-loop; do
		c=$(grep -o "\"$k\": {\"count\": [0-9]*" "$tmp/a.json" | sed 's/.*: //')
		[ "$c" = 0 ] || bad "audit $k: ${c:-missing}"
	done
}

for fam in "fat 4,2|16" "fat 4,3|64" "fat 8,3|512" "pruned 36,2|648" "thin 4:2,3|64" \
	"oversub 8,12,4,4|96" "varary 4,4,2:4,2:1,2|32"; do
	spec=${fam%|*} r=${fam#*|}
	routes "$spec" "--aggregation-nodes" "$r"
	routes "$spec" "--aggregation-nodes --spine-cas 2:dual" "$r"
	routes "$spec" "--aggregation-nodes --director CS7500" "$r"
	for seed in 1 2 3 4 5; do
		routes "$spec" "--aggregation-nodes --spine-cas 2:dual --drop-links 1@0 --seed $seed" "$r"
	done
done
# loop-backs where the switches have free ports
for spec in "fat 4,3|64" "fat 8,3|512" "oversub 8,12,4,4|96"; do
	routes "${spec%|*}" "--aggregation-nodes --spine-cas 3 --loopbacks 4 --seed 2" "${spec#*|}"
done
# three-level trees: cut links higher up too
for seed in 1 2 3 4 5 6; do
	routes "fat 4,3" "--aggregation-nodes --spine-cas 2 --drop-links 3@1 --seed $seed" 64
	routes "fat 8,3" "--aggregation-nodes --drop-switches 1@1 --seed $seed" 512
done
# two-pod three-level trees with a level-1 switch failed: the tops it fed keep
# one down-link, like a host-less leaf, but reach the rest only through a leaf;
# they stay tops (were taken for leaves: 'CA "H-0000" ... at level 2')
for seed in 1 2 3; do
	routes "pruned 8,2" "--aggregation-nodes --drop-switches 1@1 --seed $seed" 32
	routes "pruned 12,2" "--aggregation-nodes --drop-switches 1@1 --seed $seed" 72
	routes "varary 4,2,2:2,2" "--aggregation-nodes --drop-switches 1@1 --seed $seed" 16
done
# ... a host-less leaf does not join the tops it fed to the others
routes "pruned 8,2" "--aggregation-nodes --drop-switches 1@1 --hostless-leaves 1 --seed 1" 32
routes "pruned 8,2" "--aggregation-nodes --drop-switches 1@1 --hostless-leaves 1 --seed 4" 32
# ... and a cut-off top with management or storage CAs is no leaf: its CAs
# are not compute nodes, reached by detours (were 'CA "mgmt04 mlx5_0" ... at
# level 2', 'CA "stor01 mlx5_0" ... at level 2')
for seed in 1 2 3; do
	routes "gpu 2" "--drop-switches 1@1 --seed $seed" 160
done
routes "pruned 12,2" "--aggregation-nodes --drop-switches 1@1 --spine-cas 2:dual --seed 1" 72
routes "pruned 12,2" "--aggregation-nodes --drop-switches 1@1 --spine-cas 1 --seed 2" 72
# (its one pod's links left, it is told from a leaf before the roots are
# found: was 'holds CAs but reaches the roots only through a leaf: a top cut
# off below, its CAs are not compute nodes', same levels and tables)
lines "gpu 2" "--drop-switches 1@1 --seed 2" 'holds CAs' \
	'vartree-route: switch "L2-S0001" (0x0002c95002000001) holds CAs but is cabled like a top left with one pod'"'"'s links (the switch neighbours of one without CAs, at most half a leaf'"'"'s): its CAs are not compute nodes'
lines "pruned 8,2" "--drop-switches 1@1 --seed 1" '^vartree-route: [0-9]* switch levels\|^vartree-route: level' \
	"vartree-route: 3 switch levels, 32 compute nodes, 32 ranks (4 per leaf)
vartree-route: level 0: 8 leaf switches, up to 4 compute nodes each, 4 up-links in 4 groups
vartree-route: level 1: 7 switches, 4 down-links in 4 groups, 4 up-links in 1 groups
vartree-route: level 2: 4 switches, 8 down-links in 2 groups, 0 up-links in 0 groups"
# a level-1 switch whose one top failed (four parallel links) is stranded: it
# is routed around (was refused: 'switch "L1-S0002" ... has no up-link left
# ... vartree routes no tree with a switch stranded between levels'), named
# as a departure, its own LID reached through a leaf below it (the audit)
routes "pruned 8,2" "--drop-switches 1 --seed 1" 32
lines "pruned 8,2" "--drop-switches 1 --seed 1" 'routed around' \
	"vartree-route: switch \"L1-S0002\" (0x0002c95001000002) has no up-link left but switches below it have others (a failed top or failed up-links cut it off): routed around, it carries only its own and its CAs' routes
vartree-route: switch \"L1-S0006\" (0x0002c95001000006) has no up-link left but switches below it have others (a failed top or failed up-links cut it off): routed around, it carries only its own and its CAs' routes"
# issue 24's fault campaign: thin 4:2,3 with top L2-S0002 down and the links
# at L1-S0000 port 5, L0-S0012 port 6 and L0-S0002 port 5 (both ends cut, as
# vartree-harness -F down:NODE[:PORT] does). L1-S0000 lost both up-links and is
# routed around (was refused as stranded); the leaves below it and L0-S0012
# share no top any more, so their CAs' routes take a down-up turn, audited
spec="thin 4:2,3" opts="-F down:L2-S0002 -F down:L1-S0000:5 -F down:L0-S0012:6 -F down:L0-S0002:5"
n=$((n + 1))
"$bin/vartree-gen" thin 4:2,3 -o "$tmp/t.topo"
awk -v cut="L2-S0002 L1-S0000:5 L0-S0012:6 L0-S0002:5" '
	BEGIN { n = split(cut, c, " "); for (i = 1; i <= n; i++) want[c[i]] = 1 }
	/^(Switch|Ca)/ { split($0, q, "\""); id = q[2]; name = q[4] }
	FNR == NR && /^\[/ {
		split($0, q, "\""); p = substr($1, 2, index($1, "]") - 2)
		if (want[name] || want[name ":" p]) {
			drop[id ":" p] = 1
			rp = q[3]; sub(/^\[/, "", rp); sub(/\].*/, "", rp); drop[q[2] ":" rp] = 1
		}
		next
	}
	FNR == NR { next }
	/^\[/ { p = substr($1, 2, index($1, "]") - 2); if (drop[id ":" p]) next }
	{ print }' "$tmp/t.topo" "$tmp/t.topo" >"$tmp/g.topo"
[ "$(grep -c '^\[' "$tmp/t.topo")" = $(($(grep -c '^\[' "$tmp/g.topo") + 14)) ] ||
	bad "the cut left $(grep -c '^\[' "$tmp/g.topo") of $(grep -c '^\[' "$tmp/t.topo") port lines, want 14 fewer"
audited 64
v=$("$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" 2>&1 >/dev/null | grep 'routed around\|no up/down path')
[ "$v" = "vartree-route: switch \"L1-S0000\" (0x0002c95001000000) has no up-link left but switches below it have others (a failed top or failed up-links cut it off): routed around, it carries only its own and its CAs' routes
vartree-route: no up/down path from leaf \"L0-S0000\" (0x0002c95000000000) to leaf \"L0-S0012\" (0x0002c95000000012) (8 ordered pairs of leaves): their CAs' routes turn down-up, every route audited" ] ||
	bad "$v"
# a stranded switch whose cut leaves the leaves skewed: the top L2-S0001 kept
# links to one pod only and reads as a host-less leaf of it; found roots take
# it as a root and route (tests/cli/route_orphan.sh), roots given without it
# (a top the root list left out, not a fault) keep the refusal by its name
spec="slender 4:2,3" opts="--drop-links 4@1 --seed 5 (root L2-S0000 given)"
n=$((n + 1))
"$bin/vartree-gen" slender 4:2,3 --drop-links 4@1 --seed 5 -o "$tmp/g.topo"
printf '0x0002c95002000000\n' >"$tmp/roots"
rm -f "$tmp/l"
"$bin/vartree-route" -q "$tmp/g.topo" --root-guid-file "$tmp/roots" -o "$tmp/l" 2>"$tmp/err"
[ $? = 1 ] || bad "exit not 1 with L2-S0000 the only root"
[ ! -e "$tmp/l" ] || bad "refused but left output"
[ "$(cat "$tmp/err")" = "vartree-route: $tmp/g.topo:128: switch \"L1-S0002\" (0x0002c95001000002) has no up-link left but switches below it have others: a failed top (or its failed up-links) cut it off; vartree routes no tree with a switch stranded between levels" ] ||
	bad "$(cat "$tmp/err")"
# a leaf whose other up-links failed too hangs off the stranded switch only:
# routed around with it (tests/cli/route_orphan.sh)
# host-less leaves: still leaves (level 0), their ranks place-keepers
routes "fat 4,3" "--aggregation-nodes --hostless-leaves 3 --seed 4" 64
routes "pruned 36,2" "--aggregation-nodes --hostless-leaves 5 --seed 1" 648

# the summary's leaves are the switches with ranks: with hosts in two pods of a
# fat 4,3 under CS7500 directors the other two pods' 8 leaves get none and are
# counted apart (were among "16 leaf switches"; 32 ranks, 4 per leaf)
lines "fat 4,3" "--hostless-leaves 14 --director CS7500" '^vartree-route: [0-9]* switch levels\|^vartree-route: level 0' \
	"vartree-route: 3 switch levels, 8 compute nodes, 32 ranks (4 per leaf)
vartree-route: level 0: 8 leaf switches, up to 4 compute nodes each, 4 up-links in 4 groups
vartree-route: level 0 also: 8 switches without compute nodes, no ranks, 4 up-links in 4 groups"
# each level-0 line's up-links are its own switches': 5 of these 9 leaves kept
# 3 up-links, the 4 switches without ranks 4 (the leaf line said 4, the most
# common count of all 13, while only level 0 as a whole was summed up)
lines "fat 4,3" "--hostless-leaves 10 --drop-links 6@0 --seed 4" '^vartree-route: level 0' \
	"vartree-route: level 0: 9 leaf switches, up to 4 compute nodes each, 3 up-links in 3 groups
vartree-route: level 0 also: 4 switches without compute nodes, no ranks, 4 up-links in 4 groups"
# and each level-0 switch's departure compares it with its own line: the leaves
# L0-S0002 and L0-S0009 with the leaves' 4, the host-less L0-S0012 and L0-S0013
# with the others' 3 (the lines said 'its level has 4' for all, L0-S0012 went
# unnamed, and the others with 3, as most of them have, were named)
lines "fat 4,3" "--hostless-leaves 10 --drop-links 6@0 --seed 5" '^vartree-route: level 0\|^vartree-route: switch "L0-' \
	"vartree-route: level 0: 12 leaf switches, up to 4 compute nodes each, 4 up-links in 4 groups
vartree-route: level 0 also: 4 switches without compute nodes, no ranks, 3 up-links in 3 groups
vartree-route: switch \"L0-S0002\" (0x0002c95000000002) at level 0 has 3 up-links, the leaf switches have 4
vartree-route: switch \"L0-S0009\" (0x0002c95000000009) at level 0 has 3 up-links, the leaf switches have 4
vartree-route: switch \"L0-S0012\" (0x0002c95000000012) at level 0 has 4 up-links, the other level-0 switches have 3
vartree-route: switch \"L0-S0013\" (0x0002c95000000013) at level 0 has 2 up-links, the other level-0 switches have 3"

# bypassed directors (--director MODEL:bypass): every leaf cabled straight to
# every line ASIC of its chassis, the added spine ASICs at level 0 beside the
# leaves, without ranks, on the summary's "level 0 also:" line (only
# tests/data/forms/director3-bypass.topo had this shape before)
for fam in "fat 4,2|16" "fat 4,3|64" "oversub 8,12,4,2|96" "pruned 8,3|48" "thin 4:2,3|64" \
	"rails 2 fat 4,2|16" "gpu 2|160"; do
	spec=${fam%|*} r=${fam#*|}
	routes "$spec" "--director CS7500:bypass" "$r"
	routes "$spec" "--aggregation-nodes --director CS8500:bypass --spine-cas 2:dual" "$r"
	routes "$spec" "--aggregation-nodes --director CS7500:bypass --hostless-leaves 1 --loopbacks 2 --seed 3" "$r"
	for seed in 1 2 3; do
		routes "$spec" "--aggregation-nodes --director CS7500:bypass --drop-links 1@0 --seed $seed" "$r"
	done
done
lines "fat 4,2" "--director CS7500:bypass" '^vartree-route: [0-9]* switch levels\|^vartree-route: level' \
	"vartree-route: 2 switch levels, 16 compute nodes, 16 ranks (4 per leaf)
vartree-route: level 0: 4 leaf switches, up to 4 compute nodes each, 4 up-links in 4 groups
vartree-route: level 0 also: 2 director spine ASICs that the leaves' up-links bypass, no ranks, 4 up-links in 4 groups
vartree-route: level 1: 4 switches, 6 down-links in 6 groups, 0 up-links in 0 groups"
# one chassis per pod under the external tops; host-less leaves stay leaves
lines "fat 4,3" "--director CS8500:bypass --hostless-leaves 2 --seed 3" '^vartree-route: [0-9]* switch levels\|^vartree-route: level' \
	"vartree-route: 3 switch levels, 56 compute nodes, 64 ranks (4 per leaf)
vartree-route: level 0: 16 leaf switches, up to 4 compute nodes each, 4 up-links in 4 groups
vartree-route: level 0 also: 8 director spine ASICs that the leaves' up-links bypass, no ranks, 4 up-links in 4 groups
vartree-route: level 1: 16 switches, 6 down-links in 6 groups, 4 up-links in 4 groups
vartree-route: level 2: 16 switches, 4 down-links in 4 groups, 0 up-links in 0 groups"
# one spine ASIC for two line ASICs, each leaf with 2 links to each (was "1
# director spine ASICs")
lines "oversub 8,12,4,2" "--director CS7500:bypass" '^vartree-route: level 0 also' \
	"vartree-route: level 0 also: 1 director spine ASIC that the leaves' up-links bypass, no ranks, 2 up-links in 2 groups"
# parallel links (5 per leaf and line ASIC): the spine ASICs' own up-links
lines "gpu 2" "--director CS7500:bypass" '^vartree-route: level 0' \
	"vartree-route: level 0: 8 leaf switches, up to 20 compute nodes each, 20 up-links in 4 groups
vartree-route: level 0 also: 4 director spine ASICs that the leaves' up-links bypass, no ranks, 4 up-links in 4 groups"

# slender trees reach their tops by two up-paths: with aggregation nodes on
# the tops the detours between tops close a credit loop unless they all turn
# at one level-1 switch (vartree-route's second try) ...
routes "slender 4:2,4" "--aggregation-nodes" 64
# ... and with a top's link cut as well they all turn at one level-2 switch
# linked to every top (the third try, tests/cli/route_turn_switch.sh)
routes "slender 4:2,4" "--aggregation-nodes --spine-cas 2:dual --drop-links 1@2 --seed 2" 64
# a fabric whose every routing fails the every-source audit after the fourth
# try (seed 13 of --drop-links 12@1, refused before the top tree's search, and
# seed 6 of 10@1, before turn switches joined only some of their tops, route
# now: tests/cli/route_turn_switch.sh): top L2-S0002 is linked to L1-S0002
# only, so no switch below the tops joins it to another. It was refused; now
# it routes with a second VL (tests/cli/route_split.sh): VL 0 (the leaves'
# routes, CA-to-CA among them) is free of credit loops; the 402 routes the
# rule put on VL 1 closed one there (not covered). Placed one by one, VL 0
# first (tests/cli/route_split_fault.sh), 12 routes from 3 switches go on
# VL 1, each VL free of credit loops
n=$((n + 1))
"$bin/vartree-gen" slender 8:4,3 --drop-links 17@1 --seed 24 -o "$tmp/g.topo"
"$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" 2>"$tmp/err" || bad "slender 17@1 seed 24: $(tail -1 "$tmp/err")"
grep -q '^vartree-route: routed with a second VL: .*, placed one by one, VL 0 where it closes no credit loop there, else VL 1 (their own SL): 12 routes that start at 3 switches use VL 1; each VL has no credit loop$' "$tmp/err" ||
	bad "slender 17@1 seed 24: $(grep 'second VL' "$tmp/err")"
echo "$n fabrics, $nfail failures"
[ $nfail = 0 ]
