#!/bin/sh
# t_merge.sh: --merge-summaries. Summaries of two traces merged equal the
# summary of the same I/O read in one pass (the traces one after the
# other in one trace): counts, bytes, means, p50/p90/p99/p99.9, maxima
# and histograms exactly, the text's latency rows too; loss windows keep
# their place; merging is associative and merges a file of several
# traces as their files; what is not a summary of this scheme is refused
# in one line naming the file, with nothing printed.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/bench/gentrace"
CMP="python3 $TOP/tests/merge_check.py"
CAT="python3 $TOP/tests/tools/concat_traces.py"

if [ ! -x "$GEN" ]; then
	skip "bench/gentrace not built (make bench/gentrace)"
	finish; exit
fi
# two workloads unlike each other (one with a slow mode), flushes and
# discards so that every class has a histogram; a third for associativity
"$GEN" -o "$TMP/a" -n 20000 -s 1 --flushes --discards 2>/dev/null
"$GEN" -o "$TMP/b" -n 30000 -s 2 --flushes --discards --bimodal 2>/dev/null
"$GEN" -o "$TMP/d" -n 8000 -s 3 --merges --splits 2>/dev/null
$CAT "$TMP/a" "$TMP/b" "$TMP/ab" > /dev/null
for t in a b d ab; do
	"$IOW" -t "$TMP/$t" --summary=json > "$TMP/$t.json" ||
		fail "summary of $t"
done

# merged: exactly the one-pass figures
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/b.json" --summary=json \
	> "$TMP/m.json"
if $CMP one "$TMP/ab.json" "$TMP/m.json" > "$TMP/cmp" 2>&1; then
	pass "merged a+b equals a and b read in one pass (counts, bytes, means, percentiles, histograms)"
else
	fail "merged a+b vs one pass" "$(head -5 "$TMP/cmp" | tr '\n' ';')"
