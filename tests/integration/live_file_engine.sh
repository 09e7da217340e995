#!/usr/bin/env bash
# OpenSM's `file` routing engine loads what vt_lfts_write writes: tables
# that differ from min-hop's (the two Switch1-Switch2 trunks swapped), read
# with vt_lfts_read and written with vt_lfts_write, are loaded by
# `opensm -R file -U`, which then dumps them unchanged and programs them
# into the switches (read back live).
set -u
. "$VT_TOP/tests/integration/live_lib.bash"

start_sim /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
run_opensm "$tmp/minhop"
sed -E 's/^(0x[0-9a-f]{4}) 003 /\1 SWAP /; s/^(0x[0-9a-f]{4}) 005 /\1 003 /; s/ SWAP / 005 /' \
	"$tmp/minhop/opensm-lfts.dump" >"$tmp/swapped.dump"
cmp -s "$tmp/minhop/opensm-lfts.dump" "$tmp/swapped.dump" && { echo "nothing swapped"; exit 1; }
LD_PRELOAD=$umad2sim "$cap" - 0 "$tmp/ours.dump" "$tmp/swapped.dump" || { echo "rewrite failed"; exit 1; }
same "$tmp/swapped.dump" "$tmp/ours.dump"

run_opensm "$tmp/file" -R file -U "$tmp/ours.dump"
grep -q "file tables configured on all switches" "$tmp/file/osm.log" ||
	{ echo "OpenSM did not route with the file engine"; exit 1; }
same "$tmp/ours.dump" "$tmp/file/opensm-lfts.dump"
capture "$tmp/live.dump"
same "$tmp/ours.dump" "$tmp/live.dump"
echo "OpenSM's file engine loaded our tables and programmed them"
