#!/bin/sh
# tests/run.sh [BUILD...]: runs every unit test binary (BUILD/tests/test_*)
# and every shell test (tests/t_*.sh, whose $IOW is BUILD/iowatcher: the
# variable IOW_BUILD tells tests/lib.sh) for each build directory given
# (default: the checkout itself), then prints one closing line adding
# them all up; with several builds, a line per build comes before it.
#
# Tests run side by side in lanes, and their output is printed whole, in
# the suite's order, as each is done:
# - the machine's lane, one test at a time: the tests that touch what the
#   machine holds (loop devices, tracefs, the tracers, BPF, mounts; found
#   by the tests/lib.sh helpers and commands they use, see machine_test).
#   Each must leave the machine as it found it, checked around each one;
# - IOW_TEST_JOBS lanes (default: one per processor but one, at least
#   one) for every other test, which reads and writes only its own
#   scratch directory; the machine's lane joins them when its own tests
#   are done. So the machine's tests, some of which time what they
#   record, never share the processors with more than the lanes' count.
#
# IOW_TESTS="t_cli test_json ..." runs only the tests named.
#
# The sanitizers' options are set for every build (only instrumented
# programs read them): reports go to files in a scratch directory of the
# test's own, and each test that leaves one counts one failure more,
# whatever the test itself made of the program's exit.
# symbolize=0: LeakSanitizer matched every leak a library keeps for
# good (fontconfig's caches: tests/lsan.supp) frame by frame, starting
# llvm-symbolizer in every process that drew text, ~190 ms of CPU each
# (CONTRIBUTING.md: the suite's time); the suppressions match a frame's
# module without it. A report left is symbolized when it is printed
# (asan_symbolize, where there is one: otherwise its frames say each
# module and offset).
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# python3 for every test: Debian's, ahead of a version manager's shim
# (tests/lib.sh says why), made once here
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	export IOW_PYBIN="$work/pybin"
	mkdir -p "$IOW_PYBIN" && ln -s /usr/bin/python3 "$IOW_PYBIN/python3"
fi
# the tests know they run in the suite (tests/lib.sh: shots_dir)
export IOW_SUITE=1
asan_base="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=0}"
ubsan_base="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}"
lanes=${IOW_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) - 1))}
[ "$lanes" -ge 1 ] 2>/dev/null || lanes=1

# machine_state: what every test must leave as it found it (the suite
# runs on machines of their own, CI's among them, as root): the tracing
# file systems mounted, the loop devices, the BPF programs loaded.
machine_state() {
	awk '$3 == "tracefs" || $3 == "debugfs" { print $3, $2 }' /proc/self/mounts |
		sort | tr '\n' ' '
	losetup -n -O NAME,BACK-FILE 2>/dev/null | sort | tr -s ' \n' ' '
	command -v bpftool > /dev/null &&
		echo "bpf programs: $(bpftool prog show 2>/dev/null | grep -c ': tracing ')"
}

# checkout_state: the checkout's files git does not know and does not
# ignore, and its changed ones: a test leaves none (pictures drawn
# without -o are named after the trace, in the current directory).
# Tests run side by side, so it is compared once, around the whole suite.
checkout_state() {
	git status --porcelain --untracked-files=all 2> /dev/null
}

# machine_test FILE: whether a test touches the machine (runs in the
# machine's lane): it uses lib.sh's loop devices, tracefs or tracing lock,
# or the commands that attach, mount or load
machine_test() {
	case "$1" in *.sh) ;; *) return 1;; esac
	grep -qE 'loop_device|ext4_loop|slow_loop|tracing_lock|tracefs_dir|losetup|bpftool|(^|[^a-z_])u?mount ' "$1"
}

