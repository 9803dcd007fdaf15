#!/bin/sh
# t_tagging.sh: tags end to end through the CLI: -P and -T tag-by-pid
# agree, tags add up to the completions, the picture has a colour per
# tag, and a misbehaving tagger ends in one line, exit 1, no output file.
. "$(dirname "$0")/lib.sh"
T="$CENTOS"
tags() { python3 -c "import json,sys; print(sorted((t['label'],t['ios'],t['bytes']) for t in json.load(sys.stdin)['traces'][0]['tags']))"; }
sumtags() { python3 -c "import json,sys; d=json.load(sys.stdin)['traces'][0]; print(sum(t['ios'] for t in d['tags']) == sum(x['read']['ios']+x['write']['ios'] for x in d['devices']) and sum(t['bytes'] for t in d['tags']) == sum(x['read']['bytes']+x['write']['bytes'] for x in d['devices']))"; }

p=$("$IOW" -t "$T" -P --summary=json | tags)
t=$("$IOW" -t "$T" -T tag-by-pid --summary=json | tags)
check "-P and -T tag-by-pid give the same tags" [ "$p" = "$t" ]
check "-P tags add up to the completions" [ "$("$IOW" -t "$T" -P --summary=json | sumtags)" = True ]
check "tag-by-size tags add up to the completions" [ "$("$IOW" -t "$T" -T tag-by-size --summary=json | sumtags)" = True ]
check "tag-example tags add up to the completions" [ "$("$IOW" -t "$T" -T tag-example --summary=json | sumtags)" = True ]
m=$("$IOW" -t "$T" -P --merge-comm --summary=json | python3 -c "import json,sys; print(sorted((t['label'],t['ios']) for t in json.load(sys.stdin)['traces'][0]['tags']))")
names=$("$IOW" -t "$T" -P --summary=json | python3 -c "
import json,sys,re,collections
c=collections.Counter()
for t in json.load(sys.stdin)['traces'][0]['tags']: c[re.sub(r' \(\d+\)$','',t['label'])]+=t['ios']
print(sorted(c.items()))")
check "--merge-comm: one tag per process name" [ "$m" = "$names" ]

# -T with arguments, through the shell: a range tagger with an outside class
r=$("$IOW" -t "$T" -T 'tag-by-range -r low:0-10G -o high' --summary=json | python3 -c "import json,sys; print(sorted(t['label'] for t in json.load(sys.stdin)['traces'][0]['tags']))")
check "-T passes arguments (tag-by-range)" [ "$r" = "['high', 'low']" ]

# Independent oracle: per pid from blkparse's own text (Q events that
# complete in this trace; every merge here joins its own pid's request).
if command -v blkparse >/dev/null; then
	blkparse -i centos7-sda -D "$TOP/samples" -f '%a %p %n\n' > "$TMP/bp" 2>/dev/null
	oracle=$(awk '$1=="Q"{q[$2]++} $1=="M"||$1=="F"{q[$2]--} END{for(p in q) if(q[p]>0) print p, q[p]}' "$TMP/bp" | sort -n | tr '\n' ' ')
	ours=$("$IOW" -t "$T" -P --summary=json | python3 -c "
import json,sys,re
for t in sorted(json.load(sys.stdin)['traces'][0]['tags'], key=lambda t: int(re.search(r'\((\d+)\)', t['label']).group(1))):
    print(re.search(r'\((\d+)\)', t['label']).group(1), t['ios'])" | tr '\n' ' ')
	check "per-pid I/Os equal blkparse's per-pid requests ($oracle)" [ "$ours" = "$oracle" ]
else
	skip "per-pid oracle: blkparse not installed"
fi

# The picture: one colour per tag in the io graph.
"$IOW" -t "$T" -P -O io -o "$TMP/tags.png" 2>/dev/null
n=0
# tags take the palette's hues after read-blue and write-vermilion
for c in 009E73 AA0000 CC79A7 56B4E9 CCBB44; do
	k=$("$TOP/tests/tools/pngprobe" "$TMP/tags.png" 0 60 2000 2000 "$c")
	[ "$k" -gt 0 ] && n=$((n + 1))
done
check "io graph shows a colour for each of the 5 tags ($n seen)" [ "$n" = 5 ]

# Misbehaving taggers through the CLI.
badtag() {
	name=$1 want=$2 cmd=$3
	rm -f "$TMP/out.png"
	"$IOW" -t "$T" -T "$cmd" --tagger-timeout 2 -o "$TMP/out.png" \
		> /dev/null 2> "$TMP/err"; rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ $rc = 1 ] && [ "$lines" = 1 ] && grep -q "$want" "$TMP/err" &&
	   [ ! -e "$TMP/out.png" ] && ! ls "$TMP" | grep -q 'out.png.'; then
		pass "tagger $name: one line, exit 1, no output"
	else
		fail "tagger $name" "exit $rc, $lines lines: $(cat "$TMP/err")"
	fi
}
badtag "not found" "not found" "no-such-tagger-here"
badtag "exits at once" "event" "true"
badtag "exits non-zero" "event" "cat > /dev/null; exit 3"
badtag "unknown response" "unknown response type" "printf '\\011\\000\\000\\000'; cat > /dev/null"
badtag "silent" "no answer for 2 s" "exec sleep 30"

# Tags split every graph: latency, latency-hist, queue depth and seeks get
# a line per process, and the lines add up to the untagged ones.
C7="$CENTOS"
"$IOW" -t "$C7" -O latency -O queue-depth -O seeks -O latency-hist \
	--csv "$TMP/all" -o "$TMP/all.svg" > /dev/null 2>&1
"$IOW" -t "$C7" -P -O latency -O queue-depth -O seeks -O latency-hist \
	--csv "$TMP/tag" -o "$TMP/tag.svg" > /dev/null 2>&1
for g in latency latency-hist queue-depth seeks; do
	check "-P: $g has a line per process" \
		grep -q 'kworker_u256_1_17852' "$TMP/tag/$g.csv"
done
# (each value to its unit's resolution: a millionth of a request, a
# thousandth of a seek a second, off by half of it at most)
for g in queue-depth:0.000001 seeks:0.001; do
	check "-P: the processes' ${g%%:*} adds up to the whole" \
		python3 - "$TMP/all/${g%%:*}.csv" "$TMP/tag/${g%%:*}.csv" "${g#*:}" <<'EOF2'
import csv, sys
whole = list(csv.reader(open(sys.argv[1])))
parts = list(csv.reader(open(sys.argv[2])))
res = float(sys.argv[3])
assert len(whole) == len(parts) and len(parts[0]) > 4
for w, p in zip(whole[1:], parts[1:]):
    total = sum(float(x) for x in p[2:] if x)
    one = sum(float(x) for x in w[2:] if x)
    assert abs(total - one) <= 1e-6 * max(1, one) + res / 2 * len(p), (w, p)
EOF2
done
# latency-hist is in shares of each line's I/Os: every process's line
# adds up to 100 %, and the processes have I/Os in the buckets the whole
# has them, no other
check "-P: latency-hist, each process's line 100 % of its I/Os, in the whole's buckets" \
	python3 - "$TMP/all/latency-hist.csv" "$TMP/tag/latency-hist.csv" <<'EOF2'
import csv, sys
whole = list(csv.reader(open(sys.argv[1])))
parts = list(csv.reader(open(sys.argv[2])))
assert len(parts[0]) > 3
for rows in (whole, parts):
    for c in range(1, len(rows[0])):
        total = sum(float(r[c]) for r in rows[1:] if r[c])
        assert total == 0 or abs(total - 100) <= 0.01, (rows[0][c], total)
def buckets(rows):
    return {r[0] for r in rows[1:] if any(x and float(x) > 0 for x in r[1:])}
assert buckets(whole) == buckets(parts), (buckets(whole), buckets(parts))
EOF2
IOWATCHER_LAYOUT="$TMP/heat.layout" "$IOW" -t "$C7" -P \
	-O latency-heatmap -O latency-scatter -o "$TMP/heat.png" \
	> /dev/null 2>&1
check "-P: the latency heat map has a panel per process" \
	sh -c "[ \$(grep -c '^latency-heatmap .*, [^,]* ([0-9]*)\$' '$TMP/heat.layout') = 5 ]"
check "-P: the scatter too" \
	grep -q '^latency-scatter .*, kworker/u256:1 (17852)$' "$TMP/heat.layout"
check "-P: each bin's mean lies between its processes' means" \
	python3 - "$TMP/all/latency.csv" "$TMP/tag/latency.csv" <<'EOF2'
import csv, sys
whole = list(csv.reader(open(sys.argv[1])))
parts = list(csv.reader(open(sys.argv[2])))
w = whole[0].index("write_d2c_mean_us")
cols = [i for i, h in enumerate(parts[0]) if h.endswith("_d2c_mean_us")]
assert len(cols) >= 5
n = 0
for a, b in zip(whole[1:], parts[1:]):
    if a[w] in ("", "nan"):
        continue
    means = [float(b[i]) for i in cols if b[i] not in ("", "nan")]
    assert means and min(means) - 1e-6 <= float(a[w]) <= max(means) + 1e-6
    n += 1
assert n >= 10, n
EOF2
finish
