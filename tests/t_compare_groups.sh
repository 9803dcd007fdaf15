#!/bin/sh
# t_compare_groups.sh: --compare of groups of runs (-t A1 -t A2 -t A3 --vs
# -t B1 -t B2 -t B3, issue #37): each run measured alone, B's runs'
# mean against A's with Welch's interval (the run-to-run variation),
# Benjamini-Hochberg across the table. cmpgen's steady runs of six seeds,
# 3 against 3: nothing claimed; the same with B's reads 100 us later:
# slower, the reads' mean latency slower. The 20 runs of one steady job
# recorded here (tests/data/compare/run*, tests/record_compare.sh: fio's
# reads at 1000 IOPS for 1 s on a loop device over slowfs, on a loaded
# machine: 387 to 1001 IOPS), split at random 10 ways into 10 against 10:
# at most 1 claim across the 10 tables; 10 random 3 against 3 likewise.
# Fewer than 3 a side: one line.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/tools/cmpgen"
DATA="$TOP/tests/data/compare"
[ -x "$GEN" ] || { fail "tests/tools/cmpgen is built (make)"; finish; exit 1; }
cd "$TMP" || exit 1

claims() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for g in d['classes'] + [d['overall']] for v in g.values()
          if isinstance(v, dict) and v['significant']))" "$1"
}
for s in 1 2 3 4 5 6; do
	"$GEN" "$TMP/s$s.dump" --seed "$s" --ios 4000 --seconds 4
	"$GEN" "$TMP/d$s.dump" --seed "$s" --ios 4000 --seconds 4 --delay-class r:100
	"$GEN" "$TMP/w$s.dump" --seed "$s" --ios 4000 --seconds 4 --writer 400:65536:800
done
"$IOW" -t s1.dump -t s2.dump -t s3.dump --vs -t s4.dump -t s5.dump -t s6.dump \
	--compare=json > "$TMP/null.json" 2> "$TMP/err"
check "3 steady runs against 3 of other seeds: compared ($(head -c 200 "$TMP/err"))" [ -s "$TMP/null.json" ]
n=$(claims "$TMP/null.json")
check "  nothing claimed anywhere in the table ($n)" [ "$n" = 0 ]
check "  the JSON: groups, the runs of each side, intervals from run-to-run variation" python3 - "$TMP/null.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['mode'] == 'groups' and d['intervals_from'] == 'run-to-run variation'
assert [r['label'] for r in d['a']['runs']] == ['s1.dump', 's2.dump', 's3.dump']
assert [r['label'] for r in d['b']['runs']] == ['s4.dump', 's5.dump', 's6.dump']
assert d['correction'] == 'benjamini-hochberg' and d['tests'] > 20
m = d['overall']['latency_mean_us']
assert m['n_a'] == 3 and m['n_b'] == 3 and m['ci'][0] < 0 < m['ci'][1], m
PY
"$IOW" -t s1.dump -t s2.dump -t s3.dump --vs -t d4.dump -t d5.dump -t d6.dump \
	--compare=json > "$TMP/slow.json"
check "3 runs against 3 with reads 100 us later: slower, the reads' mean slower" python3 - "$TMP/slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [g for g in d['classes'] if g['class'] == 'read'][0]['latency_mean_us']
assert d['verdict'] == 'slower', d['summary']
assert r['verdict'] == 'slower' and 90 < r['diff'] < 110 and r['ci'][0] > 0, r
w = [g for g in d['classes'] if g['class'] == 'write'][0]['latency_mean_us']
assert not w['significant'], w
PY
"$IOW" -t s1.dump -t s2.dump -t s3.dump --vs -t d4.dump -t d5.dump -t d6.dump \
	--compare > "$TMP/slow.txt"
check "  the text: B is slower, the runs listed, the intervals said to be the runs' variation" sh -c "
	head -1 '$TMP/slow.txt' | grep -q '^B is slower: mean I/O latency' &&
	grep -q '^B: d4.dump' '$TMP/slow.txt' && grep -q 'how runs of a job differ' '$TMP/slow.txt'"

