#!/bin/sh
# t_live.sh: --live, the live view, on a fresh loop device: the text and
# JSON lines without a terminal (bytes add up to what dd wrote, every
# interval equals --summary=json -x of the recorded trace, with the
# ftrace recorder too, and under fio at queue depth 2 and two random
# read/write jobs with both recorders, no record late; a file's name past
# ASCII in UTF-8), the full
# screen under tmux (figures on screen, keys, q draws the pictures, the
# terminal and the kernel's tracing state put back on every way out), a
# dump on stdin, and the usage errors. Needs root, tracefs with the 'blk'
# tracer, losetup and python3; the screen tests need tmux, the fio ones
# fio, the name one mkfs.ext4.
. "$(dirname "$0")/lib.sh"
CMP="$TOP/tests/live_vs_summary.py"

expect_usage() {
	name=$1 want=$2
	shift 2
	"$IOW" "$@" > "$TMP/usage.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$want" "$TMP/usage.out"; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(head -n 1 "$TMP/usage.out")"
	fi
}
expect_usage "--interval without --live is a usage error" \
	"--interval goes with --live" -t x --interval 2
expect_usage "--live on a trace file is a usage error" \
	"--live watches a recording (-d DEVICE) or a trace read from stdin" \
	-t x --live
expect_usage "--live=json with a text summary: one format to a stream" \
	"--summary=json ends them" -t - --live=json --summary
expect_usage "--live=FORMAT names text or json" \
	"--live=csv: the format is screen, text or json" -t - --live=csv
expect_usage "--interval has bounds" "from 0.01 to 3600 seconds" \
	-t - --live --interval 0.001

T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! grep -qw blk "$T/available_tracers"; then why="no blk tracer"
elif ! command -v losetup >/dev/null; then why="losetup missing"
elif ! command -v python3 >/dev/null; then why="python3 missing"
fi
if [ -n "$why" ]; then
	skip "live view tests: $why"
	finish
	exit $?
fi

tracing_lock
truncate -s 128M "$TMP/disk.img"
DEV=$(losetup -f --show "$TMP/disk.img") || { fail "losetup"; finish; exit 1; }
ENABLE=/sys/class/block/$(basename "$DEV")/trace/enable
cleanup() {
	[ -n "$SESSION" ] && command tmux -L "iowatcher-test-$$" kill-server 2>/dev/null
	echo 0 > "$ENABLE" 2>/dev/null
	mountpoint -q "$TMP/mnt" 2>/dev/null && umount "$TMP/mnt"
	[ -n "$FS" ] && losetup -d "$FS" 2>/dev/null
	losetup -d "$DEV"
	lib_cleanup
}
trap cleanup EXIT

BEFORE=$(tracing_state)

DD64="dd if=/dev/zero of=$DEV bs=64k count=1024 oflag=direct"

# 1. text lines when stdout is not a terminal; the workload's output in
# NAME.out, not on stdout
mkdir "$TMP/txt"
"$IOW" -d "$DEV" -D "$TMP/txt" -t txt --live --interval 0.5 -o "$TMP/txt.png" \
	-p sh -c "sleep 0.3; $DD64; sleep 0.8" > "$TMP/txt.out" 2> "$TMP/txt.err"
check "--live without a terminal: text, exit 0" \
	sh -c "grep -q '^# start_s    end_s device ' '$TMP/txt.out' &&
	       grep -q ' $DEV ' '$TMP/txt.out'"
written=$(awk -v dev="$DEV" '$3 == dev { s += $6 * ($2 - $1) } END { printf "%.1f", s }' \
	"$TMP/txt.out")
# within 0.3 MB: each line's times are rounded to the millisecond and its
# MB/s to 0.01, and a millisecond of a 300 MB/s interval is 0.3 MB
check "text: MB/s over the intervals add up to dd's 67.1 MB (got $written)" \
	awk -v w="$written" 'BEGIN { d = w - 67.1; exit !(d < 0.3 && d > -0.3) }'
check "text: the workload's output is in NAME.out, and said so" \
	sh -c "grep -q '1024+0 records out' '$TMP/txt/txt.out' &&
	       ! grep -q 'records out' '$TMP/txt.out' &&
	       grep -q \"workload's output goes to $TMP/txt/txt.out\" '$TMP/txt.err'"
check "text: the pictures are drawn afterwards" [ -s "$TMP/txt.png" ]
check "tracing state restored after --live=text" state_restored

