#!/usr/bin/env bash
# vartree-sim --warmup and --seeds: the measurement window of open loop, and
# mean with a Student's t 95 % interval over seeds.
set -u
sim=$VT_BIN/vartree-sim
fail() { echo "FAIL: $*"; exit 1; }
run() { "$sim" --gen "fat 4,3" --open uniform --load 0.5 --duration 20 --size 2048 --quiet "$@"; }
field() { # json key...
	python3 -c 'import json,sys
d=json.load(sys.stdin)
for k in sys.argv[1:]:
    d=d[int(k)] if k.isdigit() else d[k]
print(repr(d))' "$@"
}

# the warm-up changes what is measured, not what is simulated
a=$(run --json) || fail "run"
b=$(run --json --warmup 5) || fail "warmup run"
for k in total_us messages bytes_delivered events; do
	[ "$(field runs 0 $k <<<"$a")" = "$(field runs 0 $k <<<"$b")" ] || fail "$k differs with --warmup"
done
[ "$(field work warmup_us <<<"$b")" = 5.0 ] || fail "warmup_us in JSON"
[ "$(field runs 0 accepted <<<"$a")" != "$(field runs 0 accepted <<<"$b")" ] ||
	fail "accepted unchanged by the window"
c=$(run --json --warmup 0) || fail "warmup 0"
[ "$a" = "$c" ] || fail "--warmup 0 differs from no warm-up"
# messages posted before the window stay out of the latency figures: the minimum can only grow
python3 - "$a" "$b" <<'PY' || fail "latency window"
import json, sys
a, b = (json.loads(x)["runs"][0]["latency_us"] for x in sys.argv[1:3])
assert b["min"] >= a["min"] and b["max"] <= a["max"], (a, b)
PY

# --seeds 3,9: each value is that seed's own run; mean, sd and t(0.975, 1) interval
s=$(run --json --warmup 5 --seeds 3,9) || fail "seeds run"
t3=$(run --json --warmup 5 --seed 3 | field runs 0 total_us)
t9=$(run --json --warmup 5 --seed 9 | field runs 0 total_us)
python3 - "$s" "$t3" "$t9" <<'PY' || fail "seeds arithmetic: $s"
import json, math, sys
d = json.loads(sys.argv[1])["runs"][0]["over_seeds"]
assert d["seeds"] == [3, 9], d["seeds"]
v = d["total_us"]["values"]
assert abs(v[0] - float(sys.argv[2])) < 1e-3 and abs(v[1] - float(sys.argv[3])) < 1e-3, v
m = (v[0] + v[1]) / 2
sd = abs(v[0] - v[1]) / math.sqrt(2)
assert abs(d["total_us"]["mean"] - m) < 1e-4 * m, d
assert abs(d["total_us"]["sd"] - sd) < 1e-4 * sd, d
assert abs(d["total_us"]["ci95"] - 12.7062047361747 * sd / math.sqrt(2)) < 1e-4 * d["total_us"]["ci95"], d
assert len(d["accepted"]["values"]) == 2 and len(d["latency_mean_us"]["values"]) == 2
PY
# the first seed is the run printed above it
[ "$(field runs 0 total_us <<<"$s")" = "$t3" ] || fail "main figures are not the first seed's"
# --seeds N: N seeds from --seed on, the same as the list
n=$(run --json --seed 4 --seeds 3 | field runs 0 over_seeds)
l=$(run --json --seeds 4,5,6 | field runs 0 over_seeds)
[ "$n" = "$l" ] || fail "--seeds 3 from seed 4 differs from 4,5,6"
# table form: one line per routing
run --seeds 3 | grep -q "^vartree: over 3 seeds (mean +- 95 % interval, Student's t), total us" ||
	fail "table line"

# errors: exit 2 with one line
msg=$("$sim" --gen "fat 4,3" --warmup 5 2>&1)
[ $? -eq 2 ] && [ "$msg" = "vartree-sim: --warmup needs --open. Try 'vartree-sim --help'." ] ||
	fail "warmup without open: $msg"
msg=$(run --warmup 20 2>&1)
[ $? -eq 2 ] && [ "$msg" = "vartree-sim: --warmup must end before --duration. Try 'vartree-sim --help'." ] ||
	fail "$msg"
msg=$(run --seeds 0 2>&1)
[ $? -eq 2 ] && [ "$msg" = "vartree-sim: --seeds: '0' is not an integer (1..256)" ] ||
	fail "--seeds 0: $msg"
msg=$(run --seeds 1,,2 2>&1)
[ $? -eq 2 ] || fail "--seeds 1,,2 accepted: $msg"
exit 0
