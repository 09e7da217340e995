#!/usr/bin/env bash
# vartree-sim on a credit loop: four switches in a ring, one host each, every
# switch forwarding every remote LID clockwise (a hand-made cyclic LFT dump).
# Each route reaches its host, but with buffers of little more than one packet
# a burst of 2- and 3-hop messages fills the ring and no credit comes back:
# the run must say so and exit 1, a failed check (vartree-sim(1)), quickly, not hang.
set -u
s=$VT_BIN/vartree-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# ibnetdiscover view: switch i (LID i+1, GUID 0x10+i) port 1 -> host i (LID i+5),
# port 2 -> port 3 of switch (i+1) mod 4
for i in 0 1 2 3; do
	n=$(((i + 1) % 4)) p=$(((i + 3) % 4))
	printf 'switchguid=0x%x\nSwitch\t3 "S-%016x"\t\t# "ring-s%d" base port 0 lid %d lmc 0\n' \
		$((0x10 + i)) $((0x10 + i)) $i $((i + 1))
	printf '[1]\t"H-%016x"[1](%x)\t\t# "ring-h%d" lid %d 4xQDR\n' $((0x20 + i)) $((0x30 + i)) $i $((i + 5))
	printf '[2]\t"S-%016x"[3]\t\t# "ring-s%d" lid %d 4xQDR\n' $((0x10 + n)) $n $((n + 1))
	printf '[3]\t"S-%016x"[2]\t\t# "ring-s%d" lid %d 4xQDR\n\n' $((0x10 + p)) $p $((p + 1))
done >"$tmp/ring.ibnd"
for i in 0 1 2 3; do
	printf 'Ca\t1 "H-%016x"\t\t# "ring-h%d"\n' $((0x20 + i)) $i
	printf '[1](%x)\t"S-%016x"[1]\t\t# lid %d lmc 0 "ring-s%d" lid %d 4xQDR\n\n' \
		$((0x30 + i)) $((0x10 + i)) $((i + 5)) $i $((i + 1))
done >>"$tmp/ring.ibnd"
# OpenSM lfts dump: own switch LID port 0, own host port 1, everything else port 2
for i in 0 1 2 3; do
	printf "Unicast lids [0-8] of switch Lid %d guid 0x%016x ('ring-s%d'):\n" $((i + 1)) $((0x10 + i)) $i
	for l in 1 2 3 4 5 6 7 8; do
		if [ $l -eq $((i + 1)) ]; then o=0; elif [ $l -eq $((i + 5)) ]; then o=1; else o=2; fi
		printf '0x%04x %03d # lid %d\n' $l $o $l
	done
	echo "8 lids dumped"
done >"$tmp/ring.lfts"
printf 'ring-h0\nring-h1\nring-h2\nring-h3\n' >"$tmp/order"
run() {
	timeout 60 "$s" -q --lfts "$tmp/ring.lfts" --order "$tmp/order" --mode burst --size 64K \
		--buffer 40 "$@" "$tmp/ring.ibnd" >"$tmp/out" 2>"$tmp/err"
}
t0=$(date +%s)
run --pattern shift
rc=$? t=$(($(date +%s) - t0))
echo "cyclic LFT, shift burst: exit $rc in ${t}s"
cat "$tmp/out" "$tmp/err"
[ $rc -eq 1 ] || { echo "FAIL: exit $rc, want 1"; fail=1; }
grep -q 'DEADLOCK' "$tmp/out" || { echo "FAIL: no DEADLOCK in the table"; fail=1; }
grep -Eq '^vartree-sim: .*ring.lfts: credit deadlock: [1-9][0-9]* packets stuck, [0-9]+ of 12 messages done' "$tmp/err" ||
	{ echo "FAIL: stderr"; fail=1; }
[ $t -le 20 ] || { echo "FAIL: took ${t}s"; fail=1; }
# JSON says the same, and credits never went wrong on the way
run --pattern shift --json
[ $? -eq 1 ] && grep -q '"deadlock": true, "stuck_packets": [1-9]' "$tmp/out" &&
	grep -q '"credit_violations": 0' "$tmp/out" || { echo "FAIL: json: $(cat "$tmp/out")"; fail=1; }
# the same tables without the wait cycle: shift 1 is one ring hop, it drains
run --pattern shift:1-1
[ $? -eq 0 ] && grep -q ': 4/4 messages, 262144 bytes delivered of 262144' "$tmp/out" ||
	{ echo "FAIL: shift 1: $(cat "$tmp/out" "$tmp/err")"; fail=1; }
exit $fail
