#!/bin/sh
# bench/run.sh: the side-by-side benchmark. Times iowatcher against the
# I/O floor (cat), btt and the original iowatcher on the same traces, each
# run under /usr/bin/time -v for peak RSS, the tools taking turns (paired
# runs: one round runs every row once, so a busy moment hits them all),
# and prints per trace one table of medians plus the ratios the targets in
# bench/README.md are stated in. Every row and ratio names its trace. A
# "spawn floor" row times /usr/bin/true the same way: starting the
# process, time and timeout cost tens of milliseconds here, as much as
# cat's reading, so the time ratios are taken net of it.
#
#   sh bench/run.sh [TRACE_BASE]
#
# Without TRACE_BASE, the traces, in this order:
#   recorded  fio's random 4 KiB reads and sequential 128 KiB writes on a
#             loop device (bench/randread-seqwrite.fio), recorded through
#             iowatcher's own recorder; kept in BENCH_DIR, recorded again
#             when missing (root, fio and losetup needed; else skipped)
#   gen-mix   bench/gentrace --mix randread-seqwrite: its imitation, the
#             main figure where no recording can be made
#   gen       bench/gentrace -n BENCH_EVENTS --merges: many processes
#   gen-big   10x gen, for the memory-flatness check (if the disk has room)
# With TRACE_BASE, only that trace (its NAME.blktrace.* files). Environment:
#   BENCH_DIR=DIR       where the recorded trace is kept (default bench/data)
#   BENCH_REAL=0        neither use nor record the recorded trace
#   BENCH_READ_SIZE=S   fio's reads when recording (default 1080000k:
#                       270,000 reads, about 2.6M events with the writes)
#   BENCH_LOCK=FILE     record under flock FILE (a tracer shared with
#                       others: the kernel has one ftrace blk tracer)
#   BENCH_MIX_EVENTS=N  events of gen-mix (default 2600000; 0: no gen-mix)
#   BENCH_EVENTS=N      events of gen (default 2000000; 0: no gen, gen-big)
#   BENCH_BIG=0|1       gen-big: 0 never, 1 always (default: if disk)
#   BENCH_BIG_ORIG=1    also run the original iowatcher on gen-big
#                       (slow: 334 s and 985 MB measured on 20M events;
#                       its time limit is 900 s unless BENCH_TIMEOUT is set)
#   BENCH_TAGGER=0      skip the tagger rows
#   BENCH_BROWSER=0     skip the report's rows in chromium
#   BENCH_MOVIE=0       skip the movie rows (BENCH_MOVIE_ORIG=1: also the
#                       original's movie of the CentOS trace, minutes)
#   BENCH_RUNS=N        paired runs per trace (default 5; gen-big: 1);
#                       the median wall time and the highest RSS are kept
#   BENCH_TIMEOUT=S     give up on one run after S seconds (default 300)
#   BENCH_SEED=N        gentrace seed (default 1)
#   BENCH_RICH=1        gen and gen-big also have cache flushes, split
#                       bios and discards (gentrace --flushes --splits
#                       --discards), as real filesystems' traces do
# Exits 0 even when tools are missing: their rows say "skipped: why".

cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
IOW="$TOP/iowatcher"
GENTRACE="$TOP/bench/gentrace"
ORIG=/usr/bin/iowatcher
TIME=/usr/bin/time
EVENTS=${BENCH_EVENTS:-2000000}
MIX_EVENTS=${BENCH_MIX_EVENTS:-2600000}
RUNS=${BENCH_RUNS:-5}
TIMEOUT=${BENCH_TIMEOUT:-300}
SEED=${BENCH_SEED:-1}
GEN_OPTS="--merges"
[ "${BENCH_RICH:-0}" = 1 ] && GEN_OPTS="--merges --flushes --splits --discards"
OUR_GRAPHS="-O io -O tput -O latency -O queue-depth -O iops"
ORIG_GRAPHS="-O io -O tput -O latency -O queue_depth -O iops"
REAL_NAME=randread-seqwrite
REAL_JOB="$TOP/bench/$REAL_NAME.fio"
REAL_DIR=${BENCH_DIR:-$TOP/bench/data}
READ_SIZE=${BENCH_READ_SIZE:-1080000k}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iow-bench.XXXXXX") || exit 1
# What a recording holds while it runs: let go of it on any exit.
LOOP_DEV="" LOOP_IMG="" REC_DIR=""
cleanup() {
	[ -n "$LOOP_DEV" ] && losetup -d "$LOOP_DEV" 2> /dev/null
	[ -n "$LOOP_IMG" ] && rm -f "$LOOP_IMG"
	[ -n "$REC_DIR" ] && rm -rf "$REC_DIR"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
trap 'exit 141' PIPE	# e.g. piped into head: still clean up
# Tools run from here: the original iowatcher leaves *_fp.dat files behind.
cd "$WORK" || exit 1
RESULTS="$WORK/results"	# name|median_ns|rss_kb|records|min_ns, a row a line
RUNS_LOG="$WORK/runs"	# name|wall_ns|rss_kb|round, a run a line
ROUND=0			# rounds so far: the runs of one round share it
: > "$RESULTS"
: > "$RUNS_LOG"

say() { printf '%s\n' "$*"; }
have() { command -v "$1" > /dev/null 2>&1; }

if [ ! -x "$TIME" ]; then
	say "run.sh: $TIME is missing (Debian package 'time'); cannot measure"
	exit 0
fi

now_ns() { date +%s%N; }
secs() { awk -v d="$1" 'BEGIN { printf "%.3f", d / 1e9 }'; }

# The first non-empty line of a file, printable characters only.
first_line() {
	tr -cd '[:print:]\n' < "$1" | grep -v '^$' | head -n 1 | cut -c 1-100
}

row_skip() {
	r_name=$1
	shift
	printf '%-44s skipped: %s\n' "$r_name" "$*"
}

# ---- one timed run ----

# time_once NAME KIND BASE: runs KIND's command on trace BASE once under
# time -v (stdout to /dev/null) and logs "NAME|wall_ns|rss_kb". On a
# failure prints the row's skip line and returns 1.
time_once() {
	t_name=$1 t_kind=$2 t_base=$3
	case "$t_kind" in
	floor)	set -- true;;
	cat)	set -- cat "$t_base".blktrace.*;;
	cat10)	set -- cat
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			set -- "$@" "$t_base".blktrace.*
		done;;
	json)	set -- "$IOW" -t "$t_base" --summary=json;;
	text)	set -- "$IOW" -t "$t_base" --summary;;
	btt)	set -- btt -i "$t_base.dump";;
	orig)	set -- "$ORIG" -t "$t_base" -o "$WORK/orig.svg" $ORIG_GRAPHS;;
	svg)	set -- "$IOW" -t "$t_base" -o "$WORK/ours.svg" $OUR_GRAPHS;;
	html)	set -- "$IOW" -t "$t_base" -o "$WORK/ours.html" $OUR_GRAPHS;;
	dump)	set -- blkparse -i "$t_base" -d "$t_base.dump" -O;;
	tag-example)
		set -- "$IOW" -t "$t_base" --summary \
			-T "$TOP/scripts/tag-example";;
	tag-by-pid)
		set -- "$IOW" -t "$t_base" --summary -T tag-by-pid;;
	movie)	set -- "$IOW" -t "$t_base" --movie -w 1216 -h 714 --fps 20 \
			$MOVIE_OPTS -o "$WORK/movie.mp4";;
	orig-movie)
		set -- "$ORIG" -t "$t_base" --movie -o "$WORK/orig.mp4";;
	esac
	t_t0=$(now_ns)
	"$TIME" -v -o "$WORK/time.txt" timeout -k 10 "$TIMEOUT" \
		"$@" > /dev/null 2> "$WORK/stderr.txt"
	t_rc=$?
	t_t1=$(now_ns)
	if [ "$t_rc" = 124 ]; then
		row_skip "$t_name" "timed out after ${TIMEOUT}s (BENCH_TIMEOUT)"
		return 1
	fi
	if [ "$t_rc" != 0 ]; then
		row_skip "$t_name" "exit $t_rc:" "$(first_line "$WORK/stderr.txt")"
		return 1
	fi
	t_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' \
		"$WORK/time.txt")
	echo "$t_name|$((t_t1 - t_t0))|${t_kb:-0}|$ROUND" >> "$RUNS_LOG"
}

# ---- paired runs ----

# rounds N BASE RECORDS NAME=KIND...: runs every row once per round, N
# rounds, then prints each row's median and best wall time, events a
# second at the median, and its highest peak RSS. A row that fails once
# is dropped from the later rounds.
rounds() {
	p_n=$1 p_base=$2 p_records=$3
	shift 3
	: > "$WORK/dropped"
	p_i=0
	while [ "$p_i" -lt "$p_n" ]; do
		p_i=$((p_i + 1))
		ROUND=$((ROUND + 1))
		for p_row in "$@"; do
			p_name=${p_row%=*}
			grep -qxF "$p_name" "$WORK/dropped" && continue
			time_once "$p_name" "${p_row##*=}" "$p_base" ||
				echo "$p_name" >> "$WORK/dropped"
		done
	done
	for p_row in "$@"; do
		p_name=${p_row%=*}
		grep -qxF "$p_name" "$WORK/dropped" && continue
		summarize "$p_name" "$p_records"
	done
}

