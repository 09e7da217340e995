#!/usr/bin/env bash
# vartree-sim --trace on what Score-P writes beyond pure MPI: a real hybrid
# MPI + OpenMP + CUDA trace (tests/data/otf2-casita-2_cuda_simple, CASITA's
# test data) replays with the messages and bytes libotf2's otf2-print reads
# from it; self-sends get a line of their own (and JSON figures); a trace
# without MPI communication is refused with exit status 2, one whose MPI calls
# move no data says so.
set -u
s=$VT_BIN/vartree-sim
w=$VT_TOP/build/asan/tests/otf2-write
[ -x "$w" ] || { echo "no $w (make unit builds it)"; exit 1; }
command -v otf2-print >/dev/null || { echo "SKIP: no otf2-print (otf2-tools, scripts/install-deps)"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}print_suppressions=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. the hybrid trace: 2 MPI ranks, their OpenMP threads and CUDA streams also
# locations and communicators. libotf2's count: its MPI_SEND events, and each
# 2-rank collective (barrier, allreduce) as one message per rank of sent/2 bytes
cuda=$VT_TOP/tests/data/otf2-casita-2_cuda_simple/traces.otf2
want=$(otf2-print "$cuda" | python3 -c '
import re, sys
msgs = byts = 0
for l in sys.stdin:
    if l.startswith(("MPI_SEND ", "MPI_ISEND ")):
        msgs += 1
        byts += int(re.search(r"Length: (\d+)", l).group(1))
    elif l.startswith("MPI_COLLECTIVE_END "):
        op = re.search(r"Operation: (\w+)", l).group(1)
        assert op in ("BARRIER", "ALLREDUCE"), op
        msgs += 1
        byts += int(re.search(r"Sent: (\d+)", l).group(1)) // 2
print(msgs, byts)')
[ "$want" = "44 327600" ] || bad "otf2-print count of $cuda: '$want'"
key='import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["messages_done"], r["bytes_delivered"], r["messages_local"], r["deadlock"])'
got=$("$s" -q --json --gen "fat 4,2" --trace "$cuda" | python3 -c "$key")
[ "$got" = "$want 0 False" ] || bad "hybrid trace: '$got', libotf2 '$want'"

# 2. self-sends: their own line and JSON figures, the fabric's apart
read -r _ fb _ fm _ _ sb _ sm <<<"$("$w" "$tmp" self 8)" || bad "otf2-write self exited $?"
[ "$fb $fm $sb $sm" = "8000 8 828 8" ] || bad "otf2-write self: $fb $fm $sb $sm"
out=$("$s" -q --gen "fat 4,2" --trace "$tmp/self/self.otf2" | tail -2)
[ "$out" = "vartree: 16/16 messages, 8000 bytes delivered of 8000, 36 events (20 hops)
vartree: 8 local messages (a rank to itself) of 828 bytes, not in the fabric" ] || bad "self: '$out'"
key='import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["messages"], r["bytes_delivered"], r["messages_local"], r["bytes_local"])'
got=$("$s" -q --json --gen "fat 4,2" --trace "$tmp/self/self.otf2" | python3 -c "$key")
[ "$got" = "16 8000 8 828" ] || bad "self JSON: '$got'"

# 3. no MPI communication at all: refused, not an all-zero table
"$w" "$tmp" none 8 || bad "otf2-write none exited $?"
out=$("$s" -q --gen "fat 4,2" --trace "$tmp/none/none.otf2" 2>&1)
rc=$?
[ $rc = 2 ] && [ "$out" = "vartree-sim: $tmp/none/none.otf2: no MPI message or collective to replay in its 8 locations" ] ||
	bad "no MPI: exit $rc, '$out'"
# 4. MPI calls that move no data (a barrier of one member): replayed, and said so
"$w" "$tmp" lone 4 || bad "otf2-write lone exited $?"
out=$("$s" -q --gen "fat 4,2" --trace "$tmp/lone/lone.otf2" 2>&1 | tail -2)
[ "$out" = "vartree: 0/0 messages, 0 bytes delivered of 0, 0 events (0 hops)
vartree: no message: the trace's MPI calls move no data" ] || bad "lone: '$out'"
exit $fail
