#!/bin/sh
# t_huge.sh: huge and odd traces. A generated trace of 10 million events
# is read in memory that does not grow with its length (peak RSS within
# 25% of a 1-million-event one's); and traces at the edges of the
# numbers (offsets near 2^64 sectors and bytes, events days, centuries
# and 2^64 ns apart, with 1 ms bins, all at one instant, a single event,
# time going backwards between CPU files and within one, a process name
# that is not UTF-8) each end in
# exit 0 with a sane summary and picture, or in one line and exit 1 -
# never a crash, a sanitizer report or a hang.
. "$(dirname "$0")/lib.sh"
GEN="$BUILD/bench/gentrace"

# ---- memory does not grow with the trace ----
# within_25 SMALL BIG: both known, BIG at most 1.25 SMALL
within_25() { [ -n "$1" ] && [ -n "$2" ] && [ $(($2 * 4)) -le $(($1 * 5)) ]; }
# peak_kb ARGS...: the peak RSS of iowatcher ARGS, in KiB ("" if it failed)
peak_kb() {
	/usr/bin/time -f "%M" -o "$TMP/rss" "$IOW" "$@" > /dev/null 2> "$TMP/err" &&
		tail -n 1 "$TMP/rss"
}
if repeat_pass "10M events' memory (a sanitizer's allocator is not the program's)"; then
	:
elif [ ! -x /usr/bin/time ]; then
	skip "memory against length: /usr/bin/time not installed"
elif ! "$GEN" -o "$TMP/m1" -n 1000000 2> /dev/null ||
     ! "$GEN" -o "$TMP/m10" -n 10000000 2> "$TMP/gen10"; then
	skip "memory against length: no room for 500 MB of trace in $TMP"
