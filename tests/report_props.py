#!/usr/bin/env python3
"""tests/report_props.py REPORT.html SUMMARY.json: the numbers an HTML
report (-o NAME.html) carries hold what the summary's do (issue #40;
fuzz/fuzz_props.h checks the same in fuzz_perftext): the page's document
(<script id="iow-doc">) is valid JSON without NaN or Infinity; the
summary inside it is the one --summary=json printed for the same trace
(SUMMARY.json, checked by tests/summary_props.py); and the binary block
(<script id="iow-blob">, deflated, base64) holds every array the
document points to, none of them with an infinity, each bin's I/Os,
bytes, D2C count, sum and maximum, queue depth area, seeks and time
lost neither negative nor NaN, a bin's D2C maximum within its sum and
within the trace, its time lost within the bin, and every graph's
latency, rate, size or share never negative (a share never above 100%).
NaN in a graph's series is a gap (no value), not a number. Prints what
it checked; exit 1 on the first violation, naming it."""
import base64
import json
import math
import re
import struct
import sys
import zlib


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def strict(text):
    def no_constant(name):
        raise ValueError("a non-finite number: %s" % name)

    def finite(s):
        x = float(s)
        if math.isinf(x):
            raise ValueError("a number past a double's range: %s" % s)
        return x
    return json.loads(text, parse_constant=no_constant, parse_float=finite)


def script(page, name):
    m = re.search(r'<script id="%s" type="[^"]*">(.*?)</script>' % name,
                  page, re.S)
    if not m:
        fail("no <script id=%s> in the page" % name)
    return m.group(1)


class Blob:
    def __init__(self, raw):
        self.raw = raw
        self.arrays = 0

    def floats(self, ref, size, where):
        o, n = ref["o"], ref["n"]
        if o % size or o + n * size > len(self.raw):
            fail("%s: {o: %d, n: %d} outside the block (%d bytes)"
                 % (where, o, n, len(self.raw)))
        self.arrays += 1
        return struct.unpack_from("<%d%s" % (n, "f" if size == 4 else "d"),
                                  self.raw, o)


def main():
    page = open(sys.argv[1], encoding="utf-8").read()
    doc = strict(script(page, "iow-doc"))
    alone = strict(open(sys.argv[2]).read())
    if doc["summary"] != alone:
        fail("the report's summary differs from --summary=json's")
    raw = zlib.decompress(base64.b64decode(script(page, "iow-blob")))
    if len(raw) != doc["blob"]["raw"]:
        fail("the block has %d bytes, the document says %d"
             % (len(raw), doc["blob"]["raw"]))
    blob = Blob(raw)
    durations = [t["duration_s"] for t in doc["summary"]["traces"]]
    longest_ns = max(durations) * 1e9 if durations else 0
    values = 0
    # each trace's bins, at every level of detail
    for ti, t in enumerate(doc["traces"]):
        for li, lv in enumerate(t["levels"]):
            where = "traces[%d].levels[%d]" % (ti, li)
            width_ns = lv["w"] * 1e9
            cols = {}
            for op, refs in lv["ops"].items():
                cols[op] = [blob.floats(r, 4, "%s.ops.%s" % (where, op))
                            for r in refs]
            for k in ("depth", "seeks", "lossy"):
                cols[k] = [blob.floats(lv[k], 4, "%s.%s" % (where, k))]
            for name, arrays in cols.items():
                for a in arrays:
                    for x in a:
                        values += 1
                        if math.isnan(x) or math.isinf(x) or x < 0:
                            fail("%s.%s: a bin's value %r" % (where, name, x))
            for op in lv["ops"]:
                ios, nbytes, n, total, top = cols[op]
                for i in range(len(top)):
                    # float32: a relative 1e-6 of room
                    if top[i] > total[i] * (1 + 1e-6) + 1:
                        fail("%s.ops.%s bin %d: D2C max %r > its sum %r"
                             % (where, op, i, top[i], total[i]))
                    if top[i] > longest_ns * (1 + 1e-6) + 1e3:
                        fail("%s.ops.%s bin %d: D2C max %r ns longer than the trace"
                             % (where, op, i, top[i]))
            for i, x in enumerate(cols["lossy"][0]):
                if x > width_ns * (1 + 1e-6) + 1:
                    fail("%s bin %d: %r ns lost in a bin of %r ns"
                         % (where, i, x, width_ns))
    # every graph's series
    for g in doc["graphs"]:
        for pi, p in enumerate(g["panels"]):
            for si, s in enumerate(p.get("series", [])):
                where = "graph %s panel %d series %d" % (g["name"], pi, si)
                arrays = []
                if "d" in s:
                    arrays = [blob.floats(r, 4, where) for r in s["d"]]
                if "x" in s:
                    arrays += [blob.floats(s["x"], 8, where + " x"),
                               blob.floats(s["y"], 8, where + " y")]
                    ys = arrays[-1:]
                else:
                    ys = arrays
                for a in arrays:
                    for x in a:
                        values += 1
                        if math.isinf(x):
                            fail("%s: an infinity" % where)
                for a in ys:
                    for y in a:
                        if math.isnan(y):
                            continue
                        if g["axis"] in ("ns", "mbps", "bytes", "pct") and y < 0:
                            fail("%s (%s): %r is negative" % (where, g["quantity"], y))
                        if g["axis"] == "pct" and y > 100 + 1e-3:
                            fail("%s (%s): %r%% is above 100" % (where, g["quantity"], y))
                        if g["axis"] == "ns" and y > longest_ns * (1 + 1e-6) + 1e3:
                            fail("%s (%s): %r ns longer than the trace"
                                 % (where, g["quantity"], y))
    print("%d arrays, %d values, summary as --summary=json's"
          % (blob.arrays, values))


main()
