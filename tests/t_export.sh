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
for c in range(1, len(rows[0])):
    share = {int(float(r[0])): float(r[c]) for r in rows[1:] if r[c]}
    print('%s %g %g %g' % (rows[0][c], share.get(64, 0), share.get(8192, 0),
                           sum(share.values())))
PY
)
check "latency histogram: each line 50 % in 64-128 us, 50 % in 8-16 ms ($(echo $hist))" \
	sh -c "[ -n '$hist' ] && echo '$hist' | awk '\$2 != 50 || \$3 != 50 || \$4 != 100 { exit 1 }'"
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
	[ "$(echo "$cols" | cut -d, -f2 | sort -u)" = 0.00001 ]
"$IOW" -t "$S" --csv "$TMP/nodir/x/y" -O tput 2> "$TMP/err"; rc=$?
check "CSV: unwritable directory is one line, exit 1" [ $rc = 1 -a "$(wc -l < "$TMP/err")" = 1 ]
# ---- an overlay's CSV: each trace re-adds to its own summary ----
# two-devices (2.34 s) and fio-randrw (5.02 s) share 10 ms bins: the
# longer one's rows go on past the shorter's end, and the bin that
# ends the shorter trace (cut short: 3 ms) keeps its own span.
overlay_sums() {
	python3 - "$1" "$2" <<'PY'
import csv, json, re, sys
d = json.load(open(sys.argv[1]))
rows = {g: list(csv.DictReader(open('%s/%s.csv' % (sys.argv[2], g))))
        for g in ('iops', 'tput', 'io')}
out = []
for t in d['traces']:
    p = re.sub('[^a-z0-9]+', '_', t['label'].lower()).strip('_')
    for k in ('read', 'write'):
        ios = sum(dv[k]['ios'] for dv in t['devices'])
        nbytes = sum(dv[k]['bytes'] for dv in t['devices'])
        col = '%s_%s_ios_per_s' % (p, k)
        n = sum(float(r[col]) * float(r['span_s']) for r in rows['iops']
                if r.get(col))
        col = '%s_%s_mb_per_s' % (p, k)
        b = sum(float(r[col]) * float(r['span_s']) for r in rows['tput']
                if r.get(col)) * 1e6
        cells = [r for r in rows['io']
                 if r['trace'] == t['label'] and r['direction'] == k]
        ok = (round(n) == ios and abs(b - nbytes) <= 1e-6 * nbytes + 1 and
              sum(int(r['ios']) for r in cells) == ios and
              sum(int(r['bytes']) for r in cells) == nbytes)
        if not ok:
            out.append('%s %s: %.2f of %d I/Os, %.0f of %d bytes' %
                       (t['label'], k, n, ios, b, nbytes))
print('; '.join(out) or 'ok')
PY
}
for pair in "two-devices fio-randrw" "fio-randrw two-devices"; do
	set -- $pair
	rm -rf "$TMP/ov"
	"$IOW" -t "$TOP/samples/$1" -t "$TOP/samples/$2" --summary=json \
		--csv "$TMP/ov" -O iops -O tput -O io > "$TMP/ov.json" 2> "$TMP/err"
	r=$(overlay_sums "$TMP/ov.json" "$TMP/ov")
	check "overlay CSV, -t $1 -t $2: each trace's iops, tput and io cells re-add to its summary ($r)" \
		[ "$r" = ok ]
	[ "$1" = two-devices ] || continue
	last=$(python3 -c "
import csv, sys
print([r for r in csv.DictReader(open(sys.argv[1]))
       if r['fio_randrw_read_ios_per_s']][-1]['time_s'])" "$TMP/ov/iops.csv")
	check "overlay CSV: the longer trace's rows go on to its end (last fio-randrw row at $last s)" \
		[ "$last" = 5.02 ]
done
ends=$(grep -c '^2\.34,' "$TMP/ov/iops.csv")
check "overlay CSV: the bin the shorter trace's end cuts short has a row of its own ($ends rows at 2.34 s)" \
	[ "$ends" = 2 ]

# ---- numbers as the unit reads them, not a float's binary noise ----
"$IOW" -t "$S" --csv "$TMP/num" -o "$TMP/num.png" 2> "$TMP/err"
noise=$(cat "$TMP"/num/*.csv | grep -oE '[0-9]+\.[0-9]*(9999|0000)[0-9]+' | head -3 | tr '\n' ' ')
check "CSV: no value with a float's noise (${noise:-none})" [ -z "$noise" ]
check "CSV: mpstat's percentages as it wrote them ($(sed -n 2p "$TMP/num/cpu.csv"))" \
	[ "$(sed -n 2p "$TMP/num/cpu.csv")" = "0,1,27.41,36.55,0,1.02,9.64" ]
check "CSV: cpu.csv has time_s and span_s as the other files ($(head -1 "$TMP/num/cpu.csv" | cut -d, -f1,2))" \
	[ "$(head -1 "$TMP/num/cpu.csv" | cut -d, -f1,2)" = time_s,span_s ]
spans=$(tail -n +2 "$TMP/num/cpu.csv" | cut -d, -f2 | sort -u)
check "CSV: every mpstat row spans its second ($spans)" [ "$spans" = 1 ]

# ---- the events log: flushes have a pid and comm, sector in 512 B ----
"$IOW" -t "$TOP/samples/ext4-causes" --events "$TMP/ev.csv" 2> "$TMP/err"
# (fields by name: the device "7,1" holds a comma)
field() {
	python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if eval(sys.argv[2]): print(eval(sys.argv[3]))" "$TMP/ev.csv" "$1" "$2"
}
flushes=$(field "r['class'] == 'flush'" "r['pid'] + ':' + r['comm']" | tr '\n' ' ')
# blkparse: "7,1 0 96 0.012122159 58 D FN [kworker/0:1H]", "... 44 D FN [kworker/1:1H]"
check "events: a flush's pid and comm, the task its D ran in ($flushes)" \
	[ "$flushes" = "58:kworker/0:1H 44:kworker/1:1H " ]
bad=$(field "not r['pid'].isdigit()" "r['pid']" | wc -l)
check "events: every row's pid an integer, the column reads as one ($bad not)" [ "$bad" = 0 ]
"$IOW" -t "$TOP/samples/ext4-causes" --events "$TMP/ev.jsonl" 2> "$TMP/err"
nulls=$(grep '"class": "flush"' "$TMP/ev.jsonl" | grep -c '"pid": null')
check "events JSONL: no flush with a null pid ($nulls)" [ "$nulls" = 0 ]
# the first read: blkparse "7,1 ... Q R 8742 + 2": sector 8742 of 512 B
first=$(field "r['io'] == '9'" "r['sector'] + ',' + r['bytes']")
check "events: sector as blkparse gives it, bytes apart ($first)" [ "$first" = 8742,1024 ]
# I/Os queued before the trace (one issued in it, by pid 77, one only
# completed) have no task: pid 0, no comm, the column integers all the
# same; the one queued in the trace is its task's (100)
cat > "$TMP/before.py" <<'PY'
import struct, sys
ISSUE, COMPLETE, QUEUE, GETRQ = 7, 8, 1, 4
CAT = {QUEUE: 16, GETRQ: 16, ISSUE: 64, COMPLETE: 128}
def rec(t, code, sector, pid):
    return struct.pack("<IIQQIIIIIHH", 0x65617407, 0, t, sector, 4096,
                       code | (CAT[code] | 1) << 16, pid, 259 << 20, 0, 0, 0)
open(sys.argv[1], "wb").write(b"".join([
    rec(1000, ISSUE, 0, 77), rec(50000, COMPLETE, 0, 0),
    rec(60000, COMPLETE, 800, 0), rec(100000, QUEUE, 1600, 100),
    rec(100000, GETRQ, 1600, 100), rec(110000, ISSUE, 1600, 100),
    rec(210000, COMPLETE, 1600, 0)]))
PY
python3 "$TMP/before.py" "$TMP/before.dump"
"$IOW" -t "$TMP/before.dump" --events "$TMP/before.csv" 2> "$TMP/err"
pids=$(python3 -c "
import csv, sys
print(' '.join(r['pid'] + ':' + r['comm'] for r in csv.DictReader(open(sys.argv[1]))))" "$TMP/before.csv")
check "events: I/O queued before the trace, pid 0 and no comm ($pids)" \
	[ "$pids" = "0: 0: 100:" ]
"$IOW" -t "$TMP/before.dump" --events "$TMP/before.jsonl" 2> "$TMP/err"
check "events JSONL: no null pid ($(grep -c '"pid": null' "$TMP/before.jsonl"))" \
	[ "$(grep -c '"pid": null' "$TMP/before.jsonl")" = 0 ]
man_sector=$(sed -n '/^\.BI \\-\\-events/,/^\.TP/p' "$TOP/iowatcher.1" | tr '\n' ' ' | grep -c 'sector (in units of 512 bytes')
check "man page: --events says sector is in 512-byte units" [ "$man_sector" = 1 ]
finish
