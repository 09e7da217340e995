#!/usr/bin/env bash
# Regenerates the loader fixtures captured from ibsim: for each NAME.net here,
# NAME-nosm.ibnd (ibnetdiscover before any SM ran: the enables of the net file),
# then after one OpenSM sweep NAME.ibnd, NAME-g.ibnd, NAME-f.ibnd, NAME-s.ibnd and
# NAME.cache (ibnetdiscover --cache of that same sweep). Usage: load-capture.sh NAME...
set -eu
cd "$(dirname "$0")"
pre=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
for name in "$@"; do
	export IBSIM_SOCKNAME=vt-$$-$name
	ibsim -n -s "$name.net" >"$tmp/ibsim.log" 2>&1 &
	pid=$!
	sleep 1
	LD_PRELOAD=$pre ibnetdiscover >"$name-nosm.ibnd"
	LD_PRELOAD=$pre opensm -o -f "$tmp/opensm.log" >/dev/null 2>&1 || true
	LD_PRELOAD=$pre ibnetdiscover >"$name.ibnd"
	LD_PRELOAD=$pre ibnetdiscover -g >"$name-g.ibnd"
	LD_PRELOAD=$pre ibnetdiscover -f >"$name-f.ibnd"
	LD_PRELOAD=$pre ibnetdiscover -s >"$name-s.ibnd"
	rm -f "$name.cache"
	LD_PRELOAD=$pre ibnetdiscover --cache "$name.cache" >"$tmp/cache.ibnd"
	# the cache and NAME.ibnd must come from the same state of the fabric
	diff <(grep -v '^#' "$tmp/cache.ibnd") <(grep -v '^#' "$name.ibnd")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
done
