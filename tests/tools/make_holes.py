#!/usr/bin/env python3
"""tests/tools/make_holes.py SRC DST MODE [--from F --to F] [--seed N]
[--cpu C]: a copy of the trace SRC as DST with records taken out of one
window, as a tracer that loses records without a word leaves it (no
loss note: the trace does not say it). SRC is any of the inputs
iowatcher reads that hold records one by one:

  blktrace   NAME (NAME.blktrace.0, .1, ...: blktrace's per-CPU files,
             version-7 records as blktrace or iowatcher's recorders
             write them); DST is a base name too
  dump       a blkparse -d dump (one file, the CPUs' records merged)
  perf       perf script's text of perf record -e 'block:*' (a line
             per record, its CPU in [NNN], its time before the colon)
  tracedat   trace-cmd's trace.dat (version 6 or 7, uncompressed): a
             record taken out of its page is written over as the ring
             buffer writes a discarded event (a time extend with its
             delta, then padding), so the times of the records after
             it stand

The kind is told from SRC (a NAME.blktrace.0 beside it: blktrace;
'Dtracing' at its start: tracedat; a text: perf; else a dump).

MODE is what goes, for the records from FROM to TO (fractions of the
span from the trace's first I/O record to its last):
  completions  every completion (blktrace C; perf block_rq_complete and
               block_bio_complete)
  issues       every issue (D; block_rq_issue)
  cpu          every I/O record of one CPU (--cpu, else one of the CPUs
               that have records, by the seed)
  all          every I/O record
Notes (blktrace's PROCESS, TIMESTAMP, messages) and lines that are not
block records stay. Without --from/--to the window is drawn by --seed
(default 1): 1-10% of the span, anywhere in it.

Prints one line of JSON: the mode, cpu, window (from_s, to_s after the
first record, from_ns and to_ns as the trace's clock), records dropped,
and 'torn': the I/Os of which the trace keeps a part and lost another
(an issue without its completion or a completion without its issue,
pairing issues and completions first in, first out per device and
sector), with torn_at: for each, what was lost ('C' or 'D') and the
time of the part kept; first_ns and last_ns: the first and last I/O
record kept. Where torn is 0, what was dropped left no evidence (whole
I/Os inside the window, or nothing in it) and nothing can be inferred;
an issue kept near the trace's end or a completion kept near its start
leaves none either (a request still out when the trace ended, one
issued before it began).

Also a module: drop(src, dst, mode, ...) returns that dict."""
import glob
import json
import os
import random
import re
import struct
import sys

NOTIFY = 1 << 26                # BLK_TC_NOTIFY, in the action's high half
TA_ISSUE, TA_COMPLETE = 7, 8


# ---- the kinds: each reads SRC into a list of records
# (time_ns, cpu, kind, key, payload) where kind is 'D', 'C', 'io' (another
# I/O record) or None (kept whatever the mode: notes, other lines), key
# (device, sector) for D and C

def kind_of(src):
    if os.path.exists(src + ".blktrace.0") or glob.glob(src + ".blktrace.*"):
        return "blktrace"
    with open(src, "rb") as f:
        head = f.read(4096)
    if head.startswith(b"\x17\x08\x44tracing"):
        return "tracedat"
    if head and all(c in b"\t\n\r" or 32 <= c < 127 for c in head[:1024]):
        return "perf"
    return "dump"


def bt_records(data):
    """blktrace records of a file's bytes: (time, cpu, kind, key, bytes)"""
    pos, out = 0, []
    while pos + 48 <= len(data):
        magic, seq, t, sector, nbytes, action, pid, dev, cpu, err, pdu = \
            struct.unpack_from("<IIQQIIIIIHH", data, pos)
        rec = data[pos:pos + 48 + pdu]
        pos += 48 + pdu
        if action & NOTIFY or (magic & 0xffffff00) != 0x65617400:
            out.append((t, cpu, None, None, rec))
            continue
        what = action & 0xffff
        kind = {TA_ISSUE: "D", TA_COMPLETE: "C"}.get(what, "io")
        out.append((t, cpu, kind, (dev, sector), rec))
    return out


