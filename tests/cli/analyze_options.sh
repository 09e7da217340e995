#!/usr/bin/env bash
# vartree-analyze's orders (seeded shuffle, order file with DUMMY place-keepers),
# plots, compare, thresholds, the JSON schema of vartree-analyze(1), and the
# all2all bound of a stage of 3 million flows.
set -u
command -v xz >/dev/null || { echo "xz not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
A="$VT_BIN/vartree-analyze"
D=$VT_TOP/tests/data/analyze
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# cairo keeps fontconfig's caches until exit: LeakSanitizer would report them
printf 'leak:libfontconfig\nleak:FcConfig\n' >"$T/lsan.supp"
export LSAN_OPTIONS=suppressions=$T/lsan.supp
xz -dc "$D/fat4-3.topo.xz" >"$T/t"
xz -dc "$D/fat4-3-minhop.lfts.xz" >"$T/m"
xz -dc "$D/fat4-3-ftree.lfts.xz" >"$T/f"

# --order-random: the same seed gives the same figures, another seed others
for s in 5 5 6; do
	"$A" "$T/t" --lfts "$T/m" --order-random $s --json -q >"$T/r$s.$$.$RANDOM" || fail "order-random $s"
done
set -- "$T"/r5.* "$T"/r6.*
# no wall-clock field without --timing: the same run gives the same bytes
cmp -s "$1" "$2" || fail "seed 5 twice differs"
! cmp -s "$1" "$3" || fail "seeds 5 and 6 give the same stages"
! grep -q '"seconds"' "$1" || fail "seconds without --timing"
"$A" "$T/t" --lfts "$T/m" --json -q --timing -p shift -p bintree >"$T/tm" || fail "--timing"
python3 -c 'import json, sys
ps = json.load(open(sys.argv[1]))["routings"][0]["patterns"]
assert [type(p["seconds"]) for p in ps] == [float, float] and all(p["seconds"] >= 0 for p in ps), ps' "$T/tm" ||
	fail "--timing seconds: $(head -c 300 "$T/tm")"
"$A" "$T/t" --lfts "$T/m" -q --timing 2>"$T/err"; [ $? = 2 ] || fail "--timing without --json exit"
grep -qx "vartree-analyze: --timing needs --json. Try 'vartree-analyze --help'." "$T/err" || fail "--timing: $(cat "$T/err")"
grep -q '"flows": 4032, "unrouted": 0' "$1" || fail "shuffled flows: $(head -c 400 "$1")"

# --order with a DUMMY place-keeper: rank 5 idle, 63 hosts each send to 62 others
awk 'NR == 6 { print "0xFFFF\tDUMMY"; next } { print }' "$D/fat4-3-ftree-ca-order.dump" >"$T/o"
"$A" "$T/t" --lfts "$T/f" --order "$T/o" --json -q >"$T/d" || fail "order with DUMMY"
grep -q '"ranks": 64, "hosts": 63' "$T/d" || fail "ranks/hosts: $(head -c 400 "$T/d")"
grep -q '"flows": 3906, "unrouted": 0, "worst": 1, "avg": 1.0,' "$T/d" || fail "DUMMY flows: $(head -c 600 "$T/d")"
printf '0x0031\tH-0000\n0x9999\tH-nowhere\n' >"$T/bad"
"$A" "$T/t" --lfts "$T/f" --order "$T/bad" -q 2>"$T/err"; [ $? = 2 ] || fail "bad order exit"
[ "$(wc -l <"$T/err")" = 1 ] || fail "bad order: $(cat "$T/err")"

# --plot: per pattern one stages chart and one link map per routing, named by --label
"$A" "$T/t" --compare "$T/m" "$T/f" -p shift -p shift:1-8 --plot "$T/plots" --label minhop \
	--label ftree -q >/dev/null || fail plot
for p in shift shift_1_8; do
	for f in stages links-minhop links-ftree; do
		[ "$(head -c 8 "$T/plots/$p-$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "$p-$f.png is not a PNG"
	done
done
[ "$(ls "$T/plots" | wc -l)" = 6 ] || fail "plot files: $(ls "$T/plots")"
# --plot-format pdf, and the file name as the routing's name without --label
"$A" "$T/t" --lfts "$T/f" --plot "$T/pdf" --plot-format pdf -q >/dev/null || fail "plot pdf"
[ "$(ls "$T/pdf" | tr '\n' ' ')" = "shift-links-f.pdf shift-stages.pdf " ] || fail "pdf files: $(ls "$T/pdf")"
[ "$(head -c 5 "$T/pdf/shift-stages.pdf")" = "%PDF-" ] || fail "not a PDF"
"$A" "$T/t" --lfts "$T/f" --plot-format pdf -q 2>"$T/err" >/dev/null; [ $? = 2 ] || fail "format without plot"
grep -qx "vartree-analyze: --plot-format needs --plot DIR. Try 'vartree-analyze --help'." "$T/err" || fail "$(cat "$T/err")"
"$A" "$T/t" --lfts "$T/f" --plot "$T/x" --plot-format jpg -q 2>"$T/err" >/dev/null; [ $? = 2 ] || fail "jpg"
grep -qx "vartree-analyze: --plot-format: 'jpg' is not one of png, svg or pdf" "$T/err" || fail "$(cat "$T/err")"
"$A" "$T/t" --lfts "$T/f" --label a --label b -q 2>"$T/err" >/dev/null; [ $? = 2 ] || fail "labels"
grep -qx "vartree-analyze: more --label options than routings. Try 'vartree-analyze --help'." "$T/err" || fail "$(cat "$T/err")"

# --compare and --max-worst against both routings: minhop misses 3, ftree meets it
"$A" "$T/t" --compare "$T/m" "$T/f" --max-worst shift=3 -q >"$T/c" 2>"$T/err"; [ $? = 1 ] || fail "compare threshold exit"
grep -qx "vartree-analyze: $T/m: shift: worst 4 exceeds 3" "$T/err" || fail "threshold: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] || fail "only minhop misses: $(cat "$T/err")"
"$A" "$T/t" --compare "$T/m" "$T/f" --max-worst shift=4 -q >/dev/null; [ $? = 0 ] || fail "shift=4 met"
"$A" "$T/t" --lfts "$T/f" --max-worst bintree=1 -q 2>"$T/err"; [ $? = 2 ] || fail "threshold for no pattern"
grep -qx "vartree-analyze: --max-worst bintree: no such --pattern. Try 'vartree-analyze --help'." "$T/err" || fail "$(cat "$T/err")"

# JSON: the schema of vartree-analyze(1), and figures that agree with each other
"$A" "$T/t" --compare "$T/m" "$T/f" -p shift -p bisection:count=4 --json -q >"$T/j" || fail "json run"
python3 - "$T/j" <<'EOF' || fail "JSON schema"
import json, sys
j = json.load(open(sys.argv[1]))
assert set(j) == {"fabric", "ca_ports", "switches", "routings"}, j.keys()
assert j["ca_ports"] == 64 and j["switches"] == 48
assert [r["name"].rsplit("/", 1)[1] for r in j["routings"]] == ["m", "f"]
kinds = {"unreachable", "loop", "misdelivery", "non-minimal", "credit-loop"}
for r in j["routings"]:
    assert set(r) == {"name", "ranks", "hosts", "audit", "patterns"}
    assert r["ranks"] == r["hosts"] == 64
    assert set(r["audit"]) == kinds and all(a == {"count": 0} for a in r["audit"].values())
    for p in r["patterns"]:
        assert set(p) == {"pattern", "stages", "flows", "unrouted", "worst", "avg",
                          "bound_worst", "bound_avg", "ebb", "method",
                          "stage_max", "stage_bound", "histogram", "top_links"}, p.keys()
        assert p["method"] in ("walk", "interval", "naive")
        n = p["stages"]
        assert len(p["stage_max"]) == n == len(p["stage_bound"])
        assert p["worst"] == max(p["stage_max"]) == len(p["histogram"]) - 1
        assert abs(p["avg"] - sum(p["stage_max"]) / n) < 1e-6
        assert p["bound_worst"] == max(p["stage_bound"])
        assert all(b <= m for b, m in zip(p["stage_bound"], p["stage_max"]))
        # every (counted link, stage) pair once: 64 host links and 128 switch links, both ways
        assert sum(p["histogram"]) == (128 + 256) * n, sum(p["histogram"])
        assert (p["ebb"] is None) == (p["pattern"] == "shift")
        for t in p["top_links"]:
            assert list(t) == ["from", "to", "max", "sum"], t
            assert list(t["from"]) == list(t["to"]) == ["desc", "guid", "lid", "port"], t
            assert t["max"] <= p["worst"]
m, f = (r["patterns"][0] for r in j["routings"])
assert (m["worst"], round(m["avg"], 2), f["worst"], f["avg"]) == (4, 3.24, 1, 1.0)
assert m["flows"] == f["flows"] == 64 * 63
EOF

# all2all on 1728 hosts: one stage of 1728 x 1727 = 2984256 flows, bound without making them:
# a host sends 1727 flows over its one link (leaves and pods: 1716, 1584)
xz -dc "$D/fat12-3.topo.xz" >"$T/t12"
xz -dc "$D/fat12-3-ftree.lfts.xz" >"$T/f12"
"$A" "$T/t12" --lfts "$T/f12" -p all2all --top 0 -q >"$T/a" || fail "all2all 1728"
grep -Eq '^all2all +1 +2984256 +1727 +1727\.00 +1727 +1727\.00 ' "$T/a" || fail "all2all row: $(cat "$T/a")"
echo ok
