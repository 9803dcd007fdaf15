#!/bin/sh
# t_record_cli.sh: iowatcher -d DEV -p WORKLOAD end to end on a loop
# device: the summary's bytes equal what the workload moved, the picture
# shows it, the kernel's tracing state is put back, an interrupt mid-run
# leaves a readable trace and no workload running, and the failures
# (not root, no such device, a failing workload, options typed after
# -p) are one line and exit 1, a failing workload's trace kept.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then skip "recording: needs root"; finish; exit; fi
if ! command -v losetup >/dev/null; then skip "recording: no losetup"; finish; exit; fi
T=$(tracefs_dir)
if [ -z "$T" ] || [ ! -w "$T/current_tracer" ] ||
   ! grep -qw blk "$T/available_tracers"; then
	skip "recording: no tracefs with the blk tracer"; finish; exit
fi
tracing_lock
truncate -s 64M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || {
	skip "recording: no loop device"; finish; exit; }
trap 'losetup -d "$LOOP" 2>/dev/null; lib_cleanup' EXIT
DEVNAME=$(basename "$LOOP")

state() { echo "$(cat $T/current_tracer) $(grep -o '^no\?bin$' $T/trace_options) $(cat /sys/block/$DEVNAME/trace/enable) $(cat $T/tracing_on)"; }
before=$(state)
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
bytes() { json "$1" "sum(x['$2']['bytes'] for t in d['traces'] for x in t['devices'])"; }

"$IOW" -d "$LOOP" -D "$TMP" -t ddw -o "$TMP/ddw.png" --summary=json \
	-p "dd if=/dev/zero of=$LOOP bs=512k count=8 oflag=direct status=none" \
	> "$TMP/ddw.json" 2> "$TMP/err"
check "dd write: 4 MiB written in the summary" [ "$(bytes "$TMP/ddw.json" write)" = 4194304 ]
check "dd write: recorder named" [ -n "$(json "$TMP/ddw.json" "d['traces'][0].get('recorder', '')")" ]
check "dd write: per-CPU files written" [ -f "$TMP/ddw.blktrace.0" ]
check "dd write: CPU use recorded beside" [ -s "$TMP/ddw.mpstat" ]
check "dd write: the picture shows writes" [ "$("$TOP/tests/tools/pngprobe" "$TMP/ddw.png" 0 0 3000 3000 D55E00)" -gt 0 ]
check "tracing state restored after a run ($(state))" [ "$(state)" = "$before" ]

"$IOW" -d "$LOOP" -D "$TMP" -t ddr --summary=json \
	-p dd if="$LOOP" of=/dev/null bs=256k count=8 iflag=direct status=none \
	> "$TMP/ddr.json" 2> "$TMP/err"
check "dd read (argv form): 2 MiB read" [ "$(bytes "$TMP/ddr.json" read)" = 2097152 ]

if command -v fio >/dev/null; then
	"$IOW" -d "$LOOP" -D "$TMP" -t fio --summary=json \
		-p "fio --name=rw --filename=$LOOP --rw=randrw --bs=4k --direct=1 --size=8M --io_size=2M --ioengine=psync --output=$TMP/fio.out" \
		> "$TMP/fio.json" 2> "$TMP/err"
	total=$(($(bytes "$TMP/fio.json" read) + $(bytes "$TMP/fio.json" write)))
	check "fio randrw: read + written = 2 MiB ($total)" [ "$total" = 2097152 ]
else
	skip "fio workload: fio not installed"
fi

# A failing workload: exit 1, one line saying where the trace is kept;
# nothing drawn; the kept trace reads.
"$IOW" -d "$LOOP" -D "$TMP" -t fail --summary -o "$TMP/fail.png" \
	-p "dd if=$LOOP of=/dev/null bs=4k count=16 iflag=direct status=none; exit 3" \
	> "$TMP/out" 2> "$TMP/err"; rc=$?