PERF_LINE = re.compile(
    rb"^\s*(.*?)\s+(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(?:\d+\s+)?"
    rb"(block:[a-z_]+):\s+(\d+),(\d+)\s+(\S+)\s+(.*)$")
PERF_ANY = re.compile(rb"^\s*.*?\s+-?\d+\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+"
                      rb"(?:\d+\s+)?(block:[a-z_]+):")
SECTOR = re.compile(rb"(\d+) \+ (\d+)")


def perf_records(data):
    out = []
    for line in data.splitlines(keepends=True):
        m = PERF_ANY.match(line)
        if not m:
            out.append((None, None, None, None, line))
            continue
        cpu = int(m.group(1))
        frac = m.group(3)
        t = int(m.group(2)) * 10**9 + int(frac.ljust(9, b"0")[:9])
        ev = m.group(4)
        kind, key = "io", None
        if ev in (b"block:block_rq_issue", b"block:block_rq_complete",
                  b"block:block_bio_complete"):
            kind = "D" if ev == b"block:block_rq_issue" else "C"
            dm = re.search(rb":\s+(\d+),(\d+)\s", line)
            sm = SECTOR.search(line)
            if dm and sm:
                key = (int(dm.group(1)) << 20 | int(dm.group(2)),
                       int(sm.group(1)))
        out.append((t, cpu, kind, key, line))
    return out


# ---- trace.dat: pages of the kernel's ring buffer per CPU

def _cstr(data, pos):
    end = data.index(b"\0", pos)
    return data[pos:end].decode(), end + 1


