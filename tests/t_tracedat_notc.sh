#!/bin/sh
# t_tracedat_notc.sh: a build without libtracecmd (make TRACECMD=0) reads
# every other input and the trace.dat trace-cmd record writes (the
# program's own reader, reader/tracedat_own.c), and given a trace.dat it
# does not read itself (one libtracecmd would read: the sample with
# IOWATCHER_TRACEDAT=libtracecmd, a damaged format line) says in one
# line, exit 1, why, that it was built without libtracecmd and what to
# install. Apart from
# t_tracedat.sh, which touches tracefs (trace-cmd mounts it even to
# convert a file): this one only builds and reads, so tests/run.sh runs
# it beside the tests that touch the machine. The first pass only (the
# sanitizer pass would build the whole program once more for one line).
# Built at -O0: what is checked is which code is built, not how it is
# optimized, and the build is the test's time (alone, load ~1: 20.5 s at
# the default -O2 -g, 15.0 s at -O0).
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
if repeat_pass "the build without libtracecmd"; then finish; exit $?; fi
xz -dc "$TOP/samples/tracedat-fio.dat.xz" > s.dat ||
	{ fail "the sample decompresses"; finish; exit 1; }
NOTC=$TMP/notc
if make -C "$TOP" -s -j2 B="$NOTC/" TRACECMD=0 STATIC_CAIRO=0 CFLAGS=-O0 "$NOTC/iowatcher" > make.out 2>&1; then
	"$NOTC/iowatcher" -t s.dat --summary=json > s.json 2> s.err
	"$IOW" -t s.dat --summary=json > s-full.json 2> s-full.err
	check "built without libtracecmd: the trace.dat sample reads as with it" \
		cmp -s s.json s-full.json
	IOWATCHER_TRACEDAT=libtracecmd "$NOTC/iowatcher" -t s.dat --summary > out 2> err
	rc=$?
	want="s.dat: a trace-cmd recording (trace.dat) that iowatcher does not read itself (IOWATCHER_TRACEDAT=libtracecmd asked for libtracecmd), and this iowatcher was built without libtracecmd: install libtracecmd-dev and rebuild"
	if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	   grep -qF -- "$want" err; then
		pass "built without libtracecmd, a file for libtracecmd: one line, exit 1 ($(cut -c1-110 err))"
	else
		fail "built without libtracecmd, a file for libtracecmd" "exit $rc: $(head -n 2 err) $(head -c 200 out)"
	fi
	"$NOTC/iowatcher" -t "$TOP/tests/data/regress/tracedat/tracedat-102.dat.xz" --summary > out 2> err
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	   grep -q "tracedat-102.dat.xz: a trace-cmd recording (trace.dat) that iowatcher does not read itself (block:[a-z_]*: a field line it cannot read), and this iowatcher was built without libtracecmd" err; then
		pass "built without libtracecmd, a damaged format line: one line, exit 1 ($(cut -c1-110 err))"
	else
		fail "built without libtracecmd, a damaged format line" "exit $rc: $(head -n 2 err) $(head -c 200 out)"
	fi
	"$NOTC/iowatcher" -t "$TOP/samples/fio-randrw" --summary=json > fio.json 2> fio.err
	"$IOW" -t "$TOP/samples/fio-randrw" --summary=json > fio-full.json 2> fio-full.err
	check "built without libtracecmd: a blktrace sample reads as with it" \
		cmp -s fio.json fio-full.json
else
	fail "the build without libtracecmd" "$(tail -n 3 make.out)"
fi
finish
