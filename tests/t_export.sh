#!/bin/sh
# t_export.sh: the latency graphs' maths on a trace with a known answer
# (half the I/Os take 100 us in the device, half 10 ms), and --csv: every
# graph's CSV re-adds to the summary's totals.
. "$(dirname "$0")/lib.sh"
"$TOP/tests/tools/bimodal" "$TMP/bi.dump" 1000
"$IOW" -t "$TMP/bi.dump" --summary=json > "$TMP/bi.json"
q() { python3 -c "import json; d=json.load(open('$TMP/bi.json'))['traces'][0]['devices'][0]['d2c_us']; print(d['$1'])"; }
near() { python3 -c "import sys; sys.exit(abs($1 - $2) > $2 * $3)"; }
check "bimodal: p50 at 100 us ($(q p50))" near "$(q p50)" 100 0.01
check "bimodal: p99 at 10 ms ($(q p99))" near "$(q p99)" 10000 0.01
check "bimodal: mean 5050 us ($(q mean))" near "$(q mean)" 5050 0.001

"$IOW" -t "$TMP/bi.dump" -O latency-heatmap -O latency-hist -O latency \
	--csv "$TMP/bi" -o "$TMP/bi.png"
bands=$(python3 - "$TMP/bi/latency-heatmap.csv" <<'PY'
import csv, sys
near100 = near10m = between = 0
for row in csv.DictReader(open(sys.argv[1])):
    lo, hi, n = float(row['latency_lo_us']), float(row['latency_hi_us']), int(row['ios'])
    if lo <= 100 < hi: near100 += n
    elif lo <= 10000 <= hi: near10m += n
    else: between += n
print(near100, near10m, between)
PY
)
check "heat map: two bands, 500 I/Os at 100 us and 500 at 10 ms, none between ($bands)" [ "$bands" = "500 500 0" ]
hist=$(python3 - "$TMP/bi/latency-hist.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
counts = {}
for r in rows[1:]:
    for v in r[1:]:
        if v: counts[int(float(r[0]))] = counts.get(int(float(r[0])), 0) + float(v)
print(int(counts.get(64, 0)), int(counts.get(8192, 0)), int(sum(counts.values())))
PY
)
check "latency histogram: 500 in 64-128 us, 500 in 8-16 ms ($hist)" [ "$hist" = "500 500 1000" ]
check "heat map renders" [ -s "$TMP/bi.png" ]
# Latency in us in every file, as the summary gives it.
maxes=$(python3 - "$TMP/bi" "$TMP/bi.json" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[2]))['traces'][0]['devices'][0]['d2c_us']
rows = list(csv.DictReader(open(sys.argv[1] + '/latency.csv')))
m = max(float(r['read_d2c_max_us']) for r in rows if r['read_d2c_max_us'])
print('ok' if abs(m - d['max']) <= 0.01 * d['max'] else 'no: %g us, summary %g' % (m, d['max']))
PY
)
check "CSV: latency max in us as the summary's ($maxes)" [ "$maxes" = ok ]
ns=$(head -q -n 1 "$TMP"/bi/*.csv | tr ',' '\n' | grep -c '_ns$')
check "CSV: no latency column in ns ($ns)" [ "$ns" = 0 ]

# CSV re-adds to the summary, on a recorded trace.
S="$TOP/samples/fio-randrw"
"$IOW" -t "$S" --summary=json --csv "$TMP/csv" -O tput -O iops -O io > "$TMP/s.json"
sums=$(python3 - "$TMP/s.json" "$TMP/csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))['traces'][0]['devices'][0]
t = list(csv.DictReader(open(sys.argv[2] + '/tput.csv')))
i = list(csv.DictReader(open(sys.argv[2] + '/iops.csv')))
io = list(csv.DictReader(open(sys.argv[2] + '/io.csv')))
ok = []
for k in ('read', 'write'):
    b = sum(float(r[k + '_mb_per_s']) * float(r['span_s']) for r in t) * 1e6
    n = sum(float(r[k + '_ios_per_s']) * float(r['span_s']) for r in i)
    ok.append(abs(b - d[k]['bytes']) <= 1e-6 * d[k]['bytes'])
    ok.append(round(n) == d[k]['ios'])
    ok.append(sum(int(r['ios']) for r in io if r['direction'] == k) == d[k]['ios'])
    ok.append(sum(int(r['bytes']) for r in io if r['direction'] == k) == d[k]['bytes'])
print(' '.join('ok' if x else 'no' for x in ok))
PY
)
check "CSV: tput, iops and io cells re-add to the summary ($sums)" [ "$sums" = "ok ok ok ok ok ok ok ok" ]
check "CSV: every file has a header row" sh -c "head -1 '$TMP/csv/tput.csv' | grep -q '^time_s,span_s,'"
check "CSV: columns name their unit ($(head -1 "$TMP/csv/tput.csv"))" \
	[ "$(head -1 "$TMP/csv/tput.csv")" = "time_s,span_s,read_mb_per_s,write_mb_per_s" ]
check "CSV: latency columns in us ($(head -1 "$TMP/bi/latency.csv" | cut -d, -f3))" \
	[ "$(head -1 "$TMP/bi/latency.csv" | cut -d, -f3)" = read_d2c_mean_us ]
# No file of a header alone: no mpstat beside the dump, no fio log; and
# none left from an earlier run into the same directory.
mkdir -p "$TMP/bi2"
echo stale > "$TMP/bi2/cpu-sys.csv"
"$IOW" -t "$TMP/bi.dump" -O cpu-sys -O fio -O latency --csv "$TMP/bi2" 2> "$TMP/err"
check "CSV: no file for a graph without data ($(ls "$TMP/bi2" | tr '\n' ' '))" \
	[ "$(ls "$TMP/bi2")" = latency.csv ]
# A short trace is mapped finer than its 1 ms bins: dd-write's 32
# sequential writes over 9 ms fall in 32 columns of 10 us, not in 9.
"$IOW" -t "$TOP/samples/dd-write" --csv "$TMP/dd" -O io 2> "$TMP/err"
cols=$(tail -n +2 "$TMP/dd/io.csv" | cut -d, -f2,3 | sort -u)
check "io map of a 9 ms trace: a column per write ($(echo "$cols" | wc -l) of 32)" \
	[ "$(echo "$cols" | wc -l)" = 32 ]
check "io map of a 9 ms trace: 10 us columns" \
	[ "$(echo "$cols" | cut -d, -f2 | sort -u)" = 1e-05 ]
"$IOW" -t "$S" --csv "$TMP/nodir/x/y" -O tput 2> "$TMP/err"; rc=$?
check "CSV: unwritable directory is one line, exit 1" [ $rc = 1 -a "$(wc -l < "$TMP/err")" = 1 ]
finish
