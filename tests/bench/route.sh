#!/usr/bin/env bash
# Routing time of vartree-route on pruned 36-port fabrics (6, 9, 18 pods), as
# reported by vartree-route itself (routing only, not loading or writing).
# TODO: the same fabric routed by OpenSM's ftree inside OpenSM+ibsim, timed
# from the OpenSM log, is not measured yet; its column says so.
set -eu
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${VT_BIN:-$top/build/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-16s %8s %8s %14s %s\n' fabric hosts switches vartree_s ftree
for pods in 6 9 18; do
	"$bin/vartree-gen" pruned 36,$pods -o "$tmp/f.topo" >/dev/null
	t=$("$bin/vartree-route" "$tmp/f.topo" -o "$tmp/l.dump" 2>&1 |
		sed -n 's/.*routed \([0-9]*\) switches x \([0-9]*\) LIDs in \([0-9.]*\) s/\1 \2 \3/p')
	set -- $t
	hosts=$(grep -c '^Ca\|^Hca' "$tmp/f.topo" || true)
	printf '%-16s %8s %8s %14s %s\n' "pruned36,$pods" "$hosts" "$1" "$3" "not measured (ibsim run not written yet)"
done
