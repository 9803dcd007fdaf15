#!/bin/sh
# t_holes.sh: holes in a trace never become numbers (issue #36). Records
# taken out of one window as a lossy tracer leaves them, without a word
# (tests/tools/make_holes.py: every completion, every issue, one CPU's
# records or every record, over 1-10% of the span, seeded), of every
# shipped sample and of each input kind: blktrace's per-CPU files, a
# blkparse -d dump (blkparse's own where it is installed, else the
# per-CPU files merged in time order), perf script's text, trace.dat;
# and of a fresh recording by each recorder (bpf, ftrace) of fio on a
# loop device, where this machine can record. tests/holes_check.py says
# what each case must hold: each device's queue depth at most 1.15x the
# whole trace's (+0.01), D2C and Q2C max at most the whole's, p50-p99
# of the I/Os still timed equal to those I/Os' in the whole, and the
# loss said (a loss window with "inferred": true, or orphan_requests /
# unmatched_completions) where the drop tore I/Os; each intact trace
# infers nothing. overlap-fio still fails it on some windows (writes
# at rewritten sectors left paired with the issue before theirs: issue
# #36 is open, analysis/ACCOUNTING.md, "Not caught"), and so do the
# fresh recordings on some (each run's I/O is another: a missed case
# comes and goes): their failures are printed as known, not counted,
# unless
# HOLES_STRICT=1, as make fuzz runs it. HOLES_CASES cases (default 204: a few seconds);
# make fuzz runs thousands, HOLES_SEED moves the seeds.
. "$(dirname "$0")/lib.sh"
CASES=${HOLES_CASES:-204}
SEED=${HOLES_SEED:-1}

if ! command -v python3 >/dev/null || ! command -v xz >/dev/null; then
	skip "holes: python3 or xz missing"
	finish
	exit $?
fi

set --
for f in "$TOP"/samples/*.blktrace.0; do
	n=$(basename "$f" .blktrace.0)
	set -- "$@" "$n=$TOP/samples/$n"
done
# the dumps: of a one-device and a two-device trace
for n in ext4-causes two-devices; do
	if command -v blkparse >/dev/null; then
		blkparse -i "$n" -D "$TOP/samples" -d "$TMP/$n.dump" -O \
			> /dev/null 2>&1
	fi
	if [ ! -s "$TMP/$n.dump" ]; then
		python3 - "$TOP/samples/$n" "$TMP/$n.dump" <<'EOF'
import glob, struct, sys
recs = []
for p in sorted(glob.glob(sys.argv[1] + ".blktrace.*")):
    d, pos = open(p, "rb").read(), 0
    while pos + 48 <= len(d):
        n = struct.unpack_from("<H", d, pos + 46)[0]
        recs.append((struct.unpack_from("<Q", d, pos + 8)[0], len(recs),
                     d[pos:pos + 48 + n]))
        pos += 48 + n
open(sys.argv[2], "wb").write(b"".join(r for t, i, r in sorted(recs)))
EOF
	fi
	set -- "$@" "$n.dump=$TMP/$n.dump"
done
xz -dc "$TOP/samples/perf-fio.perf.txt.xz" > "$TMP/perf-fio.perf.txt"
xz -dc "$TOP/samples/tracedat-fio.dat.xz" > "$TMP/tracedat-fio.dat"
set -- "$@" "perf-text=$TMP/perf-fio.perf.txt" "trace.dat=$TMP/tracedat-fio.dat"

# the tool itself on trace.dat, where it writes records over inside the
# ring buffer's pages: trace-cmd reads every record kept at its time to
# the nanosecond, and no other
if command -v trace-cmd >/dev/null; then
	for mode in all cpu; do
		python3 "$TOP/tests/tools/make_holes.py" "$TMP/tracedat-fio.dat" \
			"$TMP/td-$mode.dat" $mode --from 0.1 --to 0.6 --cpu 0 \
			> "$TMP/td-$mode.info"
		trace-cmd report -t "$TMP/tracedat-fio.dat" 2>/dev/null |
			grep ' block_' > "$TMP/td-whole.txt"
		trace-cmd report -t "$TMP/td-$mode.dat" 2>/dev/null |
			grep ' block_' > "$TMP/td-$mode.txt"
		n=$(sed 's/.*"dropped": \([0-9]*\).*/\1/' "$TMP/td-$mode.info")
		new=$(diff "$TMP/td-whole.txt" "$TMP/td-$mode.txt" | grep -c '^>')
		gone=$(($(wc -l < "$TMP/td-whole.txt") - $(wc -l < "$TMP/td-$mode.txt")))
		if [ "$n" -gt 0 ] && [ "$gone" = "$n" ] && [ "$new" = 0 ]; then
			pass "make_holes on trace.dat ($mode): $n records gone, the rest as they were"
		else fail "make_holes on trace.dat ($mode)" "$n dropped, $gone gone, $new changed"
		fi
	done
else
	skip "make_holes on trace.dat: no trace-cmd to read it back"
fi

