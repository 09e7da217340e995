#!/usr/bin/env bash
# vartree-analyze's exit codes, one-line errors, thresholds, compare and JSON.
set -u
command -v xz >/dev/null || { echo "xz not installed"; exit 77; }
A="$VT_BIN/vartree-analyze"
D=$VT_TOP/tests/data/analyze
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
xz -dc "$D/fat4-3.topo.xz" >"$T/t"
xz -dc "$D/fat4-3-minhop.lfts.xz" >"$T/m"
xz -dc "$D/fat4-3-ftree.lfts.xz" >"$T/f"
"$A" "$T/t" --lfts "$T/f" --max-worst shift=1 -q >/dev/null; [ $? = 0 ] || fail "ftree meets shift=1"
"$A" "$T/t" --lfts "$T/m" --max-worst shift=3 -q >/dev/null 2>"$T/err"; [ $? = 1 ] || fail "minhop misses shift=3"
grep -qx "vartree-analyze: $T/m: shift: worst 4 exceeds 3" "$T/err" || fail "threshold message: $(cat "$T/err")"
"$A" "$T/t" --compare "$T/m" "$T/f" -q --top 0 >"$T/c"; [ $? = 0 ] || fail "compare"
grep -Eq '^shift +63 +4 +3\.24 +1 +1\.00 +1$' "$T/c" || fail "compare row: $(cat "$T/c")"
"$A" "$T/t" --lfts "$T/nonexistent" -q 2>"$T/err"; [ $? = 2 ] || fail "missing file exit"
[ "$(wc -l <"$T/err")" = 1 ] || fail "one line: $(cat "$T/err")"
grep -q "^vartree-analyze: $T/nonexistent" "$T/err" || fail "message: $(cat "$T/err")"
"$A" "$T/t" --lfts "$T/m" -p mesh2d:9x9 -q 2>"$T/err"; [ $? = 2 ] || fail "bad pattern exit"
grep -qx "vartree-analyze: pattern 'mesh2d:9x9': grid of 81 ranks exceeds the 64 ranks" "$T/err" || fail "pattern message: $(cat "$T/err")"
"$A" "$T/t" -q 2>/dev/null; [ $? = 2 ] || fail "no tables given"
"$A" --help | grep -q '^usage: vartree-analyze' || fail help
# a broken table: drop one switch's entry for LID 49 (H-0000)
awk 'BEGIN { d = 0 } /^0x0031 / && !d { d = 1; next } { print }' "$T/f" >"$T/b"
cmp -s "$T/b" "$T/f" && fail "fixture edit did nothing"
"$A" "$T/t" --lfts "$T/b" -q --json >"$T/j"; [ $? = 1 ] || fail "audit failure exit"
grep -q '"unreachable": {"count": 1, "switch": ' "$T/j" || fail "unreachable in json: $(head -c 600 "$T/j")"
"$A" "$T/t" --lfts "$T/m" -q -p butterfly -p bintree -p mesh3d:4x4x4 -p wavefront2d:8x8 -p all2all --top 1 >"$T/p" || fail "patterns"
# all2all on 64 hosts: each host sends 63 flows over its one link
grep -Eq '^all2all +1 +4032 ' "$T/p" || fail "all2all row: $(cat "$T/p")"
echo ok
