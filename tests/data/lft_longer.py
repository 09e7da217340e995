#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lft_longer.py TOPO A.dump B.dump: how many (switch, CA LID) entries route to
the CA in more switch hops through A's tables than through B's, both arriving.
An independent oracle for vt_lfts_longer (vartree-route --previous's count of
routes a repair made longer); reads vartree-gen's ibnetdiscover output."""
import re
import sys


def links(topo):
    """{(node id, port): peer id}, {node id: lid}, set of CA ids."""
    peer, lid, cas, cur = {}, {}, set(), None
    for ln in open(topo):
        m = re.match(r'^(Switch|Ca|Hca)\s+\d+\s+"([^"]+)"(.*)', ln)
        if m:
            cur = m.group(2)
            if m.group(1) != "Switch":
                cas.add(cur)
            m2 = re.search(r"\blid (\d+)", m.group(3))
            if m2:
                lid[cur] = int(m2.group(1))
            continue
        m = re.match(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\](.*)', ln)
        if m and cur is not None:
            peer[(cur, int(m.group(1)))] = m.group(2)
            m2 = re.search(r"\blid (\d+)", m.group(4))
            if cur in cas and m2:
                lid[cur] = int(m2.group(1))
    return peer, lid, cas


def tables(dump):
    """{switch id: {lid: port}}, switch ids as S-<guid without 0x>."""
    t, cur = {}, None
    for ln in open(dump):
        m = re.match(r"^Unicast lids .* guid 0x([0-9a-fA-F]+)", ln)
        if m:
            cur = t.setdefault("S-" + m.group(1).lower(), {})
            continue
        m = re.match(r"^0x([0-9a-fA-F]+)\s+(\d+)", ln)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return t


def hops(t, peer, dst, sw, lid):
    n, seen = 0, set()
    while sw not in seen:
        seen.add(sw)
        p = t.get(sw, {}).get(lid)
        nxt = peer.get((sw, p)) if p else None
        if nxt is None:
            return None
        n += 1
        if nxt == dst:
            return n
        if not nxt.startswith("S-"):
            return None
        sw = nxt
    return None


def main():
    peer, lid, cas = links(sys.argv[1])
    a, b = tables(sys.argv[2]), tables(sys.argv[3])
    n = 0
    for ca in sorted(cas):
        if ca not in lid:
            continue
        for sw in a:
            x = hops(a, peer, ca, sw, lid[ca])
            y = hops(b, peer, ca, sw, lid[ca])
            n += x is not None and y is not None and x > y
    print(n)


main()
