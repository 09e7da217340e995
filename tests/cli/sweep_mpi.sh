#!/usr/bin/env bash
# vartree-sweep: a tiny sweep run in one process, over 2 threads and as a
# 2-rank Open MPI job gives the same rows, every run once; rows agree with
# vartree-sim; spec errors; JSON intervals and phi; PDF plots.
set -u
sweep=$VT_BIN/vartree-sweep
sim=$VT_BIN/vartree-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# fontconfig keeps its caches for the process (cairo's text): not a leak of ours
printf 'leak:libfontconfig\nleak:FcConfig\n' >"$tmp/lsan.supp"
export LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/tiny.spec" <<'SPEC'
# 2 fabrics x 2 faults x 2 routings x 2 patterns x 2 sizes x 2 seeds = 64 runs
fabric = fat 4,2
fabric = thin 4:2,2
fault = none, drop-links=1@0
routing = static, packet
pattern = shift
pattern = open:uniform    # open loop: 5 us, measured from 1 us
size = 1024, 4K
seeds = 1, 2
duration = 5
warmup = 1
SPEC

"$sweep" -q "$tmp/tiny.spec" -o "$tmp/one.csv" --json "$tmp/one.json" || fail "one process"
[ "$(wc -l <"$tmp/one.csv")" -eq 65 ] || fail "rows: $(wc -l <"$tmp/one.csv")"
# every run once, in order, each combination once
python3 - "$tmp/one.csv" <<'PY' || fail "rows not every run once"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["run"]) for r in rows] == list(range(64))
keys = {(r["fabric"], r["fault"], r["routing"], r["pattern"], r["size"], r["seed"]) for r in rows}
assert len(keys) == 64
assert all(r["status"] == "ok" for r in rows)
# conservation: closed-loop shift delivers 16 hosts x 15 shifts x size
for r in rows:
    if r["pattern"] == "shift" and r["fault"] == "none":
        assert int(r["bytes_delivered"]) == 240 * int(r["size"]), r
