#!/bin/sh
# t_compare_rerun.sh: --compare says what changed, the work or its speed,
# and a rerun claims nothing it cannot stand behind (issue #37).
# On cmpgen's steady runs split in halves (10 seeds): across every class's
# and the whole's table, at most one comparison claims anything (before
# the Benjamini-Hochberg correction and --min-change: 32 claims in 5 of
# 10). A delay of 6 us on reads of 220 us (2.7%): "within --min-change"
# at the default 5%, slower at --min-change 1. On the recordings in
# tests/data/compare (tests/record_compare.sh made them: fio's 4 KiB
# direct random reads at 1000 IOPS, alone, beside dd writing 32 MiB with
# fsync, again, and with a slow spell placed with slowfs): dd's writes
# are work the other run lacks (work "more", "less" the other way, the
# verdict on the reads both did, the line leading with the work and
# naming dd and its file); the same job again claims nothing in the
# table; the slow spell is said as a spell in time; -l names the runs.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/tools/cmpgen"
DATA="$TOP/tests/data/compare"
[ -x "$GEN" ] || { fail "tests/tools/cmpgen is built (make)"; finish; exit 1; }
cd "$TMP" || exit 1

# claims FILE: how many rows of the table say higher, lower, slower, faster
claims() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for g in d['classes'] + [d['overall']] for v in g.values()
          if isinstance(v, dict) and v['significant']))" "$1"
}
with=0 total=0
for seed in $(seq 1 10); do
	"$GEN" "$TMP/n.dump" --seed "$seed"
	"$IOW" -t "$TMP/n.dump" -t "$TMP/n.dump" -x 0:10 -x 10:20 \
		--compare=json > "$TMP/null$seed.json"
	n=$(claims "$TMP/null$seed.json")
	total=$((total + n))
	[ "$n" -gt 0 ] && with=$((with + 1))
done
check "halves of 10 steady runs: claims in at most 1 comparison across the whole table ($total claims in $with)" [ "$with" -le 1 ]
check "  the JSON says the correction and the family (tests, fdr, min_change 0.05)" python3 -c "
import json, sys
d = json.load(open('$TMP/null1.json'))
sys.exit(not (d['correction'] == 'benjamini-hochberg' and d['fdr'] == 0.05 and d['tests'] > 20 and d['min_change'] == 0.05 and d['intervals_from'] == 'windows within each run'))"

"$GEN" "$TMP/a.dump"
"$GEN" "$TMP/d6.dump" --delay-class r:6
read_word() { # FILE: the reads' mean latency verdict
	python3 -c "
import json, sys
print([g for g in json.load(open(sys.argv[1]))['classes'] if g['class'] == 'read'][0]['latency_mean_us']['verdict'])" "$1"
}
"$IOW" -t "$TMP/a.dump" -t "$TMP/d6.dump" --compare=json > "$TMP/d6.json"
"$IOW" -t "$TMP/a.dump" -t "$TMP/d6.dump" --min-change 1 --compare=json > "$TMP/d6m1.json"
check "reads 6 us slower of 220 us: within --min-change at 5% ($(read_word "$TMP/d6.json"))" \
	[ "$(read_word "$TMP/d6.json")" = "within --min-change" ]
check "  slower at --min-change 1 ($(read_word "$TMP/d6m1.json"))" \
	[ "$(read_word "$TMP/d6m1.json")" = "slower" ]
"$IOW" -t "$TMP/a.dump" -t "$TMP/d6.dump" --compare > "$TMP/d6.txt"
check "  the text says the intervals measure variation within each run" \
	grep -q "not how two runs of one job differ" "$TMP/d6.txt"

# the same job at a quarter of the rate (a throttled reader): the same
# work, fewer I/Os per second (its pids' shares did not change)
"$GEN" "$TMP/q.dump" --ios 5000
"$IOW" -t "$TMP/a.dump" -t "$TMP/q.dump" --compare=json > "$TMP/q.json"
check "the same job at a quarter of the rate: the same work, fewer I/Os per second, said first" python3 -c "
import json, sys
d = json.load(open('$TMP/q.json'))
sys.exit(not (d['work'] == 'same' and d['rate_verdict'] == 'fewer I/Os per second' and d['summary'].startswith('q.dump did fewer I/Os per second')))"

