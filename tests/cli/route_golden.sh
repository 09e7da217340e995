#!/usr/bin/env bash
# Golden tables: vartree-route on every topofile and on a set of generated,
# degraded, multi-rail and LMC variants; the SHA-256 of its forwarding tables,
# of its host order and of its refusal line must equal the list checked in as
# tests/data/route-golden.txt. A change that alters any routing fails here;
# `make golden` rewrites the list, and the commit that does so says why.
# A case missing from the list (or listed but no longer produced) fails too.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# normal build: the same code as the sanitizer build, and the larger fabrics
# below take seconds here but minutes under ASan
bin=$top/build/bin
list=$top/tests/data/route-golden.txt
[ -x "$bin/vartree-route" ] && [ -x "$bin/vartree-gen" ] || { echo "normal build missing"; exit 77; }
[ -f "$top/topofiles/zahavi-4ary3.topo" ] || { echo "topofiles not generated"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NAME | vartree-gen SPEC and options, or @topofile | extra vartree-route options
cases() {
	for f in "$top"/topofiles/*.topo; do
		echo "$(basename "$f" .topo)|@$f|"
	done
	cat <<'EOF'
lmc1-4ary3|@zahavi-4ary3|--lmc 1
lmc2-4ary3|@zahavi-4ary3|--lmc 2
lmc1-8ary3-mixed|@degraded-8ary3-mixed|--lmc 1
lmc2-rails2-4ary3|@rails2-4ary3|--lmc 2
lmc1-slender-4-2-4|@navaridas-slender-4-2-4|--lmc 1
gen-pruned-36-12|pruned 36,12|
gen-pruned-36-12-drop-links|pruned 36,12 --drop-links 7@0 --seed 3|
gen-fat-8-3-drop-links-1|fat 8,3 --drop-links 5@1 --seed 2|
gen-fat-4-3-drop-links-1|fat 4,3 --drop-links 1@1 --seed 1|
gen-fat-8-3-drop-switches|fat 8,3 --drop-switches 2 --seed 4|
gen-fat-8-3-drop-mid|fat 8,3 --drop-switches 1@1 --seed 5|
gen-thin-8-4-3-drop|thin 8:4,3 --drop-links 4@0 --seed 6|
gen-slender-4-2-4-drop|slender 4:2,4 --drop-links 3@1 --seed 7|
gen-varary-drop-hosts|varary 4,4,2:4,2:1,2 --drop-hosts 9 --seed 8|
gen-oversub-drop|oversub 8,12,4,4 --drop-links 2@0 --seed 9|
gen-rails2-fat-4-3-drop|rails 2 fat 4,3 --drop-links 2@0 --seed 10|
gen-fat-4-3-half-hosts|fat 4,3 --hosts-per-leaf 2|
EOF
}

: >"$tmp/got"
nfail=0
while IFS='|' read -r name src ropts; do
	f=$src
	if [[ $src == @* ]]; then
		f=${src#@}
		[[ $f == /* ]] || f=$top/topofiles/$f.topo
	else
		# shellcheck disable=SC2086
		"$bin/vartree-gen" $src -o "$tmp/g.topo" 2>"$tmp/err" || {
			echo "FAIL: $name: vartree-gen $src: $(head -1 "$tmp/err")"
			nfail=$((nfail + 1))
			continue
		}
		f=$tmp/g.topo
	fi
	rm -f "$tmp/l" "$tmp/o"
	# shellcheck disable=SC2086
	"$bin/vartree-route" -q "$f" $ropts -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ]; then
		printf '%s lfts %s order %s\n' "$name" "$(sha256sum <"$tmp/l" | cut -c1-16)" \
			"$(sha256sum <"$tmp/o" | cut -c1-16)" >>"$tmp/got"
	else
		# the refusal names the file: FILE in its place, so the digest does not
		# depend on where the checkout is
		e=$(<"$tmp/err")
		printf '%s refused %s\n' "$name" "$(printf '%s\n' "${e//"$f"/FILE}" | sha256sum | cut -c1-16)" \
			>>"$tmp/got"
	fi
done < <(cases)

if [ "${VT_GOLDEN_UPDATE:-}" = 1 ]; then
	{
		echo "# vartree-route golden digests: NAME lfts SHA order SHA | NAME refused SHA(stderr)"
		echo "# rewritten by 'make golden' (tests/cli/route_golden.sh); see that script for the cases"
		cat "$tmp/got"
	} >"$list.tmp" && mv "$list.tmp" "$list"
	echo "wrote $(wc -l <"$tmp/got") digests to $list"
	exit $nfail
fi
[ -f "$list" ] || { echo "FAIL: $list missing (make golden)"; exit 1; }
if ! diff <(grep -v '^#' "$list") "$tmp/got" >"$tmp/diff"; then
	echo "FAIL: tables differ from $list (lines: < listed, > now):"
	cat "$tmp/diff"
	nfail=$((nfail + 1))
fi
echo "$(wc -l <"$tmp/got") cases, $nfail failures"
[ $nfail = 0 ]