# 2. JSON: every interval equals --summary=json -x of the recording
mkdir "$TMP/js"
"$IOW" -d "$DEV" -D "$TMP/js" -t js --live=json --interval 0.5 --summary=json \
	-p sh -c "for i in 1 2 3 4; do $DD64 count=128 status=none;
		  dd if=$DEV of=/dev/null bs=4k count=600 iflag=direct status=none;
		  sleep 0.45; done" > "$TMP/js.out" 2> "$TMP/js.err"
n=$(grep -c '^{"start_s"' "$TMP/js.out")
check "--live=json: one object per interval ($n)" [ "$n" -ge 3 ]
if python3 "$CMP" "$IOW" "$TMP/js/js" "$TMP/js.out" > "$TMP/cmp.out"; then
	pass "json: each interval equals --summary=json -x ($(tail -n 1 "$TMP/cmp.out"))"
else
	fail "json: each interval equals --summary=json -x" "$(head -n 5 "$TMP/cmp.out")"
fi
# jsonl FILE: every line is one JSON object, the last one the summary
jsonl() {
	python3 -c "
import json, sys
lines = open(sys.argv[1]).read().split('\\n')
assert lines[-1] == '', 'no newline at the end'
objs = [json.loads(l) for l in lines[:-1]]
if len(objs) > 2 and 'unseen_completions' in objs[-2]:
    del objs[-2]    # said after the last interval, when there are any
assert all('start_s' in o for o in objs[:-1]) and 'traces' in objs[-1]
" "$1"
}
check "json: the stream stays JSON lines, the summary the last one" \
	jsonl "$TMP/js.out"
check "tracing state restored after --live=json" state_restored

# 2b. the same with the ftrace recorder, whose CPUs' pages are read in
# turn: a writer and a reader at once on two CPUs, no record late
mkdir "$TMP/fjs"
LAST_CPU=$(($(nproc) - 1))
"$IOW" -d "$DEV" -D "$TMP/fjs" -t fjs --tracer ftrace --live=json \
	--interval 0.5 --summary=json \
	-p sh -c "for i in 1 2 3 4; do taskset -c 0 $DD64 count=128 status=none &
		  taskset -c $LAST_CPU dd if=$DEV of=/dev/null bs=4k count=600 \
		  iflag=direct status=none; wait; sleep 0.45; done" \
	> "$TMP/fjs.out" 2> "$TMP/fjs.err"
check "ftrace: --live=json records with ftrace" \
	grep -q "^iowatcher: recorded .* with ftrace" "$TMP/fjs.err"
if python3 "$CMP" "$IOW" "$TMP/fjs/fjs" "$TMP/fjs.out" > "$TMP/cmp.out"; then
	pass "ftrace: each interval equals --summary=json -x ($(tail -n 1 "$TMP/cmp.out"))"
else
	fail "ftrace: each interval equals --summary=json -x" \
		"$(head -n 5 "$TMP/cmp.out")"
fi
check "ftrace: no record came late" \
	sh -c "! grep -q '\"late_records\": [1-9]' '$TMP/fjs.out'"
check "tracing state restored after --live=json with ftrace" state_restored

# 2c. fio, rate-limited at queue depth 2, and two jobs of random reads
# and writes, with each recorder: the CPUs' records come in batches (bpf:
# each ring read in turn; ftrace: a page of each CPU in turn), and every
# interval, depth and latency included, equals -x of the recording.
# Records merged before another CPU's older ones came (late) used to put
# requests in flight for ever: depth 1.04-57 where -x says 0.03-0.1.
# Completions the bpf recorder did not see (the kernel made them without
# running its program: 1 to 48 in a run here, noted at its end) were
# counted in flight by the intervals and are left out by the summary:
# the view's last line says how long, and the comparison holds it to it.
# Every block is read or written once (fio's random map; the two jobs on
# halves of the device), so a completion pairs with one request only.
# fio_live NAME TRACER FIO-ARGS...
fio_live() {
	name=$1 tracer=$2
	shift 2
	mkdir "$TMP/$name"
	IOWATCHER_BPF_UNSEEN="${UNSEEN:-}" "$IOW" -d "$DEV" -D "$TMP/$name" \
		-t "$name" --tracer "$tracer" \
		--live=json --interval 1 -o "$TMP/$name.png" \
		-p fio --name="$name" --filename="$DEV" --direct=1 \
		--ioengine=libaio --time_based "$@" \
		> "$TMP/$name.out" 2> "$TMP/$name.err"
	if python3 "$CMP" "$IOW" "$TMP/$name/$name" "$TMP/$name.out" \
		> "$TMP/cmp.out"; then
		pass "$name: each interval equals --summary=json -x ($(tail -n 1 "$TMP/cmp.out"))"
	else
		fail "$name: each interval equals --summary=json -x" \
			"$(head -n 5 "$TMP/cmp.out")"
	fi
	check "$name: no record came late" \
		sh -c "! grep -q '\"late_records\": [1-9]' '$TMP/$name.out'"
}
if command -v fio >/dev/null; then
	tracers="bpf ftrace" randrw=1
	repeat_pass "the ftrace recorder and the two-job workload under fio" &&
		tracers=bpf randrw=
	for tracer in $tracers; do
		fio_live "qd2-$tracer" $tracer --rw=randread --bs=4k \
			--iodepth=2 --rate_iops=3000 --runtime=3
		[ -n "$randrw" ] || continue
		fio_live "randrw-$tracer" $tracer --rw=randrw --bs=4k \
			--iodepth=4 --numjobs=2 --size=64M \
			--offset_increment=64M --rate_iops=1500 --runtime=2
	done
	# every 1000th completion made unseen (IOWATCHER_BPF_UNSEEN): the
	# view says so, and by as much as it counted them in flight
	UNSEEN=1000 fio_live unseen-bpf bpf --rw=randread --bs=4k \
		--iodepth=2 --rate_iops=3000 --runtime=2
	UNSEEN=
	check "unseen-bpf: the view's last line names the unseen completions" \
		grep -q '^{"unseen_completions": \[{"device": "[0-9]*,[0-9]*", "requests": [1-9]' \
		"$TMP/unseen-bpf.out"
	check "tracing state restored after the fio recordings" state_restored
