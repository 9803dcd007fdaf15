#!/bin/sh
# t_inferred.sh: holes the trace's own evidence shows (issue #36, the
# product side: analysis/analysis_holes.c and perf text's repeats). From
# the shipped samples, with records taken out (tests/tools/make_holes.py):
#  - trace.dat whose loop device lost every completion in a window (512):
#    the requests judged lost (orphan_requests 512), out of the depth
#    (77.8 before; at most 0.05 now: the whole's is 0.027), a HOLE line;
#  - two-devices' blkparse -d dump (or its files merged) with every
#    completion of 40-45% of the span gone: 7,0's depth 113.9 before,
#    now under 2 with the loss inferred (orphans, window, HOLE line);
#  - the picture of the first: its title says what is inferred;
#  - perf script's text with 43 issues printed twice: "43 duplicate
#    records ignored", duplicate_records 43, the rest as the intact text;
#  - ext4-fsync's flushes torn five ways (a flush's own evidence), and
#    overlap-fio's read left queued when its issue was lost;
#  - discard with one CPU's records of 4 ms gone (few pairings), overlap-
#    fio with rewrites piled up after lost completions, and completions
#    gone at the end of a recording with the kernel's account note: each
#    said, each depth or latency near the whole's.
. "$(dirname "$0")/lib.sh"
MH="$TOP/tests/tools/make_holes.py"

if ! command -v python3 >/dev/null || ! command -v xz >/dev/null; then
	skip "inferred: python3 or xz missing"
	finish
	exit $?
fi

# field FILE.json DEVICE KEY: a device's number in a --summary=json
field() {
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
if sys.argv[3] == "inferred":
    print(sum(1 for w in t["loss_windows"] if w.get("inferred")))
else:
    print([d for d in t["devices"] if d["device"] == sys.argv[2]][0][sys.argv[3]])
' "$@"
}

xz -dc "$TOP/samples/tracedat-fio.dat.xz" > "$TMP/td.dat"
python3 "$MH" "$TMP/td.dat" "$TMP/td-c.dat" completions --seed 83 > /dev/null
"$IOW" -t "$TMP/td-c.dat" --summary=json > "$TMP/td.json" 2> /dev/null
"$IOW" -t "$TMP/td-c.dat" --summary > "$TMP/td.txt" 2> /dev/null
o=$(field "$TMP/td.json" 7,0 orphan_requests)
dep=$(field "$TMP/td.json" 7,0 queue_depth_mean)
if [ "$o" = 512 ] && awk "BEGIN { exit !($dep <= 0.05) }" &&
   grep -q "HOLE inferred on 7,0: 512 requests whose completions were lost" "$TMP/td.txt"; then
	pass "inferred: trace.dat, 512 completions lost: 512 orphans, depth $dep"
else
	fail "inferred: trace.dat, 512 completions lost" "orphans $o, depth $dep"
fi

if command -v blkparse >/dev/null; then
	blkparse -i two-devices -D "$TOP/samples" -d "$TMP/two.dump" -O \
		> /dev/null 2>&1
fi
if [ ! -s "$TMP/two.dump" ]; then
	python3 - "$TOP/samples/two-devices" "$TMP/two.dump" <<'PY'
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
PY
fi
python3 "$MH" "$TMP/two.dump" "$TMP/two-c.dump" completions --from 0.40 \
	--to 0.45 > /dev/null
"$IOW" -t "$TMP/two-c.dump" --summary=json > "$TMP/two.json" 2> /dev/null
"$IOW" -t "$TMP/two-c.dump" --summary > "$TMP/two.txt" 2> /dev/null
o=$(field "$TMP/two.json" 7,0 orphan_requests)
dep=$(field "$TMP/two.json" 7,0 queue_depth_mean)
w=$(field "$TMP/two.json" 7,0 inferred)
if [ "$o" -ge 150 ] && [ "$w" -ge 1 ] && awk "BEGIN { exit !($dep < 2) }" &&
   grep -q "HOLE inferred on 7,0:" "$TMP/two.txt"; then
	pass "inferred: two-devices, 5% of completions lost: $o orphans, $w windows, depth $dep (113.9 before)"
else
	fail "inferred: two-devices, 5% of completions lost" "orphans $o, windows $w, depth $dep"
