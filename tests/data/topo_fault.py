#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""topo_fault.py TOPO FAULT: TOPO (ibnetdiscover text) with FAULT applied, on stdout.
FAULT is down:NODE:PORT (that link cut at both ends) or down:NODE (the node's
links cut, then whatever no longer reaches the rest: a leaf's hosts). NODE is
the record's quoted id (S-0002c95000000003). Offline twin of vartree-harness -F."""
import re
import sys

def records(lines):
    recs, cur = [], None
    for ln in lines:
        m = re.match(r'^(Switch|Ca|Hca|Rt)\s+\d+\s+"([^"]+)"', ln)
        if m:
            cur = {"id": m.group(2), "head": ln, "ports": []}
            recs.append(cur)
            continue
        m = re.match(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]', ln)
        if m and cur is not None:
            cur["ports"].append((int(m.group(1)), m.group(2), int(m.group(3)), ln))
            continue
        if cur is not None and ln.strip() == "":
            cur = None
    return recs

def main():
    topo, fault = sys.argv[1], sys.argv[2]
    lines = open(topo).read().split("\n")
    parts = fault.split(":")
    if parts[0] != "down" or len(parts) not in (2, 3):
        sys.exit("topo_fault.py: FAULT: expected down:NODE[:PORT]")
    node, port = parts[1], (int(parts[2]) if len(parts) == 3 else None)
    cut = set()  # (id, port) ends whose link is gone
    links = {}
    for r in records(lines):
        for p, peer, pp, _ in r["ports"]:
            links[(r["id"], p)] = (peer, pp)
    if not any(k[0] == node for k in links):
        sys.exit("topo_fault.py: no node '%s' with links in %s" % (node, topo))
    for (n, p), (peer, pp) in links.items():
        if n == node and (port is None or p == port):
            cut |= {(n, p), (peer, pp)}
    # nodes still connected to the first switch that is not the failed one
    adj = {}
    for (n, p), (peer, pp) in links.items():
        if (n, p) not in cut:
            adj.setdefault(n, set()).add(peer)
    start = next(k[0] for k in links if k[0] != node and k[0].startswith("S-") and k[0] in adj)
    seen, todo = {start}, [start]
    while todo:
        for m in adj.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    # blocks between blank lines: a record with the vendid=/switchguid= lines before it
    out, block, rid = [], [], None
    for ln in lines + [""]:
        block.append(ln)
        m = re.match(r'^(Switch|Ca|Hca|Rt)\s+\d+\s+"([^"]+)"', ln)
        if m:
            rid = m.group(2)
        m2 = re.match(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]', ln)
        if m2 and (rid, int(m2.group(1))) in cut:
            block.pop()
        if ln.strip() == "":
            if rid is None or rid in seen:
                out += block
            block, rid = [], None
    sys.stdout.write("\n".join(out[:-1]))

main()