else
	skip "live view under fio: fio missing"
fi

# 3. blktrace's files read as they grow: a stand-in blktrace that writes
# the files of test 2 and stops on SIGINT. Its records are seconds old
# but the clocks agree, so a file coming 2 s late would be late: they all
# appear at once, .0 (which the recorder waits for) last.
mkdir "$TMP/bin" "$TMP/bt"
cat > "$TMP/bin/blktrace" <<'EOF2'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -o) name=$2; shift;; -D) dir=$2; shift;; esac
	shift
done
for f in "$FAKE_FROM".blktrace.*; do
	cp "$f" "$dir/tmp.${f##*.blktrace.}"
done
for f in $(ls "$dir" | grep '^tmp\.' | sort -r); do
	mv "$dir/$f" "$dir/$name.blktrace.${f#tmp.}"
done
trap 'exit 0' INT
while :; do sleep 0.05; done
EOF2
chmod +x "$TMP/bin/blktrace"
PATH="$TMP/bin:$PATH" FAKE_FROM="$TMP/js/js" "$IOW" -d "$DEV" -D "$TMP/bt" \
	-t bt --tracer blktrace --live=json --interval 0.5 --summary=json \
	-p sleep 0.5 > "$TMP/bt.out" 2> "$TMP/bt.err"
if python3 "$CMP" "$IOW" "$TMP/js/js" "$TMP/bt.out" > "$TMP/cmp.out"; then
	pass "with blktrace, its files read as they grow ($(tail -n 1 "$TMP/cmp.out"))"
else
	fail "with blktrace, its files read as they grow" \
		"$(head -n 5 "$TMP/cmp.out"; head -n 3 "$TMP/bt.err")"
fi

# 4. a dump on stdin, watched as it is read
if command -v blkparse >/dev/null; then
	blkparse -i js -D "$TMP/js" -d "$TMP/js.dump" -o /dev/null \
		> /dev/null 2>&1
	"$IOW" -t - --live=json --interval 0.5 --summary=json < "$TMP/js.dump" \
		> "$TMP/stdin.out" 2> "$TMP/stdin.err"
	if python3 "$CMP" "$IOW" "$TMP/js.dump" "$TMP/stdin.out" > "$TMP/cmp.out"
	then
		pass "-t - --live=json: intervals equal --summary -x of the dump"
		check "-t - --live=json --summary=json: JSON lines to the end" \
			jsonl "$TMP/stdin.out"
	else
		fail "-t - --live=json: intervals equal --summary -x of the dump" \
			"$(head -n 5 "$TMP/cmp.out")"
	fi
else
	skip "-t - --live: blkparse missing"
fi

# 4b. a file's name with a character past ASCII (café.dat on ext4),
# --by file: the JSON carries it as UTF-8, not each byte as a character
# of its own ("caf\u00c3\u00a9.dat")
truncate -s 64M "$TMP/ext4.img"
if ! command -v mkfs.ext4 >/dev/null; then
	skip "--live=json names: mkfs.ext4 missing"
