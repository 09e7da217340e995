#!/usr/bin/env bash
# Split cores (issue 23): trees whose tops fall into groups that share no
# switch below them were refused ("tops ... share no switch below them with
# the others; credit-loop: ..."). They route now with a second VL: the
# leaves' routes (every CA-to-CA route, up*-down*) and the switch routes that
# add no dependency to them stay on VL 0, the other routes that start at
# switches go on VL 1, and each VL's routes are free of credit loops. Exact
# figures: the VL-1 count, the audit per VL, shift at the cut bound.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok='audit: ok (no unreachable destination, loop, misdelivery or credit loop)'

# split SPEC OPTS VL1 SWITCHES SHIFT: routed with VL1 routes of SWITCHES switches on
# VL 1, clean every-source audit per VL, SHIFT the analyzer's shift row
split() {
	local sp="$1 $2" a
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $1 $2 -o "$tmp/g.topo" || { bad "$sp: gen"; return; }
	"$bin/vartree-route" "$tmp/g.topo" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "$sp: refused: $(tail -1 "$tmp/err")"; return; }
	grep -q "^vartree-route: routed with a second VL: no routing of every source on one VL passed the audit (the first: no deadlock-free tree routing for every source: credit-loop: .*); $3 routes that start at $4 switches other than leaves use VL 1 (their own SL), where they would close a credit loop with the leaves' routes; every other route, CA-to-CA up\*-down\* among them, uses VL 0; each VL has no credit loop$" "$tmp/err" ||
		bad "$sp: $(grep 'second VL' "$tmp/err" | cut -c1-200)... (want $3 routes, $4 switches)"
	a=$("$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" -p shift --all-sources --vl-split -q)
	[ $? = 0 ] || bad "$sp: analyze --vl-split failed: $a"
	grep -qxF "$ok" <<<"$a" || bad "$sp: audit: $(grep '^audit' <<<"$a")"
	grep -q "^audit: VL 1: $3 routes from $4 switches that are not leaves, audited apart (first: .* to LID [0-9]*); every other route on VL 0$" <<<"$a" ||
		bad "$sp: VL 1 line: $(grep '^audit: VL' <<<"$a")"
	[ "$(grep '^shift ' <<<"$a" | tr -s ' ')" = "$5" ] || bad "$sp: shift $(grep '^shift ' <<<"$a"), want $5"
	# the same tables on one VL close a credit loop: the audit says so, exit 1
	a=$("$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources -q)
	[ $? = 1 ] && grep -q '^audit: credit-loop: 1 (first: ' <<<"$a" || bad "$sp: one VL: $(grep '^audit' <<<"$a")"
	# vartree's own routing in the analyzer splits too
	a=$("$bin/vartree-analyze" "$tmp/g.topo" --route vartree --all-sources -q)
	[ $? = 0 ] && grep -q "^audit: VL 1: $3 routes from $4 switches" <<<"$a" || bad "$sp: --route vartree: $(grep '^audit' <<<"$a")"
}

# SuperPOD style: 16 and 96 HCAs on rail leaves, core groups per share of the spines
split "superpod 2,2,4,4,2,2" "" 140 12 "shift 15 240 1 1.00 1 1.00 -"
split "superpod 2,2,4,4,2,2" "--aggregation-nodes --spine-cas 1" 177 12 "shift 15 240 1 1.00 1 1.00 -"
split "superpod 3,4,8,4,3,2" "" 1386 22 "shift 95 9120 1 1.00 1 1.00 -"
# two and three director chassis as the core, named as a real dump names them
split "cores 2,4,2,4,4" "--aggregation-nodes --director CS7500" 187 12 "shift 15 240 1 1.00 1 1.00 -"
split "cores 3,4,2,12,6" "" 879 18 "shift 71 5112 1 1.00 1 1.00 -"

# usage: --vl-split only audits every source
"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --vl-split -q >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--vl-split' "$tmp/err" || bad "--vl-split without --all-sources: $(cat "$tmp/err")"
echo "$nfail failures"
[ $nfail = 0 ]
