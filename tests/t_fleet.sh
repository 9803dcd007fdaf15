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
# 954788713879 ns; the first event is at 956298440676 ns, the first
# completion 259569 ns later
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
fi
finish