class TraceDat:
    """the parts of a trace.dat a record's removal touches: each CPU's
    pages (offset, size), the page header's layout, the block events'
    ids. Versions 6 and 7 without compression."""

    def __init__(self, data):
        self.data = data
        if not data.startswith(b"\x17\x08\x44tracing"):
            raise ValueError("not a trace.dat")
        self.version = int(_cstr(data, 3)[0][7:])
        pos = _cstr(data, 3)[1]
        self.big = data[pos] == 1
        e = ">" if self.big else "<"
        self.e = e
        self.long_size = data[pos + 1]
        self.page_size = struct.unpack_from(e + "I", data, pos + 2)[0]
        pos += 6
        self.cpus = []          # (cpu, offset, size)
        self.ids = {}           # event id -> name (block events)
        if self.version >= 7:
            self._v7(pos)
        else:
            self._v6(pos)

    def _formats(self, text):
        name = re.search(r"^name: (\S+)", text, re.M)
        ident = re.search(r"^ID: (\d+)", text, re.M)
        if name and ident:
            self.ids[int(ident.group(1))] = name.group(1)

    def _v6(self, pos):
        d, e = self.data, self.e
        assert d[pos:pos + 12] == b"header_page\0"
        pos += 12
        n = struct.unpack_from(e + "Q", d, pos)[0]
        pos += 8 + n
        assert d[pos:pos + 13] == b"header_event\0"
        pos += 13
        n = struct.unpack_from(e + "Q", d, pos)[0]
        pos += 8 + n
        count = struct.unpack_from(e + "I", d, pos)[0]    # ftrace formats
        pos += 4
        for _ in range(count):
            n = struct.unpack_from(e + "Q", d, pos)[0]
            pos += 8 + n
        systems = struct.unpack_from(e + "I", d, pos)[0]
        pos += 4
        for _ in range(systems):
            sysname, pos = _cstr(d, pos)
            count = struct.unpack_from(e + "I", d, pos)[0]
            pos += 4
            for _ in range(count):
                n = struct.unpack_from(e + "Q", d, pos)[0]
                if sysname == "block":
                    self._formats(d[pos + 8:pos + 8 + n].decode("latin1"))
                pos += 8 + n
        n = struct.unpack_from(e + "I", d, pos)[0]         # kallsyms
        pos += 4 + n
        n = struct.unpack_from(e + "I", d, pos)[0]         # printk
        pos += 4 + n
        ncpus = struct.unpack_from(e + "I", d, pos)[0]
        pos += 4
        while True:                                         # options
            label = d[pos:pos + 10]
            if label.startswith(b"options  "):
                pos += 10
                while True:
                    oid = struct.unpack_from(e + "H", d, pos)[0]
                    pos += 2
                    if oid == 0:
                        break
                    n = struct.unpack_from(e + "I", d, pos)[0]
                    pos += 4 + n
                continue
            if label.startswith(b"latency  "):
                raise ValueError("a latency trace.dat has no pages")
            break
        assert d[pos:pos + 10] == b"flyrecord\0", "no flyrecord"
        pos += 10
        for cpu in range(ncpus):
            off, size = struct.unpack_from(e + "QQ", d, pos + 16 * cpu)
            self.cpus.append((cpu, off, size))

    def _v7(self, pos):
        d, e = self.data, self.e
        # compression name and version
        comp, pos = _cstr(d, pos)
        _, pos = _cstr(d, pos)
        if comp not in ("none", ""):
            raise ValueError("a compressed trace.dat (%s)" % comp)
        opt = struct.unpack_from(e + "Q", d, pos)[0]
        seen = set()
        while opt and opt not in seen:
            seen.add(opt)
            oid, flags = struct.unpack_from(e + "HH", d, opt)
            _, size = struct.unpack_from(e + "IQ", d, opt + 4)
            body = opt + 16
            nxt = 0
            end = body + size
            p = body
            while p + 6 <= end:
                o, n = struct.unpack_from(e + "HI", d, p)
                p += 6
                if o == 0:          # DONE: the next options section
                    nxt = struct.unpack_from(e + "Q", d, p)[0]
                    break
                if o == 16:          # HEADER_INFO, FTRACE_EVENTS: skip
                    pass
                if o == 18:          # EVENT_FORMATS: offset of the section
                    self._v7_events(struct.unpack_from(e + "Q", d, p)[0])
                if o == 3:           # BUFFER: a flyrecord buffer
                    self._v7_buffer(d[p:p + n])
                p += n
            opt = nxt

    def _v7_events(self, sec):
        d, e = self.data, self.e
        oid, flags, _, size = struct.unpack_from(e + "HHIQ", d, sec)
        pos = sec + 16
        systems = struct.unpack_from(e + "I", d, pos)[0]
        pos += 4
        for _ in range(systems):
            sysname, pos = _cstr(d, pos)
            count = struct.unpack_from(e + "I", d, pos)[0]
            pos += 4
            for _ in range(count):
                n = struct.unpack_from(e + "Q", d, pos)[0]
                if sysname == "block":
                    self._formats(d[pos + 8:pos + 8 + n].decode("latin1"))
                pos += 8 + n

    def _v7_buffer(self, body):
        e = self.e
        p = 8                                   # the section's offset
        name_end = body.index(b"\0", p)
        if body[p:name_end]:                    # an instance: not the top
            return
        p = name_end + 1
        _, p = _cstr(body, p)                   # the clock
        # the page size, then the CPUs
        ncpus = struct.unpack_from(e + "I", body, p + 4)[0]
        p += 8
        for _ in range(ncpus):
            cpu, off, size = struct.unpack_from(e + "IQQ", body, p)
            p += 20
            self.cpus.append((cpu, off, size))

    def events(self):
        """every data event: (time, cpu, page offset, event offset,
        event end, type_len word offset, event id)"""
        d, e = self.data, self.e
        ls = self.long_size
        out = []
        for cpu, off, size in self.cpus:
            for page in range(off, off + size, self.page_size):
                ts = struct.unpack_from(e + "Q", d, page)[0]
                commit = struct.unpack_from(e + ("Q" if ls == 8 else "I"),
                                            d, page + 8)[0] & ((1 << 27) - 1)
                start = page + 8 + ls
                p, end = start, start + commit
                while p < end:
                    word = struct.unpack_from(e + "I", d, p)[0]
                    tl, delta = word & 31, word >> 5
                    if tl == 29:                # padding
                        if delta == 0:
                            break
                        n = struct.unpack_from(e + "I", d, p + 4)[0]
                        ts += delta
                        p += 4 + n
                        continue
                    if tl == 30:                # time extend
                        ts += delta + (struct.unpack_from(e + "I", d, p + 4)[0] << 27)
                        p += 8
                        continue
                    if tl == 31:                # absolute time stamp
                        ts = delta + (struct.unpack_from(e + "I", d, p + 4)[0] << 27)
                        p += 8
                        continue
                    if tl == 0:
                        n = (struct.unpack_from(e + "I", d, p + 4)[0] - 1) & ~3
                        body = p + 8
                    else:
                        n = tl * 4
                        body = p + 4
                    ts += delta
                    eid = struct.unpack_from(e + "H", d, body)[0]
                    out.append((ts, cpu, page, p, body + n, eid, body, end))
                    p = body + n
        return out


