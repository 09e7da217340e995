#!/usr/bin/env bash
# ibsim loads vartree-gen's real-fabric features (aggregation nodes, directors,
# bypassed directors, loop-backs, host-less leaves, storage HCAs on the top
# switches, the GPU preset),
# each alone and combined with the removals: every file parsed to the last line
# with no warning, each with its own socket, ibsim stopped by its PID. On four of
# them an ibnetdiscover through libumad2sim finds the file's switches, CAs, node
# GUIDs and sysimgguids (an aggregation node shares its switch's, a director's
# ASICs their chassis's). Multi-PF fabrics are left out: ibsim makes port GUIDs
# node GUID + port, which they break (vartree-gen(1)).
set -u
gen=$VT_BIN/vartree-gen
. "$VT_TOP/tests/integration/umad2sim.bash"
command -v ibsim >/dev/null || { echo "ibsim not installed"; exit 77; }
command -v ibnetdiscover >/dev/null || { echo "ibnetdiscover not installed"; exit 77; }
[ -f "$umad2sim" ] || { echo "libumad2sim not installed"; exit 77; }
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# starts ibsim on $1 (socket named after $2) with limits from the file; waits until ready
start() {
	local f=$1 nodes sws ports
	nodes=$(grep -cE '^(Switch|Ca|Rt)' "$f")
	sws=$(grep -c '^Switch' "$f")
	ports=$(awk '/^(Switch|Ca|Rt)/ { p += $2 + 1 } END { print p + 64 }' "$f")
	export IBSIM_SOCKNAME=vt-$$-real-$2
	stdbuf -oL -eL ibsim -n -s -N $((nodes + 16)) -S $((sws + 16)) -P "$ports" "$f" >"$tmp/out" 2>&1 &
	pid=$!
	deadline=$((SECONDS + 120)) # seconds, not steps: a loaded machine is slow
	while [ $SECONDS -lt $deadline ]; do
		grep -q 'Network simulator ready' "$tmp/out" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	cat "$tmp/out"
	fail "$f: ibsim did not start"
}

stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# sorted "nodeguid sysimgguid" of every record
guids() {
	awk '/^sysimgguid=/ { s = $0; sub(/.*=/, "", s) }
	     /^(switchguid|caguid)=/ { g = $0; sub(/.*=/, "", g); sub(/\(.*/, "", g); print g, s }' "$1" | sort
}

specs=(
	"fat 4,3 --aggregation-nodes"
	"fat 4,3 --spine-cas 3"
	"fat 4,3 --spine-cas 2:dual --aggregation-nodes"
	"fat 4,3 --director CS7500"
	"fat 2,4 --director CS8500@1 --aggregation-nodes"
	"oversub 4,8,2,2 --director CS8500 --loopbacks 2"
	"fat 4,3 --loopbacks 4 --seed 3"
	"fat 4,3 --hostless-leaves 3 --drop-hosts 2 --seed 5"
	"rails 2 pruned 8,3 --aggregation-nodes --spine-cas 2:dual"
	"fat 4,3 --aggregation-nodes --director CS7500 --spine-cas 2:dual --loopbacks 3 --hostless-leaves 2 --drop-switches 1 --drop-links 2@0 --seed 9"
	"gpu"
	"gpu 2 --drop-links 4 --drop-hosts 5 --loopbacks 2 --seed 2"
	"fat 4,2 --director CS7500:bypass --aggregation-nodes"
	"fat 4,3 --director CS8500:bypass --spine-cas 2:dual --loopbacks 2 --seed 4"
)
i=0
for spec in "${specs[@]}"; do
	i=$((i + 1))
	f=$tmp/f$i.topo
	# shellcheck disable=SC2086 # the spec is words
	"$gen" $spec -o "$f" || fail "$spec: vartree-gen failed"
	start "$f" "$i"
	lines=$(wc -l <"$f")
	deadline=$((SECONDS + 120)) # seconds, not steps: a loaded machine is slow
	while [ $SECONDS -lt $deadline ]; do
		grep -qx "$f: parsed $lines lines" "$tmp/out" && break
		sleep 0.05
	done
	grep -qx "$f: parsed $lines lines" "$tmp/out" || { cat "$tmp/out"; fail "$spec: not parsed whole"; }
	grep -qiE 'ibwarn|ibpanic' "$tmp/out" && { cat "$tmp/out"; fail "$spec: warnings"; }
	case $i in
	3 | 5 | 10 | 13)
		LD_PRELOAD=$umad2sim timeout 120 ibnetdiscover >"$tmp/disc" 2>"$tmp/disc.err" ||
			{ cat "$tmp/disc.err"; fail "$spec: ibnetdiscover failed"; }
		for t in Switch Ca; do
			want=$(grep -c "^$t" "$f")
			got=$(grep -c "^$t" "$tmp/disc")
			[ "$want" = "$got" ] || fail "$spec: $got $t records discovered, file has $want"
		done
		diff <(guids "$f") <(guids "$tmp/disc") || fail "$spec: node GUIDs or sysimgguids differ"
		an=$(grep -c '"Mellanox Technologies Aggregation Node"$' "$tmp/disc")
		case $spec in *aggregation*) [ "$an" -gt 0 ] || fail "$spec: no aggregation node discovered" ;; esac
		;;
	esac
	stop
done
echo "ibsim loaded $i generated real-shaped fabrics"
