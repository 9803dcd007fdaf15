#!/bin/sh
# t_summary.sh: --summary end to end on real traces, against Debian's
# blkparse (completed I/Os and KiB: equal) and btt (D2C, Q2C means:
# within 0.1%, and their n equal) on the traces where btt is an oracle;
# every input form; bad input and usage errors.
. "$(dirname "$0")/lib.sh"
TRACES="$TOP/samples"

# oracle NAME DIR BASE: our summary vs blkparse and btt on DIR/BASE.*
oracle() {
	name=$1 dir=$2 base=$3
	if ! command -v blkparse >/dev/null || ! command -v btt >/dev/null; then
		skip "$name: blkparse/btt not installed"; return
	fi
	blkparse -i "$base" -D "$dir" > "$TMP/$base.bp" 2>/dev/null
	blkparse -q -i "$base" -D "$dir" -d "$TMP/$base.dump" -O >/dev/null 2>&1
	# btt writes its per-device .dat files where it runs: in $TMP
	(cd "$TMP" && btt -i "$base.dump" > "$base.btt" 2>/dev/null)
	if ! "$IOW" -t "$dir/$base" --summary=json > "$TMP/$base.json"; then
		fail "$name: iowatcher failed"; return
	fi
	if [ "$(grep -c D2C "$TMP/$base.btt")" = 0 ]; then
		fail "$name: btt printed no D2C"; return
	fi
	if python3 "$TOP/tests/oracle.py" "$TMP/$base.json" "$TMP/$base.bp" \
		"$TMP/$base.btt" > "$TMP/$base.cmp" 2>&1; then
		pass "$name matches blkparse and btt"
	else
		fail "$name" "$(grep FAIL "$TMP/$base.cmp" | tr '\n' ';')"
	fi
	sed 's/^/     /' "$TMP/$base.cmp"
}

json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# Samples where btt and blkparse are no oracle (io-accounting.md): btt
# leaves split pieces out and pairs reads with the writes that cover them;
# blkparse counts flushes as reads and discards as writes. Their answers
# are checked in test_accounting.c (traces built with known answers) and
# t_accounting.sh (blkparse's identity, class by class).
not_oracle() {
	case "$1" in
	ext4-fsync|discard|two-devices|ext4-causes) echo "cache flushes";;
	split-dd) echo "split bios";;
	overlap-fio) echo "reads inside in-flight writes";;
	esac
}

