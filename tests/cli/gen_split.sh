#!/usr/bin/env bash
# vartree-gen's split cores (superpod, cores): figures, wiring, error messages.
set -u
gen=$VT_BIN/vartree-gen
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/gen_err.bash"

for o in superpod cores; do
	"$gen" --help | grep -q -- "^  $o [A-Z]" || fail "--help lacks $o"
done
# the 1120-HCA SuperPOD of issue 23: 56 rail leaves, 80 level-1, 70 tops, 40 ports
out=$("$gen" superpod 7,8,20,10,14,5 --stats) || fail "superpod stats"
for l in 'hosts          1120' 'switches       206' 'links          3360' 'radix          40' \
	'levels         3'; do
	grep -qx "$l" <<<"$out" || fail "superpod: want '$l': $out"
done
# two CS7500-sized chassis as the core of 72 leaves: 36-port ASICs throughout
out=$("$gen" cores 2,36,18,72,18 --stats) || fail "cores stats"
for l in 'hosts          1296' 'switches       180' 'links          3888' 'radix          36'; do
	grep -qx "$l" <<<"$out" || fail "cores: want '$l': $out"
done

# who is linked to whom: "SWITCH: PEERS" per switch, peers in port order
peers() {
	awk '/^Switch/ { match($0, /# "[^"]*"/); sw = substr($0, RSTART + 3, RLENGTH - 4); l = "" }
	     /^\[/ && sw != "" && /"S-/ { match($0, /# "[^"]*"/); l = l " " substr($0, RSTART + 3, RLENGTH - 4) }
	     /^$/ && sw != "" { print sw ":" l; sw = "" }
	     END { if (sw != "") print sw ":" l }'
}
# superpod 2,2,4,4,2,2: rail 0's leaves (0, 2) reach spines 0-3, rail 1's (1, 3)
# spines 4-7; core group 0 (tops 0, 1) spines 0, 1, 4, 5 only, group 1 the others
out=$("$gen" superpod 2,2,4,4,2,2 | peers) || fail "superpod 2,2,4,4,2,2"
want='L0-S0000: L1-S0000 L1-S0001 L1-S0002 L1-S0003
L0-S0001: L1-S0004 L1-S0005 L1-S0006 L1-S0007
L0-S0002: L1-S0000 L1-S0001 L1-S0002 L1-S0003
L0-S0003: L1-S0004 L1-S0005 L1-S0006 L1-S0007
L1-S0000: L0-S0000 L0-S0002 L2-S0000 L2-S0001
L1-S0001: L0-S0000 L0-S0002 L2-S0000 L2-S0001
L1-S0002: L0-S0000 L0-S0002 L2-S0002 L2-S0003
L1-S0003: L0-S0000 L0-S0002 L2-S0002 L2-S0003
L1-S0004: L0-S0001 L0-S0003 L2-S0000 L2-S0001
L1-S0005: L0-S0001 L0-S0003 L2-S0000 L2-S0001
L1-S0006: L0-S0001 L0-S0003 L2-S0002 L2-S0003
L1-S0007: L0-S0001 L0-S0003 L2-S0002 L2-S0003
L2-S0000: L1-S0000 L1-S0001 L1-S0004 L1-S0005
L2-S0001: L1-S0000 L1-S0001 L1-S0004 L1-S0005
L2-S0002: L1-S0002 L1-S0003 L1-S0006 L1-S0007
L2-S0003: L1-S0002 L1-S0003 L1-S0006 L1-S0007'
[ "$out" = "$want" ] || fail "superpod 2,2,4,4,2,2 wiring: $out"
# superpod 3,2,4,4,2,2: 3 up-links per spine over 2 tops of its group (was refused:
# CORES must divide SUS*NODES/SPINES): the first top gets 2 of each spine, the other 1
out=$("$gen" superpod 3,2,4,4,2,2 | peers | grep -E '^L1-S000[01]|^L2-S000[01]') ||
	fail "superpod 3,2,4,4,2,2"
