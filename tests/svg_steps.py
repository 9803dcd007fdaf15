#!/usr/bin/env python3
# svg_steps.py FILE.svg: prints how many paths of FILE are drawn as steps
# (a line of straight segments, no curves, with a level, a rise and a
# level in a row, as mpstat's seconds are drawn); exits 1 when none is.
import re, sys
svg = open(sys.argv[1]).read()
found = 0
for d in re.findall(r' d="([^"]*)"', svg):
    if 'C' in d or 'Z' in d:
        continue
    pts = [tuple(map(float, p)) for p in re.findall(r'[ML] ([-0-9.]+) ([-0-9.]+)', d)]
    if len(pts) < 6:
        continue
    seg = []
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        seg.append('h' if abs(y1 - y0) < 1e-6 and abs(x1 - x0) > 1 else
                   'v' if abs(x1 - x0) < 1e-6 and abs(y1 - y0) > 1 else 's')
    if 'hvh' in ''.join(seg) and 's' not in seg:
        found += 1
print(found)
sys.exit(0 if found else 1)
