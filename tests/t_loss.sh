#!/bin/sh
# t_loss.sh: a trace whose recording lost events, as every recorder leaves
# it (a loss note where the loss began, tests/tools/make_lossy.py on a real
# sample): the loss is counted and located in the summary and its JSON,
# blkparse prints the note, and nothing the loss took shows as latency or
# queue depth: the window is shaded in every time panel, the latency and
# depth have no value there (picture and CSV), and the figures outside it
# are the trace's own.
. "$(dirname "$0")/lib.sh"
MK="$TOP/tests/tools/make_lossy.py"
PROBE="$TOP/tests/tools/pngprobe"
S="$TOP/samples/overlap-fio"
cd "$TMP" || exit 1
n=$(python3 "$MK" "$S" lossy 1 0.3 0.6)
check "the window held events of cpu 1 ($n)" [ "${n:-0}" -gt 100 ]

"$IOW" -t lossy --summary=json > lossy.json
"$IOW" -t "$S" --summary=json > whole.json
check "JSON: the count, the window and the CPU" python3 - lossy.json "$n" <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
w = t["loss_windows"]
assert t["lost_events"] == int(sys.argv[2]) and t["lost_count_known"], t
assert len(w) == 1 and w[0]["cpus"] == [1] and not w[0]["noted_late"], w
assert abs(w[0]["from_s"] - 0.3) < 1e-6 and abs(w[0]["to_s"] - 0.6) < 1e-6, w
assert abs(t["lossy_s"] - 0.3) < 1e-6, t["lossy_s"]
EOF2
check "no latency or depth the loss made up" python3 - lossy.json whole.json <<'EOF2'
import json, sys
lossy = json.load(open(sys.argv[1]))["traces"][0]["devices"][0]
whole = json.load(open(sys.argv[2]))["traces"][0]["devices"][0]
for k in ("d2c_us", "q2c_us"):
    assert lossy[k]["max"] <= whole[k]["max"] + 1e-3, (k, lossy[k], whole[k])
    assert lossy[k]["p99"] <= whole[k]["p99"] * 1.25, (k, lossy[k], whole[k])
# fio ran 8 in flight: a depth above it would be made up
assert lossy["queue_depth_mean"] <= whole["queue_depth_mean"] * 1.25 + 0.05, (lossy, whole)
assert lossy["lost_in_flight"] >= 0
EOF2
"$IOW" -t lossy --summary > lossy.txt
check "text: the loss in words under the trace's line" \
	grep -q "^ LOST $n events on CPU 1, from 0.300 s to 0.600 s (0.300 s of the 1.001 s): no latency or queue depth is counted then, and the [0-9]* I/Os in flight as it began are not timed$" lossy.txt
if command -v blkparse > /dev/null; then
	check "blkparse prints the loss note" sh -c \
		"blkparse -i lossy 2>/dev/null | grep -aq ' m   N lost $n events on cpu 1, from '"
else
	skip "blkparse prints the loss note: blkparse missing"
fi

# The picture: the window shaded in every time panel, no line inside it.
IOWATCHER_LAYOUT=layout "$IOW" -t lossy -O io -O tput -O latency \
	-O queue-depth -o lossy.png
# px GRAPH T0 T1 COLOUR: pixels of COLOUR in GRAPH's area from T0 to T1 s
px() {
	awk -v g="$1" -v t0="$2" -v t1="$3" '$1 == g && $2 == 0 {
		x0 = $3 + (t0 - $7) / ($8 - $7) * $5
		x1 = $3 + (t1 - $7) / ($8 - $7) * $5
		printf "%d %d %d %d\n", x0, $4 + 2, x1, $4 + $6 - 2; exit }' layout |
	{ read a b c d; "$PROBE" lossy.png "$a" "$b" "$c" "$d" $4; }
}
TINT="FAE5E3 3"	# the tint over white, where no hatch line runs
for g in io tput latency queue-depth; do
	in=$(px $g 0.35 0.55 "$TINT") out=$(px $g 0.65 0.95 "$TINT")
	check "$g: the window is shaded ($in px), after it not ($out px)" \
		[ "$in" -gt 50 -a "$out" = 0 ]