# fresh recordings, each recorder: fio's random reads and writes beside
# a buffered writer, on a loop device
record() {
	tracer=$1
	mkdir -p "$TMP/rec-$tracer"
	# in $TMP: what it draws after recording (NAME.svg) goes there
	if (cd "$TMP" && "$IOW" -d "$LOOP" -D "$TMP/rec-$tracer" -t "$tracer" \
		--tracer "$tracer" -p "$WORK") > "$TMP/rec-$tracer.out" 2>&1 &&
	   [ -s "$TMP/rec-$tracer/$tracer.blktrace.0" ]; then
		RECORDED="$RECORDED rec-$tracer=$TMP/rec-$tracer/$tracer"
	else
		skip "holes: no $tracer recording here ($(tail -n 1 "$TMP/rec-$tracer.out"))"
		RECORDED="$RECORDED rec-$tracer="
	fi
}
RECORDED=
if [ "${IOW_REPEAT:-0}" = 1 ]; then
	repeat_pass "the recordings"
	RECORDED="rec-bpf= rec-ftrace="
elif ! command -v fio >/dev/null; then
	skip "holes: no recording (fio missing)"
	RECORDED="rec-bpf= rec-ftrace="
elif ! loop_device 64M; then
	skip "holes: no recording ($LOOP_WHY)"
	RECORDED="rec-bpf= rec-ftrace="
else
	tracing_lock
	WORK="fio --name=rw --filename=$LOOP --rw=randrw --bs=4k --size=32M --io_size=6M --iodepth=8 --ioengine=libaio --direct=1 --output=/dev/null --name=wb --filename=$LOOP --rw=write --bs=64k --size=8M --offset=40M --end_fsync=1"
	record bpf
	record ftrace
	# recording done: the tracing lock is free for others
	exec 9>&-
fi

python3 "$TOP/tests/holes_check.py" "$IOW" "$TMP" "$CASES" "$SEED" \
	"$@" $RECORDED > "$TMP/holes.out" 2>&1
status=$?
cases=0
while IFS= read -r line; do
	case $line in
	"PASS "*) pass "holes: ${line#PASS }";;
	"FAIL "*) fail "holes: ${line#FAIL }";;
	"KNOWN "*) echo "   known: holes: ${line#KNOWN }";;
	"cases "*) cases=${line#cases };;
	*) echo "$line";;
	esac
done < "$TMP/holes.out"
if [ "$status" != 0 ]; then
	fail "holes: tests/holes_check.py exit $status"
elif [ "$cases" -lt "$CASES" ]; then
	fail "holes: $cases cases of $CASES ran"
else
	pass "holes: $cases cases"
fi

# a loss note past the trace's last event (issue #40's finding: perf
# text whose last block line, a completion, is damaged, then a LOST
# note): what was in flight is forgotten at the last record, and no
# depth runs past the trace's end. 254,0's one request was issued at the
# last event (26.61 us), so its true mean depth is 0 (the note's time
# made it 16.6)
R="$TOP/tests/data/regress/perftext/perftext-depth-past-span.perf.txt"
if "$IOW" -t "$R" --summary=json > "$TMP/past.json" 2> "$TMP/past.err"; then
	res=$(python3 - "$TMP/past.json" <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
d = [d for d in t["devices"] if d["device"] == "254,0"][0]
area = d["queue_depth_area_s"]
print("ok" if d["queue_depth_mean"] <= 1e-9 and area <= 1e-12 and
      t["lost_events"] else
      "depth %.4f, area %.9f s over %.6f s" %
      (d["queue_depth_mean"], area, t["duration_s"]))
EOF2
)
	if [ "$res" = ok ]; then
		pass "a LOST note past the last event: 254,0's depth 0 (none past the trace's end)"
	else
		fail "a LOST note past the last event" "$res"
	fi
else
	fail "a LOST note past the last event: exit $?" "$(head -n 1 "$TMP/past.err")"
fi

# --merge-summaries adds what the holes say: orphan_requests and
# unmatched_completions per device, duplicate_records per trace (a lossy
# copy losing completions, one losing issues, perf's text with a record
# printed twice)
python3 "$TOP/tests/tools/make_holes.py" "$TOP/samples/two-devices" \
	"$TMP/m-orph" completions --from 0.1 --to 0.2 > /dev/null
python3 "$TOP/tests/tools/make_holes.py" "$TOP/samples/two-devices" \
	"$TMP/m-unm" issues --from 0.3 --to 0.4 > /dev/null
awk '/block_rq_issue/ && !d { print; d = 1 } { print }' \
	"$TMP/perf-fio.perf.txt" > "$TMP/m-dup.txt"
for t in m-orph m-unm m-dup.txt; do
	"$IOW" -t "$TMP/$t" --summary=json > "$TMP/$t.json" 2>/dev/null
done
"$IOW" --merge-summaries "$TMP/m-orph.json" "$TMP/m-unm.json" \
	"$TMP/m-dup.txt.json" --summary=json > "$TMP/merged.json" 2>&1
res=$(python3 - "$TMP/m-orph.json" "$TMP/m-unm.json" "$TMP/m-dup.txt.json" \
	"$TMP/merged.json" <<'EOF2'
import json, sys
def sums(p):
    t = json.load(open(p))["traces"][0]
    return [sum(d.get(k, 0) for d in t["devices"])
            for k in ("orphan_requests", "unmatched_completions")] + \
        [t.get("duplicate_records", 0)]
parts = [sums(p) for p in sys.argv[1:4]]
want = [sum(x) for x in zip(*parts)]
got = sums(sys.argv[4])
print("ok" if got == want and all(want) else
      "merged %s, the parts add to %s" % (got, want))
EOF2
)
if [ "$res" = ok ]; then
	pass "--merge-summaries adds orphan_requests, unmatched_completions, duplicate_records"
else
	fail "--merge-summaries and the holes' counts" "$res"
fi
finish
