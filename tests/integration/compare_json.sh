#!/usr/bin/env bash
# vartree-compare --json and vartree-harness --json on a 4-ary-3-tree with one leaf up-link
# missing: ftree refuses it and OpenSM falls back to minhop, which both report as
# "ftree->minhop" (engine asked for, engine used); vartree's figures in compare's JSON are
# the analyzer's own on the kept run; the harness's object matches its summary.txt.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
command -v python3 >/dev/null || skip "python3 is not installed"
compare=$VT_TOP/sim/vartree-compare

"$gen" fat 4,3 --drop-links 1@0 -o "$tmp/f.topo" || fail "vartree-gen"
"$compare" -q --json -e vartree,ftree,updn -p shift -o "$tmp/runs" "$tmp/f.topo" >"$tmp/c.json" 2>"$tmp/c.err" ||
	{ cat "$tmp/c.err"; fail "vartree-compare --json"; }
"$VT_BIN/vartree-analyze" "$tmp/runs/vartree/sweep-0/ibnetdiscover.topo" --lfts "$tmp/runs/vartree/opensm-lfts.dump" \
	--order "$tmp/runs/vartree/opensm-vartree-ca-order.dump" -p shift --json -q >"$tmp/a.json"
[ $? -le 1 ] || fail "offline analysis"
python3 - "$tmp/c.json" "$tmp/a.json" "$tmp/runs" <<'P' || fail "compare JSON: $(cat "$tmp/c.json")"
import json, sys
c, a = (json.load(open(p)) for p in sys.argv[1:3])
assert c["runs"] == sys.argv[3] and c["patterns"] == ["shift"], c
e = {x["engine"]: x for x in c["engines"]}
assert list(e) == ["vartree", "ftree", "updn"], list(e)
assert (e["vartree"]["route"], e["vartree"]["used"], e["vartree"]["order"]) == ("vartree", "vartree", "own")
assert (e["ftree"]["route"], e["ftree"]["used"], e["ftree"]["order"]) == ("ftree->minhop", "minhop", "leaf"), e["ftree"]
assert e["updn"]["route"] == "updn" and all(x["error"] is None for x in e.values())
p = a["routings"][0]["patterns"][0]
assert e["vartree"]["patterns"] == [{k: p[k] for k in ("pattern", "worst", "avg", "bound_worst", "unrouted")}], e["vartree"]
assert e["vartree"]["credit_loops"] == 0 and all(x["routing_ms"] > 0 for x in e.values())
P
# the harness's own object, for the fallback run compare kept
"$harness" -q --json -e ftree -o "$tmp/h" "$tmp/f.topo" >"$tmp/h.json" 2>"$tmp/h.err" || { cat "$tmp/h.err"; fail "harness --json"; }
python3 - "$tmp/h.json" "$tmp/h/summary.txt" "$tmp/h" <<'P' || fail "harness JSON: $(cat "$tmp/h.json")"
import json, sys
h = json.load(open(sys.argv[1]))
line = [l for l in open(sys.argv[2]) if l.startswith("osm_sweep 0:")][0]
assert h["output"] == sys.argv[3] and h["status"] == 0 and h["engines"] == ["ftree"], h
s = h["sweeps"][0]
assert (s["engine"], s["fallbacks"], s["route"], s["subnet_up"]) == ("minhop", ["ftree"], "ftree->minhop", True), s
assert "routing_ms %.3f," % s["routing_ms"] in line and s["vartree_ms"] is None, (s, line)
P
# vartree's own routing time: the plugin's log line's figure, in summary.txt and the JSON
"$harness" -q --json -e vartree -o "$tmp/v" "$tmp/f.topo" >"$tmp/v.json" 2>"$tmp/v.err" || { cat "$tmp/v.err"; fail "harness -e vartree --json"; }
ms=$(sed -n 's/.*: vartree: routed .* in \([0-9.]*\) ms .*/\1/p' "$tmp/v/opensm.log" | head -1)
[ -n "$ms" ] || fail "no 'vartree: routed' line in $tmp/v/opensm.log"
grep -q "^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none, routing_ms [0-9.]*, vartree_ms $ms, errors 0$" "$tmp/v/summary.txt" ||
	fail "summary.txt: $(head -5 "$tmp/v/summary.txt"), log $ms ms"
python3 - "$tmp/v.json" "$ms" <<'P' || fail "harness JSON vartree_ms: $(cat "$tmp/v.json")"
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
assert s["engine"] == "vartree" and s["vartree_ms"] == float(sys.argv[2]) and s["vartree_ms"] > 0, s
P
echo ok
