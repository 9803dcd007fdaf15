#!/usr/bin/env python3
"""tests/layers.py [ROOT]: the include graph against the stages.

The Makefile's STAGES name the stages' folders in the order of the
pipeline, lowest first, and its FRONT_DOORS the stage of each file kept
at the top (the others at the top are the program's main, above every
stage). A file may include its own stage's headers and lower stages',
never a higher stage's: each include that points up is printed, and the
exit status is 1 when there is any. Nor may modules include each other
in a circle: a module is a .c with its .h, and a header of no .c of its
own (an internal header such as graph_int.h) passes its includes on to
whoever includes it; each circle is printed and fails the check. Also
printed: the files at the top (at most 16) and every object or
dependency file beside a source.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
mk = open(os.path.join(root, "Makefile")).read().replace("\\\n", " ")
def var(name):
    m = re.search(r"^%s = (.*)$" % name, mk, re.M)
    if not m:
        raise SystemExit("Makefile: no %s" % name)
    return m.group(1).split()
stages = var("STAGES")
front = dict(x.split(":") for x in var("FRONT_DOORS"))
rank = {s: i for i, s in enumerate(stages)}
MAIN = len(stages)

def stage_of(path):
    top = path.split("/")[0]
    if "/" in path and top in rank:
        return rank[top]
    if "/" not in path:
        return rank[front[path]] if path in front else MAIN
    return None          # tests, tools, fuzz: not a stage

sources = []
for d, dirs, names in os.walk(root):
    rel = os.path.relpath(d, root)
    dirs[:] = [x for x in dirs if not x.startswith(".") and
               x not in ("build", "node_modules") and not x.startswith("build-")]
    for n in names:
        if n.endswith((".c", ".h")):
            sources.append(os.path.normpath(os.path.join(rel, n)))
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
bad = []
for f in sorted(sources):
    a = stage_of(f)
    if a is None:
        continue
    here = os.path.dirname(f)
    for h in inc.findall(open(os.path.join(root, f), errors="replace").read()):
        beside = os.path.normpath(os.path.join(here, h))
        target = beside if os.path.exists(os.path.join(root, beside)) else h
        if not os.path.exists(os.path.join(root, target)):
            continue     # generated (the BPF skeleton) or a system's
        b = stage_of(target)
        if b is not None and b > a:
            name = lambda r: stages[r] if r < MAIN else "main"
            bad.append("%s (%s) includes %s (%s), a later stage" %
                       (f, name(a), target, name(b)))
# modules: a .c with its .h; a header of no .c of its own is part of
# whoever includes it
def module(p):
    return os.path.splitext(p)[0]
have_c = {module(s) for s in sources if s.endswith(".c")}
includes = {}
for f in sources:
    here = os.path.dirname(f)
    lst = []
    for h in inc.findall(open(os.path.join(root, f), errors="replace").read()):
        beside = os.path.normpath(os.path.join(here, h))
        target = beside if os.path.exists(os.path.join(root, beside)) else h
        if os.path.exists(os.path.join(root, target)):
            lst.append(target)
    includes[f] = lst
edges = {}
for f in sources:
    if stage_of(f) is None or module(f) not in have_c:
        continue
    seen, todo = set(), list(includes[f])
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        if module(t) in have_c:
            if module(t) != module(f):
                edges.setdefault(module(f), set()).add(module(t))
        else:
            todo += includes.get(t, [])
def circles(graph):
    index, low, stack, on, found = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))
    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found
for c in circles(edges):
    bad.append("modules include each other in a circle: %s" % " ".join(c))
top = [s for s in sources if "/" not in s]
beside = []
for d, dirs, names in os.walk(root):
    dirs[:] = [x for x in dirs if not x.startswith(".") and x != "build"
               and not x.startswith("build-") and x != "node_modules"]
    beside += [os.path.join(d, n) for n in names if n.endswith((".o", ".d"))]
for b in bad:
    print(b)
print("%d includes point up or circle; %d sources at the top (%s); %d objects or "
      ".d files beside the sources%s" %
      (len(bad), len(top), " ".join(sorted(top)), len(beside),
       (": " + " ".join(beside[:5])) if beside else ""))
sys.exit(1 if bad or len(top) > 16 or beside else 0)