fi
# the p99s were not equal to start with, so the check above says something
p99s=$(python3 -c 'import json, sys
f = [json.load(open(p))["traces"][0]["devices"] for p in sys.argv[1:]]
print(len({d[0]["latency_by_class"]["read"]["d2c_us"]["p99"] for d in f}))' \
	"$TMP/a.json" "$TMP/b.json" "$TMP/ab.json")
check "the inputs' read p99s differ from each other and the whole's" \
	[ "$p99s" = 3 ]
# one summary merged alone: its own figures
"$IOW" --merge-summaries "$TMP/a.json" --summary=json > "$TMP/ma.json"
check "one summary merged alone keeps its figures" \
	$CMP one "$TMP/a.json" "$TMP/ma.json"

# the text: the one-pass latency rows
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/b.json" > "$TMP/m.txt"
"$IOW" -t "$TMP/ab" --summary > "$TMP/ab.txt"
grep -E '^  (D2C|Q2C|Q2D|read|write|discard|flush) ' "$TMP/m.txt" \
	> "$TMP/m.rows"
grep -E '^  (D2C|Q2C|Q2D|read|write|discard|flush) ' "$TMP/ab.txt" \
	> "$TMP/ab.rows"
check "text: the merge's class and latency rows are the one pass's" \
	cmp -s "$TMP/m.rows" "$TMP/ab.rows"
check "text: the rows are there (D2C read, flush)" \
	sh -c "grep -q 'D2C read' '$TMP/m.rows' && grep -q 'D2C flush' '$TMP/m.rows'"
head -1 "$TMP/m.txt" > "$TMP/head"
check "text: the merge is named with its sources" \
	grep -q "^merged one after another ($TMP/a.json + $TMP/b.json): 49980 events" "$TMP/head"

# side by side (hosts at once): the longest duration, each device its
# longest span, so rates and mean depths add; said in the head line
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/b.json" --merge-as concurrent \
	--summary=json > "$TMP/c.json"
check "--merge-as concurrent: rates and mean depths add, over the longer run" python3 -c "
import json, sys
a, b, c = (json.load(open('$TMP/' + n + '.json'))['traces'][0] for n in 'abc')
dev = lambda t, n: [d for d in t['devices'] if d['device'] == n][0]
ok = abs(c['duration_s'] - max(a['duration_s'], b['duration_s'])) < 1e-6
ok = ok and c['label'] == 'merged side by side'
for n in ('8,0', '8,16'):
    da, db, dc = dev(a, n), dev(b, n), dev(c, n)
    ok = ok and abs(dc['span_s'] - max(da['span_s'], db['span_s'])) < 1e-6
    ok = ok and dc['read']['ios'] == da['read']['ios'] + db['read']['ios']
    # the depth's area adds over the longer span: the depths add where
    # the spans are alike, never divided by their sum
    ok = ok and abs(dc['queue_depth_mean'] - (da['queue_depth_area_s'] + db['queue_depth_area_s']) / dc['span_s']) < 1e-3
sys.exit(0 if ok else 1)"
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/b.json" --merge-as concurrent \
	> "$TMP/c.txt"
check "--merge-as concurrent: the head line says side by side" \
	grep -q "^merged side by side ($TMP/a.json + $TMP/b.json): 49980 events, 4.037 s" "$TMP/c.txt"
"$IOW" -t "$TMP/a" --merge-as concurrent > /dev/null 2> "$TMP/err"
check "--merge-as without --merge-summaries: refused" \
	grep -q "give it with --merge-summaries" "$TMP/err"

# associative: (a+b)+d = a+(b+d) = a+b+d
"$IOW" --merge-summaries "$TMP/b.json" "$TMP/d.json" --summary=json \
	> "$TMP/bd.json"
"$IOW" --merge-summaries "$TMP/m.json" "$TMP/d.json" --summary=json \
	> "$TMP/left.json"
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/bd.json" --summary=json \
	> "$TMP/right.json"
"$IOW" --merge-summaries "$TMP/a.json" "$TMP/b.json" "$TMP/d.json" \
	--summary=json > "$TMP/all.json"
check "merging is associative: (a+b)+d = a+(b+d)" \
	$CMP equal "$TMP/left.json" "$TMP/right.json"
check "and = a+b+d at once" $CMP equal "$TMP/left.json" "$TMP/all.json"
# a file of two traces (-t a -t b) merges as their two files
"$IOW" -t "$TMP/a" -t "$TMP/b" --summary=json > "$TMP/two.json"
"$IOW" --merge-summaries "$TMP/two.json" --summary=json > "$TMP/m2.json"
check "a summary of two traces merges as the two summaries" \
	$CMP equal "$TMP/m.json" "$TMP/m2.json"

# tags merge by label: per command (-P --merge-comm), the same command of
# both traces is one tag, as in one pass
for t in a b ab; do
	"$IOW" -t "$TMP/$t" -P --merge-comm --summary=json > "$TMP/p$t.json"
done
"$IOW" --merge-summaries "$TMP/pa.json" "$TMP/pb.json" --summary=json \
	> "$TMP/pm.json"
check "tags merge by label as one pass counts them" \
	$CMP one "$TMP/pab.json" "$TMP/pm.json"
check "and there are tags to merge (dd's of both traces in one)" \
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]["tags"]
assert len(t) >= 2 and [x for x in t if x["label"] == "dd"]' "$TMP/pm.json"

# loss: a window in the first trace stays where one pass has it; in the
# second it moves by the first's duration
if python3 "$TOP/tests/tools/make_lossy.py" "$TMP/a" "$TMP/la" 0 0.05 0.1 \
	> /dev/null; then
	$CAT "$TMP/la" "$TMP/b" "$TMP/lab" > /dev/null
	"$IOW" -t "$TMP/la" --summary=json > "$TMP/la.json" 2>/dev/null
	"$IOW" -t "$TMP/lab" --summary=json > "$TMP/lab.json" 2>/dev/null
	"$IOW" --merge-summaries "$TMP/la.json" "$TMP/b.json" \
		--summary=json > "$TMP/ml.json"
	check "a lossy trace merged equals one pass (loss windows, lost events)" \
		$CMP one "$TMP/lab.json" "$TMP/ml.json"
	"$IOW" --merge-summaries "$TMP/b.json" "$TMP/la.json" \
		--summary=json > "$TMP/mbl.json"
	check "a loss window of the second summary moves by the first's duration" \
		python3 -c 'import json, sys
b, la, m = (json.load(open(p))["traces"][0] for p in sys.argv[1:])
w, v = la["loss_windows"][0], m["loss_windows"][0]
assert len(m["loss_windows"]) == 1 and v["events"] == w["events"] > 0
assert abs(v["from_s"] - b["duration_s"] - w["from_s"]) < 2e-6
assert abs(v["to_s"] - b["duration_s"] - w["to_s"]) < 2e-6' \
		"$TMP/b.json" "$TMP/la.json" "$TMP/mbl.json"
	# two -x halves cut inside the loss window: each loss counted once,
	# in the half where it began (both counted it: "LOST 2" merged)
	cut=0.07 end=$(python3 -c "import json; print(json.load(open('$TMP/la.json'))['traces'][0]['duration_s'] + 1)")
	"$IOW" -t "$TMP/la" -x 0:$cut --summary=json > "$TMP/h1.json" 2>/dev/null
	"$IOW" -t "$TMP/la" -x $cut:$end --summary=json > "$TMP/h2.json" 2>/dev/null
	"$IOW" --merge-summaries "$TMP/h1.json" "$TMP/h2.json" --summary=json \
		> "$TMP/mh.json"
	check "-x halves cut inside a loss window merge to the whole's lost events" \
		python3 -c 'import json, sys