# The jobs: one per test and build, numbered in the suite's order.
# IOW_REPEAT=1 for every build after the first: a pass that repeats the
# tests against another build of the same sources (the sanitizers'). A
# test may leave out there what runs no code of the program's that its
# other checks in that pass do not (the browser's checks of a page the
# program wrote, one recorder's second workload), saying so in a line:
# the suite stays within its time (tests/lib.sh: repeat_pass).
[ $# = 0 ] && set -- .
mkdir -p "$work/jobs" "$work/q-machine" "$work/q-other" "$work/done"
n=0; repeat=0
for build in "$@"; do
	for t in tests/test_*.c tests/t_*.sh; do
		[ -f "$t" ] || continue
		if [ -n "${IOW_TESTS:-}" ]; then
			b=${t##*/}; b=${b%.*}
			case " $IOW_TESTS " in *" $b "*) ;; *) continue;; esac
		fi
		lane=other
		machine_test "$t" && lane=machine
		case "$t" in
		*.c) t=${t%.c}; [ "$build" = . ] || t="${build%/}/$t";;
		esac
		n=$((n + 1)); id=$(printf '%05d' $n)
		printf '%s\n%s\n%s\n' "$build" "$t" "$repeat" > "$work/jobs/$id"
		: > "$work/q-$lane/$id"
	done
	repeat=1
done

