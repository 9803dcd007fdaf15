#!/bin/sh
# t_causes.sh: who and what caused each I/O, from the causes a recorder
# keeps beside a trace (made here by tests/tools/make_causes.py from real
# samples, by a fixed rule, so the answers are known): --by process credits
# a writeback to the process that dirtied the pages, --by file, cgroup and
# stack split by those, --summary names the files and --summary=stacks the
# stacks, and --events writes one row per bio the latencies count, which
# pandas loads as it is and whose figures are the summary's.
. "$(dirname "$0")/lib.sh"
MK="$TOP/tests/tools/make_causes.py"
cd "$TMP" || exit 1
cp "$TOP"/samples/two-devices.blktrace.* .
cp "$TOP"/samples/ext4-fsync.blktrace.* .
python3 "$MK" two-devices > /dev/null
python3 "$MK" ext4-fsync > /dev/null
T=two-devices
tags() { python3 -c "
import json, sys
t = json.load(sys.stdin)['traces'][0]
print('\n'.join('%s|%d|%d' % (x['label'], x['ios'], x['bytes']) for x in t['tags']))"; }
# --by process (-P): the kworkers' writeback is sync's, which dirtied it
"$IOW" -t $T -P --summary=json > p.json
check "-P: the writeback is credited to the process that dirtied it" \
	sh -c "cat p.json | $(command -v python3) -c \"
import json, sys
t = {x['label']: x for x in json.load(sys.stdin)['traces'][0]['tags']}
assert t['sync (25971)']['bytes'] == 6539 * 1024, t['sync (25971)']
assert not [k for k in t if k.startswith('kworker/u8')], list(t)\""
check "-P and --by process are one" sh -c \
	"'$IOW' -t $T --by process --summary=json | cmp -s - p.json"
for by in process comm cgroup file stack; do
	"$IOW" -t $T --by $by --summary=json > by.json
	check "--by $by: the tags add up to the completions" sh -c "$(command -v python3) -c \"
import json
t = json.load(open('by.json'))['traces'][0]
ios = sum(d[k]['ios'] for d in t['devices'] for k in ('read', 'write', 'discard', 'flush'))
by = sum(d[k]['bytes'] for d in t['devices'] for k in ('read', 'write', 'discard'))
assert sum(x['ios'] for x in t['tags']) == ios
assert sum(x['bytes'] for x in t['tags']) == by\""
done
"$IOW" -t $T --by file --summary=json | tags > file.tags
check "--by file: the writeback is its file's, metadata and journal named" \
	sh -c "grep -qx '/mnt/wb|328|6607872' file.tags && grep -q '^\[journal\]|7|' file.tags && grep -q '^\[metadata\]|' file.tags && grep -q '^\[no file\]|9|0$' file.tags"
"$IOW" -t $T --by cgroup --summary=json | tags > cgroup.tags
check "--by cgroup: the dictionary's paths" \
	sh -c "grep -q '^/user.slice/dd.scope|' cgroup.tags && grep -q '^/|' cgroup.tags"
"$IOW" -t $T --by stack --summary=json | tags > stack.tags
check "--by stack: a stack by the path it took" \
	grep -qx 'wb_workfn > wb_writeback > do_writepages > ext4_writepages|328|6607872' stack.tags
"$IOW" -t $T --by file -O iops -O latency -o by.png 2> err
check "--by file draws" [ -s by.png ]

# the summary: files, and stacks as iostack prints them
"$IOW" -t $T --summary > text
check "the summary names the files, most bytes first" \
	sh -c "sed -n '/^ files (by bytes)/,\$p' text | sed -n 3,5p | sed 's/.*[0-9]  //' | tr '\n' ' ' | grep -qx '\[metadata\] /mnt/wb \[journal\] '"
# a long path breaks no column: the path comes last, the figures before
# it stay under their headings (it was first, and pushed them right)
for f in "$TOP"/samples/ext4-causes.*; do cp "$f" "long${f#*/samples/ext4-causes}"; done
long=/mnt/demo/projects/storage-benchmarks/2026-11-26/run-0042/results/datafile-with-a-long-name.dat
sed -i "s|/mnt/demo/a\$|$long|" long.cause
"$IOW" -t long --summary > long.txt
"$IOW" -t long --by file --summary > longtags.txt
check "a long path in the files and tags tables: every column where its heading ends" \
	python3 - long.txt longtags.txt "$long" <<'EOF2'
import sys
def table(path, heading, last):
    lines = open(path).read().split("\n")
    i = lines.index(heading)
    rows = []
    for l in lines[i + 2:]:
        if not l.startswith("   "):
            break
        rows.append(l)
    head = lines[i + 1]
    assert head.endswith("  " + last), head
    return head, rows
for path, heading, last, ends in (
        (sys.argv[1], " files (by bytes)", "file", ("read", "written", "bios", "(us)", "p99 (us)")),
        (sys.argv[2], " tags (by bytes)", "tag", ("I/Os", "bytes"))):
    head, rows = table(path, heading, last)
    assert any(r.endswith("  " + sys.argv[3]) for r in rows), rows
    for word in ends:
        col = head.index(word) + len(word)
        for r in rows:
            assert r[col - 1] != " " and (col == len(r) or r[col] == " "), (word, head, r)
EOF2
"$IOW" -t long --summary -x 0:0.01 > x.txt
check "-x: the files table has the window's files, under its heading" \
	sh -c "sed -n '/^ files (by bytes)/,\$p' x.txt | sed -n 3,9p | sed 's/.*[0-9]  //' | tr '\n' ' ' | grep -qx '$long \[metadata\] '"
"$IOW" -t $T --summary=json > s.json
check "JSON: every file, with its bytes, bios and Q2C" python3 -c "
import json
f = {x['file']: x for x in json.load(open('s.json'))['traces'][0]['files']}
assert f['/mnt/wb']['write_bytes'] == 6607872 and f['/mnt/wb']['bios'] == 636, f
assert f['/mnt/wb']['q2c_mean_us'] > 0 and f['/mnt/wb']['q2c_p99_us'] >= f['/mnt/wb']['q2c_mean_us']"
"$IOW" -t $T --summary=stacks > stacks
check "--summary=stacks: biggest first, the stack innermost frame first" \
	python3 -c "
lines = open('stacks').read().split('\n')
i = lines.index(' device 7,0')
assert 'written  sync (25971)' in lines[i + 1], lines[i + 1]
assert lines[i + 2].strip() == 'submit_bio' and lines[i + 3].strip() == 'ext4_writepages', lines[i:i + 4]
assert ' device 7,1' in lines"

# the pictures of causes: the icicles of the bytes and of the Q2C time,
# per device and direction, and the files by bytes
IOWATCHER_LAYOUT=flame.layout "$IOW" -t $T -O io-flame -O top-files -o flame.png
check "io-flame: a panel per device, direction and measure with data" \
	sh -c "[ \$(grep -c '^io-flame ' flame.layout) = 6 ] && grep -q '^io-flame .*: bytes written, device 7,0 (6.82 MiB)\$' flame.layout && grep -q '^io-flame .*: Q2C time of the bios read, device 7,1 ' flame.layout"
check "top-files: one panel" [ "$(grep -c '^top-files ' flame.layout)" = 1 ]
if command -v pdftotext > /dev/null; then
	"$IOW" -t $T -O io-flame -O top-files -o flame.pdf
	pdftotext -layout flame.pdf flame.txt
	check "io-flame: the writeback's path under the process that dirtied it" \
		sh -c "grep -q 'sync (25971)' flame.txt && grep -q 'wb_writeback' flame.txt && grep -q 'ext4_writepages' flame.txt"
	check "top-files: the files with their bios and Q2C" \
		sh -c "grep -q '/mnt/wb' flame.txt && grep -q '636 bios, Q2C 97 us mean, 410 us p99' flame.txt"
else
	skip "the pictures' words: pdftotext missing"
fi
for fmt in svg pdf; do
	"$IOW" -t $T -O io-flame -o "flame.$fmt"
	check "io-flame as $fmt" [ -s "flame.$fmt" ]
done
"$IOW" -t "$TOP/samples/ext4-fsync" -O io-flame -o none.png > out 2> err; rc=$?
check "io-flame of a trace without causes: one line saying so, exit 1" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < err) = 1 ] &&
	       grep -q 'stacks were not recorded with this trace (only the bpf recorder' err"

