#!/usr/bin/env python3
"""tests/live_holes.py LIVE_JSON_OUT MODE: reads what -t - --live=json
--summary=json printed (an object per interval, a holes_at_end object
when the trace's end judged any, then the summary) and checks the
inferred holes in it (issue 36 items 2 and 6). MODE "holes": some
interval names a request judged lost (orphan_requests, inferred_windows),
the intervals' and the end's counts add up to the summary's per device,
and no interval leaves an inferred window's time out of its depth
(lossy_s 0: the trace has no loss note). MODE "intact": no interval and
no end names any. Prints one line per finding, exits 1 when any."""
import json
import sys


def main():
    lines = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
    mode = sys.argv[2]
    intervals = [x for x in lines if "start_s" in x]
    ends = [x for x in lines if "holes_at_end" in x]
    summary = [x for x in lines if "traces" in x]
    bad = []
    if not intervals or not summary:
        print("no intervals or no summary")
        return 1
    got = {}
    windows = 0
    for iv in intervals:
        if "inferred_windows" not in iv:
            bad.append("interval %.3f: no inferred_windows" % iv["start_s"])
            continue
        windows += len(iv["inferred_windows"])
        if iv["lossy_s"] != 0:
            bad.append("interval %.3f: lossy_s %g without a loss note"
                       % (iv["start_s"], iv["lossy_s"]))
        for d in iv["devices"]:
            if "orphan_requests" not in d:
                bad.append("interval %.3f: device %s has no orphan_requests"
                           % (iv["start_s"], d["device"]))
                continue
            o, u = got.get(d["device"], (0, 0))
            got[d["device"]] = (o + d["orphan_requests"],
                                u + d["unmatched_completions"])
    for e in ends:
        windows += len(e.get("inferred_windows", []))
        for d in e["holes_at_end"]:
            o, u = got.get(d["device"], (0, 0))
            got[d["device"]] = (o + d["orphan_requests"],
                                u + d["unmatched_completions"])
    streamed = sum(d.get("orphan_requests", 0) + d.get("unmatched_completions", 0)
                   for iv in intervals for d in iv["devices"])
    for d in summary[0]["traces"][0]["devices"]:
        want = (d["orphan_requests"], d["unmatched_completions"])
        if got.get(d["device"], (0, 0)) != want:
            bad.append("%s: live says %s orphan requests and unmatched "
                       "completions, the summary %s"
                       % (d["device"], got.get(d["device"], (0, 0)), want))
    total = sum(o + u for o, u in got.values())
    if mode == "holes":
        if not streamed:
            bad.append("no interval names a hole (only the end)")
        if not windows:
            bad.append("no inferred window named")
        if not total:
            bad.append("no hole named at all")
    elif total or windows or ends:
        bad.append("an intact trace: %d holes, %d windows named"
                   % (total, windows))
    for b in bad[:10]:
        print(b)
    return 1 if bad else 0


sys.exit(main())
