#!/usr/bin/env bash
# Navaridas et al.: on a 4:2,3-thin-tree and a 4,3-fat-tree of 64 hosts (vartree
# routing), light causal patterns finish in nearly equal time, heavy ones are
# slower on the thin-tree.
set -u
t() { "$VT_BIN/vartree-sim" -q --json --gen "$1" --causal "$2" --size "$3" |
	grep -o '"total_us": [0-9.]*' | cut -d' ' -f2; }
fail=0
while read -r pat size lo hi; do
	a=$(t "fat 4,3" "$pat" "$size") b=$(t "thin 4:2,3" "$pat" "$size")
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
	echo "$pat $size thin/fat $r (fat ${a}us thin ${b}us) expected [$lo, $hi]"
	awk -v r="$r" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(r >= lo && r <= hi) }' || fail=1
done <<'CASES'
2W 1K 0.97 1.10
3W 1K 0.97 1.10
WF 1K 0.97 1.15
BT 1K 0.97 1.10
BU 16K 1.30 100
2M 16K 1.30 100
3M 16K 1.30 100
CASES
exit $fail
