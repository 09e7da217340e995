# shellcheck shell=bash
# Sourced by the tests that run the normal (optimised) build's commands rather
# than $VT_BIN's sanitizer build (same code; whole-fabric audits take minutes
# under ASan): sets top, bin and tmp (removed at exit); status 77 (skipped)
# when that build is missing.
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$top/build/bin
[ -x "$bin/vartree-route" ] && [ -x "$bin/vartree-gen" ] || { echo "normal build missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
