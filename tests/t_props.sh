#!/bin/sh
# t_props.sh: every sample's summary JSON, events log and Perfetto trace,
# and the merge of all their summaries, carry no non-finite or impossible
# number (tests/summary_props.py: valid JSON, no NaN or infinity, nothing
# negative, p50 <= p90 <= p99 <= max, mean <= max, no latency longer than
# the trace, loss windows inside it); the fuzz targets check the same of
# every case that succeeds (fuzz/fuzz_props.h, test_fuzz_regress).
. "$(dirname "$0")/lib.sh"
PROPS="$TOP/tests/summary_props.py"
sums=
for s in $(ls "$TOP/samples" | sed -n 's/\.blktrace\.0$//p') perf-fio.perf.txt.xz; do
	if ! "$IOW" -t "$TOP/samples/$s" --summary=json --events "$TMP/$s.jsonl" \
		-o "$TMP/$s.pftrace" > "$TMP/$s.json" 2> "$TMP/$s.err"; then
		fail "$s: read" "$(head -c 300 "$TMP/$s.err")"
		continue
	fi
	if out=$(python3 "$PROPS" "$TMP/$s.json" "$TMP/$s.jsonl") &&
	   [ -s "$TMP/$s.pftrace" ]; then
		pass "$s: summary, events log and Perfetto trace ($out)"
	else
		fail "$s: properties" "$out"
	fi
	sums="$sums $TMP/$s.json"
done
# shellcheck disable=SC2086
if "$IOW" --merge-summaries $sums --summary=json > "$TMP/merged.json" 2> "$TMP/m.err" &&
   out=$(python3 "$PROPS" "$TMP/merged.json"); then
	pass "the merge of them all ($out)"
else
	fail "the merge of them all" "$(head -c 300 "$TMP/m.err") $out"
fi
finish
