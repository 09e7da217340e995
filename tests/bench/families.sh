#!/usr/bin/env bash
# Issue 23's table: each family of real fabrics as vartree-gen makes it (several
# sizes and seeds), routed by every engine inside the stock OpenSM on ibsim
# (sim/vartree-compare), shift worst/avg beside the cut bound, and the
# every-source audit's non-minimal hop count of vartree's tables (offline; "A/B": as
# routed by default / with --shortest-detours, switch-sourced detours on VL 1).
# Columns: vartree's worst/avg, the bound's, the best other engine's (by worst,
# then avg) and its name, and what vartree misses: "worst" (above the bound's
# worst), "avg+N%" (more than 5 % over the bound's avg), "engine" (an engine
# beats it on worst or avg); after avg+N%, where vartree-analyze prints an
# up*-down* bound above the cut bound, vartree's average against it (no route
# that climbs, then descends, does better). VT_FAMILIES_LIST=FILE replaces the list ("LABEL
# SPEC..." lines; a SPEC ending in .topo is a file of topofiles/). An engine marked *
# closed a credit loop as vartree-analyze audits its tables: every route on one VL,
# which is unfair to dfsssp (its SLs spread routes over VLs; the harness keeps no SLs).
set -u
top=$VT_TOP
gen=$VT_BIN/vartree-gen
an=$VT_BIN/vartree-analyze
tmp=$(mktemp -d /tmp/vt-families.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

default_list() {
	cat <<'EOF'
partial-cut irregular-4ary3-partial-cut.topo
short-leaf irregular-4ary3-short-leaf.topo
qdr-ddr irregular-qdr-ddr.topo
gpu-hosts-down irregular-gpu-hosts-down.topo
hostless real-hostless-4ary3.topo
fat4,3-cut1@1-s2 fat 4,3 --drop-links 1@1 --seed 2
fat4,3-cut1@1-s3 fat 4,3 --drop-links 1@1 --seed 3
fat4,3-h3-cut1@1 fat 4,3 --hosts-per-leaf 3 --drop-links 1@1
uneven-a uneven 8,8,6,4,8,2:4,4,4,2,4,4:4
uneven-b uneven 12,12,5,24,16,20:12,12,4,12,12,12:12
leaf-uplinks fat 8,2 leaf-uplinks=2:5
slow-leaves fat 4,3 slow-leaves=2@DDR
split-superpod-small split-superpod-small.topo
split-cores-small split-cores-cs7500-small.topo
superpod-3,4,8,4,3,2 superpod 3,4,8,4,3,2
superpod-2,4,8,4,2 superpod 2,4,8,4,2
superpod-cut2@1 superpod 3,4,8,4,3,2 --drop-links 2@1
superpod-cut1@1 superpod 3,4,8,4,3,2 --drop-links 1@1
superpod-cut2@0 superpod 3,4,8,4,3,2 --drop-links 2@0
superpod-top-down superpod 3,4,8,4,3,2 --drop-switches 1
cores-2,6,3,12,6 cores 2,6,3,12,6
cores-3,6,3,18,6 cores 3,6,3,18,6
cores-cut1@1 cores 2,6,3,12,6 --drop-links 1@1
cores-cut2@0-s2 cores 2,6,3,12,6 --drop-links 2@0 --seed 2
cores-spine-down cores 2,6,3,12,6 --drop-switches 1
uneven-c uneven 12,10,8,8,3,0:6,6,6,6,2,6:6
uneven-d uneven 20,18,16,14,12,10:10,10,8,8,6,6:10
uneven-e uneven 16,16,16,8,0,4:8,8,8,4,8,2:8
gpu-2 gpu 2
real-gpu real-gpu.topo
real-sharp real-sharp-4ary3.topo
EOF
}

row() { # LABEL SPEC...
	local label=$1 t=$tmp/f.topo
	shift
	if [[ $1 == *.topo ]]; then
		t=$top/topofiles/$1
	elif ! "$gen" "$@" -o "$t" 2>"$tmp/gen.err"; then
		printf '%-22s generator refused: %s\n' "$label" "$(head -1 "$tmp/gen.err")"
		return 1
	fi
	local nm nm2 bavg
	"$an" "$t" --route vartree -p shift --all-sources --vl-split >"$tmp/a.out" 2>&1
	nm=$(sed -n 's/^audit: non-minimal: \([0-9]*\).*/\1/p' "$tmp/a.out")
	bavg=$(awk '$1 == "shift" { print $7 }' "$tmp/a.out")
	# the up*-down* bound's average, where above the cut bound's (vartree-analyze(1))
	uavg=$(sed -n 's|^  up\*-down\* bound [0-9]*/\([0-9.]*\):.*|\1|p' "$tmp/a.out")
	# and with a second VL for the switch-sourced detours (vartree.detours=shortest)
	nm2=$("$an" "$t" --route vartree --shortest-detours --all-sources --vl-split -q 2>&1 |
		sed -n 's/^audit: non-minimal: \([0-9]*\).*/\1/p')
	"$top/sim/vartree-compare" -q --json -p shift "$t" >"$tmp/c.json" 2>"$tmp/c.err" ||
		{ printf '%-22s vartree-compare failed: %s\n' "$label" "$(tail -1 "$tmp/c.err")"; return 1; }
	python3 - "$tmp/c.json" "$label" "${nm:-0}/${nm2:-0}" "${bavg:-0}" "${uavg:-0}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
label, nonmin, bavg, uavg = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
res, bound = {}, None
for e in d["engines"]:
    p = e["patterns"][0] if e["patterns"] else None
    if not p or e["error"] or e["unrouted"]:
        continue
    name = e["engine"] if e["engine"] == e["used"] else e["engine"] + "->" + e["used"]
    # a credit loop as the analyzer sees it, all on one VL (dfsssp's SLs are not read)
    name += "*" if e["credit_loops"] else ""
    res[name] = (p["worst"], p["avg"])
    bound = p.get("bound_worst", bound)
v = res.pop("vartree", None)
# an engine that leaves LIDs unrouted is no competitor
best = min(res.items(), key=lambda kv: kv[1]) if res else None
miss = []
if v is None:
    print(f"{label:22s} vartree did not route"); sys.exit(0)
if bound is not None and v[0] > bound:
    miss.append("worst")
if bavg and v[1] > bavg * 1.05 + 1e-9:
    miss.append(f"avg+{(v[1] / bavg - 1) * 100:.0f}%")
    if uavg:  # what no up*-down* routing beats (vartree's CA routes are such)
        miss.append(f"(up*-down* {uavg:.2f}: +{(v[1] / uavg - 1) * 100:.0f}%)")
if best and (v[0] > best[1][0] or v[1] > best[1][1] + 1e-9):
    miss.append("engine")
wa = lambda w, a: f"{w}/{a:.2f}"
bw, bn = (wa(*best[1]), best[0]) if best else ("-", "none routed")
print(f"{label:22s} {wa(*v):9s} {wa(bound, bavg):9s} {bw:9s} {bn:14s} "
      f"{nonmin:>9}  {' '.join(miss) or 'ok'}")
PY
}

printf '%-22s %-9s %-9s %-9s %-14s %9s  %s\n' fabric vartree bound best engine nonmin misses
if [ -n "${VT_FAMILIES_LIST:-}" ]; then cat "$VT_FAMILIES_LIST"; else default_list; fi |
	while read -r label spec; do
		[ -n "$label" ] || continue
		# shellcheck disable=SC2086 # the spec is words
		row "$label" $spec
	done
