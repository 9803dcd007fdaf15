#!/bin/sh
# t_tracedat.sh: trace-cmd's trace.dat as a trace (reader/tracedat.c,
# through libtracecmd). samples/tracedat-fio holds one run recorded by
# iowatcher's BPF recorder and, at the same time, as a trace.dat made by
# trace-cmd restore from the kernel's per-CPU pages
# (tests/tools/tracedat-capture.sh): the trace.dat's summary equals the
# recording's count for count; the file read as it is, compressed by
# xz or gzip, on standard input, as trace-cmd's version 6 and with
# trace-cmd's own zstd sections all read the same; pages that say events
# were missed are loss windows; a cut file, an empty one, one without
# events and one of no block events are one line each and exit 1 (a
# build without libtracecmd: t_tracedat_notc.sh). As root with trace-cmd, the same
# again on a recording made here, with the ftrace recorder, and on a file
# trace-cmd extract -B writes (the events in an instance's buffer).
. "$(dirname "$0")/lib.sh"
S="$TOP/samples/tracedat-fio"
cd "$TMP" || exit 1
xz -dc "$S.dat.xz" > s.dat || { fail "the sample decompresses"; finish; exit 1; }

same() {
	python3 "$TOP/tests/same_io.py" "$1" "$2" "${3:-7,0}"
}
# summary FILE [OPTION...]: FILE.json, of 7,0 alone (the trace.dat holds
# the machine's disk's I/O too)
summary() {
	f=$1; shift
	"$IOW" -t "$f" --summary=json --device 7,0 "$@" > "$f.json" 2> "$f.err"
}
# as NAME FILE: FILE's summary is the recording's
as() {
	summary "$2"
	if out=$(same rec.json "$2.json" 2>&1); then
		pass "$1: the BPF recording's I/O, count for count"
	else
		fail "$1" "$out $(cat "$2.err")"
	fi
}

"$IOW" -t "$S" --summary=json > rec.json 2> rec.err
as "trace.dat (version 7, as trace-cmd restore writes it)" s.dat
"$IOW" -t s.dat --summary=json > all.json 2> all.err
check "every device in the file: 7,0 and the machine's disk 254,0" python3 -c "
import json; d=[x['device'] for x in json.load(open('all.json'))['traces'][0]['devices']]
assert '7,0' in d and '254,0' in d, d"
check "the trace's file is named as given" python3 -c "
import json; t=json.load(open('s.dat.json'))['traces'][0]; assert t['source'].endswith('s.dat'), t['source']"

# compressed by xz or gzip, and on standard input: copied to a
# temporary file for libtracecmd
cp "$S.dat.xz" s-xz.dat.xz
as "xz-compressed" s-xz.dat.xz
gzip -c s.dat > s-gz.dat.gz
as "gzip-compressed" s-gz.dat.gz
"$IOW" -t - --summary=json --device 7,0 < s.dat > stdin.json 2> stdin.err
check "on standard input: the same I/O" same rec.json stdin.json
TMPDIR=/nonexistent "$IOW" -t - --summary < s.dat > out 2> err
if [ $? = 1 ] && [ "$(wc -l < err)" = 1 ] && grep -q "cannot copy the trace.dat to a temporary file in /nonexistent" err; then
	pass "no room for the copy: one line, exit 1 ($(cut -c1-100 err))"
else
	fail "no room for the copy" "$(head -n 2 err)"
fi

V6=
if command -v trace-cmd > /dev/null; then
	tc convert --file-version 6 -i s.dat -o v6.dat > convert.out 2>&1
	as "trace-cmd's version 6 (trace-cmd convert --file-version 6)" v6.dat
	tc convert --compression zstd -i s.dat -o zstd.dat > /dev/null 2>&1
	as "sections compressed by trace-cmd (convert --compression zstd)" zstd.dat
	V6=$(sed -n 's/^CPU0 data recorded at offset=//p' convert.out)
else
	skip "trace-cmd's other versions: trace-cmd is not installed"
fi

# lost: a page of CPU 0 that says events were missed before it, by an
# unknown count, or by 42 (the count the kernel stores after the data)
if [ -n "$V6" ]; then
	python3 - "$V6" <<'EOF2'
import struct, sys
cpu0 = int(sys.argv[1], 16)
b = bytearray(open("v6.dat", "rb").read())
at = cpu0 + 3 * 4096 + 8		# the fourth page's commit word
commit, = struct.unpack_from("<Q", b, at)
struct.pack_into("<Q", b, at, commit | 1 << 31)
open("missed.dat", "wb").write(b)
length = commit & 0xfffff
struct.pack_into("<Q", b, at, commit | 3 << 30)
struct.pack_into("<Q", b, at + 8 + length, 42)
open("missed42.dat", "wb").write(b)
EOF2
	summary missed.dat
	check "missed events, count unknown: a loss window on CPU 0" python3 -c "
import json; t=json.load(open('missed.dat.json'))['traces'][0]
w=t['loss_windows']; assert len(w) == 1 and not w[0]['count_known'] and w[0]['cpus'] == [0], w"
	summary missed42.dat
	check "42 missed events: a loss window of 42" python3 -c "
import json; t=json.load(open('missed42.dat.json'))['traces'][0]
assert t['lost_events'] == 42 and len(t['loss_windows']) == 1, (t['lost_events'], t['loss_windows'])"
else
	skip "missed events: trace-cmd is not installed"
fi

