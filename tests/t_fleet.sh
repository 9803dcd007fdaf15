#!/bin/sh
# t_fleet.sh: the per-I/O log carries what a fleet's logs are put
# together by: host (a recording's note, else --host), device_name (a
# note, else the name of blktrace's own files: sda.blktrace.0) and
# wall_time (the completion on the wall clock, from the trace's TIMESTAMP
# note, the time between it and the first event added; empty where the
# trace does not say: a blkparse -d dump, whose notes are not on the
# events' clock), after the columns scripts read before. Then the
# README's DuckDB query (scripts/fleet.sql, run by tests/fleet_check.js
# with DuckDB from npm) takes three samples' logs, each as a host, to
# per-host and fleet-wide p99 and to Parquet: each host's p99 is its
# --summary's within the histogram's 0.4%.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples"

header=$("$IOW" -t "$S/dd-write" --events - | head -n 1)
check "the new columns come last" [ "$header" = \
"trace,time_s,device,class,sector,bytes,q2d_us,d2c_us,q2c_us,pid,comm,cgroup,file,tag,io,host,device_name,wall_time" ]

# dd-write: the TIMESTAMP note says 1795317437.781736412 s at
# 954788713879 ns; the first event (a QUEUE in cpu 1's file) is at
# 956298181107 ns, its completion, the first, 259569 ns later
first=$("$IOW" -t "$S/dd-write" --events - | sed -n 2p)
check "wall_time: the note's wall clock plus the time from the note to the completion" \
	[ "${first##*,}" = "2026-11-22T03:17:19.291463209Z" ]
case "$first" in
*,,,2026-*) pass "host and device_name empty where the trace does not say";;
*) fail "host and device_name empty where the trace does not say" "$first";;
esac

# blktrace's own files named after the device
cp "$S/dd-write.blktrace.0" "$TMP/loop1.blktrace.0"
cp "$S/dd-write.blktrace.1" "$TMP/loop1.blktrace.1"
row=$("$IOW" -t "$TMP/loop1" --host db-7 --events - | sed -n 2p)
case "$row" in
*,db-7,loop1,2026-11-22T03:17:19.291463209Z) pass "--host names the host, the files' name the device";;
*) fail "--host names the host, the files' name the device" "$row";;
esac
row=$("$IOW" -t "$S/dd-write" --host db-7 --events - | sed -n 2p)
case "$row" in
*,db-7,,2026-*) pass "a trace's name that is no device's names none";;
*) fail "a trace's name that is no device's names none" "$row";;
esac

# a dump counts its events from 0 but keeps its notes' times: no wall clock
if command -v blkparse > /dev/null; then
	(cd "$TMP" && blkparse -i "$S/dd-write" -d dd.dump -o /dev/null > /dev/null 2>&1)
	row=$("$IOW" -t "$TMP/dd.dump" --events - | sed -n 2p)
	case "$row" in
	*,) pass "a dump's rows have no wall_time rather than a wrong one";;
	*) fail "a dump's rows have no wall_time rather than a wrong one" "$row";;
	esac
	# and of this program's own BPF recording, whose clock snapshot
	# note a dump keeps beside events counted from another 0 (its
	# wall_time came out the recording machine's uptime early)
	R="$TOP/tests/data/compare/alone"
	if command -v zstd > /dev/null; then
		for f in "$R".blktrace.*.zst; do
			zstd -q -d -c "$f" > "$TMP/own.$(basename "$f" .zst | sed 's/^alone\.//')"
		done
		(cd "$TMP" && blkparse -i own -d own.dump -o /dev/null > /dev/null 2>&1)
		whole=$("$IOW" -t "$TMP/own" --events - | sed -n 2p)
		row=$("$IOW" -t "$TMP/own.dump" --events - | sed -n 2p)
		case "$whole|$row" in
		*,vm,loop0,2026-11-28T09:53:22.337930018Z\|*,vm,loop0,)
			pass "a dump of a BPF recording: no wall_time; the recording itself has it";;
		*) fail "a dump of a BPF recording: no wall_time; the recording itself has it" "$whole | $row";;
		esac
	else
		skip "a dump of a BPF recording's wall_time: zstd is missing"
	fi
else
	skip "a dump's wall_time: blkparse is missing (apt-get install blktrace)"
fi

"$IOW" -t "$S/dd-write" --events "$TMP/e.jsonl" > /dev/null
check "JSON lines: null host, null device_name, the wall_time" \
	grep -q '"host": null, "device_name": null, "wall_time": "2026-11-22T03:17:19.291463209Z"}' "$TMP/e.jsonl"

if "$IOW" -t "$S/dd-write" --host x -o "$TMP/x.png" 2> "$TMP/err"; then
	fail "--host without --events is refused"
else
	check "--host without --events is refused, saying what to add" \
		grep -q -- "^iowatcher: --host .*give --events FILE too" "$TMP/err"
