#!/bin/sh
# fuzz/run.sh DIR TARGET...: runs each libFuzzer target DIR/fuzz/fuzz_TARGET
# for $FUZZ_SECONDS (60) from its seeds, $FUZZ_JOBS (2) at a time, then
# prints one line per target (executions, corpus size, findings) and a
# total. The corpus is kept in DIR/corpus/TARGET between runs; a crash,
# leak, sanitizer report or failed check leaves its input in
# DIR/findings/TARGET and makes the exit status 1.
cd "$(dirname "$0")/.." || exit 1
dir=$1
shift
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
top=$(pwd)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}"

# the targets' scratch directories, under one removed at the end
scratch_parent=/tmp
[ -w /dev/shm ] && scratch_parent=/dev/shm
IOWFUZZ_SCRATCH=$(mktemp -d "$scratch_parent/iowfuzz-run.XXXXXX") || exit 1
export IOWFUZZ_SCRATCH
trap 'rm -rf "$IOWFUZZ_SCRATCH"' EXIT
trap 'exit 130' INT TERM

run_one() {
	t=$1
	mkdir -p "$dir/corpus/$t" "$dir/findings/$t"
	# usage errors on stderr would only slow the command-line target
	quiet=
	[ "$t" = args ] && quiet=-close_fd_mask=2
	"$dir/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 $quiet \
		-artifact_prefix="$dir/findings/$t/" "$dir/corpus/$t" \
		"fuzz/seeds/$t" $(ls -d "tests/data/regress/$t" 2>/dev/null) \
		> "$dir/fuzz-$t.log" 2>&1
	echo $? > "$dir/fuzz-$t.rc"
}

running=0
for t in "$@"; do
	echo "fuzz: $t for ${seconds}s (log: $dir/fuzz-$t.log)"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

total_runs=0; total_found=0; status=0
for t in "$@"; do
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz-$t.log" | tail -n 1)
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz-$t.log" | tail -n 1)
	found=$(ls "$dir/findings/$t" | wc -l)
	corpus=$(ls "$dir/corpus/$t" | wc -l)
	rc=$(cat "$dir/fuzz-$t.rc")
	echo "fuzz: $t: ${runs:-?} executions (${secs:-?}/s), corpus $corpus, findings $found, exit $rc"
	if [ "$found" != 0 ] || [ "$rc" != 0 ]; then
		status=1
		grep -m 3 -E 'ERROR|SUMMARY|fuzz:|runtime error' "$dir/fuzz-$t.log" | sed 's/^/    /'
		ls "$dir/findings/$t" | sed "s|^|    $dir/findings/$t/|"
	fi
	total_runs=$((total_runs + ${runs:-0})); total_found=$((total_found + found))
done
echo "fuzz: $total_runs executions, $total_found findings"
exit $status
