#!/usr/bin/env bash
# vartree-sim --job: several jobs at once (Wolfe et al.). A pattern as one job
# over every host gives the --pattern result exactly; per-job messages and
# bytes are exact (local shared-memory copies apart) and conserved; each
# placement scheme picks the nodes it documents on fat 2,3 (4 leaves of 2
# hosts), the random ones the same for a seed; collectives have their
# algorithms' message counts, and the pipelined ring broadcast gains from its
# segments.
set -u
s=$VT_BIN/vartree-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. one job over every host = the pattern, to the picosecond, in every per-rank mode
key='import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["total_us"], r["messages_done"], r["bytes_delivered"], r["hops"], r["latency_us"]["p99"], r["stage_end_us"][-1])'
for mode in b2b causal burst; do
	for p in shift butterfly bisection:count=3 all2all; do
		a=$("$s" -q --json --gen "fat 4,3" --mode $mode --size 3000 --pattern "$p" | python3 -c "$key")
		b=$("$s" -q --json --gen "fat 4,3" --mode $mode --job "x:all:order:3000:$p" | python3 -c "$key")
		[ -n "$a" ] && [ "$a" = "$b" ] || bad "$mode $p: pattern '$a' job '$b'"
	done
done

# 2. exact bytes per job and conservation (4 jobs on the 8 hosts of fat 2,3)
"$s" -q --json --gen "fat 2,3" --job A:4x2:contiguous:4K:all2all --job B:3:random:1K:ring-allgather \
	--job C:2:rr-leaves:64K:ring-bcast:4 --job D:2x2:random-leaves:-:barrier >"$tmp/four.json" ||
	bad "four jobs exited $?"
python3 - "$tmp/four.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
want = {"A": (12, 32768, 16384, 4), "B": (6, 6144, 0, 0), "C": (4, 65536, 0, 0),
        "D": (2, 0, 0, 2), "(all)": (24, 104448, 16384, 6)}
ok = True
for j in r["jobs"]:
    got = (j["messages"], j["bytes"], j["bytes_local"], j["messages_local"])
    if got != want[j["job"]]:
        print("FAIL: job", j["job"], got, "want", want[j["job"]]); ok = False
    b = j["bw_gbps"]
    if not b["min"] <= b["avg"] <= b["max"]:
        print("FAIL: job", j["job"], "bandwidth", b); ok = False
if (r["messages"], r["messages_done"], r["bytes_injected"], r["bytes_delivered"],
        r["bytes_local"], r["messages_local"], r["credit_violations"]) != (24, 24, 104448, 104448, 16384, 6, 0):
    print("FAIL: run totals", r["messages_done"], r["bytes_injected"], r["bytes_delivered"]); ok = False
if sum(n["bytes"] for n in r["nodes"]) != 104448 or len(r["nodes"]) != 8:
    print("FAIL: node bytes", [n["bytes"] for n in r["nodes"]]); ok = False
if [j["nodes"] for j in r["jobs"][:4]] != [["H-0000", "H-0001"], ["H-0005", "H-0007", "H-0006"],
                                            ["H-0002", "H-0004"], ["H-0003"]]:
    print("FAIL: placement", [j["nodes"] for j in r["jobs"][:4]]); ok = False
sys.exit(0 if ok else 1)
PY

# 3. placements: job A (3 nodes) then B (2) by each scheme
nodes() { "$s" -q --json "$@" | python3 -c 'import json,sys; print(" ".join(",".join(j["nodes"]) for j in json.load(sys.stdin)["runs"][0]["jobs"][:-1]))'; }
printf 'H-%04d\n' 7 6 5 4 3 2 1 0 >"$tmp/rev.order"
while read -r place seed want; do
	got=$(nodes --gen "fat 2,3" --seed "$seed" --order "$tmp/rev.order" \
		--job "A:3:$place:1K:shift" --job "B:2:$place:1K:shift")
	[ "$got" = "$want" ] || bad "placement $place seed $seed: '$got', want '$want'"
done <<'PLACES'
contiguous 1 H-0000,H-0001,H-0002 H-0003,H-0004
order 1 H-0007,H-0006,H-0005 H-0004,H-0003
rr-leaves 1 H-0000,H-0002,H-0004 H-0001,H-0003
random-leaves 1 H-0004,H-0005,H-0000 H-0002,H-0003
random-leaves 2 H-0000,H-0001,H-0004 H-0006,H-0007
random 1 H-0007,H-0000,H-0001 H-0002,H-0004
random 2 H-0001,H-0002,H-0004 H-0000,H-0006
PLACES
got=$(nodes --gen "fat 2,3" --job A:5x2:contiguous:1K:shift --job B:all:rr-leaves:1K:shift)
[ "$got" = "H-0000,H-0001,H-0002 H-0003,H-0004,H-0006,H-0005,H-0007" ] || bad "ppn/all: '$got'"

# 4. collectives: messages of their algorithms; pipelining pays
msgs() { "$s" -q --json --gen "fat 2,3" --job "$1" | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["messages_done"], r["bytes_delivered"] + r["bytes_local"])'; }
while read -r job want; do
	got=$(msgs "$job")
	[ "$got" = "$want" ] || bad "$job: '$got', want '$want'"
done <<'COLL'
c:8:order:1K:allreduce 24 24576
c:6:order:1K:allreduce 10 10240
c:8:order:1K:bcast 7 7168
c:8:order:1K:reduce 7 7168
c:5:order:-:barrier 15 0
c:4:order:1K:alltoall 12 12288
c:8:order:1K:ring-allgather 56 57344
c:8:order:1000:ring-bcast:3 21 7000
COLL
t() { "$s" -q --json --gen "fat 2,3" --job "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["total_us"])'; }
one=$(t r:8:order:256K:ring-bcast:1) sixteen=$(t r:8:order:256K:ring-bcast:16)
python3 -c "import sys; sys.exit(0 if $sixteen < 0.4 * $one else 1)" ||
	bad "ring-bcast 256K on 8 ranks: 16 segments ${sixteen}us, 1 segment ${one}us"
echo "ring-bcast 256K over 8 ranks: 1 segment ${one} us, 16 segments ${sixteen} us"

# 5. refusals, exit 2
while IFS='|' read -r want args; do
	err=$(eval "\"\$s\" -q --gen 'fat 2,3' $args" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" <<<"$err" || bad "$args: rc $rc '$err'"
done <<'ERRS'
placement: contiguous, random|--job A:2:nowhere:1K:shift
job A: needs 9 nodes, 8 of 8 are free|--job A:9:random:1K:shift
two jobs named A|--job A:2:random:1K:shift --job A:2:random:1K:shift
exclude each other|--job A:2:random:1K:shift --pattern shift
--mode barrier: jobs release per rank|--job A:2:random:1K:shift --mode barrier
want NAME:RANKS[xPPN]:PLACEMENT:SIZE:WORKLOAD|--job A:2:random
size: at least 1 byte ('-' is for barrier and trace only)|--job A:2:random:-:shift
size: at least 1 byte|--job A:2:random:0:shift
unknown|--job A:4:order:1K:nosuchpattern
ERRS
exit $fail
