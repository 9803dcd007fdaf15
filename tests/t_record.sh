#!/bin/sh
# t_record.sh: the recorder (record_run, driven by tests/tools/record_demo)
# on a fresh loop device: what dd wrote is what blkparse reads back, the
# kernel's tracing state is as before, SIGINT/SIGTERM keep what was
# recorded, errors are one line, and blktrace is used when it can start;
# ftrace keeps each I/O's cgroup (its blk_cgroup option on, the records
# written as blkparse reads them) and says files and stacks were not
# recorded.
# Needs root, tracefs with the 'blk' tracer, losetup and blkparse.
. "$(dirname "$0")/lib.sh"
# a recording drawn without -o leaves NAME.svg where it runs: not in
# the checkout
cd "$TMP" || exit 1
RD="$TOP/tests/tools/record_demo"

T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! grep -qw blk "$T/available_tracers"; then why="no blk tracer"
elif ! command -v losetup >/dev/null || ! command -v blkparse >/dev/null
then why="losetup or blkparse missing"
elif [ ! -x "$RD" ]; then why="tests/tools/record_demo not built"
fi
if [ -n "$why" ]; then
	skip "recorder tests: $why"
	finish
	exit $?
fi

tracing_lock
truncate -s 64M "$TMP/disk.img"
DEV=$(losetup -f --show "$TMP/disk.img") || { fail "losetup"; finish; exit 1; }
ENABLE=/sys/class/block/$(basename "$DEV")/trace/enable
CG=
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	umount "$TMP/full" 2>/dev/null
	echo 0 > "$ENABLE" 2>/dev/null
	losetup -d "$DEV"
	lib_cleanup
}
trap cleanup EXIT

# what record_run must leave as it found it (lib.sh), and the text
# output option it sets back to
BEFORE=$(tracing_state)
restored() {
	state_restored && grep -qx nobin "$T/trace_options"
}

# written_kib DIR NAME: blkparse's total of KiB written (completed)
written_kib() {
	blkparse -i "$2" -D "$1" 2>/dev/null | grep 'Writes Completed' |
		tail -n 1 | sed -E 's/.*Writes Completed: *[0-9]+, *([0-9]+)KiB.*/\1/'
}

# the recorders that can run here: bpf where the kernel and the build
# allow it (else one line says why), ftrace always (checked above)
TRACERS=ftrace
if "$RD" -T bpf -d "$DEV" -D "$TMP" -t probe -- true > "$TMP/probe.out" 2>&1
then
	TRACERS="bpf ftrace"
else
	skip "the bpf recorder: $(cat "$TMP/probe.out")"
fi

# 1. a dd of known size, recorded and read back (over an old recording
# from a machine with more CPUs)
record_dd() {
	tr=$1
	mkdir "$TMP/dd-$tr"
	echo stale > "$TMP/dd-$tr/dd.blktrace.7"
	if "$RD" -T "$tr" -d "$DEV" -D "$TMP/dd-$tr" -t dd -- \
		dd if=/dev/zero of="$DEV" bs=64k count=64 oflag=direct \
		status=none > "$TMP/dd.out" 2>&1; then
		pass "$tr: records dd on $DEV ($(head -n 1 "$TMP/dd.out"))"
	else
		fail "$tr: records dd on $DEV" "$(cat "$TMP/dd.out")"
	fi
	EVENTS=$(sed -nE 's/^tracer [a-z]+, ([0-9]+) events.*/\1/p' \
		"$TMP/dd.out")
	check "$tr: blkparse reads 4096 KiB written, what dd wrote" \
		[ "$(written_kib "$TMP/dd-$tr" dd)" = 4096 ]
	check "$tr: blkparse finds no bad records" \
		sh -c "! blkparse -i dd -D '$TMP/dd-$tr' 2>&1 |
		       grep -qiE 'bad|magic|skips: [1-9]'"
	check "$tr: an old recording's files go" \
		[ ! -e "$TMP/dd-$tr/dd.blktrace.7" ]
	check "$tr: PROCESS notes name the writer" \
		sh -c "blkparse -i dd -D '$TMP/dd-$tr' | grep -q ' Q .*\[dd\]'"
	check "$tr: tracing state restored after a run" restored
}

