#!/bin/sh
# t_tracedat_fence.sh: damaged trace.dat files (issue #40) give one line
# and exit 1, never a signal, a sanitizer report or a number: each of
# tests/data/regress/tracedat (see its README) with the line it must
# give, and nothing written (no SVG, no JSON on stdout). libtracecmd runs
# in a child of its own (reader/tracedat.c): its crash is one line, and
# its reports are not the program's (tests/run.sh counts any sanitizer
# report as a failure). As root with FUSE, a trace.dat whose CPU data is
# read from a slow device (tests/tools/slowfs) is a child that stops
# answering: killed after IOWATCHER_TRACEDAT_TIMEOUT, one line, exit 1.
. "$(dirname "$0")/lib.sh"
R="$TOP/tests/data/regress/tracedat"
HELPER_NAME=iowatcher-tracedat
HELPER="$(dirname "$IOW")/$HELPER_NAME"
cd "$TMP" || exit 1

# damaged NAME WANT: R/NAME.dat.xz read for a summary and a picture,
# through libtracecmd's child (IOWATCHER_TRACEDAT=libtracecmd) and as a
# user reads it (the common file in the program's own reader,
# tracedat_own.c, the rest through the child): one line, exit 1 both ways
damaged() {
	f="$R/$1.dat.xz"
	for mode in libtracecmd ""; do
		rm -f out.svg
		IOWATCHER_TRACEDAT=$mode "$IOW" -t "$f" --summary=json -o out.svg > out 2> err
		rc=$?
		if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
		   [ ! -e out.svg ] && grep -q -- "$2" err; then
			pass "$1${mode:+ ($mode)}: one line, exit 1 ($(cut -c1-120 err))"
		else
			fail "$1${mode:+ ($mode)}" "exit $rc, $(wc -l < err) lines: $(head -n 3 err) $(head -c 100 out)"
		fi
	done
}
crash="libtracecmd crashed reading .*$R/tracedat-[^ ]* in its headers (signal 11, Segmentation fault): the file is damaged; nothing was drawn"
damaged tracedat-102 "$crash"
damaged tracedat-v6-field-renamed "$crash"
nul="damaged: a NUL byte at byte [0-9]* inside the text of trace-cmd's kallsyms or printk formats"
damaged tracedat-293 "$nul"
damaged tracedat-printk-nul "$nul"
damaged tracedat-489 "damaged: trace-cmd's headers give a size of 1095216661180 bytes at byte 12467, past the end of its room at byte 34148"
damaged tracedat-572 "damaged: trace-cmd's headers give a size of 72057594037927935 bytes at byte 8012"
short="the event at byte 57684 (CPU 0, 10315232605014 ns): block:block_rq_issue is shorter than its format's fields"
damaged tracedat-field-offset-intmax "$short"
damaged tracedat-rwbs-offset-intmax "$short"
damaged tracedat-field-size-intmax "$short"
damaged tracedat-cmd-dataloc-wrap "$short"
# libtracecmd refuses it, or (under ASan, whose allocator aborts on its
# size) its child crashes: one line either way
damaged tracedat-zstd-garbage-size "tracedat-zstd-garbage-size.dat.xz: libtracecmd cannot read this trace.dat\|libtracecmd crashed reading .*tracedat-zstd-garbage-size.dat.xz in its headers"

