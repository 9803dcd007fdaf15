#!/bin/sh
# t_compare.sh: --compare on traces with a known answer (tests/tools/cmpgen
# writes a steady workload and the same workload changed in one way): the
# top contributor is the stratum changed, of the right kind (rate for a
# delay, mix for extra I/Os), with at least 60% of the change; a trace
# against itself differs by nothing, with every interval at zero; halves
# of steady runs seldom claim a difference; bad input is one line.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/tools/cmpgen"
[ -x "$GEN" ] || { fail "tests/tools/cmpgen is built (make)"; finish; exit 1; }
"$GEN" "$TMP/a.dump"

# top STRATUM KIND: the first contributor's stratum, kind and share
top() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = d['contributors'][0]
print(c['stratum'], c['kind'], '%.3f' % c['share'], c.get('lo_sector', ''), c.get('hi_sector', ''), c.get('start_s', ''), c.get('end_s', ''), d['verdict'])
" "$1"
}
# known NAME CHANGE... : B = A changed; prints the top contributor
known() {
	name=$1; shift
	"$GEN" "$TMP/$name.dump" "$@"
	"$IOW" -t "$TMP/a.dump" -t "$TMP/$name.dump" --compare=json \
		> "$TMP/$name.json" 2> "$TMP/$name.err"
	top "$TMP/$name.json"
}
is_top() { # RESULT STRATUM KIND
	[ "$(echo "$1" | cut -d' ' -f1,2)" = "$2 $3" ] &&
		python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= 0.6)" \
			"$(echo "$1" | cut -d' ' -f3)"
}

r=$(known band --delay-band 500000:800000:2000)
check "delay in sectors 500000-800000: offset band, rate, >= 60% ($r)" is_top "$r" offset rate
check "  the band's bounds within 2% of the device of the delayed sectors ($r)" \
	python3 -c "import sys; lo, hi = map(int, sys.argv[1:3]); sys.exit(not (abs(lo - 500000) < 42000 and abs(hi - 800000) < 42000))" \
	$(echo "$r" | cut -d' ' -f4,5)
check "  the verdict is slower" sh -c "echo '$r' | grep -q 'slower$'"
r=$(known pid --delay-pid 200:1500)
check "delay of pid 200: process, rate, >= 60% ($r)" is_top "$r" process rate
check "  named pid 200" python3 -c "import json,sys; sys.exit(json.load(open('$TMP/pid.json'))['contributors'][0]['value'] != 'pid 200')"
r=$(known cls --delay-class w:1500)
check "delay of writes: class, rate, >= 60% ($r)" is_top "$r" class rate
check "  named write" python3 -c "import json,sys; sys.exit(json.load(open('$TMP/cls.json'))['contributors'][0]['value'] != 'write')"
r=$(known time --delay-time 8:12:2000)
check "delay from 8 to 12 s: time window, rate, >= 60% ($r)" is_top "$r" time rate
check "  the window within a window's width (0.5 s) of 8-12 s ($r)" \
	python3 -c "import sys; a, b = map(float, sys.argv[1:3]); sys.exit(not (abs(a - 8) <= 0.5 and abs(b - 12) <= 0.5))" \
	$(echo "$r" | cut -d' ' -f6,7)
r=$(known extra --extra 65536:2000)
check "2000 more reads of 64 KiB: size, mix, >= 60% ($r)" is_top "$r" size mix
check "  named 64 KiB" python3 -c "import json,sys; sys.exit(json.load(open('$TMP/extra.json'))['contributors'][0]['value'] != '64 KiB')"
check "  a trace with a change says nothing on stderr" sh -c "! cat '$TMP'/*.err | grep -q ."