fi

# the picture's title says what an inferred window is: the lost requests
# left latency and depth, the window's time stays in the depth's mean
# (the recorded loss's "no latency or depth there" is not true of it)
if command -v pdftotext >/dev/null &&
   "$IOW" -t "$TMP/td-c.dat" -o "$TMP/td.pdf" > /dev/null 2>&1; then
	title=$(pdftotext "$TMP/td.pdf" - | tr '\n' ' ')
	case $title in
	*"records missing, inferred: shaded; the requests lost there are in no latency or depth, the others are)"*)
		pass "inferred: the picture's title says the inferred window as it is";;
	*) fail "inferred: the picture's title" "$(echo "$title" | cut -c1-200)";;
	esac
else
	skip "inferred: the picture's title (no pdftotext, or no PDF)"
fi

xz -dc "$TOP/samples/perf-fio.perf.txt.xz" > "$TMP/p.txt"
awk '/block_rq_issue/ && n < 43 && NR % 7 == 0 { print; n++ } { print }' \
	"$TMP/p.txt" > "$TMP/pdup.txt"
"$IOW" -t "$TMP/p.txt" --summary 2> /dev/null | sed 1d > "$TMP/p.sum"
"$IOW" -t "$TMP/pdup.txt" --summary 2> /dev/null > "$TMP/pdup.sum"
d=$("$IOW" -t "$TMP/pdup.txt" --summary=json 2> /dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["duplicate_records"])')
if [ "$d" = 43 ] && grep -q "^ 43 duplicate records ignored" "$TMP/pdup.sum" &&
   grep -v "duplicate records ignored" "$TMP/pdup.sum" | sed 1d |
   cmp -s - "$TMP/p.sum"; then
	pass "inferred: perf text, 43 records printed twice: ignored, counted, the rest as the intact text"
else
	fail "inferred: perf text, 43 records printed twice" "duplicate_records $d"
fi
# the discard sample (fstrim: 5 requests paired) with one CPU's records
# of 4 ms gone (seed 445): 12 discards out to the end, depth 9.255 and
# nothing said before the rule for devices that paired 4 to 7; now a
# HOLE line and the depth at most the whole's (0.385) x 1.15 + 0.01
python3 "$MH" "$TOP/samples/discard" "$TMP/d445" cpu --seed 445 > /dev/null
"$IOW" -t "$TMP/d445" --summary=json > "$TMP/d445.json" 2> /dev/null
"$IOW" -t "$TMP/d445" --summary > "$TMP/d445.txt" 2> /dev/null
dep=$(field "$TMP/d445.json" 7,0 queue_depth_mean)
if grep -q "HOLE inferred on 7,0: 12 requests whose completions were lost" "$TMP/d445.txt" &&
   awk "BEGIN { exit !($dep <= 0.453) }"; then
	pass "inferred: discard, one CPU's completions gone: 12 lost, depth $dep"
else
	fail "inferred: discard, one CPU's completions gone" "depth $dep: $(grep HOLE "$TMP/d445.txt")"
fi

# overlap-fio, every completion from 0.145 to 0.184 s gone (seed 7):
# writes rewriting 4 sectors pile up; paired 12-16 ms back, the write
# D2C mean read 1,279 us (whole 548); with the overtaken ones taken
# while more than twice the queue's bound is in flight, at most 1.15x
python3 "$MH" "$TOP/samples/overlap-fio" "$TMP/o7" completions --seed 7 > /dev/null
w=$("$IOW" -t "$TOP/samples/overlap-fio" --summary=json 2> /dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["devices"][0]["latency_by_class"]["write"]["d2c_us"]["mean"])')
l=$("$IOW" -t "$TMP/o7" --summary=json 2> /dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["devices"][0]["latency_by_class"]["write"]["d2c_us"]["mean"])')
if [ -n "$w" ] && [ -n "$l" ] && awk "BEGIN { exit !($l <= 1.15 * $w) }"; then
	pass "inferred: overlap-fio, completions gone: write D2C mean $l us (whole $w)"
else
	fail "inferred: overlap-fio, completions gone: write D2C mean" "$l us, whole $w"
fi

