#!/usr/bin/env bash
# vartree-route --previous: after a fault on fat 8,3 (512 hosts) the tables
# keep the earlier routing's entries wherever they still serve. Changed
# entries are counted here from the dumps themselves (not from the tool's own
# report), against the minimum (entries whose port lost its link), with an
# every-source audit free of loops and credit loops, the fresh route's shift
# congestion (the quality guard gives the fresh tables where the repaired ones
# congest more), and, once the fault heals, the original tables byte for byte.
set -eu
bin=$VT_BIN
top=$VT_TOP
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fault() { python3 "$top/tests/data/topo_fault.py" "$tmp/${3:-f.topo}" "$1" >"$tmp/$2"; }
# entries (and 64-LID blocks) that differ between two opensm-lfts.dump files
changed() {
	awk 'function hex(h,   i, v) { h = tolower(h); sub(/^0x/, "", h); v = 0
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		/^Unicast lids/ { g = $0; sub(/.*guid /, "", g); sub(/ .*/, "", g); next }
		/^0x/ { k = g " " $1; if (FNR == NR) a[k] = $2; else if (a[k] != $2) { n++; b[g " " int(hex($1) / 64)] = 1 } }
		END { for (k in b) nb++; printf "%d %d\n", n, nb }' "$1" "$2"
}
# the audit with every switch as a source too: nothing but the non-minimal
# detours switch-to-switch routes take (status 1 for those), and the shift figures
audit_clean() {
	local rc=0
	"$bin/vartree-analyze" "$1" --lfts "$2" --all-sources -p shift >"$tmp/an" 2>&1 || rc=$?
	[ $rc -le 1 ] || { cat "$tmp/an" >&2; exit 1; }
	grep -q '^audit: ' "$tmp/an" || exit 1
	! grep '^audit: ' "$tmp/an" | grep -E '(unreachable|loop|misdelivery): [0-9]' >&2 || exit 1
	awk '$1 == "shift" { print $4, $5 }' "$tmp/an"
}
# as_fresh FAULT TOPO PREV NAME LINE SHIFT: TOPO with FAULT (as NAME.topo) routed
# with --previous PREV reports LINE, and its shift (worst, average) is SHIFT, as the
# fresh tables' is
as_fresh() {
	fault "$1" "$4.topo" "$2"
	"$bin/vartree-route" "$tmp/$4.topo" --previous "$tmp/$3" -o "$tmp/pr.dump" 2>"$tmp/err"
	grep -F "$5" "$tmp/err"
	"$bin/vartree-route" -q "$tmp/$4.topo" -o "$tmp/pf.dump"
	[ "$(audit_clean "$tmp/$4.topo" "$tmp/pr.dump")" = "$6" ]
	[ "$(audit_clean "$tmp/$4.topo" "$tmp/pf.dump")" = "$6" ]
}

"$bin/vartree-gen" fat 8,3 -o "$tmp/f.topo"
"$bin/vartree-route" -q "$tmp/f.topo" -o "$tmp/a.dump"
"$bin/vartree-route" -q "$tmp/f.topo" --lft-format binary -o "$tmp/a.bin"
# nothing changed: the previous tables as they are (found before any candidate), and
# the repair's own time on a line of its own
"$bin/vartree-route" "$tmp/f.topo" --previous "$tmp/a.dump" -o "$tmp/u.dump" 2>"$tmp/err"
grep -F 'repaired: 0 entries in 0 blocks changed (fresh route: 0 in 0; minimum 0 in 0: link lost; forced minimum 0 in 0)' "$tmp/err"
grep -Eq '^vartree-route: repair in [0-9]+\.[0-9]{3} s \(CPU [0-9]+\.[0-9]{3} s\)$' "$tmp/err"
cmp "$tmp/a.dump" "$tmp/u.dump"