# summarize NAME RECORDS: NAME's runs into one result row, printed.
summarize() {
	awk -F'|' -v n="$1" '$1 == n { print $2, $3 }' "$RUNS_LOG" |
		sort -n | awk -v n="$1" -v ev="$2" -v out="$RESULTS" '
		{ w[NR] = $1; if ($2 > kb) kb = $2 }
		END {
			if (NR == 0) exit
			if (n ~ /^cat x10 /)
				ev *= 10	# ten passes over the trace
			med = (NR % 2) ? w[(NR + 1) / 2] : \
			      (w[NR / 2] + w[NR / 2 + 1]) / 2
			printf "%s|%.0f|%d|%d|%.0f\n", n, med, kb, ev, w[1] >> out
			s = med / 1e9
			printf "%-44s %8.3f %8.3f %11s %7.1f %3d\n", n, s,
			    w[1] / 1e9, (ev > 0 && s > 0 &&
			    n !~ /^spawn floor/) ? \
			    sprintf("%.0f", ev / s) : "-", kb / 1024, NR
		}'
}

header() {
	say ""
	say "== $1"
	printf '%-44s %8s %8s %11s %7s %3s\n' "tool (trace)" "median s" \
		"best s" "events/s" "RSS MB" "n"
}

# ---- the ratios ----

# field NAME COLUMN: a result row's value (2 = median wall ns, 3 = RSS KiB).
field() {
	awk -F'|' -v n="$1" -v c="$2" '$1 == n { print $c }' "$RESULTS"
}

# combine NAME ROW1 ROW2: a row for running both: walls add, RSS is max.
combine() {
	c_a=$(field "$2" 2) c_b=$(field "$3" 2)
	[ -n "$c_a" ] && [ -n "$c_b" ] || return 0
	c_ra=$(field "$2" 3) c_rb=$(field "$3" 3)
	[ "$c_ra" -gt "$c_rb" ] || c_ra=$c_rb
	echo "$1|$((c_a + c_b))|$c_ra|$(field "$2" 4)|0" >> "$RESULTS"
}

# paired_ratio NUM_ROW DEN_ROW: the median, over the rounds that ran both
# rows, of NUM's time over DEN's, each net of FLOOR_NS, DEN's divided by
# DEN_SCALE (the passes it makes); empty if none.
paired_ratio() {
	awk -F'|' -v a="$1" -v b="$2" -v f="${FLOOR_NS:-0}" \
	    -v s="${DEN_SCALE:-1}" '
		$1 == a { x[$4] = $2 - f }
		$1 == b { y[$4] = ($2 - f) / s }
		END {
			for (k in x)
				if ((k in y) && y[k] > 0)
					r[++n] = x[k] / y[k]
			if (!n) exit
			for (i = 2; i <= n; i++)	# insertion sort
				for (j = i; j > 1 && r[j] < r[j - 1]; j--) {
					t = r[j]; r[j] = r[j - 1]; r[j - 1] = t
				}
			med = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			printf "%.6f\n", med
		}' "$RUNS_LOG"
}

# ratio LABEL NUM_ROW DEN_ROW COLUMN [OP TARGET [MOONSHOT]]: NUM/DEN.
# RSS (column 3): the highest peaks'. Time (column 2): paired_ratio, or
# for rows never run in one round, the ratio of their medians, net of
# FLOOR_NS too.
ratio() {
	r_num=$(field "$2" "$4") r_den=$(field "$3" "$4")
	if [ -z "$r_num" ] || [ -z "$r_den" ]; then
		printf '%-52s skipped: a row is missing\n' "$1"
		return
	fi
	r_val=""
	if [ "$4" = 2 ]; then
		r_val=$(paired_ratio "$2" "$3")
		r_num=$((r_num - ${FLOOR_NS:-0}))
		r_den=$(((r_den - ${FLOOR_NS:-0}) / ${DEN_SCALE:-1}))
	fi
	awk -v l="$1" -v a="$r_num" -v b="$r_den" -v op="$5" -v t="$6" \
	    -v m="$7" -v p="$r_val" '
	function verdict(x) {
		if (op == ">=") return (r >= x) ? "met" : "MISSED"
		return (r <= x) ? "met" : "MISSED"
	}
	BEGIN {
		if (p == "" && b <= 0) {
			printf "%-52s n/a (not above the floor)\n", l
			exit
		}
		r = (p != "") ? p : a / b
		printf "%-52s %7.2fx", l, r
		if (op != "") printf "   (target %s %sx: %s", op, t, verdict(t)
		if (op != "" && m != "")
			printf "; moonshot %sx: %s", m, verdict(m)
		if (op != "") printf ")"
		printf "\n"
	}'
}

# floor_of L: sets FLOOR_NS to trace L's spawn floor, the best of its
# runs: a fixed cost, which the noise of a busy machine only adds to
# (empty if there is none).
floor_of() {
	FLOOR_NS=$(field "spawn floor ($1)" 5)
}

