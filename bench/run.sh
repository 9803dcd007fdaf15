#!/bin/sh
# bench/run.sh: the side-by-side benchmark. Times iowatcher against the
# I/O floor (cat), btt and the original iowatcher on one trace, each under
# /usr/bin/time -v for peak RSS, and prints one table plus the ratios the
# targets in bench/README.md are stated in.
#
#   sh bench/run.sh [TRACE_BASE]
#
# Without TRACE_BASE it generates a 2,000,000-event trace with
# bench/gentrace, and (unless BENCH_BIG=0, or the disk is short) a 10x one
# for the memory-flatness check. Environment:
#   BENCH_EVENTS=N      events of the generated trace (default 2000000)
#   BENCH_BIG=0|1       the 10x trace: 0 never, 1 always (default: if disk)
#   BENCH_BIG_ORIG=1    also run the original iowatcher on the 10x trace
#                       (slow: 334 s and 985 MB measured on 20M events;
#                       its time limit is 900 s unless BENCH_TIMEOUT is set)
#   BENCH_TAGGER=0      skip the tagger rows
#   BENCH_RUNS=N        runs per row on the main trace; best wall time,
#                       highest RSS are kept (default 3)
#   BENCH_TIMEOUT=S     give up on one run after S seconds (default 300)
#   BENCH_SEED=N        gentrace seed (default 1)
#   BENCH_RICH=1        generated traces also have cache flushes, split
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
RUNS=${BENCH_RUNS:-3}
TIMEOUT=${BENCH_TIMEOUT:-300}
SEED=${BENCH_SEED:-1}
GEN_OPTS="--merges"
[ "${BENCH_RICH:-0}" = 1 ] && GEN_OPTS="--merges --flushes --splits --discards"
OUR_GRAPHS="-O io -O tput -O latency -O queue-depth -O iops"
ORIG_GRAPHS="-O io -O tput -O latency -O queue_depth -O iops"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iow-bench.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP
trap 'exit 141' PIPE	# e.g. piped into head: still clean up
# Tools run from here: the original iowatcher leaves *_fp.dat files behind.
cd "$WORK" || exit 1
RESULTS="$WORK/results"	# name|wall_s|rss_kb|events, one line a row
: > "$RESULTS"

say() { printf '%s\n' "$*"; }
have() { command -v "$1" > /dev/null 2>&1; }

if [ ! -x "$TIME" ]; then
	say "run.sh: $TIME is missing (Debian package 'time'); cannot measure"
	exit 0
fi

now_ns() { date +%s%N; }

# measure NAME EVENTS RUNS CMD...: runs CMD (stdout to /dev/null) RUNS
# times under time -v; keeps the best wall time and the highest peak RSS.
measure() {
	m_name=$1 m_events=$2 m_runs=$3
	shift 3
	m_best="" m_rss=0 m_i=0
	while [ "$m_i" -lt "$m_runs" ]; do
		m_i=$((m_i + 1))
		m_t0=$(now_ns)
		"$TIME" -v -o "$WORK/time.txt" timeout -k 10 "$TIMEOUT" \
			"$@" > /dev/null 2> "$WORK/stderr.txt"
		m_rc=$?
		m_t1=$(now_ns)
		if [ "$m_rc" = 124 ]; then
			row_skip "$m_name" "timed out after ${TIMEOUT}s" \
				"(BENCH_TIMEOUT)"
			return 1
		fi
		if [ "$m_rc" != 0 ]; then
			row_skip "$m_name" "exit $m_rc:" "$(first_line \
				"$WORK/stderr.txt")"
			return 1
		fi
		m_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' \
			"$WORK/time.txt")
		m_wall=$((m_t1 - m_t0))
		if [ -z "$m_best" ] || [ "$m_wall" -lt "$m_best" ]; then
			m_best=$m_wall
		fi
		[ "${m_kb:-0}" -gt "$m_rss" ] && m_rss=$m_kb
	done
	echo "$m_name|$m_best|$m_rss|$m_events" >> "$RESULTS"
	awk -v n="$m_name" -v ns="$m_best" -v kb="$m_rss" -v ev="$m_events" \
	    'BEGIN { s = ns / 1e9;
		printf "%-34s %9.3f %13s %9.1f\n", n, s,
		    (ev > 0 && s > 0) ? sprintf("%.0f", ev / s) : "-",
		    kb / 1024 }'
	return 0
}

