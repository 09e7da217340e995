#!/usr/bin/env bash
# vartree.repair on real OpenSM and ibsim (fat 8,3): a leaf up-link goes down,
# then comes back. By default (vartree.repair=guarded, which keeps the routes it made
# longer here, and says how many) the degraded sweep's tables are
# exactly what vartree-route --previous computes offline from the first sweep's
# tables and the discovered fabric, differ from them in fewer entries than a
# fresh route does (the plugin's own log line says how many, equal to the dumps'
# difference), and the healed sweep gives the first sweep's tables back. With
# vartree.repair=off the degraded sweep's tables are the fresh route's. A fault
# (the level-1 switch above the turn leaf) where every whole repair congests
# shift more than fresh tables (the quality guard) gets the candidate that moves
# only the CA LIDs' forced entries, as vartree-route --previous does.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
[ -x "$VT_BIN/vartree-route" ] || skip "vartree-route is not built"

"$gen" fat 8,3 -o "$tmp/f.topo" || fail "vartree-gen fat 8,3"
leaf=S-0002c95000000063 # L0-S0063; its port 9 goes up to L1-S0056
diffn() { comm -3 "$1" "$2" | awk '{ print $1, $2 }' | sort -u | wc -l; }

run_harness "$tmp/on" "$tmp/f.topo" -e vartree -F down:$leaf:9 -F up:$leaf:9
run_harness "$tmp/off" "$tmp/f.topo" -e vartree -O vartree.repair=off -F down:$leaf:9
run_harness "$tmp/guard" "$tmp/f.topo" -e vartree -F down:S-0002c95001000000
for r in on off guard; do
	grep -q '^osm_sweep .*fallbacks [^n]' "$tmp/$r/summary.txt" && { cat "$tmp/$r/summary.txt"; fail "$r: a sweep fell back"; }
done
s0=$tmp/on/sweep-0 s1=$tmp/on/sweep-1
lft_norm "$s0/opensm-lfts.dump" >"$tmp/n0"
lft_norm "$s1/opensm-lfts.dump" >"$tmp/n1"
lft_norm "$tmp/on/sweep-2/opensm-lfts.dump" >"$tmp/n2"
lft_norm "$tmp/off/sweep-1/opensm-lfts.dump" >"$tmp/noff"
"$VT_BIN/vartree-route" -q "$s1/ibnetdiscover.topo" --previous "$s0/opensm-lfts.dump" -o "$tmp/rep" ||
	fail "vartree-route --previous"
"$VT_BIN/vartree-route" -q "$s1/ibnetdiscover.topo" -o "$tmp/fresh" || fail "vartree-route"
lft_norm "$tmp/rep" >"$tmp/nrep"
lft_norm "$tmp/fresh" >"$tmp/nfresh"
diff "$tmp/nrep" "$tmp/n1" >/dev/null || fail "the repaired sweep differs from vartree-route --previous"
diff "$tmp/nfresh" "$tmp/noff" >/dev/null || fail "repair off: the sweep differs from a fresh vartree-route"
changed=$(diffn "$tmp/n0" "$tmp/n1")
fresh=$(diffn "$tmp/n0" "$tmp/noff")
echo "leaf up-link down: repaired $changed entries, fresh $fresh"
[ "$changed" -gt 0 ] && [ "$changed" -lt "$fresh" ] || fail "expected fewer changes than the fresh route's"
grep -q "vartree: repaired: $changed entries in [0-9]* blocks differ from the last sweep's" "$tmp/on/opensm.log" ||
	{ grep 'vartree: repaired\|vartree: fresh' "$tmp/on/opensm.log"; fail "no repair line with $changed entries"; }
cmp -s "$tmp/n0" "$tmp/n2" || fail "the healed sweep does not give the first sweep's tables back"
grep -q 'vartree: fresh tables (the fabric gained since)' "$tmp/on/opensm.log" || fail "no heal line"
# at verbose (the harness's level) the forced minimum, a yardstick costing about a fresh
# route, is not counted: the step's time line says 0 for it
grep -q "vartree: repaired: $changed entries .*forced" "$tmp/on/opensm.log" && fail "forced minimum counted at verbose"
grep -q 'vartree: routing [0-9.]* ms (CPU [0-9.]* ms): fresh route [0-9.]* ms, last tables mapped [0-9.]* ms, repair [0-9.]* ms, forced minimum 0.000 ms, VL split again' "$tmp/on/opensm.log" ||
	{ grep 'vartree: routing' "$tmp/on/opensm.log"; fail "no routing time line with the forced minimum uncounted"; }
# the guarded default kept the routes that grew longer (shift as fresh): its second
# INFO line counts them, as vartree-route --previous does offline
longer=$(python3 "$VT_TOP/tests/data/lft_longer.py" "$s1/ibnetdiscover.topo" "$tmp/rep" "$tmp/fresh")
[ "$longer" -gt 0 ] || fail "no route kept longer"
grep -q "vartree: $longer entries route to a CA in more hops than fresh tables (vartree.repair=minimal keeps none)" "$tmp/on/opensm.log" ||
	{ grep 'more hops' "$tmp/on/opensm.log"; fail "no INFO line with $longer longer entries"; }
# the guard: the level-1 switch above the turn leaf down (the first candidate's
# with the longer routes kept: shift 9/8.0235, fresh 2/1.9824): the CA LIDs' forced
# entries moved alone, each sibling taking the port it takes for the destination
# leaf's other hosts (tests/cli/route_repair.sh: 4494 entries, shift 2/1.97), as
# vartree-route --previous does
g0=$tmp/guard/sweep-0 g1=$tmp/guard/sweep-1
"$VT_BIN/vartree-route" -q "$g1/ibnetdiscover.topo" --previous "$g0/opensm-lfts.dump" -o "$tmp/grep" ||
	fail "vartree-route --previous (guard)"
lft_norm "$tmp/grep" >"$tmp/ngrep"
lft_norm "$g1/opensm-lfts.dump" >"$tmp/ng1"
diff "$tmp/ngrep" "$tmp/ng1" >/dev/null || fail "guard: the sweep differs from vartree-route --previous"
# entries of the switches and LIDs still in the fabric that moved
gchanged=$(lft_norm "$g0/opensm-lfts.dump" | awk 'FNR == NR { p[$1 " " $2] = $3; next }
	($1 " " $2) in p && p[$1 " " $2] != $3 { n++ } END { print n + 0 }' - "$tmp/ng1")
echo "level-1 switch above the turn leaf down: repaired $gchanged entries"
grep -q "vartree: repaired: $gchanged entries in [0-9]* blocks differ from the last sweep's" "$tmp/guard/opensm.log" ||
	{ grep 'vartree: repaired\|vartree: fresh\|vartree: switch' "$tmp/guard/opensm.log"; fail "no repair line with $gchanged entries"; }
echo "plugin repair ok"