# ratios L: the targets of bench/README.md on trace L's rows.
ratios() {
	floor_of "$1"
	say ""
	say "== ratios on $1 (time: median of the rounds' ratios, net of" \
	    "the spawn floor, $(secs "${FLOOR_NS:-0}") s; RSS: of the peaks)"
	ratio "btt / iowatcher --summary, time ($1)" "btt ($1)" \
		"iowatcher --summary=json ($1)" 2 ">=" 5
	# cat's own time is about the floor's: ten passes in one run
	# weigh it, not the noise in starting a process.
	DEN_SCALE=10
	ratio "iowatcher --summary / cat, time ($1)" \
		"iowatcher --summary=json ($1)" "cat x10 ($1)" 2 "<=" 5 3
	DEN_SCALE=""
	r_floor=$FLOOR_NS
	FLOOR_NS=""
	ratio "iowatcher --summary / cat, floor included ($1)" \
		"iowatcher --summary=json ($1)" "cat ($1)" 2
	FLOOR_NS=$r_floor
	ratio "orig-iowatcher / ours svg, time ($1)" \
		"orig-iowatcher svg ($1)" "iowatcher svg ($1)" 2 ">=" 5
	ratio "orig-iowatcher / ours svg, RSS ($1)" \
		"orig-iowatcher svg ($1)" "iowatcher svg ($1)" 3 ">=" 4
	combine "orig-iowatcher + dump ($1)" "orig-iowatcher svg ($1)" \
		"blkparse -d dump ($1)"
	ratio "orig-iowatcher incl. its blkparse / ours ($1)" \
		"orig-iowatcher + dump ($1)" "iowatcher svg ($1)" 2
	ratio "iowatcher html / svg, time ($1)" "iowatcher html ($1)" \
		"iowatcher svg ($1)" 2 "<=" 2
}

file_mb() {
	awk -v b="$(wc -c < "$1")" 'BEGIN { printf "%.2f", b / 1048576 }'
}

# bench_browser LABEL BASE: the report of LABEL in Debian's chromium,
# headless (tests/report_check.js): when its graphs are drawn after the
# page opens, how long a zoom takes to redraw every graph (a drag on the
# throughput graph, then a 20 ms window), measured in the page.
bench_browser() {
	w_label=$1 w_base=$2
	header "the report in chromium, on $w_label (measured in the page)"
	if [ ! -x /usr/bin/chromium ] || ! have node ||
	   [ ! -d "$TOP/web/node_modules/puppeteer-core" ]; then
		row_skip "report in chromium ($w_label)" \
			"needs /usr/bin/chromium, node and web/node_modules (make web-deps)"
		return
	fi
	"$IOW" -t "$w_base" -o "$WORK/browser.html" $OUR_GRAPHS 2> /dev/null ||
		{ row_skip "report in chromium ($w_label)" "iowatcher failed"; return; }
	w_mid=$(json_number "$w_base" duration_s | awk '{ printf "%.3f", $1 / 2 }')
	cat > "$WORK/spec.json" <<EOF
[ { "name": "$w_label", "report": "$WORK/browser.html", "drag": "tput",
    "zoom20": ${w_mid:-1}, "budget": { "paint_ms": 1000, "redraw_ms": 50 } } ]
EOF
	for w_i in 1 2 3; do
		node "$TOP/tests/report_check.js" "$WORK/spec.json" 2>&1 |
			grep -E '^(info|FAIL)|within' | sed "s/^/  run $w_i: /"
	done
	rm -f "$WORK/browser.html" "$WORK/spec.json"
}

# ---- traces ----

# Counts a trace's records from its files: 48 bytes each (64 for v8);
# notes carry a payload too, so this is a close upper estimate.
count_records() {
	c_bytes=$(cat "$1".blktrace.* | wc -c)
	c_magic=$(od -A n -t x1 -N 4 "$1.blktrace.0" | tr -d ' ')
	case "$c_magic" in
	*08|08*) echo $((c_bytes / 64));;
	*) echo $((c_bytes / 48));;
	esac
}

# json_number TRACE KEY: the first number named KEY in TRACE's
# --summary=json; empty on failure.
json_number() {
	"$IOW" -t "$1" --summary=json 2> /dev/null |
		grep -o "\"$2\": *[0-9.]*" | head -n 1 | sed 's/.*: *//'
}

# Records (events and notes) as iowatcher reads them; empty on failure.
json_records() {
	j_events=$(json_number "$1" events)
	[ -n "$j_events" ] || return 0
	echo $((j_events + $(json_number "$1" notes)))
}

# link_trace BASE NAME: links BASE.blktrace.* into the work directory as
# NAME.blktrace.*, so the dump and the original's side files land there.
link_trace() {
	for l_f in "$1".blktrace.*; do
		ln -s "$(cd "$(dirname "$l_f")" && pwd)/$(basename "$l_f")" \
			"$WORK/$2.blktrace.${l_f##*.blktrace.}" || return 1
	done
}

# generate BASE N OPTS...: writes a gentrace trace; prints its records.
generate() {
	g_base=$1 g_n=$2
	shift 2
	"$GENTRACE" -o "$g_base" -n "$g_n" -s "$SEED" "$@" \
		2> "$g_base.gentrace" || return 1
	sed -n 's/^gentrace: .*: \([0-9]*\) events.*/\1/p' "$g_base.gentrace"
}