n=$(sed -n 's/.*the \([0-9]*\) events recorded.*/\1/p' "$TMP/err")
check "a failing workload: exit 1 ($rc)" [ $rc = 1 ]
check "a failing workload: one line ($(cat "$TMP/err"))" [ "$(cat "$TMP/err")" = \
	"iowatcher: the workload exited with status 3, so nothing is drawn; the $n events recorded are kept in $TMP/fail.blktrace.* (iowatcher -t $TMP/fail draws them)" ]
check "a failing workload: nothing drawn or summarised" [ ! -e "$TMP/fail.png" -a ! -s "$TMP/out" ]
check "a failing workload: its trace is kept and reads" \
	sh -c "'$IOW' -t '$TMP/fail' --summary=json > '$TMP/fail.json'"
check "a failing workload: what it read is in the kept trace" [ "$(bytes "$TMP/fail.json" read)" = 65536 ]

# Options typed after -p in argv form went to the workload (dd refuses
# "-o"): the error says so.
"$IOW" -d "$LOOP" -D "$TMP" -t late \
	-p dd if="$LOOP" of=/dev/null bs=4k count=4 iflag=direct status=none -o "$TMP/late.png" --summary \
	> /dev/null 2> "$TMP/err"; rc=$?
line=$(grep '^iowatcher: ' "$TMP/err")
check "options after -p (argv form): exit 1 ($rc), no picture" [ $rc = 1 -a ! -e "$TMP/late.png" ]
check "options after -p (argv form): one line saying so ($line)" [ "$line" = \
	"iowatcher: the workload exited with status 1 (-p takes the rest of the command line: if -o was meant for iowatcher, put it before -p), so nothing is drawn; no I/O was recorded (the trace files are $TMP/late.blktrace.*)" ]
check "options after -p (argv form): one line of iowatcher's" [ "$(grep -c '^iowatcher: ' "$TMP/err")" = 1 ]

# A quoted workload followed by options: refused before anything runs.
"$IOW" -d "$LOOP" -D "$TMP/q" -t quoted \
	-p "dd if=$LOOP of=/dev/null bs=4k count=4 iflag=direct status=none" -o "$TMP/q.png" --summary \
	> /dev/null 2> "$TMP/err"; rc=$?
check "-p \"CMD\" -o ...: usage error ($rc)" [ $rc = 2 ] && \
	grep -qx "iowatcher: -p takes the rest of the command line, so '-o' cannot follow the quoted workload: put iowatcher's options before -p" "$TMP/err"
check "-p \"CMD\" -o ...: nothing recorded" [ ! -e "$TMP/q" -a ! -e "$TMP/q.png" ]
check "tracing state restored after failures" [ "$(state)" = "$before" ]

# Interrupt mid-run: the workload's group is stopped, the trace is kept.
"$IOW" -d "$LOOP" -D "$TMP" -t intr --summary=json \
	-p "while :; do dd if=$LOOP of=/dev/null bs=4k count=400 iflag=direct status=none; done" \
	> "$TMP/intr.json" 2> "$TMP/err" &
pid=$!
# until the workload's first dd has ended and a second one runs (1.6 MB
# read and recorded), 30 s at most (it was a sleep of 3 s)
ddpat="^dd if=$LOOP of=/dev/null bs=4k count=400 "
first= i=0
while [ $i -lt 300 ]; do
	now=$(pgrep -f "$ddpat" | head -n 1)
	[ -z "$first" ] && first=$now
	[ -n "$now" ] && [ "$now" != "$first" ] && break
	sleep 0.1
	i=$((i + 1))
done
running=0; kill -0 $pid 2>/dev/null && running=1
kill -INT $pid
wait $pid; rc=$?
sleep 0.5
check "interrupted run ends cleanly (exit $rc)" [ $rc = 0 ]
check "interrupted run: still running when interrupted" [ $running = 1 ]
check "interrupted run: what was recorded is summarised" [ "$(bytes "$TMP/intr.json" read)" -gt 0 ]
check "interrupted run: the trace reads again" sh -c "'$IOW' -t '$TMP/intr' --summary=json -o '$TMP/intr.svg' > /dev/null"
check "interrupted run: no workload left running" [ -z "$(pgrep -f "count=400 iflag")" ]
check "tracing state restored after an interrupt" [ "$(state)" = "$before" ]

