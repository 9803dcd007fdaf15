#!/bin/sh
# t_html.sh: the report (-o NAME.html). Without a browser: every level of
# every series holds what the graphs' builders make at that width, the
# coarsest one is the CSV's to the float32's precision; the map's cells
# add up to the CSV's; the finest bins of a sample are 1 ms or less; a
# report leaves the analysis as a picture does (the same CSV and JSON);
# the page names no network address and forbids any; errors leave no
# file. In Debian's chromium, headless (tests/report_check.js): each
# report loads with no console error and no request, has a chart per
# panel of the picture, a drag zooms every chart, a double-click
# restores them, a hovered value is the CSV's for its bin, a 20 ms zoom
# shows 1 ms bins; loss is shaded; no panel moves when the page zooms
# or a chart is hovered, and the readouts go with the pointer; the I/O
# map's cells are painted across their span at a deep zoom (a dense
# stream's run of cells has no gap); a zoomed table's "-x FROM:TO"
# counts, given to iowatcher, what the table counts. Screenshots go to
# $IOW_SHOTS (default BUILD/test-shots; none in the suite's run unless
# IOW_SHOTS is set: lib.sh's shots_dir): look at them.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples"
SHOTS=$(shots_dir)

# report NAME ARGS...: the report NAME.html, the picture NAME.svg with its
# panels in NAME.layout and its CSV in NAME-csv, of the same arguments.
report() {
	r_name=$1
	shift
	"$IOW" "$@" -o "$TMP/$r_name.html" 2> "$TMP/$r_name.err" ||
		{ fail "$r_name: report written" "$(cat "$TMP/$r_name.err")"; return 1; }
	IOWATCHER_LAYOUT="$TMP/$r_name.layout" "$IOW" "$@" -o "$TMP/$r_name.svg" \
		--csv "$TMP/$r_name-csv" > /dev/null 2>&1
	pass "$r_name: report written ($(wc -c < "$TMP/$r_name.html") bytes)"
}

report fio-randrw -t "$S/fio-randrw"
report more -t "$S/fio-randrw" -O latency-heatmap -O latency-scatter \
	-O latency-hist -O q2d-d2c -O offset-heatmap -O size -O latency
report tags -t "$S/ext4-fsync" -P
report overlay -t "$S/fio-randrw" -l before -t "$S/ext4-fsync" -l after
report per-device -t "$S/two-devices" --per-device
# two traces with mpstat beside: their CPU panels on one scale, as steps
report cpu2 -t "$S/fio-randrw" -t "$S/dd-write" -O cpu -O cpu-sys
report discard -t "$S/discard"
# Causes kept beside the trace: the graphs of no time axis (the top files,
# the stacks' icicle) are pictures of the whole trace in the page.
cp "$S"/two-devices.blktrace.* "$TMP/"
python3 "$TOP/tests/tools/make_causes.py" "$TMP/two-devices" > /dev/null
report causes -t "$TMP/two-devices" -O tput -O top-files -O io-flame
check "causes: the top files and the icicle are pictures in the page" \
	sh -c "[ \$(grep -o '\"kind\":\"picture\"' '$TMP/causes.html' | wc -l) = 2 ]"

# A real machine's trace (110 s of sparse writes), a report of a cut
# (-x: its bins start at 0.5004 s), and a dense sequential stream
# (200,000 I/Os a second, every 5 us the next 4 KiB): at a 5 ms zoom
# its map's 100 us cells touch.
report centos7 -t "$S/centos7-sda"
report xcut -t "$S/fio-randrw" -x 0.5004:4.5
"$TOP/tests/tools/gen-stream" 100000 1 > "$TMP/stream.dump"
report stream -t "$TMP/stream.dump" -O io -O iops