# the JSON contract: verdict, contributors sorted, shares of a stratum add to 1
check "JSON: the contract's keys, each stratum's shares adding to 1" python3 - "$TMP/band.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['verdict'] in ('slower', 'faster', 'no significant difference')
by = {}
for c in d['contributors']:
    assert c['kind'] in ('mix', 'rate')
    assert c['stratum'] in ('class', 'size', 'offset', 'process', 'comm', 'cgroup', 'file', 'stack', 'phase', 'time')
    if c['stratum'] == 'offset' and not c['value'].startswith('flush'):
        assert 'lo_sector' in c and 'hi_sector' in c
    if c['stratum'] == 'time':
        assert 'start_s' in c and 'end_s' in c
    by[c['stratum']] = by.get(c['stratum'], 0) + c['share']
for s, v in by.items():
    assert abs(v - 1) < 1e-6, (s, v)
for g in d['classes']:
    for k in ('ios', 'bytes', 'throughput_bps', 'iops', 'queue_depth', 'd2c_p50_us', 'd2c_p999_us', 'q2c_p99_us', 'q2d_p90_us'):
        assert len(g[k]['ci']) == 2 and 'significant' in g[k], k
PY

# a trace against itself: nothing, every interval at zero
"$IOW" -t "$TMP/a.dump" -t "$TMP/a.dump" --compare=json > "$TMP/self.json"
check "a trace against itself: no significant difference, every interval [0, 0], no contributor" python3 - "$TMP/self.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['verdict'] == 'no significant difference'
assert d['contributors'] == []
for g in d['classes'] + [d['overall']]:
    for k, v in g.items():
        if isinstance(v, dict) and v['ci'][0] is not None:
            assert v['ci'] == [0, 0] and v['diff'] == 0 and not v['significant'], (k, v)
PY
"$IOW" -t "$CENTOS" -t "$CENTOS" --compare > "$TMP/self.txt"
check "the CentOS sample against itself: 'No significant difference' on top" \
	sh -c "head -1 '$TMP/self.txt' | grep -q '^No significant difference'"
"$IOW" -t "$CENTOS" -t "$CENTOS" --compare > "$TMP/self2.txt"
check "seeded: the same output twice" sh -c "[ -s '$TMP/self.txt' ] && cmp -s '$TMP/self.txt' '$TMP/self2.txt'"
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare=json > "$TMP/band2.json"
check "seeded: the same intervals twice" sh -c "[ -s '$TMP/band.json' ] && cmp -s '$TMP/band.json' '$TMP/band2.json'"
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare > "$TMP/band.txt"
check "text: the verdict and its cause on top" \
	sh -c "head -1 '$TMP/band.txt' | grep -q '^band.dump is slower: mean I/O latency .*offset sectors'"

# null comparisons: 20 steady runs, each split in halves with two -x
claims=0
for seed in $(seq 1 20); do
	"$GEN" "$TMP/n.dump" --seed "$seed"
	"$IOW" -t "$TMP/n.dump" -t "$TMP/n.dump" -x 0:10 -x 10:20 \
		--compare=json > "$TMP/null$seed.json"
	v=$(python3 -c "import json,sys; print(json.load(open('$TMP/null$seed.json'))['verdict'])")
	[ "$v" = "no significant difference" ] || claims=$((claims + 1))
done
# a mean that hardly changed: its parts are said as parts, not as
# thousands of per cent of nothing; every stratum's parts of the mean add
# up to its change (a value of as many I/Os in A as in B, in traces of
# not as many I/Os, was left out of them)
check "null halves: the line's shares of the mean within 150%, else the part in us" python3 - "$TMP"/null*.json <<'PY'
import json, re, sys
for f in sys.argv[1:]:
    s = json.load(open(f))['summary']
    for p in re.findall(r'(-?[0-9]+)% of the change in the mean', s):
        assert abs(int(p)) <= 150, (f, s)
PY
"$IOW" -t "$TOP/samples/fio-randrw" -t "$TOP/samples/fio-randrw" -x 0:1 -x 1:1e9 \
	--compare=json > "$TMP/rw.json"
