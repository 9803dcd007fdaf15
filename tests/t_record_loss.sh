#!/bin/sh
# t_record_loss.sh: a recording made to lose events (the smallest buffer,
# fio's random reads at queue depth 32) has its loss in the trace, with
# each recorder that runs here: loss notes in the files of the CPUs
# whose events were lost, which blkparse prints as messages, whose
# counts add up to what the recorder reported, windows in order
# (T0 <= T1) at their place in time; the end line says what was lost.
# Needs root, tracefs, losetup, fio, blkparse, python3.
. "$(dirname "$0")/lib.sh"
RD="$TOP/tests/tools/record_demo"

T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! grep -qw blk "$T/available_tracers"; then why="no blk tracer"
elif ! command -v losetup >/dev/null || ! command -v blkparse >/dev/null ||
     ! command -v fio >/dev/null || ! command -v python3 >/dev/null
then why="losetup, blkparse, fio or python3 missing"
elif [ ! -x "$RD" ]; then why="tests/tools/record_demo not built"
fi
if [ -n "$why" ]; then
	skip "loss tests: $why"
	finish
	exit $?
fi

tracing_lock
truncate -s 256M "$TMP/disk.img"
DEV=$(losetup -f --show "$TMP/disk.img") || { fail "losetup"; finish; exit 1; }
ENABLE=/sys/class/block/$(basename "$DEV")/trace/enable
trap 'losetup -d "$DEV"; rm -rf "$TMP"' EXIT

BEFORE=$(tracing_state)

TRACERS=ftrace
if "$RD" -T bpf -d "$DEV" -D "$TMP" -t probe -- true > "$TMP/probe.out" 2>&1
then
	TRACERS="bpf ftrace"
else
	skip "bpf: $(cat "$TMP/probe.out")"
fi
FIO="fio --name=r --filename=$DEV --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --direct=1 --runtime=1 --time_based --output=/dev/null"

# the loss notes blkparse prints, checked against the files' records:
# "N T0 T1 CPU OK" per note (OK: its CPU column is its own, T0 <= T1, and
# the note sits in time order in its file)
notes() {
	blkparse -i "$1" -D "$TMP" 2>/dev/null | python3 -c '
import re, sys
pat = re.compile(r"^ *\d+,\d+ +(\d+) .* lost (\d+|an unknown number of) events on cpu (\d+), from (\d+) to (\d+) ns$")
for line in sys.stdin:
    m = pat.match(line.rstrip("\n"))
    if m:
        col, n, cpu, t0, t1 = m.groups()
        ok = col == cpu and int(t0) <= int(t1)
        print(n if n.isdigit() else "?", t0, t1, cpu, "ok" if ok else "bad")
'
}

for tr in $TRACERS; do
	"$RD" -T $tr -b 64 -d "$DEV" -D "$TMP" -t $tr -- sh -c "$FIO" \
		> "$TMP/$tr.out" 2>&1
	said=$(sed -nE 's/.* ([0-9]+) lost in ([0-9]+) windows.*/\1 \2/p' \
		"$TMP/$tr.out")
	notes $tr > "$TMP/$tr.notes"
	n_notes=$(wc -l < "$TMP/$tr.notes")
	sum=$(awk '$1 != "?" { s += $1 } END { print s + 0 }' "$TMP/$tr.notes")
	if [ -z "$said" ]; then
		fail "$tr: a 64 KiB buffer loses events" "$(cat "$TMP/$tr.out")"
		continue
	fi
	pass "$tr: a 64 KiB buffer loses events ($(head -n 1 "$TMP/$tr.out"))"
	check "$tr: blkparse prints a loss note per window ($n_notes, said ${said#* })" \
		[ "$n_notes" = "${said#* }" ]
	check "$tr: the notes add up to the count reported ($sum, said ${said% *})" \
		[ "$sum" = "${said% *}" ]
	check "$tr: each note in its CPU's file, T0 <= T1" \
		sh -c "! grep -q bad '$TMP/$tr.notes'"
	check "$tr: blkparse reads the files without complaint" \
		sh -c "! blkparse -i $tr -D '$TMP' 2>&1 >/dev/null | grep -q ."
	# each file in time order, the notes included
	python3 - "$TMP/$tr" > "$TMP/order.out" <<'PY'
import glob, struct, sys
bad = 0
for path in glob.glob(sys.argv[1] + ".blktrace.*"):
    data, pos, last = open(path, "rb").read(), 0, 0
    while pos + 48 <= len(data):
        time = struct.unpack_from("<Q", data, pos + 8)[0]
        pdu = struct.unpack_from("<H", data, pos + 46)[0]
        bad += time < last
        last = time
        pos += 48 + pdu
print(bad)
PY
	check "$tr: every file in time order, its notes included" \
		[ "$(cat "$TMP/order.out")" = 0 ]
	check "$tr: tracing state restored" state_restored
	# read back: the loss in the JSON, nothing it could make up
	"$IOW" -t "$TMP/$tr" --summary=json > "$TMP/$tr.json" 2> /dev/null
	check "$tr: the JSON counts and locates the loss; no depth above fio's 32, no latency longer than the run" \
		python3 - "$TMP/$tr.json" "${said% *}" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
assert t["lost_events"] == int(sys.argv[2]), (t["lost_events"], sys.argv[2])
assert t["loss_windows"] or t["lost_unlocated"], t["loss_windows"]
for d in t["devices"]:
    assert d["queue_depth_mean"] <= 32, d["queue_depth_mean"]
    for k in ("d2c_us", "q2c_us"):
        assert d[k]["max"] <= t["duration_s"] * 1e6, (k, d[k])
PY
	if command -v pdftotext > /dev/null; then
		"$IOW" -t "$TMP/$tr" -O queue-depth -O latency -o "$TMP/$tr.pdf" 2> /dev/null
		check "$tr: the picture says how many events were lost" sh -c \
			"pdftotext '$TMP/$tr.pdf' - | tr '\n' ' ' | grep -q '${said% *} events lost'"
	fi
done

# the end line of iowatcher itself
"$IOW" -d "$DEV" -D "$TMP" -t cli --buffer 64K --summary -p "$FIO" \
	> /dev/null 2> "$TMP/cli.err"
check "the end line says how much was lost, in how many windows" \
	grep -qE "^iowatcher: recorded [0-9]+ events of $DEV with [a-z]+ in .*64 KiB buffer per CPU.*; the kernel lost [0-9]+ events in [0-9]+ windows \(loss notes in the trace\)$" \
	"$TMP/cli.err"

finish