def td_records(td):
    out = []
    e = td.e
    for ts, cpu, page, p, end, eid, body, page_end in td.events():
        name = td.ids.get(eid)
        kind, key = None, None
        if name is not None:
            kind = {"block_rq_issue": "D", "block_rq_complete": "C",
                    "block_bio_complete": "C"}.get(name, "io")
            if kind in ("D", "C"):
                # dev_t (u32) and sector (u64) are the first fields after
                # the 8-byte common header in the block events
                dev = struct.unpack_from(e + "I", td.data, body + 8)[0]
                sector = struct.unpack_from(e + "Q", td.data, body + 16)[0]
                key = (dev, sector)
        out.append((ts, cpu, kind, key, (p, end, page_end)))
    return out


def td_steal(data, e, p, page_end):
    """one nanosecond less for the first record after p on its page that
    has one to give (after the page's last record, nothing moves)"""
    while p + 4 <= page_end:
        word = struct.unpack_from(e + "I", data, p)[0]
        tl, delta = word & 31, word >> 5
        if tl == 29:
            if delta == 0:
                return
            p += 4 + struct.unpack_from(e + "I", data, p + 4)[0]
            continue
        if tl == 30:
            hi = struct.unpack_from(e + "I", data, p + 4)[0]
            total = delta + (hi << 27)
            if total > 0:
                total -= 1
                struct.pack_into(e + "II", data, p,
                                 30 | ((total & ((1 << 27) - 1)) << 5),
                                 total >> 27)
                return
            p += 8
            continue
        if tl == 31:
            return
        if delta > 0:
            struct.pack_into(e + "I", data, p, tl | ((delta - 1) << 5))
            return
        if tl == 0:
            p += 4 + ((struct.unpack_from(e + "I", data, p + 4)[0] + 3) & ~3)
        else:
            p += 4 + tl * 4


def td_discard(data, e, p, end, page_end):
    """writes the event at p..end over as records a reader passes by
    with the times of the records after it kept: time extends (8 bytes,
    the first carrying the event's delta), and where the size is not a
    multiple of 8 a padding of 12 bytes at its end (kbuffer adds a
    padding's delta, which must not be 0: the extend carries one
    nanosecond less; of a delta of 0, the next record gives one up,
    td_steal)"""
    word = struct.unpack_from(e + "I", data, p)[0]
    delta = word >> 5
    size = end - p
    pad = size % 8 != 0
    if pad:
        if delta > 0:
            delta -= 1
        else:
            td_steal(data, e, end, page_end)
    q = p
    while q + 8 <= end - (12 if pad else 0):
        struct.pack_into(e + "II", data, q,
                         30 | ((delta & ((1 << 27) - 1)) << 5), delta >> 27)
        delta = 0
        q += 8
    if pad:
        struct.pack_into(e + "II", data, q, 29 | (1 << 5), end - q - 4)


# ---- the drop