done
check "latency: no line inside the window" \
	[ "$(px latency 0.32 0.58 0072B2)" = 0 -a "$(px latency 0.32 0.58 D55E00)" = 0 ]
check "queue depth: no line inside the window" [ "$(px queue-depth 0.32 0.58 000000)" = 0 ]
check "queue depth: its line before and after it" \
	[ "$(px queue-depth 0.05 0.25 000000)" -gt 0 -a "$(px queue-depth 0.7 0.95 000000)" -gt 0 ]
if command -v pdftotext > /dev/null; then
	"$IOW" -t lossy -O tput -o lossy.pdf
	check "the page says how many events were lost" \
		sh -c "pdftotext lossy.pdf - | tr '\n' ' ' | grep -q '$n events lost'"
else
	skip "the page's words: pdftotext missing"
fi

# The CSV: what is drawn, so the depth has no value in the window's bins.
"$IOW" -t lossy -O queue-depth --csv csv --bin-ms 50
check "CSV: the depth is empty in the window's bins, there outside it" python3 - csv/queue-depth.csv <<'EOF2'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
inside = [r for r in rows if 0.3 - 1e-9 <= float(r[0]) < 0.6 - 1e-9]
outside = [r for r in rows if float(r[0]) < 0.3 - 1e-9 or float(r[0]) >= 0.6 - 1e-9]
assert len(inside) == 6 and all(r[2] in ("", "nan") for r in inside), inside
assert outside and all(r[2] not in ("", "nan") for r in outside), outside[:3]
EOF2

# The live view of the trace read from stdin: the loss per interval, and
# every interval as the summary tells it afterwards.
if command -v blkparse > /dev/null; then
	blkparse -i lossy -d lossy.dump -o /dev/null > /dev/null 2>&1
	"$IOW" -t - --live=json --interval 0.1 < lossy.dump > live.jsonl 2> live.err
	check "--live: the loss in the intervals where it began" python3 - live.jsonl "$n" <<'EOF2'
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1])]
assert sum(i["lost_in_interval"] for i in iv) == int(sys.argv[2]), iv
lost = [i for i in iv if i["lost_in_interval"]]
assert len(lost) == 1 and abs(lost[0]["start_s"] - 0.3) < 1e-6, lost
assert [round(i["lossy_s"], 6) for i in iv[2:7]] == [0, 0.1, 0.1, 0.1, 0], iv
EOF2
	if python3 "$TOP/tests/live_vs_summary.py" "$IOW" lossy.dump live.jsonl > cmp.out; then
		pass "--live: each interval as --summary -x says ($(tail -n 1 cmp.out))"
	else
		fail "--live: each interval as --summary -x says" "$(head -n 3 cmp.out)"
	fi
else
	skip "--live of the lossy trace: blkparse missing"
fi

# A loss whose start the recorder did not know: counted, no window (it
# would be the whole trace), said so.
m=$(python3 "$MK" "$S" late 0 0.2 0.5 --unknown-start)
"$IOW" -t late --summary > late.txt
check "unknown start: no window, the count said" \
	sh -c "grep -q '^ LOST $m events at times the recorder could not tell: a completion is paired with the newest request of its sector, so none is timed from an older one whose completion was lost$' late.txt && ! grep -q 'from 0.' late.txt"

