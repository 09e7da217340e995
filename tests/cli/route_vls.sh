#!/usr/bin/env bash
# Further VLs for switch-sourced routes (issue 23 goal 1): a fat 4,3 with four
# faults (two level-1 switches and a level-1 link down, then a third
# level-1 switch) is routed fresh with the routes placed one by one (the
# leaves' own routes to switch LIDs turn down-up); on two VLs 4 routes from 4
# switches close a credit loop on either VL with the routes placed before
# them. With a third VL
# (--vls 3, or the 4 assumed by default) they take VL 2 and each VL's
# every-source audit is clean; with --vls 2 the one log line says which
# routes are not covered and why. The tables do not depend on the VLs.
# 421 routes on VL 1 (shift 4/3.08) before the leaves' classes were
# exchanged after a stage at load 2 (vt_route_stage_swap.c): 422, shift 3/2.59.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok='audit: ok (no unreachable destination, loop, misdelivery or credit loop)'

"$bin/vartree-gen" fat 4,3 -o "$tmp/r0.topo" || exit 1
k=0
for f in down:S-0002c95001000012 down:S-0002c95002000011:2 down:S-0002c95001000000 down:S-0002c95001000011; do
	k=$((k + 1))
	python3 "$top/tests/data/topo_fault.py" "$tmp/r$((k - 1)).topo" "$f" >"$tmp/r$k.topo" || exit 1
done
t=$tmp/r4.topo

# two VLs: 4 routes not covered, named with the loop and why; the audit fails on VL 1
"$bin/vartree-route" "$t" --vls 2 -o "$tmp/l2" 2>"$tmp/err" || bad "--vls 2: $(tail -1 "$tmp/err")"
grep -q '^vartree-route: routed with a second VL: .* VL 0 where it closes no credit loop there, else VL 1 (their own SL): 422 routes that start at 45 switches use VL 1; VL 0 has no credit loop; 4 routes that start at 4 switches (the first: "L1-S0007" (0x0002c95001000007) to LID 85) close one on either VL with the routes placed before them, so VL 1 has one ("L2-S0008" (0x0002c95002000008): a cycle of 12 channel dependencies (LID 85): .*): those routes are not covered (they stay on VL 1, apart from every CA-to-CA route); the fabric has 2 data VLs (3 would cover them)$' "$tmp/err" ||
	bad "--vls 2: $(grep 'second VL' "$tmp/err" | cut -c1-400)"
grep -qxF 'vartree-route: VLs: the routes use 2 of the 2 data VLs the fabric has: VL 1: 422 routes from 45 switches' "$tmp/err" ||
	bad "--vls 2: $(grep 'VLs:' "$tmp/err")"
a=$("$bin/vartree-analyze" "$t" --lfts "$tmp/l2" --all-sources --vl-split --vls 2 -q)
[ $? = 1 ] || bad "--vls 2: analyze exit is not 1"
want='audit: credit-loop: 1 (first: VL 1: "L2-S0008" (0x0002c95002000008): a cycle of 12 channel dependencies (LID 85): "L1-S0004" (0x0002c95001000004, lid 21)/7 "L2-S0008" (0x0002c95002000008, lid 41)/3 "L1-S0008" (0x0002c95001000008, lid 25)/2 "L0-S0009" (0x0002c95000000009, lid 10)/6 "L1-S0009" (0x0002c95001000009, lid 26)/5 "L2-S0001" (0x0002c95002000001, lid 34)/1 "L1-S0001" (0x0002c95001000001, lid 18)/1 "L0-S0000" (0x0002c95000000000, lid 1)/7 "L1-S0002" (0x0002c95001000002, lid 19)/5 "L2-S0002" (0x0002c95002000002, lid 35)/2 "L1-S0006" (0x0002c95001000006, lid 23)/3 "L0-S0006" (0x0002c95000000006, lid 7)/5)
audit: VL 1: 422 routes from 45 switches, audited apart (first: "L0-S0000" (0x0002c95000000000) to LID 21); every other route on VL 0
audit: VLs: the routes use 2 of the 2 data VLs given (--vls)'
[ "$(grep -E '^audit: (ok|credit|VL)' <<<"$a")" = "$want" ] || bad "--vls 2: $(grep '^audit' <<<"$a")"

