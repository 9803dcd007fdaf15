#!/usr/bin/env python3
"""tests/tools/make_lossy.py SRC DST CPU FROM_S TO_S [--unknown-start]
   tests/tools/make_lossy.py SRC DST --drop-completions K:
a copy of the per-CPU trace SRC (SRC.blktrace.0, .1, little-endian v7) as
DST with CPU's I/O events from FROM_S to TO_S seconds after the trace's
first event removed, as a recorder that lost them would leave it: a loss
note in CPU's file at the window's start ('lost N events on cpu C, from
T0 to T1 ns', lossnote.h). --unknown-start writes the note as a recorder
that knows only the count would: T0 0, at the window's end. Prints N.
--drop-completions K removes K completions of data requests, spread
over the trace, and ends CPU 0's file with a note as the BPF recorder
writes one for completions the kernel made without running it: 'lost K
events on cpu 0, from 0 to T1 ns', T1 the trace's last time. Prints K."""
import glob
import struct
import sys

NOTIFY = 1 << 26            # BLK_TC_NOTIFY, in the action's high half
MESSAGE = 2                 # BLK_TN_MESSAGE


def records(path):
    data, pos, out = open(path, "rb").read(), 0, []
    while pos + 48 <= len(data):
        pdu = struct.unpack_from("<H", data, pos + 46)[0]
        out.append((struct.unpack_from("<Q", data, pos + 8)[0],
                    data[pos:pos + 48 + pdu]))
        pos += 48 + pdu
    return out


def is_note(rec):
    return struct.unpack_from("<I", rec, 28)[0] & NOTIFY


def drop_completions(src, dst, k):
    paths = sorted(glob.glob(src + ".blktrace.*"))
    files = {int(p.rsplit(".", 1)[1]): records(p) for p in paths}
    done = [(c, i) for c, rs in files.items() for i, (t, r) in enumerate(rs)
            if not is_note(r) and struct.unpack_from("<I", r, 28)[0] & 0xffff == 8
            and struct.unpack_from("<I", r, 24)[0] > 0]
    step = max(1, len(done) // (k + 1))
    gone = set(done[step * (j + 1)] for j in range(k))
    last = max(t for rs in files.values() for t, r in rs)
    for c, rs in files.items():
        keep = [r for i, (t, r) in enumerate(rs) if (c, i) not in gone]
        if c == 0:
            device = next(struct.unpack_from("<I", r, 36)[0]
                          for t, r in rs if not is_note(r))
            pdu = ("lost %d events on cpu 0, from 0 to %d ns" % (k, last)).encode() + b"\0"
            keep.append(struct.pack("<IIQQIIIIIHH", 0x65617407, 0, last, 0,
                                    0, NOTIFY | MESSAGE, 0, device, 0, 0,
                                    len(pdu)) + pdu)
        with open("%s.blktrace.%d" % (dst, c), "wb") as f:
            f.write(b"".join(keep))
    print(k)


if sys.argv[3] == "--drop-completions":
    drop_completions(sys.argv[1], sys.argv[2], int(sys.argv[4]))
    sys.exit(0)
src, dst, cpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
lo, hi = float(sys.argv[4]), float(sys.argv[5])
unknown_start = "--unknown-start" in sys.argv[6:]
paths = sorted(glob.glob(src + ".blktrace.*"))
files = {int(p.rsplit(".", 1)[1]): records(p) for p in paths}
genesis = min(t for rs in files.values() for t, r in rs if not is_note(r))
t0, t1 = genesis + int(lo * 1e9), genesis + int(hi * 1e9)
for c, rs in files.items():
    keep = [(t, r) for t, r in rs
            if c != cpu or is_note(r) or not t0 <= t < t1]
    if c == cpu:
        n = len(rs) - len(keep)
        device = next(struct.unpack_from("<I", r, 36)[0]
                      for t, r in rs if not is_note(r))
        if unknown_start:
            text, at = "lost %d events on cpu %d, from 0 to %d ns" % (n, c, t1), t1
        else:
            text, at = "lost %d events on cpu %d, from %d to %d ns" % (n, c, t0, t1), t0
        pdu = text.encode() + b"\0"
        note = struct.pack("<IIQQIIIIIHH", 0x65617407, 0, at, 0, 0,
                           NOTIFY | MESSAGE, 0, device, c, 0, len(pdu)) + pdu
        # after the events at its time, before the later ones
        keep.append((at, note))
        keep.sort(key=lambda x: x[0])
        print(n)
    with open("%s.blktrace.%d" % (dst, c), "wb") as f:
        f.write(b"".join(r for t, r in keep))