# a leaf up-link: L0-S0003 port 16 to L1-S0007 port 4
fault down:S-0002c95000000003:16 leaf.topo
"$bin/vartree-route" -q "$tmp/leaf.topo" -o "$tmp/fresh.dump"
"$bin/vartree-route" "$tmp/leaf.topo" --previous "$tmp/a.dump" -o "$tmp/r.dump" 2>"$tmp/err"
grep -F "against $tmp/a.dump: repaired: 151 entries in 76 blocks changed (fresh route: 333 in 231; minimum 88 in 13: link lost; forced minimum 88 in 13)" "$tmp/err"
# the minimum from the dump: the leaf's entries out of port 16, L1-S0007's out of port 4
min=$(awk '/^Unicast lids/ { s = $0 } /^0x/ && ((s ~ /L0-S0003/ && $2 == "016") || (s ~ /L1-S0007/ && $2 == "004")) { n++ } END { print n }' "$tmp/a.dump")
[ "$min" = 88 ]
[ "$(changed "$tmp/a.dump" "$tmp/r.dump")" = "151 76" ]
[ "$(changed "$tmp/a.dump" "$tmp/fresh.dump")" = "333 231" ]
# beyond the minimum: every other leaf's route to H-0031 (LID 224), whose L1-S0007
# column no longer leads to it, moves to a minimal one (--repair fewest keeps them;
# the default, guarded, keeps them only where shift congests no more: here the
# longer routes raise its average, so the minimal candidates decide);
# of the candidates (lib/repair/vt_route_repair.c) the one that changes fewest entries and
# congests shift no more than the fresh tables stands
q_fresh=$(audit_clean "$tmp/leaf.topo" "$tmp/fresh.dump")
q_rep=$(audit_clean "$tmp/leaf.topo" "$tmp/r.dump")
[ "$q_fresh" = "2 1.98" ] && [ "$q_rep" = "$q_fresh" ]
# --repair fewest: within 1.5 times the minimum, still free of credit loops
"$bin/vartree-route" -q "$tmp/leaf.topo" --previous "$tmp/a.bin" --repair fewest -o "$tmp/rf.dump"
read -r n _ <<<"$(changed "$tmp/a.dump" "$tmp/rf.dump")"
[ "$n" -ge "$min" ] && [ $((2 * n)) -le $((3 * min)) ]
audit_clean "$tmp/leaf.topo" "$tmp/rf.dump" >/dev/null
# healed: the original tables exactly
"$bin/vartree-route" "$tmp/f.topo" --previous "$tmp/r.dump" -o "$tmp/h.dump" 2>"$tmp/err"
grep -F 'fresh (the fabric gained since)' "$tmp/err"
grep -F 'port 16 of switch "L0-S0003" (0x0002c95000000003) is new' "$tmp/err"
# the repaired tables, whole or with the fresh routes through the link back (the
# original tables themselves, 151 entries from the repaired: a whole heal), do not stay
grep -F 'previous tables not kept: with the fresh routes through what came back they are 0 entries from the fresh tables and 151 from the previous ones (a whole heal)' "$tmp/err"
cmp "$tmp/a.dump" "$tmp/h.dump"
# an unchanged fabric keeps its (repaired) tables
"$bin/vartree-route" -q "$tmp/leaf.topo" --previous "$tmp/r.dump" -o "$tmp/same.dump"
cmp "$tmp/r.dump" "$tmp/same.dump"

# the last leaf's first up-link (L0-S0063 port 9 to L1-S0056): the guarded default
# keeps the routes that grew longer (its column of level-1 switches lost the
# way down; they now turn at a sibling leaf, 2 switch hops more, which the
# every-source audit allows), since shift congests no more than with fresh
# tables; --repair minimal moves them to minimal routes, 62 entries more
as_fresh down:S-0002c95000000063:9 f.topo a.dump l63 \
	'repaired: 241 entries in 44 blocks changed (fresh route: 1014 in 355; minimum 151 in 14: link lost; forced minimum 223 in 38)' \
	"2 1.98"
