#!/bin/sh
# bench/record.sh: what recording costs the workload it records (the
# observer effect), what it loses, and whether it counts right. On a
# loop device backed by a file in /dev/shm, fio's random 4 KiB reads
# (--iodepth=32 --ioengine=libaio --direct=1), in paired rounds (each
# traced run next to an untraced one, so that a busy moment of this
# shared machine hits both):
#
#   qd32      one job: traced IOPS / untraced IOPS per tracer (target
#             >= 0.70; 0.85 the moonshot)
#   2jobs     two jobs: the events lost (target 0), and the ratio too
#   rate50k   --rate_iops=50000: fio's completion-latency p99, traced
#             against untraced (target within 10%)
#   bufwrite  buffered 4 KiB writes (psync) to a file of ext4 on a second
#             loop device in /dev/shm: what the BPF recorder's program on
#             every dirtied page (the writeback's dirtier) costs
#
# and for every traced run iowatcher's own CPU time (user + system, not
# fio's) per million events, and whether the summary's I/O count equals
# fio's total_ios. Medians per tracer and case, with the machine's load.
#
#   sh bench/record.sh [SECONDS]     (root; default 10 s of fio a run)
#
# The trace goes to BENCH_RECORD_DIR (default a directory in /dev/shm:
# in RAM, as the device is; on this VM's disk the page cache's writeback
# took another 0.1-0.15 of the IOPS, paired runs 2026-11-24).
# Environment: BENCH_RECORD_ROUNDS=N (default 3), BENCH_RECORD_TRACERS
# (default "bpf bpf-kstacks bpf-nocauses ftrace", the ones that run
# here; blktrace is tried too when listed; bpf is the default recording,
# causes without stacks, bpf-kstacks adds --stacks kernel,
# bpf-ustacks --stacks user, bpf-nocauses --no-causes), BENCH_RECORD_CASES
# (default "qd32 2jobs rate50k bufwrite"), BENCH_LOCK=FILE (trace under
# flock FILE: other tracers wait).
# Exits 0 with "skipped: why" where it cannot run.
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
IOW="$TOP/iowatcher"
SECS=${1:-10}
ROUNDS=${BENCH_RECORD_ROUNDS:-3}
TRACERS=${BENCH_RECORD_TRACERS:-bpf bpf-kstacks bpf-nocauses ftrace}
CASES=${BENCH_RECORD_CASES:-qd32 2jobs rate50k bufwrite}
LOCK=${BENCH_LOCK:-/tmp/iowatcher-tracing.lock}

for tool in fio losetup python3 flock mkfs.ext4; do
	command -v $tool >/dev/null || { echo "skipped: $tool missing"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 0; }
[ -x "$IOW" ] || { echo "skipped: build iowatcher first (make)"; exit 0; }
[ -d /dev/shm ] || { echo "skipped: no /dev/shm"; exit 0; }

W=$(mktemp -d "${BENCH_RECORD_DIR:-/dev/shm}/iow-bench-record.XXXXXX") ||
	exit 1
IMG=$(mktemp /dev/shm/iow-bench-record-img.XXXXXX)
FSIMG=$(mktemp /dev/shm/iow-bench-record-fs.XXXXXX)
DEV="" FSDEV="" MNT="$W/mnt"
cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	[ -n "$FSDEV" ] && losetup -d "$FSDEV"
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$W" "$IMG" "$FSIMG"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
truncate -s 1G "$IMG"
DEV=$(losetup -f --show "$IMG") || exit 1
dd if=/dev/zero of="$DEV" bs=1M count=1024 oflag=direct status=none
# bufwrite's file system: 1 GiB of ext4, the file rewritten in place
truncate -s 1G "$FSIMG"
FSDEV=$(losetup -f --show "$FSIMG") || exit 1
mkfs.ext4 -q -F "$FSDEV" && mkdir -p "$MNT" && mount "$FSDEV" "$MNT" || exit 1

# the device a case traces
case_dev() {
	[ "$1" = bufwrite ] && echo "$FSDEV" || echo "$DEV"
}

# tracer_args TRACER: iowatcher's options for a row's tracer
tracer_args() {
	case $1 in
	bpf-kstacks) echo "--tracer bpf --stacks kernel";;
	bpf-ustacks) echo "--tracer bpf --stacks user";;
	bpf-nocauses) echo "--tracer bpf --no-causes";;
	# the flight recorder armed, never firing (no read of /dev/shm
	# takes a second), memory bound FLIGHT_MEM (default 256M)
	flight) echo "--flight=30 --flight-mem ${FLIGHT_MEM:-256M} --trigger d2c>1s";;
	*) echo "--tracer $1";;
	esac
}

# fio_cmd CASE OUTPUT: the workload of a case, its JSON to OUTPUT
fio_cmd() {
	jobs=1 rate=
	case $1 in
	2jobs) jobs=2;;
	rate50k) rate=--rate_iops=50000;;
	bufwrite)
		echo "fio --name=w --filename=$MNT/f --rw=write --bs=4k --size=512M --ioengine=psync --runtime=$SECS --time_based --output-format=json --output=$2"
		return;;
	esac
	echo "fio --name=r --filename=$DEV --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --direct=1 --numjobs=$jobs --group_reporting $rate --runtime=$SECS --time_based --output-format=json --output=$2"
}