# decode NAME: the report's document and numbers, checked by Python
# against the CSV of the same picture (levels, maps, widths, budget).
levels=$(python3 - "$TMP" fio-randrw more tags overlay per-device discard <<'PY'
import base64, csv, json, math, os, re, struct, sys, zlib
# the resolution --csv writes each unit to (series.c's decimals)
RESOLUTION = [('seeks_per_s', 1e-3), ('ios_per_s', 1e-3), ('mb_per_s', 1e-6),
              ('_us', 1e-3), ('_requests', 1e-6), ('_pct', 1e-4),
              ('_kib', 1e-10), ('_s', 1e-9)]

tmp, names = sys.argv[1], sys.argv[2:]
out = []

def load(name):
    s = open(os.path.join(tmp, name + '.html'), encoding='utf-8').read()
    doc = json.loads(re.search(r'<script id="iow-doc" type="application/json">(.*?)</script>', s, re.S).group(1))
    blob = zlib.decompress(base64.b64decode(re.search(r'<script id="iow-blob" type="application/octet-stream">(.*?)</script>', s, re.S).group(1)))
    return s, doc, blob

def f32(blob, ref):
    return struct.unpack_from('<%df' % ref['n'], blob, ref['o'])

def planes(blob, ref):
    at, res = ref['o'], []
    for kind, ln in zip(ref['k'], ref['p']):
        b, vals, v, m = blob[at:at + ln], [], 0, 1
        if kind == 'b':
            vals = list(b)
        else:
            for c in b:
                v += (c & 127) * m; m *= 128
                if not c & 128:
                    vals.append(v); v = 0; m = 1
        res.append(vals)
        at += ln
    return res

def column(label, unit):
    s = re.sub(r'[^a-z0-9\x80-\uffff]+', '_', label.lower()).strip('_')
    return s + '_' + unit

units = {'mbps': ('mb_per_s', 1), 'ns': ('us', 1e-3)}
for name in names:
    s, doc, blob = load(name)
    bad = []
    # the coarsest level of every line series is the CSV's column
    for g in doc['graphs']:
        if g['kind'] != 'lines':
            continue
        path = os.path.join(tmp, name + '-csv', g['name'] + '.csv')
        rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
        unit = {'tput': 'mb_per_s', 'iops': 'ios_per_s', 'latency': 'us',
                'queue-depth': 'requests', 'seeks': 'seeks_per_s',
                'q2d-d2c': 'us', 'size': 'kib'}[g['name']]
        scale = {'us': 1e-3, 'kib': 1 / 1024}.get(unit, 1)
        for p in g['panels']:
            for se in p['series']:
                col = column(se['label'], unit)
                if p['device']:
                    col = column('device ' + p['device'] + ' ' + se['label'], unit)
                tr = doc['traces'][se['trace']]
                lv = tr['levels'][-1]
                vals = f32(blob, se['d'][-1])
                # a block of rows per bin grid: this trace's, by its width
                by_t, block, prev = {}, -1, None
                blocks = []
                for r in rows:
                    t = float(r['time_s'])
                    if prev is None or t < prev:
                        blocks.append([])
                    blocks[-1].append(r)
                    prev = t
                for b in blocks:
                    if abs(float(b[0]['span_s']) - lv['w']) < 1e-9 or len(b) == 1:
                        # a bin one trace's end cuts short has a row per
                        # span (the same time_s): the one with a value
                        by_t = {}
                        for r in b:
                            k = round(float(r['time_s']), 6)
                            if k not in by_t or r.get(col):
                                by_t[k] = r.get(col)
                        break
                for i, v in enumerate(vals):
                    t = round(tr['origin'] + i * lv['w'], 6)
                    want = by_t.get(t)
                    if want is None:
                        bad.append('%s %s: no CSV row at %g' % (g['name'], col, t)); break
                    w = float('nan') if want == '' else float(want)
                    got = v * scale
                    # the CSV writes a value to its unit's resolution
                    res = next((r for u, r in RESOLUTION if col.endswith(u)), 0)
                    if not ((math.isnan(got) and math.isnan(w)) or abs(got - w) <= 1e-6 * max(abs(w), 1e-9) + res / 2):
                        bad.append('%s %s at %g: %r, CSV %r' % (g['name'], col, t, got, w)); break
                # every level covers the run: n x width
                for k, ref in enumerate(se['d']):
                    if ref['n'] != tr['levels'][k]['n']:
                        bad.append('%s level %d: %d values for %d bins' % (col, k, ref['n'], tr['levels'][k]['n']))
    # widths: finest first, each a step of the ladder; levels of one trace
    for tr in doc['traces']:
        ws = [l['w'] for l in tr['levels']]
        if ws != sorted(ws) or any(abs(math.log10(w) * 10 - round(math.log10(w) * 10)) > 1e-6 and
                                   abs(math.log10(w / 2) - round(math.log10(w / 2))) > 1e-6 for w in ws):
            bad.append('widths %r' % ws)
    # the map's cells: at every level as many I/Os as the CSV's cells,
    # and the coarsest level cell by cell the CSV's (the picture's map)
    io = os.path.join(tmp, name + '-csv', 'io.csv')
    if os.path.exists(io):
        want, cells = {}, {}
        for r in csv.DictReader(open(io)):
            key = (r['trace'], r['device'])
            want[key] = want.get(key, 0) + int(r['ios'])
            cells.setdefault(key, {})
            c = (round(float(r['time_s']), 7), int(r['offset_lo_bytes']))
            cells[key][c] = cells[key].get(c, 0) + int(r['ios'])
        for tr in doc['traces']:
            for m in tr['maps']:
                key = (tr['label'], m['device'])
                for l in m['levels']:
                    p = planes(blob, l['cells'])
                    got = sum(p[3])
                    if got != want.get(key, 0):
                        bad.append('map %s %s at %g s: %d I/Os, CSV %d' % (tr['label'], m['device'], l['w'], got, want.get(key)))
                l, have, col = m['levels'][-1], {}, 0
                p = planes(blob, l['cells'])
                for i in range(len(p[0])):
                    col += p[0][i]
                    c = (round(tr['origin'] + col * l['w'], 7), m['rowLo'] + p[1][i] * m['rowBytes'])
                    have[c] = have.get(c, 0) + p[3][i]
                if have != cells.get(key, {}):
                    diff = set(have.items()) ^ set(cells.get(key, {}).items())
                    bad.append('map %s %s: cells differ from the CSV (%d differ, e.g. %r)' % (tr['label'], m['device'], len(diff), sorted(diff)[:2]))
    out.append('%s %s %g %d %s' % (name, 'ok' if not bad else 'bad', doc['finest'],
                                   len(doc['traces'][0]['levels']), ' | '.join(bad[:3]) or '-'))
print('\n'.join(out))
PY
)
echo "$levels" | while read -r name verdict finest n why; do
	[ -n "$name" ] || continue
	if [ "$verdict" = ok ]; then
		echo "ok   $name: every series' coarsest level is the CSV's; widths a ladder; the map's I/Os at every level the CSV's ($n levels)"
	else
		echo "FAIL $name: levels against the CSV: $why"
	fi
	if awk -v f="$finest" 'BEGIN { exit !(f <= 0.001) }'; then
		echo "ok   $name: finest bins $finest s, 1 ms or less"
	else
		echo "FAIL $name: finest bins $finest s, 1 ms or less"
	fi
