#!/usr/bin/env bash
# vartree-route --lft-format binary: the file has the documented size, and
# vartree-analyze and vartree-sim give the same figures from it as from the
# opensm-lfts.dump text of the same routing; a bad form or file is refused.
set -eu
bin=$VT_BIN
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/vartree-gen" pruned 8,3 -o "$tmp/f.topo"
"$bin/vartree-route" -q "$tmp/f.topo" -o "$tmp/l.dump" --order-out "$tmp/order"
"$bin/vartree-route" -q "$tmp/f.topo" --lft-format binary -o "$tmp/l.bin"
"$bin/vartree-route" -q "$tmp/f.topo" --lft-format dump -o "$tmp/l2.dump"
cmp "$tmp/l.dump" "$tmp/l2.dump"
sw=$(grep -c '^Unicast lids' "$tmp/l.dump")
nlid=$(($(sed -n '1s/^Unicast lids \[0-\([0-9]*\)\].*/\1/p' "$tmp/l.dump") + 1))
[ "$(head -c 8 "$tmp/l.bin")" = VTLFTB1 ]
[ "$(stat -c %s "$tmp/l.bin")" = $((16 + sw * (8 + nlid))) ]
for f in l.dump l.bin; do
	"$bin/vartree-analyze" "$tmp/f.topo" --lfts "$tmp/$f" --order "$tmp/order" -p shift -p bisection:seed=3,count=4 --json |
		sed 's/"name": "[^"]*"//' >"$tmp/$f.json"
	"$bin/vartree-sim" "$tmp/f.topo" --lfts "$tmp/$f" --order "$tmp/order" --pattern shift:1-8 --size 2048 >"$tmp/$f.sim"
done
grep -q '"unrouted": 0' "$tmp/l.bin.json"
cmp "$tmp/l.dump.json" "$tmp/l.bin.json"
diff <(sed 's/l\.dump/L/g; s/  */ /g' "$tmp/l.dump.sim") <(sed 's/l\.bin/L/g; s/  */ /g' "$tmp/l.bin.sim")
# usage and input errors
set +e
"$bin/vartree-route" -q "$tmp/f.topo" --lft-format text -o "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && [ "$(cat "$tmp/err")" = "vartree-route: --lft-format: 'text' is not one of dump or binary" ] || exit 1
head -c 100 "$tmp/l.bin" >"$tmp/short.bin"
"$bin/vartree-analyze" "$tmp/f.topo" --lfts "$tmp/short.bin" -q 2>"$tmp/err2"
[ $? = 2 ] || exit 1
grep -q "short.bin: 100 bytes, but its header announces $sw switches x $nlid LIDs" "$tmp/err2" || { cat "$tmp/err2"; exit 1; }
echo ok
