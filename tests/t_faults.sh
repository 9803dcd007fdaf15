#!/bin/sh
# t_faults.sh: iowatcher under faults it does not control: an output
# directory that cannot be written or fills up, a tagger that dies or is
# killed, an encoder that dies (with movie support), and SIGINT/SIGTERM
# while reading, tagging, rendering and recording. Every failure must be
# one line on stderr and a non-zero exit, leave no output file and no
# temporary (*.tmp*) behind, and leave no child running; a recording
# stopped by a signal is kept (that is how recording is stopped) and the
# kernel's tracing state is put back.
. "$(dirname "$0")/lib.sh"
T="$CENTOS"
MOUNTS=""
LOOP=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	lib_cleanup
}
trap cleanup EXIT

# one_line FILE: exactly one line, naming iowatcher
one_line() { [ "$(wc -l < "$1")" = 1 ] && grep -q '^iowatcher: ' "$1"; }
# clean DIR: nothing in DIR but what is named after it
clean() {
	d=$1; shift
	[ -z "$(cd "$d" && ls -A | grep -v -x -F "$(printf '%s\n' "$@")")" ]
}
# fails RC FILE: exit status 1 and one line in FILE
fails() { [ "$1" = 1 ] && one_line "$2"; }
# stopped RC FILE: a non-zero exit (1, or death by the signal after the
# clean-up) and one line in FILE
stopped() { [ "$1" != 0 ] && one_line "$2"; }
# drawn RC FILE: exit 0 and FILE written
drawn() { [ "$1" = 0 ] && [ -s "$2" ]; }
# no_tmp DIR: no temporary file left
no_tmp() { [ -z "$(find "$1" -name '*.tmp*')" ]; }
# user_path_named PATH ERRFILE: the message names PATH, and no temporary
user_path_named() { grep -qF "$1" "$2" && ! grep -q '\.tmp[0-9]' "$2"; }
# wait_gone PID SECONDS: PID has exited within SECONDS
wait_gone() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		[ $n -ge $(($2 * 10)) ] && return 1
		sleep 0.1; n=$((n + 1))
	done
}
# wait_for PATTERN SECONDS: a file matching the glob PATTERN exists
wait_for() {
	n=0
	while ! ls $1 > /dev/null 2>&1; do
		[ $n -ge $(($2 * 100)) ] && return 1
		sleep 0.01; n=$((n + 1))
	done
}
is_root() { [ "$(id -u)" = 0 ]; }
# A script's background jobs ignore SIGINT; the ones signalled here must
# not, as from a terminal. $FG runs a command so, in the same process (so
# that $! is the command's pid): env --default-signal, else python3.
FG="$TMP/sigint-default"
if env --default-signal=INT true 2>/dev/null; then
	printf '#!/bin/sh\nexec env --default-signal=INT "$@"\n' > "$FG"
else
	cat > "$FG" <<'EOF'
#!/bin/sh
exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
EOF
fi
chmod +x "$FG"
# tmpfs DIR SIZE: a small file system of its own at DIR (root only)
tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null &&
		MOUNTS="$1 $MOUNTS"
}

# ---- output directory read-only ----
if is_root && tmpfs "$TMP/ro" 64k && mount -o remount,ro "$TMP/ro" 2>/dev/null; then
	for out in out.png out.svg; do
		"$IOW" -t "$T" -o "$TMP/ro/$out" 2> "$TMP/err"; rc=$?
		check "read-only directory, $out: exit 1 ($rc), one line ($(head -c 120 "$TMP/err"))" \
			fails $rc "$TMP/err"
		check "read-only directory, $out: nothing written" clean "$TMP/ro"
		check "read-only directory, $out: the error names $out, not a temporary" \
			user_path_named "$TMP/ro/$out" "$TMP/err"
	done
	"$IOW" -t "$T" --csv "$TMP/ro/csv" 2> "$TMP/err"; rc=$?
	check "read-only directory, --csv: exit 1, one line" fails $rc "$TMP/err"
	"$IOW" -t "$T" --summary=json -o "$TMP/ro/s.png" > "$TMP/json" 2> "$TMP/err"; rc=$?
	check "read-only directory with --summary: exit 1, one line" fails $rc "$TMP/err"
else
	skip "read-only output directory: needs root and tmpfs mounts"
fi

