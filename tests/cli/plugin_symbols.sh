#!/usr/bin/env bash
# The OpenSM plugin exports one symbol, osm_event_plugin (plugin/vartree.map),
# as OpenSM's example plugin does: `nm -D --defined-only` lists it and nothing
# else (before the version script it listed 62 names, every vt_* function of
# the core among them).
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
so=$top/build/lib/libvartree.so
[ -f "$so" ] || { echo "plugin not built ($so)"; exit 77; }
command -v nm >/dev/null || { echo "nm missing"; exit 77; }

syms=$(nm -D --defined-only "$so") || { echo "FAIL: nm -D $so"; exit 1; }
# the one symbol is the plugin's table: initialised data that OpenSM reads
if ! grep -Eq '^[0-9a-f]+ D osm_event_plugin$' <<<"$syms" || [ "$(wc -l <<<"$syms")" -ne 1 ]; then
	echo "FAIL: libvartree.so should export osm_event_plugin (data) alone; nm -D --defined-only:"
	printf '%s\n' "$syms"
	exit 1
fi
echo "libvartree.so exports osm_event_plugin alone"