# the work question: B's runs add a writer (pid 400, 800 writes of 64
# KiB beside the 4000 I/Os), A's lack it
"$IOW" -t s1.dump -t s2.dump -t s3.dump --vs -t w4.dump -t w5.dump -t w6.dump \
	--compare=json > "$TMP/writer.json"
check "3 runs against 3 that add a writer: work more, the writer its contributor" python3 - "$TMP/writer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['work'] == 'more', d.get('work')
w = d['work_contributors']
assert [(c['stratum'], c['value']) for c in w] == [('process', 'pid 400')], w
assert w[0]['a_share'] == 0 and 0.15 < w[0]['b_share'] < 0.18, w
assert w[0]['b_ios_mean'] == 800 and w[0]['ci'][0] > 0, w
PY
"$IOW" -t w1.dump -t w2.dump -t w3.dump --vs -t s4.dump -t s5.dump -t s6.dump \
	--compare > "$TMP/writer.txt"
check "  the other way round, the text: work less, A's writer named" \
	grep -q "^Work: less (A's runs did work B's did not or far less of): process pid 400 (17% of A's I/Os, 0% of B's" "$TMP/writer.txt"
check "  the steady 3 against 3: the same work" python3 -c "
import json, sys
d = json.load(open('$TMP/null.json'))
assert d['work'] == 'same' and d['work_contributors'] == [], d['work_contributors']"

# the 20 recorded runs, 10 random splits into 10 against 10
total=0
for k in 0 1 2 3 4 5 6 7 8 9; do
	args=$(python3 -c "
import random
r = random.Random($k)
x = list(range(1, 21))
r.shuffle(x)
print(' '.join('-t $DATA/run%d' % i for i in x[:10]), '--vs', ' '.join('-t $DATA/run%d' % i for i in x[10:]))")
	# shellcheck disable=SC2086
	"$IOW" $args --compare=json > "$TMP/runs$k.json"
	total=$((total + $(claims "$TMP/runs$k.json")))
done
check "20 recorded runs of one job, 10 splits of 10 against 10: at most 1 claim across the tables ($total)" [ "$total" -le 1 ]
work=$(for k in 0 1 2 3 4 5 6 7 8 9; do
	python3 -c "import json; print(json.load(open('$TMP/runs$k.json'))['work'])"
done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
check "  and no work claimed in any of them ($work)" [ "$work" = " 10 same;" ]
# and the smallest groups allowed: 3 against 3, 10 random splits (50
# such splits measured here: no claim in any table)
total=0
for k in 0 1 2 3 4 5 6 7 8 9; do
	args=$(python3 -c "
import random
r = random.Random(100 + $k)
x = list(range(1, 21))
r.shuffle(x)
print(' '.join('-t $DATA/run%d' % i for i in x[:3]), '--vs', ' '.join('-t $DATA/run%d' % i for i in x[3:6]))")
	# shellcheck disable=SC2086
	"$IOW" $args --compare=json > "$TMP/three$k.json"
	total=$((total + $(claims "$TMP/three$k.json")))
done
check "20 recorded runs of one job, 10 splits of 3 against 3: at most 1 claim across the tables ($total)" [ "$total" -le 1 ]
work=$(for k in 0 1 2 3 4 5 6 7 8 9; do
	python3 -c "import json; print(json.load(open('$TMP/three$k.json'))['work'])"
done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
check "  and no work claimed in any of them ($work)" [ "$work" = " 10 same;" ]

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
bad "2 runs a side: refused in one line" "needs 3 runs a side or more (2 before --vs, 2 after)" \
	-t s1.dump -t s2.dump --vs -t s4.dump -t s5.dump --compare
bad "--vs without --compare: one line" "--vs goes with --compare" \
	-t s1.dump -t s2.dump -t s3.dump --vs -t s4.dump -t s5.dump -t s6.dump --summary
bad "--vs with -o: one line" "takes neither -o" \
	-t s1.dump -t s2.dump -t s3.dump --vs -t s4.dump -t s5.dump -t s6.dump --compare -o x.png
finish
