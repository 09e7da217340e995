#!/usr/bin/env bash
# vartree-gen on bad command lines and specs: exact one-line errors, exit status
# (2 for all: usage, a spec or value that cannot be built, an output that cannot be written),
# no output file and no temporary file left.
. "$(dirname "$0")/robust_lib.bash"
g=$VT_BIN/vartree-gen

# usage errors: 2
expect 2 "vartree-gen: unknown option '--bogus'. Try 'vartree-gen --help'." "$g" fat 4,2 --bogus -o f.topo
expect 2 "vartree-gen: unknown option '-x'. Try 'vartree-gen --help'." "$g" fat 4,2 -x -o f.topo
expect 2 "vartree-gen: option '-o' needs a value. Try 'vartree-gen --help'." "$g" fat 4,2 -o
expect 2 "vartree-gen: option '--seed' needs a value. Try 'vartree-gen --help'." "$g" fat 4,2 -o f.topo --seed
# spec and option values: 2 as well (input the command cannot use)
expect 2 "vartree-gen: bad spec 'fat x,2': expected K,N" "$g" fat x,2 -o f.topo
expect 2 "vartree-gen: bad spec 'fat 99999999999,2': expected K,N" "$g" fat 99999999999,2 -o f.topo
expect 2 "vartree-gen: --seed: 'x' is not an integer (0..2^64-1)" "$g" fat 4,2 --seed x -o f.topo
expect 2 "vartree-gen: --drop-hosts: '-1' is not an integer (0..1000000)" "$g" fat 4,2 --drop-hosts -1 -o f.topo
expect 2 "vartree-gen: --width: '3' is not one of 1, 2, 4, 8 or 12" "$g" fat 4,2 --width 3 -o f.topo
expect 2 "vartree-gen: --speed: 'ZDR' is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR" "$g" fat 4,2 --speed ZDR -o f.topo
expect 2 "vartree-gen: bad spec 'fat 4,2 hosts-per-leaf=9': hosts-per-leaf=9 but leaves have 4 host ports" \
	"$g" fat 4,2 --hosts-per-leaf 9 -o f.topo
expect 2 "vartree-gen: bad spec 'fat 4,2 drop-hosts=999': cannot drop 999 hosts, there are 16" \
	"$g" fat 4,2 --drop-hosts 999 -o f.topo
# a 2-level tree that cannot be connected (was topofiles/oversub-6-4-1-4.topo: four islands)
expect 2 "vartree-gen: bad spec 'oversub 6,4,1,4': not connected: leaves 0 and 1 share no spine (round robin of 1 up-link over 4 spines needs more than half the spines per leaf)" \
	"$g" oversub 6,4,1,4 -o f.topo
expect 2 "vartree-gen: bad spec 'oversub 1,4,1,2': not connected: spine 1 gets no up-link" \
	"$g" oversub 1,4,1,2 --stats
# output in a directory that does not exist
expect 2 "vartree-gen: $tmp/run/nodir/f.topo: cannot create: No such file or directory" \
	"$g" fat 4,2 -o "$tmp/run/nodir/f.topo"
expect 2 "vartree-gen: no SPEC given. Try 'vartree-gen --help'." "$g"
# a spec word's own option keeps vt_gen's wording
expect 2 "vartree-gen: bad option 'seed=x': expected a number" "$g" fat 4,2 seed=x
finish
