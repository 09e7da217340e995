#!/usr/bin/env bash
# Habits every command shares: --version prints "NAME VERSION" (the one of lib/base/vt_version.h)
# and exits 0; --help and the man page's OPTIONS list the same options; every command and
# script has a man page (vartree-sim included).
set -u
VT_TMP_HELP=$(mktemp)
trap 'rm -f "$VT_TMP_HELP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
top=$VT_TOP
ver=$(sed -n 's/^#define VT_VERSION "\(.*\)"$/\1/p' "$top/lib/base/vt_version.h")
[ -n "$ver" ] || fail "no VT_VERSION"
bin() { if [ -x "$VT_BIN/$1" ]; then echo "$VT_BIN/$1"; else echo "$top/sim/$1"; fi; }
for c in vartree-analyze vartree-route vartree-trace vartree-gen vartree-sim vartree-sweep vartree-harness vartree-compare vartree-demo; do
	for v in --version -V; do
		out=$("$(bin $c)" $v 2>&1); rc=$?
		[ $rc = 0 ] && [ "$out" = "$c $ver" ] || fail "$c $v: rc $rc, '$out'"
	done
	[ -f "$top/man/$c.1" ] || fail "$c has no man page"
	"$(bin $c)" --help >"$VT_TMP_HELP" 2>&1 || fail "$c --help exit"
	python3 - "$VT_TMP_HELP" "$top/man/$c.1" "$c" "$top/man/vartree.7" <<'P' || fail "$c: --help and man page differ"
import re, sys
help_text, man, cmd = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
opt = re.compile(r"(?<![\w-])--?[a-zA-Z][a-zA-Z-]*")
# --help: option lines ("  -o, --output FILE  ...") and the synopsis lines of the usage
helps = set()
for line in help_text.splitlines():
    if re.match(r"\s+-", line):
        helps |= set(opt.findall(re.split(r"\s{2,}", line.strip())[0]))
    elif re.match(r"(usage:|Usage:)|\s+\[", line):
        helps |= set(opt.findall(line))
helps -= {"--"}
# man: the tag line after each .TP that starts with an option, in any section
# (OPTIONS, or one of its own like vartree-gen's REAL-FABRIC FEATURES)
sec = man.splitlines()
mans = set()
for i, l in enumerate(sec):
    if (l.startswith(".TP") or l.startswith(".TQ")) and i + 1 < len(sec):
        tag = re.sub(r"\\f[BIRP]", "", sec[i + 1]).replace("\\-", "-")
        if re.match(r"\.B[IR]*\s+-", tag):
            mans |= set(opt.findall(tag))
if helps != mans:
    print(cmd, "only in --help:", sorted(helps - mans), "only in the man page:", sorted(mans - helps))
    sys.exit(1)
# the vocabulary: vartree(7)'s table, "short<TAB>long ..." rows between .TS and .TE
seven = open(sys.argv[4]).read().replace("\\-", "-")
table = seven.split(".SH OPTION VOCABULARY", 1)[1].split(".TS", 1)[1].split(".TE", 1)[0]
vocab = {}
for row in table.splitlines()[2:]:
    cols = row.split("\t")
    if re.fullmatch(r"-[a-zA-Z]", cols[0]):  # not a T{ text block's lines
        vocab[cols[0][1]] = cols[1].split()[0]
# infiniband-diags' letters, where vartree uses them, mean what they mean there
diags = {"h": "--help", "V": "--version", "C": "--Ca", "P": "--Port", "G": "--guid", "L": "--lid", "v": "--verbose"}
for k, v in diags.items():
    if vocab.get(k) != v:
        print("vartree(7): -%s is %s, infiniband-diags' is %s" % (k, vocab.get(k), v))
        sys.exit(1)
pair = re.compile(r"(?<![\w-])-([a-zA-Z])\s*[,|]\s*(--[a-zA-Z][a-zA-Z-]*)")
paired = {}
for line in help_text.splitlines():
    if re.match(r"\s+-", line):
        text = re.split(r"\s{2,}", line.strip())[0]
    elif re.match(r"(usage:|Usage:)|\s+\[", line):
        text = line
    else:
        continue
    for s, l in pair.findall(text):
        paired[s] = l
bad = []
for o in sorted(helps):
    if re.fullmatch(r"-[a-zA-Z]", o):
        k = o[1]
        if k not in vocab:
            bad.append("%s is not in vartree(7)'s OPTION VOCABULARY" % o)
        elif paired.get(k) != vocab[k]:
            bad.append("%s is %s here, %s in vartree(7)" % (o, paired.get(k), vocab[k]))
for k in "DtdsyzR":  # infiniband-diags' other letters (and OpenSM's -R): never another meaning
    if "-" + k in helps:
        bad.append("-%s has a meaning of its own here" % k)
if bad:
    print(cmd + ":", "; ".join(bad))
    sys.exit(1)
P
done
# short options given up for the vocabulary: refused with their new form, exit 2
retired() { # command option message
	out=$("$(bin "$1")" "$2" x 2>&1); rc=$?
	[ $rc = 2 ] && [ "$out" = "$1: option '$2' is now $3 (vartree(7), OPTION VOCABULARY). Try '$1 --help'." ] ||
		fail "$1 $2: rc $rc, '$out'"
}
retired vartree-sim -j --json
retired vartree-harness -C "-c, --conf-line"
retired vartree-harness -P --max-ports
retired vartree-harness -r --read-back
retired vartree-harness -l --lmc
echo ok