# the entries whose route grew, counted by the tool and by an independent walk of the dumps
grep -F 'vartree-route: 62 entries route to a CA in more hops than the fresh tables (--repair minimal keeps none)' "$tmp/err"
[ "$(python3 "$top/tests/data/lft_longer.py" "$tmp/l63.topo" "$tmp/pr.dump" "$tmp/pf.dump")" = 62 ]
# status 0: non-minimal hops do not fail the audit (a crash fails here)
"$bin/vartree-analyze" "$tmp/l63.topo" --lfts "$tmp/pr.dump" -p shift >"$tmp/an" 2>&1
grep -F 'audit: non-minimal: 65 (first: "L0-S0001" (0x0002c95000000001), LID 697: non-minimal hop to "L1-S0000" (0x0002c95001000000) (6 switch hops where 4 would do))' "$tmp/an"
"$bin/vartree-route" "$tmp/l63.topo" --previous "$tmp/a.dump" --repair minimal -o "$tmp/pm.dump" 2>"$tmp/err"
grep -F 'repaired: 303 entries in 106 blocks changed' "$tmp/err"
if grep -F 'more hops' "$tmp/err"; then exit 1; fi
[ "$(python3 "$top/tests/data/lft_longer.py" "$tmp/l63.topo" "$tmp/pm.dump" "$tmp/pf.dump")" = 0 ]
[ "$(audit_clean "$tmp/l63.topo" "$tmp/pm.dump")" = "2 1.98" ]
# status 0 and no non-minimal line
"$bin/vartree-analyze" "$tmp/l63.topo" --lfts "$tmp/pm.dump" -p shift >"$tmp/an" 2>&1
grep -q '^audit: ' "$tmp/an"
if grep -F 'audit: non-minimal' "$tmp/an"; then exit 1; fi

# a top switch: exactly the minimum; binary and text previous tables agree
fault down:S-0002c95002000063 top.topo
"$bin/vartree-route" "$tmp/top.topo" --previous "$tmp/a.dump" -o "$tmp/r.dump" 2>"$tmp/err"
grep -F 'repaired: 672 entries in 92 blocks changed (fresh route: 3927 in 94; minimum 672 in 92: link lost; forced minimum 672 in 92)' "$tmp/err"
"$bin/vartree-route" -q "$tmp/top.topo" --previous "$tmp/a.bin" -o "$tmp/rb.dump"
cmp "$tmp/r.dump" "$tmp/rb.dump"
"$bin/vartree-route" -q "$tmp/top.topo" -o "$tmp/fresh.dump"
[ "$(audit_clean "$tmp/top.topo" "$tmp/r.dump")" = "$(audit_clean "$tmp/top.topo" "$tmp/fresh.dump")" ]
"$bin/vartree-route" -q "$tmp/f.topo" --previous "$tmp/r.dump" -o "$tmp/h.dump"
cmp "$tmp/a.dump" "$tmp/h.dump"

# the first top switch: the candidates that keep the fresh ports, or choose them
# by CA LIDs carried, congest shift more on average (2/1.8611 against the fresh
# 2/1.7671: the quality guard refuses them); spreading the moved entries by rank
# distance (rank_gaps) does not, and changes just the minimum (main at 1500d30:
# the fresh CA routes, 3430 entries); a heal still undoes it
fault down:S-0002c95002000000 top0.topo
"$bin/vartree-route" "$tmp/top0.topo" --previous "$tmp/a.dump" -o "$tmp/r.dump" 2>"$tmp/err"
grep -F 'repaired: 728 entries in 93 blocks changed (fresh route: 7105 in 184; minimum 728 in 93: link lost; forced minimum 728 in 93)' "$tmp/err"
"$bin/vartree-route" -q "$tmp/top0.topo" -o "$tmp/fresh.dump"
[ "$(changed "$tmp/a.dump" "$tmp/r.dump")" = "728 93" ]
[ "$(audit_clean "$tmp/top0.topo" "$tmp/r.dump")" = "2 1.77" ]
[ "$(audit_clean "$tmp/top0.topo" "$tmp/fresh.dump")" = "2 1.77" ]
# --repair fewest has no shift guard: it keeps the 728 too
"$bin/vartree-route" "$tmp/top0.topo" --previous "$tmp/a.dump" --repair fewest -o "$tmp/rf.dump" 2>"$tmp/err"
grep -F 'repaired: 728 entries in 93 blocks changed' "$tmp/err"
"$bin/vartree-route" -q "$tmp/f.topo" --previous "$tmp/r.dump" -o "$tmp/h.dump"
cmp "$tmp/a.dump" "$tmp/h.dump"

