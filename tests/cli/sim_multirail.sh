#!/usr/bin/env bash
# Wolfe et al. Fig. 2 in shape: open-loop bisection pairing (host k with host
# k + n/2) on a 64-host fat 4,3 with one and two rails: observed = offered up
# to one link's rate; beyond it a second rail, chosen per message (one packet
# each: per packet) by the shorter queue, carries up to another link's worth,
# while a host that keeps to its first rail saturates at one link.
set -u
s=$VT_BIN/vartree-sim
fail=0
acc() { # gen load rail -> "offered accepted"
	"$s" -q --json --speed EDR --gen "$1" --open pair --load "$2" --duration 30 --size 2048 --rail "$3" |
		grep -o '"offered": [0-9.]*, "accepted": [0-9.]*' | sed 's/"offered": //; s/, "accepted": / /'
}
check() { # what gen load rail lo hi: accepted fraction within [lo, hi]
	local r
	r=$(acc "$2" "$3" "$4")
	echo "$1: offered/accepted $r (want accepted in [$5, $6])"
	awk -v a="${r#* }" -v lo="$5" -v hi="$6" 'BEGIN { exit !(a >= lo && a <= hi) }' || fail=1
}
check "1 rail, load 0.5" "fat 4,3" 0.5 least 0.47 0.53
check "1 rail, load 1.5" "fat 4,3" 1.5 least 0.90 1.0
check "2 rails, load 0.5" "rails 2 fat 4,3" 0.5 least 0.47 0.53
check "2 rails, load 1.5, least" "rails 2 fat 4,3" 1.5 least 1.35 1.55
check "2 rails, load 1.5, fixed" "rails 2 fat 4,3" 1.5 fixed 0.90 1.0
check "2 rails, load 3, least" "rails 2 fat 4,3" 3 least 1.80 2.0
"$s" -q --gen "fat 2,2" --open pair --load 4.5 2>&1 | grep -q "'4.5' is not a number (1e-06..4)" ||
	{ echo "FAIL: load above 4"; fail=1; }
exit $fail