done > "$TMP/levels.out"
while read -r line; do
	case "$line" in
	"ok   "*) pass "${line#ok   }";;
	*) fail "${line#FAIL }";;
	esac
done < "$TMP/levels.out"
[ -s "$TMP/levels.out" ] || fail "the reports' numbers were read back"

# A report leaves the analysis as a picture does.
"$IOW" -t "$S/ext4-fsync" -P -o "$TMP/a.html" --csv "$TMP/a-csv" --summary=json > "$TMP/a.json"
"$IOW" -t "$S/ext4-fsync" -P -o "$TMP/a.svg" --csv "$TMP/b-csv" --summary=json > "$TMP/b.json"
check "with a report the CSV is a picture's" diff -r "$TMP/a-csv" "$TMP/b-csv"
check "with a report the summary is a picture's" cmp -s "$TMP/a.json" "$TMP/b.json"
check "-o NAME.htm is a report too" "$IOW" -t "$S/dd-write" -o "$TMP/x.htm"
check "the page forbids the network (CSP default-src 'none')" \
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$TMP/x.htm"
urls=$(grep -o 'https\?://[a-zA-Z0-9./_-]*' "$TMP/x.htm" | sort -u | tr '\n' ' ')
check "the page names no address but uPlot's home and the SVG namespace ($urls)" \
	sh -c "echo '$urls' | tr ' ' '\n' | grep -v '^$' | grep -qvE '^(https://github.com/leeoniya/uPlot|http://www.w3.org/2000/svg)$' && exit 1 || exit 0"