# Completions the kernel made without running the recorder (its note says
# how many, not where nor when): no window, the summary says so, nothing
# is timed from a request whose completion went unseen, and those requests
# come off the queue depth. A random-read trace whose sectors come again.
"$TOP/bench/gentrace" -o "$TMP/g" -n 300000 -s 3 --mix randread-seqwrite 2> /dev/null
python3 "$MK" g unseen --drop-completions 20 > /dev/null
"$IOW" -t g --summary=json > g.json
"$IOW" -t unseen --summary=json > unseen.json
check "unseen completions: counted, no window, the requests off the depth" python3 - g.json unseen.json <<'EOF2'
import json, sys
whole = json.load(open(sys.argv[1]))["traces"][0]
t = json.load(open(sys.argv[2]))["traces"][0]
assert t["lost_unlocated"] == 20 and t["lost_events"] == 20, t
assert t["loss_windows"] == [] and t["lossy_s"] == 0, t
assert sum(d["unseen_completions"] for d in t["devices"]) == 20, t["devices"]
for w, d in zip(whole["devices"], t["devices"]):
    # nothing timed from the wrong request: no latency the loss made up
    assert d["d2c_us"]["max"] <= w["d2c_us"]["max"] + 1e-3, (d["d2c_us"], w["d2c_us"])
    assert abs(d["d2c_us"]["mean"] - w["d2c_us"]["mean"]) <= 0.005 * w["d2c_us"]["mean"], (d["d2c_us"], w["d2c_us"])
    assert abs(d["queue_depth_mean"] - w["queue_depth_mean"]) <= 0.02 * w["queue_depth_mean"] + 0.01, (d["queue_depth_mean"], w["queue_depth_mean"])
EOF2
"$IOW" -t unseen --summary > unseen.txt
check "unseen completions: the summary says what was done of them" \
	grep -q "^ LOST 20 events at times the recorder could not tell (completions the kernel made without running it): the 20 requests longest in flight at the end are taken as theirs and left out of the queue depth; a completion is paired" unseen.txt
# Unseen completions and a loss window after them: the window forgets
# the requests in flight, those whose completions went unseen among them;
# they are still taken as the unseen ones (oldest first), so the depth
# before the window is the trace's, not climbing by each unseen one (it
# did: 15% over the mean of the same window without them)
k=$(python3 "$MK" unseen mixed 1 0.3 0.5)
python3 "$MK" g win 1 0.3 0.5 > /dev/null
"$IOW" -t mixed --summary=json > mixed.json
"$IOW" -t win --summary=json > win.json
check "unseen completions before a window: all 20 taken, the depth the window's alone" \
	python3 - mixed.json win.json <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
w = json.load(open(sys.argv[2]))["traces"][0]
assert sum(d["unseen_completions"] for d in t["devices"]) == 20, t["devices"]
for d, e in zip(t["devices"], w["devices"]):
    assert abs(d["queue_depth_mean"] - e["queue_depth_mean"]) <= 0.02 * e["queue_depth_mean"], (d["queue_depth_mean"], e["queue_depth_mean"])
EOF2

# The page's title: a loss of no known time has no window to shade; a
# trace with both says which is shaded
if command -v pdftotext > /dev/null; then
	"$IOW" -t unseen -O tput -o unseen.pdf
	check "unseen completions: the page says they were lost, not shaded" \
		sh -c "pdftotext unseen.pdf - | tr '\n' ' ' | grep -q '20 events lost at unknown times: not in latency or depth)' && ! pdftotext unseen.pdf - | grep -q shaded"
	"$IOW" -t mixed -O tput -o mixed.pdf
	check "unseen completions and a window: the page says the window is shaded" \
		sh -c "pdftotext mixed.pdf - | tr '\n' ' ' | grep -q '$((k + 20)) events lost: shaded where known'"
else
	skip "the page's title for unseen completions: pdftotext missing"
fi

# The loss is the CPU's, every device's: a --device filter keeps it.
"$IOW" -t lossy -d 7,1 --summary=json > one.json
check "--device keeps the loss" python3 -c "
import json; t = json.load(open('one.json'))['traces'][0]
assert t['lost_events'] == $n and len(t['loss_windows']) == 1"
finish
