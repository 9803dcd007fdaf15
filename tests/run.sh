#!/bin/sh
# tests/run.sh: runs every unit test binary (tests/test_*) and every shell
# test (tests/t_*.sh), then prints one closing line adding them all up.
cd "$(dirname "$0")/.." || exit 1
total_pass=0; total_fail=0; total_skip=0; broken=""
for t in tests/test_* tests/t_*.sh; do
	case "$t" in *.c|*.o) continue;; esac
	[ -f "$t" ] || continue
	echo "== $t"
	case "$t" in
	*.sh) out=$(sh "$t" 2>&1); rc=$?;;
	*) out=$("./$t" 2>&1); rc=$?;;
	esac
	echo "$out" | grep -v '^ok ' 
	last=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$last" ]; then
		broken="$broken $t"; total_fail=$((total_fail + 1))
		echo "   (no closing line, exit $rc: counted as one failure)"
		continue
	fi
	p=$(echo "$last" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$last" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$last" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${s:-0}))
	if [ "$f" = 0 ] && [ "$rc" != 0 ]; then
		total_fail=$((total_fail + 1)); echo "   (exit $rc)"
	fi
done
[ -n "$broken" ] && echo "broken:$broken"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