# what fio's JSON says: iops, total_ios, clat p99 (us), of its reads or
# (bufwrite) its writes
fio_facts() {
	python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
j = j["read"] if j["read"]["total_ios"] else j["write"]
p = j.get("clat_ns", {}).get("percentile", {}).get("99.000000", 0)
print("%.0f %d %.1f" % (j["iops"], j["total_ios"], p / 1000.0))
PY
}

# the summary's read I/Os (all devices); a buffered write's are not
# fio's: "-"
summary_ios() {
	[ "$2" = bufwrite ] || [ ! -s "$1" ] && { echo -; return; }
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(x['read']['ios'] for t in d['traces'] for x in t['devices']))" "$1" 2>/dev/null || echo 0
}

RES="$W/results"
: > "$RES"

# run_untraced CASE ROUND
run_untraced() {
	eval "$(fio_cmd "$1" "$W/u.json")" > /dev/null 2>&1 || return
	set -- "$1" "$2" $(fio_facts "$W/u.json")
	echo "$1 none $2 $3 $4 $5 - - - - $(cut -d' ' -f1 /proc/loadavg)" >> "$RES"
}

# run_traced CASE ROUND TRACER
run_traced() {
	rm -f "$W"/t.blktrace.* "$W"/t.cause* "$W/t.json"
	# --flight writes no trace to summarise
	sum=--summary=json
	[ "$3" = flight ] && sum=
	# shellcheck disable=SC2046
	flock "$LOCK" "$IOW" -d "$(case_dev "$1")" -D "$W" -t t \
		$(tracer_args "$3") $sum \
		-p "$(fio_cmd "$1" "$W/t.json")" > "$W/t.sum" 2> "$W/t.err"
	if [ ! -s "$W/t.json" ]; then
		echo "$1 $3 $2: failed: $(tail -n 1 "$W/t.err")" >&2
		return
	fi
	line=$(grep '^iowatcher: recorded' "$W/t.err")
	events=$(echo "$line" | sed -nE 's/^iowatcher: recorded ([0-9]+) events.*/\1/p')
	if [ "$3" = flight ]; then
		line=$(grep '^iowatcher: flight recorder:' "$W/t.err")
		events=$(echo "$line" | sed -nE 's/.* ([0-9]+) records taken.*/\1/p')
		echo "$1 $3 $2: $line" >&2
	fi
	cpu=$(echo "$line" | sed -nE 's/.* ([0-9.]+) s of CPU[);].*/\1/p')
	lost=$(echo "$line" | sed -nE 's/.*lost (at least )?([0-9]+) events.*/\2/p')
	set -- "$1" "$3" "$2" $(fio_facts "$W/t.json") "${events:-0}" \
		"${cpu:-0}" "${lost:-0}" "$(summary_ios "$W/t.sum" "$1")"
	echo "$* $(cut -d' ' -f1 /proc/loadavg)" >> "$RES"
}

echo "bench/record.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -r), $ROUNDS rounds of $SECS s, traces in $W, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	for c in $CASES; do
		for t in $TRACERS; do
			run_untraced "$c" "$r"
			run_traced "$c" "$r" "$t"
		done
	done
done
run_untraced qd32 end	# every traced run between two untraced ones

# Each traced run against the mean of the untraced runs before and after
# it (in the same case), then medians per case and tracer.
python3 - "$RES" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cases = []
for r in rows:
    if r[0] not in cases and r[2] != "end":
        cases.append(r[0])
print("%-8s %-7s %7s %7s %6s %10s %10s %6s %9s %11s %6s %s" % (
    "case", "tracer", "IOPS", "untr.", "ratio", "clat p99", "untr. p99",
    "p99 x", "lost", "CPU s/Mev", "count", "load"))
for case in cases:
    seq = [r for r in rows if r[0] == case]
    tracers = []
    for r in seq:
        if r[1] != "none" and r[1] not in tracers:
            tracers.append(r[1])
    for t in tracers:
        ratios, p99x, lost, cpu, ok, iops, uiops, p99, up99, load = \
            [], [], [], [], [], [], [], [], [], []
        for i, r in enumerate(seq):
            if r[1] != t:
                continue
            near = [seq[j] for j in (i - 1, i + 1)
                    if 0 <= j < len(seq) and seq[j][1] == "none"]
            if not near:
                continue
            u = statistics.mean(float(x[3]) for x in near)
            up = statistics.mean(float(x[5]) for x in near)
            iops.append(float(r[3]))
            uiops.append(u)
            ratios.append(float(r[3]) / u)
            p99.append(float(r[5]))
            up99.append(up)
            p99x.append(float(r[5]) / up if up else 0)
            lost.append(int(r[8]))
            ev = int(r[6])
            cpu.append(float(r[7]) / (ev / 1e6) if ev else 0)
            ok.append(None if r[9] == "-" else r[9] == r[4])
            load.append(r[10])
        if not ratios:
            continue
        med = statistics.median
        print("%-8s %-7s %7.0f %7.0f %6.3f %10.1f %10.1f %6.3f %9d %11.3f %6s %s" % (
            case, t, med(iops), med(uiops), med(ratios), med(p99), med(up99),
            med(p99x), max(lost), med(cpu),
            "-" if None in ok else
            "ok" if all(ok) else "%d/%d" % (sum(ok), len(ok)),
            "-".join(load)))
        print("%-8s %-7s ratios %s" % ("", "", " ".join("%.3f" % x for x in ratios)))
PY
