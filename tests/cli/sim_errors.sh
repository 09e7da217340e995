#!/usr/bin/env bash
# vartree-sim: one-line errors with a non-zero exit, usage, deadlock exit status.
set -u
s=$VT_BIN/vartree-sim
d=$VT_TOP/tests/data/fig6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # want-status want-stderr-line args...
	local st=$1 want=$2
	shift 2
	"$s" -q "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne "$st" ] || [ "$(head -1 "$tmp/err")" != "$want" ]; then
		echo "FAIL: $* -> rc $rc, stderr: $(head -2 "$tmp/err")"
		fail=1
	fi
}
printf 'Switch 8 "s"\n[1] "h"[1\n' >"$tmp/bad.topo"
expect 1 "vartree-sim: $tmp/bad.topo:2: $(VT_X=1 "$s" -q "$tmp/bad.topo" 2>&1 | sed -n 's/^vartree-sim: [^:]*:2: //p')" "$tmp/bad.topo"
expect 1 "vartree-sim: pattern 'nosuch': $("$s" -q --gen 'fat 2,2' --pattern nosuch 2>&1 | sed -n "s/^vartree-sim: pattern 'nosuch': //p")" --gen "fat 2,2" --pattern nosuch
expect 2 "vartree-sim: --mtu: 'x' is not a number in [256, 4096]" --mtu x --gen "fat 2,2"
expect 1 "vartree-sim: $d/minhop-lfts.dump: MTU 3000 is not one of 256, 512, 1024, 2048, 4096" \
	--mtu 3000 --lfts "$d/minhop-lfts.dump" "$d/ibnetdiscover.txt"
expect 1 "vartree-sim: unknown causal workload 'ZZ' (2W, 3W, 2M, 3M, BU, BT, WF)" --gen "fat 2,2" --causal ZZ
expect 2 "vartree-sim: give a FABRIC file or --gen SPEC (see --help)"
expect 2 "vartree-sim: --sl: '16' is not a number in [0, 15]" --sl 16 --gen "fat 2,2"
# SL 0 by default: more VLs change nothing until messages are spread over them;
# spread on a 2:1 thin-tree with small buffers, blocked packets no longer block all
tot() { "$s" -q --json --gen "thin 4:2,2" --size 8K --mode burst --buffer 40 "$@" | grep -o '"total_us": [0-9.]*'; }
one=$(tot) four=$(tot --vls 4) sl=$(tot --vls 4 --sl 7) spread=$(tot --vls 4 --sl spread)
[ "$one" = "$four" ] && [ "$one" = "$sl" ] || { echo "FAIL: VLs without SLs: $one / $four / $sl"; fail=1; }
[ "$one" != "$spread" ] || { echo "FAIL: --sl spread left every message on VL 0: $spread"; fail=1; }
"$s" --help | grep -q -- '--preset default|fig6' || { echo "FAIL: --help"; fail=1; }
# the same seed gives the same bytes; the table names every routing
a=$("$s" -q --gen "fat 2,3" --arb random --seed 5 --size 3000)
b=$("$s" -q --gen "fat 2,3" --arb random --seed 5 --size 3000)
[ "$a" = "$b" ] || { echo "FAIL: not deterministic"; fail=1; }
grep -q '^vartree  ' <<<"$a" || { echo "FAIL: table: $a"; fail=1; }
# plots land when asked
ASAN_OPTIONS=detect_leaks=0 "$s" -q --gen "fat 2,3" --plot "$tmp/plots" >/dev/null || fail=1
[ -s "$tmp/plots/stage-times.png" ] && [ -s "$tmp/plots/link-util.png" ] || { echo "FAIL: plots"; fail=1; }
exit $fail
