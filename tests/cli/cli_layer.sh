#!/usr/bin/env bash
# The command-line layer every command shares (lib/cli/vt_cli.c): for each command a bad
# number exits 2 with "NAME: --OPT: 'V' is not an integer (LO..HI)", an unknown option
# and a missing operand exit 2 ending "Try 'NAME --help'.", a missing input file exits 2,
# --version prints "NAME VERSION"; options that mean nothing in the combination given
# are refused.
. "$(dirname "$0")/robust_lib.bash"
mkbad
ver=$(sed -n 's/^#define VT_VERSION "\(.*\)"$/\1/p' "$top/lib/base/vt_version.h")
try() { echo ". Try '$1 --help'."; }

# vartree-route
r=$VT_BIN/vartree-route
expect 2 "vartree-route: --lmc: 'abc' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc abc
expect 2 "vartree-route: --lmc: '-1' is not an integer (0..7)" "$r" "$tmp/good.topo" --lmc=-1
expect 2 "vartree-route: unknown option '--bogus'$(try vartree-route)" "$r" "$tmp/good.topo" --bogus
expect 2 "vartree-route: option '--ver' is ambiguous$(try vartree-route)" "$r" --ver
expect 2 "vartree-route: no TOPOLOGY given$(try vartree-route)" "$r"
expect 2 "vartree-route: --order-format needs --order-out FILE$(try vartree-route)" \
	"$r" "$tmp/good.topo" --order-format hostfile
expect 2 "vartree-route: --repair needs --previous LFTS$(try vartree-route)" \
	"$r" "$tmp/good.topo" --repair fewest
expect 2 "vartree-route: $tmp/missing.topo: cannot open: No such file or directory" "$r" "$tmp/missing.topo"
expect 0 "" "$r" --version
[ "$("$r" --version)" = "vartree-route $ver" ] || { echo "FAIL: vartree-route --version"; nfail=$((nfail + 1)); }

# vartree-gen: every failure is of the input or the output, so 2 (it checks nothing)
g=$VT_BIN/vartree-gen
expect 2 "vartree-gen: --seed: 'abc' is not an integer (0..2^64-1)" "$g" fat 2,2 --seed abc
expect 2 "vartree-gen: --hosts-per-leaf: '0' is not an integer (1..1000000)" "$g" fat 2,2 --hosts-per-leaf=0
expect 2 "vartree-gen: unknown option '--bogus'$(try vartree-gen)" "$g" fat 2,2 --bogus
expect 2 "vartree-gen: option '--stats' takes no value$(try vartree-gen)" "$g" fat 2,2 --stats=1
expect 2 "vartree-gen: no SPEC given$(try vartree-gen)" "$g"
expect 2 "vartree-gen: $tmp/missing.map: cannot open: No such file or directory" \
	"$g" fat 2,2 --node-name-map "$tmp/missing.map" -o f.topo
expect 2 "vartree-gen: bad spec 'fat 2,2 drop-hosts=99': cannot drop 99 hosts, there are 4" \
	"$g" fat 2,2 --drop-hosts 99 -o f.topo
[ "$("$g" --version)" = "vartree-gen $ver" ] || { echo "FAIL: vartree-gen --version"; nfail=$((nfail + 1)); }

# vartree-trace
x=$VT_BIN/vartree-trace
"$r" -q "$tmp/good.topo" -o "$tmp/good.lfts" || { echo "FAIL: route good.topo"; nfail=$((nfail + 1)); }
expect 2 "vartree-trace: --order-random: '1.5' is not an integer (0..2^64-1)" \
	"$x" "$tmp/good.topo" --lfts "$tmp/good.lfts" --order-random 1.5 H-0000 H-0001
expect 2 "vartree-trace: unknown option '--bogus'$(try vartree-trace)" "$x" "$tmp/good.topo" --bogus
expect 2 "vartree-trace: option '--port' needs a value$(try vartree-trace)" "$x" "$tmp/good.topo" --port
expect 2 "vartree-trace: no topology given$(try vartree-trace)" "$x"
expect 2 "vartree-trace: --pattern needs --port NODE/PORT$(try vartree-trace)" \
	"$x" "$tmp/good.topo" --lfts "$tmp/good.lfts" -p shift H-0000 H-0001
expect 2 "vartree-trace: --order and --order-random exclude each other$(try vartree-trace)" \
	"$x" "$tmp/good.topo" --lfts "$tmp/good.lfts" --order o --order-random 1 H-0000 H-0001
expect 2 "vartree-trace: -q needs --port NODE/PORT$(try vartree-trace)" \
	"$x" "$tmp/good.topo" --lfts "$tmp/good.lfts" -q H-0000 H-0001
expect 2 "vartree-trace: $tmp/missing.topo: cannot open: No such file or directory" \
	"$x" "$tmp/missing.topo" --route vartree H-0000 H-0001
expect 2 "vartree-trace: $tmp/missing.lfts: cannot open: No such file or directory" \
	"$x" "$tmp/good.topo" --lfts "$tmp/missing.lfts" H-0000 H-0001
[ "$("$x" --version)" = "vartree-trace $ver" ] || { echo "FAIL: vartree-trace --version"; nfail=$((nfail + 1)); }

