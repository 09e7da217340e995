#!/usr/bin/env bash
# vartree-sim --plot-format: PDF (or one other format) instead of PNG and SVG.
set -u
sim=$VT_BIN/vartree-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cairo keeps fontconfig's caches until exit: not a leak of ours
printf 'leak:libfontconfig\nleak:FcConfig\n' >"$tmp/lsan.supp"
export LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0
fail() { echo "FAIL: $*"; exit 1; }
run() { "$sim" --gen "fat 4,2" --quiet --route vartree --route vartree --label a --label b "$@"; }

# two equal routings, PDF only: two one-page PDFs, nothing else
run --plot "$tmp/p" --plot-format pdf >/dev/null || fail "pdf run"
[ "$(cd "$tmp/p" && ls | tr '\n' ' ')" = "link-util.pdf stage-times.pdf " ] ||
	fail "files: $(ls "$tmp/p")"
for f in "$tmp"/p/*.pdf; do
	[ "$(head -c 5 "$f")" = "%PDF-" ] || fail "$f is not a PDF"
	[ "$(grep -ac '/Type /Page\b' "$f")" -eq 1 ] || fail "$f: not one page"
done
# the link map shows the first routing only, and says which (its title, searchable as the PDF's)
pdf_title() { python3 -c '
import re, sys
m = re.search(rb"/Title (<FEFF([0-9A-F]*)>|\((.*)\))", open(sys.argv[1], "rb").read())
print(bytes.fromhex(m.group(2).decode()).decode("utf-16-be") if m and m.group(2) else m.group(3).decode() if m else "")' "$1"; }
t=$(pdf_title "$tmp/p/link-util.pdf")
[ "$t" = "link utilisation under a (vartree), the first of 2 routings" ] || fail "link-util title: '$t'"
t=$(pdf_title "$tmp/p/stage-times.pdf")
[ "$t" = "per-stage completion time" ] || fail "stage-times title: '$t'"
"$sim" --gen "fat 4,2" --quiet --route vartree --plot "$tmp/one" --plot-format pdf >/dev/null || fail "one routing"
t=$(pdf_title "$tmp/one/link-util.pdf")
[ "$t" = "link utilisation under vartree" ] || fail "one routing's title: '$t'"
# the same input gives the same bytes
run --plot "$tmp/q" --plot-format pdf >/dev/null || fail "second pdf run"
cmp -s "$tmp/p/stage-times.pdf" "$tmp/q/stage-times.pdf" || fail "PDF bytes differ between runs"
# svg alone; without --plot-format both PNG and SVG, as before
run --plot "$tmp/s" --plot-format svg >/dev/null || fail "svg run"
[ "$(cd "$tmp/s" && ls | tr '\n' ' ')" = "link-util.svg stage-times.svg " ] || fail "svg files"
grep -q '<svg' "$tmp/s/stage-times.svg" || fail "stage-times.svg is not SVG"
run --plot "$tmp/d" >/dev/null || fail "default run"
[ "$(cd "$tmp/d" && ls | tr '\n' ' ')" = "link-util.png link-util.svg stage-times.png stage-times.svg " ] ||
	fail "default files: $(ls "$tmp/d")"
[ "$(head -c 4 "$tmp/d/stage-times.png" | tail -c 3)" = "PNG" ] || fail "png magic"

# errors: exit 2, one line
msg=$(run --plot-format pdf 2>&1)
[ $? -eq 2 ] || fail "--plot-format without --plot: rc"
[ "$msg" = "vartree-sim: --plot-format needs --plot DIR. Try 'vartree-sim --help'." ] || fail "$msg"
msg=$(run --plot "$tmp/e" --plot-format jpg 2>&1)
[ $? -eq 2 ] || fail "jpg: rc"
[ "$msg" = "vartree-sim: --plot-format: 'jpg' is not one of png, svg or pdf" ] || fail "$msg"
exit 0