PY
# a row is what vartree-sim gives for the same run
want=$("$sim" --gen "thin 4:2,2" --pattern shift --size 4096 --seed 2 --ar packet --json --quiet |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print("%.4f %d" % (r["total_us"], r["bytes_delivered"]))')
got=$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if (r["fabric"], r["fault"], r["routing"], r["pattern"], r["size"], r["seed"]) == ("thin 4:2,2", "none", "packet", "shift", "4096", "2"):
        print(r["total_us"], r["bytes_delivered"])' "$tmp/one.csv")
[ "$want" = "$got" ] || fail "sweep row '$got' differs from vartree-sim '$want'"
want=$("$sim" --gen "fat 4,2 drop-links=1@0" --open uniform --load 0.5 --duration 5 --warmup 1 \
	--size 1024 --seed 1 --json --quiet |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print("%.4f" % r["accepted"])')
got=$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if (r["fabric"], r["fault"], r["routing"], r["pattern"], r["size"], r["seed"]) == ("fat 4,2", "drop-links=1@0", "static", "open:uniform", "1024", "1"):
        print(r["accepted"])' "$tmp/one.csv")
[ "$want" = "$got" ] || fail "open-loop accepted '$got' differs from vartree-sim '$want'"

"$sweep" -q -j 2 "$tmp/tiny.spec" -o "$tmp/j2.csv" --json "$tmp/j2.json" || fail "-j 2"
cmp -s "$tmp/one.csv" "$tmp/j2.csv" || fail "-j 2 CSV differs"
cmp -s "$tmp/one.json" "$tmp/j2.json" || fail "-j 2 JSON differs"

# the same sweep as a 2-rank MPI job (Open MPI; as root it must be allowed explicitly)
command -v mpirun >/dev/null || fail "mpirun missing (scripts/install-deps installs openmpi-bin)"
if [ "$(id -u)" -eq 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Open MPI's own allocations outlive MPI_Finalize: no leak report for them
ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 mpirun -n 2 --oversubscribe \
	"$sweep" "$tmp/tiny.spec" -o "$tmp/mpi.csv" --json "$tmp/mpi.json" 2>"$tmp/mpi.err" ||
	fail "mpirun: $(cat "$tmp/mpi.err")"
grep -q '^vartree-sweep: 64 runs on 2 ranks x 1 thread, 0 failed or deadlocked$' "$tmp/mpi.err" ||
	fail "summary line: $(cat "$tmp/mpi.err")"
cmp -s "$tmp/one.csv" "$tmp/mpi.csv" || fail "MPI CSV differs"
cmp -s "$tmp/one.json" "$tmp/mpi.json" || fail "MPI JSON differs"

# JSON: intervals over the two seeds, phi against the first network
python3 - "$tmp/one.json" <<'PY' || fail "JSON figures"
import json, math, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert len(runs) == 64 and len(d["summary"]) == 32 and len(d["phi"]) == 8
s = d["summary"][0]
a, b = runs[0]["total_us"], runs[1]["total_us"]
assert s["seeds_ok"] == 2
assert abs(s["total_us"]["mean"] - (a + b) / 2) < 1e-5
sd = abs(a - b) / math.sqrt(2)
assert abs(s["total_us"]["ci95"] - 12.7062047361747 * sd / math.sqrt(2)) < 1e-5
p = d["phi"]
assert p[0]["phi"] == 1 and p[0]["relative_time_sum"] == 4
# phi of network 1 from the summary means, by hand
mean = {(x["fabric"], x["fault"], x["routing"], x["pattern"], x["size"]): x["total_us"]["mean"] for x in d["summary"]}
ref = [v for k, v in mean.items() if k[:3] == ("fat 4,2", "none", "static")]
oth = [v for k, v in mean.items() if k[:3] == ("thin 4:2,2", "none", "static")]
rel = sum(o / r for o, r in zip(oth, ref))
net = [x for x in p if (x["fabric"], x["fault"], x["routing"]) == ("thin 4:2,2", "none", "static")][0]
assert abs(net["relative_time_sum"] - rel) < 1e-3, (net, rel)
assert abs(net["phi"] - 4 / rel) < 1e-3
PY

# CSV and JSON give every figure with the same rounding (halves away from zero): fat 4,2
# costs $16050 for 16 hosts, 1003.125 a host, which printf alone rounds to 1003.12
python3 - "$tmp/one.csv" "$tmp/one.json" <<'PY' || fail "CSV and JSON figures differ"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = json.load(open(sys.argv[2]))["runs"]
dec = {"total_us": 4, "latency_mean_us": 4, "latency_p99_us": 4, "offered": 4,
       "accepted": 4, "cost_per_host": 2}
costs = {r["fabric"]: r["cost_per_host"] for r in rows if r["fault"] == "none"}
assert costs == {"fat 4,2": "1003.13", "thin 4:2,2": "521.63"}, costs
n = 0
for r, j in zip(rows, runs):
    for k, d in dec.items():
        if j[k] is not None:
            assert r[k] == "%.*f" % (d, j[k]), (k, r[k], j[k])
            n += 1
assert n == 64 * 6, n
PY

# plots: one PDF page per pattern
"$sweep" -q "$tmp/tiny.spec" -o /dev/null --plot "$tmp" --plot-format pdf || fail "plot"
for n in 1 2; do
	f=$tmp/sweep-pattern$n.pdf
	[ "$(head -c 5 "$f")" = "%PDF-" ] || fail "$f is not a PDF"
	[ "$(grep -ac '/Type /Page\b' "$f")" -eq 1 ] || fail "$f: pages"
done

# errors: file and line, exit 2, no output
printf 'fabric = fat 4,2\nsize = 1x\n' >"$tmp/bad.spec"
msg=$("$sweep" "$tmp/bad.spec" -o "$tmp/bad.csv" 2>&1)
[ $? -eq 2 ] || fail "bad size: rc"
[ "$msg" = "vartree-sweep: $tmp/bad.spec:2: size: '1x' is not an integer (1..1G)" ] || fail "msg: $msg"
[ ! -e "$tmp/bad.csv" ] || fail "output written on error"
printf 'fabric = fat 4,2\ncolour = red\n' >"$tmp/bad.spec"
msg=$("$sweep" "$tmp/bad.spec" 2>&1)
[ "$msg" = "vartree-sweep: $tmp/bad.spec:2: unknown key 'colour'" ] || fail "msg: $msg"
printf 'fabric = fat 4,2\nrouting = minhop\n' >"$tmp/bad.spec"
msg=$("$sweep" "$tmp/bad.spec" 2>&1)
[ "$msg" = "vartree-sweep: $tmp/bad.spec:2: routing 'minhop' is not one of static, packet or flow" ] ||
	fail "msg: $msg"
msg=$("$sweep" 2>&1)
[ $? -eq 2 ] || fail "no spec: rc"
exit 0