# vartree-analyze
a=$VT_BIN/vartree-analyze
expect 2 "vartree-analyze: --order-random: '-3' is not an integer (0..2^64-1)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/good.lfts" --order-random -3
expect 2 "vartree-analyze: --max-worst: 'x' is not an integer (0..2^32-1)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/good.lfts" --max-worst shift=x
expect 2 "vartree-analyze: --stage-limit: '0' is not an integer (1..2^32-1)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/good.lfts" --stage-limit 0
expect 2 "vartree-analyze: unknown option '--bogus'$(try vartree-analyze)" "$a" "$tmp/good.topo" --bogus
expect 2 "vartree-analyze: option '--json' takes no value$(try vartree-analyze)" "$a" "$tmp/good.topo" --json=1
expect 2 "vartree-analyze: no topology given$(try vartree-analyze)" "$a" --lfts "$tmp/good.lfts"
expect 2 "vartree-analyze: --order and --order-random exclude each other$(try vartree-analyze)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/good.lfts" --order o --order-random 1
expect 2 "vartree-analyze: $tmp/missing.topo: cannot open: No such file or directory" \
	"$a" "$tmp/missing.topo" --route vartree
[ "$("$a" --version)" = "vartree-analyze $ver" ] || { echo "FAIL: vartree-analyze --version"; nfail=$((nfail + 1)); }

# vartree-sim
s=$VT_BIN/vartree-sim
expect 2 "vartree-sim: --seed: 'abc' is not an integer (0..2^64-1)" "$s" -q --gen "fat 2,2" --seed abc
expect 2 "vartree-sim: --seed: '1e19' is not an integer (0..2^64-1)" "$s" -q --gen "fat 2,2" --seed 1e19
expect 2 "vartree-sim: --load: '0' is not a number (1e-06..4)" "$s" -q --gen "fat 2,2" --open pair --load 0
expect 2 "vartree-sim: unknown option '--bogus'$(try vartree-sim)" "$s" -q --gen "fat 2,2" --bogus
expect 2 "vartree-sim: option '--l' is ambiguous$(try vartree-sim)" "$s" -q --gen "fat 2,2" --l
expect 2 "vartree-sim: unknown option '--lx'$(try vartree-sim)" "$s" -q --gen "fat 2,2" --lx
expect 2 "vartree-sim: option '--flit' takes no value$(try vartree-sim)" "$s" -q --gen "fat 2,2" --flit=1
expect 2 "vartree-sim: give a FABRIC file or --gen SPEC$(try vartree-sim)" "$s" -q
expect 2 "vartree-sim: --load needs --open$(try vartree-sim)" "$s" -q --gen "fat 2,2" --load 0.5
expect 2 "vartree-sim: --duration needs --open$(try vartree-sim)" "$s" -q --gen "fat 2,2" --duration 5
expect 2 "vartree-sim: --reps applies to --pattern and --trace only, not to --causal$(try vartree-sim)" \
	"$s" -q --gen "fat 2,2" --causal BU --reps 2
expect 2 "vartree-sim: --mode does not apply to --open traffic$(try vartree-sim)" \
	"$s" -q --gen "fat 2,2" --open pair --mode burst
expect 2 "vartree-sim: --ar-select needs --ar packet or flow$(try vartree-sim)" \
	"$s" -q --gen "fat 2,2" --ar-select queue
expect 2 "vartree-sim: $tmp/missing.topo: cannot open: No such file or directory" "$s" -q "$tmp/missing.topo"
expect 2 "vartree-sim: $tmp/missing.lfts: cannot open: No such file or directory" \
	"$s" -q "$tmp/good.topo" --lfts "$tmp/missing.lfts"
[ "$("$s" --version)" = "vartree-sim $ver" ] || { echo "FAIL: vartree-sim --version"; nfail=$((nfail + 1)); }
# seeds are whole 64-bit numbers: through a double, 2^63 and 2^63+1 were one seed
run() { "$s" -q --gen "fat 2,3" --open uniform --load 0.8 --duration 20 --seed "$1"; }
[ "$(run 9223372036854775808)" != "$(run 9223372036854775809)" ] ||
	{ echo "FAIL: seeds 2^63 and 2^63+1 give the same run"; nfail=$((nfail + 1)); }
[ "$(run 18446744073709551615)" = "$(run 18446744073709551615)" ] ||
	{ echo "FAIL: seed 2^64-1 not deterministic"; nfail=$((nfail + 1)); }
# no option is dropped past the 64th: the 70th decides (was silently ignored)
many=()
for i in $(seq 69); do many+=(--vls 2); done
expect 2 "vartree-sim: --vls: '99' is not an integer (1..15)" "$s" -q --gen "fat 2,2" "${many[@]}" --vls 99

# vartree-sweep
w=$VT_BIN/vartree-sweep
expect 2 "vartree-sweep: --jobs: 'x' is not an integer (1..1024)" "$w" --jobs x "$tmp/s.spec"
expect 2 "vartree-sweep: no SPEC given$(try vartree-sweep)" "$w"
expect 2 "vartree-sweep: unknown option '--bogus'$(try vartree-sweep)" "$w" --bogus "$tmp/s.spec"
expect 2 "vartree-sweep: $tmp/missing.spec: cannot open: No such file or directory" "$w" "$tmp/missing.spec"
[ "$("$w" --version)" = "vartree-sweep $ver" ] || { echo "FAIL: vartree-sweep --version"; nfail=$((nfail + 1)); }

# the scripts: the same pointer and statuses (vartree-harness and vartree-compare in
# robust_scripts.sh, which also has the fabrics ibsim cannot load, exit 2)
expect 2 "vartree-demo: takes no arguments$(try vartree-demo)" "$top/sim/vartree-demo" extra
for s in vartree-harness vartree-compare; do
	expect 2 "$s: unknown option '--bogus'$(try $s)" "$top/sim/$s" --bogus "$tmp/good.topo"
	expect 2 "$s: $tmp/missing.topo: cannot read the topology: no such file" "$top/sim/$s" "$tmp/missing.topo"
done

finish