# ---- output directory full ----
if is_root && tmpfs "$TMP/full" 64k; then
	dd if=/dev/zero of="$TMP/full/filler" bs=4k 2>/dev/null
	for out in out.png out.svg out.pdf; do
		"$IOW" -t "$T" -o "$TMP/full/$out" 2> "$TMP/err"; rc=$?
		check "full file system, $out: exit 1 ($rc), one line ($(head -c 120 "$TMP/err"))" \
			fails $rc "$TMP/err"
		check "full file system, $out: nothing left behind" clean "$TMP/full" filler
		check "full file system, $out: the error names $out, not a temporary" \
			user_path_named "$TMP/full/$out" "$TMP/err"
	done
	"$IOW" -t "$T" --csv "$TMP/full/csv" 2> "$TMP/err"; rc=$?
	check "full file system, --csv: exit 1 ($rc), one line" fails $rc "$TMP/err"
	check "full file system, --csv: no temporary left" no_tmp "$TMP/full"
	rm -rf "$TMP/full/csv"
	# room for the start of the picture, not for all of it
	rm -f "$TMP/full/filler"
	dd if=/dev/zero of="$TMP/full/filler" bs=4k count=12 2>/dev/null
	"$IOW" -t "$T" -w 2000 -h 1000 -o "$TMP/full/big.svg" 2> "$TMP/err"; rc=$?
	check "file system full midway: exit 1 ($rc), one line ($(head -c 120 "$TMP/err"))" \
		fails $rc "$TMP/err"
	check "file system full midway: nothing left behind" clean "$TMP/full" filler
	check "file system full midway: the error names big.svg, not a temporary" \
		user_path_named "$TMP/full/big.svg" "$TMP/err"
else
	skip "full output directory: needs root and tmpfs mounts"
fi

# ---- the tagger dies ----
# A tagger answering every event with END, killed by itself (SIGKILL)
# after $1 events, or stopping to answer after $1 and sleeping (first
# making the file $3, when given: the test waits for it, not for a time).
cat > "$TMP/tagger-dies.py" <<'EOF'
import os, signal, struct, sys, time
limit, mode = int(sys.argv[1]), sys.argv[2]
inp, out = sys.stdin.buffer, sys.stdout.buffer
n = 0
while True:
    h = inp.read(48)
    if len(h) < 48:
        break
    pdu = struct.unpack_from("=H", h, 46)[0]
    if pdu:
        inp.read(pdu)
    if n == limit:
        out.flush()
        if len(sys.argv) > 3:
            open(sys.argv[3], "w").close()
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(600)
    out.write(struct.pack("=I", 0))
    n += 1
out.flush()
EOF
mkdir -p "$TMP/tk" "$TMP/th" "$TMP/ti"
"$IOW" -t "$T" -T "python3 $TMP/tagger-dies.py 100 kill" -o "$TMP/tk/tk.png" 2> "$TMP/err"; rc=$?
check "tagger killing itself: exit 1 ($rc), one line ($(head -c 160 "$TMP/err"))" \
	fails $rc "$TMP/err"
check "tagger killing itself: the signal is named" grep -q "signal 9" "$TMP/err"
check "tagger killing itself: no picture, no temporary" clean "$TMP/tk"
check "tagger killing itself: no tagger left" [ -z "$(pgrep -f "$TMP/tagger-dies.py")" ]

"$IOW" -t "$T" -T "python3 $TMP/tagger-dies.py 100 hang $TMP/th.hung" --tagger-timeout 60 \
	-o "$TMP/th/th.png" 2> "$TMP/err" &
pid=$!
wait_for "$TMP/th.hung" 30
pkill -f "^[^ ]*python3 $TMP/tagger-dies.py 100 hang"
wait_gone $pid 10; gone=$?
wait $pid; rc=$?
check "tagger killed from outside: iowatcher ends at once ($gone)" [ $gone = 0 ]
check "tagger killed from outside: exit 1 ($rc), one line ($(head -c 160 "$TMP/err"))" \
	fails $rc "$TMP/err"
check "tagger killed from outside: no picture, no temporary" clean "$TMP/th"

# A tagger that never answers while the stream on stdin stalls: when it
# is given up, the reader (blocked on the stream) must not keep
# iowatcher waiting. 72000 events: more than the tagger's window, fewer
# than the window and the reader's blocks together.
if "$BUILD/bench/gentrace" -o "$TMP/g72k" -c 1 -n 72000 2>/dev/null; then
	mkfifo "$TMP/stall"
	(cat "$TMP/g72k.blktrace.0"; exec sleep 30) > "$TMP/stall" &
	writer=$!
	"$IOW" -t - -T "sleep 600" --tagger-timeout 2 --summary < "$TMP/stall" \
		> /dev/null 2> "$TMP/err" &
	pid=$!
	wait_gone $pid 15; gone=$?
	kill $writer 2>/dev/null
	wait $pid; rc=$?
	wait $writer 2>/dev/null
	check "silent tagger, stalled stdin: ends after the timeout ($gone)" [ $gone = 0 ]
	check "silent tagger, stalled stdin: exit 1 ($rc), one line ($(head -c 120 "$TMP/err"))" \
		fails $rc "$TMP/err"
	rm -f "$TMP/g72k.blktrace.0"
