#!/usr/bin/env python3
"""tests/tools/concat_traces.py A B C: the per-CPU trace C (C.blktrace.N)
holding A's records, then B's moved in time so that B's first I/O event is
at A's last, as one
recording that ran A's workload and then B's would have written it. Each
CPU's file is A's file of that CPU followed by B's (sequence numbers go on
from A's); both must be little-endian version-7 traces of the same CPUs.
Prints the shift in ns."""
import glob
import struct
import sys


def records(path):
    data, pos, out = open(path, "rb").read(), 0, []
    while pos + 48 <= len(data):
        pdu = struct.unpack_from("<H", data, pos + 46)[0]
        out.append(bytearray(data[pos:pos + 48 + pdu]))
        pos += 48 + pdu
    if pos != len(data):
        sys.exit("%s: a record cut short at byte %d" % (path, pos))
    return out


NOTIFY = 1 << 26            # BLK_TC_NOTIFY: a note, not an I/O event


def time_of(rec):
    return struct.unpack_from("<Q", rec, 8)[0]


def event_times(files):
    return [time_of(r) for rs in files.values() for r in rs
            if not struct.unpack_from("<I", r, 28)[0] & NOTIFY]


def per_cpu(base):
    paths = sorted(glob.glob(base + ".blktrace.*"),
                   key=lambda p: int(p.rsplit(".", 1)[1]))
    if not paths:
        sys.exit("%s: no %s.blktrace.N files" % (base, base))
    return {int(p.rsplit(".", 1)[1]): records(p) for p in paths}


def main():
    a, b, c = sys.argv[1:4]
    fa, fb = per_cpu(a), per_cpu(b)
    if sorted(fa) != sorted(fb):
        sys.exit("%s and %s: not the same CPUs" % (a, b))
    # a trace's time is its I/O events' (notes may come before or after)
    a_last, b_first = max(event_times(fa)), min(event_times(fb))
    shift = a_last - b_first
    for cpu in fa:
        seq = max([struct.unpack_from("<I", r, 4)[0] for r in fa[cpu]] + [0])
        with open("%s.blktrace.%d" % (c, cpu), "wb") as out:
            for r in fa[cpu]:
                out.write(r)
            for r in fb[cpu]:
                seq += 1
                struct.pack_into("<I", r, 4, seq)
                struct.pack_into("<Q", r, 8, time_of(r) + shift)
                out.write(r)
    print(shift)


main()
