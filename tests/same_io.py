#!/usr/bin/env python3
# same_io.py A.json B.json DEVICE: whether two --summary=json outputs show
# the same I/O of DEVICE (counts and bytes exact, each latency's mean within
# 2% or 1 us, whichever is wider, and the mean depth as wide a share as
# D2C's mean: two tools stamp each event with their
# own clock reading at their own probe, so their means differ by an
# offset, not a share, and a mean of a few us holds it whole: Q2D 5.80
# against 5.22 us once on a loaded machine, Q2C 23.88 against 24.36 us
# in a fresh clone's make check),
# as t_perftext and t_tracedat compare one run recorded two ways; says
# what differs and exits 1 when not.
import json, sys
def dev(path, name):
    for t in json.load(open(path))["traces"]:
        for d in t["devices"]:
            if d["device"] == name:
                return d
    raise SystemExit("%s: no device %s" % (path, name))
a, b = dev(sys.argv[1], sys.argv[3]), dev(sys.argv[2], sys.argv[3])
bad = []
for cls in ("read", "write", "discard"):
    if a[cls] != b[cls]:
        bad.append("%s %s != %s" % (cls, a[cls], b[cls]))
for k in ("queued", "merges", "flush"):
    if k == "flush":
        if a[k]["ios"] != b[k]["ios"]:
            bad.append("flush ios %s != %s" % (a[k]["ios"], b[k]["ios"]))
    elif a[k] != b[k]:
        bad.append("%s %s != %s" % (k, a[k], b[k]))
for k in ("d2c_us", "q2c_us", "q2d_us"):
    if a[k]["n"] != b[k]["n"]:
        bad.append("%s n %s != %s" % (k, a[k]["n"], b[k]["n"]))
    x, y = a[k]["mean"], b[k]["mean"]
    if abs(x - y) > max(0.02 * x, 1.0):
        bad.append("%s mean %s vs %s" % (k, x, y))
# the mean depth is the D2C times' sum over the span, so it carries each
# D2C's offset too: as wide a share as D2C's mean is allowed, and half a
# percent for the two spans' ends (CI's ASan pass failed t_tracedat at
# 0.3472 against 0.3582, 3.1%, D2C means of a few tens of us passing)
x, y = a["queue_depth_mean"], b["queue_depth_mean"]
m = a["d2c_us"]["mean"]
share = max(0.02, 1.0 / m) if m > 0 else 0.02
if abs(x - y) > (share + 0.005) * x + 1e-3:
    bad.append("depth %s vs %s" % (x, y))
if bad:
    raise SystemExit("; ".join(bad))
