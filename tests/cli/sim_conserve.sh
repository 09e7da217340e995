#!/usr/bin/env bash
# vartree-sim: bytes injected = bytes delivered = messages x size in every
# release mode, for sizes around the MTU, on one rail and on two (every rail
# choice); a one-packet b2b message was once sent twice (issue 14:
# shift:1 of 1000-byte messages on fat 4,3 delivered 128000 bytes); with
# packets padded on the wire (--pad, the navaridas preset) too.
set -u
s=$VT_BIN/vartree-sim
fail=0
check() { # want-messages size args...
	local n=$1 size=$2 out
	shift 2
	out=$("$s" -q --json --size "$size" "$@") || { echo "FAIL: $* exited $?"; fail=1; return; }
	local want=$((n * size))
	grep -q "\"messages\": $n, \"messages_done\": $n, \"bytes_injected\": $want, \"bytes_delivered\": $want, \"credit_violations\": 0" <<<"$out" ||
		{ echo "FAIL: $* --size $size: $(grep -o '"messages": [^l]*' <<<"$out" | head -1)"; fail=1; }
}
check 64 1000 --gen "fat 4,3" --pattern shift:1
for mode in b2b barrier causal burst; do
	for size in 1 1000 2047 2048 2049 4096 4097; do
		check 240 "$size" --gen "thin 2:1,4" --pattern shift:1-15 --mode "$mode"
	done
done
for rail in fixed random least; do
	for size in 2048 2049; do
		check 56 "$size" --gen "rails 2 fat 2,3" --pattern shift --rail "$rail" --mode b2b
	done
done
# padded packets (the navaridas preset pads to 64 bytes; --pad over a header)
# count their payload only
for size in 1 10 64 65 256 257 1000; do
	check 64 "$size" --gen "fat 4,3" --pattern shift:1 --preset navaridas --ar static
	check 64 "$size" --gen "fat 4,3" --pattern shift:1 --preset navaridas
done
check 240 2049 --gen "thin 2:1,4" --pattern shift:1-15 --mode causal --pad 100
echo "checked $((1 + 4 * 7 + 3 * 2 + 2 * 7 + 1)) runs"
exit $fail
