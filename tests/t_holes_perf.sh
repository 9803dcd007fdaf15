#!/bin/sh
# t_holes_perf.sh: perf's text with loss (issue #36). perf record loses
# records when its buffer is full and its text says so only with
# perf script --show-lost-events (PERF_RECORD_LOST lines).
#  - tests/data/perf-lossy/fio-m1.perf.txt.xz, recorded here with a
#    one-page buffer (-m 1) under fio's 4 KiB random I/O at depth 2x32 on
#    a loop device (64% of the records lost; recipe in its README), and
#    a fresh recording of the same where this machine can: with the
#    PERF_RECORD_LOST lines the loss is recorded loss (lost_events > 0,
#    a loss window not inferred); without them the loss is inferred (a
#    loss window with "inferred": true, or orphan_requests /
#    unmatched_completions); either way no number is made up: the loop
#    device's D2C and Q2C max at most fio's own max latency of the same
#    I/Os, its mean queue depth at most fio's depth (64).
#  - exact duplicates: samples/perf-fio.perf.txt.xz with the submission
#    records (bio_queue, getrq, rq_insert, rq_issue) of 43 I/Os printed
#    twice, each copy right after its record: the copies are dropped and
#    counted (the text summary says "N duplicate records", the JSON has
#    N under a key naming duplicates) and every other figure is the
#    original's.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null && command -v xz >/dev/null ||
	{ skip "python3 or xz missing"; finish; exit $?; }

# bounds FILE FIOJSON DEV: prints what breaks fio's bounds on DEV in the
# --summary=json in FILE (nothing when all hold)
bounds() {
	python3 - "$@" <<'EOF'
import json, lzma, sys
doc = json.load(open(sys.argv[1]))
f = sys.argv[2]
fio = json.load(lzma.open(f) if f.endswith(".xz") else open(f))
lat = max(j[k][m]["max"] for j in fio["jobs"] for k in ("read", "write")
          for m in ("lat_ns", "clat_ns"))
depth = sum(int(j["job options"].get("iodepth", 1)) *
            int(j["job options"].get("numjobs", 1)) for j in fio["jobs"])
bad = []
for t in doc["traces"]:
    for d in t["devices"]:
        if d["device"] != sys.argv[3]:
            continue
        for k in ("d2c_us", "q2c_us"):
            if d[k]["max_ns"] > lat:
                bad.append("%s max %.1f us above fio's max latency %.1f us"
                           % (k[:3].upper(), d[k]["max_ns"] / 1e3, lat / 1e3))
        if d["queue_depth_mean"] > depth:
            bad.append("queue depth %.3f above fio's %d"
                       % (d["queue_depth_mean"], depth))
print("; ".join(bad))
EOF
}
# said FILE: the loss inferred in the --summary=json in FILE
said() {
	python3 - "$1" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
inf = [w for w in t.get("loss_windows", []) if w.get("inferred")]
n = sum(d.get("orphan_requests", 0) + d.get("unmatched_completions", 0)
        for d in t["devices"])
print("%d inferred windows, %d orphan requests + unmatched completions"
      % (len(inf), n))
sys.exit(0 if inf or n else 1)
EOF
}
# recorded FILE: the loss recorded in the --summary=json in FILE
recorded() {
	python3 - "$1" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
rec = [w for w in t.get("loss_windows", []) if not w.get("inferred")]
print("lost_events %s, %d recorded windows" % (t["lost_events"], len(rec)))
sys.exit(0 if t["lost_events"] and rec else 1)
EOF
}