else
	for out in "--summary=json" "-o $TMP/m.png"; do
		small=$(peak_kb -t "$TMP/m1" $out)
		big=$(peak_kb -t "$TMP/m10" $out)
		check "10M events ($out): read ($(head -c 100 "$TMP/err"))" [ -n "$big" ]
		check "10M events ($out): peak RSS ${big:-?} KiB, within 25% of 1M's ${small:-?} KiB" \
			within_25 "$small" "$big"
	done
	# every completion counted: gentrace's own totals are the oracle
	"$IOW" -t "$TMP/m10" --summary=json > "$TMP/m10.json"
	want="$(sed -n 's/^gentrace: reads completed \([0-9]*\) .*/\1/p' "$TMP/gen10") $(sed -n 's/^gentrace: writes completed \([0-9]*\) .*/\1/p' "$TMP/gen10")"
	got=$(python3 -c "import json; d=json.load(open('$TMP/m10.json'))['traces'][0]
print(sum(x['read']['ios'] for x in d['devices']), sum(x['write']['ios'] for x in d['devices']))")
	check "10M events: completions as generated ($got; gentrace: $want)" \
		[ "$got" = "$want" ]
	rm -f "$TMP"/m1.* "$TMP"/m10.*
fi

# ---- odd traces, built record by record ----
# mktrace.py OUT CASE: writes OUT (a dump) or OUT.blktrace.0/1 (per CPU)
cat > "$TMP/mktrace.py" <<'EOF'
import struct, sys

MAGIC7 = 0x65617407
QUEUE, GETRQ, ISSUE, COMPLETE = 1, 4, 7, 8
NOTE_PROCESS = (1 << 10) << 16
TC_READ, TC_WRITE, TC_QUEUE, TC_ISSUE, TC_COMPLETE = 1, 2, 16, 64, 128
CATS = {QUEUE: TC_QUEUE, GETRQ: TC_QUEUE, ISSUE: TC_ISSUE,
        COMPLETE: TC_COMPLETE}
DEV = 8 << 20
S = 1000000000


def record(t, code, sector, nbytes, write, cpu=0, pid=100, dev=DEV):
    action = code | ((CATS[code] | (TC_WRITE if write else TC_READ)) << 16)
    return struct.pack("<IIQQIIIIIHH", MAGIC7, 0, t, sector, nbytes, action,
                       pid, dev, cpu, 0, 0)


def io(t, sector, nbytes=4096, write=False, d2c=100000, q2d=10000, cpu=0):
    """Q G D C of one request queued at t (ns)."""
    return [(t, record(t, QUEUE, sector, nbytes, write, cpu)),
            (t, record(t, GETRQ, sector, nbytes, write, cpu)),
            (t + q2d, record(t + q2d, ISSUE, sector, nbytes, write, cpu)),
            (t + q2d + d2c, record(t + q2d + d2c, COMPLETE, sector, nbytes,
                                   write, cpu))]


def write(path, events, keep_order=False):
    if not keep_order:
        events = sorted(events, key=lambda e: e[0])
    with open(path, "wb") as f:
        f.write(b"".join(r for _, r in events))


out, case = sys.argv[1], sys.argv[2]
base = 1000 * S
if case == "huge-offsets":
    # sectors whose byte offset overflows (2^55 and up), the last sectors
    # of a 2^64-sector device, and a normal one for scale
    ev = []
    for i, sector in enumerate([8, 2**55 - 8, 2**55, 2**63 - 8, 2**63,
                                2**64 - 16, 2**64 - 1]):
        ev += io(base + i * S // 10, sector, write=bool(i & 1))
    write(out, ev)
elif case == "days-apart":
    write(out, io(base, 8) + io(base + 3 * 86400 * S, 16, write=True))
elif case == "centuries-apart":
    write(out, io(base, 8) + io(base + 2**63, 16, write=True))
elif case == "near-2^64-ns":
    # one request in flight from the start to 2^64 - 1 ms
    write(out, io(base, 8, q2d=0, d2c=2**64 - base - 10**6))
elif case == "comm-not-utf8":
    # a process name of Latin-1 bytes, tagged with -P
    comm = b"k\x89\x8brker/u256:1\0"
    note = struct.pack("<IIQQIIIIIHH", MAGIC7, 0, base, 0, 0, NOTE_PROCESS,
                       100, DEV, 0, 0, len(comm)) + comm
    write(out, [(base, note)] + io(base + 1, 8), keep_order=True)
elif case == "one-instant":
    ev = []
    for i in range(10):
        ev += [(base, r) for _, r in io(base, 8 * i, d2c=0, q2d=0,
                                        write=bool(i & 1))]
    write(out, ev, keep_order=True)
elif case == "one-event":
    write(out, [(base, record(base, QUEUE, 8, 4096, False))])
elif case == "one-io":
    write(out, io(base, 8))
elif case == "backwards-between-cpus":
    # cpu 1's clock far behind cpu 0's, and crossing it
    write(out + ".blktrace.0",
          [e for k in range(20) for e in io(base + k * S // 10, 8 * k, cpu=0)])
    write(out + ".blktrace.1",
          [e for k in range(20)
           for e in io(base - 500 * S + k * 30 * S, 1000 + 8 * k, cpu=1,
                       write=True)])
elif case == "backwards-within-file":
    # whole I/Os in a jumbled order, and one whose C comes before its Q
    ev = []
    for k in [5, 1, 9, 3, 0, 7]:
        ev += io(base + k * S, 8 * k)
    q, g, d, c = io(base + 20 * S, 800, write=True)
    ev += [c, d, q, g]
    write(out, ev, keep_order=True)
else:
    sys.exit("unknown case " + case)
EOF

# json_ok FILE [PYTHON-CONDITION on d, the first trace]: valid JSON, and
# the condition holds
json_ok() {
	python3 -c "import json, sys
d = json.load(open('$1', encoding='utf-8'))['traces'][0]
ios = sum(x[k]['ios'] for x in d['devices'] for k in ('read', 'write'))
sys.exit(0 if (${2:-True}) else 1)" 2> /dev/null
}
# odd NAME TRACE CONDITION [OPTIONS...]: --summary=json and -o PNG both
# end cleanly; when they succeed, the summary meets CONDITION
odd() {
	what=$1 trace=$2 cond=$3
	shift 3
	"$IOW" -t "$trace" --summary=json "$@" > "$TMP/odd.json" 2> "$TMP/err"; rc=$?
	if [ $rc = 0 ]; then
		check "$what, summary: exit 0, sane ($cond)" json_ok "$TMP/odd.json" "$cond"
	else
		check "$what, summary: exit $rc, one line ($(head -c 120 "$TMP/err"))" \
			sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ]"
	fi
	rm -f "$TMP/odd.png"
	"$IOW" -t "$trace" -o "$TMP/odd.png" "$@" 2> "$TMP/err"; rc=$?
	if [ $rc = 0 ]; then
		check "$what, picture: exit 0, a PNG" \
			sh -c "head -c 4 '$TMP/odd.png' | grep -q PNG"
	else
		check "$what, picture: exit $rc, one line, no file ($(head -c 120 "$TMP/err"))" \
			sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] && [ ! -e '$TMP/odd.png' ]"
	fi
	check "$what: no temporary left" sh -c "[ -z \"\$(find '$TMP' -name '*.tmp*')\" ]"
}

for c in huge-offsets days-apart centuries-apart near-2^64-ns one-instant \
	 one-event one-io backwards-within-file comm-not-utf8; do
	python3 "$TMP/mktrace.py" "$TMP/$c.dump" $c
done
python3 "$TMP/mktrace.py" "$TMP/bw" backwards-between-cpus

odd "offsets near 2^64" "$TMP/huge-offsets.dump" "ios == 7"
# every I/O in the map, rows in order (byte offsets that wrapped around
# 2^64 once scrambled the whole device's map)
"$IOW" -t "$TMP/huge-offsets.dump" --csv "$TMP/csv" 2> "$TMP/err"
check "offsets near 2^64: the map holds all 7 I/Os, each row's range in order" \
	python3 -c "import csv, sys
rows = list(csv.DictReader(open('$TMP/csv/io.csv')))
ok = sum(int(r['ios']) for r in rows) == 7 and all(
    int(r['offset_lo_bytes']) < int(r['offset_hi_bytes']) for r in rows)
sys.exit(0 if ok else 1)"
odd "offsets near 2^64, -y 0:1" "$TMP/huge-offsets.dump" "True" -y 0:1
odd "events 3 days apart, --bin-ms 1" "$TMP/days-apart.dump" \
	"ios == 2 and d['duration_s'] > 259199" --bin-ms 1
odd "events 3 days apart" "$TMP/days-apart.dump" "ios == 2"
odd "events 292 years apart, --bin-ms 1" "$TMP/centuries-apart.dump" \
	"ios == 2" --bin-ms 1
odd "events 292 years apart" "$TMP/centuries-apart.dump" "ios == 2"
# the last time bin ends beyond 2^64 ns (its end once wrapped: a hang)
odd "an I/O completing 2^64 ns - 1 ms later" "$TMP/near-2^64-ns.dump" "ios == 1"
odd "all events at one instant" "$TMP/one-instant.dump" \
	"ios == 10 and d['duration_s'] == 0"
odd "a single event" "$TMP/one-event.dump" "d['events'] == 1 and ios == 0"
odd "a single I/O" "$TMP/one-io.dump" "ios == 1"
odd "time backwards between CPU files" "$TMP/bw" "ios == 40"
odd "time backwards within a file" "$TMP/backwards-within-file.dump" "ios >= 6"
odd "time backwards within a file, -P" "$TMP/backwards-within-file.dump" \
	"ios >= 6" -P
# a name that is not UTF-8 once failed the whole picture (cairo refuses
# it) and made the JSON invalid; json_ok reads the JSON as strict UTF-8
odd "a process name that is not UTF-8, -P" "$TMP/comm-not-utf8.dump" \
	"ios == 1 and d['tags'][0]['label'] == 'k\ufffd\ufffdrker/u256:1 (100)'" -P
for out in png svg; do
	"$IOW" -t "$TMP/comm-not-utf8.dump" -P -o "$TMP/comm.$out" 2> "$TMP/err"
	check "a process name that is not UTF-8, -P: the $out is drawn ($(head -c 100 "$TMP/err"))" \
		[ -s "$TMP/comm.$out" ]
done
finish