# the quality guard: a level-1 switch above the turn leaf: the turn leaf moves, so
# every-source routes between switches change too (deadlock freedom); every whole
# repair congests shift more (the first candidate, longer routes kept: worst 9), and
# so do the candidates that move only the CA LIDs' forced entries by rank distance
# (worst 3: the old routing sent every destination a level-1 switch carried no
# traffic to up one port, so the dead switch's destinations met on one up-link of
# each sibling). With the port each sibling takes for the destination leaf's other
# hosts (the tree is symmetric) the moved destinations keep apart: shift 2/1.97,
# the fresh tables' 2/1.98, with 3489 entries in 310 blocks (4494 in 408 before
# the switch LIDs' kept routes could turn again where either routing turns one,
# at the old turn leaf over another up-link; main at 8f7747a: the fresh CA
# routes, 15441 in 545), and a heal undoes it
fault down:S-0002c95001000000 mid.topo
"$bin/vartree-route" "$tmp/mid.topo" --previous "$tmp/a.dump" -o "$tmp/r.dump" 2>"$tmp/err"
"$bin/vartree-route" -q "$tmp/mid.topo" -o "$tmp/fresh.dump"
grep -F 'repaired: 3489 entries in 310 blocks changed (fresh route: 21706 in 723; minimum 2656 in 128: link lost; forced minimum 2656 in 128)' "$tmp/err"
[ "$(changed "$tmp/a.dump" "$tmp/r.dump")" = "3489 310" ]
[ "$(audit_clean "$tmp/mid.topo" "$tmp/r.dump")" = "2 1.97" ]
[ "$(audit_clean "$tmp/mid.topo" "$tmp/fresh.dump")" = "2 1.97" ]
"$bin/vartree-route" -q "$tmp/f.topo" --previous "$tmp/r.dump" -o "$tmp/h.dump"
cmp "$tmp/a.dump" "$tmp/h.dump"
# -vv: why each candidate before the one that stood was refused (10 of them): the
# stage the guard found over the fresh worst, or the figures it counted; a
# rebalancing candidate whose tables before the rebalance crowd a stage so is
# refused as they are, unbuilt (vt_route_repair_candidates.c: none_refuses)
"$bin/vartree-route" -vv "$tmp/mid.topo" --previous "$tmp/a.dump" -o "$tmp/rv.dump" 2>"$tmp/err"
cmp "$tmp/r.dump" "$tmp/rv.dump"
grep -Fx 'vartree-route: repair step prev-turns longer none refused: the repaired tables congest shift more than the fresh ones: worst 9 in shift 64 against 2' "$tmp/err"
grep -Fx 'vartree-route: repair step prev-turns longer changed refused: as prev-turns longer none: the repaired tables congest shift more than the fresh ones: worst 9 in shift 64 against 2' "$tmp/err"
grep -Fx 'vartree-route: repair step forced-lids 2 prev-turns refused: the repaired tables congest shift more than the fresh ones: worst/avg 3/2.0352 against 2/1.9726' "$tmp/err"
[ "$(grep -c '^vartree-route: repair step .* refused: ' "$tmp/err")" = 10 ]

# a leaf and its hosts gone on a pruned tree: the previous tables all still serve,
# so nothing changes. Two rules make it so (main at 572ee11 changed 70 entries):
# the turn leaf's ancestors may keep the previous routes' down-up turns (the
# every-source audit has the last word), and turns are judged by switches, since
# the fresh routes to a top's LID took the other of two parallel links
"$bin/vartree-gen" pruned 36,3 -o "$tmp/p.topo"
"$bin/vartree-route" -q "$tmp/p.topo" -o "$tmp/pa.dump"
fault down:S-0002c95000000053 pleaf.topo p.topo
"$bin/vartree-route" "$tmp/pleaf.topo" --previous "$tmp/pa.dump" -o "$tmp/pr.dump" 2>"$tmp/err"
grep -F 'repaired: 0 entries in 0 blocks changed (fresh route: 6403 in 244; minimum 0 in 0: link lost; forced minimum 0 in 0)' "$tmp/err"
audit_clean "$tmp/pleaf.topo" "$tmp/pr.dump" >/dev/null

# a level-1 switch's up-link on that tree (one of six parallel links to a top):
# the fresh route sends the lost lane's destinations to the far lane (bcc5f76,
# 6f20b85: shift 2/1.52 -> 2/1.35, the cut bound's worst, 1.33 its average), which
# moving the lost link's 37 entries alone does not match (2/1.61); the candidate
# that moves only the forced entries sends the lost link's destination down the
# far link, of every link into the level-1 switch, as the fresh route does, with
# the switches above it that fed the old one: 42 entries in 17 blocks, the fresh
# shift (main at a342abf: the fresh CA routes, 170 entries in 55 blocks)
as_fresh down:S-0002c95001000053:19 p.topo pa.dump pup \
	'repaired: 42 entries in 17 blocks changed (fresh route: 1152 in 63; minimum 37 in 12: link lost; forced minimum 37 in 12)' \
	"2 1.35"
