#!/bin/sh
# t_record_bpf.sh: the BPF recorder on a loop device. fio's I/Os are
# what the summary and blkparse count; blkparse reads the files without
# complaint, each file is in time order and names the processes; the
# events it writes are those the kernel's ftrace blk tracer writes for
# the same workload, field for field (the action word with its
# categories, sector, bytes, error, payload); none of its programs stays
# loaded after the workload's end, SIGINT, SIGTERM, SIGKILL or an error.
# Needs root, BPF with the kernel's BTF, losetup, fio, blkparse.
. "$(dirname "$0")/lib.sh"
RD="$TOP/tests/tools/record_demo"

T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! command -v losetup >/dev/null || ! command -v blkparse >/dev/null ||
     ! command -v fio >/dev/null || ! command -v python3 >/dev/null
then why="losetup, blkparse, fio or python3 missing"
elif [ ! -x "$RD" ]; then why="tests/tools/record_demo not built"
fi
if [ -n "$why" ]; then
	skip "BPF recorder tests: $why"
	finish
	exit $?
fi

tracing_lock
truncate -s 64M "$TMP/disk.img"
DEV=$(losetup -f --show "$TMP/disk.img") || { fail "losetup"; finish; exit 1; }
ENABLE=/sys/class/block/$(basename "$DEV")/trace/enable
cleanup() {
	losetup -d "$DEV"
	lib_cleanup
}
trap cleanup EXIT

if ! "$RD" -T bpf -d "$DEV" -D "$TMP" -t probe -- true > "$TMP/probe.out" 2>&1
then
	skip "the BPF recorder cannot run here: $(cat "$TMP/probe.out")"
	finish
	exit $?
fi
BEFORE=$(tracing_state)

# our programs, as bpftool lists them (none when bpftool is missing)
PROGS="rq_insert|rq_issue|rq_merge|rq_requeue|rq_complete|bio_complete|bio_backmerge|bio_frontmerge|bio_queue|getrq|plug|unplug|split|bio_remap|rq_remap|dirty_folio|dio_begin|dio_queued|dio_complete"
ours_loaded() {
	command -v bpftool >/dev/null &&
		bpftool prog list 2>/dev/null | grep -qE "name ($PROGS) "
}
# the kernel frees a program a moment after its last link closes
check_unloaded() {
	i=0
	while ours_loaded && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! command -v bpftool >/dev/null; then
		skip "$1: bpftool missing"
	elif ours_loaded; then
		fail "$1" "$(bpftool prog list | grep -E "name ($PROGS) ")"
	else
		pass "$1"
	fi
}

json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# 1. fio's I/Os, counted alike by fio, the summary and blkparse
FIO="fio --name=rw --filename=$DEV --rw=randrw --bs=4k --size=32M --io_size=12M --iodepth=8 --ioengine=libaio --direct=1 --output-format=json --output=$TMP/fio.json"
"$IOW" -d "$DEV" -D "$TMP" -t fio --tracer bpf --summary=json -p "$FIO" \
	> "$TMP/fio.sum" 2> "$TMP/fio.err"
fio_ios=$(json "$TMP/fio.json" "sum(j[k]['total_ios'] for j in d['jobs'] for k in ('read','write'))")
sum_ios=$(json "$TMP/fio.sum" "sum(x[k]['ios'] for t in d['traces'] for x in t['devices'] for k in ('read','write'))")
# the last "Reads Completed" line: the total (blkparse prints no Total
# section when every record is on one CPU)
bp_ios=$(blkparse -i fio -D "$TMP" 2>/dev/null | awk '/Reads Completed/ {
	gsub(",", ""); n = $3 + $7 } END { print n }')
