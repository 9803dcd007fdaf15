#!/usr/bin/env python3
"""live_vs_summary.py IOWATCHER TRACE LIVE.jsonl: every interval --live=json
printed must equal what --summary=json -x START:END says of the recorded
trace (the last interval, which ends at the last event, with -x START:1e9);
the queue depth as its integral over the interval (time-weighted mean x
span, the loss windows' time left out), as an interval may span more than
the summary's window at the end.
Prints one line per mismatch and 'N intervals compared'; exits 1 on any."""
import json
import subprocess
import sys

iow, trace, lines = sys.argv[1], sys.argv[2], sys.argv[3]
intervals = [json.loads(l) for l in open(lines) if l.startswith('{"start_s"')]
bad = 0


def summary(start, end):
    out = subprocess.run([iow, "-t", trace, "--summary=json", "-x",
                          "%.6f:%s" % (start, end)],
                         capture_output=True, text=True)
    if out.returncode:
        return {}, 0, 0
    t = json.loads(out.stdout)["traces"][0]
    return {d["device"]: d for d in t["devices"]}, t["duration_s"], \
        t.get("lossy_s", 0)


def differ(what, live, summ):
    global bad
    bad += 1
    print("interval %s: %s: live %s, summary %s" % (where, what, live, summ))


for i, iv in enumerate(intervals):
    last = i == len(intervals) - 1
    where = "%.3f-%.3f" % (iv["start_s"], iv["end_s"])
    summ, dur, lossy = summary(iv["start_s"],
                        "1e9" if last else "%.6f" % iv["end_s"])
    span = iv["end_s"] - iv["start_s"]
    for d in iv["devices"]:
        s = summ.get(d["device"])
        busy = sum(d[k]["ios"] for k in ("read", "write", "discard")) + \
            d["flush"]["ios"] + d["d2c_us"]["n"] + d["q2c_us"]["n"]
        if s is None:
            if busy or d["queue_depth_mean"] > 0:
                differ(d["device"] + " present", "yes", "no")
            continue
        for k in ("read", "write", "discard"):
            for f in ("ios", "bytes"):
                if d[k][f] != s[k][f]:
                    differ("%s %s %s" % (d["device"], k, f), d[k][f], s[k][f])
        if d["flush"]["ios"] != s["flush"]["ios"]:
            differ(d["device"] + " flush ios", d["flush"]["ios"],
                   s["flush"]["ios"])
        for lat in ("d2c_us", "q2c_us"):
            for f in ("n", "mean", "p50", "p99"):
                if d[lat][f] != s[lat][f]:
                    differ("%s %s %s" % (d["device"], lat, f), d[lat][f],
                           s[lat][f])
        # the depth's integral: an interval the live view closed while
        # the recording was idle spans its whole width, the summary's
        # window only up to the trace's last event
        # (both over the time outside loss windows)
        qd_live = d["queue_depth_mean"] * (span - iv.get("lossy_s", 0))
        qd_sum = s["queue_depth_mean"] * (dur - lossy)
        if abs(qd_live - qd_sum) > 1e-4 * max(span, qd_sum):
            differ(d["device"] + " queue depth", qd_live, qd_sum)
print("%d intervals compared, %d differences" % (len(intervals), bad))
sys.exit(1 if bad or not intervals else 0)