check "the page carries uPlot's licence" grep -q "Permission is hereby granted" "$TMP/x.htm"
pin=$(sed -n 's/.*"uplot": "\(.*\)".*/\1/p' "$TOP/web/package.json")
check "web/vendor's uPlot is the version web/package.json pins ($pin)" \
	grep -q "(v$pin)" "$TOP/web/vendor/uPlot.iife.min.js"
if [ -f "$TOP/web/node_modules/uplot/dist/uPlot.iife.min.js" ]; then
	check "web/vendor's uPlot is npm's, byte for byte" \
		cmp -s "$TOP/web/vendor/uPlot.iife.min.js" \
		"$TOP/web/node_modules/uplot/dist/uPlot.iife.min.js"
else
	skip "web/vendor's uPlot against npm's: web/node_modules is not installed"
fi
"$IOW" -t "$S/dd-write" -o "$TMP/no/such/dir/x.html" 2> "$TMP/nodir.err"
rc=$?
check "an unwritable report: one line, exit 1 ($(head -c 120 "$TMP/nodir.err"))" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/nodir.err') = 1 ] && grep -q 'x.html' '$TMP/nodir.err'"

# A trace that lost events: fio-randrw with CPU 0's events of 1.0-1.2 s
# gone and a loss note in their place, as a recorder would leave it.
python3 "$TOP/tests/tools/make_lossy.py" "$S/fio-randrw" "$TMP/lossy" 0 1.0 1.2 > /dev/null
lost=$("$IOW" -t "$TMP/lossy" --summary=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["lost_events"])')
report lossy -t "$TMP/lossy"
check "the lossy trace lost events ($lost)" [ "${lost:-0}" -gt 0 ]
check "its report's title says so" grep -q "$lost events lost" "$TMP/lossy.html"

# The browser.
if repeat_pass "the browser's checks of the pages"; then
	:
elif [ ! -x "${IOW_CHROMIUM:-/usr/bin/chromium}" ]; then
	skip "the browser checks: ${IOW_CHROMIUM:-/usr/bin/chromium} is missing (apt-get install chromium)"
elif ! command -v node > /dev/null 2>&1; then
	skip "the browser checks: node is missing (apt-get install nodejs)"
elif [ ! -d "$TOP/web/node_modules/puppeteer-core" ]; then
	skip "the browser checks: web/node_modules/puppeteer-core is missing (cd web && npm ci)"
else
	panels() {
		awk '{ n[$1]++ } END { printf "{"; s = ""; for (g in n) { printf "%s\"%s\":%d", s, g, n[g]; s = "," } printf "}" }' "$TMP/$1.layout"
	}
	cat > "$TMP/spec.json" <<EOF