"$IOW" -d /dev/no-such-disk -p true > /dev/null 2> "$TMP/err"; rc=$?
check "no such device: exit 1, one line" [ $rc = 1 -a "$(wc -l < "$TMP/err")" = 1 ]
"$IOW" -d no-such-disk -p true > /dev/null 2> "$TMP/err"; rc=$?
check "no such name: exit 1, one line saying where it looked" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] && grep -q 'neither a path nor a name in /dev or /sys/block' '$TMP/err'"
# recording -t a, then -t b, in one directory with no -o: two pictures
mkdir "$TMP/pics"
for name in a b; do
	(cd "$TMP/pics" && "$IOW" -d "$LOOP" -t $name \
		-p dd if="$LOOP" of=/dev/null bs=64k count=4 iflag=direct status=none \
		2> "$TMP/pic.err")
done
check "recording -t a then -t b, no -o: a.svg and b.svg, no trace.svg ($(ls "$TMP/pics" | grep svg | tr '\n' ' '))" \
	sh -c "[ -s '$TMP/pics/a.svg' ] && [ -s '$TMP/pics/b.svg' ] && [ ! -e '$TMP/pics/trace.svg' ]"

# what -d cannot record is refused before recording, saying why
"$IOW" -d /dev/null -D "$TMP" -t null -p true > /dev/null 2> "$TMP/err"; rc=$?
check "-d /dev/null: a character device, not 'no such device' ($(cat "$TMP/err"))" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] &&
	       grep -q '^iowatcher: /dev/null: a character device, not a block device' '$TMP/err' &&
	       [ ! -e '$TMP/null.blktrace.0' ]"
FREE=$(losetup -f 2>/dev/null)
if [ -n "$FREE" ] && [ "$(cat /sys/block/$(basename "$FREE")/size 2>/dev/null)" = 0 ]; then
	"$IOW" -d "$FREE" -D "$TMP" -t unbound -p true > /dev/null 2> "$TMP/err"; rc=$?
	check "-d an unbound loop device: refused, no backing file, how to attach one ($(cat "$TMP/err"))" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] &&
		       grep -q '$FREE: a loop device with no backing file.*losetup $FREE FILE' '$TMP/err' &&
		       [ ! -e '$TMP/unbound.blktrace.0' ]"
else
	skip "an unbound loop device: none free"
fi
: > "$TMP/empty.img"
EMPTY=$(losetup -f --show "$TMP/empty.img" 2>/dev/null)
if [ -n "$EMPTY" ]; then
	"$IOW" -d "$EMPTY" -D "$TMP" -t empty -p true > /dev/null 2> "$TMP/err"; rc=$?
	losetup -d "$EMPTY"
	check "-d a loop device of an empty file: refused, the file named ($(cat "$TMP/err"))" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] &&
		       grep -q '$EMPTY: a loop device of 0 bytes (its backing file $TMP/empty.img is empty)' '$TMP/err' &&
		       [ ! -e '$TMP/empty.blktrace.0' ]"
else
	skip "a loop device of an empty file: losetup refused it"
fi
# a bare name, as lsblk shows it: the device it names is recorded
"$IOW" -d "$DEVNAME" -D "$TMP" -t bare --summary=json \
	-p dd if=/dev/zero of="$LOOP" bs=4k count=16 oflag=direct status=none \
	> "$TMP/bare.json" 2> "$TMP/err"; rc=$?
check "-d $DEVNAME (a bare name) records $LOOP (exit $rc)" \
	[ $rc = 0 -a "$(bytes "$TMP/bare.json" write)" = 65536 ]
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IOW" -d "$LOOP" -D /tmp -t np -p true > /dev/null 2> "$TMP/err"; rc=$?
	check "not root: exit 1, one line ($(cat "$TMP/err"))" [ $rc = 1 -a "$(wc -l < "$TMP/err")" = 1 ]
else
	skip "not root: setpriv not installed"
fi
"$IOW" -p true -t x > /dev/null 2> "$TMP/err"; rc=$?
check "-p without -d is a usage error" [ $rc = 2 ]
finish