fi

# ---- a recorder's notes: host, device, clock snapshot ----
# dd-write with the notes our recorders write at the start (recnote.h),
# the snapshot's boottime 11.286121 ms after its monotonic time
t0=$(python3 "$TOP/tests/tools/add_recnotes.py" "$S/dd-write" "$TMP/noted" 954800000000)
row=$("$IOW" -t "$TMP/noted" --host other --events - | sed -n 2p)
case "$row" in
*,db-7,loop1,2026-11-22T03:17:19.291463209Z) pass "the notes name host and device (over --host); the snapshot's wall clock is the TIMESTAMP note's";;
*) fail "the notes name host and device (over --host); the snapshot's wall clock is the TIMESTAMP note's" "$row";;
esac
python3 "$TOP/tests/tools/add_recnotes.py" "$S/dd-write" "$TMP/off" 954800000000 \
	"host two words" "device 7,1 is" > /dev/null
row=$("$IOW" -t "$TMP/off" --events - | sed -n 2p)
case "$row" in
*,,,2026-*) pass "notes off the format by a word name nothing";;
*) fail "notes off the format by a word name nothing" "$row";;
esac

# Perfetto: times on the trace's clock, a snapshot to boottime
if command -v protoc > /dev/null; then
	pdecode() {
		protoc --decode=perfetto.protos.Trace -I "$TOP/tests/data/perfetto" \
			perfetto_trace.proto < "$1" > "$2"
	}
	"$IOW" -t "$TMP/noted" -o "$TMP/noted.pftrace" --summary=json > "$TMP/noted.json"
	"$IOW" -t "$S/dd-write" -o "$TMP/plain.pftrace" > /dev/null
	pdecode "$TMP/noted.pftrace" "$TMP/noted.txt"
	pdecode "$TMP/plain.pftrace" "$TMP/plain.txt"
	python3 - "$TMP/noted.txt" "$TMP/plain.txt" "$t0" > "$TMP/clock.out" <<'PY'
import re, sys
noted, plain = (open(p).read() for p in sys.argv[1:3])
t0 = int(sys.argv[3])
snap = re.search(r"clock_snapshot \{(.*?)\n  \}", noted, re.S)
clocks = dict((int(a), int(b)) for a, b in re.findall(
    r"clock_id: (\d+)\s+timestamp: (\d+)", snap.group(1))) if snap else {}
print("snapshot", clocks == {6: 954800000000, 3: t0, 1: 1795317437781736412}
      and "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME" in snap.group(1))
ts = lambda text: [int(x) for x in re.findall(r"\n  timestamp: (\d+)", text)]
# the first event of dd-write is at 956298181107 ns on its clock
print("shifted", ts(noted) == [x + 956298181107 for x in ts(plain)]
      and len(ts(plain)) > 0)
print("clock_id", noted.count("timestamp_clock_id: 3") == len(ts(noted)))
print("plain", "clock_snapshot" not in plain and "timestamp_clock_id" not in plain)
PY
	check "Perfetto: a ClockSnapshot of boottime, monotonic (the trace's) and realtime, boottime primary" \
		grep -qx "snapshot True" "$TMP/clock.out"
	check "Perfetto: each time is the trace's clock, the first event's time added" \
		grep -qx "shifted True" "$TMP/clock.out"
	check "Perfetto: every timestamped packet says its clock is monotonic" \
		grep -qx "clock_id True" "$TMP/clock.out"
	check "Perfetto: a trace without the snapshot keeps times from its first event, on no clock" \
		grep -qx "plain True" "$TMP/clock.out"
	if out=$(python3 "$TOP/tests/pftrace_check.py" "$TMP/noted.txt" "$TMP/noted.json"); then
		pass "Perfetto on the trace's clock: lanes, slices and counters hold ($out)"
	else
		fail "Perfetto on the trace's clock: lanes, slices and counters hold" "$out"
	fi
else
	skip "Perfetto's clock snapshot: protoc missing (make deps installs it)"
fi

# ---- what our recorders note, recording here ----
T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! command -v losetup > /dev/null; then why="losetup missing"
elif ! command -v blkparse > /dev/null; then why="blkparse missing"
elif repeat_pass "the recordings"; then why=repeat
fi
if [ -n "$why" ]; then
	[ "$why" = repeat ] || skip "the recorders' notes: $why"
