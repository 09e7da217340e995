#!/usr/bin/env bash
# vartree-sim against the reference run of Zahavi et al. Fig. 6 (fixtures/fig6/README.md):
# ftree/minhop and vartree/minhop completion ratios within +-0.03 of the reference
# for 1-8 KB at SDR and DDR, with OpenSM 3.3.23's tables captured on ibsim
# (tests/data/fig6); the link bound (N-1) m / rate for congestion-free tables.
set -u
d=$VT_TOP/tests/data/fig6
sim() { "$VT_BIN/vartree-sim" -q --json --preset fig6 --order "$d/ftree-ca-order.dump" "$@" "$d/ibnetdiscover.txt"; }
total() { grep -o '"total_us": [0-9.]*' | sed -n "${1}p" | cut -d' ' -f2; }
fail=0
# speed size reference-ratio
while read -r sp size ref; do
	out=$(sim --speed "$sp" --size "$size" --lfts "$d/minhop-lfts.dump" \
		--lfts "$d/ftree-lfts.dump" --route vartree) || { echo "run failed: $sp $size"; exit 1; }
	mh=$(total 1 <<<"$out") ft=$(total 2 <<<"$out") vt=$(total 3 <<<"$out")
	for x in "ftree $ft" "vartree $vt"; do
		set -- $x
		r=$(awk -v a="$2" -v b="$mh" 'BEGIN { printf "%.3f", a / b }')
		ok=$(awk -v r="$r" -v ref="$ref" 'BEGIN { print (r >= ref - 0.03 && r <= ref + 0.03) }')
		echo "$sp $size $1/minhop $r (reference $ref) minhop ${mh}us $1 ${2}us"
		[ "$ok" = 1 ] || { echo "FAIL: ratio out of band"; fail=1; }
	done
	grep -q '"deadlock": true\|"credit_violations": [1-9]' <<<"$out" && { echo "FAIL: deadlock or credit violation"; fail=1; }
done <<'REF'
DDR 1K 0.615
DDR 2K 0.612
DDR 4K 0.610
DDR 8K 0.609
SDR 1K 0.600
SDR 2K 0.598
SDR 4K 0.603
SDR 8K 0.605
REF
# every injected byte delivered once: 32 * 31 messages of 8 KB
out=$(sim --speed DDR --size 8K --lfts "$d/ftree-lfts.dump")
grep -q '"bytes_injected": 8126464, "bytes_delivered": 8126464' <<<"$out" || { echo "FAIL: bytes"; fail=1; }
# link bound: 31 * 8192 B at 2 GB/s = 126.976 us; within 3 % plus 1 us of it
t=$(total 1 <<<"$out")
awk -v t="$t" 'BEGIN { b = 31 * 8192 / 2000; exit !(t >= b && t <= b * 1.03 + 1) }' ||
	{ echo "FAIL: ftree DDR 8K $t us outside [126.976, 131.8]"; fail=1; }
echo "bound: ftree DDR 8K ${t}us vs 126.976us"
exit $fail