elif FS=$(losetup -f --show "$TMP/ext4.img"); then
	mkdir "$TMP/mnt" "$TMP/cafe"
	if mkfs.ext4 -q -F "$FS" && mount "$FS" "$TMP/mnt"; then
		CAFE=$(printf '%s/caf\303\251.dat' "$TMP/mnt")
		"$IOW" -d "$FS" -D "$TMP/cafe" -t cafe --live=json --by file \
			--interval 0.5 -o "$TMP/cafe.png" -p sh -c \
			"dd if=/dev/zero of='$CAFE' bs=64k count=64 oflag=direct status=none; sleep 0.3" \
			> "$TMP/cafe.out" 2> "$TMP/cafe.err"
		check "--live=json --by file: café.dat by its name, in UTF-8" \
			python3 -c "
import json, sys
raw = open(sys.argv[1], 'rb').read()
assert b'caf\\u00c3' not in raw, 'bytes escaped one by one'
rows = [r for l in raw.decode('utf-8').splitlines()
        for r in json.loads(l)['top']]
assert any(r['name'] == sys.argv[2] and r['bytes'] for r in rows), \
    [r['name'] for r in rows]
" "$TMP/cafe.out" "$CAFE"
		umount "$TMP/mnt"
	else
		fail "ext4 on $FS"
	fi
	losetup -d "$FS"
	FS=
else
	fail "a second loop device for ext4"
fi

# 5. the screen, under tmux (a server of this run's own: two test runs at
# once on the default server took each other's down)
tmux() { command tmux -L "iowatcher-test-$$" "$@"; }
if ! command -v tmux >/dev/null; then
	skip "screen tests: tmux missing"
	finish
	exit $?
