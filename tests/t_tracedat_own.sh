#!/bin/sh
# t_tracedat_own.sh: the common trace.dat read in the program's own
# process (reader/tracedat_own.c), without libtracecmd's child: the
# sample (version 7), trace-cmd's version 6 and pages that say events
# were missed are read here (IOWATCHER_TRACEDAT=own takes them), and
# every output of them is byte for byte what libtracecmd's reading
# gives (IOWATCHER_TRACEDAT=libtracecmd): the summary, the events log,
# the picture. What it does not read (sections compressed by trace-cmd,
# an instance's buffer, a format that contradicts itself) goes to
# libtracecmd, said why when asked. A page
# without events that says events were missed before it is a loss here
# (libtracecmd drops it). Then the sample and its version 6 with a few
# bytes changed, seeded (TRACEDAT_OWN_CASES cases, 20 by default; make
# fuzz runs more): read here, each file gives what libtracecmd's child
# gives, or libtracecmd could not read it; never a crash.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
xz -dc "$TOP/samples/tracedat-fio.dat.xz" > s.dat ||
	{ fail "the sample decompresses"; finish; exit 1; }

# read MODE FILE: FILE.MODE.{json,csv,svg,err,rc}
read_as() {
	m=$1 f=$2
	IOWATCHER_TRACEDAT=$m "$IOW" -t "$f" --summary=json \
		--events "$f.$m.csv" -o "$f.$m.svg" > "$f.$m.json" 2> "$f.$m.err"
	echo $? > "$f.$m.rc"
}
# alike NAME FILE: read here, and every output as libtracecmd's
alike() {
	read_as own "$2"
	read_as libtracecmd "$2"
	if [ "$(cat "$2.own.rc")" != 0 ]; then
		fail "$1: read here" "$(cat "$2.own.err")"
	elif [ "$(cat "$2.libtracecmd.rc")" != 0 ]; then
		fail "$1: libtracecmd reads it" "$(cat "$2.libtracecmd.err")"
	elif cmp -s "$2.own.json" "$2.libtracecmd.json" &&
	     cmp -s "$2.own.csv" "$2.libtracecmd.csv" &&
	     cmp -s "$2.own.svg" "$2.libtracecmd.svg"; then
		pass "$1: read here, the summary, events and picture as libtracecmd's ($(wc -l < "$2.own.csv") I/Os)"
	else
		fail "$1: as libtracecmd's" "$(cmp "$2.own.json" "$2.libtracecmd.json"; cmp "$2.own.csv" "$2.libtracecmd.csv")"
	fi
}
alike "the sample (version 7)" s.dat

if command -v trace-cmd > /dev/null; then
	tc convert --file-version 6 -i s.dat -o v6.dat > convert.out 2>&1
	alike "trace-cmd's version 6" v6.dat
	V6=$(sed -n 's/^CPU0 data recorded at offset=//p' convert.out)
	python3 - "$V6" <<'EOF2'
import struct, sys
cpu0 = int(sys.argv[1], 16)
b = bytearray(open("v6.dat", "rb").read())
at = cpu0 + 3 * 4096 + 8
commit, = struct.unpack_from("<Q", b, at)
length = commit & 0xfffff
m = bytearray(b)
struct.pack_into("<Q", m, at, commit | 1 << 31)
open("missed.dat", "wb").write(m)
m = bytearray(b)
struct.pack_into("<Q", m, at, commit | 3 << 30)
struct.pack_into("<Q", m, at + 8 + length, 42)
open("missed42.dat", "wb").write(m)
# the page says 42 were missed and holds no event itself: the next page's
# first event follows the loss
m = bytearray(b)
struct.pack_into("<Q", m, at, 3 << 30)
struct.pack_into("<Q", m, at + 8, 42)
open("missed-empty.dat", "wb").write(m)
EOF2
	alike "a page that says events were missed, count unknown" missed.dat
	alike "a page that says 42 events were missed" missed42.dat
	read_as own missed-empty.dat
	check "a page of no events after 42 missed: the loss is said ($(cut -c1-80 missed-empty.dat.own.err))" python3 -c "