# the per-I/O log
"$IOW" -t $T --events ev.csv --summary=json > ev.json
check "--events: a row per timed bio, the summary's I/Os and Q2C" python3 - <<'EOF2'
import csv, json
rows = list(csv.DictReader(open("ev.csv")))
t = json.load(open("ev.json"))["traces"][0]
for d in t["devices"]:
    mine = [r for r in rows if r["device"] == d["device"]]
    ios = sum(d[k]["ios"] for k in ("read", "write", "discard", "flush"))
    assert len({r["io"] for r in mine}) == ios, (d["device"], ios)
    q = [float(r["q2c_us"]) for r in mine if r["q2c_us"]]
    assert len(q) == d["q2c_us"]["n"], (len(q), d["q2c_us"]["n"])
    assert abs(sum(q) / len(q) - d["q2c_us"]["mean"]) < 0.001
    dd = [float(r["d2c_us"]) for r in mine if r["d2c_us"] and r["class"] != "flush"]
    assert abs(sum(dd) / len(dd) - d["d2c_us"]["mean"]) < 0.001
t = [float(r["time_s"]) for r in rows]
assert t == sorted(t), "rows in the order of completion"
wb = [r for r in rows if r["file"] == "/mnt/wb"]
assert wb and all(r["pid"] == "25971" and r["comm"] == "sync" for r in wb)
assert all(r["cgroup"] == "/user.slice/dd.scope" for r in wb)
EOF2
if /usr/bin/python3 -c 'import pandas' 2> /dev/null; then
	check "--events: pandas loads the CSV as it is" /usr/bin/python3 -c "
