#!/usr/bin/env bash
# vt_live on a bigger fabric: a 2-level tree of 32 leaves and 16 spines with
# 512 hosts (560 LIDs, 9 LFT blocks a switch), byte for byte OpenSM's dump.
set -u
. "$VT_TOP/tests/integration/live_lib.bash"

L=32 S=16 H=16
net=$tmp/big.net
{
	for l in $(seq 0 $((L - 1))); do
		printf 'Switch %d "leaf%d"\n' $((H + S)) $l
		for h in $(seq 1 $H); do printf '[%d] "h%d_%d"[1]\n' $h $l $h; done
		for s in $(seq 0 $((S - 1))); do printf '[%d] "spine%d"[%d]\n' $((H + 1 + s)) $s $((l + 1)); done
		echo
	done
	for s in $(seq 0 $((S - 1))); do
		printf 'Switch %d "spine%d"\n' $L $s
		for l in $(seq 0 $((L - 1))); do printf '[%d] "leaf%d"[%d]\n' $((l + 1)) $l $((H + 1 + s)); done
		echo
	done
	for l in $(seq 0 $((L - 1))); do
		for h in $(seq 1 $H); do printf 'Hca 1 "h%d_%d"\n[1] "leaf%d"[%d]\n\n' $l $h $l $h; done
	done
} >"$net"

start_sim "$net"
run_opensm "$tmp/osm"
capture "$tmp/live.lfts"
same "$tmp/osm/opensm-lfts.dump" "$tmp/live.lfts"
[ "$(grep -c '^Unicast lids \[0-560\]' "$tmp/live.lfts")" = 48 ] || { echo "expected 48 switches, top LID 560"; exit 1; }
[ "$(grep -c '^0x' "$tmp/live.lfts")" = $((48 * 560)) ] || { echo "expected every LID routed on every switch"; exit 1; }
echo "560-LID fabric: live capture matches OpenSM's dump"