[ "$(changed "$tmp/pa.dump" "$tmp/pr.dump")" = "42 17" ]
"$bin/vartree-route" -q "$tmp/p.topo" --previous "$tmp/pr.dump" -o "$tmp/puph.dump"
cmp "$tmp/pa.dump" "$tmp/puph.dump"

# pruned 36,6, its last top switch down (six parallel links from each of its
# level-1 switches): the moved entries send more traffic through the two other
# tops of their group, whose entries for those LIDs nobody used before; spread by
# rank distance with the traffic counted again after each level, the repair
# changes 54 entries beyond the minimum with the fresh tables' shift (main at
# 869539e: the fresh CA routes, 6860 entries)
"$bin/vartree-gen" pruned 36,6 -o "$tmp/p6.topo"
"$bin/vartree-route" -q "$tmp/p6.topo" -o "$tmp/p6a.dump"
as_fresh down:S-0002c95002000053 p6.topo p6a.dump p6top \
	'repaired: 3914 entries in 208 blocks changed (fresh route: 7307 in 197; minimum 3860 in 182: link lost; forced minimum 3860 in 182)' \
	"2 1.77"

# pruned 36,6, the first level-1 switch down (above the turn leaf): every whole
# repair congests shift more than the fresh tables; the candidate that moves only
# the CA LIDs' entries forced off a shortest up*-down* route, spread by rank
# distance, keeps every other previous entry with the fresh tables' shift: 7880
# entries in 1421 blocks, 1.44 times the forced minimum (8536 in 1652 before the
# switch LIDs' kept routes could turn again where either routing turns one; main
# at d6056f7: the fresh CA routes, 55285 entries), and a heal undoes it
fault down:S-0002c95001000000 p6t.topo p6.topo
"$bin/vartree-route" "$tmp/p6t.topo" --previous "$tmp/p6a.dump" -o "$tmp/p6tr.dump" 2>"$tmp/err"
grep -F 'repaired: 7880 entries in 1421 blocks changed (fresh route: 70022 in 2582; minimum 5487 in 660: link lost; forced minimum 5487 in 660)' "$tmp/err"
[ "$(changed "$tmp/p6a.dump" "$tmp/p6tr.dump")" = "7880 1421" ]
[ "$(audit_clean "$tmp/p6t.topo" "$tmp/p6tr.dump")" = "2 1.98" ]
"$bin/vartree-route" -q "$tmp/p6.topo" --previous "$tmp/p6tr.dump" -o "$tmp/p6th.dump"
cmp "$tmp/p6a.dump" "$tmp/p6th.dump"

# pruned 36,6, the last level-1 switch's first up-link (the churn bench's
# L1-uplink row): the lost link's destination goes down the far link into it,
# from another top (main at a342abf: the fresh CA routes, 457 entries in 159 blocks)
as_fresh down:S-0002c95001000107:19 p6.topo p6a.dump p6up \
	'repaired: 77 entries in 27 blocks changed (fresh route: 2398 in 191; minimum 66 in 16: link lost; forced minimum 66 in 16)' \
	"2 1.68"
[ "$(changed "$tmp/p6a.dump" "$tmp/pr.dump")" = "77 27" ]

# a real-shaped fabric (aggregation nodes on every switch, dual-homed spine CAs, a
# host-less leaf), a level-1 up-link: the traffic the repair balances is the
# compute nodes' (the ranks'), not every CA's, else the aggregation nodes mark
# every entry used and none newly used (main at e74e34c: the fresh CA routes,
# 2000 entries). Shift here in the analyzer's default order, as fresh. Since
# bcc5f76/6f20b85 the fresh route moves the lost parallel link's lane to the far
# one (shift over the ranks 2/1.80 -> 2/1.68), which the 91 forced entries alone
# do not match (2/1.80); the lost link's destinations down the far link do: 102
# entries (main at a342abf: the fresh CA routes, 529 entries in 193 blocks)
"$bin/vartree-gen" pruned 36,6 --aggregation-nodes --spine-cas 2:dual --hostless-leaves 1 -o "$tmp/r6.topo"
"$bin/vartree-route" -q "$tmp/r6.topo" -o "$tmp/r6a.dump"
as_fresh down:S-0002c95001000107:19 r6.topo r6a.dump r6up \
	'repaired: 102 entries in 35 blocks changed (fresh route: 2686 in 221; minimum 91 in 24: link lost; forced minimum 91 in 24)' \
	"4 3.82"
