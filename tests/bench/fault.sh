#!/usr/bin/env bash
# After a fault (issue 24): per fabric size and fault, what the repair costs
# beside a fresh route, OpenSM's whole step after the fault with vartree and
# with ftree, and the LFT entries it changes beside the forced minimum, updn
# and minhop. Pruned 3-level trees of 36-port switches: 3888 and 5832 hosts
# (vartree-gen pruned 36,12 / 36,18; VT_FAULT_PODS chooses); offline also 11664
# and 40960 hosts (VT_FAULT_BIG, below). Faults, by the
# generator's GUIDs, as tests/bench/churn.sh names them (VT_FAULT_LIST: some of
# leaf-uplink L1-uplink leaf L1 L1-turn top): a link and a switch at every level.
#   offline (vartree-route, tests/data/topo_fault.py for the degraded fabric;
#   CPU time of the process, which on a shared machine does not count other
#   processes' turns):
#     fresh     vartree-route's "routed ... (CPU" of the degraded fabric, in ms
#     repair    its "repair in ... (CPU" with --previous the healthy tables
#               (vartree.repair=guarded, the plugin's default), in ms
#     rep/fr    repair / fresh (goal 1: <= 1)
#     entries   entries/blocks the repair changes (what OpenSM sends)
#     forced    the forced minimum (vartree-route(1) --previous)
#     x forced  entries / forced (goal 3: <= 1.5)
#   harness (real OpenSM 3.3.23 on ibsim: -F down then -F up per fault, one run
#   per engine; the summary's routing_ms: "building routing with" to "tables
#   configured on all switches", everything the administrator waits for):
#     vt step, ft step    the sweep after the fault, in ms, and ft/vt (goal 2: >= 10)
#     heal ft/vt          the same for the sweep after the heal
#     updn, minhop        entries/blocks between the sweeps before and after the
#                         fault (goal 3: the repair's entries <= both)
#     "*" after an engine's step: OpenSM fell back from it that sweep
# One run of each, no median. VT_FAULT_ENGINES (vartree ftree updn minhop;
# empty: offline only) chooses; VT_FAULT_KEEP=DIR keeps each engine's figures
# there (pPODS-ENGINE.fig) and reuses them, so rows can be run apart;
# VT_FAULT_SEQ=0 skips the sequence table below.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${VT_BIN:-$top/build/bin}
. "$top/tests/bench/lib.bash"
. "$top/tests/data/fault_step.bash"
h=$top/sim/vartree-harness
tmp=$(mktemp -d /tmp/vt-bench-fault.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
engines=${VT_FAULT_ENGINES-vartree ftree updn minhop}
ms_of() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }'; }

# HARNESS-DIR STEPS -> per harness step 1..STEPS, OpenSM's routing ms in that step:
# the sum over its sweeps ("building routing with" to "tables configured on all
# switches", as the harness summary's routing_ms) that ended after the step before
# was snapshot and before this one was (a trap can start a second sweep, so
# OpenSM's sweep count runs ahead of the harness's); "*" when OpenSM fell back
sweep_steps() {
	local k b=""
	for ((k = 0; k <= $2; k++)); do
		b="$b $(date -u -d "@$(stat -c %Y "$1/sweep-$k/opensm-lfts.dump" 2>/dev/null || echo 0)" +%T)"
	done
	awk -v b="$b" -v n="$2" 'function ts(  t) { split($3, t, ":"); return (t[1] * 3600 + t[2] * 60 + t[3]) * 1000 + $4 / 1000 }
	BEGIN { split(b, hb, " "); for (i = 1; i in hb; i++) { split(hb[i], t, ":"); lim[i - 1] = (t[1] * 3600 + t[2] * 60 + t[3] + 1) * 1000 } }
	/building routing with / && !have0 { t0 = ts(); have0 = 1 }
	/: cannot build (lid matrices|fwd tables)/ { fb = 1 }
	/ tables configured on all switches/ && have0 { t1 = ts(); ms = t1 - t0; have0 = 0
		for (j = 1; j <= n; j++) if (t1 > lim[j - 1] - 1000 && t1 <= lim[j]) { sum[j] += ms; if (fb) star[j] = "*"; break }
		fb = 0 }
	END { for (j = 1; j <= n; j++) printf "%s%s\n", j in sum ? sprintf("%.1f", sum[j]) : "-", star[j] }' "$1/opensm.log"
}

