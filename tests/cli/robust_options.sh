#!/usr/bin/env bash
# Option values that used to be misread: --size with a G suffix ("not a number"),
# rates below 0.001 Gb/s (silently unlimited), large bounds printed digit by digit.
. "$(dirname "$0")/robust_lib.bash"
s=$VT_BIN/vartree-sim

# 1G is accepted: the refusal is the next option's
expect 2 "vartree-sim: --sl: '16' is not an integer (0..15)" "$s" --gen "fat 2,2" --size 1G --sl 16
expect 2 "vartree-sim: --size: '2G' is not an integer (1..1G)" "$s" --gen "fat 2,2" --size 2G
expect 2 "vartree-sim: --size: '1T' is not an integer (1..1G)" "$s" --gen "fat 2,2" --size 1T
expect 2 "vartree-sim: --gen-gbps: '0.0001' is below 0.001 Gb/s (0 means no limit)" \
	"$s" --gen "fat 2,2" --gen-gbps 0.0001
expect 2 "vartree-sim: --sink-gbps: '1e-9' is below 0.001 Gb/s (0 means no limit)" \
	"$s" --gen "fat 2,2" --sink-gbps 1e-9
expect 2 "vartree-sim: --reps: '0' is not an integer (1..1000000)" "$s" --gen "fat 2,2" --reps 0
finish
