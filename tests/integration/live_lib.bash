# Sourced by tests/integration/live_*.sh: one ibsim on its own socket, OpenSM
# run once over it, and the live_capture driver (build/tests/live_capture).
. "$VT_TOP/tests/integration/umad2sim.bash"
cap=$VT_TOP/build/tests/live_capture
skip() {
	echo "$1"
	exit 77
}
for x in ibsim opensm dump_fts; do
	command -v $x >/dev/null || skip "$x is not installed"
done
[ -r "$umad2sim" ] || skip "libumad2sim.so is not installed"
[ -x "$cap" ] || skip "build/tests/live_capture is not built (make unit)"

tmp=$(mktemp -d /tmp/vt-live.XXXXXX)
sim=
cleanup() {
	[ -n "$sim" ] && kill $sim 2>/dev/null && wait $sim 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export IBSIM_SOCKNAME=vt-$$-live
# OpenSM's guid2lid cache is shared by every run on the machine: keep ours private
export OSM_CACHE_DIR=$tmp/cache
mkdir -p "$OSM_CACHE_DIR"

start_sim() { # NETFILE [ibsim options]
	local net=$1
	shift
	ibsim -n "$@" -s "$net" >"$tmp/ibsim.log" 2>&1 &
	sim=$!
	local deadline=$((SECONDS + 120)) # a deadline in seconds, not steps: a loaded machine is slow
	while [ $SECONDS -lt $deadline ]; do
		grep -q "simulator ready" "$tmp/ibsim.log" && return 0
		kill -0 $sim 2>/dev/null || break
		sleep 0.1
	done
	tail "$tmp/ibsim.log"
	echo "ibsim did not start"
	exit 1
}

run_opensm() { # OUTDIR [opensm options]; OpenSM's dumps land in OUTDIR
	local out=$1
	shift
	mkdir -p "$out"
	printf 'dump_files_dir %s\n' "$out" >"$tmp/osm.conf"
	if ! LD_PRELOAD=$umad2sim timeout 120 opensm -o -F "$tmp/osm.conf" -f "$out/osm.log" \
		-D 0x43 "$@" >"$out/osm.out" 2>&1; then
		tail "$out/osm.log"
		echo "opensm failed"
		exit 1
	fi
	[ -s "$out/opensm-lfts.dump" ] || { echo "opensm wrote no opensm-lfts.dump"; exit 1; }
}

capture() { # OUTFILE
	LD_PRELOAD=$umad2sim "$cap" - 0 "$1" || { echo "live_capture failed"; exit 1; }
}

same() { # WANT GOT
	if ! diff -u "$1" "$2" | head -20; then :; fi
	cmp -s "$1" "$2" || { echo "$2 differs from $1"; exit 1; }
}