# a flush's own evidence (rule 5), on ext4-fsync's fsync loops with
# records taken out: each said (an inferred window), and no flush timed
# longer than the whole trace's longest (9.3 ms), where the flush
# pairing across the hole read 21-79 ms before (seed 396: nothing
# said), on 8638ee9 (mode, seed, flush max before in ms, what)
flush_case() {
	python3 "$MH" "$TOP/samples/ext4-fsync" "$TMP/f$2" "$1" --seed "$2" > /dev/null
	"$IOW" -t "$TMP/f$2" --summary=json > "$TMP/f$2.json" 2> /dev/null
	r=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
d = t["devices"][0]
print(d["flush"]["d2c_us"]["max_ns"], sum(1 for w in t["loss_windows"] if w.get("inferred")))
' "$TMP/f$2.json" 2>/dev/null)
	set -- "$1" "$2" "$3" "$4" $r
	if [ -n "$6" ] && [ "$5" -le "$wmax" ] && [ "$6" -ge 1 ]; then
		pass "inferred: ext4-fsync, $4 ($1 seed $2): $6 window(s), flush max $(($5 / 1000)) us (whole $(($wmax / 1000)))"
	else
		fail "inferred: ext4-fsync, $4 ($1 seed $2)" "flush max ${5:-?} ns (whole $wmax, $3 ms before), ${6:-?} windows"
	fi
}
wmax=$("$IOW" -t "$TOP/samples/ext4-fsync" --summary=json 2> /dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["devices"][0]["flush"]["d2c_us"]["max_ns"])')
flush_case all 124 77 "a held pairing, then a data step never queued"
flush_case cpu 243 21 "a held pairing, then the end of a sequence never opened"
flush_case completions 209 50 "a preflushed write issued while its flush waits"
flush_case completions 345 79 "a second flush issued on a CPU while its first waits"
flush_case all 396 0 "a flush completion with none in flight"

# overlap-fio with one CPU's records of 0.374-0.417 s gone (seed 1016):
# a read of sector 168 whose issue was lost stayed queued, and each
# later read of it took the one before it (Q2C 120-201 ms); now no Q2C
# past the whole's longest
python3 "$MH" "$TOP/samples/overlap-fio" "$TMP/o1016" cpu --seed 1016 > /dev/null
q=$("$IOW" -t "$TMP/o1016" --summary=json 2> /dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["devices"][0]["q2c_us"]["max_ns"])')
wq=$("$IOW" -t "$TOP/samples/overlap-fio" --summary=json 2> /dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["devices"][0]["q2c_us"]["max_ns"])')
if [ -n "$q" ] && [ -n "$wq" ] && [ "$q" -le "$wq" ]; then
	pass "inferred: overlap-fio, a bio left waiting: Q2C max $(($q / 1000)) us (whole $(($wq / 1000)))"
else
	fail "inferred: overlap-fio, a bio left waiting" "Q2C max $q ns, whole $wq"
fi

# the kernel's own count: tracedat-fio's blktrace files (recorded by
# iowatcher: an account note) with every completion of the last 1% of
# the span gone; the requests torn there are too young for the age
# rules (10 of 14 found before), the kernel's in-flight count finds all
python3 "$MH" "$TOP/samples/tracedat-fio" "$TMP/tf" completions --from 0.99 --to 1.0 > "$TMP/tf.info"
torn=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["torn"])' "$TMP/tf.info")
"$IOW" -t "$TMP/tf" --summary=json > "$TMP/tf.json" 2> /dev/null
o=$(field "$TMP/tf.json" 7,0 orphan_requests)
if [ -n "$torn" ] && [ "$torn" -gt 0 ] && [ "$o" = "$torn" ]; then
	pass "inferred: completions gone at a recording's end: the kernel's count finds all $torn"
else
	fail "inferred: completions gone at a recording's end" "orphan_requests $o of $torn torn"
fi
# and the account of the kernel's count says where they went
check "inferred: the kernel's count's account names them judged lost, none unexplained" python3 -c "
import json, sys
d = [d for d in json.load(open('$TMP/tf.json'))['traces'][0]['devices'] if d['device'] == '7,0'][0]['account']
assert d['inferred_holes'] == $torn and d['unexplained'] == 0, d
assert d['text'].endswith(': $torn judged lost by the trace\'s own evidence (inferred holes)'), d['text']"
finish
