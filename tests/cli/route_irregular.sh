#!/usr/bin/env bash
# Irregular and degraded trees of issue 23 goal 2, generated with several seeds:
# vartree-route's tables give a shift all-to-all (in its own host order) with
# exactly the worst and average link load listed, and an every-source audit
# with no unreachable destination, loop, misdelivery or credit loop. "bound"
# cases must also equal the cut bound's worst and average. The figures before
# each change are in the comments; tests/bench/irregular.sh prints them all.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0 n=0
bad() { echo "FAIL: $spec: $*"; nfail=$((nfail + 1)); }
json() { grep -o "\"$1\": [0-9.]*" "$tmp/a.json" | head -1 | sed 's/.*: //'; }

# Before the leaves' up-links were moved on a shift model wherever some stage
# loads a link twice (vt_route_leaf_moves.c, not only where a leaf has a forced
# destination): thin 4:2,3 --drop-links 1@1 6/4.730159, slender 4:2,3
# --drop-links 2@1 11/5.838710, cores 2,6,3,12,6 --drop-links 2@0 seeds 5 and 3
# 2/1.901408 and 2/1.915493, cores 4,3,3,12,6 --drop-links 1@1 3/2.028169, cores
# 3,4,2,12,4 --drop-links 1@1 3/2.063830, superpod 2,4,8,4,4,4 --leaf-uplinks 2:3
# --seed 2 5/3.365079, superpod 4,4,8,4,2,2 --drop-links 2@0 2/1.937008, pruned
# 8,3 --drop-links 2@0 --seed 2 2/1.936170, fat 4,3 --leaf-uplinks 2:3
# 2/1.920635, cores 2,10,5,24,8 2/1.701571, superpod 2,2,18,9,2,1 --drop-links
# 2@0 --seed 3 2/1.718310, superpod 2,4,18,9,3,1 --drop-links 1@0 --seed 3
# 3/1.902098.
# Before the spare lanes (a leaf whose parent lost an up-link, or a straggler
# leaf whose in-step parent is a straggler too, goes up a lane no destination
# of the leaf is expected on): 2/1.638298, 2/1.638298, 2/1.659574, 2/1.846...
# Before leaves spread over their parents first where another leaf has fewer
# parallel links to one (the issue's QDR/DDR cluster, topofiles/irregular-qdr-ddr
# with another seed for its DDR leaves): 4/2.245509; then, before the weighted
# round robin over the parents, 3/1.868263; before a missed leaf's shift windows
# count the parents the other destinations go to, 3/1.862275. uneven-b (a leaf of
# 5 hosts with 4 up-links among leaves with one link to each of 12 spines): 5/1.923077
# before a missed leaf's windows count its own entries for the destinations routed
# already (dfsssp through OpenSM: 4/2.69).
# fat 4,3 --drop-links 2@1 --seed 2 (two level-1 switches of one pod lost one
# up-link each, to different parent groups): 2/1.650794 before the far lane
# applied to each switch whose parents no other such switch shares (it was
# gated on the level losing one link in all).
# uneven 8,8,6,4:4,4,4,2:4 (a leaf linked to 2 of 4 spines) 3/1.935484 and
# uneven 12,10,8,8,3,0:6,6,6,6,2,6:6 (a leaf of 3 hosts linked to 2 of 6) 3/1.971831
# before the look-ahead re-chose the spines (vt_route_lookahead.c); uneven-b
# 3/1.860140 (cut bound 2/1.832168) before it tried 16 starting ranks, not one.
# uneven 12,10,8,8,3,0:6,6,6,6,2,6:6 2/1.845070 and uneven
# 20,18,16,14,12,10:10,10,8,8,6,6:10 3/2.663866 (cut bound 2/1.831933) before
# single moves improved the look-ahead's plan (look_search), 3/2.386555 before
# swaps of two near ranks' tops did; uneven 16,16,16,8,0,4:8,8,8,4,8,2:8 3/2.347368
# (bound 2/1.92) before the swaps; 3/2.067227 and 3/2.052632 before the walk past
# the moves' local best (sideways moves kept, vt_route_lookahead_search.c), as
# was uneven 12,12,5,24,16,20:12,12,4,12,12,12:12 --drop-links 3@0 at 3/1.923077;
# 3/1.957983 and 3/1.888112 before the walk drew its moves from the link-stages
# above their stage's cut bound (and 0.4-1 s CPU); uneven
# 20,18,16,14,12,10:10,10,8,8,6,6:10 3/1.949580 and uneven
# 16,14,12,10,8,6:8,8,6,6,4,4:8 3/1.894737 and uneven 12,12,5,24,16,20:12,12,4,12,12,12:12
# --drop-links 3@0 3/1.867133 before the weighed walk.
# pruned 8,3 --drop-links 2@1: 2/1.808511 before a lane (a switch's m-th parallel
# link to a parent) that another child of that parent lacks fell back as a lost one.
# superpod 3,4,8,4,3,2 --drop-links 2@1 (two spines of rails 0 and 1 lost one
# of their two links to core 0): 2/1.600000 before only the switches in step
# with a lacking one (their children reach them by its port number) left that
# lane out; the complete spines of the other position paired two of their
# destinations on one link to core 2 for nothing (stages 18-19 over the bound).
# pruned 8,3 --drop-links 2@1: 2/1.510638 before a switch's cycle over the run it
# follows started at the lacked lane (deg.lane0): a level-1 switch of pod 0 lost
# the first of its two links to its second top, the third of its four lanes,
# and the destination displaced from it (rail offset 10) shared a link with
# offset 2 (shift stages 11-15 and 33-34 over the bound); now offsets 2 and 14.
# fat 8,3 --hosts-per-leaf 6 --drop-links 2@1 --seed 3 (a pod's leaves lose two
# lanes, 6 hosts on 8 up-links): 2/1.164491 before a lane a leaf leaves for a
# spare one kept its turn (deg.charge): its next destination took the lost lane's
# spare too, the one after it another's lane.
# fat 4,3 --hosts-per-leaf 3 --drop-links 2@1 --seed 3 (two pods each lose one
# level-1 up-link, in different columns): 2/1.553191 before the shift-window
# policy forecast a leaf's lanes as it takes them (deg.lane_seq, a lost lane's
# destination on a spare one), 2/1.04 before a straggler above the leaves
# counted the destinations of its subtree's windows up each link (up_window).
# cores 2,6,3,12,6 --drop-links 2@0 --seed 5 (two leaves each lost a link to a
# line ASIC, a split core of two chassis): 3/1.915493 (cut bound 2/1.859155)
# before such a leaf, found over several links, took the one its shift windows
# load least rather than its links in turn.
# cores 2,6,3,12,6 --drop-links 2@0: 3/2.183099, --seed 3: 3/1.971831 (cut bound
# 2/1.859155), cores 2,8,4,16,8 --drop-links 2@0: 3/2.039370 (2/1.889764) before
# a leaf that lost up-links went round its parents' groups (the two chassis)
# first, a group's share as whole: the lost lane's destination moved to the
# other chassis and the leaf's later ones each one lane on.
# cores 2,6,3,12,6 --drop-links 2@0: 2/1.915493, cores 2,8,4,16,8 --drop-links
# 2@0: 2/1.952756 before the lanes (vt_route_lanes.c) took damaged split cores,
# a leaf's lost lane on another of its lanes into the same chassis.
# superpod 3,4,8,4,3,2 --drop-links 2@0: 3/1.989474 (cut bound 2/1.852632),
# superpod 4,4,8,4,2,2 --drop-links 2@0: 3/2.070866 (2/1.889764), pruned 8,3
# --drop-links 2@0 --seed 2: 3/2.106383 (2/1.872340) before a level-1 switch
# found over parallel links to the main route's top took the one its shift
# stages load least (vt_route_found_window) rather than its links in turn.
# thin 4:2,3 --drop-links 1@1 (a level-1 switch kept one of its two up-links):
# 8/6.126984 (cut bound 6/4.603175) and slender 4:2,3 --drop-links 2@1 12/6.645161
# (bound 8/4.387097) before an oversubscribed leaf chose among its parents by
# their destinations per up-link kept, pod-wide, and a level-1 switch above
# such leaves took its least-used up-link for their stragglers.
# uneven 12,12,5,24,16,20:12,12,4,12,12,12:12 --drop-links 3@0 (the fullest leaf
# lost two of its spines) and with --leaf-uplinks 2:1 --drop-hosts 5 --seed 2 were
# refused ("CA ... at level 1") before a far end seen from a single fullest leaf
# counted as a host-less leaf only when no CA-bearing switch is cabled to it.
# fat 4,3 --leaf-uplinks 2:2 (two leaves keep 2 of 4 up-links, in different
# pods): 3/2.111111 (cut bound 2/1.936508), 2:3 3/2.015873 (2/1.904762), 2:1
# 6/4.063492 (4/3.809524), fat 8,3 --leaf-uplinks 2:4 3/2.074364 and 4:6
# 3/2.060665 before a level-1 switch sent a short leaf's destination that came
# up a lane not its own to the top of the leaf's destination before it
# (vt_route_downgoing.c's displaced_lane; taking the least-used top moved the
# switch's later destinations one top on) and a level-1 straggler above a
# short leaf took the top the destination's leaf sends that column's
# destination through (vt_route_policy.c's column_top).
# varary 4,4,2:2,2 --drop-switches 1@1 --seed 3 and --seed 4 (a pod lost one of
# its two level-1 switches): 12/6.387097 (cut bound 8/4.774194, OpenSM's engines
# 8/4.77), with --hostless-leaves 2 --seed 3 9/4.967742 (6/4.258065), varary
# 6,3,2:3,2 --drop-switches 1@1 6/3.828571, --seed 2 6/3.657143 (5/3.057143)
# before a straggler above the leaves whose ancestor parents have no other
# child that is not an ancestor (their ways down carry its flows alone) took
# its least-used up-link rather than the parent whose way down the main
# routes used least (vt_route_policy.c's sole_way_down).
# varary 6,3,2:3,2 --hostless-leaves 2 --drop-links 6@0 --seed 3 (a level-1
# switch lost its every leaf, another kept one host-less leaf only, so it and
# the two tops left with them reach the leaves through that leaf alone) was
# refused ("CA ... at level 1") before such a part behind a host-less leaf was
# cut and routed around (vt_tree_strand.c's behind_cut, vt_route_strand.c);
# 6/4.827586 before its leaves' entries were chosen again by moves where a
# leaf reaches some destinations over one up-link only (vt_route_leaf_moves.c).
# cores 4,6,3,16,6 --drop-links 1@1 (leaves deal 6 up-links over 4 chassis, a
# line ASIC lost one of its two links to a spine ASIC): 5/2.768421 (cut bound
# 1/1, dfsssp through OpenSM 4/3.00), cores 3,4,2,9,4 --drop-links 1@1 4/2.400000,
# cores 4,3,3,12,6 --drop-links 1@1 4/2.732394 (2/1.352113) before such a switch,
# found by the descent, went up any parent of its chassis as near the
# destination rather than the one link left (vt_route_chassis.c, deg.clost);
# then 3/2.157895, 4/2.056338 and cores 3,4,2,12,4 --drop-links 1@1 4/2.297872
# before such a switch chose among those links by the shift stages' load
# (vt_route_policy.c's stage_load, as on a split core whose leaves lost links);
# then 3/1.936842, 3/1.885714, 3/2.127660 (and superpod 3,4,8,4,3,2
# --drop-links 2@0 2/1.873684) before the lines took their spines again on a
# model of the shift stages (vt_route_spines.c); cores 2,6,3,12,6
# --drop-switches 1@1 (a line ASIC down: leaves keep 5 of 6 up-links) 3/2.23,
# cores 4,6,3,16,6 --drop-switches 1@0 3/2.30, cores 2,12,6,24,6
# --drop-switches 1@1 3/2.49 (cut bound 2/1.930070) before that too.
# cores 2,6,3,12,6 --drop-links 1@1 (a line ASIC left with 5 links up under
# 6 leaves) 2/1.084507, --seed 2 2/1.084507 (cut bound 2/1.014085), cores
# 4,3,3,12,6 --drop-links 1@1 3/2.056338, fat 4,3 --drop-links 2@1 --seed 2
# 2/1.587302 before the leaves' classes were exchanged after a stage at load
# 2 and the levels above routed again (vt_route_stage_swap.c).
# superpod 2,4,8,4,4,4 --leaf-uplinks 1:2 (a leaf kept its two links to one
# spine; spines have one link to each of four tops): 7/6.031746 (cut bound
# 4/3.619048, minhop through OpenSM 4/3.65), --leaf-uplinks 2:3 --seed 2
# 8/4.571429 before a short leaf's displaced destinations followed the top of
# the one before them only where the leaf has one link to that spine
# (vt_route_downgoing.c's displaced_lane, vt_route_policy.c's column_top).
# varary 6,3,2:3,2 --hostless-leaves 3 --drop-links 2@0 --drop-switches 1@1
# --seed 2 was refused ("CA ... at level 1") before a switch stranded with a
# host-less leaf among its children was cut as one with leaves only; varary
# 3,2,2,2:2,2,2 --spine-cas 2:dual --drop-links 2@2 --seed 3 (a top with a
# dual-homed storage HCA kept one link down) was refused ("CA "stor02 mlx5_0"
# ... at level 3") before a switch with CAs an odd number of hops from the
# fullest leaves was taken as a spine with CAs.
# cores 2,10,5,12,10 (leaves of 10 parents, two links a line ASIC to each spine)
# 2/1.831933 (cut bound 1/1.000000) and cores 2,24,12,60,12 --drop-switches 1@1
# 3/2.435327 before a switch counted its parallel links' usage apart per parent
# of the main route below it for each parent, not for 8 keys wrapped (leaves'
# lanes 1 and 9 shared counters; route_usage.by_key).
# superpod 2,2,12,6,2,1 --drop-links 1@0 --seed 4 3/2.170213 (cut bound
# 2/1.531915), --drop-switches 1@1 --seed 6 3/2.042553 (2/1.574468), superpod
# 2,4,18,9,3,1 --drop-switches 1@1 --seed 5 3/2.013986 (2/1.776224) and
# 2,2,18,9,2,1 --drop-links 2@0 --seed 3 4/2.352113 (2/1.549296; OpenSM's
# minhop 2/1.80) before a spine found over parallel links to the main route's
# top took the one the shift stages load least wherever a leaf lost up-links,
# not on split cores only (vt_route_found_window's stage_load; one core group).
# Then 3/1.816901, --seed 1 2/1.802817 and superpod 2,4,18,9,3,1 --drop-links 1@0
# --seed 3 4/2.125874 before a spine with parallel links to its tops scanned
# them from the destination's serial on where leaves lost links but no parent
# (vt_route_downgoing.c's serial_turn).
# cores 2,18,9,40,10 (a leaf's 10 up-links go to 10 of 36 line ASICs, so two
# leaves share 0 to 9 lines and shortest routes crowd the shared ones): 5/3.00,
# --drop-hosts 5 5/2.97, cores 2,16,8,36,12 3/2.67, cores 2,10,5,24,8 2/1.96
# (cut bound 1/1 on all four) before each destination at rank offset o came up
# every leaf's o-th up-link and over a spine ASIC, even where two leaves share
# a line elsewhere (vt_route_lanes.c; non-minimal hops 661 -> 5793 on the first).
# Then 2/1.883991 and 2/1.853403 on the last two (cores 2,14,7,30,10 5/3.11 before
# lanes, 2/1.42 with them) before a line's choice weighed the stages it would load
# past one flow that had none so far (lanes' score: the average counts each
# stage's most loaded link).
# cores 2,8,4,24,10 (every two leaves share a line ASIC, so no shortest path
# between leaves crosses a spine ASIC) 3/2.58, --drop-hosts 5 4/2.59, cores
# 2,6,2,12,10 3/2.11 (cut bound 1/1 on all three) before the switches one hop
# beyond the line ASICs, linked to them only, were taken for the roots, not
# dead ends on level 0 beside the leaves (vt_tree_levels.c's spines_above).
# superpod 3,2,8,2,2 --drop-switches 1@1 3/2.212766 (cut bound 2/1.829787;
# ftree, falling back to minhop, 2/1.83), cores 4,4,2,16,4 --drop-switches 1@1
# 3/2.222222 (2/1.904762; updn 2/2.00), superpod 3,4,8,4,3,2 --drop-switches 1@1
# --seed 3 2/1.915789 (2/1.873684), varary 6,3,2:3,2 --drop-switches 1@1
# 5/3.342857 and --seed 2 5/3.228571, cores 2,6,3,12,6 --drop-switches 1@1
# 2/1.873239 and cores 2,12,6,24,6 --drop-switches 1@1 2/1.937063 (the cut
# bound's worst, each) before the compute routes were searched
# again against a model of the shift stages where a split core's leaves lost
# a parent with a switch below the tops (vt_route_stage_search.c).
# cores 2,14,7,30,10 2/1.364548, cores 2,8,4,24,10 2/1.765690, --drop-hosts 5
# 2/1.694561, cores 2,6,2,12,10 2/1.638655 before the lanes' spines were seeded
# with a colouring of the destinations (vt_route_lanes_colour.c).
# cores 3,8,4,24,10 5/2.41 (cut bound 2/1.07), --drop-switches 1@1 10/3.23
# (2/1.92), cores 4,8,4,32,10 5/2.71 (2/1.14) before the lanes took leaves whose
# o-th up-links lie in different chassis, each climbing into the chassis of
# the destination leaf's lane (vt_route_lanes_climb); 2/1.891213, 3/2.087866,
# 2/1.808777 before that climb took a destination's place in its chassis'
# chain, not among its leaf's lanes alone; cores 3,8,4,24,10 2/1.857741 before
# its lanes were coloured and planned again for the stages whose leaf links
# the climbs load with one flow each (lanes_run, vt_route_lanes.c).
# spec | worst avg | bound (must equal the cut bound) or - (listed only)
# [| more audit options: --vl-split where switch-sourced routes need VL 1]
while IFS='|' read -r spec want kind opts; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $spec -o "$tmp/g.topo" 2>"$tmp/err" || { bad "gen: $(cat "$tmp/err")"; continue; }
	"$bin/vartree-route" -q "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "refused: $(head -2 "$tmp/err")"; continue; }
	# shellcheck disable=SC2086
	"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources ${opts:-} \
		-p shift --json >"$tmp/a.json" 2>"$tmp/err"
	[ $? -le 1 ] || { bad "analyze: $(head -2 "$tmp/err")"; continue; }
	for k in unreachable loop misdelivery credit-loop; do
		v=$(grep -o "\"$k\": {\"count\": [0-9]*" "$tmp/a.json" | sed 's/.*: //')
		[ "$v" = 0 ] || bad "audit $k: ${v:-missing}"
	done
	got="$(json worst) $(printf %.6f "$(json avg)")"
	[ "$got" = "$want" ] || bad "shift $got, want $want"
	b="$(json bound_worst) $(printf %.6f "$(json bound_avg)")"
	[ "$kind" != bound ] || [ "$got" = "$b" ] || bad "shift $got, cut bound $b"