# a compressed header section (zstd, version 7) that says it holds 4 GiB:
# more than the child may have, refused before libtracecmd sees it
xz -dc "$R/tracedat-zstd-garbage-size.dat.xz" > zstd.dat
python3 -c "
import struct, sys
d = bytearray(open('zstd.dat', 'rb').read())
i = d.index(b'zstd\\0') + 5
i = d.index(b'\\0', i) + 1		# past the compression's version
opts = struct.unpack_from('<Q', d, i)[0]
nxt = struct.unpack_from('<Q', d, opts + 16 + 6 + 4 + 6)[0]	# CPUCOUNT, DONE
head = struct.unpack_from('<Q', d, nxt + 16 + 6)[0]	# HEADER_INFO's section
assert struct.unpack_from('<HH', d, head) == (16, 1), struct.unpack_from('<HH', d, head)
struct.pack_into('<I', d, head + 16 + 4, 0xffffffff)
open('raw4g.dat', 'wb').write(d)"
rm -f out.svg
"$IOW" -t raw4g.dat --summary=json -o out.svg > out 2> err
if [ $? = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
   grep -q "raw4g.dat: damaged: a compressed section says at byte [0-9]* that it holds 4294967295 bytes, more than the [0-9]* libtracecmd may have" err; then
	pass "a compressed section of 4 GiB: one line, exit 1 ($(cut -c1-120 err))"
else
	fail "a compressed section of 4 GiB" "$(head -n 2 err)"
fi

# the child is gone once the program is: no libtracecmd process is left
# behind by a crash or an error (they are the program's children; a
# leftover would be reparented, so look for any reading these files)
check "no reader process left behind" sh -c "! pgrep -f '^[^ ]*$HELPER_NAME --wire=.* $R' > /dev/null"

# from here on every file goes through libtracecmd's child, what this
# test is about (the sample is otherwise read in the program's own
# process: t_tracedat_own.sh)
export IOWATCHER_TRACEDAT=libtracecmd

# the sample still reads, its summary whole
xz -dc "$TOP/samples/tracedat-fio.dat.xz" > s.dat
"$IOW" -t s.dat --summary=json > s.json 2> s.err
check "the sample reads (exit 0, a summary of 7,0)" python3 -c "
import json; d=json.load(open('s.json'))['traces'][0]['devices']
assert any(x['device'] == '7,0' for x in d), d"

# libtracecmd runs in iowatcher-tracedat, started without a fork of the
# program: the program itself never loads the library (the dynamic
# loader's own account of what it loads; the helper's stderr is
# /dev/null)
LD_DEBUG=libs "$IOW" -t s.dat --summary=json > ld.json 2> ld.err
rc=$?
if [ "$rc" = 0 ] && cmp -s ld.json s.json && grep -q "calling init" ld.err &&
   ! grep -q "libtracecmd" ld.err; then
	pass "the program never loads libtracecmd ($(grep -c 'calling init' ld.err) libraries' inits, none libtracecmd's)"
else
	fail "the program never loads libtracecmd" "exit $rc: $(grep -m 2 libtracecmd ld.err)"
fi

# the helper is looked for beside the program, one up, ../lib/iowatcher,
# then the libexec directory the program was built for
mkdir -p lone/bin
cp "$IOW" lone/bin/iowatcher
libexec=$(strings "$IOW" | grep -m 1 '^/.*/lib/iowatcher$')
if [ -n "$libexec" ] && [ -e "$libexec/iowatcher-tracedat" ]; then
	skip "a missing helper: one is installed in $libexec"
else
	lone/bin/iowatcher -t s.dat --summary=json > out 2> err
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	   grep -q "s.dat: a trace-cmd recording (trace.dat), and libtracecmd's reader iowatcher-tracedat is missing (not beside the program (.*lone/bin/) nor in /.*): build it (make) or install it (make install)" err; then
		pass "a missing helper: one line, exit 1 ($(cut -c1-110 err))"
	else
		fail "a missing helper" "exit $rc: $(head -n 2 err)"
	fi
	# the common file needs no helper
	IOWATCHER_TRACEDAT= lone/bin/iowatcher -t s.dat --summary=json > out 2> err
	rc=$?
	if [ "$rc" = 0 ] && cmp -s out s.json; then
		pass "a missing helper: the sample is read all the same, in the program's own process"
	else
		fail "a missing helper: the sample is read all the same" "exit $rc: $(head -n 2 err)"
	fi
fi
# one that cannot load its libraries (the loader's exit 127), of another
# version (an old one left installed), and one run by hand
printf '#!/bin/sh\nexit 127\n' > lone/bin/iowatcher-tracedat
chmod +x lone/bin/iowatcher-tracedat
lone/bin/iowatcher -t s.dat --summary=json > out 2> err
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
   grep -q "s.dat: a trace-cmd recording (trace.dat), and libtracecmd's reader .*lone/bin/iowatcher-tracedat could not start (exit status 127: libtracecmd.so.1 cannot be loaded): install Debian's libtracecmd1" err; then
	pass "a helper that cannot load libtracecmd: one line, exit 1"
else
	fail "a helper that cannot load libtracecmd" "exit $rc: $(head -n 2 err)"
fi
printf '#!/bin/sh\nshift\nexec "%s" --wire=0 "$@"\n' "$HELPER" > lone/bin/iowatcher-tracedat
lone/bin/iowatcher -t s.dat --summary=json > out 2> err
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
   grep -q "s.dat: this program's reader of trace.dat (.*) is of another version (wire 0, not [0-9]*): install iowatcher again (make install)" err; then
	pass "a helper of another version: one line, exit 1 ($(cut -c1-100 err))"
else
	fail "a helper of another version" "exit $rc: $(head -n 2 err)"
fi
"$HELPER" s.dat > out 2> err
rc=$?
check "the helper run by hand says what it is (exit $rc: $(cut -c1-60 err))" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l < err) = 1 ] && grep -q 'run iowatcher -t FILE.dat instead' err"

# a child that stops answering: its CPU data on a slow device
size=$(wc -c < s.dat)
if slow_loop "$size"; then
	cat s.dat > "$img"
	# the first CPU's pages (the headers, read before them, are fast)
	off=$(python3 -c "
import struct; d=open('s.dat','rb').read(); i=d.index(b'local\0')+6
print(struct.unpack_from('<Q', d, i + 12)[0])")
	slow_delay 3000 "$off" 4096 1
	IOWATCHER_TRACEDAT_TIMEOUT=1 "$IOW" -t "$SLOW_MNT/disk" --summary=json \
		> out 2> err
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l < err)" = 1 ] && [ ! -s out ] &&
	   grep -q "libtracecmd stopped answering reading $SLOW_MNT/disk .*(nothing for 1 s; killed)" err; then
		pass "a child that stops answering: killed, one line, exit 1 ($(cut -c1-100 err))"
	else
		fail "a child that stops answering" "exit $rc: $(head -n 2 err) ($(cat "$SLOW_CTL" | tr '\n' ' '))"
	fi
	slow_delay 0
else
	skip "a child that stops answering: $LOOP_WHY"
fi
finish