# three VLs: the 4 routes on VL 2, every VL clean
"$bin/vartree-route" "$t" --vls 3 -o "$tmp/l3" 2>"$tmp/err" || bad "--vls 3: $(tail -1 "$tmp/err")"
cmp -s "$tmp/l2" "$tmp/l3" || bad "--vls 3: the tables differ from --vls 2's"
grep -q ', else VL 1, else VL 2 and on (their own SL): 422 routes that start at 45 switches use VLs 1-2; each VL has no credit loop$' "$tmp/err" &&
	grep -qxF 'vartree-route: VLs: the routes use 3 of the 3 data VLs the fabric has: VL 1: 418 routes from 45 switches; VL 2: 4 routes from 4 switches' "$tmp/err" ||
	bad "--vls 3: $(grep -E 'second VL|VLs:' "$tmp/err" | cut -c1-300)"
a=$("$bin/vartree-analyze" "$t" --lfts "$tmp/l3" --all-sources --vl-split --vls 3 -q)
[ $? = 0 ] || bad "--vls 3: analyze exit is not 0"
want="$ok
audit: VLs 1-2: 422 routes from 45 switches (VL 1: 418 from 45, VL 2: 4 from 4, first \"L1-S0007\" (0x0002c95001000007) to LID 85), audited apart (first: \"L0-S0000\" (0x0002c95000000000) to LID 21); every other route on VL 0
audit: VLs: the routes use 3 of the 3 data VLs given (--vls)"
[ "$(grep -E '^audit: (ok|credit|VL)' <<<"$a")" = "$want" ] || bad "--vls 3: $(grep '^audit' <<<"$a")"

# JSON: the routes per VL off VL 0 and those not covered, with 2 and with 3 VLs
for v in 2 3; do
	j=$("$bin/vartree-analyze" "$t" --lfts "$tmp/l2" --all-sources --vl-split --vls $v --json -q)
	got=$(python3 -c 'import json, sys
r = json.load(sys.stdin)["routings"][0]
print(r["vl1_routes"], r["vls_used"], r["vl_routes"], r["routes_not_covered"])' <<<"$j")
	case $v in
	2) want='422 2 [422] 4' ;;
	3) want='422 3 [418, 4] 0' ;;
	esac
	[ "$got" = "$want" ] || bad "--vls $v --json: $got, not $want"
done

# the default: 4 data VLs assumed (a topology file does not say), 3 used
"$bin/vartree-route" "$t" -o "$tmp/l4" 2>"$tmp/err" || bad "default: $(tail -1 "$tmp/err")"
grep -qxF 'vartree-route: VLs: the routes use 3 of the 4 data VLs assumed (a topology file does not say how many its links run; --vls N sets it): VL 1: 418 routes from 45 switches; VL 2: 4 routes from 4 switches' "$tmp/err" ||
	bad "default: $(grep 'VLs:' "$tmp/err")"
a=$("$bin/vartree-analyze" "$t" --lfts "$tmp/l4" --all-sources --vl-split -q)
[ $? = 0 ] && grep -qxF "$ok" <<<"$a" ||
	bad "default: $(grep '^audit' <<<"$a")"

# one data VL: no split to audit, the one VL has the credit loop
a=$("$bin/vartree-analyze" "$t" --lfts "$tmp/l2" --all-sources --vl-split --vls 1 -q)
[ $? = 1 ] && grep -q '^audit: credit-loop: 1 (first: "L1-S0001" (0x0002c95001000001): a cycle of 4 ' <<<"$a" &&
	grep -qxF 'audit: VLs: the routes need 2 data VLs, and the fabric has 1 (--vls): the routes off VL 0 are not covered' <<<"$a" ||
	bad "--vls 1: $(grep '^audit' <<<"$a")"

# usage: 1..15 data VLs; --vls only where routes from every source are audited
"$bin/vartree-route" "$t" --vls 16 -o /dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- "--vls: '16'" "$tmp/err" || bad "--vls 16: $(cat "$tmp/err")"
"$bin/vartree-analyze" "$t" --lfts "$tmp/l2" --vls 2 -q >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--vls' "$tmp/err" || bad "--vls without --all-sources: $(cat "$tmp/err")"
echo "$nfail failures"
[ $nfail = 0 ]
