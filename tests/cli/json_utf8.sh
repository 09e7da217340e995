#!/usr/bin/env bash
# JSON output stays valid whatever bytes node descriptions hold (0xE9 from a Latin-1 NodeDesc,
# a truncated UTF-8 sequence, quotes, backslashes, control bytes): Python's json.load reads
# vartree-analyze's and vartree-trace's output, bad bytes as U+FFFD, good UTF-8 kept.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$VT_BIN/vartree-gen" fat 2,3 -o "$T/f.topo" || fail gen
"$VT_BIN/vartree-route" -q "$T/f.topo" -o "$T/f.lfts" || fail route
# descriptions in the topology file: Latin-1 e-acute, a backslash and a quote; a cut UTF-8 sequence
printf 's/# "H-0000"/# "caf\xe9 \\\\ \\"q\\""/\ns/# "L0-S0000"/# "leaf-\xc3\xa9-\xe2\x82"/\n' >"$T/sed"
sed -f "$T/sed" "$T/f.topo" >"$T/h.topo"
grep -q 'leaf-' "$T/h.topo" || fail "edit did nothing"
"$VT_BIN/vartree-analyze" "$T/h.topo" --lfts "$T/f.lfts" --json -q --top 100 >"$T/a.json" || fail analyze
# a control byte arrives through a node name map
printf '0x0002c91000000010 "tab\there\x01"\n' >"$T/map"
"$VT_BIN/vartree-analyze" "$T/h.topo" --lfts "$T/f.lfts" --json -q --top 100 --node-name-map "$T/map" >"$T/m.json" ||
	fail "analyze with map"
"$VT_BIN/vartree-trace" "$T/h.topo" --lfts "$T/f.lfts" --json -L 13 20 >"$T/t.json" || fail trace
"$VT_BIN/vartree-sim" -q "$T/h.topo" --lfts "$T/f.lfts" --json --links >"$T/s.json" || fail sim
python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); s = json.dumps(d, ensure_ascii=False)
assert "caf\ufffd" in s and "leaf-\u00e9-\ufffd\ufffd" in s, s[:300]' "$T/s.json" || fail "sim json: $(head -c 300 "$T/s.json")"
python3 - "$T/a.json" "$T/m.json" "$T/t.json" <<'P' || fail "json: $(head -c 300 "$T/a.json")"
import json, sys
a, m, t = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:])
names = {l[k] for p in a["routings"][0]["patterns"] for l in p["top_links"] for k in ("from", "to")}
assert 'caf\ufffd \\ "q"' in names, names
assert "leaf-\u00e9-\ufffd\ufffd" in names, names
names = {l[k] for p in m["routings"][0]["patterns"] for l in p["top_links"] for k in ("from", "to")}
assert "tab\there\x01" in names, names
assert t["from"]["desc"] == 'caf\ufffd \\ "q"' and t["hops"][0]["desc"] == "leaf-\u00e9-\ufffd\ufffd", t
P
echo ok
