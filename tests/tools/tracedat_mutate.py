#!/usr/bin/env python3
"""tracedat_mutate.py IN OUT SEED: IN (a trace.dat, version 6 or 7,
little-endian) with a few bytes changed where a reader of the file can go
wrong, chosen by SEED: the headers' text (formats, saved names: a digit,
a separator, a NUL), a page's time or commit word (its size, the missed
events' bits), an event's header (its type and length, a time delta), an
event's bytes (a field). Prints what it changed, one line."""
import random
import struct
import sys


def cpu_data(b):
    """(offset, size) of each CPU's data, from the first 'flyrecord' (v6)
    or the BUFFER option (v7): found by scanning, as a test tool may."""
    out = []
    if b[10:12] == b"6\0":
        i = b.index(b"flyrecord\0") + 10
        # the CPU count sits before the options: count the pairs that fit
        while i + 16 <= len(b):
            off, size = struct.unpack_from("<QQ", b, i)
            if off % 4096 or size % 4096 or off + size > len(b) or not size:
                break
            out.append((off, size))
            i += 16
        return out
    i = b.index(b"local\0") + 6
    page, cpus = struct.unpack_from("<II", b, i)
    i += 8
    for _ in range(cpus):
        _id, off, size = struct.unpack_from("<IQQ", b, i)
        out.append((off, size))
        i += 20
    return out


def main():
    src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rnd = random.Random(seed)
    b = bytearray(open(src, "rb").read())
    cpus = [c for c in cpu_data(b) if c[1]]
    first = min(off for off, _ in cpus)
    pages = [off + k * 4096 for off, size in cpus for k in range(size // 4096)]
    kind = rnd.choice(["text", "text", "page", "event", "event", "data"])
    if kind == "text":
        # a byte of the headers' text: formats, names, sizes
        at = rnd.randrange(12, first)
        b[at] = rnd.choice(b"0123456789;:[]\t\n \0\x80" + bytes([rnd.randrange(256)]))
        what = "header byte %d" % at
    elif kind == "page":
        pg = rnd.choice(pages)
        at = pg + rnd.choice([0, 1, 5, 7, 8, 9, 11, 12, 15])
        if at >= pg + 8 and rnd.random() < 0.5:
            commit, = struct.unpack_from("<Q", b, pg + 8)
            commit ^= rnd.choice([1 << 31, 3 << 30, 1 << rnd.randrange(0, 27)])
            struct.pack_into("<Q", b, pg + 8, commit)
            what = "page %d commit word %#x" % (pg, commit)
        else:
            b[at] = rnd.randrange(256)
            what = "page %d head byte %d" % (pg, at - pg)
    else:
        pg = rnd.choice(pages)
        commit, = struct.unpack_from("<Q", b, pg + 8)
        size = commit & ((1 << 27) - 1)
        if size < 8:
            b[pg + 8] ^= 0x10
            what = "page %d commit low byte" % pg
        else:
            # walk to a random event's header
            n = rnd.randrange(1, 40)
            at, k = 0, 0
            while at < size and k < n:
                head, = struct.unpack_from("<I", b, pg + 16 + at)
                t = head & 31
                step = 8 if t in (30, 31) or t == 0 or t == 29 else 4 + 4 * t
                if t == 0:
                    a0, = struct.unpack_from("<I", b, pg + 20 + at)
                    step = 8 + ((a0 - 4 + 3) & ~3)
                elif t == 29:
                    a0, = struct.unpack_from("<I", b, pg + 20 + at)
                    step = 4 + a0
                if step <= 0 or at + step >= size:
                    break
                at += step
                k += 1
            base = pg + 16 + at
            if kind == "event":
                off = rnd.randrange(0, 4)
                b[base + off] = rnd.randrange(256)
                what = "page %d event header at %d byte %d" % (pg, at, off)
            else:
                off = rnd.randrange(4, 64)
                b[base + off] = rnd.randrange(256)
                what = "page %d event at %d data byte %d" % (pg, at, off)
    open(dst, "wb").write(b)
    print(what)


main()
