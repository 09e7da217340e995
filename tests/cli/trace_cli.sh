#!/usr/bin/env bash
# vartree-trace: paths hop by hop, where a broken table stops one, the pairs that cross a port
# (checked against tracing every pair), addressing by name/GUID/LID/rank, errors and JSON.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
X="$VT_BIN/vartree-trace"
"$VT_BIN/vartree-gen" fat 2,3 -o "$T/f.topo" || fail gen
"$VT_BIN/vartree-route" -q "$T/f.topo" -o "$T/f.lfts" || fail route

# the route H-0000 -> H-0007 up to a top switch and down, as ibtracert prints it
"$X" "$T/f.topo" --lfts "$T/f.lfts" H-0000 H-0007 >"$T/p"; [ $? = 0 ] || fail "trace exit"
cat >"$T/want" <<'W'
From ca {0x0002c91000000000} portnum 1 lid 13-13 "H-0000"
[1] -> switch port {0x0002c95000000000}[1] lid 1-1 "L0-S0000"
[4] -> switch port {0x0002c95001000001}[1] lid 6-6 "L1-S0001"
[4] -> switch port {0x0002c95002000003}[1] lid 12-12 "L2-S0003"
[2] -> switch port {0x0002c95001000003}[4] lid 8-8 "L1-S0003"
[2] -> switch port {0x0002c95000000003}[4] lid 4-4 "L0-S0003"
[2] -> ca port {0x0002c91000000070}[1] lid 20-20 "H-0007"
To ca {0x0002c91000000070} portnum 1 lid 20-20 "H-0007"
W
diff "$T/want" "$T/p" || fail "path differs"
# the same hosts by port GUID, node GUID, LID and rank give the same path
for a in "-G 0x0002c91000000001 0x0002c91000000070" "-L 13 20" "--rank 0 7" "-L 0xd 0x14"; do
	# shellcheck disable=SC2086
	"$X" "$T/f.topo" --lfts "$T/f.lfts" $a >"$T/q" || fail "trace $a"
	cmp -s "$T/p" "$T/q" || fail "trace $a differs: $(cat "$T/q")"
done

# a table with one entry missing: the walk stops at that switch, exit 1, one line naming it
awk '/^Unicast/ { s = /0x0002c95001000001/ } s && /^0x0014 / { next } { print }' "$T/f.lfts" >"$T/b.lfts"
cmp -s "$T/b.lfts" "$T/f.lfts" && fail "fixture edit did nothing"
"$X" "$T/f.topo" --lfts "$T/b.lfts" H-0000 H-0007 >"$T/p" 2>"$T/err"; [ $? = 1 ] || fail "broken exit"
[ "$(wc -l <"$T/p")" = 3 ] || fail "broken path: $(cat "$T/p")"
grep -qx 'vartree-trace: H-0000 -> H-0007: switch "L1-S0001" (0x0002c95001000001): no table entry for LID 20' "$T/err" ||
	fail "broken message: $(cat "$T/err")"

# errors: one line, exit 2
"$X" "$T/f.topo" --lfts "$T/f.lfts" nosuch H-0001 2>"$T/err"; [ $? = 2 ] || fail "unknown name exit"
grep -qx "vartree-trace: no node named \"nosuch\" in $T/f.topo" "$T/err" || fail "unknown: $(cat "$T/err")"
"$X" "$T/f.topo" --lfts "$T/f.lfts" -L 99 13 2>"$T/err"; [ $? = 2 ] || fail "unknown LID exit"
grep -qx "vartree-trace: no port has LID 99 in $T/f.topo" "$T/err" || fail "LID: $(cat "$T/err")"
"$X" "$T/f.topo" --lfts "$T/f.lfts" --rank 0 8 2>"$T/err"; [ $? = 2 ] || fail "bad rank exit"
grep -qx "vartree-trace: '8': expected a rank 0 .. 7" "$T/err" || fail "rank: $(cat "$T/err")"
"$X" "$T/f.topo" H-0000 H-0001 2>"$T/err"; [ $? = 2 ] || fail "no tables exit"
"$X" "$T/f.topo" --lfts "$T/f.lfts" --port L0-S0000/9 2>"$T/err"; [ $? = 2 ] || fail "bad port exit"
grep -qx "vartree-trace: --port 'L0-S0000/9': \"L0-S0000\" (0x0002c95000000000) has ports 1 .. 4" "$T/err" ||
	fail "port: $(cat "$T/err")"
# two nodes sharing a description: refused, both named by GUID
sed 's/# "H-0001"/# "H-0000"/' "$T/f.topo" >"$T/dup.topo"
"$X" "$T/dup.topo" --route vartree H-0000 H-0002 2>"$T/err"; [ $? = 2 ] || fail "ambiguous exit"
grep -q '"H-0000" names 2 nodes: "H-0000" (0x0002c91000000000), "H-0000" (0x0002c91000000010)' "$T/err" ||
	fail "ambiguous: $(cat "$T/err")"

# which pairs cross the up-link L0-S0000/3: all2all on 8 hosts sends 2 x 6 flows out of the leaf
# over 2 up-links, 6 each way on this one
"$X" "$T/f.topo" --lfts "$T/f.lfts" --port L0-S0000/3 >"$T/c" || fail "port exit"
grep -qx 'all2all: 1 stages: 6 flows leave through the port (xmit), 6 enter through it (rcv)' "$T/c" ||
	fail "port counts: $(cat "$T/c")"