# malformed: one line, exit 1
bad() {
	name=$1 want=$2 file=$3
	"$IOW" -t "$file" --summary > out 2> err
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	   grep -q -- "$want" err; then
		pass "$name: one line, exit 1 ($(cut -c1-110 err))"
	else
		fail "$name" "exit $rc: $(head -n 2 err) $(head -c 200 out)"
	fi
}
size=$(wc -c < s.dat)
head -c $((size / 2)) s.dat > cut.dat
bad "version 7 cut in half" "cut.dat: cut short: trace-cmd's headers place a section at byte [0-9]*, past the file's end ($((size / 2)) bytes)" cut.dat
head -c 300 s.dat > head.dat
bad "version 7 cut in its headers" "head.dat: cut short: trace-cmd's headers place a section at byte [0-9]*, past the file's end (300 bytes)" head.dat
if [ -n "$V6" ]; then
	size=$(wc -c < v6.dat)
	head -c $((size - 4096)) v6.dat > cut6.dat
	bad "version 6 cut a page short" "cut6.dat: cut short: the data of CPU 1 ends at byte $size, past the file's end ($((size - 4096)) bytes)" cut6.dat
	head -c 2000 v6.dat > head6.dat
	bad "version 6 cut in its headers" "head6.dat: cut short at byte [0-9]*, in trace-cmd's headers (2000 bytes)" head6.dat
	xz -c cut6.dat > cut6.dat.xz
	bad "version 6 cut, xz-compressed" "cut6.dat.xz: cut short: the data of CPU 1" cut6.dat.xz
	# the file's headers and no events (split at a time before them)
	tc split -i s.dat -o none 1 2 > /dev/null 2>&1
	mv none.1 none.dat
	bad "a trace.dat with no events" "none.dat: trace-cmd's trace.dat holds no events" none.dat
fi
: > empty.dat
bad "an empty file" "empty" empty.dat

# as root with trace-cmd: both at once, here, the ftrace recorder beside
L=
if [ "$(id -u)" != 0 ]; then skip "recording a trace.dat beside iowatcher: needs root"
elif ! command -v trace-cmd > /dev/null || ! command -v fio > /dev/null ||
     ! command -v losetup > /dev/null; then
	skip "recording a trace.dat beside iowatcher: trace-cmd, fio or losetup missing"
elif ! truncate -s 64M /dev/shm/iow-tracedat.$$ ||
     ! L=$(losetup -f --show /dev/shm/iow-tracedat.$$); then
	L=; skip "recording a trace.dat beside iowatcher: no loop device"
else
	T=$(tracefs_dir)
	tracing_lock
	sleep 0.5	# a device just attached is probed (blkid): let it pass
	# the ftrace recorder (the blk tracer, on the top buffer) beside the
	# capture's own instance; the BPF recorder where another program
	# holds the blk tracer
	for tracer in ftrace bpf; do
		"$IOW" -d "$L" --tracer $tracer --no-causes -D "$TMP" -t both-$tracer \
			--summary=json -p "sh $TOP/tests/tools/tracedat-capture.sh $TMP/both.dat fio --name=j --filename=$L --rw=randrw --bs=4k --size=4M --direct=1 --ioengine=libaio --iodepth=8 --output=/dev/null" \
			> both.json 2> both.err && break
		grep -q busy both.err || break
		echo "   (the blk tracer is busy: $(head -c 120 both.err))"
	done
	dev=$(python3 -c "import json; print(json.load(open('both.json'))['traces'][0]['devices'][0]['device'])" 2>/dev/null)
	"$IOW" -t both.dat --summary=json --device "${dev:-7,0}" > both.dat.json 2> both.dat.err
	if out=$(same both.json both.dat.json "$dev" 2>&1); then
		pass "recorded here: trace.dat and the $tracer recording, count for count ($dev)"
	else
		fail "recorded here: trace.dat vs the $tracer recording" "$(echo "$out" | tail -n 1) $(tail -n 1 both.err) $(cat both.dat.err)"
	fi
	# trace-cmd extract -B: the events in an instance's buffer
	HOW=extract sh "$TOP/tests/tools/tracedat-capture.sh" "$TMP/extract.dat" \
		"$IOW" -d "$L" --tracer bpf --no-causes -D "$TMP" -t extract \
		--summary=json -p "fio --name=j --filename=$L --rw=randrw --bs=4k --size=2M --direct=1 --ioengine=libaio --iodepth=8 --output=/dev/null" \
		> extract.json 2> extract.err
	"$IOW" -t extract.dat --summary=json --device "${dev:-7,0}" > extract.dat.json 2> extract.dat.err
	if out=$(same extract.json extract.dat.json "$dev" 2>&1) &&
	   trace-cmd dump --summary -i extract.dat 2>&1 | grep -q 'buffer "iowatcher-tracedat'; then
		pass "trace-cmd extract -B: the events in an instance's buffer, read as the bpf recording's"
	else
		fail "trace-cmd extract -B" "$(echo "$out" | tail -n 1) $(tail -n 2 extract.err) $(cat extract.dat.err)"
	fi
	EVENTS=sched/sched_process_exec sh "$TOP/tests/tools/tracedat-capture.sh" \
		"$TMP/sched.dat" sh -c true 2> capture.err
	bad "a trace.dat of other events (sched_process_exec), no block events" \
		"sched.dat: trace-cmd's trace.dat holds no block events (record them with trace-cmd record -e block)" sched.dat
	check "the capture leaves no tracefs instance" sh -c "! ls -d $T/instances/iowatcher-tracedat.* 2> /dev/null"
	losetup -d "$L"
	rm -f /dev/shm/iow-tracedat.$$
fi
finish
