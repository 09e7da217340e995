#!/usr/bin/env bash
# vartree-sim --trace and --job NAME:...:-:trace:FILE: OTF2 traces written by
# tests/tools/otf2-write (libotf2's writer) replayed. Bytes and messages are
# what the writer added up; a traced alltoall equals the built-in alltoall job
# and a traced shift the causal shift pattern, to the picosecond;
# --trace-compute adds the 10 us of compute the trace holds on its one path;
# damaged, missing and too large traces are one-line errors with exit status 2.
set -u
s=$VT_BIN/vartree-sim
w=$VT_TOP/build/asan/tests/otf2-write
[ -x "$w" ] || { echo "no $w (make unit builds it)"; exit 1; }
# libotf2 leaks when it cannot open a damaged anchor file (suppressed in
# vt_load_cache.c); the suppression summary is the sanitizer's, not the command's
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}print_suppressions=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

want=$("$w" "$tmp" mix 16) || bad "otf2-write mix exited $?"
"$w" "$tmp" alltoall 16 && "$w" "$tmp" shift 16 || bad "otf2-write exited $?"
mix=$tmp/mix/mix.otf2
read -r _ wbytes _ wmsgs <<<"$want"

# 1. conservation: messages and bytes as written, injected = delivered
key='import json,sys; r=json.load(sys.stdin)["runs"][0]; print("bytes", r["bytes_injected"], r["bytes_delivered"], "messages", r["messages"], r["messages_done"], r["deadlock"])'
got=$("$s" -q --json --gen "fat 4,2" --trace "$mix" | python3 -c "$key")
[ "$got" = "bytes $wbytes $wbytes messages $wmsgs $wmsgs False" ] || bad "mix: '$got', written '$want'"

# 2. a traced alltoall is the alltoall job; a traced shift the causal shift pattern
key='import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["total_us"], r["messages_done"], r["bytes_delivered"], r["hops"], r["latency_us"]["p99"])'
a=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/alltoall/alltoall.otf2" | python3 -c "$key")
b=$("$s" -q --json --gen "fat 4,2" --job x:16:order:4096:alltoall | python3 -c "$key")
[ -n "$a" ] && [ "$a" = "$b" ] || bad "alltoall: trace '$a' job '$b'"
[ "$(cut -d' ' -f3 <<<"$a")" = $((16 * 15 * 4096)) ] || bad "alltoall bytes: $a"
a=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/shift/shift.otf2" | python3 -c "$key")
b=$("$s" -q --json --gen "fat 4,2" --pattern shift --mode causal --size 4096 | python3 -c "$key")
[ -n "$a" ] && [ "$a" = "$b" ] || bad "shift: trace '$a' pattern '$b'"
# --reps replays the trace again after itself
a=$("$s" -q --json --gen "fat 4,2" --trace "$mix" --reps 3 | python3 -c "$key" | cut -d' ' -f2,3)
[ "$a" = "$((3 * wmsgs)) $((3 * wbytes))" ] || bad "mix --reps 3: '$a'"

# --trace-compute: exactly the trace's 10 us of compute more, in a job too
"$w" "$tmp" compute 16 || bad "otf2-write compute exited $?"
key='import json,sys; print(json.load(sys.stdin)["runs"][0]["total_us"])'
a=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/compute/compute.otf2" | python3 -c "$key")
b=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/compute/compute.otf2" --trace-compute | python3 -c "$key")
c=$("$s" -q --json --gen "fat 4,2" --trace-compute --job "c:16:order:-:trace:$tmp/compute/compute.otf2" |
	python3 -c "$key")
d=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/compute/compute.otf2" --trace-compute |
	python3 -c 'import json,sys; w=json.load(sys.stdin)["work"]; print(w["trace"].endswith("compute.otf2"), w["trace_compute"])')
[ "$d" = "True True" ] || bad "--trace-compute JSON work: $d"
python3 -c "import sys; a, b, c = map(float, sys.argv[1:]); sys.exit(not (a > 0 and round(b - a, 3) == 10 and b == c))" \
	"$a" "$b" "$c" || bad "--trace-compute: $a us without, $b us with, $c us as a job"

