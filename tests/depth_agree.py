#!/usr/bin/env python3
"""tests/depth_agree.py SUMMARY_JSON CSV_DIR: each device's
queue_depth_mean of the summary against the time-weighted mean of the
CSV's queue-depth column over the device's span (first_s to last_s; a bin's value is its
mean depth over the bin, so its area counts whole).
Prints one line per disagreement (more than 1% + 0.001 apart) and
exits 1 when any."""
import csv
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    rows = list(csv.reader(open(sys.argv[2] + "/queue-depth.csv")))
    head, bad = rows[0], []
    for t in doc["traces"]:
        for d in t["devices"]:
            col = "device_%s_requests" % d["device"].replace(",", "_")
            if col not in head:
                col = head[2] if len(head) == 3 else None
            if col is None:
                bad.append("%s: no CSV column" % d["device"])
                continue
            j = head.index(col)
            area = span = 0.0
            lo, hi = d["first_s"], d["last_s"]
            for r in rows[1:]:
                if r[j] == "":
                    continue
                t0, w = float(r[0]), float(r[1])
                # the part of the bin inside the device's span
                ov = min(t0 + w, hi) - max(t0, lo)
                if ov <= 0:
                    continue
                area += float(r[j]) * w
                span += ov
            mean = area / span if span else 0.0
            want = d["queue_depth_mean"]
            if abs(mean - want) > 0.01 * want + 0.001:
                bad.append("%s: CSV depth mean %.4f, the summary %.4f"
                           % (d["device"], mean, want))
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
