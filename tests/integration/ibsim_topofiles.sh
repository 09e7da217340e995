#!/usr/bin/env bash
# ibsim loads every file of topofiles/: each with its own socket and node limits,
# parsed to the last line with no warning; on three small ones an ibnetdiscover
# through libumad2sim finds exactly the file's nodes with the file's GUIDs.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
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

# starts ibsim on $1 with limits from the file; waits until it is ready
start() {
	local f=$1 nodes sws ports
	nodes=$(grep -cE '^(Switch|Ca|Rt)' "$f")
	sws=$(grep -c '^Switch' "$f")
	ports=$(awk '/^(Switch|Ca|Rt)/ { p += $2 + 1 } END { print p + 64 }' "$f")
	export IBSIM_SOCKNAME=vt-$$-$(basename "$f" .topo | tr -c 'a-z0-9\n' - | cut -c1-40)
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

# the records of plane 0 (all records of a single-plane file)
plane0() {
	if grep -q '# "P0-' "$1"; then
		grep -v -e '^switchguid=0x2c951' -e '^Switch.*"P1-' "$1"
	else
		cat "$1"
	fi
}

stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

n=0
for f in "$top"/topofiles/*.topo; do
	start "$f"
	lines=$(wc -l <"$f")
	# under load the parse line can land after the ready line: give it time
	deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $deadline ]; do
		grep -qx "$f: parsed $lines lines" "$tmp/out" && break
		sleep 0.05
	done
	grep -qx "$f: parsed $lines lines" "$tmp/out" || { cat "$tmp/out"; fail "$f: not parsed whole"; }
	grep -qiE 'ibwarn|ibpanic' "$tmp/out" && { cat "$tmp/out"; fail "$f: warnings"; }
	case $(basename "$f") in
	zahavi-4ary3-merged.topo | matsuoka-clique-8.topo | wolfe-rails2-pruned-8-3.topo)
		LD_PRELOAD=$umad2sim timeout 60 ibnetdiscover >"$tmp/disc" 2>"$tmp/disc.err" ||
			{ cat "$tmp/disc.err"; fail "$f: ibnetdiscover failed"; }
		# planes are independent: discovery from plane 0 sees its switches and CA port 1
		for t in Switch Ca; do
			want=$(plane0 "$f" | grep -c "^$t")
			got=$(grep -c "^$t" "$tmp/disc")
			[ "$want" = "$got" ] || fail "$f: $got $t records discovered, file has $want"
		done
		# same node GUIDs: ibsim honours the switchguid=/caguid= lines
		diff <(plane0 "$f" | grep -oE '^(switchguid|caguid)=0x[0-9a-f]+' | sort) \
			<(grep -oE '^(switchguid|caguid)=0x[0-9a-f]+' "$tmp/disc" | sort) ||
			fail "$f: GUIDs differ"
		# same links, port GUIDs and LIDs: port-1 lines of the CAs match exactly
		diff <(grep -E '^\[1\]\(' "$f" | sort) <(grep -E '^\[1\]\(' "$tmp/disc" | sort) ||
			fail "$f: CA port lines differ"
		;;
	esac
	stop
	n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n files"
echo "ibsim loaded $n files"
