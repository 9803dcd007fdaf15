#!/usr/bin/env python3
"""tests/tools/make_causes.py BASE: writes BASE.cause.N and BASE.cause
beside a per-CPU trace (BASE.blktrace.N, little-endian v7), as the bpf
recorder keeps them (causefile.h), with causes made up by a fixed rule
from each QUEUE record's process, so that a test knows the answers:

  dd          its own write: file /mnt/f<K> (K: the sector's 32 MiB band),
              cgroup /user.slice/dd.scope, stack "syscall"
  jbd2/...    the journal, cgroup /, stack "journal"
  kworker/... a writeback of the first dd (else sync) pid's file /mnt/wb, credited to
              that dd (owner), cgroup /user.slice/dd.scope, stack
              "writeback"
  others      metadata, cgroup /, no stack

Prints the number of causes written."""
import glob
import struct
import sys

NOTIFY = 1 << 26
FLAGS = {"writeback": 1, "direct": 2, "metadata": 4, "journal": 8}
STACKS = {
    1: "entry_SYSCALL_64;do_syscall_64;ksys_write;vfs_write;ext4_file_write_iter;iomap_dio_rw;submit_bio",
    2: "ret_from_fork;kthread;kjournald2;jbd2_journal_commit_transaction;submit_bh;submit_bio",
    3: "ret_from_fork;kthread;worker_thread;wb_workfn;wb_writeback;do_writepages;ext4_writepages;submit_bio",
}
CGROUPS = {1: "/", 7: "/user.slice/dd.scope"}

base = sys.argv[1]
paths = sorted(glob.glob(base + ".blktrace.*"),
               key=lambda p: int(p.rsplit(".", 1)[1]))
comms, records = {}, {}
for p in paths:
    data, pos, out = open(p, "rb").read(), 0, []
    cpu = int(p.rsplit(".", 1)[1])
    while pos + 48 <= len(data):
        (magic, seq, t, sector, nbytes, action, pid, dev, rcpu, err,
         pdu_len) = struct.unpack_from("<IIQQIIIIIHH", data, pos)
        pdu = data[pos + 48:pos + 48 + pdu_len]
        if action & NOTIFY and action & 0xffff == 0:
            comms[pid] = pdu.split(b"\0")[0].decode("utf-8", "replace")
        elif not action & NOTIFY and action & 0xffff == 1:
            out.append((seq, dev, pid, sector))
        pos += 48 + pdu_len
    records[cpu] = out
dd_pids = sorted(p for p, c in comms.items() if c == "dd") or \
    sorted(p for p, c in comms.items() if c == "sync")
owner = dd_pids[0] if dd_pids else 0
n = 0
files = set()
for cpu, recs in records.items():
    with open("%s.cause.%d" % (base, cpu), "wb") as f:
        f.write(b"IOWCAUS1" + struct.pack("<II", 64, 0x01020304))
        for seq, dev, pid, sector in recs:
            comm = comms.get(pid, "")
            opid = otgid = cg = ino = flags = 0
            kstack = -1
            if comm == "dd":
                ino, cg, kstack = 1000 + (sector >> 16), 7, 1
            elif comm.startswith("jbd2"):
                flags, cg, kstack = FLAGS["journal"], 1, 2
            elif comm.startswith("kworker") and owner:
                flags, opid, otgid = FLAGS["writeback"], owner, owner
                ino, cg, kstack = 999, 7, 3
            else:
                flags, cg = FLAGS["metadata"], 1
            if ino:
                files.add(ino)
            f.write(struct.pack("<IIIIIIQQIiiIII", seq, dev, pid, pid, opid,
                                otgid, cg, ino, 7 << 20, kstack, -1, flags,
                                0, 0))
            n += 1
with open(base + ".cause", "w") as f:
    f.write("iowatcher causes 1\n")
    for pid, comm in sorted(comms.items()):
        f.write("task\t%d\t%d\t%s\n" % (pid, pid, comm))
    for cg, path in sorted(CGROUPS.items()):
        f.write("cgroup\t%d\t%s\n" % (cg, path))
    for ino in sorted(files):
        path = "/mnt/wb" if ino == 999 else "/mnt/f%d" % (ino - 1000)
        f.write("file\t%d\t%d\tfile\t%s\n" % (7 << 20, ino, path))
    for k, frames in sorted(STACKS.items()):
        f.write("kstack\t%d\t%s\n" % (k, frames))
    f.write("note\tuser stacks not recorded (ask for them; they need frame pointers)\n")
print(n)
