#!/bin/sh
# tests/run.sh [BUILD...]: runs every unit test binary (BUILD/tests/test_*)
# and every shell test (tests/t_*.sh, whose $IOW is BUILD/iowatcher: the
# variable IOW_BUILD tells tests/lib.sh) for each build directory given
# (default: the checkout itself), then prints one closing line adding
# them all up; with several builds, a line per build comes before it.
#
# The sanitizers' options are set for every build (only instrumented
# programs read them): reports go to files in a scratch directory, and
# each test that leaves one counts one failure more, whatever the test
# itself made of the program's exit.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}:log_path=$reports/asan"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}:log_path=$reports/ubsan"
# python3 for every test: Debian's, ahead of a version manager's shim
# (tests/lib.sh says why), made once here
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	export IOW_PYBIN="$reports/.pybin"
	mkdir -p "$IOW_PYBIN" && ln -s /usr/bin/python3 "$IOW_PYBIN/python3"
fi
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}"

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
# without -o are named after the trace, in the current directory)
checkout_state() {
	git status --porcelain --untracked-files=all 2> /dev/null
}

total_pass=0; total_fail=0; total_skip=0
[ $# = 0 ] && set -- .

# sanitizer_reports TEST: prints and removes the reports TEST left.
sanitizer_reports() {
	found=0
	for r in "$reports"/*; do
		[ -f "$r" ] || continue
		found=$((found + 1))
		echo "   sanitizer report ($1):"
		sed 's/^/   | /' "$r" | head -n 40
		rm -f "$r"
	done
	return $found
}

# IOW_REPEAT=1 for every build after the first: a pass that repeats the
# tests against another build of the same sources (the sanitizers'). A
# test may leave out there what runs no code of the program's that its
# other checks in that pass do not (the browser's checks of a page the
# program wrote, one recorder's second workload), saying so in a line:
# the suite stays within its time (tests/lib.sh: repeat_pass).
export IOW_REPEAT=0
for build in "$@"; do
	export IOW_BUILD="$build"
	pass=0; fail=0; skip=0; broken=""
	for t in tests/test_*.c tests/t_*.sh; do
		[ -f "$t" ] || continue
		case "$t" in
		*.c) t=${t%.c}; [ "$build" = . ] || t="${build%/}/$t";;
		esac
		echo "== $t"
		started=$(date +%s)
		state_before=$(machine_state)
		tree_before=$(checkout_state)
		case "$t" in
		*.sh) out=$(sh "$t" 2>&1); rc=$?;;
		*) if [ -x "$t" ]; then out=$(case "$t" in /*) "$t";; *) "./$t";; esac 2>&1); rc=$?
		   else out="$t: not built"; rc=127; fi;;
		esac
		echo "$out" | grep -v '^ok '
		secs=$(($(date +%s) - started))
		[ "$secs" -ge 5 ] && echo "   ($secs s)"
		sanitizer_reports "$t" || fail=$((fail + $?))
		state_after=$(machine_state)
		tree_after=$(checkout_state)
		if [ "$tree_after" != "$tree_before" ]; then
			fail=$((fail + 1))
			echo "   $t left files in the checkout: $(echo "$tree_after" | tr '\n' ' ') (counted as one failure)"
		fi
		if [ "$state_after" != "$state_before" ]; then
			fail=$((fail + 1))
			echo "   the machine is not as $t found it: before '$state_before', after '$state_after' (counted as one failure)"
		fi
		last=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
		if [ -z "$last" ]; then
			broken="$broken $t"; fail=$((fail + 1))
			echo "   (no closing line, exit $rc: counted as one failure)"
			continue
		fi
		p=$(echo "$last" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$last" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		s=$(echo "$last" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
		pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + ${s:-0}))
		if [ "$f" = 0 ] && [ "$rc" != 0 ]; then
			fail=$((fail + 1)); echo "   (exit $rc)"
		fi
	done
	[ -n "$broken" ] && echo "broken:$broken"
	[ $# -gt 1 ] && echo "== build $build: $pass passed, $fail failed, $skip skipped"
	IOW_REPEAT=1
	total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
