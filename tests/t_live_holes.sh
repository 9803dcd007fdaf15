#!/bin/sh
# t_live_holes.sh: --live says the holes the analysis infers (issue 36
# items 2 and 6). A sample's dump read through -t - --live, whole and
# with every completion taken out of a window (tests/tools/make_holes.py,
# seeded, as t_holes.sh makes them): the holed one's intervals name the
# requests judged lost as the trace streams (--live=json's per-device
# orphan_requests and unmatched_completions, inferred_windows; the text
# lines' "# HOLE"), the trace's end names those its end judged, and the
# counts add up to the summary's; the intact one names none.
. "$(dirname "$0")/lib.sh"

if ! command -v blkparse > /dev/null; then
	skip "blkparse missing (Debian's blktrace): no dump to read"
	finish
	exit
fi
cd "$TMP" || exit 1
blkparse -i "$TOP/samples/fio-randrw" -d "$TMP/whole.dump" -o /dev/null \
	> /dev/null 2>&1
python3 "$TOP/tests/tools/make_holes.py" "$TMP/whole.dump" "$TMP/holed.dump" \
	completions --seed 7 > "$TMP/holes.json" || fail "make_holes"

for t in holed whole; do
	mode=holes
	[ $t = whole ] && mode=intact
	if "$IOW" -t - --live=json --interval 0.5 --summary=json \
		< "$TMP/$t.dump" > "$TMP/$t.jsonl" 2> "$TMP/$t.err"; then
		if out=$(python3 "$TOP/tests/live_holes.py" "$TMP/$t.jsonl" $mode)
		then
			pass "$t: --live=json's holes as the summary's ($mode)"
		else
			fail "$t: --live=json's holes as the summary's ($mode)" \
				"$(echo "$out" | head -n 3)"
		fi
	else
		fail "$t: --live=json" "$(head -n 2 "$TMP/$t.err")"
	fi
	"$IOW" -t - --live=text --interval 0.5 --summary=json \
		< "$TMP/$t.dump" > "$TMP/$t.txt" 2> "$TMP/$t.txt.err"
	n=$(grep -c '^# HOLE inferred on 7,1' "$TMP/$t.txt")
	if [ $t = holed ]; then
		check "holed: --live=text says HOLE in an interval and at the end" \
			[ "$n" -ge 2 ]
	else
		check "whole: --live=text says no HOLE" [ "$n" -eq 0 ]
	fi
done
finish