def drop(src, dst, mode, lo=None, hi=None, seed=1, cpu=None):
    kind = kind_of(src)
    rng = random.Random(seed)
    if kind == "blktrace":
        files = {}
        for p in sorted(glob.glob(src + ".blktrace.*")):
            c = int(p.rsplit(".", 1)[1])
            with open(p, "rb") as f:
                files[c] = bt_records(f.read())
        recs = [(r, c) for c, rs in files.items() for r in rs]
    elif kind == "dump":
        with open(src, "rb") as f:
            recs = [(r, 0) for r in bt_records(f.read())]
    elif kind == "perf":
        with open(src, "rb") as f:
            recs = [(r, 0) for r in perf_records(f.read())]
    else:
        with open(src, "rb") as f:
            td = TraceDat(f.read())
        recs = [(r, 0) for r in td_records(td)]
    times = [r[0] for r, _ in recs if r[2] is not None]
    first, last = min(times), max(times)
    span = last - first
    if lo is None:
        width = rng.uniform(0.01, 0.10)
        lo = rng.uniform(0, 1 - width)
        hi = lo + width
    t0, t1 = first + int(lo * span), first + int(hi * span)
    if mode == "cpu" and cpu is None:
        cpus = sorted(set(r[1] for r, _ in recs if r[2] is not None))
        cpu = cpus[rng.randrange(len(cpus))]

    def gone(r):
        t, c, k = r[0], r[1], r[2]
        if k is None or not t0 <= t < t1:
            return False
        if mode == "completions":
            return k == "C"
        if mode == "issues":
            return k == "D"
        if mode == "cpu":
            return c == cpu
        return True

    dropped = [gone(r) for r, _ in recs]
    torn = _torn([r for r, _ in recs], dropped)
    kept = [r[0] for (r, _), x in zip(recs, dropped)
            if r[2] is not None and not x]
    n = sum(dropped)
    if kind == "blktrace":
        i = 0
        for c, rs in files.items():
            keep = []
            for r in rs:
                if not dropped[i]:
                    keep.append(r[4])
                i += 1
            with open("%s.blktrace.%d" % (dst, c), "wb") as f:
                f.write(b"".join(keep))
    elif kind in ("dump", "perf"):
        with open(dst, "wb") as f:
            f.write(b"".join(r[4] for (r, _), x in zip(recs, dropped)
                             if not x))
    else:
        data = bytearray(td.data)
        for (r, _), x in zip(recs, dropped):
            if x:
                td_discard(data, td.e, r[4][0], r[4][1], r[4][2])
        with open(dst, "wb") as f:
            f.write(data)
    return {"kind": kind, "mode": mode, "cpu": cpu if mode == "cpu" else None,
            "from_s": round((t0 - first) / 1e9, 9),
            "to_s": round((t1 - first) / 1e9, 9),
            "from_ns": t0, "to_ns": t1, "dropped": n, "torn": len(torn),
            "first_ns": min(kept) if kept else 0,
            "last_ns": max(kept) if kept else 0,
            "torn_at": [[w, t] for w, t in torn]}


def _torn(recs, dropped):
    """the I/Os of which one part (issue or completion) was dropped and
    the other kept, issues and completions paired first in, first out
    per (device, sector) in time order: a list of (what was lost, 'C'
    or 'D', the time of the part kept)"""
    order = sorted(range(len(recs)), key=lambda i: (recs[i][0] or 0, i))
    waiting = {}
    torn = []
    for i in order:
        t, c, k, key, _ = recs[i]
        if k == "D" and key is not None:
            waiting.setdefault(key, []).append((dropped[i], t))
        elif k == "C" and key is not None:
            q = waiting.get(key)
            if q:
                gone, td = q.pop(0)
                if gone and not dropped[i]:
                    torn.append(("D", t))
                elif dropped[i] and not gone:
                    torn.append(("C", td))
    # issues never completed in the trace: not torn by the drop
    return torn


def main(argv):
    args = argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    src, dst, mode = args[:3]
    if mode not in ("completions", "issues", "cpu", "all"):
        sys.exit("make_holes.py: mode %r: completions, issues, cpu or all"
                 % mode)
    opts = {}
    rest = args[3:]
    while rest:
        o, v = rest[0], rest[1]
        rest = rest[2:]
        opts[o] = v
    res = drop(src, dst, mode,
               float(opts["--from"]) if "--from" in opts else None,
               float(opts["--to"]) if "--to" in opts else None,
               int(opts.get("--seed", 1)),
               int(opts["--cpu"]) if "--cpu" in opts else None)
    print(json.dumps(res))


if __name__ == "__main__":
    main(sys.argv)