oracle "centos7 per-CPU files" "$TRACES" centos7-sda
for set in "$TOP"/samples/*.blktrace.0; do
	[ -f "$set" ] || continue
	base=$(basename "$set" .blktrace.0)
	why=$(not_oracle "$base")
	if [ -n "$why" ]; then
		echo "     sample $base: btt is no oracle here ($why)"
		continue
	fi
	oracle "sample $base" "$TOP/samples" "$base"
done

# The same trace as per-CPU files, a dump, a file of the set, and stdin.
if [ -f "$TMP/centos7-sda.dump" ]; then
	"$IOW" -t "$TRACES/centos7-sda" --summary=json > "$TMP/a.json"
	"$IOW" -t "$TMP/centos7-sda.dump" --summary=json > "$TMP/b.json"
	"$IOW" -t "$TRACES/centos7-sda.blktrace.1" --summary=json > "$TMP/c.json"
	"$IOW" -t - --summary=json < "$TMP/centos7-sda.dump" > "$TMP/d.json"
	key="[(x['events'], x['devices']) for x in d['traces']]"
	a=$(json "$TMP/a.json" "$key")
	check "dump reads like the per-CPU files" [ "$a" = "$(json "$TMP/b.json" "$key")" ]
	check "one file of a set reads the whole set" [ "$a" = "$(json "$TMP/c.json" "$key")" ]
	check "stdin reads like a file" [ "$a" = "$(json "$TMP/d.json" "$key")" ]
	check "events count as blkparse's (799)" [ "$(json "$TMP/a.json" "d['traces'][0]['events']")" = 799 ]
	check "duration from the first to the last event" \
		[ "$(json "$TMP/a.json" "round(d['traces'][0]['duration_s'], 3)")" = 110.219 ]
	check "remap-only partition is not listed as a device" \
		[ "$(json "$TMP/a.json" "[x['device'] for x in d['traces'][0]['devices']]")" = "['8,0']" ]
else
	skip "input forms: no dump (blkparse missing)"
fi

# A directory holds several traces; each is summarised with its label.
mkdir -p "$TMP/dir"
cp "$TRACES"/centos7-sda.blktrace.* "$TMP/dir/"
[ -f "$TMP/centos7-sda.dump" ] && cp "$TMP/centos7-sda.dump" "$TMP/dir/other.dump"
"$IOW" -t "$TMP/dir" --summary=json > "$TMP/dir.json"
check "directory: every trace inside" [ "$(json "$TMP/dir.json" "len(d['traces'])")" -ge 1 ]
check "labels from -l, in order" [ "$("$IOW" -t "$TRACES/centos7-sda" -l mine --summary=json | python3 -c "import json,sys; print(json.load(sys.stdin)['traces'][0]['label'])")" = mine ]

# -x splits the counts exactly.
w() { "$IOW" -t "$TRACES/centos7-sda" --summary=json "$@" | python3 -c "import json,sys; print(sum(x['write']['ios'] for x in json.load(sys.stdin)['traces'][0]['devices']))"; }
all=$(w); first=$(w -x 0:50); rest=$(w -x 50:1000)
check "-x 0:50 plus -x 50:1000 is the whole ($first + $rest = $all)" [ $((first + rest)) = "$all" ] 
check "-x restricts what is counted" [ "$first" -lt "$all" ]

# --summary text names device, I/Os, latency rows.
"$IOW" -t "$TRACES/centos7-sda" --summary > "$TMP/text"
check "text summary has the device and latency rows" grep -q "device 8,0" "$TMP/text"
check "text summary has D2C" grep -q "D2C" "$TMP/text"
check "the trace's name once where it is the source too" \
	sh -c "cd '$TRACES' && '$IOW' -t centos7-sda --summary | head -n 1 | grep -q '^centos7-sda: 799 events'"

# Tags in the text: most bytes first (the graphs' legends' order), the
# top 8 by name and the rest in one line that keeps the totals; the JSON
# keeps every one, in the same order. ext4-fsync by process: the two
# kworkers' 161 and 129 cache flushes carry no bytes, so the dd writers
# rank before them (by I/Os, they pushed six dd writers into "more").
E="$TRACES/ext4-fsync"
"$IOW" -t "$E" -P --summary > "$TMP/tags.txt"
"$IOW" -t "$E" -P --summary=json > "$TMP/tags.json"
"$IOW" -t "$E" -P --top 30 --summary > "$TMP/tags30.txt"
check "tags: the text ranks them by bytes, 8 named and one line for the rest" \
	python3 - "$TMP/tags.txt" "$TMP/tags.json" "$TMP/tags30.txt" <<'EOF2'
import json, re, sys
UNITS = {"B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
def rows(path):
    lines = open(path).read().split("\n")
    i = lines.index(" tags (by bytes)")
    assert re.match(r"^ +I/Os +bytes  tag$", lines[i + 1]), lines[i + 1]
    out = []
    for l in lines[i + 2:]:
        m = re.match(r"  +(\d+) +([\d.]+) (B|KiB|MiB|GiB)  (.*)$", l)
        if not m:
            break
        out.append((m.group(4), int(m.group(1)),
                    float(m.group(2)) * UNITS[m.group(3)]))
    return out
text, wide = rows(sys.argv[1]), rows(sys.argv[3])
tags = json.load(open(sys.argv[2]))["traces"][0]["tags"]
assert len(tags) == 26, len(tags)
nbytes = [t["bytes"] for t in tags]
assert nbytes == sorted(nbytes, reverse=True), nbytes
assert len(text) == 9 and text[-1][0] == "18 more tags", text
assert [r[0] for r in text[:8]] == [t["label"] for t in tags[:8]], text
assert [r[1] for r in text[:8]] == [t["ios"] for t in tags[:8]], text
assert text[-1][1] == sum(t["ios"] for t in tags[8:]), (text[-1], tags)
assert abs(text[-1][2] - sum(nbytes[8:])) <= 0.05 * 1024, text[-1]
assert sum(r[1] for r in text) == sum(t["ios"] for t in tags)
assert len(wide) == 26 and [r[0] for r in wide] == [t["label"] for t in tags]
# the writers before the flushing kworkers, whose I/Os carry no bytes
assert [r[0].split(" ")[0] for r in text[1:8]] == ["dd"] * 7, text
assert not any(r[0].startswith("kworker/") for r in text[:8]), text
assert all(r[2] == 0 for r in wide if r[0].startswith("kworker/1:1H")), wide
EOF2

# A latency row per class: reads' and writes' figures each their own,
# those of the per-I/O log's rows of that class (and the JSON's
# latency_by_class); sizes in the unit that reads best (MiB, GiB), equal
# to the JSON's bytes within the digit shown.
"$IOW" -t "$TRACES/fio-randrw" --summary > "$TMP/class.txt"
"$IOW" -t "$TRACES/fio-randrw" --summary=json > "$TMP/class.json"
"$IOW" -t "$TRACES/fio-randrw" --events "$TMP/class.csv"
"$TOP/bench/gentrace" -o "$TMP/big" -n 300000 -s 3 --mix randread-seqwrite 2> /dev/null
"$IOW" -t "$TMP/big" --summary > "$TMP/big.txt"
"$IOW" -t "$TMP/big" --summary=json > "$TMP/big.json"
check "a D2C, Q2C and Q2D row per class, each the log's rows of that class" \
	python3 - "$TMP/class.txt" "$TMP/class.json" "$TMP/class.csv" <<'EOF2'
import csv, json, re, sys
text = open(sys.argv[1]).read()
dev = json.load(open(sys.argv[2]))["traces"][0]["devices"][0]
rows = list(csv.DictReader(open(sys.argv[3])))
for metric in ("D2C", "Q2C", "Q2D"):
    assert not re.search(r"^  %s +\d" % metric, text, re.M), text
    for cls in ("read", "write"):
        m = re.search(r"^  %s %s +(\d+) +([\d.]+) +[\d.]+ +[\d.]+ +[\d.]+ +([\d.]+)$" % (metric, cls), text, re.M)
        assert m, (metric, cls, text)
        v = [float(r[metric.lower() + "_us"]) for r in rows if r["class"] == cls and r[metric.lower() + "_us"]]
        assert int(m.group(1)) == len(v), (metric, cls, m.group(0), len(v))
        assert abs(float(m.group(2)) - sum(v) / len(v)) <= 0.05, (m.group(0), sum(v) / len(v))
        assert abs(float(m.group(3)) - max(v)) <= 0.05, (m.group(0), max(v))
        j = dev["latency_by_class"][cls][metric.lower() + "_us"]
        assert j["n"] == len(v) and abs(j["mean"] - sum(v) / len(v)) <= 0.0005, (j, cls)
    n = sum(dev["latency_by_class"][c][metric.lower() + "_us"]["n"] for c in ("read", "write"))
    assert n == dev[metric.lower() + "_us"]["n"], (metric, n)
EOF2
check "sizes in MiB and GiB, the JSON's bytes within the digit shown" \
	python3 - "$TMP/big.txt" "$TMP/big.json" "$TMP/class.txt" "$TMP/class.json" <<'EOF2'
import json, re, sys
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
for txt, js in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    text = open(txt).read()
    dev = json.load(open(js))["traces"][0]["devices"][0]
    for cls in ("read", "write"):
        m = re.search(r"^  %s +\d+ I/Os +([\d.]+) (B|KiB|MiB|GiB) " % cls, text, re.M)
        assert m, (cls, text)
        v, unit = float(m.group(1)), m.group(2)
        assert v < 1024 and (unit == "B" or v >= 1), m.group(0)
        assert abs(v * UNITS[unit] - dev[cls]["bytes"]) <= 0.05 * UNITS[unit], (m.group(0), dev[cls]["bytes"])
big = open(sys.argv[1]).read()
assert re.search(r"^  write +\d+ I/Os +1\.\d GiB ", big, re.M), big
EOF2

# Bad input: one line on stderr naming the file, exit 1.
bad() {
	name=$1 want=$2; shift 2
	"$IOW" "$@" --summary > /dev/null 2> "$TMP/err"; rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ $rc = 1 ] && [ "$lines" = 1 ] && grep -q "$want" "$TMP/err"; then
		pass "$name"
	else
		fail "$name" "exit $rc, $lines lines: $(cat "$TMP/err")"
	fi
}
bad "nonexistent path" "no such file" -t "$TMP/nothing"
printf 'hello world, not a trace at all........................................\n' > "$TMP/text.dump"
bad "not a trace" "text.dump: text, not a blktrace trace" -t "$TMP/text.dump"
: > "$TMP/empty.dump"
bad "empty trace" "empty trace" -t "$TMP/empty.dump"
mkdir -p "$TMP/nodata"
bad "directory with no trace" "holds no blktrace trace" -t "$TMP/nodata"
printf '\007\164\141\145' > "$TMP/short.dump"
bad "only a magic" "truncated" -t "$TMP/short.dump"
head -c 30000 "$TRACES/centos7-sda.blktrace.1" > "$TMP/cut.blktrace.0"
"$IOW" -t "$TMP/cut" --summary > /dev/null 2> "$TMP/err"; rc=$?
check "truncated tail: a warning, exit 0" [ $rc = 0 ] 
check "truncated tail: warning names byte offset" grep -q "cut.blktrace.0: byte .*truncated last record" "$TMP/err"

# Usage errors: exit 2 with the usage line.
usage() {
	name=$1; shift
	"$IOW" "$@" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc = 2 ] && grep -q "^usage: iowatcher" "$TMP/err"; then
		pass "usage: $name"
	else
		fail "usage: $name" "exit $rc: $(cat "$TMP/err")"
	fi
}
usage "no trace"
usage "bad range -x 5:1" -t "$TRACES/centos7-sda" -x 5:1
usage "unknown option" -t "$TRACES/centos7-sda" --frobnicate
usage "bad summary format" -t "$TRACES/centos7-sda" --summary=xml
usage "bad action" -t "$TRACES/centos7-sda" -a Z
usage "bad bin width" -t "$TRACES/centos7-sda" --bin-ms 0
check "--help exits 0" sh -c "\"$IOW\" --help > /dev/null"
check "--version prints the version" sh -c "\"$IOW\" --version | grep -q '^iowatcher [0-9]'"
finish