la, h1, h2, m = (json.load(open(p))["traces"][0] for p in sys.argv[1:])
assert la["lost_events"] > 0
assert h1["lost_events"] + h2["lost_events"] == la["lost_events"] == m["lost_events"], (h1["lost_events"], h2["lost_events"], la["lost_events"])' \
		"$TMP/la.json" "$TMP/h1.json" "$TMP/h2.json" "$TMP/mh.json"
else
	fail "make_lossy.py on a gentrace trace"
fi

# refused: one line naming the file and what to do, nothing on stdout
refused() {
	name=$1 file=$2 says=$3
	"$IOW" --merge-summaries "$TMP/a.json" "$file" --summary=json \
		> "$TMP/r.out" 2> "$TMP/r.err"
	rc=$?
	if [ "$rc" != 1 ] || [ -s "$TMP/r.out" ] ||
	   [ "$(wc -l < "$TMP/r.err")" != 1 ] ||
	   ! grep -q "^iowatcher: $file: .*$says" "$TMP/r.err"; then
		fail "refuses $name" "rc $rc: $(cat "$TMP/r.err")"
	else
		pass "refuses $name: $(cut -c1-110 "$TMP/r.err")"
	fi
}
refused "a trace file" "$TMP/a.blktrace.0" "not an iowatcher summary.*--summary=json"
echo '{"jobs": []}' > "$TMP/fio.json"
refused "JSON that is no summary" "$TMP/fio.json" "no \"traces\""
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
del d["histogram"]
def strip(v):
    if isinstance(v, dict):
        for k in ("hist", "sum_ns", "max_ns", "p999"):
            v.pop(k, None)
        for x in v.values():
            strip(x)
    elif isinstance(v, list):
        for x in v:
            strip(x)
strip(d)
json.dump(d, open(sys.argv[2], "w"))' "$TMP/b.json" "$TMP/old.json"
refused "a summary of an older iowatcher" "$TMP/old.json" \
	"without latency histograms.*--summary=json"
sed 's/"bits": 7, "max_bits"/"bits": 3, "max_bits"/' "$TMP/b.json" \
	> "$TMP/bits3.json"
refused "another bucket resolution" "$TMP/bits3.json" \
	"version 1, bits 3, max_bits 44; this iowatcher merges log-linear version 1, bits 7"
sed 's/"version": 1,/"version": 2,/' "$TMP/b.json" > "$TMP/v2.json"
refused "another scheme version" "$TMP/v2.json" "version 2"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
h = d["traces"][0]["devices"][0]["latency_by_class"]["read"]["q2c_us"]["hist"]
h[0][1] += 1
json.dump(d, open(sys.argv[2], "w"))' "$TMP/b.json" "$TMP/bad.json"
refused "a histogram that disagrees with its n" "$TMP/bad.json" \
	"trace 1, device [0-9]*,[0-9]*, read q2c_us: its histogram holds"
refused "a file that is not there" "$TMP/none.json" "cannot read it"
head -c 3000 "$TMP/b.json" > "$TMP/cut.json"
refused "a summary cut short" "$TMP/cut.json" "not an iowatcher summary (at byte"
{ echo '{"t": 1}'; cat "$TMP/b.json"; } > "$TMP/lines.json"
refused "JSON lines" "$TMP/lines.json" "more text after the document.*(of a --live=json stream, its last line)"

# usage
"$IOW" --merge-summaries "$TMP/a.json" -t "$TMP/a" > /dev/null 2> "$TMP/u.err"
check "--merge-summaries with -t: a usage error" \
	sh -c "[ $? = 2 ] && grep -q 'merge-summaries merges summaries' '$TMP/u.err'"
"$IOW" --merge-summaries "$TMP/a.json" --summary=stacks > /dev/null 2>&1
check "--merge-summaries --summary=stacks: a usage error" [ $? = 2 ]
finish
