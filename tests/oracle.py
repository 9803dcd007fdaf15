#!/usr/bin/env python3
"""Compare iowatcher --summary=json with Debian's blkparse and btt.

usage: oracle.py SUMMARY.json BLKPARSE.txt [BTT.txt]

blkparse's "Total" blocks give Reads/Writes Completed (I/Os and KiB):
these must be equal (KiB as blkparse prints it: total bytes >> 10).
btt's "All Devices" D2C and Q2C averages must agree within 0.1%, over
the same number of bios (only on traces without splits, flushes or
overlapping I/O: elsewhere btt is wrong in known ways, see the man
page's "HOW I/O IS COUNTED").
Prints one line per figure compared; exits 1 on any difference.
"""
import json
import re
import sys


def blkparse_totals(text):
    totals = {"read_ios": 0, "read_kib": 0, "write_ios": 0, "write_kib": 0}
    blocks = re.split(r"\n(?=Total \()", text)
    for block in blocks[1:]:
        block = block.split("\n\n")[0]
        m = re.search(r"Reads Completed:\s+(\d+),\s+(\d+)KiB", block)
        w = re.search(r"Writes Completed:\s+(\d+),\s+(\d+)KiB", block)
        if m and w:
            totals["read_ios"] += int(m.group(1))
            totals["read_kib"] += int(m.group(2))
            totals["write_ios"] += int(w.group(1))
            totals["write_kib"] += int(w.group(2))
    return totals


def btt_averages(text):
    section = text.split("All Devices ====================")[1]
    section = section.split("\n====================")[0]
    out = {}
    for name in ("D2C", "Q2C"):
        m = re.search(r"^%s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)" % name,
                      section, re.M)
        if m:
            out[name] = (float(m.group(2)) * 1e6, int(m.group(4)))
    return out


def ours(summary):
    t = {"read_ios": 0, "read_bytes": 0, "write_ios": 0, "write_bytes": 0}
    lat = {"D2C": [0.0, 0], "Q2C": [0.0, 0]}
    for trace in summary["traces"]:
        for d in trace["devices"]:
            for rw in ("read", "write"):
                t[rw + "_ios"] += d[rw]["ios"]
                t[rw + "_bytes"] += d[rw]["bytes"]
            for name, key in (("D2C", "d2c_us"), ("Q2C", "q2c_us")):
                lat[name][0] += d[key]["mean"] * d[key]["n"]
                lat[name][1] += d[key]["n"]
    return t, lat


def main():
    summary = json.load(open(sys.argv[1]))
    t, lat = ours(summary)
    bp = blkparse_totals(open(sys.argv[2]).read())
    bad = 0
    for rw in ("read", "write"):
        pairs = ((rw + " I/Os", t[rw + "_ios"], bp[rw + "_ios"]),
                 (rw + " KiB", t[rw + "_bytes"] >> 10, bp[rw + "_kib"]))
        for what, mine, theirs in pairs:
            ok = mine == theirs
            bad += not ok
            print("%s %s: iowatcher %d, blkparse %d" %
                  ("ok  " if ok else "FAIL", what, mine, theirs))
    if len(sys.argv) > 3:
        bt = btt_averages(open(sys.argv[3]).read())
        for name in ("D2C", "Q2C"):
            if name not in bt:
                continue
            total, n = lat[name]
            mine = total / n if n else 0.0
            theirs = bt[name][0]
            ok = abs(mine - theirs) <= 0.001 * theirs and n == bt[name][1]
            bad += not ok
            print("%s %s mean: iowatcher %.3f us (n %d), btt %.3f us (n %d)"
                  % ("ok  " if ok else "FAIL", name, mine, n, theirs,
                     bt[name][1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