# The first non-empty line of a file, printable characters only.
first_line() {
	tr -cd '[:print:]\n' < "$1" | grep -v '^$' | head -n 1 | cut -c 1-100
}

row_skip() {
	r_name=$1
	shift
	printf '%-34s skipped: %s\n' "$r_name" "$*"
}

header() {
	say ""
	say "== $1"
	printf '%-34s %9s %13s %9s\n' "tool" "wall s" "events/s" "RSS MB"
}

# field NAME COLUMN: a measured row's value (2 = wall ns, 3 = RSS KiB).
field() {
	awk -F'|' -v n="$1" -v c="$2" '$1 == n { print $c }' "$RESULTS"
}

# combine NAME ROW1 ROW2: a row for running both: walls add, RSS is max.
combine() {
	c_a=$(field "$2" 2) c_b=$(field "$3" 2)
	[ -n "$c_a" ] && [ -n "$c_b" ] || return 0
	c_ra=$(field "$2" 3) c_rb=$(field "$3" 3)
	[ "$c_ra" -gt "$c_rb" ] || c_ra=$c_rb
	echo "$1|$((c_a + c_b))|$c_ra|$(field "$2" 4)" >> "$RESULTS"
}

# ratio LABEL NUM_ROW DEN_ROW COLUMN TARGET_OP TARGET: prints NUM/DEN.
ratio() {
	r_num=$(field "$2" "$4") r_den=$(field "$3" "$4")
	if [ -z "$r_num" ] || [ -z "$r_den" ]; then
		printf '%-44s skipped: a row is missing\n' "$1"
		return
	fi
	awk -v l="$1" -v a="$r_num" -v b="$r_den" -v op="$5" -v t="$6" \
	    'BEGIN {
		if (b == 0) { printf "%-44s n/a (zero)\n", l; exit }
		r = a / b
		v = ""
		if (op == ">=") v = (r >= t) ? "met" : "MISSED"
		if (op == "<=") v = (r <= t) ? "met" : "MISSED"
		printf "%-44s %7.2fx", l, r
		if (v != "") printf "   (target %s %sx: %s)", op, t, v
		printf "\n"
	    }'
}

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

# generate BASE N: writes a gentrace trace; prints its record count.
generate() {
	"$GENTRACE" -o "$1" -n "$2" -s "$SEED" $GEN_OPTS 2> "$1.gentrace" ||
		return 1
	sed -n 's/^gentrace: .*: \([0-9]*\) events.*/\1/p' "$1.gentrace"
}

ensure_gentrace() {
	[ -x "$GENTRACE" ] && return 0
	(cd "$TOP" && make -s bench/gentrace > /dev/null 2>&1) &&
		[ -x "$GENTRACE" ]
}

# bench_trace LABEL BASE EVENTS RUNS WITH_ORIG: every row on one trace.
bench_trace() {
	b_label=$1 b_base=$2 b_events=$3 b_runs=$4 b_orig=$5
	b_mib=$(($(cat "$b_base".blktrace.* | wc -c) / 1048576))
	b_files=$(ls "$b_base".blktrace.* | wc -l)
	header "$b_label: $b_events records, $b_mib MiB, $b_files CPU files"

	cat "$b_base".blktrace.* > /dev/null	# warm the page cache
	measure "cat ($b_label)" "$b_events" "$b_runs" \
		sh -c 'cat "$1".blktrace.* > /dev/null' sh "$b_base"

	if [ -x "$IOW" ]; then
		measure "iowatcher --summary=json ($b_label)" "$b_events" \
			"$b_runs" "$IOW" -t "$b_base" --summary=json
	else
		row_skip "iowatcher --summary=json ($b_label)" \
			"iowatcher: not built (make iowatcher)"
	fi

	if have blkparse; then
		measure "blkparse -d dump ($b_label)" "$b_events" 1 \
			blkparse -i "$b_base" -d "$b_base.dump" -O
	else
		row_skip "blkparse -d dump ($b_label)" "blkparse not installed"
	fi
	if ! have btt; then
		row_skip "btt ($b_label)" "btt not installed"
	elif [ ! -s "$b_base.dump" ]; then
		row_skip "btt ($b_label)" "no blkparse dump to read"
	else
		measure "btt ($b_label)" "$b_events" "$b_runs" \
			btt -i "$b_base.dump"
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
		# Asked for on the big trace it needs its time: 334 s on 20M.
		b_timeout=$TIMEOUT
		[ "$b_label" = big ] && [ -z "$BENCH_TIMEOUT" ] && TIMEOUT=900
		measure "orig-iowatcher svg ($b_label)" "$b_events" \
			"$b_runs" "$ORIG" -t "$b_base" -o "$WORK/orig.svg" \
			$ORIG_GRAPHS
		TIMEOUT=$b_timeout
	fi
	if [ -x "$IOW" ]; then
		measure "iowatcher svg ($b_label)" "$b_events" "$b_runs" \
			"$IOW" -t "$b_base" -o "$WORK/ours.svg" $OUR_GRAPHS
	else
		row_skip "iowatcher svg ($b_label)" "iowatcher: not built"
	fi
	rm -f "$b_base.dump" "$WORK/orig.svg" "$WORK/ours.svg"
}

