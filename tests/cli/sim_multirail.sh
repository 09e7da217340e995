#!/usr/bin/env bash
# Wolfe et al. Fig. 2 in shape: open-loop bisection pairing (host k with host
# k + n/2) on a 64-host fat 4,3 with one and two rails: observed = offered up
# to one link's rate; beyond it a second rail, chosen per message (one packet
# each: per packet) by the shorter queue, carries up to another link's worth,
# while a host that keeps to its first rail saturates at one link. Then the
# rail chosen per packet (--rail-choice packet) for multi-packet messages;
# with --rail fixed there is no choice, so --rail-choice is refused there.
set -u
s=$VT_BIN/vartree-sim
fail=0
acc() { # gen load rail [rail choice] -> "offered accepted"
	"$s" -q --json --speed EDR --gen "$1" --open pair --load "$2" --duration 30 --size 2048 \
		--rail "$3" ${4:+--rail-choice "$4"} |
		grep -o '"offered": [0-9.]*, "accepted": [0-9.]*' | sed 's/"offered": //; s/, "accepted": / /'
}
check() { # what gen load rail lo hi [rail choice]: accepted fraction within [lo, hi]
	local r
	r=$(acc "$2" "$3" "$4" "${7:-}")
	echo "$1: offered/accepted $r (want accepted in [$5, $6])"
	awk -v a="${r#* }" -v lo="$5" -v hi="$6" 'BEGIN { exit !(a >= lo && a <= hi) }' || fail=1
}
check "1 rail, load 0.5" "fat 4,3" 0.5 least 0.47 0.53
check "1 rail, load 1.5" "fat 4,3" 1.5 least 0.90 1.0
check "2 rails, load 0.5" "rails 2 fat 4,3" 0.5 least 0.47 0.53
check "2 rails, load 1.5, least" "rails 2 fat 4,3" 1.5 least 1.35 1.55
check "2 rails, load 1.5, fixed" "rails 2 fat 4,3" 1.5 fixed 0.90 1.0
check "2 rails, load 3, least" "rails 2 fat 4,3" 3 least 1.80 2.0
# Rail chosen per packet (--rail-choice packet): the packets of one message
# spread over the rails. A shift of 64 KB messages (32 packets) on 64 hosts
# with two EDR rails: every byte injected is delivered (messages x size), and
# a host's observed bandwidth (bytes delivered / hosts / run time) exceeds one
# link (12.5 GB/s) only when the rail is chosen per packet.
shift_run() { # rail choice -> "messages done injected delivered GB/s-per-host"
	"$s" -q --json --speed EDR --gen "rails 2 fat 4,3" --pattern shift:1-3 --size 64K \
		--rail "$1" ${2:+--rail-choice "$2"} ${3:+--ar "$3"} | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
print(r["messages"], r["messages_done"], r["bytes_injected"], r["bytes_delivered"],
      "%.3f" % (r["bytes_delivered"] / 64 / r["total_us"] / 1e3))'
}
band() { # what rail choice [ar] lo hi: conservation, per-host GB/s within [lo, hi]
	local r
	r=$(shift_run "$2" "$3" "$4")
	echo "$1: messages, done, injected, delivered, GB/s per host: $r (want [$5, $6])"
	set -- $r "$5" "$6"
	[ "$1" = 192 ] && [ "$2" = 192 ] && [ "$3" = $((192 * 65536)) ] && [ "$4" = "$3" ] &&
		awk -v b="$5" -v lo="$6" -v hi="$7" 'BEGIN { exit !(b >= lo && b <= hi) }' || fail=1
}
band "per message, least" least message "" 11.0 12.5
band "fixed (first rail)" fixed "" "" 11.0 12.5
band "per packet, random" random packet "" 13.0 20.0
band "per packet, least" least packet "" 20.0 25.0
band "per packet, least, --ar flow" least packet flow 20.0 25.0
# open loop beyond one link: per-packet choice carries two links' worth too
check "2 rails, load 3, least per packet" "rails 2 fat 4,3" 3 least 1.80 2.0 packet
check "3 rails, load 4, least per packet" "rails 3 fat 4,3" 4 least 2.6 3.0 packet
# Fig. 2 with 16 KB messages (8 packets), 3 rails at load 3 by the shorter queue:
# each rail adds up to a link whether the rail is chosen per message or per packet
# (vartree-sim(1): 2.758 and 2.774 of a link over 50 us; here 30 us)
f2() { "$s" -q --json --speed EDR --gen "rails 3 fat 4,3" --open pair --load 3 --duration 30 \
	--size 16K --rail least --rail-choice "$1" | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; assert r["bytes_injected"] == r["bytes_delivered"]; print(r["accepted"])'; }
m=$(f2 message) p=$(f2 packet)
echo "3 rails, load 3, 16 KB: accepted per message $m, per packet $p (want both in [2.5, 3.0])"
awk -v m="$m" -v p="$p" 'BEGIN { exit !(m >= 2.5 && m <= 3 && p >= 2.5 && p <= 3) }' || fail=1
# --rail fixed puts every packet on the order's port: --rail-choice would change nothing
for c in packet message; do
	err=$("$s" -q --gen "rails 2 fat 2,2" --rail fixed --rail-choice $c 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$err" = "vartree-sim: --rail-choice needs --rail random or least. Try 'vartree-sim --help'." ] ||
		{ echo "FAIL: --rail fixed --rail-choice $c: rc $rc '$err'"; fail=1; }
done
"$s" -q --gen "fat 2,2" --rail-choice bytes 2>&1 | grep -q "^vartree-sim: --rail-choice: .bytes." ||
	{ echo "FAIL: --rail-choice bytes accepted"; fail=1; }
"$s" -q --gen "fat 2,2" --open pair --load 4.5 2>&1 | grep -q "'4.5' is not a number (1e-06..4)" ||
	{ echo "FAIL: load above 4"; fail=1; }
exit $fail
