#!/usr/bin/env bash
# vartree-sim --job: several jobs at once (Wolfe et al.). A pattern as one job
# over every host gives the --pattern result exactly; per-job messages and
# bytes are exact (local shared-memory copies apart) and conserved; each
# placement scheme picks the nodes it documents on fat 2,3 (4 leaves of 2
# hosts), the random ones the same for a seed; collectives have their
# algorithms' message counts, and the pipelined ring broadcast gains from its
# segments; rooted collectives equal rank 0's on rotated ranks; compute time
# between phases adds exactly once per phase boundary; --jobs FILE equals
# the same --job options, and its errors name file and line.
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
c:8:order:1K:gather 7 12288
c:8:order:1K:scatter@3 7 12288
c:6:order:1K:gather@5 5 7168
c:6:order:1K:scatter 5 7168
c:8:order:1K:bcast@7 7 7168
COLL
t() { "$s" -q --json --gen "fat 2,3" --job "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["total_us"])'; }
one=$(t r:8:order:256K:ring-bcast:1) sixteen=$(t r:8:order:256K:ring-bcast:16)
python3 -c "import sys; sys.exit(0 if $sixteen < 0.4 * $one else 1)" ||
	bad "ring-bcast 256K on 8 ranks: 16 segments ${sixteen}us, 1 segment ${one}us"
echo "ring-bcast 256K over 8 ranks: 1 segment ${one} us, 16 segments ${sixteen} us"

# 5. a root: NAME@R on a job equals NAME from rank 0 on the same nodes with the ranks
# rotated by R (the host order from H-0005 on), to the picosecond; not the same as @0
key2='import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["total_us"], r["messages_done"], r["bytes_delivered"], r["latency_us"]["p99"])'
printf 'H-%04d\n' 5 6 7 0 1 2 3 4 >"$tmp/rot5.order"
while read -r rooted plain exact; do
	a=$("$s" -q --json --gen "fat 2,3" --job "c:8:order:1K:$rooted" | python3 -c "$key2")
	b=$("$s" -q --json --gen "fat 2,3" --order "$tmp/rot5.order" --job "c:8:order:1K:$plain" |
		python3 -c "$key2")
	z=$("$s" -q --json --gen "fat 2,3" --job "c:8:order:1K:$plain" | python3 -c "$key2")
	echo "$rooted: $a; $plain rotated: $b; unrotated: $z"
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$z" ] && [ -z "$exact" -o "$a" = "$exact" ] ||
		bad "$rooted: '$a' rotated '$b' root 0 '$z' want '$exact'"
done <<'ROOTS'
bcast@5 bcast 2.1675 7 7168 1.1075
reduce@5 reduce
gather@5 gather 3.198 7 12288 1.567
scatter@5 scatter
ring-bcast@5:4 ring-bcast:4
ROOTS

# 6. compute between phases: each of a pattern's 7 - 1 stage boundaries (shift on 8
# ranks) and each of --reps 3's 2 boundaries adds exactly the compute time; no
# byte or message changes; +0us is no compute
ct() { "$s" -q --json --gen "fat 2,3" "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; j=r["jobs"][0]; print(r["total_us"], r["messages_done"], r["bytes_injected"], r["bytes_delivered"], "%g" % j["compute_us"])'; }
for mode in b2b causal burst; do
	z=$(ct --mode $mode --job c:8:order:1K:shift) zero=$z
	[ $mode = b2b ] && zero=$(ct --mode $mode --job c:8:order:1K:shift+0us)
	five=$(ct --mode $mode --job c:8:order:1K:shift+5us) ten=$(ct --mode $mode --job c:8:order:1K:shift+0.01ms)
	echo "shift $mode: none $z; +0us $zero; +5us $five; +0.01ms $ten"
	[ "${z% *}" = "${zero% *}" ] || bad "$mode: +0us changes the run: '$z' '$zero'"
	[ $mode != b2b ] || [ "$five" = "30.7925 56 57344 57344 5" ] || bad "shift+5us figures: '$five'"
	python3 - "$z" "$five" "$ten" <<'PY' || bad "$mode: compute time not added once per stage boundary"
import sys
z, f, t = (x.split() for x in sys.argv[1:])
assert z[1:4] == f[1:4] == t[1:4] == ["56", "57344", "57344"], (z, f, t)
assert (f[4], t[4]) == ("5", "10"), (f, t)
assert abs(float(t[0]) - float(f[0]) - 6 * 5) < 1e-9, (f, t)
assert float(f[0]) > 6 * 5, (z, f)
PY
done
a=$(ct --reps 3 --job c:8:order:1K:allreduce) b=$(ct --reps 3 --job c:8:order:1K:allreduce+2.5us)
echo "allreduce --reps 3: none $a; +2.5us $b"
[ "$a" = "5.2425 72 73728 73728 0" ] && [ "$b" = "10.2425 72 73728 73728 2.5" ] || bad "allreduce compute: '$a' '$b'"

# 7. --jobs FILE: the four jobs of 2. from a file (comments, blank lines, blanks)
# give the same JSON; --job and --jobs place in command-line order
cat >"$tmp/four.jobs" <<'JOBS'
# Wolfe-style mix
A:4x2:contiguous:4K:all2all   # two ranks a node
	B:3:random:1K:ring-allgather

C:2:rr-leaves:64K:ring-bcast:4
D:2x2:random-leaves:-:barrier
JOBS
"$s" -q --json --gen "fat 2,3" --jobs "$tmp/four.jobs" >"$tmp/four-file.json" || bad "--jobs exited $?"
cmp -s "$tmp/four.json" "$tmp/four-file.json" || bad "--jobs FILE differs from the same --job options"
sed -n 2p "$tmp/four.jobs" >"$tmp/a.jobs"
got=$(nodes --gen "fat 2,3" --job Z:2:contiguous:1K:shift --jobs "$tmp/a.jobs")
[ "$got" = "H-0000,H-0001 H-0002,H-0003" ] || bad "--job then --jobs: '$got'"

# 8. refusals, exit 2
while IFS='|' read -r want args; do
	err=$(eval "\"\$s\" -q --gen 'fat 2,3' $args" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" <<<"$err" || bad "$args: rc $rc '$err'"
done <<'ERRS'
placement: contiguous, random|--job A:2:nowhere:1K:shift
job A: needs 9 nodes, 8 of 8 are free|--job A:9:random:1K:shift
two jobs named A|--job A:2:random:1K:shift --job A:2:random:1K:shift
exclude each other|--job A:2:random:1K:shift --pattern shift
allreduce has no root|--job A:4:order:1K:allreduce@1
'@ROOT' follows no collective|--job A:4:order:1K:shift@1
bcast@ROOT: ROOT a rank of the job (0, 1, ...)|--job A:4:order:1K:bcast@x
job A: root 4 is not one of its 4 ranks|--job A:4:order:1K:bcast@4
compute time '5': a number with ns, us, ms or s, up to 1s|--job A:4:order:1K:shift+5
compute time '2s'|--job A:4:order:1K:shift+2s
--mode barrier: jobs release per rank|--job A:2:random:1K:shift --mode barrier
want NAME:RANKS[xPPN]:PLACEMENT:SIZE:WORKLOAD|--job A:2:random
size: at least 1 byte ('-' is for barrier and trace only)|--job A:2:random:-:shift
size: at least 1 byte|--job A:2:random:0:shift
unknown|--job A:4:order:1K:nosuchpattern
ERRS
# --jobs errors name the file and line
jerr() { # want, file lines...
	local want=$1
	shift
	printf '%s\n' "$@" >"$tmp/bad.jobs"
	err=$("$s" -q --gen "fat 2,3" --jobs "$tmp/bad.jobs" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$err" = "vartree-sim: $tmp/bad.jobs$want" ] || bad "--jobs: rc $rc '$err'"
}
jerr ":3: job 'B:2:nowhere:1K:shift': placement: contiguous, random, random-leaves, rr-leaves or order" \
	A:2:order:1K:shift "# comment" B:2:nowhere:1K:shift
jerr ":2: two jobs named A" A:2:order:1K:shift A:2:order:1K:shift
jerr ":2: job B: needs 9 nodes, 6 of 8 are free" A:2:order:1K:shift B:9:order:1K:shift
jerr ":2: job B: root 4 is not one of its 4 ranks" A:2:order:1K:shift B:4:order:1K:bcast@4
jerr ": no jobs" "# nothing" ""
err=$("$s" -q --gen "fat 2,3" --jobs "$tmp/missing.jobs" 2>&1)
[ $? = 2 ] && [ "$err" = "vartree-sim: $tmp/missing.jobs: cannot open: No such file or directory" ] ||
	bad "missing --jobs file: '$err'"
exit $fail
