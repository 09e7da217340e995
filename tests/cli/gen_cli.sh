#!/usr/bin/env bash
# vartree-gen's command line: help, figures, error messages, exit codes, output files.
set -u
gen=$VT_BIN/vartree-gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/gen_err.bash"

"$gen" --help | grep -q '^usage: vartree-gen SPEC' || fail "--help"

# Navaridas Table 2: 8:4,4-thin-tree, 960 switches and 7680 links for 4096 nodes
out=$("$gen" thin 8:4,4 --stats) || fail "stats rc"
grep -qx 'hosts          4096' <<<"$out" || fail "hosts: $out"
grep -qx 'switches       960' <<<"$out" || fail "switches: $out"
grep -qx 'links          7680' <<<"$out" || fail "links: $out"
grep -qx 'radix          12' <<<"$out" || fail "radix: $out"
grep -qx 'bisection      256' <<<"$out" || fail "bisection: $out"
# Table 3: $4189500 in all, $1023 per node
grep -qx 'cost           4189500.00' <<<"$out" || fail "cost: $out"
grep -qx 'cost per host  1022.83' <<<"$out" || fail "cost per host: $out"

# spec as one argument or as words, options as --name value or --name=value
a=$("$gen" "fat 4,3" --drop-links 1@0 --seed 5) || fail "one-word spec"
b=$("$gen" fat 4,3 drop-links=1@0 seed=5) || fail "words spec"
b2=$("$gen" fat 4,3 --drop-links=1@0 --seed=5) || fail "--name=value"
[ "$a" = "$b2" ] || fail "option forms differ"
[ "$a" = "$b" ] || fail "spec forms differ"
c=$("$gen" fat 4,3 --drop-links=1@0 --seed=6)
[ "$a" != "$c" ] || fail "seed has no effect"
[ "$(grep -c '^\[' <<<"$a")" -eq $((2 * 191)) ] || fail "port lines of 191 links"
grep -q '^# Topology file: written by vartree from fat 4,3 drop-links=1@0 seed=5$' <<<"$a" ||
	fail "header: $(head -3 <<<"$a")"

# errors: one line, exit 2, no output file (gen_err.bash)
gen_err "vartree-gen: bad spec 'fat 4': expected K,N" fat 4
gen_err "vartree-gen: bad spec 'fat 200,2': switch radix 400 exceeds 254" fat 200,2
gen_err "vartree-gen: bad spec 'fat 8,6': too big (more nodes than the 49151 unicast LIDs)" fat 8,6
gen_err "vartree-gen: bad spec 'clique 7': N must be even and at least 4" clique 7
gen_err "vartree-gen: unknown option '--frobnicate'. Try 'vartree-gen --help'." fat 2,2 --frobnicate
gen_err "vartree-gen: bad spec 'fat 2,2 drop-switches=1@5': no switch level 5" fat 2,2 --drop-switches=1@5
gen_err "vartree-gen: bad spec 'fat 2,2 loopbacks=3': cannot place 3 loop-backs, the switches have 2 pairs of free ports" fat 2,2 --loopbacks 3
gen_err "vartree-gen: bad option 'director=X1': unknown model (CS7500, CS7510, CS7520, CS8500)" fat 2,2 --director X1
gen_err "vartree-gen: bad option 'director=CS7500:dual': expected MODEL[@LEVEL][:bypass]" fat 2,2 --director CS7500:dual
gen_err "vartree-gen: bad spec 'fat 4,3 director=CS7500@2:bypass': a bypassed director has its line ASICs at level 1, cabled straight to the leaves" fat 4,3 --director CS7500@2:bypass
gen_err "vartree-gen: bad spec 'clique 8 director=CS7500:bypass': a bypassed director needs switch levels 0 and 1, the tree has 1" clique 8 --director CS7500:bypass
gen_err "vartree-gen: bad spec 'oversub 8,12,3,4 director=CS7500:bypass': a bypassed director needs every switch below its line ASICs cabled to each of them: \"L0-S0000\" (0x0002c95000000000) reaches 3 of 4" oversub 8,12,3,4 --director CS7500:bypass
ls "$tmp" | grep -q . && fail "temporary files left: $(ls "$tmp")"

