#!/usr/bin/env python3
"""fuzz/make-seeds.py: writes the seed corpus fuzz/seeds/TARGET from the
real traces and logs (small slices, whole records) and from a few
generated ones. Run from the checkout with bench/gentrace built:
    python3 fuzz/make-seeds.py [GENTRACE]
The seeds are committed; this documents where they came from."""
import gzip
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(TOP, "fuzz", "seeds")
TRACES = os.path.join(TOP, "samples")
GENTRACE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "bench", "gentrace")


def records(data, limit):
    """The first limit whole records of a blktrace file."""
    out, pos = b"", 0
    while pos + 4 <= len(data) and limit:
        magic = struct.unpack_from("<I", data, pos)[0]
        order = "<" if (magic & 0xFFFFFF00) == 0x65617400 else ">"
        version = struct.unpack_from(order + "I", data, pos)[0] & 0xFF
        size, pdu_at = (48, 46) if version == 7 else (64, 50)
        if pos + size > len(data):
            break
        pdu = struct.unpack_from(order + "H", data, pos + pdu_at)[0]
        out += data[pos:pos + size + pdu]
        pos += size + pdu
        limit -= 1
    return out


def control(flags=0, split=0, draw=0, window=0, offset=0):
    return bytes([flags, split & 0xFF, split >> 8, draw, window, offset])


