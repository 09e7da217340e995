#!/usr/bin/env bash
# --live's local port as infiniband-diags takes it, -C/--Ca CA and -P/--Port PORT, in
# vartree-analyze and vartree-trace: refused without --live, a bad port number refused, and a
# CA that does not exist reaches discovery and fails there with its name (no umad device
# here, or none of that name: exit 2, the last line naming CA and port).
# tests/integration/analyze_live.sh runs -C/-P against ibsim.
. "$(dirname "$0")/robust_lib.bash"
mkbad
try() { echo ". Try '$1 --help'."; }
a=$VT_BIN/vartree-analyze
t=$VT_BIN/vartree-trace
expect 2 "vartree-analyze: -C/-P needs --live$(try vartree-analyze)" "$a" "$tmp/good.topo" --route vartree -C mlx5_0
expect 2 "vartree-analyze: -C/-P needs --live$(try vartree-analyze)" "$a" "$tmp/good.topo" --route vartree --Port 1
expect 2 "vartree-analyze: -P: '255' is not an integer (0..254)" "$a" --live -P 255
expect 2 "vartree-analyze: -P: 'x' is not an integer (0..254)" "$a" --live --Port=x
expect 2 "vartree-analyze: option '-C' needs a value$(try vartree-analyze)" "$a" --live -C
expect 2 "vartree-trace: -C/-P needs --live$(try vartree-trace)" "$t" "$tmp/good.topo" --route vartree -C mlx5_0 H-0000 H-0001
expect 2 "vartree-trace: -P: '-1' is not an integer (0..254)" "$t" --live -P -1 H-0000 H-0001
# -P and --port are different options: the CA port number, the port to ask about
expect 2 "vartree-trace: -C/-P needs --live$(try vartree-trace)" "$t" "$tmp/good.topo" --route vartree -P 1 --port H-0000/1

# with --live: the CA and port named reach discovery (libibumad's own warnings before our line)
for c in "$a --live" "$t --live H-0000 H-0001"; do
	n=$(basename "${c%% *}")
	# shellcheck disable=SC2086
	(cd "$tmp" && $c -C vt-no-such-ca -P 2 >/dev/null 2>"$tmp/err")
	rc=$?
	ncase=$((ncase + 1))
	if [ $rc != 2 ] || [ "$(tail -1 "$tmp/err")" != "$n: live:vt-no-such-ca/2: fabric discovery failed" ]; then
		echo "FAIL: $n --live -C vt-no-such-ca -P 2: exit $rc, $(tail -1 "$tmp/err")"
		nfail=$((nfail + 1))
	fi
done
finish
