#!/usr/bin/env bash
# Regenerates the fixtures of this directory: OpenSM 3.3.23's minhop and ftree
# tables for the Fig. 6 fabric (/work/shared/fixtures/fig6/is1_3l_32n.net, the
# Mellanox OMNeT++ model's example), run on ibsim, and ibnetdiscover's view of it.
# Usage: capture.sh NETFILE OUTDIR
set -eu
net=$1 out=$2
pre=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
export IBSIM_SOCKNAME=vt-$$-fig6
tmp=$(mktemp -d)
ibsim -n -s "$net" >"$tmp/ibsim.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 2
for eng in minhop ftree; do
	mkdir -p "$tmp/$eng"
	echo "dump_files_dir $tmp/$eng" >"$tmp/$eng.conf"
	# -D 0x43 (routing log level) makes OpenSM write opensm-lfts.dump
	LD_PRELOAD=$pre opensm -o -D 0x43 -R $eng -F "$tmp/$eng.conf" -f "$tmp/$eng/opensm.log" >/dev/null
	cp "$tmp/$eng/opensm-lfts.dump" "$out/$eng-lfts.dump"
	cp "$tmp/$eng/opensm.fdbs" "$out/$eng.fdbs"
done
cp "$tmp/ftree/opensm-ftree-ca-order.dump" "$out/ftree-ca-order.dump"
LD_PRELOAD=$pre ibnetdiscover >"$out/ibnetdiscover.txt"
