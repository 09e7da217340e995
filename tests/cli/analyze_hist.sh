#!/usr/bin/env bash
# vartree-analyze's text histogram of link loads: one entry per load while the
# worst is under 16, else 16 ranges of equal width (an all2all on a large
# fabric printed one entry per load, 130 KB on one line); -q leaves it out,
# --top 0 only the most loaded links.
set -u
A="$VT_BIN/vartree-analyze"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$VT_BIN/vartree-gen" fat 4,3 -o "$T/f.topo" || bad "vartree-gen exited $?"

out=$("$A" "$T/f.topo" --route vartree -p all2all -p shift --top 0 2>&1)
[ $? = 0 ] || bad "analyze exited $?"
want='all2all: link loads (link-stages per load): 0-3:0 4-7:0 8-11:0 12-15:0 16-19:0 20-23:0 24-27:0 28-31:0 32-35:0 36-39:0 40-43:0 44-47:0 48-51:128 52-55:0 56-59:0 60-63:256
shift: link loads (link-stages per load): 0:2304 1:21888'
got=$(grep 'link loads' <<<"$out")
[ "$got" = "$want" ] || bad "histogram: '$got'"
grep -q 'most loaded links' <<<"$out" && bad "--top 0 printed the most loaded links"

out=$("$A" "$T/f.topo" --route vartree -p all2all -q --top 1 2>&1)
[ $? = 0 ] || bad "analyze -q exited $?"
grep -q 'link loads' <<<"$out" && bad "-q printed the histogram: $out"
[ "$(grep -c 'most loaded links' <<<"$out")" = 1 ] || bad "--top 1 -q: no most loaded links: $out"
exit $fail
