#!/usr/bin/env bash
# vartree-gen's irregular trees (uneven, leaf-uplinks, slow-leaves): figures, wiring,
# link speeds, error messages.
set -u
gen=$VT_BIN/vartree-gen
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/gen_err.bash"

"$gen" --help | grep -q -- "^  uneven H0" || fail "--help lacks uneven"
for o in leaf-uplinks slow-leaves; do
	"$gen" --help | grep -q -- "^  --$o " || fail "--help lacks --$o"
done
# the options --help names are taken, and mean the spec words (they were refused as
# unknown options while --help listed them)
for o in leaf-uplinks=2:5 slow-leaves=2@DDR; do
	a=$("$gen" fat 8,2 "$o" --seed 3) || fail "fat 8,2 $o"
	b=$("$gen" fat 8,2 "--${o%%=*}" "${o#*=}" --seed 3) || fail "fat 8,2 --${o%%=*} ${o#*=}"
	[ "$a" = "$b" ] || fail "--${o%%=*} ${o#*=} differs from $o"
done
# issue 23's 2-level QDR/DDR cluster: 89 hosts on 6 leaves of 5-24 and a host-less
# switch, 36-port switches (spine 0 gets 3 up-links of each 12-link leaf and 1 of the
# 4-link leaf: 19 down-links)
spec="uneven 24,20,16,12,12,5,0:12,12,12,12,12,4,12:5 slow-leaves=2"
out=$("$gen" $spec --stats) || fail "uneven stats"
for l in 'hosts          89' 'switches       12' 'links          165' 'radix          36'; do
	grep -qx "$l" <<<"$out" || fail "uneven: want '$l': $out"
done
# per switch: "NAME hosts switch-links" from the fabric's records
links() {
	awk '/^Switch/ { match($0, /# "[^"]*"/); sw = substr($0, RSTART + 3, RLENGTH - 4); h[sw] = 0; s[sw] = 0; order[n++] = sw }
	     /^\[/ && sw != "" && /"H-/ { h[sw]++ }
	     /^\[/ && sw != "" && /"S-/ { s[sw]++ }
	     /^$/ { sw = "" }
	     END { for (i = 0; i < n; i++) print order[i], h[order[i]], s[order[i]] }'
}
out=$("$gen" uneven 24,20,16,12,12,5,0:12,12,12,12,12,4,12:5 | links) || fail "uneven wiring"
want='L0-S0000 24 12
L0-S0001 20 12
L0-S0002 16 12
L0-S0003 12 12
L0-S0004 12 12
L0-S0005 5 4
L0-S0006 0 12
L1-S0000 0 19
L1-S0001 0 19
L1-S0002 0 13
L1-S0003 0 13
L1-S0004 0 12'
[ "$out" = "$want" ] || fail "uneven wiring: $out"
# slow leaves: 2 leaves' host links and up-links at DDR, the rest at QDR; seed 1 draws
# L0-S0002 (16 hosts, 12 up-links) and the host-less L0-S0006 (12 up-links): 40 links,
# each written at both ends
n=$("$gen" $spec | grep -c '^\[.*4xDDR$') || fail "no DDR links"
[ "$n" = 80 ] || fail "slow-leaves=2: $n DDR link ends, want 80"
n=$("$gen" fat 4,3 slow-leaves=3@SDR | grep -c '^\[.*4xSDR$')
[ "$n" = 48 ] || fail "fat 4,3 slow-leaves=3@SDR: $n SDR link ends, want 48"
# leaf-uplinks: one leaf keeps 2 of its 4 up-links, its first ports (5 and 6)
out=$("$gen" fat 4,3 leaf-uplinks=1:2 --stats) || fail "leaf-uplinks stats"
grep -qx 'links          190' <<<"$out" || fail "leaf-uplinks: $out"
out=$("$gen" fat 4,3 leaf-uplinks=1:2 | links | awk '$1 ~ /^L0/ && $3 != 4')
[ "$(awk '{ print $2, $3 }' <<<"$out")" = "4 2" ] || fail "leaf-uplinks: $out"
# the removals draw what they drew without these options
diff <("$gen" fat 4,3 drop-links=2@1 seed=5 | grep -v '^#') \
	<("$gen" fat 4,3 drop-links=2@1 seed=5 slow-leaves=1@QDR | grep -v '^#') >/dev/null ||
	fail "slow-leaves changed the removals"

gen_err "vartree-gen: bad spec 'uneven 4,4:2': expected uneven H0,H1,..:U0,U1,..:SPINES (at most 64 leaves)" uneven 4,4:2
gen_err "vartree-gen: bad spec 'uneven 4,4:2,2,2:2': as many up-link counts as host counts (one per leaf)" uneven 4,4:2,2,2:2
gen_err "vartree-gen: bad spec 'uneven 4,4:2,0:2': every leaf needs an up-link" uneven 4,4:2,0:2
gen_err "vartree-gen: bad spec 'uneven 4,4:2,2:0': SPINES must be at least 1" uneven 4,4:2,2:0
gen_err "vartree-gen: bad option 'leaf-uplinks=3': expected N:U" fat 4,3 leaf-uplinks=3
gen_err "vartree-gen: bad option 'slow-leaves=2@XDRR': unknown speed" fat 4,3 slow-leaves=2@XDRR
gen_err "vartree-gen: bad spec 'fat 4,3 slow-leaves=17': slow-leaves=17 but there are 16 leaves" fat 4,3 slow-leaves=17
gen_err "vartree-gen: bad spec 'fat 4,3 leaf-uplinks=17:2': leaf-uplinks=17 but there are 16 leaves" fat 4,3 leaf-uplinks=17:2
echo ok
