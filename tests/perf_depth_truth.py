#!/usr/bin/env python3
"""tests/perf_depth_truth.py PERF_TEXT SUMMARY_JSON CSV_DIR MAX_LAT_S:
the queue depth of perf script's text with its loss windows (as the
summary's JSON places them), counted here from the text alone, against
the summary's queue_depth_mean and the CSV's queue-depth column.

The depth outside the loss windows, from the records: each request
issued outside every window (block_rq_issue) is in flight from its issue
to its completion (the oldest issued at its device and sector; a pairing
longer than MAX_LAT_S, the workload's own longest, is not its) or to the
start of the next loss window, whichever comes first (what came after is
unknown). The summary's mean: that area over the device's span outside
the windows. The CSV's: that area over the bins it gives a value (those
wholly outside windows), each bin the device's span's part of it.
Prints each device's three figures; exits 1 when the summary or the CSV
is more than 10% + 0.001 off its own (the summary keeps the depth of
requests that completed inside a window before perf's LOST line told of
it: 5% on tests/data/perf-lossy)."""
import bisect
import collections
import csv
import json
import re
import sys

LINE = re.compile(r"\[\d+\]\s+(\d+\.\d+):\s+block:block_(\w+):\s+(.*)")
RQ = re.compile(r"(\d+,\d+)\s+\S+\s.*?(\d+) \+ (\d+)")


def main():
    text, js, csv_dir, max_lat = sys.argv[1:5]
    max_lat = float(max_lat)
    trace = json.load(open(js))["traces"][0]
    wins = sorted((w["from_s"], w["to_s"]) for w in trace["loss_windows"]
                  if not w["inferred"])
    starts = [f for f, _ in wins]
    origin, events = None, []
    for line in open(text):
        m = LINE.search(line)
        if not m:
            continue
        t, kind, rest = float(m.group(1)), m.group(2), m.group(3)
        # the analysis's time 0: the first bio or request record
        if origin is None and (kind.startswith("bio_") or
                               kind.startswith("rq_")):
            origin = t
        if kind in ("rq_issue", "rq_complete"):
            r = RQ.match(rest)
            if r:
                events.append((t, kind, r.group(1), int(r.group(2))))
    events = [(t - origin, k, d, s) for t, k, d, s in events]
    events.sort(key=lambda e: e[0])

    def in_window(x):
        i = bisect.bisect_right(starts, x) - 1
        return i >= 0 and x < wins[i][1]

    def next_window(x):
        i = bisect.bisect_left(starts, x)
        return starts[i] if i < len(starts) else float("inf")

    def outside(a, b):
        tot = b - a
        for f, e in wins:
            tot -= max(0.0, min(b, e) - max(a, f))
        return max(tot, 0.0)

    waiting = collections.defaultdict(collections.deque)
    spans = collections.defaultdict(list)
    for t, kind, dev, sector in events:
        if kind == "rq_issue":
            waiting[(dev, sector)].append(t)
        elif waiting[(dev, sector)]:
            i = waiting[(dev, sector)].popleft()
            spans[dev].append((i, t if t - i <= max_lat else
                               float("inf")))
    for (dev, _), left in waiting.items():
        spans[dev].extend((i, float("inf")) for i in left)

    rows = list(csv.reader(open(csv_dir + "/queue-depth.csv")))
    head, bad = rows[0], 0
    for d in trace["devices"]:
        dev, lo, hi = d["device"], d["first_s"], d["last_s"]
        held = [(max(i, lo), min(c, next_window(i), hi))
                for i, c in spans[dev] if not in_window(i)]
        held = [(i, c) for i, c in held if c > i]
        clean = outside(lo, hi)
        want = sum(outside(i, c) for i, c in held) / clean if clean else 0
        col = "device_%s_requests" % dev.replace(",", "_")
        area = span = 0.0
        for r in rows[1:]:
            if col not in head or r[head.index(col)] == "":
                continue
            t0, w = float(r[0]), float(r[1])
            a, b = max(t0, lo), min(t0 + w, hi)
            if b <= a:
                continue
            span += b - a
            area += sum(max(0.0, min(c, t0 + w) - max(i, t0))
                        for i, c in held)
        csv_want = area / span if span else 0.0
        csv_got = 0.0
        area = span = 0.0
        for r in rows[1:]:
            if col not in head or r[head.index(col)] == "":
                continue
            t0, w = float(r[0]), float(r[1])
            ov = min(t0 + w, hi) - max(t0, lo)
            if ov > 0:
                area += float(r[head.index(col)]) * w
                span += ov
        csv_got = area / span if span else 0.0
        got = d["queue_depth_mean"]
        print("%s: depth outside the windows %.4f, the summary %.4f; over the CSV's bins %.4f, the CSV %.4f"
              % (dev, want, got, csv_want, csv_got))
        for name, g, w in (("summary", got, want), ("CSV", csv_got,
                                                     csv_want)):
            if abs(g - w) > 0.1 * w + 0.001:
                print("%s: the %s's depth %.4f is not the records' %.4f"
                      % (dev, name, g, w))
                bad = 1
    return bad


sys.exit(main())