import json; t=json.load(open('missed-empty.dat.own.json'))['traces'][0]
assert t['lost_events'] == 42 and len(t['loss_windows']) == 1, (t['lost_events'], t['loss_windows'])"
	tc convert --compression zstd -i s.dat -o zstd.dat > /dev/null 2>&1
	read_as own zstd.dat
	if [ "$(cat zstd.dat.own.rc)" = 1 ] && [ "$(wc -l < zstd.dat.own.err)" = 1 ] &&
	   grep -q "zstd.dat: not read without libtracecmd (IOWATCHER_TRACEDAT=own): compressed (zstd)" zstd.dat.own.err; then
		pass "sections compressed by trace-cmd: not read here, said why ($(cut -c1-100 zstd.dat.own.err))"
	else
		fail "sections compressed by trace-cmd: not read here" "$(cat zstd.dat.own.rc) $(head -n 2 zstd.dat.own.err)"
	fi
	"$IOW" -t zstd.dat --summary=json > zstd.json 2> zstd.err
	check "sections compressed by trace-cmd: libtracecmd reads them, as the sample" python3 -c "
import json
a=json.load(open('zstd.json'))['traces'][0]; b=json.load(open('s.dat.own.json'))['traces'][0]
for t in (a, b): t.pop('label'); t.pop('source')
assert a == b"
else
	skip "trace-cmd's other versions: trace-cmd is not installed"
fi

# formats that contradict themselves are not read here: a field the
# block event's print format names renamed (libtracecmd's child crashes
# on it: t_tracedat_fence.sh), an array's size not in digits
xz -dc "$TOP/tests/data/regress/tracedat/tracedat-v6-field-renamed.dat.xz" > renamed.dat
read_as own renamed.dat
if [ "$(cat renamed.dat.own.rc)" = 1 ] && [ "$(wc -l < renamed.dat.own.err)" = 1 ] &&
   grep -q "renamed.dat: not read without libtracecmd (IOWATCHER_TRACEDAT=own): block:block_rq_complete: its print format names a field REC->ioprio it does not have" renamed.dat.own.err; then
	pass "a field renamed in a block event's format: not read here, said why"
else
	fail "a field renamed in a block event's format: not read here" "$(cat renamed.dat.own.rc) $(head -n 2 renamed.dat.own.err)"
fi
xz -dc "$TOP/tests/data/regress/tracedat/tracedat-102.dat.xz" > rwbs.dat
read_as own rwbs.dat
if [ "$(cat rwbs.dat.own.rc)" = 1 ] && grep -q "block:[a-z_]*: a field line it cannot read" rwbs.dat.own.err; then
	pass "an array's size not in digits: not read here, said why"
else
	fail "an array's size not in digits: not read here" "$(cat rwbs.dat.own.rc) $(head -n 2 rwbs.dat.own.err)"
fi

# changed bytes, seeded
cases=${TRACEDAT_OWN_CASES:-20}
here=0 fenced=0 libfailed=0 bad=0
i=1
while [ "$i" -le "$cases" ]; do
	for seed in s.dat v6.dat; do
		[ -f "$seed" ] || continue
		what=$(python3 "$TOP/tests/tools/tracedat_mutate.py" "$seed" m.dat "$i")
		read_as own m.dat
		own=$(cat m.dat.own.rc)
		read_as libtracecmd m.dat
		lib=$(cat m.dat.libtracecmd.rc)
		if [ "$own" -gt 1 ] || { [ "$own" = 1 ] && [ "$(wc -l < m.dat.own.err)" != 1 ]; }; then
			bad=$((bad + 1))
			fail "$seed, case $i ($what): read here" "exit $own: $(head -n 3 m.dat.own.err)"
		elif [ "$own" = 0 ] && [ "$lib" = 0 ]; then
			here=$((here + 1))
			if ! cmp -s m.dat.own.json m.dat.libtracecmd.json ||
			   ! cmp -s m.dat.own.csv m.dat.libtracecmd.csv; then
				bad=$((bad + 1))
				cp m.dat "$seed-$i-differs.dat"
				fail "$seed, case $i ($what): read here as libtracecmd reads it" \
					"$(cmp m.dat.own.json m.dat.libtracecmd.json)"
			fi
		elif [ "$own" = 0 ]; then
			libfailed=$((libfailed + 1))
			python3 -c "import json; json.load(open('m.dat.own.json'))" ||
				{ bad=$((bad + 1)); fail "$seed, case $i ($what): valid JSON"; }
		else
			fenced=$((fenced + 1))
		fi
	done
	i=$((i + 1))
done
check "changed bytes: $here read here as libtracecmd reads them, $libfailed read here that libtracecmd could not, $fenced left to libtracecmd; $bad wrong" \
	[ "$bad" = 0 ] && [ "$here" -gt 0 ]
finish