check "each stratum's parts of the change in the mean add up to 1 (fio-randrw's halves, 500 and 1500 I/Os)" python3 - "$TMP/rw.json" "$TMP/band.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    by = {}
    for c in json.load(open(f))['contributors']:
        by[c['stratum']] = by.get(c['stratum'], 0) + c['mean_share']
    assert by, f
    for s, v in by.items():
        assert abs(v - 1) < 1e-6, (f, s, v)
PY
# and the samples whose I/O is steady through the run, split alike
for half in ext4-fsync:0.4 overlap-fio:0.5 two-devices:1.17; do
	name=${half%%:*} mid=${half##*:}
	v=$("$IOW" -t "$TOP/samples/$name" -t "$TOP/samples/$name" -x 0:$mid \
		-x $mid:1e9 --compare=json | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict'])")
	[ "$v" = "no significant difference" ] || claims=$((claims + 1))
done
check "halves of 20 steady runs and 3 samples: a difference claimed in at most 2 ($claims)" [ "$claims" -le 2 ]

# too few I/Os: never significant, and says how many it needs
"$GEN" "$TMP/few.dump" --ios 20 --seconds 2
"$GEN" "$TMP/fewslow.dump" --ios 20 --seconds 2 --delay-class r:5000
"$IOW" -t "$TMP/few.dump" -t "$TMP/fewslow.dump" --compare=json > "$TMP/few.json"
check "20 I/Os 5 ms slower: no verdict, too few I/Os, needs 30" python3 - "$TMP/few.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['verdict'] == 'no significant difference', d['verdict']
assert d['summary'].startswith('Too few I/Os for a verdict'), d['summary']
for g in d['classes']:
    for k, v in g.items():
        if isinstance(v, dict):
            assert not v['significant'], k
    assert g['q2c_p99_us']['needs_ios'] == 1000
PY

# bad input: one line (a usage error's followed by the usage hint), a
# non-zero exit
bad() { # NAME EXPECTED-TEXT ARGS...
	name=$1 want=$2; shift 2
	"$IOW" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c '^iowatcher:' "$TMP/err")" = 1 ] &&
	   head -1 "$TMP/err" | grep -q -- "$want"; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr: $(cat "$TMP/err")"
	fi
}
# --events beside --compare: the log still has both traces' I/Os
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare --events "$TMP/ev.csv" > /dev/null
check "--events beside --compare logs both traces' 40000 I/Os" [ "$(wc -l < "$TMP/ev.csv")" = 40001 ]

# the pictures: the quantile shift and the contributors' bars, mix and
# rate in their colours (drawn at alpha 0.45 on white)
PROBE="$TOP/tests/tools/pngprobe"
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare -o "$TMP/band.png" > /dev/null
"$IOW" -t "$TMP/a.dump" -t "$TMP/extra.dump" --compare -o "$TMP/extra.png" > /dev/null
check "-o band.png: six panels of 760x300 and the title ($("$PROBE" "$TMP/band.png"))" \
	[ "$("$PROBE" "$TMP/band.png")" = "1520 950" ]
rate=$("$PROBE" "$TMP/band.png" 770 380 1510 640 E8C2D7 12)
mix=$("$PROBE" "$TMP/band.png" 770 380 1510 640 8CD3C0 12)
check "  a delay's bars are rate (purple $rate px), not mix (green $mix px)" \
	sh -c "[ '$rate' -gt 10000 ] && [ '$mix' -lt 100 ]"
rate=$("$PROBE" "$TMP/extra.png" 770 380 1510 640 E8C2D7 12)
mix=$("$PROBE" "$TMP/extra.png" 770 380 1510 640 8CD3C0 12)
check "  extra I/Os' bars are mostly mix (green $mix px, purple $rate px)" \
	[ "$mix" -gt "$rate" ]
shift=$("$PROBE" "$TMP/band.png" 80 60 750 300)
check "  the D2C quantile shift is drawn ($shift coloured px)" [ "$shift" -gt 500 ]
hist=$("$PROBE" "$TMP/band.png" 80 680 750 930)
check "  the latency histograms of A and B are drawn ($hist coloured px)" [ "$hist" -gt 300 ]
# the differential flame graph: a fourth row where both have stacks (the
# sample recorded with bpf), red (more in B) and blue (less) only where
# B differs: the halves of the sample (dd's writeback, then cat's reads)
EXT4="$TOP/samples/ext4-causes"
"$IOW" -t "$EXT4" -t "$EXT4" -x 0:0.44 -x 0.44:0.9 --compare -o "$TMP/fl.png" > /dev/null
"$IOW" -t "$EXT4" -t "$EXT4" --compare -o "$TMP/flself.png" > /dev/null
red=$("$PROBE" "$TMP/fl.png" 10 960 1510 1200 FF4040 30)
blue=$("$PROBE" "$TMP/fl.png" 10 960 1510 1200 4040FF 30)
check "flame graph: halves of ext4-causes, a fourth row, red ($red px) and blue ($blue px)" \
	sh -c "[ \"\$('$PROBE' '$TMP/fl.png')\" = '1520 1250' ] && [ '$red' -gt 1000 ] && [ '$blue' -gt 1000 ]"
red=$("$PROBE" "$TMP/flself.png" 10 960 1510 1200 FF4040 30)
blue=$("$PROBE" "$TMP/flself.png" 10 960 1510 1200 4040FF 30)
check "  against itself: drawn, neither red nor blue ($red, $blue px)" \
	sh -c "[ \"\$('$PROBE' '$TMP/flself.png')\" = '1520 1250' ] && [ '$red' = 0 ] && [ '$blue' = 0 ]"
"$IOW" -t "$EXT4" -t "$EXT4" -x 0:0.44 -x 0.44:0.9 --compare=json > "$TMP/st.json"
check "  the stack stratum's values are paths past the generic frames" python3 -c "
import json, sys
v = [c['value'] for c in json.load(open('$TMP/st.json'))['contributors'] if c['stratum'] == 'stack']
sys.exit(not v or not any(x.startswith('wb_workfn > wb_writeback') for x in v) or any('ret_from_fork' in x for x in v))"

mkdir "$TMP/page"
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare -o "$TMP/page/cmp.html" > /dev/null
check "-o cmp.html: the report of both traces with the comparison as its section, nothing left beside" \
	sh -c "[ \"\$(ls '$TMP/page')\" = cmp.html ] &&
	       grep -q '<script id=\"iow-doc\"' '$TMP/page/cmp.html' &&
	       grep -q '<section id=\"iow-compare\"' '$TMP/page/cmp.html' &&
	       grep -q '<h2>band.dump (B) against a.dump (A): band.dump is slower: mean I/O latency' '$TMP/page/cmp.html' &&
	       grep -q '<svg' '$TMP/page/cmp.html' &&
	       grep -q 'Devices compared (A with B): 8,0 with 8,0' '$TMP/page/cmp.html' &&
	       grep -q 'Where the change in I/O time comes from' '$TMP/page/cmp.html'"
check "  the band of the delay a button to it in the I/O map (sectors as MiB)" \
	grep -q '<td>offset</td><td><button type="button" class="iow-cmp-band" data-devs="8,0" data-lo="248.1875" data-hi="392.015625" title="[^"]*">sectors 508288-802848</button></td><td class="iow-cmp-rate">rate' "$TMP/page/cmp.html"
"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" -o "$TMP/page/plain.html" > /dev/null
check "  the report without --compare has no such section" \
	sh -c "! grep -q '<section id=\"iow-compare\"' '$TMP/page/plain.html'"
"$IOW" -t "$TMP/a.dump" -t "$TMP/time.dump" --compare -o "$TMP/page/time.html" > /dev/null
check "  the delayed window a button zooming to it, on the report's axis" python3 -c "
import re, sys
m = re.search(r'data-x0=\"([0-9.e+-]+)\" data-x1=\"([0-9.e+-]+)\"[^>]*>([0-9.]+)-([0-9.]+) s<', open('$TMP/page/time.html').read())
sys.exit(not m or abs(float(m.group(1)) - float(m.group(3))) > 1e-3 or abs(float(m.group(2)) - float(m.group(4))) > 1e-3 or abs(float(m.group(1)) - 8) > 0.5)"
"$IOW" -t "$EXT4" -t "$EXT4" -x 0:0.44 -x 0.44:0.9 --compare -o "$TMP/page/flame.html" > /dev/null
check "  with kernel stacks in both, the section holds the differential flame graph" \
	grep -q '<summary>Quantile shifts, contributors, latency histograms, differential flame graph</summary>' "$TMP/page/flame.html"
# The contributor tables: a legend for mix and rate saying what the
# latency-seconds are, rows grouped by stratum (named once, on its first
# row) and sorted by share within it, no "-0.0%" (recorded: a reader
# alone, and with a dd writer beside it, tests/data/compare).
CD="$TOP/tests/data/compare"
"$IOW" -t "$CD/alone" -t "$CD/noisy" -l alone -l noisy --compare \
	-o "$TMP/page/noisy.html" > "$TMP/noisy.txt"
check "  the contributor tables grouped by stratum, by share within it, with their legend" python3 -c "
import re, sys
page = open('$TMP/page/noisy.html').read()
legend = re.search(r'<p>I/O time here is the latency-seconds: every timed I/O[^<]*<b>mix</b>: noisy had more or fewer[^<]*<b>rate</b>: such I/Os each took', page)
tables = re.findall(r'<table class=\"iow-cmp-table iow-cmp-contrib\">(.*?)</table>', page, re.S)
bad = []
for t in tables:
	seen, cur, last = set(), None, None
	for name, share in re.findall(r'<tr[^>]*><td>([^<]*)</td><td>.*?</td><td class=\"iow-cmp-(?:mix|rate)\">[a-z]+</td><td>([-0-9.]+)%</td>', t):
		if name:
			if name in seen:
				bad.append(name + ' named twice')
			seen.add(name)
			cur, last = name, None
		elif cur is None:
			bad.append('a row before any stratum')
		if last is not None and float(share) > last:
			bad.append(cur + ' not by share')
		last = float(share)
	if not seen:
		bad.append('a table without rows')
if '-0.0%' in page:
	bad.append('-0.0%')
if not legend or len(tables) < 2 or bad:
	print('legend', bool(legend), 'tables', len(tables), bad[:5])
	sys.exit(1)"
check "  the text's contributor table: no -0.0%, latency-seconds said in words, mix and rate's legend" \
	sh -c "! grep -q -- '-0\.0%' '$TMP/noisy.txt' &&
	       grep -q 'the latency-seconds: every timed I/O.s latency, Q2C or else D2C, added up' '$TMP/noisy.txt' &&
	       grep -q '^  mix: noisy had more or fewer such I/Os; rate: such I/Os each took longer' '$TMP/noisy.txt'"
# The picture's title: the headline's first clause, its brackets closed
# (it was cut at a ';' inside "(32 I/Os; none in alone)")
if command -v pdftotext > /dev/null; then
	"$IOW" -t "$CD/alone" -t "$CD/noisy" -l alone -l noisy --compare \
		-o "$TMP/noisy.pdf" > /dev/null
	pdftotext "$TMP/noisy.pdf" - 2> /dev/null | grep -m 1 '^alone vs noisy: ' > "$TMP/title"
	check "  the picture's title is the headline's first clause, brackets closed ($(cut -c 1-60 "$TMP/title")...)" \
		python3 -c "
import sys
t = open('$TMP/title').read().strip()
sys.exit(0 if t.count('(') == t.count(')') and t.endswith('none in alone)') else 1)"
else
	skip "the picture's title: pdftotext missing"
fi
size=$(wc -c < "$TMP/page/time.html")
check "  the report stays under its 5 MB ($size bytes)" [ "$size" -lt 5000000 ]
# In Debian's chromium, headless (tests/compare_check.js): the section
# under the header, clicks on a window and a band, nothing moved.
if ! command -v node > /dev/null; then
	skip "the comparison's section in a browser: node is missing"
elif repeat_pass "the comparison's section in a browser"; then
	:
else
	SHOTS=$(shots_dir)
	{ node "$TOP/tests/compare_check.js" "$TMP/page/time.html" "$SHOTS" window
	  node "$TOP/tests/compare_check.js" "$TMP/page/cmp.html" "$SHOTS" band
	} > "$TMP/browser.out" 2>&1
	while read -r line; do
		case "$line" in
		"ok   "*) pass "browser: ${line#ok   }";;
		"FAIL "*) fail "browser: ${line#FAIL }";;
		"skipped: "*) skip "browser: ${line#skipped: }";;
		*) echo "     $line";;
		esac
	done < "$TMP/browser.out"
	grep -qE '^(ok|FAIL|skipped)' "$TMP/browser.out" ||
		fail "the browser checks ran" "$(tail -n 3 "$TMP/browser.out")"
	if [ -n "$SHOTS" ]; then echo "info screenshots in $SHOTS (compare*.png)"
	else echo "info no screenshots (the suite's run: IOW_SHOTS=DIR takes them)"; fi
