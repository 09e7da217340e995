#!/usr/bin/env bash
# vartree-gen --stats --used K: the resources a job on the K central hosts uses
# (Navaridas et al. Table 2b/3b, rows U).
set -u
gen=$VT_BIN/vartree-gen
fail() { echo "FAIL: $*"; exit 1; }

# Table 2b/3b, 6,5-fat-tree with the 4096 central of 7776 nodes: 4248 switches,
# 21808 links, $16712138 in all, $4080 per node
out=$("$gen" fat 6,5 --stats --used 4096) || fail "fat 6,5 rc"
grep -qx 'used hosts     4096' <<<"$out" || fail "hosts: $out"
grep -qx 'used switches  4248' <<<"$out" || fail "switches: $out"
grep -qx 'used links     21808' <<<"$out" || fail "links: $out"
grep -qx 'used cost      16712137.50' <<<"$out" || fail "cost: $out"
grep -qx 'used cost per host 4080.11' <<<"$out" || fail "cost per host: $out"
# the complete network's rows are unchanged (CN: 6480 switches, 38880 links)
grep -qx 'switches       6480' <<<"$out" || fail "CN switches: $out"
grep -qx 'links          38880' <<<"$out" || fail "CN links: $out"

# 8:4,4-thin-tree has exactly 4096 nodes: U = CN (960 switches, 7680 links)
out=$("$gen" thin 8:4,4 --stats --used 4096) || fail "thin rc"
grep -qx 'used switches  960' <<<"$out" || fail "thin switches: $out"
grep -qx 'used links     7680' <<<"$out" || fail "thin links: $out"

# fat 4,3 by hand: 20 central hosts are ranks 22..41 on leaves 5..10 (6 switches),
# level-1 blocks of 16 hosts 1..2 (8 switches), all 16 tops: 30 switches;
# 20 host links + 6*4 + 8*4 up-links = 76
out=$("$gen" fat 4,3 --stats --used 20) || fail "fat 4,3 rc"
grep -qx 'used switches  30' <<<"$out" || fail "4,3 switches: $out"
grep -qx 'used links     76' <<<"$out" || fail "4,3 links: $out"
out=$("$gen" fat 4,3 --stats --used 64) || fail "fat 4,3 all rc"
grep -qx 'used switches  48' <<<"$out" || fail "4,3 all switches: $out"
grep -qx 'used links     192' <<<"$out" || fail "4,3 all links: $out"
# without --used nothing of it is printed
"$gen" fat 4,3 --stats | grep -q '^used' && fail "used rows without --used"

# errors: input and usage errors exit 2 with one line
msg=$("$gen" fat 4,3 --stats --used 65 2>&1)
[ $? -eq 2 ] || fail "65 of 64 hosts: rc"
[ "$msg" = "vartree-gen: --used 65: the fabric has 64 hosts" ] || fail "msg: $msg"
msg=$("$gen" fat 4,3 --used 3 2>&1)
[ $? -eq 2 ] || fail "--used without --stats: rc"
[ "$msg" = "vartree-gen: --used needs --stats. Try 'vartree-gen --help'." ] || fail "msg: $msg"
msg=$("$gen" fat 4,3 --stats --used x 2>&1)
[ $? -eq 2 ] || fail "--used x: rc"
[ "$msg" = "vartree-gen: --used: 'x' is not an integer (1..100000000)" ] || fail "msg: $msg"
exit 0
