#!/usr/bin/env python3
"""tests/merge_check.py one ONE.json MERGED.json: the merged summary of
traces against the summary of the same I/O read in one pass (the traces
one after another, tests/tools/concat_traces.py): every count, byte and
latency figure (n, mean, percentiles, max, sum_ns, max_ns, hist, the
log2 histograms), loss window and tag equal; the duration within the two inputs' rounding;
the queue depth's mean within 1e-4 (its area is summed at 1 ns); seeks
within one (a one-pass read counts a seek where the second trace's first
request does not follow the first's last).
tests/merge_check.py equal A.json B.json: equal but for "source".
Prints a FAIL line per difference and exits 1 if any."""
import json
import sys

EXACT_DEVICE = ["read", "write", "queued", "merges", "discard", "flush",
                "zone-mgmt", "write-zeroes", "empty_completions",
                "d2c_us", "q2c_us", "q2d_us", "latency_by_class",
                "d2c_hist_us", "lost_in_flight", "unseen_completions"]
EXACT_TRACE = ["events", "lost_events", "lost_count_known",
               "lost_unlocated", "loss_windows", "files_ended_early", "tags"]


def fails(one, merged):
    out = []
    t1, tm = one["traces"], merged["traces"]
    if len(t1) != 1 or len(tm) != 1:
        return ["one trace each expected: %d, %d" % (len(t1), len(tm))]
    t1, tm = t1[0], tm[0]
    for k in EXACT_TRACE:
        if t1.get(k) != tm.get(k):
            out.append("%s: %r != %r" % (k, t1.get(k), tm.get(k)))
    if abs(t1["duration_s"] - tm["duration_s"]) > 2.5e-6:
        out.append("duration_s %r != %r" % (t1["duration_s"],
                                             tm["duration_s"]))
    d1 = {d["device"]: d for d in t1["devices"]}
    dm = {d["device"]: d for d in tm["devices"]}
    if sorted(d1) != sorted(dm):
        out.append("devices %s != %s" % (sorted(d1), sorted(dm)))
    for name in sorted(set(d1) & set(dm)):
        a, b = d1[name], dm[name]
        for k in EXACT_DEVICE:
            if a.get(k) != b.get(k):
                out.append("%s %s differs: %s vs %s" % (
                    name, k, json.dumps(a.get(k))[:200],
                    json.dumps(b.get(k))[:200]))
        if abs(a["queue_depth_mean"] - b["queue_depth_mean"]) > 1e-4:
            out.append("%s queue_depth_mean %r != %r" % (
                name, a["queue_depth_mean"], b["queue_depth_mean"]))
        if abs(a["seeks"] - b["seeks"]) > 1:
            out.append("%s seeks %r != %r" % (name, a["seeks"], b["seeks"]))
    return out


def main():
    mode, x, y = sys.argv[1:4]
    a, b = json.load(open(x)), json.load(open(y))
    if mode == "one":
        out = fails(a, b)
    else:
        for t in a["traces"] + b["traces"]:
            t.pop("source", None)
        out = [] if a == b else ["%s and %s differ" % (x, y)]
    for line in out:
        print("FAIL " + line)
    sys.exit(1 if out else 0)


main()