else
	skip "silent tagger, stalled stdin: bench/gentrace not built"
fi

# ---- the encoder dies ----
if grep -q "ffmpeg" "$TOP/movie/movie.c" 2>/dev/null && command -v ffmpeg > /dev/null; then
	mkdir -p "$TMP/bin"
	cat > "$TMP/bin/ffmpeg" <<'EOF'
#!/bin/sh
# reads the start of the frames, then dies as if it had crashed
head -c 200000 > /dev/null
kill -9 $$
EOF
	chmod +x "$TMP/bin/ffmpeg"
	mkdir -p "$TMP/mv"
	PATH="$TMP/bin:$PATH" "$IOW" -t "$T" --movie -o "$TMP/mv/m.mp4" \
		--movie-length 5 2> "$TMP/err"; rc=$?
	check "encoder killed: exit non-zero ($rc), one line ($(head -c 160 "$TMP/err"))" \
		stopped $rc "$TMP/err"
	check "encoder killed: no movie, no temporary" clean "$TMP/mv"
	check "encoder killed: no encoder left" [ -z "$(pgrep -f "$TMP/bin/ffmpeg")" ]
	# interrupted while the movie is made: ffmpeg goes, and its file
	mkdir -p "$TMP/mi"
	"$FG" "$IOW" -t "$T" --movie -o "$TMP/mi/m.mp4" --movie-length 120 \
		2> "$TMP/err" &
	pid=$!
	if wait_for "$TMP/mi/m.mp4.tmp*" 20; then
		sleep 0.5
		kill -INT $pid
		wait_gone $pid 10; gone=$?
		wait $pid; rc=$?
		check "SIGINT while making a movie: ends at once ($gone)" [ $gone = 0 ]
		check "SIGINT while making a movie: exit non-zero ($rc), one line ($(head -c 120 "$TMP/err"))" \
			stopped $rc "$TMP/err"
		check "SIGINT while making a movie: no movie, no temporary" clean "$TMP/mi"
		check "SIGINT while making a movie: no ffmpeg left" [ -z "$(pgrep -f "$TMP/mi/")" ]
	else
		kill $pid 2>/dev/null
		wait $pid
		fail "SIGINT while making a movie: ffmpeg's output ($TMP/mi/m.mp4.tmp*) never appeared"
	fi
else
	skip "encoder killed, movie interrupted: no movie/movie.c with ffmpeg in this tree, or no ffmpeg"
fi

