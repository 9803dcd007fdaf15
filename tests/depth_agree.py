#!/usr/bin/env python3
"""tests/depth_agree.py SUMMARY_JSON CSV_DIR: each device's
queue_depth_mean of the summary against the time-weighted mean of the
CSV's queue-depth column over the device's span (first_s to last_s)
less its time in recorded loss windows (span_s - lossy_s): a bin's
value is its mean depth over the bin's time outside recorded loss
windows (the JSON's loss_windows without "inferred"), so its area is
the value times that time.
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
        recorded = [x for x in t.get("loss_windows", [])
                    if not x.get("inferred")]
        for d in t["devices"]:
            col = "device_%s_requests" % d["device"].replace(",", "_")
            if col not in head:
                col = head[2] if len(head) == 3 else None
            if col is None:
                bad.append("%s: no CSV column" % d["device"])
                continue
            j = head.index(col)
            area = 0.0
            for r in rows[1:]:
                if r[j] == "":
                    continue
                t0, w = float(r[0]), float(r[1])
                lost = sum(max(0.0, min(t0 + w, x["to_s"]) -
                               max(t0, x["from_s"])) for x in recorded)
                area += float(r[j]) * max(0.0, w - lost)
            span = d.get("span_s", 0) - d.get("lossy_s", 0)
            mean = area / span if span > 0 else 0.0
            want = d["queue_depth_mean"]
            if abs(mean - want) > 0.01 * want + 0.001:
                bad.append("%s: CSV depth mean %.4f, the summary %.4f"
                           % (d["device"], mean, want))
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
