#!/usr/bin/env bash
# Fewer detours (issue 23, goal 3): with --shortest-detours, switches with no
# up*-down* route (a top towards another top group, a level-1 switch towards
# another group of its pod) take a shortest way, the routes that then close a
# credit loop with the leaves' on VL 1. Exact figures on the real-shaped
# fabrics: the every-source audit's non-minimal hops without and with the
# option, the routes on VL 1, each VL clean, shift unchanged; tables read back
# pass per VL and show a credit loop on one; a degraded tree, where the audit
# fails, keeps the one-VL tables byte for byte.
set -u
. "$(dirname "$0")/normal_build.bash"
nfail=0
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok='audit: ok (no unreachable destination, loop, misdelivery or credit loop)'

# shortest SPEC NONMIN VL1 SWITCHES SHIFT: NONMIN non-minimal hops before, none with
# the option, VL1 routes from SWITCHES switches on VL 1, SHIFT the shift row both ways
shortest() {
	local a b
	# shellcheck disable=SC2086
	"$bin/vartree-gen" $1 -o "$tmp/g.topo" || { bad "$1: gen"; return; }
	a=$("$bin/vartree-analyze" "$tmp/g.topo" --route vartree --all-sources -p shift -q)
	[ $? = 0 ] && grep -q "^audit: non-minimal: $2 (first: " <<<"$a" ||
		bad "$1: before: $(grep '^audit' <<<"$a")"
	b=$("$bin/vartree-analyze" "$tmp/g.topo" --route vartree --all-sources --shortest-detours -p shift -q)
	[ $? = 0 ] && grep -qxF "$ok" <<<"$b" || bad "$1: audit: $(grep '^audit' <<<"$b")"
	! grep -q '^audit: non-minimal' <<<"$b" || bad "$1: $(grep '^audit: non' <<<"$b")"
	grep -q "^audit: VL 1: $3 routes from $4 switches that are not leaves" <<<"$b" ||
		bad "$1: VL 1: $(grep '^audit: VL' <<<"$b")"
	for x in "$a" "$b"; do
		[ "$(grep '^shift ' <<<"$x" | tr -s ' ')" = "$5" ] || bad "$1: $(grep '^shift ' <<<"$x"), want $5"
	done
	# without --all-sources: the CAs above the leaves (aggregation nodes) on their VL
	b=$("$bin/vartree-analyze" "$tmp/g.topo" --route vartree --shortest-detours -q)
	[ $? = 0 ] && grep -qxF "$ok" <<<"$b" || bad "$1: CA audit: $(grep '^audit' <<<"$b")"
	"$bin/vartree-route" "$tmp/g.topo" --shortest-detours -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err" ||
		{ bad "$1: route: $(tail -1 "$tmp/err")"; return; }
	grep -q "^vartree-route: routed with a second VL: switches with no up\*-down\* route to a destination take a shortest way over any link; $3 routes that start at $4 switches other than leaves use VL 1 (their own SL), where they would close a credit loop with the leaves' routes; every other route, CA-to-CA up\*-down\* among them, uses VL 0; each VL has no credit loop$" "$tmp/err" ||
		bad "$1: log: $(grep 'VL' "$tmp/err" | cut -c1-200)"
	b=$("$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources --vl-split -q)
	[ $? = 0 ] && grep -qxF "$ok" <<<"$b" && grep -q "^audit: VL 1: $3 routes" <<<"$b" ||
		bad "$1: read back: $(grep '^audit' <<<"$b")"
	b=$("$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --order "$tmp/o" --all-sources -q)
	[ $? = 1 ] && grep -q '^audit: credit-loop: 1 (first: ' <<<"$b" || bad "$1: one VL: $(grep '^audit' <<<"$b")"
}

# real-gpu.topo and real-sharp-4ary3.topo (topofiles/regenerate), then split cores
shortest "gpu" 684 7481 32 "shift 319 102080 1 1.00 1 1.00 -"
shortest "fat 4,3 aggregation-nodes speed=EDR" 648 2508 32 "shift 63 4032 1 1.00 1 1.00 -"
shortest "superpod 2,2,4,4,2,2 speed=HDR" 24 140 12 "shift 15 240 1 1.00 1 1.00 -"
shortest "superpod 4,4,8,4,4" 324 3082 32 "shift 127 16256 1 1.00 1 1.00 -"
shortest "cores 3,6,3,12,6" 192 1664 27 "shift 71 5112 1 1.00 1 1.00 -"

# a degraded tree: with the rule's split the shortest detours closed a credit loop
# on a VL and the tables were the one-VL routing's (349 non-minimal hops); placed
# one by one, VL 0 first (tests/cli/route_split_fault.sh), each VL is free of
# credit loops and no hop is non-minimal, shift unchanged
d="$top/topofiles/degraded-4ary3-leaf-uplink.topo"
"$bin/vartree-route" "$d" --shortest-detours -o "$tmp/b" --order-out "$tmp/o" 2>"$tmp/err" ||
	bad "degraded-4ary3-leaf-uplink: $(tail -1 "$tmp/err")"
grep -q "^vartree-route: routed with a second VL: switches with no up\*-down\* route to a destination take a shortest way over any link; .* placed one by one, .*: 411 routes that start at 25 switches use VL 1; each VL has no credit loop$" "$tmp/err" ||
	bad "degraded-4ary3-leaf-uplink: log: $(grep 'VL' "$tmp/err" | cut -c1-200)"
b=$("$bin/vartree-analyze" "$d" --lfts "$tmp/b" --order "$tmp/o" --all-sources --vl-split -p shift -q)
[ $? = 0 ] && grep -qxF "$ok" <<<"$b" && ! grep -q '^audit: non-minimal' <<<"$b" &&
	grep -q '^audit: VL 1: 411 routes from 25 switches, audited apart' <<<"$b" &&
	[ "$(grep '^shift ' <<<"$b" | tr -s ' ')" = "shift 63 4032 2 1.90 2 1.90 -" ] ||
	bad "degraded-4ary3-leaf-uplink: read back: $(grep -E '^audit|^shift ' <<<"$b")"
# the option belongs to vartree's own routing in the analyzer
"$bin/vartree-analyze" "$tmp/g.topo" --lfts "$tmp/l" --shortest-detours -q >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--shortest-detours' "$tmp/err" || bad "--shortest-detours with --lfts: $(cat "$tmp/err")"
echo "$nfail failures"
[ $nfail = 0 ]
