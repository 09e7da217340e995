#!/usr/bin/env bash
# vartree-route: text tables of 32 MiB or more get one line on stderr naming --lft-format
# binary (issue 25: a 1.4 GB text table was written without a hint). fat 12,3's text tables
# are 61380224 bytes (432 switches x 2161 LIDs in binary); fat 8,3's 8.8 MB get no hint.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
route=$VT_BIN/vartree-route
"$VT_BIN/vartree-gen" "fat 12,3" -o "$tmp/big.topo" || fail "gen fat 12,3"
"$VT_BIN/vartree-gen" "fat 8,3" -o "$tmp/small.topo" || fail "gen fat 8,3"

"$route" "$tmp/big.topo" -o "$tmp/big.lfts" 2>"$tmp/err" || fail "big: rc $?"
size=$(stat -c %s "$tmp/big.lfts")
[ "$size" -ge $((32 << 20)) ] || fail "fat 12,3's tables are $size bytes only"
hint=$(grep -- '--lft-format binary' "$tmp/err")
[ "$hint" = "vartree-route: the tables took $(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1e6 }') MB as text; --lft-format binary writes them in about 0.9 MB (one byte per entry), which vartree-analyze, -sim, -trace and --previous read (OpenSM's file engine reads the text only)" ] ||
	fail "hint: '$hint'"
# -q: no hint; binary tables: no hint; small text tables: no hint
"$route" "$tmp/big.topo" -q -o "$tmp/q.lfts" 2>"$tmp/err" || fail "-q: rc $?"
[ ! -s "$tmp/err" ] || fail "-q printed: $(cat "$tmp/err")"
"$route" "$tmp/big.topo" --lft-format binary -o "$tmp/b.lfts" 2>"$tmp/err" || fail "binary: rc $?"
grep -q -- '--lft-format' "$tmp/err" && fail "hint with binary tables"
[ "$(stat -c %s "$tmp/b.lfts")" -lt 1000000 ] || fail "binary size"
"$route" "$tmp/small.topo" -o "$tmp/s.lfts" 2>"$tmp/err" || fail "small: rc $?"
grep -q -- '--lft-format' "$tmp/err" && fail "hint for 8.8 MB"
echo ok
