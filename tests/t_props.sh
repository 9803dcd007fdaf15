#!/bin/sh
# t_props.sh: every sample's summary JSON, events log, Perfetto trace and
# HTML report, and the merge of all their summaries, carry no non-finite
# or impossible number (tests/summary_props.py: valid JSON, no NaN or
# infinity, nothing negative, p50 <= p90 <= p99 <= max, mean <= max, no
# latency longer than the trace, loss windows inside it;
# tests/report_props.py: the report's document and binary block, its
# summary the same as --summary=json's); the fuzz targets check the same
# of every case that succeeds (fuzz/fuzz_props.h, test_fuzz_regress).
. "$(dirname "$0")/lib.sh"
PROPS="$TOP/tests/summary_props.py"
RPROPS="$TOP/tests/report_props.py"
sums=
for s in $(ls "$TOP/samples" | sed -n 's/\.blktrace\.0$//p') perf-fio.perf.txt.xz \
	tracedat-fio.dat.xz; do
	if ! "$IOW" -t "$TOP/samples/$s" --summary=json --events "$TMP/$s.jsonl" \
		-o "$TMP/$s.pftrace" > "$TMP/$s.json" 2> "$TMP/$s.err"; then
		fail "$s: read" "$(head -c 300 "$TMP/$s.err")"
		continue
	fi
	if out=$(python3 "$PROPS" "$TMP/$s.json" "$TMP/$s.jsonl") &&
	   [ -s "$TMP/$s.pftrace" ]; then
		pass "$s: summary, events log and Perfetto trace ($out)"
	else
		fail "$s: properties" "$out"
	fi
	if ! "$IOW" -t "$TOP/samples/$s" -o "$TMP/$s.html" 2> "$TMP/$s.err"; then
		fail "$s: the report" "$(head -c 300 "$TMP/$s.err")"
	elif out=$(python3 "$RPROPS" "$TMP/$s.html" "$TMP/$s.json"); then
		pass "$s: the HTML report's numbers ($out)"
	else
		fail "$s: the HTML report's numbers" "$out"
	fi
	sums="$sums $TMP/$s.json"
done
# shellcheck disable=SC2086
if "$IOW" --merge-summaries $sums --summary=json > "$TMP/merged.json" 2> "$TMP/m.err" &&
   out=$(python3 "$PROPS" "$TMP/merged.json"); then
	pass "the merge of them all ($out)"
else
	fail "the merge of them all" "$(head -c 300 "$TMP/m.err") $out"
fi

# the report's check can fail: a bin's queue depth made negative in the
# block, a p99 changed in the page's summary, a graph's latency infinite
s=dd-write
if [ -s "$TMP/$s.html" ]; then
	python3 - "$TMP/$s.html" "$TMP" <<'PY'
import base64, json, re, struct, sys, zlib
page = open(sys.argv[1], encoding="utf-8").read()
pat = r'(<script id="iow-doc" type="application/json">)(.*?)(</script>)'
doc = json.loads(re.search(pat, page, re.S).group(2))
bpat = r'(<script id="iow-blob" type="application/octet-stream">)(.*?)(</script>)'
raw = bytearray(zlib.decompress(base64.b64decode(re.search(bpat, page, re.S).group(2))))
def put(name, raw):
    b = base64.b64encode(zlib.compress(bytes(raw))).decode()
    out = re.sub(bpat, lambda m: m.group(1) + b + m.group(3), page, flags=re.S)
    open("%s/%s.html" % (sys.argv[2], name), "w", encoding="utf-8").write(out)
lv = doc["traces"][0]["levels"][0]
neg = bytearray(raw)
struct.pack_into("<f", neg, lv["depth"]["o"], -1.0)
put("neg-depth", neg)
g = [g for g in doc["graphs"] if g["axis"] == "ns" and
     any("d" in s and s["d"] and s["d"][0]["n"] for p in g["panels"] for s in p.get("series", []))][0]
ref = [s["d"][0] for p in g["panels"] for s in p.get("series", []) if "d" in s and s["d"] and s["d"][0]["n"]][0]
inf = bytearray(raw)
struct.pack_into("<f", inf, ref["o"], float("inf"))
put("inf-latency", inf)
out = page.replace('"p99": ', '"p99": 1', 1)
open("%s/p99.html" % sys.argv[2], "w", encoding="utf-8").write(out)
PY
	for bad in neg-depth inf-latency p99; do
		if out=$(python3 "$RPROPS" "$TMP/$bad.html" "$TMP/$s.json"); then
			fail "a report with $bad passes the check" "$out"
		else
			pass "a report with $bad fails the check ($out)"
		fi
	done
fi
finish
