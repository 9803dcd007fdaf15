#!/bin/sh
# bench/live.sh: what --live costs on top of recording alone, on the
# fastest workload the ftrace blk tracer can follow here: fio random 4 KiB
# reads at queue depth 32 on a loop device (a file in $TMPDIR).
#
#   sh bench/live.sh [SECONDS]          (root; default 10 s of fio a run)
#
# Each mode runs BENCH_LIVE_RUNS times (default 2), in the order of
# BENCH_LIVE_MODES (default "record text screen"):
#   record    iowatcher -d LOOP --summary -p fio ...
#   text      the same with --live=text (lines to a file)
#   screen    the same with --live, on a pseudo-terminal (script(1)),
#             redrawn every second
# and reports iowatcher's own CPU time (perf stat -p on its threads, its
# children fio and mpstat not counted) as a share of one core over the
# run, fio's IOPS, the events recorded and the tracer's lost events. The
# live view's cost is the difference to "record"; the target is under
# 25% of one core. Then bench/live_replay hands the first recording to
# the live view again, alone, for its own CPU time without the noise of
# the tracer and of other work on the machine. Run it alone: it traces
# (other tracers must wait).
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
IOW="$TOP/iowatcher"
SECONDS_RUN=${1:-10}
RUNS=${BENCH_LIVE_RUNS:-2}

for tool in fio perf script losetup bc; do
	command -v $tool >/dev/null || { echo "skipped: $tool missing"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 0; }
[ -x "$IOW" ] && [ -x "$TOP/bench/live_replay" ] ||
	{ echo "skipped: build iowatcher and bench/live_replay first (make)"; exit 0; }

W=$(mktemp -d)
truncate -s 1G "$W/disk.img"
DEV=$(losetup -f --show "$W/disk.img") || exit 1
trap 'losetup -d "$DEV"; rm -rf "$W"' EXIT
# the file in the page cache: the loop device then goes as fast as it can
dd if=/dev/zero of="$DEV" bs=1M count=1024 oflag=direct status=none

FIO="fio --name=rr --filename=$DEV --rw=randread --bs=4k --iodepth=32 \
--ioengine=libaio --direct=1 --runtime=$SECONDS_RUN --time_based"

# run MODE N: one measured run; prints "cpu_s wall_s iops events lost"
run() {
	mode=$1 n=$2 dir="$W/$1-$2"
	mkdir -p "$dir"
	case $mode in
	record) set -- "$IOW" -d "$DEV" -D "$dir" -t t --summary -p $FIO ;;
	text) set -- "$IOW" -d "$DEV" -D "$dir" -t t --summary --live=text \
		-p $FIO ;;
	screen) set -- script -qfec "$IOW -d $DEV -D $dir -t t --summary \
		--live -p $FIO" /dev/null ;;
	esac
	start=$(date +%s.%N)
	"$@" > "$dir/stdout" 2> "$dir/stderr" &
	launcher=$!
	# iowatcher itself (under script in the screen mode)
	pid=
	while [ -z "$pid" ] && kill -0 $launcher 2>/dev/null; do
		if [ "$mode" = screen ]; then
			pid=$(ps -o pid= --ppid $launcher | head -n 1)
		else
			pid=$launcher
		fi
		[ -z "$pid" ] && sleep 0.01
	done
	perf stat -x, -e task-clock -p "$pid" -o "$dir/perf" 2>/dev/null &
	wait $launcher
	end=$(date +%s.%N)
	wait
	cpu_ms=$(sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1/p' "$dir/perf")
	out="$dir/stdout"
	[ "$mode" = record ] || out="$dir/t.out"
	iops=$(sed -n 's/.*read: IOPS=\([0-9.k]*\).*/\1/p' "$out" | head -n 1)
	# (script(1) puts the screen mode's stderr on its stdout)
	events=$(cat "$dir/stderr" "$dir/stdout" |
		sed -n 's/.*recorded \([0-9]*\) events.*/\1/p')
	lost=$(cat "$dir/stderr" "$dir/stdout" |
		sed -n 's/.*the kernel lost \([0-9]*\) events.*/\1/p')
	echo "${cpu_ms:-0} $start $end ${iops:-?} ${events:-?} ${lost:-0}"
}

printf '%-8s %4s %8s %8s %8s %10s %8s\n' mode run cpu_s wall_s core_% \
	events lost
for mode in ${BENCH_LIVE_MODES:-record text screen}; do
	i=1
	while [ $i -le "$RUNS" ]; do
		set -- $(run $mode $i)
		wall=$(echo "$3 - $2" | bc -l)
		printf '%-8s %4d %8.2f %8.2f %8.1f %10s %8s  fio %s IOPS\n' \
			$mode $i "$(echo "$1 / 1000" | bc -l)" "$wall" \
			"$(echo "$1 / 10 / $wall" | bc -l)" "$5" "$6" "$4"
		i=$((i + 1))
	done
done
for mode in text json screen; do
	printf 'replay %-6s ' $mode
	"$TOP/bench/live_replay" -m $mode "$W/record-1/t"
done