[ "$(changed "$tmp/r6a.dump" "$tmp/pr.dump")" = "102 35" ]
"$bin/vartree-route" -q "$tmp/r6.topo" --previous "$tmp/pr.dump" -o "$tmp/r6h.dump"
cmp "$tmp/r6a.dump" "$tmp/r6h.dump"
# its first level-1 switch down (above the turn leaf): the candidates that move
# only the CA LIDs' forced entries keep the routes to the aggregation nodes (no
# rank, no shift stage) where they still arrive, longer or not, so the old turn
# leaf's turns stay for them and close no credit loop with the new turn leaf's:
# the one with the siblings' ports and the previous turns stands, shift and the
# every-source audit as fresh (main at aef6ff6: those routes moved as the
# compute nodes', a credit loop, the fresh turns alone, 37127 entries in 2411
# blocks; at 8f7747a: the fresh CA routes, 71060 in 2737), and a heal undoes it.
# The thinning pass (vt_route_repair_thin.c) then gives back the previous
# entries the guard does not need moved: 9818 entries in 1840 blocks before
fault down:S-0002c95001000000 r6t.topo r6.topo
"$bin/vartree-route" "$tmp/r6t.topo" --previous "$tmp/r6a.dump" -o "$tmp/r6tr.dump" 2>"$tmp/err"
grep -F 'repaired: 8639 entries in 1401 blocks changed (fresh route: 112313 in 3463; minimum 6195 in 708: link lost; forced minimum 6195 in 708)' "$tmp/err"
"$bin/vartree-route" -q "$tmp/r6t.topo" -o "$tmp/r6tf.dump"
[ "$(audit_clean "$tmp/r6t.topo" "$tmp/r6tr.dump")" = "4 3.68" ]
[ "$(audit_clean "$tmp/r6t.topo" "$tmp/r6tf.dump")" = "4 3.68" ]
"$bin/vartree-route" -q "$tmp/r6.topo" --previous "$tmp/r6tr.dump" -o "$tmp/r6h.dump"
cmp "$tmp/r6a.dump" "$tmp/r6h.dump"

# a split core (superpod 3,4,8,4,3,2: tops in groups that share no switch below
# them; vartree routes it over two VLs), a level-1 switch down: the fresh tables
# close a credit loop on one VL, so the repaired ones are audited per VL as they
# are split (main at cabc3f0 waved them through on one VL and kept a candidate
# with a credit loop on VL 1); the one that stands changes as few entries
"$bin/vartree-gen" superpod 3,4,8,4,3,2 -o "$tmp/sp.topo"
"$bin/vartree-route" -q "$tmp/sp.topo" -o "$tmp/spa.dump"
fault down:S-0002c95001000015 spl1.topo sp.topo
"$bin/vartree-route" "$tmp/spl1.topo" --previous "$tmp/spa.dump" -o "$tmp/spr.dump" 2>"$tmp/err"
# (fresh route 765 in 92 before a level-1 switch of a damaged split core took
# the parallel link its shift stages load least: shift 3/2.49 -> 3/2.48; 868
# in 93 before the lines took their spines again on a model of the shift
# stages, vt_route_spines.c: fresh shift 3/2.48 -> 2/1.95; 114 entries in 17
# blocks, the previous CA routes kept (2/1.92 in the guard's order), before the
# fresh routes were searched again on a model of the shift stages,
# vt_route_stage_search.c: fresh 2/1.88, so the quality guard takes the fresh
# CA routes; 65 blocks, fresh route 872 in 91, before the leaves' entries were
# moved on a shift model where no leaf has a forced destination,
# vt_route_leaf_moves.c: fresh shift 2/1.884211 either way)
grep -F 'switch routes repaired, CA routes fresh: 347 entries in 66 blocks changed (fresh route: 877 in 93; minimum 114 in 17: link lost; forced minimum 114 in 17)' "$tmp/err"
"$bin/vartree-analyze" "$tmp/spl1.topo" --lfts "$tmp/spr.dump" --all-sources --vl-split -q >"$tmp/an"
grep -qxF 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/an"
"$bin/vartree-route" -q "$tmp/sp.topo" --previous "$tmp/spr.dump" -o "$tmp/sph.dump"
cmp "$tmp/spa.dump" "$tmp/sph.dump"
# its level-1 switch's first up-link (one of two parallel links to a top): the
# lost link's destination goes down the far link, of every link into the switch
# (main at a342abf: the fresh CA routes, 124 entries in 28 blocks); shift as
# fresh: over the ranks 2/1.58 (tests/bench/churn.sh), 2 1.73 in the
# analyzer's default order
fault down:S-0002c95001000015:7 spup.topo sp.topo
"$bin/vartree-route" "$tmp/spup.topo" --previous "$tmp/spa.dump" -o "$tmp/spr.dump" 2>"$tmp/err"
grep -F 'repaired: 29 entries in 8 blocks changed (fresh route: 209 in 28; minimum 26 in 5: link lost; forced minimum 26 in 5)' "$tmp/err"
[ "$(changed "$tmp/spa.dump" "$tmp/spr.dump")" = "29 8" ]
"$bin/vartree-analyze" "$tmp/spup.topo" --lfts "$tmp/spr.dump" --all-sources --vl-split -p shift >"$tmp/an"
grep -qxF 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/an"
[ "$(awk '$1 == "shift" { print $4, $5 }' "$tmp/an")" = "2 1.73" ]
"$bin/vartree-route" -q "$tmp/sp.topo" --previous "$tmp/spr.dump" -o "$tmp/sph.dump"
cmp "$tmp/spa.dump" "$tmp/sph.dump"