# reused TEXT FIOJSON DEV LATLOG: whether every I/O of DEV that TEXT's
# reading times over fio's max latency is at an offset fio wrote or read
# more than once (fio's per-I/O logs LATLOG_clat.*.log, --log_offset=1):
# the completion of the second I/O there, whose issue perf lost, paired
# with the first, whose completion it lost; nothing in the text tells
# the pair from one slow request (a limit analysis/ACCOUNTING.md names).
# Prints what it found; exits 1 when an I/O over the bound is at an
# offset fio used once (a number made up with no such excuse).
reused() {
	"$IOW" -t "$1" --events - 2> /dev/null | python3 -c '
import csv, glob, json, lzma, sys
f, dev, lat = sys.argv[1], sys.argv[2], sys.argv[3]
fio = json.load(lzma.open(f) if f.endswith(".xz") else open(f))
top = max(j[k][m]["max"] for j in fio["jobs"] for k in ("read", "write")
          for m in ("lat_ns", "clat_ns")) / 1e3
uses = {}
for g in glob.glob(lat + "_clat.*.log"):
    for line in open(g):
        x = [v.strip() for v in line.split(",")]
        if len(x) >= 5:
            uses[int(x[4])] = uses.get(int(x[4]), 0) + 1
over = [r for r in csv.DictReader(sys.stdin) if r["device"] == dev and
        max(float(r["d2c_us"] or 0), float(r["q2c_us"] or 0)) > top]
once = [r["sector"] for r in over if uses.get(int(r["sector"]) * 512, 0) < 2]
if not over or once or not uses:
    print("%d I/Os over %.1f us, at sectors fio used once: %s"
          % (len(over), top, " ".join(once[:5]) or "-"))
    sys.exit(1)
print("%d I/Os over it, each at a sector fio used %s times"
      % (len(over), "/".join(str(uses[int(r["sector"]) * 512]) for r in over[:5])))
' "$2" "$3" "$4"
}

# lossy NAME TEXT FIOJSON DEV [LATLOG]: the checks of a perf text with loss
lossy() {
	grep -v PERF_RECORD_LOST "$2" > "$TMP/$1-nolost.txt"
	if ! grep -q PERF_RECORD_LOST "$2"; then
		fail "$1: the text has PERF_RECORD_LOST lines"
		return
	fi
	for v in lost nolost; do
		f="$TMP/$1-$v.txt"
		[ $v = lost ] && f=$2
		if ! "$IOW" -t "$f" --summary=json > "$TMP/$1-$v.json" 2> "$TMP/$1.err"
		then
			fail "$1 ($v): --summary=json" "$(head -n 1 "$TMP/$1.err")"
			continue
		fi
		why=$(bounds "$TMP/$1-$v.json" "$3" "$4")
		if [ -z "$why" ]; then pass "$1 ($v): $4 within fio's bounds"
		elif [ $v = nolost ] && [ -n "${5:-}" ] &&
		     known=$(reused "$f" "$3" "$4" "$5"); then
			echo "   known: $1 ($v): $4 over fio's bounds ($why) where the text holds no evidence: $known (analysis/ACCOUNTING.md's limits)"
		else fail "$1 ($v): $4 within fio's bounds" "$why"; fi
	done
	if why=$(recorded "$TMP/$1-lost.json"); then
		pass "$1: with --show-lost-events, recorded loss ($why)"
	else fail "$1: with --show-lost-events, recorded loss" "$why"; fi
	if why=$(said "$TMP/$1-nolost.json"); then
		pass "$1: without, the loss inferred ($why)"
	else fail "$1: without, the loss inferred" "$why"; fi
}

# 1. the shipped recording
D="$TOP/tests/data/perf-lossy"
xz -dc "$D/fio-m1.perf.txt.xz" > "$TMP/fio-m1.perf.txt"
lossy shipped "$TMP/fio-m1.perf.txt" "$D/fio-m1.fio.json.xz" 7,0

