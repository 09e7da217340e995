#!/usr/bin/env python3
"""Checks a topology.conf against Slurm's documented grammar for topology/tree.

Written from topology.conf(5) and the behaviour of Slurm's tree plugin
(src/plugins/topology/tree): '#' starts a comment to the end of the line;
each line is KEY=VALUE words, keys case-insensitive; a line starts with
SwitchName (unique, at most 64 characters) and may have Switches, Nodes
(hostlist expressions, "tux[0-3,12,18-20]") and LinkSpeed (an unsigned
integer); a switch has child switches or nodes, not both; every child
switch is defined, none is its own child, levels resolve (a tree, at most
20 deep); older Slurm limits a line to 1024 characters.

Usage: slurm_topology_check.py FILE [SCONTROL] -> prints "leaf SWITCH HOST..."
per leaf switch in file order and "root SWITCH" for every switch that reaches
all nodes; exits 1 with a message on the first violation. A node on two leaf
switches (a Slurm warning) is reported as a violation too, and so is a switch
whose level as Slurm counts it (a leaf 0, else one above its highest child)
differs from the "level L" that vartree's comment line above it gives.
With SCONTROL, the output of `scontrol show topology` for FILE: every switch
of FILE must be there once, with that level, the same child switches and the
nodes below it, and no other switch ("slurmctld agrees: N switches").
"""
import re
import sys


def fail(msg):
    print("topology.conf: " + msg, file=sys.stderr)
    sys.exit(1)


def expand(expr):
    """Slurm hostlist expression -> names, in order."""
    out, i, n = [], 0, len(expr)
    while i < n:
        j = i
        while j < n and expr[j] not in ",[":
            j += 1
        prefix = expr[i:j]
        if j < n and expr[j] == "[":
            k = expr.index("]", j)
            for r in expr[j + 1:k].split(","):
                if not re.fullmatch(r"\d+(-\d+)?", r):
                    fail("bad range '%s' in '%s'" % (r, expr))
                lo, _, hi = r.partition("-")
                hi = hi or lo
                if int(hi) < int(lo):
                    fail("descending range '%s'" % r)
                w = len(lo)
                for v in range(int(lo), int(hi) + 1):
                    out.append("%s%0*d" % (prefix, w, v))
            j = k + 1
            if j < n and expr[j] != ",":
                fail("text after ']' in '%s'" % expr)
        elif prefix:
            out.append(prefix)
        else:
            fail("empty name in '%s'" % expr)
        i = j + 1
    return out


def main(path, scontrol=None):
    switches, order, said, comment = {}, [], {}, None
    for ln, raw in enumerate(open(path, encoding="utf-8", errors="strict"), 1):
        if len(raw.rstrip("\n")) > 1024:
            fail("%d: line longer than 1024 characters" % ln)
        if raw.rstrip("\n").endswith("\\"):
            fail("%d: line continues onto the next" % ln)
        line = raw.split("#", 1)[0].strip()
        m = re.fullmatch(r'# ".*" 0x[0-9a-f]{16} level (\d+)', raw.rstrip("\n"))
        if m:
            comment = int(m.group(1))
        if not line:
            continue
        rec = {}
        for w in line.split():
            if "=" not in w:
                fail("%d: '%s' is not KEY=VALUE" % (ln, w))
            k, v = w.split("=", 1)
            k = k.lower()
            if k not in ("switchname", "switches", "nodes", "linkspeed") or k in rec or not v:
                fail("%d: bad or repeated key '%s'" % (ln, k))
            rec[k] = v
        if list(rec)[0] != "switchname":
            fail("%d: a line starts with SwitchName" % ln)
        name = rec["switchname"]
        if len(name) > 64:
            fail("%d: SwitchName longer than 64 characters" % ln)
        if name in switches:
            fail("%d: switch %s defined twice" % (ln, name))
        if "switches" in rec and "nodes" in rec:
            fail("%d: switch %s has both child switches and nodes" % (ln, name))
        if "linkspeed" in rec and not rec["linkspeed"].isdigit():
            fail("%d: LinkSpeed is not an unsigned integer" % ln)
        switches[name] = (expand(rec.get("switches", "")) if "switches" in rec else None,
                          expand(rec["nodes"]) if "nodes" in rec else [])
        order.append(name)
        if comment is not None:
            said[name] = comment
        comment = None
    if not switches:
        fail("no switches")
    level, nodes = {}, {}
    for s in order:
        if switches[s][0] is None:
            level[s], nodes[s] = 0, set(switches[s][1])
    for depth in range(21):
        todo = [s for s in order if s not in level]
        if not todo:
            break
        for s in todo:
            kids = switches[s][0]
            for c in kids:
                if c not in switches or c == s:
                    fail("switch %s has invalid child %s" % (s, c))
            if all(c in level for c in kids):
                level[s] = 1 + max(level[c] for c in kids) if kids else 0
                nodes[s] = set().union(*(nodes[c] for c in kids)) if kids else set()
    else:
        fail("switch configuration is not a tree")
    seen = {}
    for s in order:
        if switches[s][0] is None:
            for h in switches[s][1]:
                if h in seen:
                    fail("node %s on leaf switches %s and %s" % (h, seen[h], s))
                seen[h] = s
            print("leaf", s, *switches[s][1])
    for s in order:
        if s in said and said[s] != level[s]:
            fail("switch %s: level %d in Slurm's count, %d in vartree's comment" %
                 (s, level[s], said[s]))
    for s in order:
        if nodes[s] == set(seen):
            print("root", s)
    if scontrol:
        compare(scontrol, switches, level, nodes)


def compare(path, switches, level, nodes):
    """scontrol show topology ("SwitchName=X Level=L LinkSpeed=S Nodes=.. Switches=..")."""
    got = {}
    for raw in open(path, encoding="utf-8"):
        if not raw.strip():
            continue
        rec = dict(w.split("=", 1) for w in raw.split())
        name = rec.get("SwitchName")
        if name is None or name in got:
            fail("scontrol: unexpected line: " + raw.strip())
        got[name] = rec
    if set(got) != set(switches):
        fail("scontrol: switches %s missing, %s extra" %
             (sorted(set(switches) - set(got)), sorted(set(got) - set(switches))))
    for s, rec in got.items():
        kids = switches[s][0]
        want = {"Level": str(level[s]), "Nodes": sorted(nodes[s]),
                "Switches": sorted(kids) if kids else []}
        have = {"Level": rec.get("Level"), "Nodes": sorted(expand(rec["Nodes"]))
                if "Nodes" in rec else [],
                "Switches": sorted(expand(rec["Switches"])) if "Switches" in rec else []}
        for k in want:
            if want[k] != have[k]:
                fail("scontrol: switch %s: %s %s, want %s" % (s, k, have[k], want[k]))
    print("slurmctld agrees: %d switches" % len(got))


main(*sys.argv[1:3])