# completions the kernel made without running the program (a few in
# 100,000, now and then one in a run this small: bench/README.md) are
# noted as lost: fio's count is the summary's and those, exactly
unseen=$(json "$TMP/fio.sum" "sum(x['unseen_completions'] for t in d['traces'] for x in t['devices'])")
check "fio's I/Os recorded: fio $fio_ios, summary $sum_ios + $unseen noted unseen, blkparse $bp_ios" \
	[ "$fio_ios" -gt 0 -a "$fio_ios" = "$((sum_ios + unseen))" -a "$sum_ios" = "$bp_ios" ]
check "the summary names the recorder" \
	[ "$(json "$TMP/fio.sum" "d['traces'][0].get('recorder', 'bpf')")" = bpf ]
if [ "$unseen" = 0 ]; then
	lost_words="nothing lost"
else
	lost_words="the kernel lost $unseen events? in 1 window \(loss notes in the trace\)"
fi
check "the end line says what, where and what was lost ($unseen)" \
	grep -qE "^iowatcher: recorded [0-9]+ events of $DEV with bpf in $TMP/fio.blktrace.* MiB buffer per CPU, .* s of CPU\); $lost_words; the trace holds (all )?[0-9,]+ .*completions the kernel counted.*$" \
	"$TMP/fio.err"
check "blkparse reads the files without complaint" \
	sh -c "! blkparse -i fio -D '$TMP' 2>&1 >/dev/null | grep -q . &&
	       blkparse -i fio -D '$TMP' | grep -q 'Skips: 0 forward'"
check "PROCESS notes name fio" \
	sh -c "blkparse -i fio -D '$TMP' | grep -q ' Q .*\[fio\]'"

# each file in time order, every record's cpu its file's
python3 - "$TMP/fio" > "$TMP/order.out" <<'PY'
import glob, struct, sys
bad = 0
for path in sorted(glob.glob(sys.argv[1] + ".blktrace.*")):
    cpu = int(path.rsplit(".", 1)[1])
    data = open(path, "rb").read()
    pos, last, n = 0, 0, 0
    while pos + 48 <= len(data):
        magic, seq, time, sector, nbytes, action, pid, dev, c, err, pdu = \
            struct.unpack_from("<IIQQIIIIIHH", data, pos)
        bad += time < last or c != cpu
        last = time
        pos += 48 + pdu
        n += 1
    bad += pos != len(data)
print(bad)
PY
check "each CPU's file in time order, its records its CPU's" \
	[ "$(cat "$TMP/order.out")" = 0 ]
check_unloaded "no program left after the workload's end"
check "tracing state as before" state_restored

# 2. the same workload through bpf and through ftrace: the same events
W="dd if=/dev/zero of=$DEV bs=64k count=64 oflag=direct status=none
dd if=$DEV of=/dev/null bs=16k count=100 iflag=direct status=none
dd if=/dev/zero of=$DEV bs=1M count=4 conv=fsync status=none
dd if=/dev/zero of=$DEV bs=4k count=10 oflag=direct,sync status=none"
command -v blkdiscard >/dev/null &&
	W="$W
blkdiscard -o 0 -l 1048576 $DEV"
# (bpf keeping the causes, as iowatcher does by default: its queue
# records come from another path)
for tr in bpf ftrace; do
	causes=
	[ $tr = bpf ] && causes="-c 3"
	# shellcheck disable=SC2086
	"$RD" -T $tr $causes -d "$DEV" -D "$TMP" -t cmp-$tr -- sh -c "$W" \
		> "$TMP/cmp-$tr.out" 2>&1
	# every field of each event but the plugs (their number depends on
	# timing), pid, cpu, time and sequence: the action word with its
	# categories, sector, bytes, error, payload
	python3 - "$TMP/cmp-$tr" <<'PY' | sort | uniq -c > "$TMP/cmp-$tr.txt"
import glob, struct, sys
for path in glob.glob(sys.argv[1] + ".blktrace.*"):
    data, pos = open(path, "rb").read(), 0
    while pos + 48 <= len(data):
        (magic, seq, time, sector, nbytes, action, pid, dev, cpu, err,
         pdu) = struct.unpack_from("<IIQQIIIIIHH", data, pos)
        if not action & (1 << 26) and action & 0xffff not in (9, 10, 11):
            print("%08x %d %d %d %s" % (action, sector, nbytes, err,
                  data[pos + 48:pos + 48 + pdu].hex()))
        pos += 48 + pdu