bench_taggers() {
	t_label=$1 t_base=$2 t_events=$3 t_runs=$4
	if [ ! -x "$IOW" ]; then
		row_skip "iowatcher tagging ($t_label)" "iowatcher: not built"
		return
	fi
	measure "iowatcher --summary ($t_label)" "$t_events" "$t_runs" \
		"$IOW" -t "$t_base" --summary
	if [ -x "$TOP/scripts/tag-example" ]; then
		measure "iowatcher -T tag-example ($t_label)" "$t_events" \
			"$t_runs" "$IOW" -t "$t_base" --summary \
			-T "$TOP/scripts/tag-example"
	else
		row_skip "iowatcher -T tag-example ($t_label)" \
			"scripts/tag-example not built"
	fi
	# tag-by-pid may be a script or built in: try it, report why not.
	measure "iowatcher -T tag-by-pid ($t_label)" "$t_events" "$t_runs" \
		"$IOW" -t "$t_base" --summary -T tag-by-pid
}

say "iowatcher benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
    "$(uname -sr), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null |
			 sed 's/.*: //')"

BIG=""
if [ -n "$1" ]; then
	# Links the user's files into the work directory so the dump and the
	# original iowatcher's side files land there, not beside the trace.
	if ! ls "$1".blktrace.* > /dev/null 2>&1; then
		say "run.sh: no $1.blktrace.* files"
		exit 1
	fi
	for f in "$1".blktrace.*; do
		ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" \
			"$WORK/$(basename "$f")"
	done
	MAIN="$WORK/$(basename "$1")"
	MAIN_EVENTS=$(count_records "$MAIN")
	say "trace: $1 (about $MAIN_EVENTS records, from file sizes)"
	[ "${BENCH_BIG:-0}" = 1 ] &&
		say "big trace: skipped: the 10x flatness check uses generated traces"
else
	if ! ensure_gentrace; then
		say "run.sh: bench/gentrace is not built and make failed"
		exit 0
	fi
	MAIN="$WORK/gen"
	t0=$(now_ns)
	MAIN_EVENTS=$(generate "$MAIN" "$EVENTS") || {
		say "run.sh: gentrace failed: $(cat "$MAIN.gentrace")"
		exit 0
	}
	t1=$(now_ns)
	say "trace: gentrace -n $EVENTS -s $SEED $GEN_OPTS: $MAIN_EVENTS" \
	    "records in $(awk -v d=$((t1 - t0)) 'BEGIN{printf "%.2f", d/1e9}') s"
	BIG_EVENTS=$((EVENTS * 10))
	# 48 bytes a record, twice over (trace and dump), plus a margin.
	need_kb=$((BIG_EVENTS / 1024 * 48 * 2 + 262144))
	avail_kb=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
	case "${BENCH_BIG:-auto}" in
	0) BIG="skipped: BENCH_BIG=0";;
	1) BIG=yes;;
	*) if [ "${avail_kb:-0}" -ge "$need_kb" ]; then
		BIG=yes
	   else
		BIG="skipped: needs $((need_kb / 1024)) MiB free in $WORK"
	   fi;;
	esac
fi

bench_trace main "$MAIN" "$MAIN_EVENTS" "$RUNS" 1
if [ "${BENCH_TAGGER:-1}" != 0 ]; then
	header "tagging (main)"
	bench_taggers main "$MAIN" "$MAIN_EVENTS" "$RUNS"
fi

if [ "$BIG" = yes ]; then
	t0=$(now_ns)
	BIG_RECORDS=$(generate "$WORK/big" "$BIG_EVENTS") || BIG="failed"
	t1=$(now_ns)