import pandas
d = pandas.read_csv('ev.csv')
assert len(d) == $(($(wc -l < ev.csv) - 1)) and d['q2c_us'].dtype == float
assert str(d['time_s'].dtype) == 'float64' and str(d['bytes'].dtype) == 'int64'"
else
	skip "--events: pandas loads the CSV: python3-pandas missing"
fi
"$IOW" -t $T --by file --events ev.jsonl
check "--events .jsonl: the same rows, an object a line, null where unknown" python3 -c "
import csv, json
rows = [json.loads(l) for l in open('ev.jsonl')]
assert len(rows) == len(list(csv.DictReader(open('ev.csv'))))
assert all(set(r) == set(rows[0]) for r in rows)
assert any(r['q2c_us'] is None for r in rows) and any(r['tag'] == '/mnt/wb' for r in rows)"
"$IOW" -t $T --events - > stdout.csv
check "--events -: CSV on standard output" cmp -s stdout.csv ev.csv
"$IOW" -t $T --events - --summary > out 2> err; rc=$?
check "--events - with --summary: refused (one format to a stream)" \
	sh -c "[ $rc = 2 ] && grep -q 'give --events a file' err"
"$IOW" -t $T --events ev.txt > out 2> err; rc=$?
check "--events with another name: one line, exit 1" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < err) = 1 ] && grep -q 'name the file .csv or .jsonl' err"

# a trace recorded without causes: process, comm and cgroup work, files
# and stacks are said not to be there
S="$TOP/samples/ext4-fsync"
for by in file stack; do
	"$IOW" -t "$S" --by $by --summary > out 2> err; rc=$?
	check "--by $by without causes: one line saying how to record them" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < err) = 1 ] && grep -q 'record with --tracer bpf' err"
done
check "--by cgroup without causes: one class, no cgroup" sh -c \
	"'$IOW' -t '$S' --by cgroup --summary | grep -q '  \[no cgroup\]$'"
check "--events without causes: pid and comm from the trace" sh -c \
	"'$IOW' -t '$S' --events - | grep -q ',25343,jbd2/loop0-8,,,,'"
finish