# run_job ID [machine]: runs a job, leaving in done/ID: its output
# (out), exit (rc), seconds (secs), sanitizer reports (san/), and what it
# changed on the machine (state), the file "ready" last
run_job() {
	j="$work/done/$1.tmp"
	mkdir -p "$j/san"
	{ read -r build; read -r t; read -r rep; } < "$work/jobs/$1"
	[ "$2" = machine ] && before=$(machine_state)
	started=$(date +%s)
	case "$t" in
	*.sh) (export IOW_BUILD="$build" IOW_REPEAT="$rep" \
		ASAN_OPTIONS="$asan_base:log_path=$j/san/asan" \
		UBSAN_OPTIONS="$ubsan_base:log_path=$j/san/ubsan"
		exec sh "$t") > "$j/out" 2>&1 < /dev/null; rc=$?;;
	*) if [ -x "$t" ]; then
		(export IOW_BUILD="$build" IOW_REPEAT="$rep" \
			ASAN_OPTIONS="$asan_base:log_path=$j/san/asan" \
			UBSAN_OPTIONS="$ubsan_base:log_path=$j/san/ubsan"
			case "$t" in /*) exec "$t";; *) exec "./$t";; esac) \
			> "$j/out" 2>&1 < /dev/null; rc=$?
	   else echo "$t: not built" > "$j/out"; rc=127; fi;;
	esac
	echo $(($(date +%s) - started)) > "$j/secs"
	echo "$rc" > "$j/rc"
	if [ "$2" = machine ]; then
		after=$(machine_state)
		[ "$after" = "$before" ] ||
			echo "before '$before', after '$after'" > "$j/state"
	fi
	mv "$j" "$work/done/$1"
}

# A test whose file says "# run.sh: alone" (it compares two recordings'
# latencies, which the lanes' load beside it would tell apart) runs with
# the other lanes held: the machine's lane sets $work/hold, waits for
# every lane's job to end, runs it, and lets them go.
alone_test() {
	grep -q '^# run.sh: alone' "$1" 2>/dev/null
}

# lane QUEUE ID: takes the queue's jobs, lowest number first, until none
# is left (a job is taken by renaming it away: two lanes never take
# one); the machine's lane then helps with the others
lane() {
	queue=$1 me=$2
	while :; do
		while [ "$queue" = other ] && [ -e "$work/hold" ]; do
			sleep 0.5
		done
		took=
		for q in $(ls "$work/q-$queue"); do
			mv "$work/q-$queue/$q" "$work/taken-$q" 2>/dev/null || continue
			took=$q; break
		done
		if [ -z "$took" ]; then
			[ "$queue" = machine ] || return 0
			queue=other; continue
		fi
		if [ "$queue" = machine ] &&
		   alone_test "$(sed -n 2p "$work/jobs/$took")"; then
			: > "$work/hold"
			while ls "$work"/busy-* > /dev/null 2>&1; do
				sleep 0.5
			done
			run_job "$took" "$queue"
			rm -f "$work/hold"
			continue
		fi
		: > "$work/busy-$me"
		# a hold set while this lane took its job: it waits
		[ "$queue" = other ] && [ -e "$work/hold" ] &&
			{ rm -f "$work/busy-$me"; mv "$work/taken-$took" "$work/q-$queue/$took"; continue; }
		run_job "$took" "$queue"
		rm -f "$work/busy-$me"
	done
}

suite_started=$(date +%s)
tree_before=$(checkout_state)
machine_before=$(machine_state)
# the tests that run alone first, before any lane starts: met later in
# the machine's lane, one waited for the other lanes' jobs under way to
# end (t_compare_record's hold once came while t_html's 56 s ran),
# leaving the processors idle meanwhile
for q in $(ls "$work/q-machine"); do
	alone_test "$(sed -n 2p "$work/jobs/$q")" || continue
	mv "$work/q-machine/$q" "$work/taken-$q" && run_job "$q" machine
done
lane machine m & pids=$!
i=0
while [ $i -lt "$lanes" ]; do
	lane other $i & pids="$pids $!"
	i=$((i + 1))
done

# the jobs' results in the suite's order, each as soon as it is done
total_pass=0; total_fail=0; total_skip=0
pass=0; fail=0; skip=0; broken=""; cur_build=
# end_build: the build's line (with several builds) and its counts added
end_build() {
	[ -n "$broken" ] && echo "broken:$broken"
	[ $# -gt 1 ] && echo "== build $cur_build: $pass passed, $fail failed, $skip skipped"
	total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
	pass=0; fail=0; skip=0; broken=""
}
k=0
while [ $k -lt $n ]; do
	k=$((k + 1)); id=$(printf '%05d' $k)
	{ read -r build; read -r t; read -r rep; } < "$work/jobs/$id"
	[ -n "$cur_build" ] && [ "$build" != "$cur_build" ] && end_build "$@"
	cur_build=$build
	while [ ! -d "$work/done/$id" ]; do sleep 0.2; done
	d="$work/done/$id"
	echo "== $t"
	grep -v '^ok ' "$d/out"
	secs=$(cat "$d/secs"); rc=$(cat "$d/rc")
	[ "$secs" -ge 5 ] && echo "   ($secs s)"
	for r in "$d"/san/*; do
		[ -f "$r" ] || continue
		fail=$((fail + 1))
		echo "   sanitizer report ($t):"
		# symbolized whole, or the raw report (never half of each)
		if command -v asan_symbolize > /dev/null &&
		   asan_symbolize < "$r" > "$work/sym" 2> /dev/null; then
			cat "$work/sym"
		else
			cat "$r"
		fi | sed 's/^/   | /' | head -n 40
	done
	if [ -f "$d/state" ]; then
		fail=$((fail + 1))
		echo "   the machine is not as $t found it: $(cat "$d/state") (counted as one failure)"
	fi
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$d/out" | tail -n 1)
	if [ -z "$last" ]; then
		broken="$broken $t"; fail=$((fail + 1))
		echo "   (no closing line, exit $rc: counted as one failure)"
	else
		p=$(echo "$last" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$last" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		s=$(echo "$last" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
		pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + ${s:-0}))
		if [ "$f" = 0 ] && [ "$rc" != 0 ]; then
			fail=$((fail + 1)); echo "   (exit $rc)"
		fi
	fi
	rm -rf "$d/out" "$d/san"
done
wait $pids
end_build "$@"

# what the whole suite left: files in the checkout, the machine
tree_after=$(checkout_state)
if [ "$tree_after" != "$tree_before" ]; then
	total_fail=$((total_fail + 1))
	echo "   the suite left files in the checkout: $(echo "$tree_after" | tr '\n' ' ') (counted as one failure)"
fi
machine_after=$(machine_state)
if [ "$machine_after" != "$machine_before" ]; then
	total_fail=$((total_fail + 1))
	echo "   the machine is not as the suite found it: before '$machine_before', after '$machine_after' (counted as one failure)"
fi
plural=s; [ "$lanes" = 1 ] && plural=
echo "   ($(($(date +%s) - suite_started)) s for the suite: $lanes lane$plural beside the machine's)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