# the recordings
J() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
"$IOW" -t "$DATA/alone" -t "$DATA/noisy" --compare=json > "$TMP/an.json" 2> "$TMP/an.err"
"$IOW" -t "$DATA/noisy" -t "$DATA/alone" --compare=json > "$TMP/na.json" 2>> "$TMP/an.err"
echo "     $(J "$TMP/an.json" "d['summary']")"
check "alone against noisy: work more, dd a work contributor none of whose I/Os alone has" python3 - "$TMP/an.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['work'] == 'more', d['work']
w = [c for c in d['work_contributors'] if c['stratum'] == 'comm' and c['value'] == 'dd']
assert w and w[0]['a_ios'] == 0 and w[0]['b_ios'] >= 30 and w[0]['b_bytes'] == 32 << 20, w
for c in d['work_contributors']:
    assert c['kind'] == 'work' and c['stratum'] in ('class', 'size', 'process', 'comm', 'cgroup', 'file')
    for k in ('value', 'a_ios', 'b_ios', 'a_bytes', 'b_bytes', 'a_latency_s', 'b_latency_s', 'share'):
        assert k in c, k
assert d['verdict_on'] == 'matched' and d['matched']['class'] == 'all'
assert d['matched']['ios']['b'] < d['overall']['ios']['b']
PY
check "  the line leads with the work: dd, its file, 32 MiB written" sh -c \
	"grep -q '^noisy did work alone did not: dd (file [^)]*/noise) wrote 32 MiB in' '$TMP/an.err' ||
	 python3 -c \"import json,sys; s=json.load(open('$TMP/an.json'))['summary']; sys.exit(not (s.startswith('noisy did work alone did not: dd (file ') and 'wrote 32 MiB in' in s and 'the I/O both runs did' in s))\""
check "  noisy against alone: work less, the verdict and intervals flipped" python3 - "$TMP/an.json" "$TMP/na.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b['work'] == 'less', b['work']
flip = {'slower': 'faster', 'faster': 'slower'}
assert b['verdict'] == flip.get(a['verdict'], a['verdict']), (a['verdict'], b['verdict'])
ma, mb = a['matched']['latency_mean_us'], b['matched']['latency_mean_us']
assert abs(ma['ci'][0] + mb['ci'][1]) < 1e-6 and abs(ma['ci'][1] + mb['ci'][0]) < 1e-6, (ma['ci'], mb['ci'])
assert b['summary'].startswith('noisy did work alone did not: dd'), b['summary']
PY
check "  nothing on stderr" [ ! -s "$TMP/an.err" ]

"$IOW" -t "$DATA/alone" -t "$DATA/again" --compare=json > "$TMP/aa.json"
echo "     $(J "$TMP/aa.json" "d['summary']")"
n=$(claims "$TMP/aa.json")
check "the same job again: no difference claimed anywhere in the table ($n)" [ "$n" = 0 ]
check "  the same work, no significant difference" \
	[ "$(J "$TMP/aa.json" "d['work'] + ' ' + d['verdict']")" = "same no significant difference" ]
check "  its line says nothing in the table changed significantly" \
	[ "$(J "$TMP/aa.json" "'nothing in the table changed significantly' in d['summary']")" = True ]

"$IOW" -t "$DATA/alone" -t "$DATA/spell" --compare=json > "$TMP/as.json"
echo "     $(J "$TMP/as.json" "d['summary']")"
check "a slow spell placed with slowfs (0.8-1.2 s after the script's start): said as a spell of spell's" python3 - "$TMP/as.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r'spell had a slow spell from ([0-9.]+) s to ([0-9.]+) s', d['summary'])
assert m, d['summary']
a, b = float(m.group(1)), float(m.group(2))
assert 0 <= a < b <= 2 and b - a <= 0.8, (a, b)
assert d['verdict'] == 'slower' and d['work'] == 'same'
assert 'outside it, ' in d['summary']
PY