# place-keepers of vartree's order (a degraded fabric, 59 hosts) are skipped, as jobs do
deg=$VT_TOP/topofiles/degraded-4ary3-hosts.topo
key='import json,sys; d=json.load(sys.stdin); r=d["runs"][0]; print(d["work"]["ranks"], r["total_us"], r["bytes_delivered"], r["hops"])'
a=$("$s" -q --json "$deg" --trace "$mix" | python3 -c "$key")
b=$("$s" -q --json "$deg" --job "x:16:order:-:trace:$mix" | python3 -c "$key")
[ -n "$a" ] && [ "$a" = "$b" ] && [ "${a%% *}" = 16 ] || bad "degraded: trace '$a' job '$b'"
mkdir "$tmp/big" && "$w" "$tmp/big" mix 64 >/dev/null || bad "otf2-write mix 64 exited $?"
refuse_deg="vartree-sim: $tmp/big/mix/mix.otf2: 64 ranks, more than the 59 hosts of the host order"

# 3. as a job beside another, randomly placed: its own messages and bytes
"$s" -q --json --gen "fat 4,3" --seed 7 --job app:16:random:-:trace:"$mix" \
	--job bg:16:contiguous:4K:shift >"$tmp/jobs.json" || bad "jobs exited $?"
python3 - "$tmp/jobs.json" "$wmsgs" "$wbytes" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
j = {x["job"]: x for x in d["runs"][0]["jobs"]}
app, bg = j["app"], j["bg"]
ok = (app["messages"], app["bytes"] + app["bytes_local"]) == (int(sys.argv[2]), int(sys.argv[3]))
ok = ok and bg["messages"] == 16 * 15 and app["workload"].startswith("trace:")
if not ok:
    print("FAIL: jobs:", app, bg)
    sys.exit(1)
PY

# 4. refusals: one line, the file named, exit status 2
refuse() { # want-message args...
	local msg=$1 out rc
	shift
	out=$("$s" -q "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$out" = "$msg" ] || bad "$*: exit $rc, '$out', want '$msg'"
}
refuse "vartree-sim: $mix: 16 ranks, more than the 4 hosts of the host order" --gen "fat 4,1" --trace "$mix"
refuse "$refuse_deg" "$deg" --trace "$tmp/big/mix/mix.otf2"
refuse "vartree-sim: $tmp/none.otf2: No such file or directory" --gen "fat 4,2" --trace "$tmp/none.otf2"
refuse "vartree-sim: job app: $mix has 16 ranks, the job 8" --gen "fat 4,2" --job "app:8:order:-:trace:$mix"
refuse "vartree-sim: --job: job 'a:16:order:4K:trace:$mix': size: '-' for a trace (its messages carry their own sizes). Try 'vartree-sim --help'." \
	--gen "fat 4,2" --job "a:16:order:4K:trace:$mix"
refuse "vartree-sim: --trace-compute needs --trace or --job with a trace. Try 'vartree-sim --help'." \
	--gen "fat 4,2" --pattern shift --trace-compute
refuse "vartree-sim: --mode does not apply to --trace (MPI's own waits release it). Try 'vartree-sim --help'." \
	--gen "fat 4,2" --trace "$mix" --mode burst
cp -r "$tmp/mix" "$tmp/cut"
head -c 40 "$tmp/mix/mix.otf2" >"$tmp/cut/mix.otf2"
refuse "vartree-sim: $tmp/cut/mix.otf2: not an OTF2 anchor file, or a damaged one (it ends within its header)" --gen "fat 4,2" --trace "$tmp/cut/mix.otf2"
cp "$tmp/mix/mix.otf2" "$tmp/cut/mix.otf2"
truncate -s $(($(stat -c %s "$tmp/mix/mix.def") / 2)) "$tmp/cut/mix.def"
refuse "vartree-sim: $tmp/cut/mix.otf2: cannot read the global definitions: libotf2: Invalid or inconsistent record data" \
	--gen "fat 4,2" --trace "$tmp/cut/mix.otf2"
cp "$tmp/mix/mix.def" "$tmp/cut/mix.def"
evt=$(ls "$tmp/cut/mix/"*.evt | head -1)
truncate -s $(($(stat -c %s "$evt") / 2)) "$evt"
out=$("$s" -q --gen "fat 4,2" --trace "$tmp/cut/mix.otf2" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "vartree-sim: $tmp/cut/mix.otf2: cannot read the events: libotf2: "* ]] ||
	bad "cut event file: exit $rc, '$out'"
exit $fail