[
 { "name": "fio-randrw", "report": "$TMP/fio-randrw.html", "panels": $(panels fio-randrw),
   "hover": [ { "graph": "tput", "series": "read", "csv": "$TMP/fio-randrw-csv/tput.csv",
                "column": "read_mb_per_s" },
              { "graph": "latency", "series": "read D2C p99", "csv": "$TMP/fio-randrw-csv/latency.csv",
                "column": "read_d2c_p99_us", "scale": 0.001, "at": [0.1, 0.2, 0.25] } ],
   "drag": "tput", "zoom20": 1.0, "shots": "$SHOTS",
   "toggle": { "graph": "tput", "label": "write" },
   "budget": { "paint_ms": 3000, "redraw_ms": 200 },
   "stable": { "views": [[1.0, 1.03], [2.8437, 4.2712], [0.2, 0.9]], "hover": "latency" },
   "cover": { "graph": "io", "views": [[1.0, 1.005]] },
   "xcheck": { "iow": "$IOW", "args": ["-t", "$S/fio-randrw"],
               "views": [[2.8437, 4.2712], [1.0, 1.03], [0.123, 4.567]] },
   "summary": { "iow": "$IOW", "args": ["-t", "$S/fio-randrw"] } },
 { "name": "more", "report": "$TMP/more.html", "panels": $(panels more), "zoom20": 3.5,
   "drag": "latency-heatmap", "shots": "$SHOTS",
   "stable": { "views": [[1.0, 1.03], [2.8437, 4.2712]], "hover": "latency-heatmap" } },
 { "name": "tags", "report": "$TMP/tags.html", "panels": $(panels tags),
   "hover": [ { "graph": "iops", "series": "other", "csv": "$TMP/tags-csv/iops.csv",
                "column": "other_ios_per_s" } ],
   "zoom20": 0.4, "drag": "iops", "shots": "$SHOTS",
   "toggle": { "graph": "iops", "label": "jbd2" } },
 { "name": "overlay", "report": "$TMP/overlay.html", "panels": $(panels overlay),
   "drag": "latency", "shots": "$SHOTS",
   "stable": { "views": [[1.0, 1.03], [0.5, 2.5]], "hover": "latency" } },
 { "name": "per-device", "report": "$TMP/per-device.html", "panels": $(panels per-device),
   "zoom20": 1.0, "shots": "$SHOTS",
   "stable": { "views": [[1.0, 1.02], [0.3, 0.9]], "hover": "tput" } },
 { "name": "centos7", "report": "$TMP/centos7.html", "panels": $(panels centos7),
   "shots": "$SHOTS",
   "stable": { "views": [[20, 60], [1, 2]], "hover": "latency" },
   "xcheck": { "iow": "$IOW", "args": ["-t", "$S/centos7-sda"],
               "views": [[20.123, 60.456], [0.5, 33.3]] } },
 { "name": "xcut", "report": "$TMP/xcut.html", "panels": $(panels xcut),
   "xcheck": { "iow": "$IOW", "args": ["-t", "$S/fio-randrw"],
               "views": [[2.8437, 4.2712], [0.6, 0.7]] } },
 { "name": "stream", "report": "$TMP/stream.html", "panels": $(panels stream),
   "shots": "$SHOTS",
   "cover": { "graph": "io", "views": [[0.2, 0.205], [0.3, 0.33]], "runs": true } },
 { "name": "cpu2", "report": "$TMP/cpu2.html", "panels": $(panels cpu2),
   "cpu": "cpu", "shots": "$SHOTS" },
 { "name": "discard", "report": "$TMP/discard.html", "panels": $(panels discard),
   "summary": { "iow": "$IOW", "args": ["-t", "$S/discard"] } },
 { "name": "causes", "report": "$TMP/causes.html", "panels": $(panels causes),
   "pictures": [ "io-flame", "top-files" ], "zoom20": 0.2, "shots": "$SHOTS" },
 { "name": "lossy", "report": "$TMP/lossy.html", "panels": $(panels lossy),
   "texts": [ "$lost events lost" ],
   "shaded": { "graph": "tput", "window": [1.0, 1.2] }, "shots": "$SHOTS" }
]
EOF
	node "$TOP/tests/report_check.js" "$TMP/spec.json" > "$TMP/browser.out" 2>&1
	while read -r line; do
		case "$line" in
		"ok   "*) pass "browser: ${line#ok   }";;
		"FAIL "*) fail "browser: ${line#FAIL }";;
		"skipped: "*) skip "browser: ${line#skipped: }";;
		"info "*) echo "$line";;
		*) echo "     $line";;
		esac
	done < "$TMP/browser.out"
	grep -qE '^(ok|FAIL|skipped)' "$TMP/browser.out" ||
		fail "the browser checks ran" "$(tail -n 3 "$TMP/browser.out")"
	if [ -n "$SHOTS" ]; then echo "info screenshots in $SHOTS"
	else echo "info no screenshots (the suite's run: IOW_SHOTS=DIR takes them)"; fi
fi
finish