PY
done
# The same, but for completions the kernel made without running the BPF
# program (a few in 100,000 on Linux 6.18: bench/README.md): bpf may lack
# as many completions as its recording says it lost, and nothing else.
same_but_noted_losses() {
	python3 - "$TMP/cmp-bpf.txt" "$TMP/cmp-ftrace.txt" "$TMP/cmp-bpf.out" <<'PY'
import re, sys
def counts(path):
    d = {}
    for line in open(path):
        n, key = line.split(None, 1)
        d[key] = int(n)
    return d
bpf, ft = counts(sys.argv[1]), counts(sys.argv[2])
m = re.search(r", (\d+) lost in", open(sys.argv[3]).read())
lost = int(m.group(1)) if m else 0
short = 0
for key in set(bpf) | set(ft):
    b, f = bpf.get(key, 0), ft.get(key, 0)
    if b == f:
        continue
    if b > f or int(key.split()[0], 16) & 0xffff != 8:
        sys.exit(1)
    short += f - b
if short > lost:
    sys.exit(1)
print(short)
PY
}
if [ -s "$TMP/cmp-bpf.txt" ] && cmp -s "$TMP/cmp-bpf.txt" "$TMP/cmp-ftrace.txt"
then
	pass "the events are ftrace's, field for field ($(wc -l < "$TMP/cmp-bpf.txt") kinds, flushes and a discard among them)"
elif [ -s "$TMP/cmp-bpf.txt" ] && short=$(same_but_noted_losses); then
	pass "the events are ftrace's, field for field, but $short completions the recording noted as lost"
else
	fail "the events are ftrace's, field for field" \
		"$(diff "$TMP/cmp-bpf.txt" "$TMP/cmp-ftrace.txt" | head -n 8)"
fi

# 3. torn down on every exit path
# wait_loaded: until the programs are loaded (20 s at most), the state
# each signal below is sent in (it was a sleep of 1 or 1.5 s); without
# bpftool, 1.5 s
wait_loaded() {
	command -v bpftool > /dev/null || { sleep 1.5; return; }
	i=0
	while ! ours_loaded && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
mkdir "$TMP/x"
"$RD" -T bpf -d "$DEV" -D "$TMP/x" -t int -- sleep 30 > /dev/null 2>&1 &
pid=$!
wait_loaded
ours_loaded && loaded=1 || loaded=0
kill -INT $pid
wait $pid
check "the programs are loaded while recording" [ $loaded = 1 ] ||
	! command -v bpftool >/dev/null
check_unloaded "no program left after SIGINT"
"$RD" -T bpf -d "$DEV" -D "$TMP/x" -t term > /dev/null 2>&1 &
pid=$!
wait_loaded
kill -TERM $pid
wait $pid
check_unloaded "no program left after SIGTERM"
# (record_demo: no mpstat beside it to be orphaned)
"$RD" -T bpf -d "$DEV" -D "$TMP/x" -t kill -- sleep 30.5 > /dev/null 2>&1 &
pid=$!
wait_loaded
kill -KILL $pid
wait $pid 2>/dev/null
check_unloaded "no program left after SIGKILL"
pkill -f '^sleep 30.5$' 2>/dev/null
"$RD" -T bpf -d "$DEV" -D "$TMP/x" -t err -- /nonexistent/prog \
	> "$TMP/err.out" 2>&1
check "an error after the start is one line" \
	sh -c "[ \"\$(wc -l < '$TMP/err.out')\" = 1 ] &&
	       grep -q 'cannot run /nonexistent/prog' '$TMP/err.out'"
check_unloaded "no program left after an error"
check "tracing state restored at the end" state_restored

finish
