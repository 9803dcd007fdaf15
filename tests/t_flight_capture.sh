#!/bin/sh
# tests/t_flight_capture.sh: bench/flight_capture (what writing a flight
# capture costs the program alone, bench/README.md's #38 figures) runs:
# its capture holds every record it made, four a request, and is
# removed after; a count of 0 is refused. The sanitizers' pass: the
# engine is test_flight's, so the tool (not built there) runs once.
. "$(dirname "$0")/lib.sh"
FC="$TOP/bench/flight_capture"

if repeat_pass "bench/flight_capture"; then
	finish
	exit $?
elif [ ! -x "$FC" ]; then
	skip "bench/flight_capture not built (make)"
	finish
	exit $?
fi
cd "$TMP" || exit 1
mkdir d
"$FC" 5000 "$TMP/d" > out 2> err
rc=$?
if [ $rc = 0 ] && grep -q "flight capture $TMP/d/flight-capture\.[^/]*/c-1 (30.000 s before, 0.100 s after; 20000 events; written in" err
then pass "5000 requests: one capture of 20000 events ($(grep -o 'written in [^)]*' err))"
else fail "5000 requests: one capture of 20000 events" "exit $rc: $(head -c 300 err)"
fi
left=$(ls -A d)
if [ -z "$left" ]; then pass "the capture's files and directory removed"
else fail "the capture's files and directory removed" "$left"
fi
"$FC" 0 "$TMP/d" > out 2> err
if [ $? = 2 ] && [ "$(wc -l < err)" = 1 ]; then pass "0 requests refused in one line ($(cat err))"
else fail "0 requests refused in one line" "$(head -c 200 err)"
fi
finish