# the thinning pass (vt_route_repair_thin.c): the last leaf's first up-link: the
# far-link candidate stands with 42 entries in 14 blocks (forced minimum 22),
# moving also the level-1 switch's and tops' entries its moved destinations now
# cross; 17 of them go back with the shift over the ranks no worse than fresh
# (as tests/bench/churn.sh counts it, each tables in their own rank order)
fault down:S-0002c95000000011:9 splu.topo sp.topo
"$bin/vartree-route" -vv "$tmp/splu.topo" --previous "$tmp/spa.dump" -o "$tmp/spr.dump" \
	--order-out "$tmp/spr.o" 2>"$tmp/err"
grep -F 'repaired: 25 entries in 8 blocks changed (fresh route: 1685 in 90; minimum 22 in 5: link lost; forced minimum 22 in 5)' "$tmp/err"
grep -Eq '^vartree-route: repair step thin +\+ ' "$tmp/err"
[ "$(changed "$tmp/spa.dump" "$tmp/spr.dump")" = "25 8" ]
"$bin/vartree-route" -q "$tmp/splu.topo" -o "$tmp/spf.dump" --order-out "$tmp/spf.o"
"$bin/vartree-analyze" "$tmp/splu.topo" --lfts "$tmp/spr.dump" --all-sources --vl-split -q >"$tmp/an"
grep -qxF 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/an"
[ "$("$bin/vartree-analyze" "$tmp/splu.topo" --lfts "$tmp/spr.dump" --order "$tmp/spr.o" -p shift |
	awk '$1 == "shift" { print $4, $5 }')" = "2 1.85" ]
[ "$("$bin/vartree-analyze" "$tmp/splu.topo" --lfts "$tmp/spf.dump" --order "$tmp/spf.o" -p shift |
	awk '$1 == "shift" { print $4, $5 }')" = "2 1.86" ]
"$bin/vartree-route" -q "$tmp/sp.topo" --previous "$tmp/spr.dump" -o "$tmp/sph.dump"
cmp "$tmp/spa.dump" "$tmp/sph.dump"
# and fat 8,3's last level-1 switch: the siblings' candidate stands with 1856
# entries in 321 blocks (forced minimum 1200: more than 1.5 times), thinned to
# 1769 in 284 (other pods' level-1 entries for the dead switch's pod back up to
# a top that sends them down to the turn leaf, turning there as switch LIDs'
# routes do), shift and the every-source audit as fresh, and a heal undoes it
fault down:S-0002c95001000063 l1.topo
"$bin/vartree-route" "$tmp/l1.topo" --previous "$tmp/a.dump" -o "$tmp/r.dump" 2>"$tmp/err"
grep -F 'repaired: 1769 entries in 284 blocks changed (fresh route: 5646 in 562; minimum 1200 in 119: link lost; forced minimum 1200 in 119)' "$tmp/err"
[ "$(changed "$tmp/a.dump" "$tmp/r.dump")" = "1769 284" ]
"$bin/vartree-route" -q "$tmp/l1.topo" -o "$tmp/fresh.dump"
[ "$(audit_clean "$tmp/l1.topo" "$tmp/r.dump")" = "$(audit_clean "$tmp/l1.topo" "$tmp/fresh.dump")" ]
"$bin/vartree-route" -q "$tmp/f.topo" --previous "$tmp/r.dump" -o "$tmp/h.dump"
cmp "$tmp/a.dump" "$tmp/h.dump"