want='L1-S0000: L0-S0000 L0-S0002 L0-S0004 L2-S0000 L2-S0000 L2-S0001
L1-S0001: L0-S0000 L0-S0002 L0-S0004 L2-S0000 L2-S0000 L2-S0001
L2-S0000: L1-S0000 L1-S0000 L1-S0001 L1-S0001 L1-S0004 L1-S0004 L1-S0005 L1-S0005
L2-S0001: L1-S0000 L1-S0001 L1-S0004 L1-S0005'
[ "$out" = "$want" ] || fail "superpod 3,2,4,4,2,2 wiring: $out"
# cores 2,3,2,6,4: chassis 0 is line ASICs 0-2 with tops 0-1, chassis 1 lines 3-5 with
# tops 2-3; leaf l's up-links deal the round robin c0/l0 c1/l0 c0/l1 c1/l1 c0/l2 c1/l2 on
out=$("$gen" cores 2,3,2,6,4 | peers | grep -v '^L1') || fail "cores 2,3,2,6,4"
want='L0-S0000: L1-S0000 L1-S0003 L1-S0001 L1-S0004
L0-S0001: L1-S0002 L1-S0005 L1-S0000 L1-S0003
L0-S0002: L1-S0001 L1-S0004 L1-S0002 L1-S0005
L0-S0003: L1-S0000 L1-S0003 L1-S0001 L1-S0004
L0-S0004: L1-S0002 L1-S0005 L1-S0000 L1-S0003
L0-S0005: L1-S0001 L1-S0004 L1-S0002 L1-S0005
L2-S0000: L1-S0000 L1-S0000 L1-S0001 L1-S0001 L1-S0002 L1-S0002
L2-S0001: L1-S0000 L1-S0000 L1-S0001 L1-S0001 L1-S0002 L1-S0002
L2-S0002: L1-S0003 L1-S0003 L1-S0004 L1-S0004 L1-S0005 L1-S0005
L2-S0003: L1-S0003 L1-S0003 L1-S0004 L1-S0004 L1-S0005 L1-S0005'
[ "$out" = "$want" ] || fail "cores 2,3,2,6,4 wiring: $out"
# the director option names the chassis: one per connected group of levels 1 and 2
out=$("$gen" cores 2,3,2,6,4 --director CS7500 | grep -c '^Switch.*# "MF0;cs7500-02:CS7500/') ||
	fail "cores with director"
[ "$out" = 5 ] || fail "second chassis: $out ASICs"

gen_err "vartree-gen: bad spec 'superpod 2,2,4,3,1': SPINES must divide NODES (each leaf as many links to each spine)" superpod 2,2,4,3,1
gen_err "vartree-gen: bad spec 'superpod 2,2,4,4,2,3': GROUPS must divide SPINES (as many spines of a rail per group)" superpod 2,2,4,4,2,3
gen_err "vartree-gen: bad spec 'superpod 1,2,4,4,2,2': CORES must be at most SUS*NODES/SPINES (each spine at least one link to each top of its core group)" superpod 1,2,4,4,2,2
gen_err "vartree-gen: bad spec 'superpod 0,2,4,4,2': counts must be at least 1" superpod 0,2,4,4,2
gen_err "vartree-gen: bad spec 'superpod 2,2,4,4,2,2,1': expected superpod SUS,RAILS,NODES,SPINES,CORES[,GROUPS]" superpod 2,2,4,4,2,2,1
gen_err "vartree-gen: bad spec 'cores 1,2,2,4,4': a split core needs two or more chassis" cores 1,2,2,4,4
gen_err "vartree-gen: bad spec 'cores 2,2,2,4,1': HOSTS (up-links per leaf) must be at least CHASSIS" cores 2,2,2,4,1
gen_err "vartree-gen: bad spec 'cores 2,2,2': expected cores CHASSIS,LINES,SPINES,LEAVES,HOSTS" cores 2,2,2
echo ok
