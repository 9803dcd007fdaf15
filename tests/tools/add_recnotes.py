#!/usr/bin/env python3
"""tests/tools/add_recnotes.py SRC DST BOOT_NS [TEXT...]
a copy of the per-CPU trace SRC (SRC.blktrace.0, .1, little-endian v7) as
DST with the notes a recorder of ours writes at its start (recnote.h):
'host NAME', 'device MAJ,MIN is NAME', and the clock snapshot 'clock
monotonic at T ns: boottime BOOT_NS ns, realtime R ns', T and R those of
SRC's TIMESTAMP note (the first record of CPU 0's file), the notes right
after it, at its time. TEXT: other texts in place of the host and device
notes (default: 'host db-7', 'device 7,1 is loop1'). Prints T."""
import glob
import struct
import sys

NOTIFY = 1 << 26            # BLK_TC_NOTIFY, in the action's high half
TIMESTAMP, MESSAGE = 1, 2   # BLK_TN_*


def note(time_ns, device, text):
    pdu = text.encode() + b"\0"
    return struct.pack("<IIQQIIIIIHH", 0x65617407, 0, time_ns, 0, 0,
                       NOTIFY | MESSAGE, 0, device, 0, 0, len(pdu)) + pdu


def main():
    src, dst, boot = sys.argv[1], sys.argv[2], int(sys.argv[3])
    texts = sys.argv[4:] or ["host db-7", "device 7,1 is loop1"]
    for path in sorted(glob.glob(src + ".blktrace.*")):
        data = open(path, "rb").read()
        suffix = path[len(src):]
        if suffix == ".blktrace.0":
            t, action, device = struct.unpack_from("<Q", data, 8)[0], \
                struct.unpack_from("<I", data, 28)[0], \
                struct.unpack_from("<I", data, 36)[0]
            if action != NOTIFY | TIMESTAMP:
                sys.exit("%s: no TIMESTAMP note first" % path)
            sec, nsec = struct.unpack_from("<II", data, 48)
            head = 48 + struct.unpack_from("<H", data, 46)[0]
            clock = "clock monotonic at %d ns: boottime %d ns, realtime %d ns" % (
                t, boot, sec * 10**9 + nsec)
            notes = b"".join(note(t, device, x) for x in texts + [clock])
            data = data[:head] + notes + data[head:]
            print(t)
        open(dst + suffix, "wb").write(data)


main()