fi
if [ "$BIG" = yes ]; then
	say ""
	say "big trace: gentrace -n $BIG_EVENTS: $BIG_RECORDS records in" \
	    "$(awk -v d=$((t1 - t0)) 'BEGIN{printf "%.2f", d/1e9}') s"
	bench_trace big "$WORK/big" "$BIG_RECORDS" 1 "${BENCH_BIG_ORIG:-0}"
	rm -f "$WORK"/big.blktrace.*
elif [ -n "$BIG" ] && [ -z "$1" ]; then
	say ""
	say "big trace: $BIG"
fi

# Movies, at the original iowatcher's frame size and rate (1216x714, 20
# fps; it makes 750 frames of the CentOS trace). The original takes minutes
# (107-148 s on the CentOS trace, 158 s and 404 MB on the 2.6M-event one):
# only with BENCH_MOVIE_ORIG=1.
if [ "${BENCH_MOVIE:-1}" != 0 ] && have ffmpeg; then
	header "movies (1216x714, 20 fps)"
	CENTOS="$TOP/../shared/traces/centos7-sda"
	if [ -f "$CENTOS.blktrace.0" ]; then
		measure "iowatcher movie (centos, 750 frames)" 0 1 \
			"$IOW" -t "$CENTOS" --movie -w 1216 -h 714 --fps 20 \
			--movie-length 37.5 -o "$WORK/centos.mp4"
		if [ "${BENCH_MOVIE_ORIG:-0}" = 1 ] && [ -x "$ORIG" ]; then
			cp "$CENTOS".blktrace.* "$WORK/"
			(cd "$WORK" && measure "orig-iowatcher movie (centos)" 0 1 \
				"$ORIG" -t centos7-sda --movie -o orig.mp4)
		fi
	fi
	generate "$WORK/m26" 2600000 > /dev/null &&
		measure "iowatcher movie (2.6M events, 1200 frames)" 0 1 \
			"$IOW" -t "$WORK/m26" --movie -w 1216 -h 714 --fps 20 \
			-o "$WORK/m26.mp4"
	rm -f "$WORK"/m26.blktrace.*
fi

say ""
say "== ratios (time = best wall time; RSS = peak resident set)"
ratio "btt / iowatcher --summary, time" "btt (main)" \
	"iowatcher --summary=json (main)" 2 ">=" 5
ratio "iowatcher --summary / cat, time" "iowatcher --summary=json (main)" \
	"cat (main)" 2 "<=" 3
ratio "orig-iowatcher / ours svg, time" "orig-iowatcher svg (main)" \
	"iowatcher svg (main)" 2 ">=" 4
ratio "orig-iowatcher / ours svg, RSS" "orig-iowatcher svg (main)" \
	"iowatcher svg (main)" 3 ">=" 4
ratio "tag-example / untagged --summary, time" \
	"iowatcher -T tag-example (main)" "iowatcher --summary (main)" 2 "<=" 2
ratio "tag-by-pid / untagged --summary, time" \
	"iowatcher -T tag-by-pid (main)" "iowatcher --summary (main)" 2 "" ""
combine "orig-iowatcher + dump (main)" "orig-iowatcher svg (main)" \
	"blkparse -d dump (main)"
ratio "orig-iowatcher incl. its blkparse / ours" \
	"orig-iowatcher + dump (main)" "iowatcher svg (main)" 2 "" ""
ratio "btt / orig-iowatcher, time" "btt (main)" "orig-iowatcher svg (main)" \
	2 "" ""
if [ "$BIG" = yes ]; then
	ratio "iowatcher --summary RSS, big / main" \
		"iowatcher --summary=json (big)" \
		"iowatcher --summary=json (main)" 3 "<=" 1.25
	ratio "iowatcher svg RSS, big / main" "iowatcher svg (big)" \
		"iowatcher svg (main)" 3 "<=" 1.25
	ratio "btt / iowatcher --summary, time (big)" "btt (big)" \
		"iowatcher --summary=json (big)" 2 ">=" 5
fi
# Movie rows are left out: their peak is ffmpeg's (time -v counts the
# children iowatcher waits for), and the 32 MB target is the analysis's.
awk -F'|' '$1 ~ /^iowatcher/ && $1 !~ /movie/ && $3 > 32768 {
	printf "peak RSS over the 32 MB target: %s (%.1f MB)\n", $1, $3 / 1024
}' "$RESULTS"
exit 0