# every listed pair, and no other, has the port on its traced path
grep -E '^all2all stage 0 xmit: ' "$T/c" | sed -E 's/.*rank ([0-9]+) .* -> rank ([0-9]+) .*/\1 \2/' | sort >"$T/x1"
grep -E '^all2all stage 0 rcv : ' "$T/c" | sed -E 's/.*rank ([0-9]+) .* -> rank ([0-9]+) .*/\1 \2/' | sort >"$T/r1"
: >"$T/x2"; : >"$T/r2"
for s in 0 1 2 3 4 5 6 7; do
	for d in 0 1 2 3 4 5 6 7; do
		[ $s = $d ] && continue
		"$X" "$T/f.topo" --lfts "$T/f.lfts" --rank $s $d >"$T/p" || fail "trace $s $d"
		grep -q '^\[3\] -> switch port {0x0002c95001000000}\[1\]' "$T/p" && echo "$s $d" >>"$T/x2"
		grep -q '^\[1\] -> switch port {0x0002c95000000000}\[3\]' "$T/p" && echo "$s $d" >>"$T/r2"
	done
done
sort -o "$T/x2" "$T/x2"; sort -o "$T/r2" "$T/r2"
[ "$(wc -l <"$T/x1")" = 6 ] || fail "xmit list: $(cat "$T/x1")"
diff "$T/x1" "$T/x2" || fail "xmit pairs differ from the traced paths"
diff "$T/r1" "$T/r2" || fail "rcv pairs differ from the traced paths"
# the port as every link list prints it, copied back into --port: the same answer; the header
# names both ends by description, GUID and LID
head -1 "$T/c" >"$T/h"
grep -qx 'port "L0-S0000" (0x0002c95000000000, lid 1)/3 -> "L1-S0000" (0x0002c95001000000, lid 5)/1 (8 ranks)' "$T/h" ||
	fail "port header: $(cat "$T/h")"
printed=$(sed -E 's/^port (.*) -> .*/\1/' "$T/h")
"$X" "$T/f.topo" --lfts "$T/f.lfts" --port "$printed" >"$T/c2" || fail "--port as printed: $printed"
cmp -s "$T/c" "$T/c2" || fail "--port as printed differs: $(head -2 "$T/c2")"
# a printed name whose GUID is not the fabric's is refused like any unknown GUID
"$X" "$T/f.topo" --lfts "$T/f.lfts" --port '"L0-S0000" (0x00000000000000ff, lid 1)/3' 2>"$T/err"
[ $? = 2 ] && grep -qx "vartree-trace: no node or port GUID 0x00000000000000ff in $T/f.topo" "$T/err" ||
	fail "printed name, wrong GUID: $(cat "$T/err")"
# a shift: per stage the same figures as the analyzer's walk would give, summed
"$X" "$T/f.topo" --lfts "$T/f.lfts" --port L0-S0000/3 -p shift -p shift:4 -q >"$T/c" || fail "shift"
grep -qx 'shift: 7 stages: 6 flows leave through the port (xmit), 6 enter through it (rcv)' "$T/c" ||
	fail "shift counts: $(cat "$T/c")"
grep -qx 'shift:4: 1 stages: 1 flows leave through the port (xmit), 1 enter through it (rcv)' "$T/c" ||
	fail "shift:4 counts: $(cat "$T/c")"

# JSON, also with a description that is not UTF-8 (byte 0xE9) and quotes: valid, round-trips
if command -v python3 >/dev/null; then
	printf 's/# "H-0007"/# "caf\xe9 \\\\"7\\\\" x"/\n' >"$T/sed"
	sed -f "$T/sed" "$T/f.topo" >"$T/h.topo"
	grep -q 'caf' "$T/h.topo" || fail "hostile edit did nothing"
	"$X" "$T/h.topo" --lfts "$T/f.lfts" --json -L 13 20 >"$T/j"; [ $? = 0 ] || fail "json exit"
	python3 - "$T/j" <<'P' || fail "json: $(cat "$T/j")"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["delivered"] is True and d["dlid"] == 20, d
assert [h["desc"] for h in d["hops"]] == ["L0-S0000", "L1-S0001", "L2-S0003", "L1-S0003", "L0-S0003", d["to"]["desc"]], d
assert d["to"]["desc"].startswith("caf\ufffd "), d["to"]
assert d["to"]["guid"] == "0x0002c91000000070" and d["from"]["lid"] == 13, d
P
	"$X" "$T/f.topo" --lfts "$T/f.lfts" --json --port L0-S0000/3 -p shift >"$T/j" || fail "json port"
	python3 - "$T/j" <<'P' || fail "json port: $(head -c 400 "$T/j")"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["patterns"][0]
assert p["pattern"] == "shift" and p["xmit"] == 6 and p["rcv"] == 6, p
assert len(p["flows"]) == 12 and all(f["direction"] in ("xmit", "rcv") for f in p["flows"]), p
assert d["port"]["port"] == 3 and d["peer"]["desc"] == "L1-S0000", d["port"]
P
fi
"$X" --help | grep -q '^usage: vartree-trace' || fail help
echo ok