fi
SESSION="iow-live-$$"
# screen NAME COLSxROWS COMMAND...: iowatcher --live in a new tmux
# session; the shell then notes its exit status, the terminal's modes
# and whether the alternate screen is still on (its own Ctrl-C a trap
# that does nothing: bash ends when a child it waited for died of
# SIGINT, and a program a second Ctrl-C interrupts may rightly do so)
screen() {
	name=$1 size=$2
	shift 2
	rm -f "$TMP/$name.done"
	tmux kill-session -t "$SESSION" 2>/dev/null
	tmux new-session -d -s "$SESSION" -x "${size%x*}" -y "${size#*x}" \
		"trap : INT; cd '$TMP'; LANG=C.UTF-8 $*; echo \$? > '$name.rc';
		 stty -a > '$name.stty'; touch '$name.done'; sleep 60"
}
wait_done() {
	i=0
	while [ ! -e "$TMP/$1.done" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$TMP/$1.done" ]
}
terminal_restored() {
	grep -q ' icanon' "$TMP/$1.stty" && grep -q ' echo ' "$TMP/$1.stty" &&
		[ "$(tmux display -p -t "$SESSION" '#{alternate_on}')" = 0 ]
}
# the iowatcher the session's shell runs
iowatcher_pid() {
	ps -o pid= --ppid "$(tmux display -p -t "$SESSION" '#{pane_pid}')" |
		head -n 1
}
# wait_for NAME TEXT: up to 10 s for TEXT to be on the screen
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		tmux capture-pane -p -t "$SESSION" > "$TMP/$1.screen"
		grep -q -- "$2" "$TMP/$1.screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

mkdir "$TMP/scr"
screen q 110x32 "'$IOW' -d $DEV -D scr -t q -o q.png --live \
	-p sh -c '$DD64; sleep 30'"
if wait_for q "written 64.0 MiB"; then
	pass "screen: the device's totals add up to dd's 64 MiB"
else
	fail "screen: the device's totals add up to dd's 64 MiB" \
		"$(head -n 12 "$TMP/q.screen")"
fi
check "screen: what is recorded where" \
	grep -qE "iowatcher --live: recording $DEV with (bpf|ftrace) to scr/q.blktrace" \
	"$TMP/q.screen"
check "screen: the workload's output file is named" \
	grep -q "workload output: scr/q.out" "$TMP/q.screen"
check "screen: dd is a process row" \
	sh -c "grep -qE '^ [0-9]+ +dd +$(basename "$DEV") ' '$TMP/q.screen'"
check "screen: the workload's output is not on it" \
	sh -c "! grep -q 'records out' '$TMP/q.screen'"
tmux send-keys -t "$SESSION" '?'
check "screen: ? lists the keys" wait_for q "p  pause the display"
tmux send-keys -t "$SESSION" p
check "screen: p pauses" wait_for q "\[PAUSED\]"
tmux send-keys -t "$SESSION" q
check "screen: q ends the recording" wait_done q
check "screen: after q, exit 0 and the pictures drawn" \
	sh -c "[ \"\$(cat '$TMP/q.rc')\" = 0 ] && [ -s '$TMP/q.png' ]"
check "screen: terminal restored after q" terminal_restored q
check "tracing state restored after q" state_restored

screen small 40x10 "'$IOW' -d $DEV -D scr -t small -o small.png --live \
	-p sh -c 'sleep 30'"
check "screen: a terminal too small is told so" \
	wait_for small "terminal too small (40x10"
tmux resize-window -t "$SESSION" -x 100 -y 30 2>/dev/null
check "screen: redrawn at its new size" wait_for small "DEVICE"
tmux send-keys -t "$SESSION" C-c
check "screen: Ctrl-C ends the recording" wait_done small
check "screen: after Ctrl-C, exit 0 and the pictures drawn" \
	sh -c "[ \"\$(cat '$TMP/small.rc')\" = 0 ] && [ -s '$TMP/small.png' ]"
check "screen: terminal restored after Ctrl-C" terminal_restored small
check "tracing state restored after Ctrl-C" state_restored

screen ends 100x30 "'$IOW' -d $DEV -D scr -t ends -o ends.png --live \
	-p sh -c '$DD64 count=64; sleep 1.5'"
wait_done ends
check "screen: the workload's end ends it: exit 0, pictures" \
	sh -c "[ \"\$(cat '$TMP/ends.rc')\" = 0 ] && [ -s '$TMP/ends.png' ]"
check "screen: terminal restored when the workload ends" terminal_restored ends

screen term 100x30 "'$IOW' -d $DEV -D scr -t term -o term.png --live \
	-p sh -c 'sleep 30'"
wait_for term "iowatcher --live" >/dev/null
kill -TERM $(iowatcher_pid)
wait_done term
check "screen: SIGTERM ends it, terminal restored" terminal_restored term
check "tracing state restored after SIGTERM" state_restored

screen twice 100x30 "'$IOW' -d $DEV -D scr -t twice -o twice.png --live \
	-p sh -c 'sleep 30'"
wait_for twice "iowatcher --live" >/dev/null
tmux send-keys -t "$SESSION" C-c C-c
wait_done twice
check "screen: a second Ctrl-C, terminal restored" terminal_restored twice
# the second may come while the pictures are drawn (late under load):
# then they are given up whole, and the exit says SIGINT
check "screen: after two Ctrl-C, exit 0 and the pictures, or 130 and none half-written" \
	sh -c "rc=\$(cat '$TMP/twice.rc'); ! ls '$TMP'/twice.png.tmp* >/dev/null 2>&1 &&
	       { [ \"\$rc\" = 0 ] && [ -s '$TMP/twice.png' ] ||
		 { [ \"\$rc\" = 130 ] && [ ! -e '$TMP/twice.png' ]; }; }"
check "tracing state restored after two Ctrl-C" state_restored

# two at once while it sets up (the screen cleared, nothing drawn yet):
# the recording stops as it begins, the workload is never started, and
# no mpstat is left to outwait (one started then ran on for 10 s)
screen early 100x30 "'$IOW' -d $DEV -D scr -t early -o early.png --live \
	-p sh -c 'sleep 30' 2> early.err"
i=0
while [ "$(tmux display -p -t "$SESSION" '#{alternate_on}' 2>/dev/null)" != 1 ] &&
	[ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
tmux send-keys -t "$SESSION" C-c C-c
check "screen: two Ctrl-C during the set-up end it within 6 s" \
	sh -c "i=0; while [ ! -e '$TMP/early.done' ] && [ \$i -lt 60 ]; do
		sleep 0.1; i=\$((i + 1)); done; [ -e '$TMP/early.done' ]"
wait_done early
check "screen: two Ctrl-C during the set-up, terminal restored" \
	terminal_restored early
check "screen: stopped during the set-up, exit 0" \
	sh -c "[ \"\$(cat '$TMP/early.rc')\" = 0 ]"
if grep -q "the workload was not started" "$TMP/early.err"; then
	check "screen: not started, so no output file is named" \
		sh -c "! grep -q 'output is in' '$TMP/early.err'"
else
	# the set-up was quicker than the keys: then it ran, and says where
	check "screen: started, its output file named" \
		grep -q "workload's output is in scr/early.out" "$TMP/early.err"
fi
check "tracing state restored after two Ctrl-C during the set-up" \
	state_restored

screen hup 100x30 "'$IOW' -d $DEV -D scr -t hup -o hup.png --live \
	-p sh -c 'sleep 30'"
wait_for hup "iowatcher --live" >/dev/null
pid=$(iowatcher_pid)
tmux kill-session -t "$SESSION"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "tracing state restored when the terminal closes (SIGHUP)" state_restored
finish