# ---- interrupted while reading: a stream on stdin that stalls ----
mkfifo "$TMP/fifo"
for sig in INT TERM; do
	mkdir -p "$TMP/rd"
	(cat "$T.blktrace.0"; exec sleep 30) > "$TMP/fifo" &
	writer=$!
	"$FG" "$IOW" -t - -o "$TMP/rd/r.png" --summary < "$TMP/fifo" > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	# until cat has written it all (its shell then execs sleep) and
	# iowatcher waits on the pipe for more (the kernel's wait channel:
	# pipe_read, anon_pipe_read), 20 s at most (it was a sleep of 1 s)
	n=0
	while { [ "$(cat /proc/$writer/comm 2>/dev/null)" != sleep ] ||
		! cat /proc/$pid/task/*/wchan 2>/dev/null | grep -q pipe; } &&
	      [ $n -lt 2000 ]; do
		sleep 0.01; n=$((n + 1))
	done
	kill -$sig $pid
	wait_gone $pid 5; gone=$?
	wait $pid; rc=$?
	kill $writer 2>/dev/null
	wait $writer 2>/dev/null
	check "SIG$sig while reading: ends at once ($gone)" [ $gone = 0 ]
	check "SIG$sig while reading: exit non-zero ($rc), one line ($(head -c 120 "$TMP/err"))" \
		stopped $rc "$TMP/err"
	check "SIG$sig while reading: no summary" [ ! -s "$TMP/out" ]
	check "SIG$sig while reading: no picture, no temporary" clean "$TMP/rd"
done

# ---- interrupted while the tagger works ----
"$FG" "$IOW" -t "$T" -T "python3 $TMP/tagger-dies.py 100 hang $TMP/ti.hung" --tagger-timeout 60 \
	-o "$TMP/ti/ti.png" 2> "$TMP/err" &
pid=$!
wait_for "$TMP/ti.hung" 30
kill -INT $pid
wait_gone $pid 5; gone=$?
wait $pid; rc=$?
check "SIGINT while tagging: ends at once ($gone)" [ $gone = 0 ]
check "SIGINT while tagging: exit non-zero ($rc), one line ($(head -c 120 "$TMP/err"))" \
	stopped $rc "$TMP/err"
check "SIGINT while tagging: no picture, no temporary" clean "$TMP/ti"
sleep 0.5
check "SIGINT while tagging: no tagger left" [ -z "$(pgrep -f "$TMP/tagger-dies.py")" ]
pkill -9 -f "$TMP/tagger-dies.py" 2>/dev/null

# ---- interrupted while rendering: once the temporary file exists ----
for out in r.png r.svg; do
	mkdir -p "$TMP/rn"
	"$FG" "$IOW" -t "$T" -w 4000 -h 2000 -o "$TMP/rn/$out" 2> "$TMP/err" &
	pid=$!
	if wait_for "$TMP/rn/$out.tmp*" 20; then
		kill -INT $pid
		wait $pid; rc=$?
		check "SIGINT while rendering $out: exit non-zero ($rc), one line ($(head -c 120 "$TMP/err"))" \
			stopped $rc "$TMP/err"
		check "SIGINT while rendering $out: no picture, no temporary" clean "$TMP/rn"
	else
		wait $pid
		skip "SIGINT while rendering $out: rendering was over before it could be interrupted"
	fi
	rm -rf "$TMP/rn"
done

# ---- interrupted while recording (root, a loop device, the blk tracer) ----
TR=$(tracefs_dir)
if ! is_root; then
	skip "SIGINT while recording: needs root"
elif ! command -v losetup > /dev/null || [ -z "$TR" ] ||
     [ ! -w "$TR/current_tracer" ] ||
     ! grep -qw blk "$TR/available_tracers"; then
	skip "SIGINT while recording: no losetup, or no tracefs with the blk tracer"
elif ! truncate -s 32M "$TMP/disk.img" ||
     ! LOOP=$(losetup -f --show "$TMP/disk.img" 2>/dev/null); then
	LOOP=""
	skip "SIGINT while recording: no loop device"
else
	tracing_lock
	tracer_before=$(cat "$TR/current_tracer")
	bin_before=$(grep -o '^no\?bin$' "$TR/trace_options")
	for sig in INT TERM; do
		mkdir -p "$TMP/rec$sig"
		"$FG" "$IOW" -d "$LOOP" -D "$TMP/rec$sig" -t rec -o "$TMP/rec$sig/rec.png" --summary=json \
			-p "while :; do dd if=$LOOP of=/dev/null bs=4k count=2000 iflag=direct status=none; done" \
			> "$TMP/rec.json" 2> "$TMP/err" &
		pid=$!
		sleep 2
		kill -$sig $pid
		wait_gone $pid 20; gone=$?
		wait $pid; rc=$?
		check "SIG$sig while recording: ends within 20 s ($gone)" [ $gone = 0 ]
		# a signal is how a recording is stopped: the trace is kept and drawn
		check "SIG$sig while recording: what was recorded is drawn (exit $rc)" \
			drawn $rc "$TMP/rec$sig/rec.png"
		check "SIG$sig while recording: no temporary left" no_tmp "$TMP/rec$sig"
		check "SIG$sig while recording: no workload left" \
			[ -z "$(pgrep -f "count=2000 iflag=direct")" ]
		check "SIG$sig while recording: tracer back to $tracer_before" \
			[ "$(cat "$TR/current_tracer")" = "$tracer_before" ]
		check "SIG$sig while recording: trace_options back to $bin_before" \
			[ "$(grep -o '^no\?bin$' "$TR/trace_options")" = "$bin_before" ]
	done
	# interrupted again while drawing what was recorded: that fails cleanly
	"$FG" "$IOW" -d "$LOOP" -D "$TMP/rec2" -t rec -w 4000 -h 2000 -o "$TMP/rec2/rec.png" \
		-p "dd if=$LOOP of=/dev/null bs=4k count=200 iflag=direct status=none" \
		2> "$TMP/err" &
	pid=$!
	if wait_for "$TMP/rec2/rec.png.tmp*" 30; then
		kill -INT $pid
		wait $pid; rc=$?
		# (after the recording's own lines)
		check "SIGINT while drawing a recording: exit non-zero ($rc), says so last" \
			sh -c "[ $rc != 0 ] && tail -n 1 '$TMP/err' | grep -q '^iowatcher: interrupted'"
		check "SIGINT while drawing a recording: no picture, no temporary" \
			sh -c "[ ! -e '$TMP/rec2/rec.png' ] && [ -z \"\$(find '$TMP/rec2' -name '*.tmp*')\" ]"
	else
		wait $pid
		skip "SIGINT while drawing a recording: over before it could be interrupted"
	fi
	check "tracing state as before all recordings" \
		[ "$(cat "$TR/current_tracer") $(grep -o '^no\?bin$' "$TR/trace_options")" = "$tracer_before $bin_before" ]
fi
finish