# 2. SIGINT while the workload still runs: files kept, workload's
# whole process group stopped, state restored
record_sigint() {
	tr=$1
	mkdir "$TMP/int-$tr"
	"$RD" -T "$tr" -d "$DEV" -D "$TMP/int-$tr" -t int -- sh -c "dd \
		if=/dev/zero of=$DEV bs=64k count=32 oflag=direct status=none;
		sleep 31.25; true" > "$TMP/int.out" 2>&1 &
	pid=$!
	# until dd is done (the workload's sleep has begun), 30 s at most
	# (it was a sleep of 2 s)
	n=0
	while ! pgrep -f '^sleep 31.25$' > /dev/null && [ $n -lt 300 ]; do
		sleep 0.1; n=$((n + 1))
	done
	kill -INT "$pid"
	if wait "$pid"; then
		check "$tr: SIGINT ends the recording as such" \
			grep -q "stopped by signal 2" "$TMP/int.out"
	else
		fail "$tr: recorder exits 0 after SIGINT" "$(cat "$TMP/int.out")"
	fi
	check "$tr: after SIGINT blkparse reads the 2048 KiB written" \
		[ "$(written_kib "$TMP/int-$tr" int)" = 2048 ]
	check "$tr: after SIGINT the workload is gone" \
		sh -c "! pgrep -f '^sleep 31.25$' >/dev/null"
	check "$tr: tracing state restored after SIGINT" restored
}

# 3. no workload: records until SIGTERM
record_sigterm() {
	tr=$1
	mkdir "$TMP/term-$tr"
	"$RD" -T "$tr" -d "$DEV" -D "$TMP/term-$tr" -t term \
		> "$TMP/term.out" 2>&1 &
	pid=$!
	sleep 1
	dd if=/dev/zero of="$DEV" bs=4k count=10 oflag=direct status=none
	sleep 0.5
	kill -TERM "$pid"
	wait "$pid"
	check "$tr: without a workload it records until SIGTERM" \
		[ "$(written_kib "$TMP/term-$tr" term)" = 40 ]
	check "$tr: tracing state restored after SIGTERM" restored
}

for tr in $TRACERS; do
	record_sigint "$tr"
	record_sigterm "$tr"
done
# the ftrace one last: test 6 compares its event count
for tr in $TRACERS; do
	record_dd "$tr"
done

# 4. mpstat beside the trace
mkdir "$TMP/mp"
"$RD" -m -d "$DEV" -D "$TMP/mp" -t mp -- sleep 2.2 > /dev/null 2>&1
check "mpstat -P ALL 1 is saved as NAME.mpstat" \
	sh -c "grep -q '%iowait' '$TMP/mp/mp.mpstat' &&
	       grep -qE '^[0-9:]+ +all ' '$TMP/mp/mp.mpstat'"

# 5. errors: one line, non-zero exit, nothing touched
expect_error() {
	name=$1 want=$2
	shift 2
	if "$@" > "$TMP/err.out" 2>&1; then
		fail "$name" "exit 0"
	elif [ "$(wc -l < "$TMP/err.out")" = 1 ] &&
	     grep -q "$want" "$TMP/err.out"; then
		pass "$name"
	else
		fail "$name" "$(cat "$TMP/err.out")"
	fi
}
mkdir "$TMP/keep"
echo old > "$TMP/keep/k.blktrace.0"
expect_error "no such device" "no such device: /dev/nonexistent" \
	"$RD" -d /dev/nonexistent -D "$TMP/keep" -t k -- true
check "a failed start leaves old files alone" [ -s "$TMP/keep/k.blktrace.0" ]
expect_error "not a block device" "not a block device" \
	"$RD" -d "$TMP/disk.img" -D "$TMP/e" -- true
echo 1 > "$ENABLE"
expect_error "device traced by someone else is busy" \
	"device busy with another trace" "$RD" -d "$DEV" -D "$TMP/e" -- true
check "someone else's trace is left alone" [ "$(cat "$ENABLE")" = 1 ]
echo 0 > "$ENABLE"
if command -v setpriv >/dev/null; then
	expect_error "needs root" "recording needs root" setpriv \
		--reuid=65534 --regid=65534 --clear-groups \
		"$RD" -d "$DEV" -D "$TMP/e" -- true
