#!/bin/sh
# bench/flight.sh: the flight recorder's capture and memory (issue #38).
# On bench/record.sh's device (a loop device on a 1 GiB file in
# /dev/shm, fio's random 4 KiB reads, --iodepth=32, libaio, direct):
#
#   window   --flight=30 with room for it all (--flight-mem 4G), fio for
#            SECONDS + 3 s, a SIGUSR1 at SECONDS + 1: the capture of a
#            full 30 s window, its events and how long it took to write
#            (the program's own line), the memory the records held at most
#            and the process's peak RSS (GNU time's)
#   bound    two fio jobs (the highest rate made here) for SECONDS + 3 s
#            under --flight-mem 64M: the bound holds (held at most <= 64
#            MiB), the process's peak RSS beside it
#
#   armed    the cost while armed and not firing (issue #38's target:
#            IOPS >= 0.85 of untraced): BENCH_FLIGHT_ROUNDS pairs (default
#            3) of fio's one job for ARMED_SECS (default 10 s) untraced,
#            then under --flight=30 --trigger 'd2c>1s' (the kernel's
#            trigger, never past here) --trigger 'p99(d2c)>1s' (the user
#            side's); the ratio per pair, the median, the machine's load
#
#   sh bench/flight.sh [SECONDS]    (root; default 30)
#
# The captures go to a directory in /dev/shm, removed at the end.
# BENCH_LOCK=FILE: trace under flock FILE (default the tests' lock);
# BENCH_FLIGHT_CASES (default "window bound armed").
# Exits 0 with "skipped: why" where it cannot run.
cd "$(dirname "$0")/.." || exit 1
IOW="$(pwd)/iowatcher"
SECS=${1:-30}
CASES=${BENCH_FLIGHT_CASES:-window bound armed}
ROUNDS=${BENCH_FLIGHT_ROUNDS:-3}
ARMED_SECS=${ARMED_SECS:-10}
LOCK=${BENCH_LOCK:-/tmp/iowatcher-tracing.lock}

for tool in fio losetup flock /usr/bin/time; do
	command -v $tool >/dev/null || { echo "skipped: $tool missing"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 0; }
[ -x "$IOW" ] || { echo "skipped: build iowatcher first (make)"; exit 0; }

W=$(mktemp -d /dev/shm/iow-bench-flight.XXXXXX) || exit 1
IMG=$(mktemp /dev/shm/iow-bench-flight-img.XXXXXX)
DEV=""
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$W" "$IMG"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
truncate -s 1G "$IMG"
DEV=$(losetup -f --show "$IMG") || exit 1
dd if=/dev/zero of="$DEV" bs=1M count=1024 oflag=direct status=none

RUN=$((SECS + 3))
fio_cmd() {
	echo "fio --name=r --filename=$DEV --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --direct=1 --numjobs=$1 --group_reporting --runtime=${2:-$RUN} --time_based --output-format=json --output=$W/fio.json"
}
iops() {
	python3 -c "import json,sys; print('%.0f' % json.load(open(sys.argv[1]))['jobs'][0]['read']['iops'])" "$W/fio.json"
}

echo "bench/flight.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

# window: a SIGUSR1 once SECONDS have been kept ($PPID: iowatcher)
case " $CASES " in *" window "*)
flock "$LOCK" /usr/bin/time -f 'peak RSS %M KiB' "$IOW" -d "$DEV" -D "$W" \
	-t win --flight="$SECS" --flight-mem 4G --after 1 \
	-p sh -c "$(fio_cmd 1) & sleep $((SECS + 1)); kill -USR1 \$PPID; wait" \
	> /dev/null 2> "$W/win.err"
echo "window: fio $(iops) IOPS (1 job)"
grep -E 'flight capture|flight recorder:|peak RSS' "$W/win.err"
ls -l "$W"/win-1.blktrace.* 2>/dev/null | awk '{ s += $5 } END { printf "window: capture files %.1f MiB\n", s / 1048576 }'
rm -f "$W"/win-1.blktrace.*
;; esac

# bound: the highest rate made here, a small bound
case " $CASES " in *" bound "*)
flock "$LOCK" /usr/bin/time -f 'peak RSS %M KiB' "$IOW" -d "$DEV" -D "$W" \
	-t bound --flight="$SECS" --flight-mem 64M \
	-p "$(fio_cmd 2)" > /dev/null 2> "$W/bound.err"
echo "bound: fio $(iops) IOPS (2 jobs)"
grep -E 'flight recorder:|peak RSS' "$W/bound.err"
;; esac

# armed: paired untraced and armed runs, the IOPS ratio per pair
case " $CASES " in *" armed "*)
ratios=""
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	$(fio_cmd 1 "$ARMED_SECS") > /dev/null 2>&1 || { echo "armed: fio failed"; exit 1; }
	u=$(iops)
	flock "$LOCK" "$IOW" -d "$DEV" -D "$W" -t armed --flight=30 \
		--trigger 'd2c>1s' --trigger 'p99(d2c)>1s' \
		-p "$(fio_cmd 1 "$ARMED_SECS")" > /dev/null 2> "$W/armed.err" ||
		{ echo "armed: iowatcher failed: $(tail -1 "$W/armed.err")"; exit 1; }
	a=$(iops)
	ratio=$(awk -v a="$a" -v u="$u" 'BEGIN { printf "%.3f", a / u }')
	ratios="$ratios $ratio"
	echo "armed: round $r: untraced $u IOPS, armed $a IOPS, ratio $ratio, load $(cut -d' ' -f1 /proc/loadavg)"
	grep 'flight recorder:' "$W/armed.err" | sed 's/^/armed:   /'
done
echo "armed: median ratio $(echo $ratios | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }') of$ratios"
;; esac
