#!/usr/bin/env python3
"""tests/pftrace_check.py DECODED SUMMARY_JSON: checks a Perfetto trace
written by -o NAME.pftrace, as protoc --decode=perfetto.protos.Trace
printed it (Perfetto's own perfetto_trace.proto), against the same
trace's --summary=json. Prints one line per finding and exits 1 when
any; prints what it counted and exits 0 when all hold:

- every event's track is described, and events come in time order;
- on every lane, slices nest at most two deep (the bio, then its queue
  or device phase) and bios never overlap: each begins on an empty lane;
- each I/O of the summary (the distinct "io" of a device) is a slice, and
  their number per device and class is the summary's;
- the IOPS and MB/s counters, times each bin's width, add up to the
  summary's I/Os and bytes per class; the queue depth counter's mean
  over the trace's time outside loss windows is the summary's mean
  depth (1%).
"""
import json
import re
import sys


def parse(path):
    """The decoded text as nested dicts: a field a key, values in lists."""
    root = {}
    stack = [root]
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.match(r"^(\w+) \{$", line)
        if m:
            child = {}
            stack[-1].setdefault(m.group(1), []).append(child)
            stack.append(child)
            continue
        m = re.match(r"^(\w+): (.*)$", line)
        if not m:
            raise SystemExit("cannot read the decoded line: " + line)
        value = m.group(2)
        if value.startswith('"'):
            value = json.loads(value) if "\\" not in value else value[1:-1]
        elif re.match(r"^-?[0-9.e+-]+$", value):
            value = float(value) if re.search(r"[.e]", value) else int(value)
        stack[-1].setdefault(m.group(1), []).append(value)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def main():
    trace = parse(sys.argv[1])
    summary = json.load(open(sys.argv[2]))
    bad = []
    tracks, parents, names = set(), {}, {}
    events = []
    for p in trace.get("packet", []):
        td = one(p, "track_descriptor")
        if td:
            uuid = one(td, "uuid")
            tracks.add(uuid)
            parents[uuid] = one(td, "parent_uuid")
            names[uuid] = one(td, "name")
        ev = one(p, "track_event")
        if ev:
            events.append((one(p, "timestamp", 0), ev))
    last = -1
    lanes = {}       # uuid: open slices' names
    bios = {}        # device track: {(class, io)}
    counters = {}    # uuid: [(ts, value)]
    n_slices = 0
    for ts, ev in events:
        uuid = one(ev, "track_uuid")
        kind = one(ev, "type")
        if uuid not in tracks:
            bad.append("event on an undescribed track %s" % uuid)
            continue
        if ts < last:
            bad.append("event at %d after one at %d" % (ts, last))
        last = ts
        if kind == "TYPE_COUNTER":
            counters.setdefault(uuid, []).append(
                (ts, one(ev, "double_counter_value")))
            continue
        if not names[uuid].startswith("lane "):
            continue
        stack = lanes.setdefault(uuid, [])
        if kind == "TYPE_SLICE_END":
            if not stack:
                bad.append("an end with no slice on %s" % names[uuid])
            else:
                stack.pop()
            continue
        name = one(ev, "name")
        if name.startswith("queue") or name.startswith("device"):
            if len(stack) != 1:
                bad.append("phase %r at depth %d on %s at %d" %
                           (name, len(stack), names[uuid], ts))
        else:
            if stack:
                bad.append("bio %r begins on a busy lane (%s) at %d" %
                           (name, names[uuid], ts))
            n_slices += 1
            notes = {one(a, "name"): one(a, "uint_value",
                                         one(a, "string_value"))
                     for a in ev.get("debug_annotations", [])}
            bios.setdefault(parents[uuid], set()).add(
                (notes["class"], notes["io"]))
        stack.append(name)
    for uuid, stack in lanes.items():
        if stack:
            bad.append("%d slices never end on %s" % (len(stack), names[uuid]))

    by_name = {}
    for uuid, name in names.items():
        if parents.get(uuid) is None and name.startswith("block device"):
            by_name[name.split()[-1]] = uuid
    devices = [d for t in summary["traces"] for d in t["devices"]]
    # the mean depth leaves the loss windows' time out (the man page)
    duration = (summary["traces"][0]["duration_s"] -
                summary["traces"][0]["lossy_s"])
    for d in devices:
        dev = by_name.get(d["device"])
        if dev is None:
            bad.append("device %s has no track" % d["device"])
            continue
        kids = {names[u]: u for u in names if parents.get(u) == dev}
        for cls in ("read", "write", "discard", "flush"):
            ios = d[cls]["ios"]
            seen = sum(1 for c, _ in bios.get(dev, ()) if c == cls)
            if seen != ios:
                bad.append("%s %s: %d I/Os as slices, the summary %d" %
                           (d["device"], cls, seen, ios))
            for what, want in (("IOPS", ios), ("MB/s", d[cls].get("bytes"))):
                u = kids.get("%s %s" % (cls, what))
                if u is None:
                    if want:
                        bad.append("%s: no %s %s counter" %
                                   (d["device"], cls, what))
                    continue
                pts = counters.get(u, [])
                total = sum(v * (pts[i + 1][0] - t) / 1e9
                            for i, (t, v) in enumerate(pts[:-1]))
                if what == "MB/s":
                    total *= 1e6
                if abs(total - want) > max(0.5, 1e-6 * want):
                    bad.append("%s %s %s: the counter adds up to %.3f, "
                               "the summary %s" % (d["device"], cls, what,
                                                   total, want))
        pts = counters.get(kids.get(
            "queue depth (requests issued, not completed)"), [])
        if pts:
            area = sum(v * (pts[i + 1][0] - t) / 1e9
                       for i, (t, v) in enumerate(pts[:-1]))
            # over the device's own span where the summary gives it
            # (each device's rates and depth are over its first to its
            # last I/O event), less its time in loss windows
            span = d.get("span_s", duration) - d.get("lossy_s", 0)
            mean = area / span if span > 0 else 0
            want = d["queue_depth_mean"]
            if abs(mean - want) > 0.01 * want + 1e-4:
                bad.append("%s: depth counter's mean %.4f, the summary %.4f"
                           % (d["device"], mean, want))
        elif d["queue_depth_mean"]:
            bad.append("%s: no queue depth counter" % d["device"])
    for b in bad[:20]:
        print(b)
    if bad:
        print("%d findings" % len(bad))
        return 1
    print("%d bio slices on %d lanes, %d counters, %d devices" %
          (n_slices, len(lanes), len(counters), len(devices)))
    return 0


sys.exit(main())
