#!/usr/bin/env bash
# vartree-analyze's progress (issue 25: an all-to-all showed none for 78 s): on a terminal,
# counting all2all on fat 16,3 (one stage of 4096 x 4095 flows, walked in 16 chunks; the
# naive walk on one thread, the slowest: about 2.5 s under ASan here) shows its percentage
# while it counts, as ibdiagnet does; with stderr a file, a pipe or -q: no progress at all,
# only the notes of finished steps. Progress starts after a second, so the count must take
# longer than that even on an idle machine: fat 12,3 took 1.1 to 1.8 s under load and less
# than a second idle, where it printed nothing and the terminal run failed.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$VT_BIN/vartree-gen" "fat 16,3" -o "$tmp/f.topo" || fail "gen"
"$VT_BIN/vartree-route" "$tmp/f.topo" -q --lft-format binary -o "$tmp/f.lfts" || fail "route"
an=("$VT_BIN/vartree-analyze" "$tmp/f.topo" --lfts "$tmp/f.lfts" -p all2all --top 1 --method naive --threads 1)

# stderr a file: not one progress line
"${an[@]}" >"$tmp/out" 2>"$tmp/err" || fail "file run: rc $?"
grep -q '%' "$tmp/err" && fail "progress in a file: $(tr '\r' '\n' <"$tmp/err" | grep '%' | head -2)"
grep -q 'done in' "$tmp/err" && fail "'done in' in a file"
# stderr a terminal (a pty): the percentage while counting, then how long it took
python3 - "$tmp/tty" "${an[@]}" <<'P' || fail "pty run: rc $? ($(tr '\r' '\n' <"$tmp/tty" 2>/dev/null | tail -3))"
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        b = os.read(master, 4096)
    except OSError:  # EIO: the child closed the terminal
        break
    if not b:
        break
    out += b
rc = p.wait()
open(sys.argv[1], "wb").write(out)  # kept for the failure line too
sys.exit(rc or (0 if out else 1))
P
prog=$(tr '\r' '\n' <"$tmp/tty" | grep -a 'vartree-analyze: all2all: ')
if [ -z "$prog" ]; then
	# shown from the count's first second on: a count that took less shows none
	echo "counting took under a second: no progress to check on the terminal"
	"${an[@]}" -q 2>"$tmp/qerr" >/dev/null || fail "-q run"
	[ ! -s "$tmp/qerr" ] || fail "-q printed: $(cat "$tmp/qerr")"
	echo ok
	exit 0
fi
last=$(tail -1 <<<"$prog")
[[ $last =~ ^"vartree-analyze: all2all: done in "[0-9]+\.[0-9]" s"$'\r'?$ ]] || fail "last line: '$last'"
secs=$(sed 's/.*done in \([0-9.]*\) s.*/\1/' <<<"$last")
# progress is shown from the first second on, twice a second: a count that took 2 s or more
# (it takes longer under ASan) shows a percentage below 100 before it ends
if awk -v s="$secs" 'BEGIN { exit !(s >= 2) }'; then
	grep -Eq 'all2all: +([0-9]|[1-9][0-9])%' <<<"$prog" || fail "no percentage below 100 in ${secs} s: $prog"
else
	echo "counting took ${secs} s only: intermediate percentages not checked"
fi
# -q: nothing at all on the terminal
"${an[@]}" -q 2>"$tmp/qerr" >/dev/null || fail "-q run"
[ ! -s "$tmp/qerr" ] || fail "-q printed: $(cat "$tmp/qerr")"
echo ok