def put(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def feed_seeds():
    sets = {"centos7": os.path.join(TRACES, "centos7-sda"),
            "fio": os.path.join(TOP, "samples", "fio-randrw"),
            "dd": os.path.join(TOP, "samples", "dd-write")}
    tmp = tempfile.mkdtemp()
    try:
        for name, opts in (("v8", ["--v8"]), ("swap", ["--swap"]),
                           ("v8swap", ["--v8", "--swap", "--merges"])):
            subprocess.run([GENTRACE, "-o", os.path.join(tmp, name), "-n",
                            "60", "--bimodal"] + opts, check=True,
                           stderr=subprocess.DEVNULL)
            sets["gen-" + name] = os.path.join(tmp, name)
        for name, base in sets.items():
            cpu0 = records(read(base + ".blktrace.0"), 40)
            cpu1 = records(read(base + ".blktrace.1"), 40)
            put("feed", name + "-dump", control() + cpu0 + cpu1)
            both = cpu0 + cpu1
            put("feed", name + "-2cpu", control(1, len(cpu0)) + both)
            put("feed", name + "-2cpu-summary",
                control(1, len(cpu0), window=0x80) + both)
            put("feed", name + "-2cpu-P", control(1 | 2, len(cpu0)) + both)
            put("feed", name + "-2cpu-P-merge-bin1",
                control(1 | 2 | 4 | 8, len(cpu0)) + both)
            put("feed", name + "-2cpu-x-y-Q",
                control(1 | 16 | 32 | 64, len(cpu0)) + both)
            put("feed", name + "-png", control(1, len(cpu0), 0x1F) + both)
            put("feed", name + "-svg-P", control(3, len(cpu0), 0x3F) + both)
            put("feed", name + "-csv", control(1, len(cpu0), 0x1E) + both)
        put("feed", "centos7-pdf", control(1, len(cpu0), 0x5F) + both)
        compressed_seeds(sets)
    finally:
        shutil.rmtree(tmp)


def zstd(data):
    """data compressed by the zstd command (with its checksum), or None."""
    if not shutil.which("zstd"):
        return None
    return subprocess.run(["zstd", "-q", "-c"], input=data, check=True,
                          stdout=subprocess.PIPE).stdout


def compressed_seeds(sets):
    """The reader's byte sources and what it says of other data: dumps and
    2-CPU sets compressed with gzip, xz and zstd (mtime 0: the same bytes
    each time), blkparse's "Input file" lines, blkparse's text."""
    kinds = (("gz", lambda d: gzip.compress(d, mtime=0)),
             ("xz", lzma.compress), ("zst", zstd))
    for name in ("centos7", "fio"):
        base = sets[name]
        cpu0 = records(read(base + ".blktrace.0"), 40)
        cpu1 = records(read(base + ".blktrace.1"), 40)
        for ext, compress in kinds:
            if compress(b"") is None:
                continue
            put("feed", "%s-dump-%s" % (name, ext),
                control() + compress(cpu0 + cpu1))
            z0, z1 = compress(cpu0), compress(cpu1)
            put("feed", "%s-2cpu-%s" % (name, ext),
                control(1, len(z0)) + z0 + z1)
    fio = sets["fio"]
    cpu0 = records(read(fio + ".blktrace.0"), 3)
    cpu1 = records(read(fio + ".blktrace.1"), 40)
    put("feed", "fio-dump-input-lines", control()
        + b"Input file fio.blktrace.0 added\n" + cpu0
        + b"Input file fio.blktrace.1 added\n" + cpu1)
    put("feed", "blkparse-text", control()
        + b"Input file sda.blktrace.0 added\n"
        + b"  8,0    1        1     0.000000000  1234  Q   W 123 + 8 [dd]\n")


def tagger_seeds():
    def u32(*v):
        return b"".join(struct.pack("=I", x) for x in v)

    def new(tag, label):
        label = label.encode() + b"\0"
        return u32(1, tag, len(label)) + label

    put("tagger", "plain-ends", bytes([4, 3]) + u32(0, 0, 0, 0))
    put("tagger", "tags", bytes([3, 7]) + new(1, "one") + u32(2, 1, 0)
        + new(2, "two") + u32(2, 2, 0) + u32(2, 1, 2, 2, 0))
    put("tagger", "relabel", bytes([2, 255]) + new(5, "a") + new(5, "bb")
        + u32(2, 5, 0, 0))
    put("tagger", "long-label", bytes([1, 100]) + new(7, "x" * 300)
        + u32(2, 7, 0))
    put("tagger", "unknown-type", bytes([1, 0]) + u32(9))
    put("tagger", "end-too-many", bytes([1, 4]) + u32(0, 0))
    put("tagger", "tag-undefined", bytes([1, 4]) + u32(2, 3, 0))
    put("tagger", "incomplete", bytes([2, 5]) + new(1, "a")[:9])


def text_seeds():
    for src in ("samples/fio-randrw.mpstat", "samples/dd-write.mpstat",
                "tests/data/mpstat-2cpu.txt"):
        put("mpstat", os.path.basename(src), read(os.path.join(TOP, src)))
    put("mpstat", "ampm", b"Linux 5.10 (h) \t11/22/26 \t_x86_64_\t(1 CPU)\n\n"
        b"11:59:59 PM  CPU    %user   %nice %system %iowait    %irq   %soft"
        b"  %steal  %guest   %idle\n"
        b"11:59:59 PM  all    1.00    0.00    2.00    3.00    0.00    0.00"
        b"    0.00    0.00   94.00\n"
        b"12:00:00 AM    0    1.00    0.00    2.00    3.00    0.00    0.00"
        b"    0.00    0.00   94.00\n")
    for src in ("samples/fio-randrw_bw.1.log", "samples/fio-randrw_bw.2.log",
                "tests/data/fio_bw.log", "tests/data/fio_bw_per_io.log",
                "tests/data/fio_bw_prio.log"):
        put("fiolog", os.path.basename(src), read(os.path.join(TOP, src)))


def args_seeds():
    lines = [
        ["-t", "sda", "-o", "a.png"],
        ["-t", "sda", "--summary=json"],
        ["-t", "a", "-t", "b", "-l", "A", "-l", "B", "-o", "d.svg"],
        ["-t", "sda", "-P", "--merge-comm", "-O", "io", "-N", "tput"],
        ["-t", "sda", "-T", "tag-by-pid", "--tagger-timeout", "2.5"],
        ["-t", "sda", "--bin-ms", "86400000", "-x", "1:2", "-y", "0:10"],
        ["-t", "sda", "-w", "20000", "-h", "1", "-c", "16", "-r", "0.5"],
        ["-t", "sda", "--csv", "out", "--dir", "rw", "--top", "64"],
        ["-d", "/dev/loop0", "-D", "dir", "-t", "name", "-p", "dd",
         "if=/dev/zero", "of=x"],
        ["-d", "/dev/sdb", "--tracer", "ftrace", "-p", "fio job.fio"],
        ["-t", "sda", "--movie=rect", "-o", "m.mp4", "--fps", "30",
         "--movie-length", "10", "-K", "frames", "-w", "640", "-h", "480"],
        ["-t", "sda", "-F", "x_bw.1.log@3", "-a", "C", "--title", "T"],
        ["--help"], ["--version"], ["-t"], ["-t", "sda", "-Z"],
        ["-t", "sda", "--summary=yaml"], ["-t", "x", "-o", "x.bmp"],
    ]
    for i, words in enumerate(lines):
        put("args", "cmdline-%02d" % i, b"\0".join(w.encode() for w in words))


def ftrace_page_seeds():
    """Real ring-buffer pages (Linux 6.18, 64-bit layout), as read from
    per_cpu/cpuN/trace_pipe_raw: see tests/test_ftrace_rec.c."""
    for cpu in (0, 1):
        path = os.path.join(TOP, "tests", "data",
                            "trace_pipe_raw-loop0.cpu%d" % cpu)
        put("ftrace_page", "loop0-cpu%d" % cpu, read(path))


REGRESS = os.path.join(TOP, "tests", "data", "regress", "untrusted")


def perftext_seeds():
    """perf script's text of the block tracepoints: slices of
    samples/perf-fio.perf.txt.xz (whole lines) and issue #40's perf
    reproducers (tests/data/regress/untrusted)."""
    lines = lzma.decompress(read(os.path.join(TRACES, "perf-fio.perf.txt.xz"))).splitlines(True)
    for i, (start, n) in enumerate([(0, 40), (0, 400), (len(lines) // 2, 120),
                                    (len(lines) - 60, 60)]):
        put("perftext", "perf-fio-%d" % i, b"".join(lines[start:start + n]))
    for name in sorted(os.listdir(REGRESS)):
        if name.endswith(".perf.txt") or name.endswith("cpu65536.txt"):
            put("perftext", name, read(os.path.join(REGRESS, name)))


def dump_seeds():
    """issue #40's dump reproducers for the trace reader's target (its
    control bytes first: a dump, summary and pictures)."""
    for name in sorted(os.listdir(REGRESS)):
        if name.endswith(".dump"):
            put("feed", name, control() + read(os.path.join(REGRESS, name)))


def merge_seeds(iowatcher):
    """--summary=json of the small samples (iowatcher given) and issue
    #40's summary reproducers."""
    for name in ("dd-write", "split-dd", "discard", "two-devices"):
        out = subprocess.run([iowatcher, "-t", os.path.join(TRACES, name),
                              "--summary=json"], check=True,
                             capture_output=True).stdout
        put("merge", name + ".json", out)
    for name in sorted(os.listdir(REGRESS)):
        if name.startswith("merge-") and name.endswith(".json"):
            put("merge", name, read(os.path.join(REGRESS, name)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--only-untrusted":
        # the seeds of issue #40's targets alone: python3
        # fuzz/make-seeds.py --only-untrusted ./iowatcher
        perftext_seeds()
        dump_seeds()
        merge_seeds(sys.argv[2])
        sys.exit(0)
    feed_seeds()
    tagger_seeds()
    text_seeds()
    args_seeds()
    ftrace_page_seeds()
    perftext_seeds()
    dump_seeds()
    merge_seeds(os.path.join(TOP, "iowatcher"))
