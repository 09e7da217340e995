#!/usr/bin/env bash
# vartree-analyze --live against ibsim running a 4-ary-3-tree routed by OpenSM
# (minhop): the tables read from the switches give Zahavi's Table I figures
# (worst 4, avg 3.24), a clean audit, and the same JSON as the offline
# analysis of ibnetdiscover's dump with OpenSM's own opensm-lfts.dump.
set -u
. "$VT_TOP/tests/integration/live_lib.bash"
command -v ibnetdiscover >/dev/null || skip "ibnetdiscover is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
A=$VT_BIN/vartree-analyze

"$VT_BIN/vartree-gen" fat 4,3 -o "$tmp/fat.net" || { echo "vartree-gen failed"; exit 1; }
start_sim "$tmp/fat.net"
run_opensm "$tmp/osm" -R minhop
# clients in a scratch directory: libumad2sim writes ./sys-PID
mkdir -p "$tmp/cwd"
cd "$tmp/cwd" || exit 1
# the local port named as infiniband-diags names it: umad2sim's CA is ibsim0, attached to a
# switch, so its port 0
LD_PRELOAD=$umad2sim "$A" --live -C ibsim0 -P 0 -p shift -p butterfly --json -q >"$tmp/live.json" 2>"$tmp/live.err"
rc=$?
[ $rc = 0 ] || { cat "$tmp/live.err"; echo "vartree-analyze --live exited $rc"; exit 1; }
# a CA the simulator does not have: refused by discovery, named in the one line
LD_PRELOAD=$umad2sim "$A" --live -C mlx5_9 -P 1 -q >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(tail -1 "$tmp/bad.err")" = "vartree-analyze: live:mlx5_9/1: fabric discovery failed" ] ||
	{ cat "$tmp/bad.err"; echo "--live -C mlx5_9: exit $rc"; exit 1; }
LD_PRELOAD=$umad2sim ibnetdiscover >"$tmp/fabric.topo" 2>/dev/null ||
	{ echo "ibnetdiscover failed"; exit 1; }
"$A" "$tmp/fabric.topo" --lfts "$tmp/osm/opensm-lfts.dump" -p shift -p butterfly --json -q \
	>"$tmp/offline.json" || { echo "offline analysis failed"; exit 1; }
python3 - "$tmp/live.json" "$tmp/offline.json" <<'EOF' || exit 1
import json, sys
live, off = (json.load(open(p)) for p in sys.argv[1:])
r = live["routings"][0]
assert r["name"] == "live" and r["ranks"] == r["hosts"] == 64, r["name"]
assert all(a["count"] == 0 for a in r["audit"].values()), r["audit"]
sh = r["patterns"][0]
assert (sh["pattern"], sh["worst"], round(sh["avg"], 2), sh["flows"]) == ("shift", 4, 3.24, 4032), sh
o = off["routings"][0]
for a, b in zip(r["patterns"], o["patterns"]):
    for k in a:
        if k not in ("seconds", "top_links"):
            assert a[k] == b[k], (a["pattern"], k, a[k], b[k])
print("live: shift worst", sh["worst"], "avg %.2f" % sh["avg"], "as offline; audit clean")
EOF
