#!/bin/sh
# t_untrusted.sh: the reproducers of issue #40 (tests/data/regress/untrusted,
# their provenance in its README.md): a damaged perf text, dump or
# --merge-summaries document gives one line on stderr naming the file and
# what is wrong, nothing on stdout, exit 1 (no signal: under the
# sanitizers' build, run.sh counts any report as a failure); the valid
# controls beside them exit 0. An error message quoting control bytes
# and bytes that are not UTF-8 escapes them.
. "$(dirname "$0")/lib.sh"
R="$TOP/tests/data/regress/untrusted"

# refused FILE PATTERN ARGS...: exit 1, one line matching PATTERN
refused() {
	f=$1; pat=$2; shift 2
	"$IOW" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ "$rc" = 1 ] && [ "$lines" = 1 ] && [ ! -s "$TMP/out" ] &&
	   grep -q "$f" "$TMP/err" && grep -q -- "$pat" "$TMP/err"; then
		pass "$f: refused ($(cut -c 1-150 "$TMP/err"))"
	else
		fail "$f: one line naming it and \"$pat\", exit 1" \
			"rc $rc, $lines lines: $(head -c 300 "$TMP/err")$(head -c 100 "$TMP/out")"
	fi
}

# the summaries: the field named
for c in "merge-area-huge.json:\"queue_depth_area_s\" is 1e+308" \
	 "merge-area-negative.json:\"queue_depth_area_s\" is -10, below 0" \
	 "merge-dev-4096.json:\"device\" is \"4096,0\"" \
	 "merge-dev-minor-overflow.json:\"device\" is \"0,1048576\"" \
	 "merge-dev-negative.json:\"device\" is \"-1,-1\"" \
	 "merge-dur-neg.json:\"duration_s\" is -1" \
	 "merge-duration-huge.json:\"duration_s\" is 1e+300" \
	 "merge-hist-wrap.json:\"hist\" counts add up past 2^64" \
	 "merge-lossy-gt-duration.json:\"lossy_s\" is 100.000000 s, longer than the trace" \
	 "merge-maxns-1.json:\"max_ns\" is 1, outside the highest bucket" \
	 "merge-maxns-huge.json:\"max_ns\" is 1000000000000000, outside" \
	 "merge-sum-max.json:\"sum_ns\" is 18446744073709551615, outside" \
	 "merge-u64wrap.json:\"hist\" counts add up past 2^64"; do
	f=${c%%:*}
	refused "$f" "${c#*:}" --merge-summaries "$R/$f"
done
# a merge of a good summary with a bad one is refused as well
"$IOW" -t "$TOP/samples/dd-write" --summary=json > "$TMP/good.json"
refused merge-sum-max.json "\"sum_ns\"" --merge-summaries \
	"$TMP/good.json" "$R/merge-sum-max.json"

# the traces: the line or event and what is out of range
for c in "cpu65536.perf.txt:line 2: the CPU number is out of range" \
	 "perf-cpu65536.txt:line 5: the CPU number is out of range" \
	 "lost-after.perf.txt:past the trace's last event" \
	 "lost-backwards.perf.txt:line 4: the loss is noticed at 1446.040000 s, before" \
	 "lost-huge.perf.txt:line 4: the lost count is not a count" \
	 "lost-negative.perf.txt:line 4: the lost count is not a count" \
	 "time-overflow.perf.txt:line 1: the time is out of range" \
	 "dump-lossnote-beyond.dump:past the trace's last event" \
	 "plug-only.perf.txt:empty trace"; do
	f=${c%%:*}
	refused "$f" "${c#*:}" -t "$R/$f" --summary=json
done
# an event's index stands for the file in these (the analysis's errors)
for c in "dump-absurd-time.dump:event 226: at 10000000000000000000 ns, past 2^62 ns" \
	 "dump-lossnote-reversed.dump:its window ends before it begins"; do
	f=${c%%:*}
	refused "" "${c#*:}" -t "$R/$f" --summary=json
done

# the controls: valid traces, read as before
for f in ok.perf.txt inflight-at-end.perf.txt queue-only.perf.txt; do
	if "$IOW" -t "$R/$f" --summary=json > "$TMP/s.json" 2> "$TMP/err" &&
	   python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/s.json"; then
		pass "$f: a valid trace, read"
	else
		fail "$f: read" "$(head -c 300 "$TMP/err")"
	fi
done
# a summary with no I/O rows to Perfetto: qsort was called on NULL
if "$IOW" -t "$R/pftrace-norows.dump" -o "$TMP/norows.pftrace" \
	--summary=json > "$TMP/s.json" 2> "$TMP/err" && [ -s "$TMP/norows.pftrace" ]; then
	pass "pftrace-norows.dump: written to Perfetto"
else
	fail "pftrace-norows.dump: written to Perfetto" "$(head -c 300 "$TMP/err")"
fi

# raw control bytes and non-UTF-8 bytes of the input come back escaped
printf 'x\033[31m 1 [000] 1.000000: block:block_nope\001\377: 8,0 R 0 + 8 [x]\n' \
	> "$TMP/esc.perf.txt"
"$IOW" -t "$TMP/esc.perf.txt" --summary > /dev/null 2> "$TMP/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ] &&
   ! LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$TMP/err" &&
   ! LC_ALL=C grep -q "$(printf '\377')" "$TMP/err" &&
   grep -q 'x\\x1b\[31m' "$TMP/err" && grep -q '\\x01\\xff' "$TMP/err"; then
	pass "control and non-UTF-8 bytes escaped: $(cat "$TMP/err" | cut -c 1-120)"
else
	fail "control and non-UTF-8 bytes escaped" "rc $rc: $(od -c "$TMP/err" | head -5)"
fi
finish