ensure_gentrace() {
	[ -x "$GENTRACE" ] && return 0
	(cd "$TOP" && make -s bench/gentrace > /dev/null 2>&1) &&
		[ -x "$GENTRACE" ]
}

# ---- the recorded trace ----

# Why the trace cannot be recorded here; empty when it can.
record_obstacle() {
	[ "$(id -u)" = 0 ] || { echo "needs root (it traces a loop device)"; return; }
	have fio || { echo "fio not installed"; return; }
	have losetup || { echo "losetup not installed"; return; }
	[ -x "$IOW" ] || { echo "iowatcher not built (make iowatcher)"; return; }
	[ -f "$REAL_JOB" ] || { echo "$REAL_JOB is missing"; return; }
	if [ -n "$BENCH_LOCK" ] && ! have flock; then
		echo "BENCH_LOCK is set but flock is not installed"
	fi
}

# A place for the loop device's 256 MiB backing file: RAM when there is
# room (the trace then shows the block layer, not this machine's disk).
image_dir() {
	if [ -d /dev/shm ] && [ -w /dev/shm ] &&
	   [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 524288 ]
	then
		echo /dev/shm
	else
		echo "$REAL_DIR"
	fi
}

# record_real: records REAL_DIR/REAL_NAME.blktrace.* through iowatcher's
# recorder (blktrace, else the kernel's ftrace blk tracer) while fio runs
# the job on a fresh loop device; mq-deadline so that every request shows
# Q G I D C. Files move into place only when all went well. Prints why not
# on failure.
record_real() {
	mkdir -p "$REAL_DIR" 2> /dev/null ||
		{ echo "cannot create $REAL_DIR"; return 1; }
	REC_DIR=$(mktemp -d "$REAL_DIR/.recording.XXXXXX") ||
		{ echo "cannot write in $REAL_DIR"; return 1; }
	LOOP_IMG=$(mktemp "$(image_dir)/iow-bench-img.XXXXXX") &&
		truncate -s 256M "$LOOP_IMG" ||
		{ echo "cannot make a 256 MiB backing file"; return 1; }
	r_dio="direct-io"
	LOOP_DEV=$(losetup -f --show --direct-io=on "$LOOP_IMG" 2> /dev/null)
	if [ -z "$LOOP_DEV" ]; then
		r_dio="buffered (losetup refused --direct-io=on)"
		LOOP_DEV=$(losetup -f --show "$LOOP_IMG" 2> "$REC_DIR/err") || {
			echo "losetup: $(first_line "$REC_DIR/err")"
			LOOP_DEV=""
			return 1
		}
	fi
	r_sched=/sys/block/${LOOP_DEV#/dev/}/queue/scheduler
	echo mq-deadline 2> /dev/null > "$r_sched"
	set -- "$IOW" -d "$LOOP_DEV" -D "$REC_DIR" --summary \
		-p fio --output="$REC_DIR/fio.out" "$REAL_JOB"
	[ -n "$BENCH_LOCK" ] && set -- flock "$BENCH_LOCK" "$@"
	r_t0=$(now_ns)
	(cd "$REC_DIR" && IOW_DEV=$LOOP_DEV IOW_READ_SIZE=$READ_SIZE "$@") \
		> "$REC_DIR/record.txt" 2>&1
	r_rc=$?
	r_t1=$(now_ns)
	losetup -d "$LOOP_DEV"
	LOOP_DEV=""
	rm -f "$LOOP_IMG"
	LOOP_IMG=""
	r_rec=$(ls "$REC_DIR"/*.blktrace.0 2> /dev/null | head -n 1)
	r_rec=${r_rec%.blktrace.0}
	if [ "$r_rc" != 0 ] || [ -z "$r_rec" ]; then
		echo "recording failed (exit $r_rc):" \
			"$(grep -m1 '^iowatcher:' "$REC_DIR/record.txt" ||
			   first_line "$REC_DIR/record.txt")"
		return 1
	fi
	r_records=$(json_records "$r_rec")
	if [ -z "$r_records" ]; then
		echo "iowatcher cannot read what it recorded"
		return 1
	fi
	rm -f "$REAL_DIR/$REAL_NAME".blktrace.*
	for r_f in "$r_rec".blktrace.*; do
		mv "$r_f" "$REAL_DIR/$REAL_NAME.blktrace.${r_f##*.blktrace.}"
	done
	mv "$REC_DIR/fio.out" "$REAL_DIR/$REAL_NAME.fio-output" 2> /dev/null
	{
		say "recorded $(date -u '+%Y-%m-%d %H:%M UTC') in" \
		    "$(secs $((r_t1 - r_t0))) s, $(uname -sr), $(nproc) CPUs"
		say "device: a loop device over a file in $(image_dir)," \
		    "$r_dio, mq-deadline"
		say "fio $(fio --version 2> /dev/null), IOW_READ_SIZE=$READ_SIZE"
		say "records: $r_records"
		grep '^iowatcher:' "$REC_DIR/record.txt"
	} > "$REAL_DIR/$REAL_NAME.txt"
	rm -rf "$REC_DIR"
	REC_DIR=""
	return 0
}

# ---- one trace's rows ----

# bench_trace LABEL BASE RECORDS RUNS WITH_ORIG DESCRIPTION: every row on
# one trace: the dump once, then cat, --summary=json, btt, the original
# iowatcher's SVG and ours, taking turns for RUNS rounds.
bench_trace() {
	b_label=$1 b_base=$2 b_records=$3 b_runs=$4 b_orig=$5 b_desc=$6
	b_mib=$(($(cat "$b_base".blktrace.* | wc -c) / 1048576))
	b_files=$(ls "$b_base".blktrace.* | wc -l)
	b_rounds="medians of $b_runs paired runs"
	[ "$b_runs" = 1 ] && b_rounds="one run"
	header "$b_label: $b_desc; $b_records records, $b_mib MiB, $b_files CPU files; $b_rounds"
	cat "$b_base".blktrace.* > /dev/null	# warm the page cache

	if have blkparse; then
		rounds 1 "$b_base" "$b_records" "blkparse -d dump ($b_label)=dump"
	else
		row_skip "blkparse -d dump ($b_label)" "blkparse not installed"
	fi
	set -- "spawn floor ($b_label)=floor" "cat ($b_label)=cat" \
		"cat x10 ($b_label)=cat10"
	if [ -x "$IOW" ]; then
		set -- "$@" "iowatcher --summary=json ($b_label)=json"
	else
		row_skip "iowatcher --summary=json ($b_label)" \
			"iowatcher: not built (make iowatcher)"
	fi
	if ! have btt; then
		row_skip "btt ($b_label)" "btt not installed"
	elif [ ! -s "$b_base.dump" ]; then
		row_skip "btt ($b_label)" "no blkparse dump to read"
	else
		set -- "$@" "btt ($b_label)=btt"
	fi
	if [ "$b_orig" != 1 ]; then
		row_skip "orig-iowatcher svg ($b_label)" \
			"slow on big traces; BENCH_BIG_ORIG=1 runs it"
	elif [ ! -x "$ORIG" ]; then
		row_skip "orig-iowatcher svg ($b_label)" "$ORIG not installed"
	elif [ ! -s "$b_base.dump" ]; then
		row_skip "orig-iowatcher svg ($b_label)" \
			"no blkparse dump (it would make one itself, untimed)"
	else
		set -- "$@" "orig-iowatcher svg ($b_label)=orig"
	fi
	if [ -x "$IOW" ]; then
		set -- "$@" "iowatcher svg ($b_label)=svg" \
			"iowatcher html ($b_label)=html"
	else
		row_skip "iowatcher svg ($b_label)" "iowatcher: not built"
	fi
	# Asked for on the big trace the original needs its time: 334 s on 20M.
	b_timeout=$TIMEOUT
	[ "$b_label" = gen-big ] && [ -z "$BENCH_TIMEOUT" ] && TIMEOUT=900
	rounds "$b_runs" "$b_base" "$b_records" "$@"
	TIMEOUT=$b_timeout
	[ -s "$WORK/ours.html" ] && say "$(printf '%-44s' "file sizes ($b_label)") svg" \
		"$(file_mb "$WORK/ours.svg") MB, html $(file_mb "$WORK/ours.html") MB" \
		"(target: html <= 5 MB)"
	rm -f "$b_base.dump" "$WORK/orig.svg" "$WORK/ours.svg" \
		"$WORK/ours.html" "$WORK"/*_fp.dat
}

# bench_taggers LABEL BASE RECORDS RUNS: untagged --summary and the two
# taggers, taking turns.
bench_taggers() {
	t_label=$1 t_base=$2 t_records=$3 t_runs=$4
	header "tagging, on $t_label; medians of $t_runs paired runs"
	if [ ! -x "$IOW" ]; then
		row_skip "iowatcher tagging ($t_label)" "iowatcher: not built"
		return
	fi
	set -- "iowatcher --summary ($t_label)=text"
	if [ -x "$TOP/scripts/tag-example" ]; then
		set -- "$@" "iowatcher -T tag-example ($t_label)=tag-example"
	else
		row_skip "iowatcher -T tag-example ($t_label)" \
			"scripts/tag-example not built"
	fi
	# tag-by-pid may be a script or built in: try it, report why not.
	set -- "$@" "iowatcher -T tag-by-pid ($t_label)=tag-by-pid"
	rounds "$t_runs" "$t_base" "$t_records" "$@"
	floor_of "$t_label"
	ratio "tag-example / untagged --summary, time ($t_label)" \
		"iowatcher -T tag-example ($t_label)" \
		"iowatcher --summary ($t_label)" 2 "<=" 2
	ratio "tag-by-pid / untagged --summary, time ($t_label)" \
		"iowatcher -T tag-by-pid ($t_label)" \
		"iowatcher --summary ($t_label)" 2
}

# Frames of a default-length movie: 20 a second of trace, 10 to 60 s.
movie_frames() {
	json_number "$1" duration_s | awk '{ d = $1
		if (d < 10) d = 10; if (d > 60) d = 60; printf "%d", d * 20 }'
}

say "iowatcher benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
    "$(uname -sr), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null |
			 sed 's/.*: //')"
# Others' work skews every row: the load says how much there was.
say "load average: $(cut -d ' ' -f 1-3 /proc/loadavg 2> /dev/null)"

MAIN_LABEL="" MAIN="" MAIN_RECORDS=""
# main_is LABEL BASE RECORDS: the first trace measured is the one the
# tagging and movie rows use.
main_is() {
	[ -n "$MAIN_LABEL" ] && return
	MAIN_LABEL=$1 MAIN=$2 MAIN_RECORDS=$3
}

BIG=""
if [ -n "$1" ]; then
	if ! ls "$1".blktrace.* > /dev/null 2>&1; then
		say "run.sh: no $1.blktrace.* files"
		exit 1
	fi
	u_label=$(basename "$1")
	link_trace "$1" "$u_label" || exit 1
	u_records=$(count_records "$WORK/$u_label")
	bench_trace "$u_label" "$WORK/$u_label" "$u_records" "$RUNS" 1 \
		"$1 (records estimated from file sizes)"
	ratios "$u_label"
	main_is "$u_label" "$WORK/$u_label" "$u_records"
	[ "${BENCH_BIG:-0}" = 1 ] &&
		say "trace gen-big: skipped: the 10x flatness check uses generated traces"
else
	# The recorded trace, recorded first if it is missing.
	say ""
	REAL="$REAL_DIR/$REAL_NAME"
	if [ "${BENCH_REAL:-1}" = 0 ]; then
		say "trace recorded: skipped: BENCH_REAL=0"
		REAL=""
	elif [ ! -s "$REAL.blktrace.0" ]; then
		why=$(record_obstacle)
		if [ -z "$why" ]; then
			say "trace recorded: $REAL.blktrace.* missing: recording" \
			    "it (fio for 10-20 s; BENCH_READ_SIZE=$READ_SIZE)"
			record_real > "$WORK/why" || why=$(cat "$WORK/why")
		fi
		if [ -n "$why" ]; then
			say "trace recorded: skipped: $why; gen-mix, its" \
			    "imitation, stands in for it"
			REAL=""
		fi
	fi
	if [ -n "$REAL" ]; then
		r_records=$(json_records "$REAL")
		[ -n "$r_records" ] || r_records=$(count_records "$REAL")
		say "trace recorded: $REAL.blktrace.*, bench/$REAL_NAME.fio"
		sed 's/^/  /' "$REAL.txt" 2> /dev/null
		if link_trace "$REAL" recorded; then
			bench_trace recorded "$WORK/recorded" "$r_records" \
				"$RUNS" 1 "fio's randread 4k QD16 + seqwrite 128k QD4 on a loop device"
			ratios recorded
			main_is recorded "$WORK/recorded" "$r_records"
		fi
	fi

	if ! ensure_gentrace; then
		say "trace gen-mix, gen, gen-big: skipped: bench/gentrace is" \
		    "not built and make failed"
		EVENTS=0 MIX_EVENTS=0
	fi
	if [ "$MIX_EVENTS" != 0 ]; then
		t0=$(now_ns)
		if m_records=$(generate "$WORK/gen-mix" "$MIX_EVENTS" \
				--mix randread-seqwrite); then
			say ""
			say "trace gen-mix: gentrace -n $MIX_EVENTS -s $SEED" \
			    "--mix randread-seqwrite: $m_records records in" \
			    "$(secs $(($(now_ns) - t0))) s"
			bench_trace gen-mix "$WORK/gen-mix" "$m_records" \
				"$RUNS" 1 "gentrace --mix randread-seqwrite"
			ratios gen-mix
			main_is gen-mix "$WORK/gen-mix" "$m_records"
		else
			say "trace gen-mix: skipped: gentrace failed:" \
			    "$(first_line "$WORK/gen-mix.gentrace")"
		fi
	fi
	if [ "$EVENTS" != 0 ]; then
		t0=$(now_ns)
		if g_records=$(generate "$WORK/gen" "$EVENTS" $GEN_OPTS); then
			say ""
			say "trace gen: gentrace -n $EVENTS -s $SEED $GEN_OPTS:" \
			    "$g_records records in $(secs $(($(now_ns) - t0))) s"
			bench_trace gen "$WORK/gen" "$g_records" "$RUNS" 1 \
				"gentrace $GEN_OPTS (8 kinds of process, 2 devices)"
			ratios gen
			main_is gen "$WORK/gen" "$g_records"
		else
			say "trace gen: skipped: gentrace failed:" \
			    "$(first_line "$WORK/gen.gentrace")"
			EVENTS=0
		fi
	fi
	BIG_EVENTS=$((EVENTS * 10))
	# 48 bytes a record, twice over (trace and dump), plus a margin.
	need_kb=$((BIG_EVENTS / 1024 * 48 * 2 + 262144))
	avail_kb=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
	case "${BENCH_BIG:-auto}" in
	0) BIG="skipped: BENCH_BIG=0";;
	*) if [ "$EVENTS" = 0 ]; then
		BIG="skipped: no gen trace (BENCH_EVENTS=0)"
	   elif [ "${BENCH_BIG:-auto}" = 1 ] ||
		[ "${avail_kb:-0}" -ge "$need_kb" ]; then
		BIG=yes
	   else
		BIG="skipped: needs $((need_kb / 1024)) MiB free in $WORK"
	   fi;;
	esac
fi

if [ "${BENCH_BROWSER:-1}" != 0 ] && [ -n "$MAIN_LABEL" ]; then
	bench_browser "$MAIN_LABEL" "$MAIN"
fi
if [ "${BENCH_TAGGER:-1}" != 0 ] && [ -n "$MAIN_LABEL" ]; then
	bench_taggers "$MAIN_LABEL" "$MAIN" "$MAIN_RECORDS" "$RUNS"
fi
# gen-mix and gen are done with unless tagging used them.
for f in gen-mix gen; do
	[ "$MAIN_LABEL" = "$f" ] || rm -f "$WORK/$f".blktrace.*
done

if [ "$BIG" = yes ]; then
	t0=$(now_ns)
	if BIG_RECORDS=$(generate "$WORK/gen-big" "$BIG_EVENTS" $GEN_OPTS); then
		say ""
		say "trace gen-big: gentrace -n $BIG_EVENTS -s $SEED $GEN_OPTS:" \
		    "$BIG_RECORDS records in $(secs $(($(now_ns) - t0))) s"
		bench_trace gen-big "$WORK/gen-big" "$BIG_RECORDS" 1 \
			"${BENCH_BIG_ORIG:-0}" "gen, 10x the events"
		ratio "iowatcher --summary RSS, gen-big / gen" \
			"iowatcher --summary=json (gen-big)" \
			"iowatcher --summary=json (gen)" 3 "<=" 1.25
		ratio "iowatcher svg RSS, gen-big / gen" \
			"iowatcher svg (gen-big)" "iowatcher svg (gen)" 3 "<=" 1.25
		floor_of gen-big
		ratio "btt / iowatcher --summary, time (gen-big)" \
			"btt (gen-big)" "iowatcher --summary=json (gen-big)" \
			2 ">=" 5
	else
		say "trace gen-big: skipped: gentrace failed"
	fi
	rm -f "$WORK"/gen-big.blktrace.*
elif [ -n "$BIG" ]; then
	say ""
	say "trace gen-big: $BIG"
fi

# Movies, at the original iowatcher's frame size and rate (1216x714, 20
# fps; it makes 750 frames of the CentOS trace), one run each. The
# original takes minutes (107-148 s on the CentOS trace, 158 s and 404 MB
# on a 2.6M-event one): only with BENCH_MOVIE_ORIG=1.
if [ "${BENCH_MOVIE:-1}" != 0 ] && have ffmpeg && [ -x "$IOW" ]; then
	header "movies (1216x714, 20 fps), one run each"
	CENTOS="$TOP/samples/centos7-sda"
	if [ -f "$CENTOS.blktrace.0" ] && link_trace "$CENTOS" centos7-sda
	then
		MOVIE_OPTS="--movie-length 37.5"
		rounds 1 "$WORK/centos7-sda" 0 \
			"iowatcher movie (centos7-sda, 750 frames)=movie"
		if [ "${BENCH_MOVIE_ORIG:-0}" = 1 ] && [ -x "$ORIG" ]; then
			rounds 1 "$WORK/centos7-sda" 0 \
				"orig-iowatcher movie (centos7-sda)=orig-movie"
		fi
	else
		row_skip "iowatcher movie (centos7-sda)" "$CENTOS.blktrace.0 missing"
	fi
	MOVIE_OPTS=""
	if [ -n "$MAIN_LABEL" ]; then
		rounds 1 "$MAIN" 0 "iowatcher movie ($MAIN_LABEL, $(movie_frames "$MAIN") frames)=movie"
	fi
	if ensure_gentrace && generate "$WORK/gen26" 2600000 --merges \
			> /dev/null; then
		rounds 1 "$WORK/gen26" 0 \
			"iowatcher movie (gen-2.6M, 1200 frames)=movie"
	fi
	rm -f "$WORK"/gen26.blktrace.* "$WORK"/*.mp4
fi

say ""
say "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg 2> /dev/null)"
# Movie rows are left out: their peak is ffmpeg's (time -v counts the
# children iowatcher waits for), and the 32 MB target is the analysis's.
awk -F'|' '$1 ~ /^iowatcher/ && $1 !~ /movie/ && $3 > 32768 {
	printf "peak RSS over the 32 MB target: %s (%.1f MB)\n", $1, $3 / 1024
}' "$RESULTS"
exit 0
