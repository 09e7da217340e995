#!/usr/bin/env bash
# JSON output stays valid whatever bytes node descriptions hold, for every command with --json
# (vartree-analyze, vartree-trace path and --port, vartree-sim --links): Latin-1 0xE9, a cut UTF-8
# sequence, quotes, backslashes, a slash, and (through a node name map) a tab and control bytes.
# Python's json.load reads each output; bad bytes come back as U+FFFD, good UTF-8 and every
# other character as they were, in the desc field of every port and node that carries them.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$VT_BIN/vartree-gen" fat 2,3 -o "$T/f.topo" || fail gen
"$VT_BIN/vartree-route" -q "$T/f.topo" -o "$T/f.lfts" || fail route
# in the topology file: host 0 Latin-1 e-acute, a backslash and quotes; leaf 0 a cut UTF-8 sequence
printf 's/# "H-0000"/# "caf\xe9 \\\\ \\"q\\""/\ns/# "L0-S0000"/# "leaf-\xc3\xa9-\xe2\x82"/\n' >"$T/sed"
sed -f "$T/sed" "$T/f.topo" >"$T/h.topo"
grep -q 'leaf-' "$T/h.topo" || fail "edit did nothing"
# through the map (its names are taken as written, no escapes): host 1 a tab, \x01, \x1f and a
# slash; L1-S0000 DEL
printf '0x0002c91000000010 "tab\there\x01\x1f a/b"\n0x0002c95001000000 "del\x7f"\n' >"$T/map"
for m in "" "--node-name-map $T/map"; do
	n=${m:+m}
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-analyze" "$T/h.topo" --lfts "$T/f.lfts" --json -q --top 200 $m >"$T/a$n.json" || fail "analyze $m"
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-trace" "$T/h.topo" --lfts "$T/f.lfts" --json -L 13 14 $m >"$T/t$n.json" || fail "trace $m"
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-trace" "$T/h.topo" --lfts "$T/f.lfts" --json --port 0x0002c95000000000/1 $m >"$T/p$n.json" ||
		fail "trace --port $m"
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-sim" -q "$T/h.topo" --lfts "$T/f.lfts" --json --links $m >"$T/s$n.json" || fail "sim $m"
done
python3 - "$T" <<'P' || fail "json: $(head -c 300 "$T/a.json")"
import json, sys

def descs(v, out):
    """Every desc of a port or node object anywhere in v."""
    if isinstance(v, dict):
        if "desc" in v and "guid" in v:
            out.add((v["desc"], v["guid"]))
        for x in v.values():
            descs(x, out)
    elif isinstance(v, list):
        for x in v:
            descs(x, out)
    return out

host0 = ('caf\ufffd \\ "q"', "0x0002c91000000000")
leaf0 = ("leaf-\u00e9-\ufffd\ufffd", "0x0002c95000000000")
host1 = ("tab\there\x01\x1f a/b", "0x0002c91000000010")
l1 = ("del\x7f", "0x0002c95001000000")
for n, want in (("", {host0, leaf0}), ("m", {host0, leaf0, host1, l1})):
    for c in "atps":
        raw = open("%s/%s%s.json" % (sys.argv[1], c, n), "rb").read()
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1, (c, n, "one line")
        d = json.loads(raw.decode("utf-8"))  # strict: invalid UTF-8 would raise here
        got = descs(d, set())
        # analyze lists all 200 top links, sim every link, trace's path and port touch these
        need = {"a": want, "s": want, "t": {host0, leaf0} | ({host1} if n else set()),
                "p": {host0, leaf0}}[c]
        assert need <= got, (c, n, need - got)
        if not n:
            assert host1[0] not in {g[0] for g in got}, (c, "map applied without --node-name-map")
P
echo ok
