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
expect 2 "vartree-sim: $tmp/bad.topo:2: $(VT_X=1 "$s" -q "$tmp/bad.topo" 2>&1 | sed -n 's/^vartree-sim: [^:]*:2: //p')" "$tmp/bad.topo"
expect 2 "vartree-sim: pattern 'nosuch': $("$s" -q --gen 'fat 2,2' --pattern nosuch 2>&1 | sed -n "s/^vartree-sim: pattern 'nosuch': //p")" --gen "fat 2,2" --pattern nosuch
expect 2 "vartree-sim: --mtu: 'x' is not one of 256, 512, 1024, 2048 or 4096" --mtu x --gen "fat 2,2"
expect 2 "vartree-sim: --mtu: '3000' is not one of 256, 512, 1024, 2048 or 4096" \
	--mtu 3000 --lfts "$d/minhop-lfts.dump" "$d/ibnetdiscover.txt"
expect 2 "vartree-sim: buffer of 4 credits per VL cannot hold one 2048-byte packet" --mtu 2048 --header 0 --buffer 4 --gen "fat 2,2"
expect 2 "vartree-sim: unknown causal workload 'ZZ' (2W, 3W, 2M, 3M, BU, BT, WF)" --gen "fat 2,2" --causal ZZ
expect 2 "vartree-sim: give a FABRIC file or --gen SPEC. Try 'vartree-sim --help'."
expect 2 "vartree-sim: --sl: '16' is not an integer (0..15)" --sl 16 --gen "fat 2,2"
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
# plots land when asked, PNG and SVG
ASAN_OPTIONS=detect_leaks=0 "$s" -q --gen "fat 2,3" --plot "$tmp/plots" >/dev/null || fail=1
for p in stage-times.png link-util.png stage-times.svg link-util.svg; do
	[ -s "$tmp/plots/$p" ] || { echo "FAIL: plot $p"; fail=1; }
done
grep -q '<svg' "$tmp/plots/stage-times.svg" || { echo "FAIL: svg"; fail=1; }
# labels name the routings in the table and the JSON; the source stays in the JSON
out=$("$s" -q --gen "fat 2,3" --route vartree --lfts /dev/null --label "static LFT" 2>&1)
[ "$out" = "vartree-sim: /dev/null: no forwarding tables in the file" ] || { echo "FAIL: error names the file: $out"; fail=1; }
"$s" -q --gen "fat 2,3" --route vartree --route vartree --label A --label B --label C >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "^vartree-sim: more --label than routings. Try 'vartree-sim --help'.$" "$tmp/err" || { echo "FAIL: label count"; fail=1; }
t=$("$s" -q --gen "fat 2,3" --route vartree --label "static LFT")
grep -q '^static LFT  ' <<<"$t" || { echo "FAIL: label in table: $t"; fail=1; }
j=$("$s" -q --json --gen "fat 2,3" --label "static LFT" --ar flow --preset navaridas --speed EDR --vls 2 --sl spread)
grep -q '"routing": "static LFT", "source": "vartree"' <<<"$j" || { echo "FAIL: label in JSON"; fail=1; }
# every model parameter in the JSON, as set (navaridas preset, then the options over it)
for kv in '"preset": "navaridas"' '"link_gbps": 100.0' '"mtu": 256' '"header_bytes": 0' '"pad_bytes": 64' '"credit_bytes": 64' \
	'"vls": 2' '"sl": "spread"' '"buffer_credits": 16' '"speedup": 1' '"switch_ns": 1.0' '"cable_ns": 0.0' \
	'"credit_period_ns": 0.0' '"gen_gbps": 0.0' '"sink_gbps": 0.0' '"arbitration": "random"' \
	'"rail": "fixed"' '"adaptive": "flow"' '"adaptive_select": "credits"' '"flit": false' '"max_hops": 64' \
	'"mode": "b2b"' '"ranks": 8' '"stages": 7' '"flows": 56'; do
	grep -qF "$kv" <<<"$j" || { echo "FAIL: JSON lacks $kv"; fail=1; }
done
python3 -c 'import json, sys; json.load(sys.stdin)' <<<"$j" || { echo "FAIL: JSON does not parse"; fail=1; }
# stderr into a file: the speed line alone (progress lines are for terminals)
"$s" --gen "fat 2,3" >/dev/null 2>"$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'M events/s' "$tmp/err" || { echo "FAIL: stderr: $(cat "$tmp/err")"; fail=1; }
exit $fail