else
	tracing_lock
	IMG=$(mktemp /dev/shm/iow-fleet.XXXXXX)
	truncate -s 64M "$IMG"
	DEV=$(losetup -f --show "$IMG") || fail "losetup"
	trap 'losetup -d "$DEV" 2> /dev/null; rm -f "$IMG"; lib_cleanup' EXIT
	devname=$(sed -n 's/^DEVNAME=//p' "/sys/class/block/$(basename "$DEV")/uevent")
	for tr in bpf ftrace; do
		before=$(date +%s.%N)
		if ! "$IOW" -d "$DEV" -D "$TMP" -t "rec-$tr" --tracer "$tr" -o "$TMP/rec-$tr.svg" -p \
			"dd if=/dev/zero of=$DEV bs=64k count=20 oflag=direct status=none" \
			> "$TMP/rec-$tr.out" 2>&1; then
			skip "the $tr recorder's notes: it cannot record here ($(tail -n 1 "$TMP/rec-$tr.out"))"
			continue
		fi
		after=$(date +%s.%N)
		check "$tr: the notes blkparse prints: host, device, clock" sh -c "
			blkparse -i rec-$tr -D '$TMP' 2>/dev/null > '$TMP/rec-$tr.txt'
			grep -q ' m   N host $(uname -n)\$' '$TMP/rec-$tr.txt' &&
			grep -q ' m   N device [0-9]*,[0-9]* is $devname\$' '$TMP/rec-$tr.txt' &&
			grep -q ' m   N clock monotonic at [0-9]* ns: boottime [0-9]* ns, realtime [0-9]* ns\$' '$TMP/rec-$tr.txt'"
		row=$("$IOW" -t "$TMP/rec-$tr" --events - | sed -n 2p)
		wall=${row##*,}
		check "$tr: the log's host $(uname -n), device $devname, and a wall_time in the recording's seconds ($wall)" \
			python3 - "$row" "$(uname -n)" "$devname" "$before" "$after" <<'PY'
import datetime, sys
row, host, dev, before, after = sys.argv[1:]
fields = row.split(",")
wall = datetime.datetime.strptime(fields[-1][:26], "%Y-%m-%dT%H:%M:%S.%f")
t = wall.replace(tzinfo=datetime.timezone.utc).timestamp()
sys.exit(not (fields[-3] == host and fields[-2] == dev and
              float(before) <= t <= float(after)))
PY
	done
fi

# ---- the fleet query, with DuckDB ----
mkdir "$TMP/fleet" "$TMP/fleet/logs"
sep=""
for s in fio-randrw ext4-causes overlap-fio; do
	"$IOW" -t "$S/$s" --host "host-$s" --events "$TMP/fleet/logs/$s.csv" \
		--summary=json > "$TMP/$s.json" || fail "$s: the log and the summary"
	printf '%s{"host": "host-%s", "csv": "%s", "summary": "%s"}\n' "$sep" \
		"$s" "$TMP/fleet/logs/$s.csv" "$TMP/$s.json"
	sep=","
done > "$TMP/hosts"
{ echo "["; cat "$TMP/hosts"; echo "]"; } > "$TMP/spec.json"
check "the README shows scripts/fleet.sql as it is" python3 -c '
import sys
readme, sql = (open(p).read() for p in sys.argv[1:3])
sys.exit(sql not in readme)' "$TOP/README.md" "$TOP/scripts/fleet.sql"
if ! command -v node > /dev/null; then
	skip "the DuckDB query: node is missing (apt-get install nodejs)"
else
	node "$TOP/tests/fleet_check.js" "$TOP/scripts/fleet.sql" \
		"$TMP/fleet" "$TMP/spec.json" > "$TMP/duck.out" 2>&1
	while read -r line; do
		case "$line" in
		"ok   "*) pass "duckdb: ${line#ok   }";;
		"FAIL "*) fail "duckdb: ${line#FAIL }";;
		"skipped: "*) skip "${line#skipped: }";;
		*) echo "     $line";;
		esac
	done < "$TMP/duck.out"
	grep -qE '^(ok|FAIL|skipped)' "$TMP/duck.out" ||
		fail "the DuckDB checks ran" "$(tail -n 3 "$TMP/duck.out")"
	# the README's line for a user without a duckdb command
	if [ -d "$TOP/web/node_modules/@duckdb/node-api" ]; then
		rm -f "$TMP/fleet/fleet.parquet"
		(cd "$TMP/fleet" && node "$TOP/scripts/duckdb.js" < "$TOP/scripts/fleet.sql") \
			> "$TMP/readme-duck.out" 2> "$TMP/readme-duck.err"
		check "the README's 'node scripts/duckdb.js < scripts/fleet.sql' prints both tables and writes fleet.parquet" \
			sh -c "grep -q '^host	device' '$TMP/readme-duck.out' &&
			       grep -q '^hosts	bios' '$TMP/readme-duck.out' &&
			       [ -s '$TMP/fleet/fleet.parquet' ] && [ ! -s '$TMP/readme-duck.err' ]"
		check "the README gives that line" grep -q 'node PATH/TO/iowatcher/scripts/duckdb.js < PATH/TO/iowatcher/scripts/fleet.sql' "$TOP/README.md"
	else
		skip "the README's duckdb.js line: web/node_modules/@duckdb/node-api is missing (cd web && npm ci)"
	fi
fi
finish
