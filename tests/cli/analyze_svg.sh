#!/usr/bin/env bash
# vartree-analyze --svg: the extracted tree drawn with the first pattern's link loads (issue 25
# goal 2). degraded-4ary3-leaf-uplink under all2all has one hottest channel, L1-S0009 port 1 ->
# L0-S0008 port 6 (load 120, as the table's "most loaded links" says); the SVG is checked here
# byte for byte where it matters, without a browser (analyze_svg_render.sh renders it).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
topo=$VT_TOP/topofiles/degraded-4ary3-leaf-uplink.topo
an() { "$VT_BIN/vartree-analyze" "$topo" --route vartree -p all2all -q "$@"; }
count() { grep -c "$1" "$2"; }
hot='L1-S0009 port 1 (GUID 0x0002c95001000009, LID 26) -&gt; L0-S0008 port 6 (GUID 0x0002c95000000008, LID 9): load 120 (back 80)'

an --svg "$tmp/a.svg" >/dev/null || fail "--svg: rc $?"
# 48 switches and 16 leaves' CAs as boxes; 191 cables as 143 lines (a leaf's 4 host cables one)
[ "$(count '<g class="sw">' "$tmp/a.svg")" = 48 ] || fail "switch boxes"
[ "$(count '<g class="cas">' "$tmp/a.svg")" = 16 ] || fail "CA boxes"
[ "$(count '<line class="link"' "$tmp/a.svg")" = 143 ] || fail "lines: $(count '<line class="link"' "$tmp/a.svg")"
grep -q '>143 of 143 lines for 191 cables: ' "$tmp/a.svg" || fail "header line"
# levels as rows: the tree's, top row first
[ "$(grep -o '<text class="row"[^>]*>[^<]*' "$tmp/a.svg" | sed 's/.*>//' | tr '\n' ' ')" = "hosts L0 L1 L2 " ] ||
	fail "row labels"
# the hottest line is drawn last (on top), in the hottest colour, its tooltip naming both ports
last=$(grep '<line class="link"' "$tmp/a.svg" | tail -1)
[ "$last" = "<line class=\"link\" x1=\"682\" y1=\"360\" x2=\"682\" y2=\"232\" stroke=\"#fde725\" stroke-width=\"1.5\" data-load=\"120\" data-cables=\"1\"><title>$hot</title></line>" ] ||
	fail "hottest line: $last"
# a leaf's host cables: one line, the hottest of them named
grep -q '; the hottest of 4 cables between L0-S0000 and its 4 CAs</title>' "$tmp/a.svg" || fail "aggregated host line"
# the same input gives the same bytes
an --svg "$tmp/b.svg" >/dev/null || fail "second run"
cmp -s "$tmp/a.svg" "$tmp/b.svg" || fail "bytes differ between runs"

# --hot N: only the N hottest lines, the hottest still last; every box stays
an --svg "$tmp/h.svg" --hot 3 >/dev/null || fail "--hot 3: rc $?"
[ "$(count '<line class="link"' "$tmp/h.svg")" = 3 ] || fail "--hot 3 lines"
[ "$(count '<g class="sw">' "$tmp/h.svg")" = 48 ] || fail "--hot 3 boxes"
grep -q '>3 of 143 lines for 191 cables: ' "$tmp/h.svg" || fail "--hot header"
[ "$(grep '<line class="link"' "$tmp/h.svg" | tail -1)" = "$last" ] || fail "--hot 3: hottest line"
[ "$(grep -o 'data-load="[0-9]*"' "$tmp/h.svg" | tr '\n' ' ')" = 'data-load="80" data-load="96" data-load="120" ' ] ||
	fail "--hot 3 loads: $(grep -o 'data-load="[0-9]*"' "$tmp/h.svg" | tr '\n' ' ')"

# names are escaped for XML: a node-name-map gives L1-S0009 markup characters
printf '0x0002c95001000009 "core <9> & x"\n' >"$tmp/map"
an --svg "$tmp/m.svg" --node-name-map "$tmp/map" >/dev/null || fail "--node-name-map run"
grep -q '<title>core &lt;9&gt; &amp; x port 1 (GUID 0x0002c95001000009, LID 26) -&gt; L0-S0008 port 6' "$tmp/m.svg" ||
	fail "escaped name: $(grep -o '<title>core[^(]*' "$tmp/m.svg" | head -1)"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/m.svg" || fail "not well-formed XML"

# errors: exit 2, one line, nothing written
msg=$(an --hot 3 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "--hot without --svg: rc"
[ "$msg" = "vartree-analyze: --hot needs --svg FILE. Try 'vartree-analyze --help'." ] || fail "$msg"
msg=$(an --svg "$tmp/x.svg" --hot 0 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "--hot 0: rc"
[ "$msg" = "vartree-analyze: --hot: '0' is not an integer (1..2^32-1)" ] || fail "$msg"
msg=$(an --svg "$tmp/nodir/x.svg" 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "unwritable: rc"
[ "$msg" = "vartree-analyze: $tmp/nodir/x.svg: cannot create: No such file or directory" ] || fail "$msg"
[ -z "$(ls "$tmp" | grep -v '^[abhm]\.svg$\|^map$')" ] || fail "left behind: $(ls "$tmp")"
echo ok