done <<'EOF'
fat 4,3 --hosts-per-leaf 3 --drop-links 1@1|1 1.000000|bound
fat 4,3 --hosts-per-leaf 3 --drop-links 1@1 --seed 2|1 1.000000|bound
fat 4,3 --hosts-per-leaf 3 --drop-links 2@1 --seed 3|1 1.000000|bound
fat 8,3 --hosts-per-leaf 6 --drop-links 2@1 --seed 3|1 1.000000|bound
fat 4,3 --drop-links 2@1 --seed 2|2 1.571429|-
thin 4:2,3 --drop-links 1@1|6 4.682540|-
slender 4:2,3 --drop-links 2@1|8 4.548387|-
uneven 24,20,16,12,12,5,0:12,12,12,12,12,4,12:5 slow-leaves=2 --seed 2|2 1.856287|bound
uneven 12,12,5,24,16,20:12,12,4,12,12,12:12|2 1.832168|bound
uneven 10,12,3,8,8:6,6,2,6,6:6|2 1.932203|bound
pruned 8,3 --drop-links 2@1|2 1.468085|-
uneven 8,8,6,4:4,4,4,2:4|2 1.741935|bound
uneven 12,10,8,8,3,0:6,6,6,6,2,6:6|2 1.830986|bound
uneven 20,18,16,14,12,10:10,10,8,8,6,6:10|2 1.831933|bound
uneven 16,14,12,10,8,6:8,8,6,6,4,4:8|2 1.831579|bound
uneven 16,16,16,8,0,4:8,8,8,4,8,2:8|2 1.915789|bound
superpod 3,4,8,4,3,2 --drop-links 2@1|2 1.578947|-|--vl-split
cores 2,6,3,12,6 --drop-links 2@0 --seed 5|2 1.859155|bound|--vl-split
cores 2,6,3,12,6 --drop-links 2@0|2 1.901408|-|--vl-split
cores 2,6,3,12,6 --drop-links 2@0 --seed 3|2 1.859155|bound|--vl-split
cores 2,8,4,16,8 --drop-links 2@0|2 1.929134|-|--vl-split
cores 4,6,3,16,6 --drop-links 1@1|2 1.884211|-|--vl-split
cores 3,4,2,9,4 --drop-links 1@1|2 1.828571|-|--vl-split
cores 4,3,3,12,6 --drop-links 1@1|2 1.887324|-|--vl-split
cores 2,6,3,12,6 --drop-links 1@1|2 1.014085|bound|--vl-split
cores 2,6,3,12,6 --drop-links 1@1 --seed 2|2 1.028169|-|--vl-split
cores 3,4,2,12,4 --drop-links 1@1|3 1.893617|-|--vl-split
superpod 2,4,8,4,4,4 --leaf-uplinks 1:2|4 3.619048|bound|--vl-split
superpod 2,4,8,4,4,4 --leaf-uplinks 2:3 --seed 2|4 2.968254|-|--vl-split
superpod 3,4,8,4,3,2 --drop-links 2@0|2 1.863158|-|--vl-split
cores 2,6,3,12,6 --drop-switches 1@1|2 1.859155|bound|--vl-split
cores 4,6,3,16,6 --drop-switches 1@0|2 1.910112|-|--vl-split
cores 2,12,6,24,6 --drop-switches 1@1|2 1.930070|bound|--vl-split
superpod 4,4,8,4,2,2 --drop-links 2@0|2 1.905512|-|--vl-split
pruned 8,3 --drop-links 2@0 --seed 2|2 1.872340|bound
uneven 12,12,5,24,16,20:12,12,4,12,12,12:12 --drop-links 3@0|2 1.860140|bound
uneven 12,12,5,24,16,20:12,12,4,12,12,12:12 --leaf-uplinks 2:1 --drop-hosts 5 --seed 2|19 14.351145|bound
fat 4,3 --leaf-uplinks 2:2|2 1.936508|bound
fat 4,3 --leaf-uplinks 2:1|4 3.809524|bound
fat 4,3 --leaf-uplinks 2:3|2 1.904762|bound
fat 8,3 --leaf-uplinks 2:4|2 1.984344|bound
fat 8,3 --leaf-uplinks 4:6|2 1.980431|-
varary 4,4,2:2,2 --drop-switches 1@1 --seed 3|8 4.774194|bound
varary 4,4,2:2,2 --drop-switches 1@1 --seed 4|8 4.774194|bound
varary 4,4,2:2,2 --hostless-leaves 2 --drop-switches 1@1 --seed 3|6 4.258065|bound
varary 6,3,2:3,2 --drop-switches 1@1|5 3.228571|-
varary 6,3,2:3,2 --drop-switches 1@1 --seed 2|5 3.171429|-
varary 6,3,2:3,2 --hostless-leaves 2 --drop-links 6@0 --seed 3|6 4.689655|-
varary 6,3,2:3,2 --hostless-leaves 3 --drop-links 2@0 --drop-switches 1@1 --seed 2|6 4.695652|bound
varary 3,2,2,2:2,2,2 --spine-cas 2:dual --drop-links 2@2 --seed 3|2 1.826087|bound|--vl-split
cores 2,10,5,12,10|1 1.000000|bound|--vl-split
cores 2,24,12,60,12 --drop-switches 1@1|2 1.970793|-|--vl-split
superpod 2,2,12,6,2,1 --drop-links 1@0 --seed 4|2 1.531915|bound|--vl-split
superpod 2,2,12,6,2,1 --drop-switches 1@1 --seed 6|2 1.574468|bound|--vl-split
superpod 2,4,18,9,3,1 --drop-switches 1@1 --seed 5|2 1.776224|bound|--vl-split
cores 2,18,9,40,10|1 1.000000|bound|--vl-split
cores 2,18,9,40,10 --drop-hosts 5|1 1.000000|bound|--vl-split
cores 2,16,8,36,12|2 1.819026|-|--vl-split
cores 2,10,5,24,8|2 1.691099|-|--vl-split
cores 2,14,7,30,10|1 1.000000|bound|--vl-split
cores 2,8,4,24,10|1 1.000000|bound|--vl-split
cores 2,8,4,24,10 --drop-hosts 5|1 1.000000|bound|--vl-split
cores 2,6,2,12,10|1 1.000000|bound|--vl-split
superpod 2,2,18,9,2,1 --drop-links 2@0 --seed 3|2 1.549296|bound|--vl-split
cores 3,8,4,24,10|2 1.769874|-|--vl-split
cores 3,8,4,24,10 --drop-switches 1@1|3 1.970711|-|--vl-split
cores 4,8,4,32,10|2 1.714734|-|--vl-split
superpod 2,2,18,9,2,1 --drop-links 2@0 --seed 1|2 1.521127|bound|--vl-split
superpod 2,4,18,9,3,1 --drop-links 1@0 --seed 3|2 1.832168|-|--vl-split
superpod 3,2,8,2,2 --drop-switches 1@1|2 1.829787|bound|--vl-split
cores 4,4,2,16,4 --drop-switches 1@1|2 1.904762|bound|--vl-split
superpod 3,4,8,4,3,2 --drop-switches 1@1 --seed 3|2 1.884211|-|--vl-split
EOF
echo "$n fabrics, $nfail failures"
[ $nfail = 0 ]