printf '%-14s %-11s | %7s %7s %6s | %11s %11s %8s | %8s %8s %7s | %7s | %11s %11s\n' \
	fabric fault fresh repair rep/fr entries forced "x forced" "vt step" "ft step" ft/vt \
	"heal" updn minhop
for pods in ${VT_FAULT_PODS:-12 18}; do
	t=$tmp/p$pods.topo fab="pruned 36,$pods"
	"$bin/vartree-gen" pruned 36,$pods -o "$t" || exit 1
	"$bin/vartree-route" -q "$t" --lft-format binary -o "$tmp/a.bin" || exit 1
	"$bin/vartree-route" -q "$t" -o "$tmp/a.dump" || exit 1
	norm "$tmp/a.dump" >"$tmp/na"
	mapfile -t all < <(faults "$t")
	fl=()
	for l in "${all[@]}"; do
		[ -z "${VT_FAULT_LIST:-}" ] || [[ " $VT_FAULT_LIST " == *" ${l%% *} "* ]] && fl+=("$l")
	done
	hargs=()
	for l in "${fl[@]}"; do hargs+=(-F "${l#* }" -F "up:${l#* down:}"); done
	for e in $engines; do
		# per fault: step after it, step after the heal, entries/blocks changed
		k=${VT_FAULT_KEEP:-$tmp}/p$pods-$e.fig
		[ -s "$k" ] && continue
		d=$tmp/h-$e
		"$h" -q -T 1800 -e "$e" -o "$d" "${hargs[@]}" "$t" >/dev/null ||
			echo "$fab: harness with $e did not reach SUBNET UP every sweep" >&2
		mapfile -t steps < <(sweep_steps "$d" $((2 * ${#fl[@]})))
		for ((i = 0; i < ${#fl[@]}; i++)); do
			c=-
			if [ -s "$d/sweep-$((2 * i))/opensm-lfts.dump" ] &&
				[ -s "$d/sweep-$((2 * i + 1))/opensm-lfts.dump" ]; then
				c=$(ndiff <(norm "$d/sweep-$((2 * i))/opensm-lfts.dump") \
					<(norm "$d/sweep-$((2 * i + 1))/opensm-lfts.dump"))
			fi
			echo "${fl[i]%% *} ${steps[2 * i]:--} ${steps[2 * i + 1]:--} $c"
		done >"$k.new" && mv "$k.new" "$k"
		rm -rf "$d"
	done
	i=0
	for l in "${fl[@]}"; do
		label=${l%% *} fault=${l#* }
		python3 "$top/tests/data/topo_fault.py" "$t" "$fault" >"$tmp/d.topo" || exit 1
		if ! "$bin/vartree-route" "$tmp/d.topo" --previous "$tmp/a.bin" -o "$tmp/rep" 2>"$tmp/err"; then
			printf '%-14s %-11s | refused: %s\n' "$fab" "$label" "$(tail -1 "$tmp/err")"
			i=$((i + 1))
			continue
		fi
		fresh=$(ms_of "$(sed -n 's/.*routed .* (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
		rep=$(ms_of "$(sed -n 's/.*: repair in [0-9.]* s (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
		forced=$(sed -n 's/.*; forced minimum \([0-9]*\) in \([0-9]*\))$/\1\/\2/p' "$tmp/err")
		ent=$(ndiff "$tmp/na" <(norm "$tmp/rep"))
		declare -A st=() heal=() ch=()
		for e in vartree ftree updn minhop; do
			k=${VT_FAULT_KEEP:-$tmp}/p$pods-$e.fig
			read -r _ st[$e] heal[$e] ch[$e] < <(awk -v l="$label" '$1 == l' "$k" 2>/dev/null) || true
			: "${st[$e]:=-}" "${heal[$e]:=-}" "${ch[$e]:=-}"
		done
		printf '%-14s %-11s | %7s %7s %6s | %11s %11s %8s | %8s %8s %7s | %7s | %11s %11s\n' \
			"$fab" "$label" "$fresh" "$rep" "$(ratio "$rep" "$fresh")" "$ent" "$forced" \
			"$(awk -v a="${ent%/*}" -v b="${forced%/*}" 'BEGIN { if (b) printf "%.2f", a / b; else print "-" }')" \
			"${st[vartree]}" "${st[ftree]}" "$(ratio "${st[ftree]%\*}" "${st[vartree]%\*}")" \
			"$(ratio "${heal[ftree]%\*}" "${heal[vartree]%\*}")" "${ch[updn]}" "${ch[minhop]}"
		i=$((i + 1))
	done
done

# Goal 1 at the larger sizes, offline only (the harness would take minutes per
# sweep there): the same six faults of pruned R,P fabrics (VT_FAULT_BIG, "R,P"
# items; default 36,36 = 11664 hosts and 64,40 = 40960 hosts), fresh and repair
# CPU ms as above, and the entries/blocks the repair changes as vartree-route
# counts them (no text dumps at this size); VT_FAULT_BIG= skips the table.
big_row() { # FABRIC-LABEL TOPO PREVIOUS.bin "LABEL FAULT"
	local label=${4%% *} fault=${4#* } fresh rep ent forced
	python3 "$top/tests/data/topo_fault.py" "$2" "$fault" >"$tmp/bd.topo" || return 1
	if ! "$bin/vartree-route" "$tmp/bd.topo" --previous "$3" --lft-format binary -o "$tmp/b.bin" \
		2>"$tmp/err"; then
		printf '%-14s %-11s | refused: %s\n' "$1" "$label" "$(tail -1 "$tmp/err")"
		return 0
	fi
	fresh=$(ms_of "$(sed -n 's/.*routed .* (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
	rep=$(ms_of "$(sed -n 's/.*: repair in [0-9.]* s (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
	read -r ent forced < <(sed -n 's/.*: \([0-9]*\) entries in \([0-9]*\) blocks changed (.*; forced minimum \([0-9]*\) in \([0-9]*\))$/\1\/\2 \3\/\4/p' "$tmp/err")
	printf '%-14s %-11s | %7s %7s %6s | %11s %11s %8s\n' "$1" "$label" "$fresh" "$rep" \
		"$(ratio "$rep" "$fresh")" "${ent:--}" "${forced:--}" \
		"$(awk -v a="${ent%/*}" -v b="${forced%/*}" 'BEGIN { if (b) printf "%.2f", a / b; else print "-" }')"
}
if [ -n "${VT_FAULT_BIG-36,36 64,40}" ]; then
	echo
	echo "repair beside a fresh route, larger fabrics (offline)"
	printf '%-14s %-11s | %7s %7s %6s | %11s %11s %8s\n' fabric fault fresh repair rep/fr \
		entries forced "x forced"
	for rp in ${VT_FAULT_BIG-36,36 64,40}; do
		"$bin/vartree-gen" pruned "$rp" -o "$tmp/big.topo" || exit 1
		"$bin/vartree-route" -q "$tmp/big.topo" --lft-format binary -o "$tmp/big.bin" || exit 1
		while read -r l; do
			[ -z "${VT_FAULT_LIST:-}" ] || [[ " $VT_FAULT_LIST " == *" ${l%% *} "* ]] || continue
			big_row "pruned $rp" "$tmp/big.topo" "$tmp/big.bin" "$l" || exit 1
		done < <(faults "$tmp/big.topo")
		rm -f "$tmp/big.topo" "$tmp/big.bin" "$tmp/b.bin" "$tmp/bd.topo"
	done
fi

# Faults in sequence without a heal (goal 4), offline: each step's fabric repaired
# against the previous step's repaired tables, beside a fresh route of the fabric
# as it is: a leaf up-link, the last top, a level-1 up-link, a link flapping
# down/up/down, a level-1 switch, the first top, the last leaf, two more links.
#   fresh, repair   CPU ms as above; entries: the repair's changes against the
#   previous step's tables (and the fresh route's); forced: the forced minimum;
#   shift fr/rep: worst/avg shift, fresh and repaired, each in its own rank
#   order (goal 3: repaired no worse); audit: the every-source audit of the
#   repaired tables ("clean": no loop, credit loop, unreachable or misdelivery);
#   outcome: vartree-route's word (repaired; fresh (the fabric gained since): a
#   link came back, so the fresh tables; kept (the fabric gained since): a link
#   came back, the previous tables, or they with the fresh routes through it,
#   serve no worse; switch routes repaired, CA routes fresh).
# vartree-route keeps nothing between runs; the plugin keeps only the last
# sweep's fabric and tables, replaced at each sweep.
seq_steps() { # PODS -> "LABEL FAULT" lines; up:X brings back the step before down:X
	local l0=S-0002c95000000000 ll l1 t0 tl m m2
	ll=$(printf 'S-0002c950000%05d' $((18 * $1 - 1)))
	l1=$(printf 'S-0002c950010%05d' $((18 * $1 - 1)))
	m=$(printf 'S-0002c950010%05d' $((9 * $1)))
	m2=$(printf 'S-0002c950010%05d' $((4 * $1)))
	t0=S-0002c95002000000
	tl=$(printf 'S-0002c950020%05d' $((9 * $1 - 1)))
	printf '%s\n' "leaf-uplink down:$ll:19" "top down:$tl" "L1-uplink down:$l1:20" \
		"flap-down down:$l0:20" "flap-up up:$l0:20" "flap-down down:$l0:20" "L1 down:$m" \
		"top0 down:$t0" "leaf down:$ll" "L1-uplink down:$m2:21"
}
shift_q() { # TOPO LFTS ORDER -> worst/avg, in the routing's own rank order
	"$bin/vartree-analyze" "$1" --lfts "$2" --order "$3" -p shift 2>/dev/null |
		awk '$1 == "shift" { printf "%s/%s", $4, $5 }'
}
audit_q() { # TOPO LFTS -> clean, or the first failing audit line
	"$bin/vartree-analyze" "$1" --lfts "$2" --all-sources 2>&1 | awk '/^audit: / &&
		/(unreachable|loop|misdelivery): [0-9]/ { bad = $0; exit } END { print bad == "" ? "clean" : bad }'
}
[ "${VT_FAULT_SEQ:-1}" = 0 ] && exit 0
echo
echo "faults in sequence, no heal (offline)"
printf '%-14s %-2s %-11s | %7s %7s %6s | %11s %11s %11s | %-9s %-9s | %-5s | %s\n' fabric "#" fault \
	fresh repair rep/fr entries fresh forced "shift fr" "shift rep" audit outcome
for pods in ${VT_FAULT_PODS:-12 18}; do
	t=$tmp/s0.topo fab="pruned 36,$pods" k=0
	"$bin/vartree-gen" pruned 36,$pods -o "$t" || exit 1
	"$bin/vartree-route" -q "$t" --lft-format binary -o "$tmp/r0.bin" || exit 1
	declare -A fault_before=()
	while read -r label fault; do
		k=$((k + 1))
		fault_step "$tmp" $k "$fault" || exit 1
		if ! "$bin/vartree-route" "$tmp/s$k.topo" --previous "$tmp/r$((k - 1)).bin" --lft-format binary \
			-o "$tmp/r$k.bin" --order-out "$tmp/r.o" 2>"$tmp/err"; then
			printf '%-14s %2d %-11s | refused: %s\n' "$fab" $k "$label" "$(tail -1 "$tmp/err")"
			break
		fi
		"$bin/vartree-route" -q "$tmp/s$k.topo" --lft-format binary -o "$tmp/f.bin" \
			--order-out "$tmp/f.o" || exit 1
		fresh=$(ms_of "$(sed -n 's/.*routed .* (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
		rep=$(ms_of "$(sed -n 's/.*: repair in [0-9.]* s (CPU \([0-9.]*\) s)$/\1/p' "$tmp/err")")
		read -r ent fent forced < <(sed -n 's/.*: \([0-9]*\) entries in \([0-9]*\) blocks changed (fresh route: \([0-9]*\) in \([0-9]*\); .*; forced minimum \([0-9]*\) in \([0-9]*\))$/\1\/\2 \3\/\4 \5\/\6/p' "$tmp/err")
		printf '%-14s %2d %-11s | %7s %7s %6s | %11s %11s %11s | %-9s %-9s | %-5s | %s\n' "$fab" $k "$label" \
			"$fresh" "$rep" "$(ratio "$rep" "$fresh")" "$ent" "$fent" "$forced" \
			"$(shift_q "$tmp/s$k.topo" "$tmp/f.bin" "$tmp/f.o")" \
			"$(shift_q "$tmp/s$k.topo" "$tmp/r$k.bin" "$tmp/r.o")" "$(audit_q "$tmp/s$k.topo" "$tmp/r$k.bin")" \
			"$(sed -n 's/.*: against [^ ]*: \(.*\): [0-9]* entries in [0-9]* blocks changed .*/\1/p' "$tmp/err")"
	done < <(seq_steps "$pods")
	rm -f "$tmp"/s*.topo "$tmp"/r*.bin
done
exit 0
