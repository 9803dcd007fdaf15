#!/usr/bin/env python3
"""live_vs_summary.py IOWATCHER TRACE LIVE.jsonl: every interval --live=json
printed must equal what --summary=json -x START:END says of the recorded
trace (the last interval, which ends at the last event, with -x START:1e9);
the queue depth as its integral over the interval (time-weighted mean x
span, the loss windows' time left out), as an interval may span more than
the summary's window at the end. Completions the recorder did not see
(noted at its end) are left out of the summary's depth, while the
intervals counted their requests in flight: the view's closing
{"unseen_completions": ...} line says how many and for how long, and
then each interval's depth integral may exceed the summary's, by that
long over all the intervals, the number of requests being the summary's.
Prints one line per mismatch and 'N intervals compared'; exits 1 on any."""
import json
import subprocess
import sys

iow, trace, lines = sys.argv[1], sys.argv[2], sys.argv[3]
intervals = [json.loads(l) for l in open(lines) if l.startswith('{"start_s"')]
unseen = {u["device"]: u for l in open(lines)
          if l.startswith('{"unseen_completions"')
          for u in json.loads(l)["unseen_completions"]}
excess = {}     # live's depth integral over the summary's, per device
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
            if d["device"] in unseen and not busy:
                excess[d["device"]] = excess.get(d["device"], 0) + \
                    d["queue_depth_mean"] * (span - iv.get("lossy_s", 0))
            elif busy or d["queue_depth_mean"] > 0:
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
        if d["device"] in unseen and qd_live > qd_sum:
            excess[d["device"]] = excess.get(d["device"], 0) + \
                qd_live - qd_sum
        elif abs(qd_live - qd_sum) > 1e-4 * max(span, qd_sum):
            differ(d["device"] + " queue depth", qd_live, qd_sum)
if unseen:
    where = "whole trace"
    whole, _, _ = summary(0, "1e9")
    for dev, u in unseen.items():
        if whole.get(dev, {}).get("unseen_completions") != u["requests"]:
            differ(dev + " unseen completions", u["requests"],
                   whole.get(dev, {}).get("unseen_completions"))
        # each interval's depth rounded to 1e-4: as much per interval
        if abs(excess.get(dev, 0) - u["counted_in_flight_s"]) > \
                1e-4 * len(intervals):
            differ(dev + " depth over the summary's, in all",
                   excess.get(dev, 0), u["counted_in_flight_s"])
print("%d intervals compared, %d differences%s" % (
    len(intervals), bad, "".join(
        ", %s: %d requests whose completion went unseen, %.3f s in flight"
        % (k, u["requests"], u["counted_in_flight_s"])
        for k, u in unseen.items())))
sys.exit(1 if bad or not intervals else 0)