fi
expect_error "a workload that cannot run" "cannot run /nonexistent/prog" \
	"$RD" -d "$DEV" -D "$TMP/e" -- /nonexistent/prog
check "tracing state restored after errors" restored
# an error while ftrace records: the trace's file system fills up
mkdir "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
	expect_error "ftrace: a full output directory stops it, one line" \
		"cannot write $TMP/full/f.blktrace.[0-9]*: No space left" \
		"$RD" -T ftrace -d "$DEV" -D "$TMP/full" -t f -- dd if="$DEV" \
		of=/dev/null bs=4k count=20000 iflag=direct status=none
	umount "$TMP/full"
	check "ftrace: tracing state restored after a write error" restored
else
	skip "full output directory: no tmpfs mount"
fi

# 6. blktrace first when it starts (a stand-in that writes the files of
# test 1 and stops on SIGINT), ftrace when it fails as on this machine
mkdir "$TMP/bin" "$TMP/bt"
cat > "$TMP/bin/blktrace" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -o) name=$2; shift;; -D) dir=$2; shift;; esac
	shift
done
if [ -n "$FAKE_FAIL" ]; then
	echo "Thread 0 failed open /sys/kernel/debug/block/x/trace0: 1/Operation not permitted" >&2
	exit 0
fi
for f in "$FAKE_FROM".blktrace.*; do
	cp "$f" "$dir/$name.blktrace.${f##*.blktrace.}"
done
trap 'exit 0' INT
while :; do sleep 0.05; done
EOF
chmod +x "$TMP/bin/blktrace"
PATH="$TMP/bin:$PATH" FAKE_FROM="$TMP/dd-ftrace/dd" \
	"$RD" -X bpf -d "$DEV" -D "$TMP/bt" -t bt -- true > "$TMP/bt.out" 2>&1
check "blktrace is used when it starts, and its events counted" \
	grep -q "^tracer blktrace, $EVENTS events" "$TMP/bt.out"
PATH="$TMP/bin:$PATH" FAKE_FAIL=1 \
	"$RD" -X bpf -d "$DEV" -D "$TMP/bt" -t fb -- true > "$TMP/fb.out" 2>&1
check "falls back to ftrace when blktrace cannot start" \
	sh -c "grep -q '^tracer ftrace' '$TMP/fb.out' &&
	       grep -q 'not used: blktrace: blktrace did not start: Thread 0' '$TMP/fb.out'"
PATH="$TMP/bin:$PATH" FAKE_FAIL=1 expect_error \
	"-T blktrace fails when blktrace cannot start" \
	"blktrace did not start" "$RD" -T blktrace -d "$DEV" -D "$TMP/bt" -- true
check "tracing state restored after blktrace" restored

# 7. tracefs not mounted: mounted for the recording, unmounted after
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	mkdir "$TMP/mnt"
	unshare -m sh -c "umount -l /sys/kernel/debug/tracing 2>/dev/null;
		umount -l /sys/kernel/tracing 2>/dev/null;
		umount -l /sys/kernel/debug 2>/dev/null;
		'$RD' -T ftrace -d $DEV -D '$TMP/mnt' -t m -- dd if=/dev/zero of=$DEV \
			bs=4k count=3 oflag=direct status=none &&
		! grep -qE ' (debugfs|tracefs) ' /proc/self/mounts" \
		> "$TMP/mnt.out" 2>&1
	check "mounts tracefs when needed and unmounts it after" \
		sh -c "grep -q '^tracer ftrace' '$TMP/mnt.out' &&
		       [ \"\$(blkparse -i m -D '$TMP/mnt' 2>/dev/null |
			    grep -c ' C ')\" -ge 3 ]"
else
	skip "mount test: unshare -m not available"
fi
check "tracing state restored at the end" restored

