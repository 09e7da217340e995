#!/usr/bin/env bash
# vartree-analyze --svg rendered by a real browser (issue 25 goal 2): headless Chromium loads
# the SVG file (parsed as XML, as a browser opens it) into a page whose script reports what it
# rendered: no parse error, the line and box counts, the hottest line's tooltip text, its
# computed colour and its laid-out size. Skipped when Debian's chromium is not installed.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
browser=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium not installed (Debian package chromium): SVG rendering not checked"; exit 77; }
topo=$VT_TOP/topofiles/degraded-4ary3-leaf-uplink.topo
"$VT_BIN/vartree-analyze" "$topo" --route vartree -p all2all -q --svg "$tmp/tree.svg" >/dev/null ||
	fail "--svg: rc $?"
cat >"$tmp/page.html" <<'HTML'
<!DOCTYPE html><html><body><iframe id="f" src="tree.svg" width="1400" height="600"></iframe>
<pre id="out">no load event</pre>
<script>
window.addEventListener('load', function () {
  var out = [], d = document.getElementById('f').contentDocument;
  if (!d) { document.getElementById('out').textContent = 'no document'; return; }
  var lines = d.querySelectorAll('line.link'), hot = lines[lines.length - 1];
  out.push('root ' + d.documentElement.localName);
  out.push('parse errors ' + d.getElementsByTagName('parsererror').length);
  out.push('lines ' + lines.length);
  out.push('boxes ' + d.querySelectorAll('g.sw > rect, g.cas > rect').length);
  out.push('hot ' + hot.querySelector('title').textContent);
  out.push('hot colour ' + getComputedStyle(hot).stroke);
  var r = hot.getBoundingClientRect();
  out.push('hot height ' + Math.round(r.height));
  document.getElementById('out').textContent = out.join('\n');
});
</script></body></html>
HTML
# its own profile; root needs --no-sandbox; file pages may read their neighbours
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
	--user-data-dir="$tmp/profile" --dump-dom "file://$tmp/page.html" >"$tmp/dom" 2>"$tmp/err" ||
	fail "chromium: rc $?: $(tail -3 "$tmp/err")"
got=$(python3 -c '
import html, re, sys
m = re.search(r"<pre id=\"out\">(.*?)</pre>", open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else "no output")' "$tmp/dom")
want="root svg
parse errors 0
lines 143
boxes 64
hot L1-S0009 port 1 (GUID 0x0002c95001000009, LID 26) -> L0-S0008 port 6 (GUID 0x0002c95000000008, LID 9): load 120 (back 80)
hot colour rgb(253, 231, 37)
hot height 128"
[ "$got" = "$want" ] || fail "rendered: $got"
echo ok