fi
bad "-o x.mp4 with --compare: refused" "draws a picture" \
	-t "$TMP/a.dump" -t "$TMP/a.dump" --compare -o "$TMP/x.mp4"

"$GEN" "$TMP/other.dump" --device 259,0
bad "no device in common: one line naming --pair" "pair them with --pair 8,0=259,0" \
	-t "$TMP/a.dump" -t "$TMP/other.dump" --compare
"$IOW" -t "$TMP/a.dump" -t "$TMP/other.dump" --pair 8,0=259,0 --compare=json > "$TMP/pair.json"
check "--pair 8,0=259,0 compares them (the same workload: no difference)" python3 -c "
import json, sys
d = json.load(open('$TMP/pair.json'))
sys.exit(not (d['verdict'] == 'no significant difference' and d['classes'][0]['device'] == '8,0' and d['classes'][0]['b_device'] == '259,0'))"
bad "--pair of a device B lacks: one line" "B (.*) on 8,0" \
	-t "$TMP/a.dump" -t "$TMP/a.dump" --pair 8,0=9,0 --compare
bad "B's window without I/O: one line" "B (.*) has no I/O to compare in -x 100:200" \
	-t "$TMP/a.dump" -t "$TMP/a.dump" -x 0:10 -x 100:200 --compare
