#!/bin/sh
# t_examples.sh: every example command of the README and of the man page
# (its EXAMPLES section), extracted from them as written, runs on the
# samples: a trace named sda (or before, after) is a sample, /dev/sdb and
# /dev/nvme0n1 are loop devices, job.fio and make are small workloads on
# them. The reading examples run anywhere; the recording ones where root,
# tracefs and loop devices are (else one "skipped" line each).
. "$(dirname "$0")/lib.sh"
if repeat_pass "the README's and man page's examples (their code is the other tests')"; then
	finish
	exit $?
fi

# examples FILE: the example command lines, one per line
examples_readme() {
	awk '/^```/ { inside = !inside; next }
	     inside && ($1 == "iowatcher" || /\| *iowatcher /) { print }' "$1" |
		sed 's/  *#.*$//'
}
examples_man() {
	awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH/ { on = 0 }
	     on && /^\.nf/ { inside = 1; next } on && /^\.fi/ { inside = 0 }
	     on && inside { print }' "$1" | sed 's/\\-/-/g'
}
{ examples_readme "$TOP/README.md"; examples_man "$TOP/iowatcher.1"; } > "$TMP/all"
n=$(wc -l < "$TMP/all")
check "the README and the man page have examples to run ($n)" [ "$n" -ge 12 ]

W="$TMP/work"
mkdir -p "$W/bin"
ln -s "$IOW" "$W/bin/iowatcher"
for f in "$TOP"/samples/fio-randrw.blktrace.*; do
	cp "$f" "$W/sda.blktrace.${f##*.blktrace.}"
	cp "$f" "$W/before.blktrace.${f##*.blktrace.}"
done
cp "$TOP/samples/fio-randrw.mpstat" "$W/sda.mpstat"
mkdir "$W/logs"	# the README's fleet example makes it first
# sda has causes kept beside it, as the bpf recorder keeps them
python3 "$TOP/tests/tools/make_causes.py" "$W/sda" > /dev/null
# after: another run on before's device (7,1), as --compare pairs them
for f in "$TOP"/samples/overlap-fio.blktrace.*; do
	cp "$f" "$W/after.blktrace.${f##*.blktrace.}"
done

# recording: two loop devices standing for /dev/sdb and /dev/nvme0n1
T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ] || ! grep -qw blk "$T/available_tracers"; then why="no tracefs with the blk tracer"
elif ! command -v losetup > /dev/null || ! command -v fio > /dev/null; then why="losetup or fio missing"
fi
LOOPS=
if [ -z "$why" ]; then
	tracing_lock
	truncate -s 64M "$TMP/a.img" "$TMP/b.img"
	SDB=$(losetup -f --show "$TMP/a.img") && LOOPS="$SDB" &&
	NVME=$(losetup -f --show "$TMP/b.img") && LOOPS="$LOOPS $NVME" ||
		why="no loop device"
fi
trap 'for l in $LOOPS; do losetup -d "$l"; done; lib_cleanup' EXIT
if [ -z "$why" ]; then
	cat > "$W/job.fio" <<EOF2
[global]
ioengine=psync
direct=1
bs=4k
size=4m
runtime=1
time_based
[reads]
rw=randread
filename=$SDB
[nvme]
rw=randwrite
filename=$NVME
EOF2
	printf 'all:\n\tdd if=/dev/zero of=%s bs=64k count=64 oflag=direct status=none\n' "$SDB" > "$W/Makefile"
fi

i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	case "$cmd" in
	*"-d /dev/"*)
		if [ -n "$why" ]; then
			skip "example $i: $cmd: recording: $why"
			continue
		fi
		run=$(printf '%s\n' "$cmd" | sed -e "s|/dev/sdb|$SDB|g" -e "s|/dev/nvme0n1|$NVME|g" \
			-e 's|-p fio job.fio|-p fio --output=fio.out job.fio|' \
			-e 's|-p "fio job.fio"|-p "fio --output=fio.out job.fio"|')
		;;
	*) run=$cmd;;
	esac
	# -D samples for blkparse's -i sda: here, the work directory
	rm -f "$W/out.err"; touch "$W/started"; sleep 0.01
	(cd "$W" && PATH="$W/bin:$PATH" timeout 120 sh -c "$run" \
		> "$W/out.txt" 2> "$W/out.err" < /dev/null); rc=$?
	# what it was to write: -o FILE, --csv DIR, --events FILE, > FILE, or
	# stdout
	out=$(printf '%s\n' "$cmd" | sed -n -e 's/.*-o \([^ ]*\).*/\1/p' | tail -n 1)
	[ "$out" = /dev/null ] && out=
	csv=$(printf '%s\n' "$cmd" | sed -n 's/.*--csv \([^ ]*\).*/\1/p')
	redir=$(printf '%s\n' "$cmd" | sed -n 's/.*> *\([^ ]*\)$/\1/p')
	events=$(printf '%s\n' "$cmd" | sed -n 's/.*--events \([^ ]*\).*/\1/p')
	made=yes
	if [ -n "$csv" ]; then [ -n "$(ls "$W/$csv" 2>/dev/null)" ] || made=no
	elif [ -n "$events" ]; then [ -s "$W/$events" ] || made=no
	elif [ -n "$redir" ]; then [ -s "$W/$redir" ] || made=no
	elif [ -n "$out" ]; then [ -s "$W/$out" ] || made=no
	# the flight recorder's output is its captures, when a trigger fires:
	# its end line says what it took
	elif printf '%s' "$cmd" | grep -q -- '--flight'; then
		grep -q '^iowatcher: flight recorder: [0-9]* capture' "$W/out.err" || made=no
	elif printf '%s' "$cmd" | grep -q -- '--summary\|--live\|--compare'; then [ -s "$W/out.txt" ] || made=no
	else [ -n "$(find "$W" -maxdepth 1 -name '*.svg' -newer "$W/started" -size +0)" ] || made=no
	fi
	if [ $rc = 0 ] && [ $made = yes ]; then
		pass "example $i: $cmd"
	else
		fail "example $i: $cmd" "exit $rc, output made: $made: $(head -c 300 "$W/out.err")"
	fi
done < "$TMP/all"
finish