# 2. exact duplicates
xz -dc "$TOP/samples/perf-fio.perf.txt.xz" > "$TMP/perf-fio.txt"
n=$(python3 - "$TMP/perf-fio.txt" "$TMP/perf-dup.txt" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines(keepends=True)
sub = ("block:block_bio_queue:", "block:block_getrq:",
       "block:block_rq_insert:", "block:block_rq_issue:")
rec = re.compile(r"\[(\d+)\]\s+\S+\s+(block:\w+:)\s+(\d+,\d+)\s.*?(\d+) \+ \d+")
dup, issues = set(), 0
for i, l in enumerate(lines):
    m = rec.search(l)
    if not m or m.group(2) != "block:block_rq_issue:" or i % 7:
        continue
    cpu, dev, sector = m.group(1), m.group(3), m.group(4)
    group = [i]
    for j in range(i - 1, max(-1, i - 40), -1):
        k = rec.search(lines[j])
        if not k or k.group(1) != cpu:
            continue
        if (k.group(3), k.group(4)) == (dev, sector):
            if k.group(2) in ("block:block_rq_issue:",
                              "block:block_rq_complete:",
                              "block:block_bio_complete:"):
                break
            if k.group(2) in sub:
                group.append(j)
    dup.update(group)
    issues += 1
    if issues == 43:
        break
with open(sys.argv[2], "w") as f:
    for i, l in enumerate(lines):
        f.write(l)
        if i in dup:
            f.write(l)
print(len(dup))
EOF
)
"$IOW" -t "$TMP/perf-fio.txt" --summary=json > "$TMP/orig.json"
"$IOW" -t "$TMP/perf-fio.txt" --summary > "$TMP/orig.txt"
if "$IOW" -t "$TMP/perf-dup.txt" --summary=json > "$TMP/dup.json" 2> "$TMP/dup.err" &&
   "$IOW" -t "$TMP/perf-dup.txt" --summary > "$TMP/dup.txt" 2>> "$TMP/dup.err"; then
	if grep -Eq "(^|[^0-9])$n duplicate" "$TMP/dup.txt"; then
		pass "duplicates: the summary says $n duplicate records"
	else fail "duplicates: the summary says $n duplicate records" \
		"$(grep -i duplicate "$TMP/dup.txt" | head -n 1)"
	fi
	why=$(python3 - "$TMP/orig.json" "$TMP/dup.json" "$n" <<'EOF'
import json, sys
def strip(o, found):
    if isinstance(o, dict):
        out = {}
        for k, v in o.items():
            if "duplicate" in k:
                found.append(v)
            elif k not in ("source", "label"):
                out[k] = strip(v, found)
        return out
    if isinstance(o, list):
        return [strip(x, found) for x in o]
    return o
a, b, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
fa, fb = [], []
sa, sb = strip(a, fa), strip(b, fb)
bad = []
if n not in fb:
    bad.append("no key naming duplicates holds %d (%s)" % (n, fb))
if sa != sb:
    ta, tb = sa["traces"][0], sb["traces"][0]
    diff = [k for k in set(ta) | set(tb) if ta.get(k) != tb.get(k)]
    bad.append("figures differ from the original's: %s" % ", ".join(sorted(diff)))
print("; ".join(bad))
EOF
)
	if [ -z "$why" ]; then
		pass "duplicates: $n copies dropped and counted, the rest the original's"
	else fail "duplicates: copies dropped and counted" "$why"; fi
else
	fail "duplicates: --summary of the text with copies" "$(head -n 1 "$TMP/dup.err")"
fi

# 3. a fresh recording with loss forced
if [ "${IOW_REPEAT:-0}" = 1 ]; then
	repeat_pass "the recording"
elif ! command -v perf >/dev/null || ! command -v fio >/dev/null; then
	skip "a fresh perf recording: perf or fio missing"
elif ! loop_device 256M; then
	skip "a fresh perf recording: $LOOP_WHY"
else
	tracing_lock
	# perf.data in memory: written to a disk it would trace its own I/O
	out=$(mktemp -d /dev/shm/iow-perf.XXXXXX)
	if perf record -q -e 'block:*' -a -m 1 -o "$out/perf.data" -- \
		fio --name=busy --filename="$LOOP" --rw=randrw --bs=4k --size=200M \
		--io_size=4M --iodepth=32 --numjobs=2 --ioengine=libaio --direct=1 \
		--group_reporting --output-format=json --output="$TMP/fio.json" \
		--write_lat_log="$TMP/lat" --log_offset=1 \
		> "$TMP/perf.out" 2>&1 &&
	   perf script -i "$out/perf.data" --ns --show-lost-events \
		> "$TMP/fresh.txt" 2>> "$TMP/perf.out"; then
		rm -rf "$out"
		dev=$(stat -L -c '%t,%T' "$LOOP")
		dev=$(printf '%d,%d' "0x${dev%,*}" "0x${dev#*,}")
		if grep -q PERF_RECORD_LOST "$TMP/fresh.txt"; then
			lossy fresh "$TMP/fresh.txt" "$TMP/fio.json" "$dev" "$TMP/lat"
		else
			skip "a fresh perf recording: perf lost nothing this time"
		fi
	else
		rm -rf "$out"
		skip "a fresh perf recording: perf cannot record here ($(tail -n 1 "$TMP/perf.out"))"
	fi
fi
finish