# 8. a recording killed before it can put the tracer back (SIGKILL: the
# session that ran it torn down) leaves it on; the next one puts it
# back first and says so. While one records, another is told whose it is.
OWNER=/run/iowatcher-ftrace
[ -d /run ] || OWNER=/tmp/iowatcher-ftrace
if [ -x "$IOW" ]; then
	mkdir "$TMP/k"
	"$IOW" -d "$DEV" --tracer ftrace -D "$TMP/k" -t k1 -p sleep 30 \
		> /dev/null 2> "$TMP/k1.err" &
	K=$!
	n=0
	while [ "$(cat "$ENABLE")" != 1 ] && [ $n -lt 100 ]; do
		sleep 0.05; n=$((n + 1))
	done
	MP=$(pgrep -P $K -x mpstat)
	"$IOW" -d "$DEV" --tracer ftrace -D "$TMP/k" -t k2 -p true \
		> /dev/null 2> "$TMP/k2.err"
	check "a second recording meanwhile: busy, naming the first's pid" \
		grep -q "^iowatcher: device busy with another trace: iowatcher (pid $K) records with the kernel's blk tracer" "$TMP/k2.err"
	kill -9 $K
	wait $K 2>/dev/null
	pkill -f "^sleep 30$" 2>/dev/null
	n=0
	while [ -n "$MP" ] && kill -0 "$MP" 2>/dev/null && [ $n -lt 40 ]; do
		sleep 0.05; n=$((n + 1))
	done
	check "its mpstat ends with it (pid ${MP:-none})" \
		sh -c "[ -n '$MP' ] && ! kill -0 '$MP' 2>/dev/null"
	check "SIGKILL leaves the tracer on, its settings in $OWNER (blk_cgroup's too)" \
		sh -c "[ \"\$(cat '$T/current_tracer')\" = blk ] &&
		       [ \"\$(cat '$ENABLE')\" = 1 ] &&
		       grep -qx 'pid $K' '$OWNER' &&
		       grep -q 'enable /sys/dev/block/.*/trace' '$OWNER' &&
		       { [ \"\$(cat '$T/options/blk_cgroup')\" = 0 ] ||
			 grep -qx 'set options/blk_cgroup 0' '$OWNER'; }"
	"$IOW" -d "$DEV" --tracer ftrace -D "$TMP/k" -t k3 -p dd if=/dev/zero \
		of="$DEV" bs=4k count=8 oflag=direct status=none \
		> /dev/null 2> "$TMP/k3.err"
	check "the next recording puts it back first and says whose it was" \
		grep -q "^iowatcher: first put back the kernel's tracing state that a killed recording (pid $K) had left on" "$TMP/k3.err"
	check "... and records" \
		grep -q "^iowatcher: recorded [1-9][0-9]* events of $DEV with ftrace" "$TMP/k3.err"
	check "tracing state restored after a killed recording, $OWNER empty" \
		sh -c "[ ! -s '$OWNER' ] && exit 0; cat '$OWNER'; exit 1"
	check "tracing state as before the killed recording" restored

	# no mpstat on PATH: recorded without it, one line says so, and an
	# older recording's NAME.mpstat is not drawn with this one
	mkdir "$TMP/nompstat"
	for p in dd sh true; do ln -s "$(command -v $p)" "$TMP/nompstat/$p"; done
	echo old > "$TMP/k/nm.mpstat"
	PATH="$TMP/nompstat" "$IOW" -d "$DEV" --tracer ftrace -D "$TMP/k" \
		-t nm -p dd if="$DEV" of=/dev/null bs=4k count=8 iflag=direct \
		status=none > /dev/null 2> "$TMP/nm.err"
	check "no mpstat: recorded, one line says so, no NAME.mpstat" \
		sh -c "grep -q '^iowatcher: recorded ' '$TMP/nm.err' &&
		       grep -q '^iowatcher: no mpstat on PATH' '$TMP/nm.err' &&
		       [ ! -e '$TMP/k/nm.mpstat' ]"
else
	skip "a killed recording: $IOW not built"
fi

# 9. ftrace's causes: with blk_cgroup on the kernel puts the cgroup id in
# the QUEUE, GETRQ, ISSUE and COMPLETE records; each QUEUE's is kept in
# NAME.cause.N, the records written without it (blkparse calls them "Bad
# fs action" otherwise). Direct writes from a process in a cgroup of the
# test's.
ROOT=$(cgroup_root)
why=
if [ ! -x "$IOW" ]; then why="$IOW not built"
elif [ ! -e "$T/options/blk_cgroup" ]; then why="no options/blk_cgroup"
elif [ -z "$ROOT" ] || [ ! -w "$ROOT" ]; then
	why="no writable hierarchy with the io controller"
elif ! mkdir "$ROOT/iowtest.$$" 2>/dev/null; then
	why="cannot make a cgroup in $ROOT"
fi
if [ -z "$why" ]; then
	CG="$ROOT/iowtest.$$"
	mkdir "$TMP/cg"
	"$IOW" -d "$DEV" --tracer ftrace -D "$TMP/cg" -t cg -p "echo \$\$ > $CG/cgroup.procs && dd if=/dev/zero of=$DEV bs=4k count=48 oflag=direct status=none" \
		> /dev/null 2> "$TMP/cg.err"
	check "ftrace with causes: recorded, the end line names NAME.cause*" \
		grep -q "^iowatcher: recorded .* with ftrace in $TMP/cg/cg.blktrace.* and .cause\* (" "$TMP/cg.err"
	check "tracing state restored after ftrace with causes (blk_cgroup too)" \
		restored
	"$IOW" -t "$TMP/cg/cg" --by cgroup --summary=json > "$TMP/cg.json" \
		2> "$TMP/cg.json.err"
	check "--by cgroup: the test's cgroup by its path, with dd's 192 KiB" \
		python3 -c "
import json, sys
tags = {t['label']: t['bytes'] for t in json.load(open(sys.argv[1]))['traces'][0]['tags']}
sys.exit(tags.get(sys.argv[2]) != 48 * 4096 and (print(tags) or 1))" \
		"$TMP/cg.json" "/iowtest.$$"
	blkparse -i cg -D "$TMP/cg" > "$TMP/cg.blkparse" 2>&1
	ours=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['traces'][0]['devices']
print(sum(x['read']['ios'] + x['write']['ios'] for x in d))" "$TMP/cg.json")
	theirs=$(grep 'Reads Completed' "$TMP/cg.blkparse" | tail -n 1 |
		sed -E 's/.*Reads Completed: *([0-9]+),.*Writes Completed: *([0-9]+),.*/\1 + \2/')
	check "blkparse reads the files: no 'Bad fs action', $ours completions as ours ($theirs)" \
		sh -c "! grep -q 'Bad fs action' '$TMP/cg.blkparse' &&
		       [ -n '$theirs' ] && [ \$(($theirs)) = '$ours' ] &&
		       [ '$ours' -ge 48 ]"
	"$IOW" -t "$TMP/cg/cg" --by file > "$TMP/cg.file" 2>&1; rc=$?
	check "--by file: one line, files were not recorded by ftrace ($rc)" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/cg.file') = 1 ] &&
		       grep -q '^iowatcher: $TMP/cg/cg: files were not recorded with this trace (the ftrace recorder keeps only' '$TMP/cg.file'"
	"$IOW" -t "$TMP/cg/cg" --summary=stacks > "$TMP/cg.stacks" 2>&1; rc=$?
	check "--summary=stacks: one line, stacks were not recorded ($rc)" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/cg.stacks') = 1 ] &&
		       grep -q 'stacks were not recorded with this trace (the ftrace' '$TMP/cg.stacks'"
	# --no-causes: blk_cgroup stays off, no NAME.cause*
	"$IOW" -d "$DEV" --tracer ftrace --no-causes -D "$TMP/cg" -t nc -p \
		"echo \$\$ > $CG/cgroup.procs && cat $T/options/blk_cgroup > $TMP/cg/nc.option && dd if=/dev/zero of=$DEV bs=4k count=8 oflag=direct status=none" \
		> /dev/null 2> "$TMP/nc.err"
	check "--no-causes with ftrace: blk_cgroup off while it records, no NAME.cause*" \
		sh -c "grep -q 'with ftrace' '$TMP/nc.err' &&
		       [ \"\$(cat '$TMP/cg/nc.option')\" = 0 ] &&
		       ! ls '$TMP/cg'/nc.cause* > /dev/null 2>&1"
	check "tracing state restored after ftrace with --no-causes" restored
else
	skip "ftrace's cgroups: $why"
fi

finish
