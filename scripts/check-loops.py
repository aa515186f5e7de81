#!/usr/bin/env python3
"""No file of uvas calls, through others, back into itself.

Reads the floors' static libraries (nm): an edge from file A to file B
when A uses a symbol B defines. Any cycle of files is printed with the
symbols that make it, and the check fails. With the floors
(check-floors.py) this keeps the code readable bottom-up, file by file
(docs/architecture.md).

usage: check-loops.py ARCHIVE...
"""
import collections
import subprocess
import sys


def main():
    defs, uses = {}, collections.defaultdict(set)
    for ar in sys.argv[1:]:
        out = subprocess.run(["nm", "-A", ar], check=True, capture_output=True, text=True).stdout
        folder = ar.rsplit("/", 1)[0]
        for line in out.splitlines():
            # archive:member:value type symbol (value blank for U)
            _, member, rest = line.split(":", 2)
            name = member.rsplit("/", 1)[-1].rsplit(".c.o", 1)[0]
            f = folder.rsplit("build/", 1)[-1] + "/" + name
            parts = rest.split()
            if len(parts) == 3 and parts[1] in "TDBRC":
                defs[parts[2]] = f
            elif len(parts) == 2 and parts[0] == "U":
                uses[f].add(parts[1])
    edges = collections.defaultdict(set)
    why = collections.defaultdict(set)
    for f, us in uses.items():
        for u in us:
            g = defs.get(u)
            if g and g != f:
                edges[f].add(g)
                why[(f, g)].add(u)
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    if not cycles:
        print(f"check-loops: {len(uses)} files, no loop")
        return 0
    for c in cycles:
        print("check-loops: these files call each other in a loop:", file=sys.stderr)
        for a in c:
            for b in sorted(edges[a] & set(c)):
                print(f"  {a} -> {b}: {', '.join(sorted(why[(a, b)]))}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