# the text: units as --summary's, no exponent, the contributors' legend,
# rows grouped by stratum and sorted by share
"$IOW" -t "$DATA/alone" -t "$DATA/again" --compare > "$TMP/aa.txt"
mbs=$("$IOW" -t "$DATA/alone" --summary | awk '$1 == "read" { print $6; exit }')
check "text: the reads' throughput in MB/s as --summary says it ($mbs MB/s)" \
	sh -c "grep '^  throughput' '$TMP/aa.txt' | head -1 | grep -q ' $(printf '%.3g' "$mbs") MB/s '"
"$IOW" -t "$TOP/samples/ext4-causes" -t "$TOP/samples/ext4-causes" -x 0:0.44 -x 0.44:0.9 \
	--compare > "$TMP/halves.txt"
check "  no number in exponent form (ext4-causes' halves: main said 7.04e-05 and 3.097e-05 s)" \
	sh -c "! grep -q '[0-9]e[-+][0-9]' '$TMP/aa.txt' '$TMP/halves.txt'"
check "  the latency-seconds said in plain words, mix and rate in a legend" sh -c "
	grep -q 'latency-seconds: every timed I/O.s latency, Q2C or else D2C, added up' '$TMP/aa.txt' &&
	grep -q '^  mix: again had more or fewer such I/Os; rate: such I/Os each took longer' '$TMP/aa.txt'"
check "  shares above 100% explained; rows grouped by stratum, each by share" python3 - "$TMP/aa.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
part = t.split('Where the change in I/O time comes from')[1].split('\n\n')[0]
rows = [l for l in part.splitlines() if re.match(r'^  (\w+)?\s+-?[0-9.]+%', l)]
assert rows, part
if any(float(re.search(r'(-?[0-9.]+)%', r).group(1)) > 100 for r in rows):
    assert 'A share above 100% is offset' in part
seen, cur, shares = [], None, {}
for r in rows:
    name = r[2:11].strip()
    if name:
        assert name not in seen, (name, seen)
        seen.append(name)
        cur = name
    shares.setdefault(cur, []).append(float(re.search(r'(-?[0-9.]+)%', r).group(1)))
for k, v in shares.items():
    assert v == sorted(v, reverse=True), (k, v)
PY

# the quantile-shift chart leaves out the points the table refuses
# (alone against noisy: the reads' p99.9, at x 640-700 of the D2C panel:
# 150 coloured px on main, its point, line and band)
"$IOW" -t "$DATA/alone" -t "$DATA/noisy" --compare -o "$TMP/an.png" > /dev/null
px=$("$TOP/tests/tools/pngprobe" "$TMP/an.png" 640 60 700 290)
check "the quantile shift leaves out the reads' p99.9 of too few I/Os ($px coloured px there)" [ "$px" = 0 ]

# the labels, not A and B by order
"$IOW" -t "$DATA/noisy" -t "$DATA/alone" -l busy -l quiet --compare > "$TMP/lab.txt"
check "-l busy -l quiet: the line names them ($(head -c 60 "$TMP/lab.txt"))" \
	sh -c "head -1 '$TMP/lab.txt' | grep -q '^busy did work quiet did not: dd'"
"$IOW" -t "$TMP/a.dump" -t "$TMP/a.dump" --compare=json > "$TMP/self.json"
check "a trace against itself: the same work, none listed" \
	[ "$(J "$TMP/self.json" "d['work'] + str(len(d['work_contributors']))")" = same0 ]

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
bad "--min-change abc: one line" "give a change in per cent" \
	-t "$TMP/a.dump" -t "$TMP/a.dump" --compare --min-change abc
bad "--min-change without --compare: one line" "goes with --compare" \
	-t "$TMP/a.dump" --min-change 5 --summary
finish