: > "$TMP/empty.dump"
bad "an empty trace: one line" "empty.dump" \
	-t "$TMP/a.dump" -t "$TMP/empty.dump" --compare
bad "one trace: one line" "compares two traces" \
	-t "$TMP/a.dump" --compare
bad "a second -x without --compare" "with --compare" \
	-t "$TMP/a.dump" -x 1:2 -x 2:3 --summary
bad "--pair without =" "MAJ,MIN=MAJ,MIN" \
	-t "$TMP/a.dump" -t "$TMP/a.dump" --pair 8,0 --compare
# the quantile-shift panels are ticked where their points are (p50, p90,
# p99, p99.9), not at round numbers of the nines scale (p68.4, p96.8)
if command -v pdftotext > /dev/null; then
	"$IOW" -t "$TMP/a.dump" -t "$TMP/band.dump" --compare -o "$TMP/band.pdf" > /dev/null
	pdftotext "$TMP/band.pdf" - 2> /dev/null | grep -oE '^p[0-9.]+$' | sort -u | tr '\n' ' ' > "$TMP/ticks"
	check "the quantile axes ticked at p50 p90 p99 p99.9 ($(cat "$TMP/ticks"))" \
		[ "$(cat "$TMP/ticks")" = "p50 p90 p99 p99.9 " ]
else
	skip "the quantile axes' ticks: pdftotext missing"
fi
finish
