#!/usr/bin/env python3
"""tests/summary_props.py SUMMARY.json [EVENTS.jsonl]: the properties every
output of a run that succeeded holds (issue #40; fuzz/fuzz_props.h checks
the same in the fuzz targets): valid JSON without NaN or Infinity, no
negative number anywhere, every latency with p50 <= p90 <= p99 <= max,
mean <= max, max no longer than the trace, loss windows and lossy time
inside the trace; each events log line valid JSON with latencies >= 0
and within the trace. Prints what it checked; exit 1 on the first
violation, naming it."""
import json
import sys


def strict(text):
    def no_constant(name):
        raise ValueError("a non-finite number: %s" % name)
    return json.loads(text, parse_constant=no_constant)


def walk(v, path, out):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, path + "." + k, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i), out)
    else:
        out.append((path, v))


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def main():
    doc = strict(open(sys.argv[1]).read())
    leaves = []
    walk(doc, "", leaves)
    for path, v in leaves:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            fail("%s is negative: %r" % (path, v))
    lat = 0
    durations = []
    for t in doc["traces"]:
        dur = t["duration_s"]
        durations.append(dur)
        if t["lossy_s"] > dur + 1e-6:
            fail("lossy_s %r > duration_s %r" % (t["lossy_s"], dur))
        for w in t["loss_windows"]:
            if not (0 <= w["from_s"] <= w["to_s"] <= dur + 1e-6):
                fail("loss window %r outside 0..%r" % (w, dur))
        stack = [t["devices"]]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                if "p50" in v and "max" in v:
                    lat += 1
                    if not (v["p50"] <= v["p90"] <= v["p99"] <= v["max"]):
                        fail("percentiles out of order: %r" % {k: v[k] for k in ("p50", "p90", "p99", "max")})
                    if v["mean"] > v["max"] + 0.001:
                        fail("mean %r > max %r" % (v["mean"], v["max"]))
                    if v["max"] / 1e6 > dur + 2e-6:
                        fail("max %r us longer than the trace (%r s)" % (v["max"], dur))
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
    rows = 0
    if len(sys.argv) > 2:
        longest = max(durations) if durations else 0
        for line in open(sys.argv[2]):
            r = strict(line)
            rows += 1
            for k in ("q2d_us", "d2c_us", "q2c_us"):
                x = r.get(k)
                if x is not None and (x < 0 or x / 1e6 > longest + 2e-6):
                    fail("events row %d: %s %r" % (rows, k, x))
            if r.get("time_s") is not None and r["time_s"] < 0:
                fail("events row %d: time_s %r" % (rows, r["time_s"]))
    print("%d numbers, %d latencies, %d event rows" % (len(leaves), lat, rows))


main()
