#!/usr/bin/env python3
"""tests/calls.py [BUILD [ROOT]]: the call graph between files, from the objects' symbols.

Reads `nm` of every product object under BUILD (default build/: the
library's modules and iowatcher.o, not tests, tools or fuzzers): file A
calls (or reads) file B when A's object has an undefined symbol B's
defines. Calls must run one way between files: each circle (files that
reach each other) is printed, and the exit status is 1 when there is any.
With --unused, also printed: the global functions and data no other
product object names (dead, test-only, or to be made static).
--allow=A,B,...: a circle of exactly those files is printed as known and
does not fail the check (one still to be undone; any other member, or
any other circle, fails it).
"""
import os
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
allowed = [sorted(a.split("=", 1)[1].split(",")) for a in sys.argv[1:]
           if a.startswith("--allow=")]
build = args[0] if args else "build"
unused = "--unused" in sys.argv

objs = []
for d, dirs, names in os.walk(build):
    rel = os.path.relpath(d, build)
    top = rel.split(os.sep)[0]
    if top in ("tests", "bench", "scripts", "fuzz") or "bpf" in rel.split(os.sep):
        continue
    for n in names:
        if n.endswith(".o"):
            objs.append(os.path.normpath(os.path.join(rel, n)))
if not objs:
    raise SystemExit("%s: no objects (build first)" % build)

defs, undefs = {}, {}
for o in sorted(objs):
    out = subprocess.run(["nm", os.path.join(build, o)], capture_output=True,
                         text=True, check=True).stdout
    src = o[:-2] + ".c"
    defs[src], undefs[src] = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefs[src].add(f[1])
        elif len(f) == 3 and f[1] in "TDBRGSV":
            defs[src].add(f[2])
owner = {}
for src, syms in defs.items():
    for s in syms:
        owner[s] = src
edges = {src: set() for src in defs}
why = {}
for src, syms in undefs.items():
    for s in syms:
        b = owner.get(s)
        if b and b != src:
            edges[src].add(b)
            why.setdefault((src, b), s)

# strongly connected components (Tarjan, iterative)
index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
def strong(v0):
    work = [(v0, iter(sorted(edges[v0])))]
    index[v0] = low[v0] = counter[0]; counter[0] += 1
    stack.append(v0); on.add(v0)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
                break
            if w in on:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
for v in sorted(edges):
    if v not in index:
        strong(v)
circles = [c for c in comps if len(c) > 1]
known = [c for c in circles if c in allowed]
circles = [c for c in circles if c not in allowed]
for c in sorted(circles) + sorted(known):
    inner = ["%s -> %s (%s)" % (a, b, why[(a, b)])
             for a in c for b in sorted(edges[a]) if b in c]
    print("%s: %s: %s" %
          ("a known circle, still to undo" if c in known else
           "files call each other in a circle", " ".join(c),
           "; ".join(inner)))
n_edges = sum(len(e) for e in edges.values())
if unused:
    named = set()
    for src, syms in undefs.items():
        named |= syms
    for src in sorted(defs):
        for s in sorted(defs[src] - named):
            if s != "main":
                print("unused outside its file: %s %s" % (src, s))
print("%d files, %d calls between files, %d circles (%d known)" %
      (len(defs), n_edges, len(circles), len(known)))
sys.exit(1 if circles else 0)