# a leaf and its hosts gone with nothing else lost (fat 4,3 with aggregation
# nodes, L0-S0001 down): the previous tables still serve every LID, but were
# balanced for the ranks before (main at f1083f0 kept them whole: shift 2/1.56
# in the analyzer's order, 2/1.5593 over the ranks against the fresh 2/1.5085).
# The guard judges them, and the switch routes alone stay repaired
"$bin/vartree-gen" fat 4,3 --aggregation-nodes -o "$tmp/ag.topo"
"$bin/vartree-route" -q "$tmp/ag.topo" -o "$tmp/aga.dump"
fault down:S-0002c95000000001 agl.topo ag.topo
"$bin/vartree-route" "$tmp/agl.topo" --previous "$tmp/aga.dump" -o "$tmp/agr.dump" 2>"$tmp/err"
grep -F 'switch routes repaired, CA routes fresh: 45 entries in 30 blocks changed (fresh route: 903 in 45; minimum 0 in 0: link lost; forced minimum 0 in 0)' "$tmp/err"
grep -F 'the repaired tables congest shift more than the fresh ones: worst/avg 2/1.5593 against 2/1.5085' "$tmp/err"
[ "$(changed "$tmp/aga.dump" "$tmp/agr.dump")" = "45 30" ]
"$bin/vartree-route" -q "$tmp/agl.topo" -o "$tmp/agf.dump"
[ "$(audit_clean "$tmp/agl.topo" "$tmp/agr.dump")" = "2 1.51" ]
[ "$(audit_clean "$tmp/agl.topo" "$tmp/agf.dump")" = "2 1.51" ]
"$bin/vartree-route" -q "$tmp/ag.topo" --previous "$tmp/agr.dump" -o "$tmp/agh.dump"
cmp "$tmp/aga.dump" "$tmp/agh.dump"

# a heal that brings most hosts back (oversub 4,4,1,1, its one spine down: the
# first leaf's 4 hosts of 16 stay): the previous tables route a quarter of the
# CA LIDs but none the fabric lacks; not another fabric's (main at f1083f0
# refused them so, status 2): the fresh tables, the original ones
"$bin/vartree-gen" oversub 4,4,1,1 -o "$tmp/o.topo"
"$bin/vartree-route" -q "$tmp/o.topo" -o "$tmp/oa.dump"
fault down:S-0002c95001000000 os.topo o.topo
"$bin/vartree-route" -q "$tmp/os.topo" --previous "$tmp/oa.dump" -o "$tmp/or.dump"
"$bin/vartree-route" "$tmp/o.topo" --previous "$tmp/or.dump" -o "$tmp/oh.dump" 2>"$tmp/err"
grep -F "against $tmp/or.dump: fresh (the fabric gained since): 100 entries in 5 blocks changed (fresh route: 100 in 5; minimum 0 in 0: link lost; forced minimum 0 in 0)" "$tmp/err"
cmp "$tmp/oa.dump" "$tmp/oh.dump"

# usage and input errors: status 2, one line
set +e
"$bin/vartree-route" -q "$tmp/leaf.topo" --previous "$tmp/none" -o "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && grep -q "$tmp/none" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ] || exit 1
echo garbage >"$tmp/g.dump"
"$bin/vartree-route" -q "$tmp/leaf.topo" --previous "$tmp/g.dump" -o "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'not a forwarding-table dump' "$tmp/err" || exit 1
"$bin/vartree-route" -q "$tmp/leaf.topo" --previous "$tmp/a.dump" --repair most -o "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && grep -qF "vartree-route: --repair: 'most' is not one of minimal, fewest or guarded" "$tmp/err" || exit 1
[ ! -e "$tmp/x" ] || exit 1
echo "route_repair ok"