# real-fabric features: every option in --help, flags and valued options in both forms
for o in --aggregation-nodes --director --loopbacks --hostless-leaves --spine-cas --multi-pf 'gpu \[PODS\]'; do
	"$gen" --help | grep -q -- "^  $o" || fail "--help lacks $o"
done
a=$("$gen" fat 2,2 --aggregation-nodes --spine-cas 1:dual) || fail "real options"
b=$("$gen" fat 2,2 aggregation-nodes spine-cas=1:dual) || fail "real options as words"
[ "$a" = "$b" ] || fail "real option forms differ"
grep -q '^# Topology file: written by vartree from fat 2,2 aggregation-nodes spine-cas=1:dual$' <<<"$a" ||
	fail "header: $(head -3 <<<"$a")"
[ "$(grep -c '^devid=0xcf09$' <<<"$a")" = 4 ] || fail "aggregation nodes"
# a bypassed director: fat 4,2's tops are one CS7500's line ASICs, two spine
# ASICs added after them (on ports 5 and 6 of the line ASICs, their lowest free,
# and their own aggregation nodes on their extra port 9); the same file each time
a=$("$gen" fat 4,2 --director CS7500:bypass --aggregation-nodes) || fail "bypass"
b=$("$gen" fat 4,2 director=CS7500@1:bypass aggregation-nodes) || fail "bypass as words"
[ "$(sed 1,2d <<<"$a")" = "$(sed 1,2d <<<"$b")" ] || fail "bypass forms differ"
[ "$(grep -c '^devid=0xcf09$' <<<"$a")" = 10 ] || fail "bypass: aggregation nodes"
[ "$(grep '^Switch' <<<"$a" | sed 's/.*# //; s/ base port.*//' | tr '\n' '|')" = \
	'"L0-S0000"|"L0-S0001"|"L0-S0002"|"L0-S0003"|"MF0;cs7500-01:CS7500/L01/U1"|"MF0;cs7500-01:CS7500/L01/U2"|"MF0;cs7500-01:CS7500/L02/U1"|"MF0;cs7500-01:CS7500/L02/U2"|"MF0;cs7500-01:CS7500/S01/U1"|"MF0;cs7500-01:CS7500/S01/U2"|' ] ||
	fail "bypass switches: $(grep '^Switch' <<<"$a")"
v=$(awk '/^switchguid=0x2c96000010002/,/^$/' <<<"$a" | grep '^\[')
grep -q '^\[9\]	"H-0002c93000000090"\[1\].*"Mellanox Technologies Aggregation Node"' <<<"$v" ||
	fail "bypass spine ASIC U2's aggregation node: $v"
[ "$(grep '"S-' <<<"$v" | cut -f1,2 | tr '\n' '|')" = \
	'[1]	"S-0002c95001000000"[6]|[2]	"S-0002c95001000001"[6]|[3]	"S-0002c95001000002"[6]|[4]	"S-0002c95001000003"[6]|' ] ||
	fail "bypass spine ASIC U2: $v"
out=$("$gen" gpu --stats) || fail "gpu stats"
grep -qx 'switches       48' <<<"$out" || fail "gpu switches: $out"
grep -qx 'radix          41' <<<"$out" || fail "gpu radix: $out"
# costs round halves away from zero, as vartree-sweep's CSV and JSON: $16050 / 16 hosts
out=$("$gen" fat 4,2 --stats) || fail "fat 4,2 stats"
grep -qx 'cost per host  1003.13' <<<"$out" || fail "cost per host 1003.125: $out"

# -o writes the file whole
"$gen" clique 8 -o "$tmp/c.topo" || fail "-o"
[ "$(grep -c '^Switch' "$tmp/c.topo")" -eq 5 ] || fail "clique switches"
[ "$(grep -c '^Ca' "$tmp/c.topo")" -eq 20 ] || fail "clique hosts"
echo ok
