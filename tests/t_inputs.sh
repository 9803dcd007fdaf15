#!/bin/sh
# tests/t_inputs.sh: the forms a trace comes in read as the trace itself.
# 1. blkparse's dump on a pipe, as README and the man page show it, with
#    the "Input file ... added" lines Debian's blkparse writes into it:
#    on every trace in samples/, the same JSON summary as the per-CPU
#    files, and with --live=text the same lines as its dump read from a
#    file.
# 2. Compressed traces (gzip, xz, zstd, known by their first bytes): every
#    sample as a compressed dump, per-CPU set and stream on stdin gives
#    the JSON summary of the uncompressed trace, byte for byte; cut short
#    or corrupted, one line and exit 1, no output file; compressions not
#    read (bzip2, lz4) say what to type.
# 3. What is not a trace (blkparse's text, a picture, fio's output, a
#    program...) is named, with what to give instead, in one line, exit
#    1 and no output file; a directory without a trace says what it
#    holds.
. "$(dirname "$0")/lib.sh"

# json_of FILE: the summary without the trace's label and source (a
# stream's are "-"; the figures must be the same byte for byte)
json_of() {
	sed 's/"label": "[^"]*", "source": "[^"]*", //' "$1"
}

# same_json A B: A's and B's figures are the same
same_json() {
	json_of "$1" > "$1.cmp" && json_of "$2" > "$2.cmp" &&
		cmp -s "$1.cmp" "$2.cmp" && [ -s "$1.cmp" ]
}

# quiet_and_same OUT JSON: OUT.err is empty, OUT.json has JSON's figures
quiet_and_same() {
	[ ! -s "$1.err" ] && same_json "$1.json" "$2"
}

# one_line_exit1 ERRFILE RC: a bad input's one line and exit status 1
one_line_exit1() {
	[ "$2" = 1 ] && [ "$(wc -l < "$1")" = 1 ]
}

# ---- 1. blkparse -d - on a pipe ----
if ! command -v blkparse > /dev/null; then
	skip "blkparse's pipe: blkparse missing (Debian package blktrace)"
else
	for f in "$TOP"/samples/*.blktrace.0; do
		base=${f%.blktrace.0}
		n=$(basename "$base")
		# the files alone: a dump carries no causes (NAME.cause*)
		mkdir -p "$TMP/bare"
		cp "$base".blktrace.* "$TMP/bare/"
		"$IOW" -t "$TMP/bare/$n" --summary=json > "$TMP/$n.files.json" 2>&1
		blkparse -i "$n" -D "$TOP/samples" -d - -o /dev/null |
			"$IOW" -t - --summary=json > "$TMP/$n.pipe.json" \
			2> "$TMP/$n.pipe.err"
		if quiet_and_same "$TMP/$n.pipe" "$TMP/$n.files.json"; then
			pass "$n: blkparse -d - | iowatcher -t - --summary=json: the files' JSON, byte for byte"
		else
			fail "$n: blkparse -d - | iowatcher -t - --summary=json" \
				"$(head -c 200 "$TMP/$n.pipe.err")"
		fi
		# --live=text, as README shows: the lines of the dump file
		blkparse -i "$n" -D "$TOP/samples" -d "$TMP/$n.dump" \
			-o /dev/null > /dev/null 2>&1
		"$IOW" -t - --live=text --summary=json < "$TMP/$n.dump" \
			> "$TMP/$n.live-dump" 2>&1
		blkparse -i "$n" -D "$TOP/samples" -d - -o /dev/null |
			"$IOW" -t - --live=text --summary=json \
			> "$TMP/$n.live-pipe" 2>&1
		check "$n: blkparse -d - | iowatcher -t - --live=text: the lines of its dump file" \
			sh -c "grep -q '^ *0.000 ' '$TMP/$n.live-pipe' &&
			       cmp -s '$TMP/$n.live-dump' '$TMP/$n.live-pipe'"
	done
	# the lines are skipped at the start only: one after an event is
	# an error (the dump's first event is at its byte 48 or later)
	n=dd-write
	blkparse -i $n -D "$TOP/samples" -d - -o /dev/null > "$TMP/lines.dump" \
		2> /dev/null
	python3 - "$TMP/lines.dump" "$TMP/late.dump" <<'EOF'
import re, struct, sys
data = open(sys.argv[1], "rb").read()
line = b"Input file x.blktrace.0 added\n"
plain = re.sub(rb"Input file [^\n]* added\n", b"", data)
# past the notes: the first record whose action is not a note
pos = 0
while True:
    size = 48 if plain[pos] == 7 else 64
    action = struct.unpack_from("<I", plain, pos + (28 if size == 48 else 32))[0]
    pdu = struct.unpack_from("<H", plain, pos + (46 if size == 48 else 50))[0]
    pos += size + pdu
    if not action & (1 << 26):
        break
open(sys.argv[2], "wb").write(plain[:pos] + line + plain[pos:])
EOF
	"$IOW" -t "$TMP/late.dump" --summary > /dev/null 2> "$TMP/late.err"
	rc=$?
	check "an Input file line after an event: one line, exit 1 ($(cat "$TMP/late.err"))" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/late.err') = 1 ] &&
		       grep -q 'late.dump: byte [0-9]*: bad record magic' '$TMP/late.err'"
	"$IOW" -t "$TMP/lines.dump" --summary=json > "$TMP/lines.json" 2>&1
	check "a dump file written from blkparse -d - (with its lines) reads as the files" \
		same_json "$TMP/lines.json" "$TMP/$n.files.json"
fi

# ---- 2. compressed traces ----
# no_source FILE: the summary without its source (a compressed dump's
# names its file; its label drops the suffix)
no_source() {
	sed 's/"source": "[^"]*", //' "$1"
}

# same_but_source A B: A's and B's summaries differ in the source alone
same_but_source() {
	no_source "$1" > "$1.cmp" && no_source "$2" > "$2.cmp" &&
		cmp -s "$1.cmp" "$2.cmp" && [ -s "$1.cmp" ]
}

tools=""
for c in gzip xz zstd; do
	if command -v $c > /dev/null; then
		tools="$tools $c"
	else
		skip "$c-compressed traces: $c missing"
	fi
done
ext() {
	case $1 in gzip) echo gz;; xz) echo xz;; zstd) echo zst;; esac
}
plain="$TMP/plain"
mkdir -p "$plain"
for f in "$TOP"/samples/*.blktrace.0; do
	base=${f%.blktrace.0}
	n=$(basename "$base")
	# the reference: the plain files, and a plain dump, each named as
	# the compressed ones will be
	(cd "$TOP/samples" && "$IOW" -t "$n" --summary=json) \
		> "$TMP/$n.set.json" 2>&1
	if command -v blkparse > /dev/null; then
		blkparse -i "$n" -D "$TOP/samples" -d "$plain/$n.dump" \
			-o /dev/null > /dev/null 2>&1
	else
		cat "$base".blktrace.* > "$plain/$n.dump"	# not time-sorted
	fi
	(cd "$plain" && "$IOW" -t "$n.dump" --summary=json) \
		> "$TMP/$n.dump.json" 2>&1
	"$IOW" -t - --summary=json < "$plain/$n.dump" > "$TMP/$n.stdin.json" 2>&1
	for c in $tools; do
		e=$(ext $c)
		d="$TMP/$e"
		mkdir -p "$d"
		# with the causes a recorder kept beside them, compressed too
		for g in "$base".blktrace.* "$base".cause*; do
			[ -f "$g" ] || continue
			$c -c "$g" > "$d/$(basename "$g").$e"
		done
		$c -c "$plain/$n.dump" > "$d/$n.dump.$e"
		(cd "$d" && "$IOW" -t "$n" --summary=json) > "$d/$n.set.json" 2>&1
		check "$n as $c-compressed per-CPU files ($n.blktrace.N.$e): the plain files' JSON, byte for byte" \
			cmp -s "$d/$n.set.json" "$TMP/$n.set.json"
		(cd "$d" && "$IOW" -t "$n.dump.$e" --summary=json) \
			> "$d/$n.dump.json" 2>&1
		check "$n as a $c-compressed dump: the plain dump's JSON (label $n.dump), but its source" \
			same_but_source "$d/$n.dump.json" "$TMP/$n.dump.json"
		$c -c "$plain/$n.dump" | "$IOW" -t - --summary=json \
			> "$d/$n.stdin.json" 2>&1
		check "$n: $c -c DUMP | iowatcher -t -: the plain stream's JSON, byte for byte" \
			cmp -s "$d/$n.stdin.json" "$TMP/$n.stdin.json"
	done
done

# a trace's causes compressed and cut short: the I/O after the cut has
# no cause, and a warning names the file; cut before its first record,
# one line and exit 1
if [ -f "$TOP/samples/ext4-causes.cause" ] && command -v gzip > /dev/null; then
	mkdir "$TMP/cut"
	cp "$TOP"/samples/ext4-causes.blktrace.* "$TOP/samples/ext4-causes.cause" \
		"$TMP/cut/"
	gzip -c "$TOP/samples/ext4-causes.cause.0" > "$TMP/cut/ext4-causes.cause.0.gz"
	gzip -c "$TOP/samples/ext4-causes.cause.1" | head -c 300 \
		> "$TMP/cut/ext4-causes.cause.1.gz"
	"$IOW" -t "$TMP/cut/ext4-causes" --by file --summary > "$TMP/cut.out" \
		2> "$TMP/cut.err"
	check "causes cut short (.cause.1.gz): a warning names the file, the rest is drawn" \
		sh -c "grep -q 'warning: .*ext4-causes.cause.1.gz: cut short or damaged' '$TMP/cut.err' &&
		       grep -q '/mnt/demo/b' '$TMP/cut.out'"
	gzip -c "$TOP/samples/ext4-causes.cause.1" | head -c 20 \
		> "$TMP/cut/ext4-causes.cause.1.gz"
	"$IOW" -t "$TMP/cut/ext4-causes" --by file --summary > "$TMP/cut.out" \
		2> "$TMP/cut.err"
	rc=$?
	check "causes cut before the first record: one line naming the file, exit 1" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/cut.err') = 1 ] &&
		       grep -q 'ext4-causes.cause.1.gz: cut short or damaged before its first record' '$TMP/cut.err'"
else
	skip "compressed causes cut short: no sample with causes, or no gzip"
fi

# a directory of compressed sets and dumps: every trace in it
for c in $tools; do
	e=$(ext $c)
	"$IOW" -t "$TMP/$e" --summary=json > "$TMP/dir-$e.json" 2> "$TMP/dir-$e.err"
	want=$(ls "$TOP"/samples/*.blktrace.0 | wc -l)
	got=$(grep -c '"label": "[a-z0-9-]*"' "$TMP/dir-$e.json")
	got_dumps=$(grep -c '"label": "[a-z0-9-]*\.dump"' "$TMP/dir-$e.json")
	check "a directory of $c-compressed sets and dumps: $want sets ($got), $want dumps ($got_dumps)" \
		[ "$got" = "$want" ] && [ "$got_dumps" = "$want" ]
done

# blkparse's pipe, compressed on the way (with its Input file lines)
if command -v blkparse > /dev/null && command -v xz > /dev/null; then
	blkparse -i fio-randrw -D "$TOP/samples" -d - -o /dev/null | xz -c |
		"$IOW" -t - --summary=json > "$TMP/bxz.json" 2> "$TMP/bxz.err"
	check "blkparse -d - | xz | iowatcher -t -: the files' figures" \
		quiet_and_same "$TMP/bxz" "$TMP/fio-randrw.set.json"
fi

# parts one after the other (gzip -c a b, xz and zstd likewise)
n=fio-randrw
head -c 300000 "$plain/$n.dump" > "$TMP/part1"
tail -c +300001 "$plain/$n.dump" > "$TMP/part2"
for c in $tools; do
	e=$(ext $c)
	{ $c -c "$TMP/part1"; $c -c "$TMP/part2"; } > "$TMP/$n.dump.$e"
	(cd "$TMP" && "$IOW" -t "$n.dump.$e" --summary=json) \
		> "$TMP/cat-$e.json" 2>&1
	check "$c: two compressed parts one after the other read as one dump" \
		same_but_source "$TMP/cat-$e.json" "$TMP/$n.dump.json"
done

# bad_input NAME WANT ARGS...: one line on stderr matching WANT, exit 1,
# no picture written
bad_input() {
	name=$1 want=$2; shift 2
	rm -f "$TMP/out.png"
	"$IOW" "$@" -o "$TMP/out.png" > /dev/null 2> "$TMP/bad.err"; rc=$?
	if one_line_exit1 "$TMP/bad.err" $rc && grep -q -- "$want" "$TMP/bad.err" &&
	   [ ! -e "$TMP/out.png" ]; then
		pass "$name: $(cat "$TMP/bad.err")"
	else
		fail "$name" "exit $rc: $(head -n 3 "$TMP/bad.err")"
	fi
}

for c in $tools; do
	e=$(ext $c)
	z="$TMP/$e/$n.dump.$e"
	size=$(stat -c %s "$z")
	for cut in $((size / 2)) $((size - 1)) $((size - 4)); do
		head -c $cut "$z" > "$TMP/cut.dump.$e"
		bad_input "$c dump cut at byte $cut of $size" \
			"cut.dump.$e: $c data cut short at compressed byte [0-9]* (decompressed byte [0-9]*)" \
			-t "$TMP/cut.dump.$e"
	done
	head -c $((size / 2)) "$z" > "$TMP/cut.$e"
	bad_input "$c stream on stdin cut short" \
		"<stdin>: $c data cut short" -t - < "$TMP/cut.$e"
	mkdir -p "$TMP/cutset"
	cp "$TMP/$e/$n.blktrace.0.$e" "$TMP/cutset/"
	head -c $((size / 3)) "$TMP/$e/$n.blktrace.1.$e" \
		> "$TMP/cutset/$n.blktrace.1.$e"
	# a per-CPU file cut short is a loss from where it ends, as a plain
	# file cut short is (t_cut.sh), not an error
	"$IOW" -t "$TMP/cutset/$n" --summary=json > "$TMP/cutset.json" \
		2> "$TMP/cutset.err"; rc=$?
	check "$c per-CPU file cut short: read up to the cut, a loss from there (exit $rc: $(cat "$TMP/cutset.err"))" \
		sh -c "[ $rc = 0 ] && [ \$(wc -l < '$TMP/cutset.err') = 1 ] &&
		grep -q '$n.blktrace.1.$e ends at .*its $c data cut short' '$TMP/cutset.err' &&
		grep -q '\"loss_windows\": \\[{.*\"count_known\": false, .*\"cpus\": \\[1\\]' '$TMP/cutset.json'"
	rm -f "$TMP/cutset/"*
	# a byte changed in the middle: an error, whichever layer sees it
	cp "$z" "$TMP/bad.dump.$e"
	printf '\125\125\125\125' | dd of="$TMP/bad.dump.$e" bs=1 \
		seek=$((size / 2)) conv=notrunc 2> /dev/null
	bad_input "$c dump with 4 bytes changed" "bad.dump.$e: " \
		-t "$TMP/bad.dump.$e"
done

# the decompressors are linked as cairo is: from their static archives
# where cairo's are (the program's start costs no more shared libraries)
if command -v ldd > /dev/null && ldd "$IOW" > "$TMP/ldd" 2>&1; then
	if grep -q libcairo "$TMP/ldd"; then
		check "cairo linked shared: liblzma and libzstd too" \
			sh -c "grep -q liblzma '$TMP/ldd' && grep -q libzstd '$TMP/ldd'"
	else
		check "cairo linked statically: liblzma, libzstd and zlib too" \
			sh -c "! grep -qE 'liblzma|libzstd|libz\.' '$TMP/ldd'"
	fi
fi

# known, not read: say what they are and what to type
for c in bzip2 lz4; do
	command -v $c > /dev/null || { skip "$c: missing"; continue; }
	$c -c "$plain/$n.dump" > "$TMP/t.dump.$c"
	bad_input "a $c-compressed dump" \
		"t.dump.$c: $c-compressed, which iowatcher does not read: $c -dc .*t.dump.$c | iowatcher -t -" \
		-t "$TMP/t.dump.$c"
	bad_input "$c-compressed data on stdin" \
		"<stdin>: $c-compressed data, which iowatcher does not read: decompress it on the way ($c -dc FILE | iowatcher -t -)" \
		-t - < "$TMP/t.dump.$c"
done

# ---- 3. not a trace: say what it is ----
cp "$TOP/samples/fio-randrw.png" "$TMP/out.png.in"
bad_input "a PNG image" \
	"out.png.in: a PNG image, not a blktrace trace (give blktrace's NAME.blktrace.N files or a blkparse -d dump)" \
	-t "$TMP/out.png.in"
# this program's own Perfetto output, given back to it
"$IOW" -t "$TOP/samples/fio-randrw" -x 0:0.5 -o "$TMP/own.pftrace" 2> /dev/null
bad_input "iowatcher's own .pftrace" \
	"own.pftrace: iowatcher's own Perfetto trace (written by -o NAME.pftrace), not a blktrace trace (open it at ui.perfetto.dev; give -t the trace it was made from)" \
	-t "$TMP/own.pftrace"
bad_input "the program itself" "iowatcher: an ELF program or library, not a blktrace trace" \
	-t "$IOW"
bad_input "fio's output" \
	"fio-randrw.fio-output: fio's output, not a blktrace trace (record a trace while fio runs: iowatcher -d DEV -p \"fio JOB.fio\")" \
	-t "$TOP/samples/fio-randrw.fio-output"
bad_input "a fio log" "a fio log, not a blktrace trace (fio's logs are given with -F, beside a trace)" \
	-t "$TOP/samples/fio-randrw_bw.1.log"
tar cf "$TMP/x.tar" -C "$TOP/samples" fio-randrw.fio
gzip -c "$TMP/x.tar" > "$TMP/x.tar.gz"
bad_input "a gzip-compressed tar archive" \
	"x.tar.gz: a tar archive, compressed with gzip, not a blktrace trace" \
	-t "$TMP/x.tar.gz"
bad_input "a tar archive on stdin (told at its byte 257)" \
	"<stdin>: a tar archive, not a blktrace trace (pipe a blkparse dump: blkparse -i NAME -d - -o /dev/null | iowatcher -t -)" \
	-t - < "$TMP/x.tar"
printf 'not\001a trace\002at all, nor anything else\003\n' > "$TMP/odd"
bad_input "bytes of no known kind: the magic, as before" \
	"odd: byte 0: not a blktrace record (magic 0x" -t "$TMP/odd"
if command -v blkparse > /dev/null; then
	blkparse -i dd-write -D "$TOP/samples" -o "$TMP/dd.txt" > /dev/null 2>&1
	bad_input "blkparse's text output as a trace" \
		"dd.txt: blkparse's text output, not a blktrace trace (give blktrace's files NAME.blktrace.N, or a dump made with blkparse -i NAME -d NAME.dump)" \
		-t "$TMP/dd.txt"
	bad_input "blkparse's text output on stdin" \
		"<stdin>: blkparse's text output, not a blktrace trace (blkparse writes its text to standard output unless given -o: blkparse -i NAME -d - -o /dev/null | iowatcher -t -)" \
		-t - < "$TMP/dd.txt"
	blkparse -i fio-randrw -D "$TOP/samples" 2> /dev/null |
		"$IOW" -t - --summary > /dev/null 2> "$TMP/text.err"
	check "blkparse -i NAME | iowatcher -t - (no dump): one line that says what to type ($(cat "$TMP/text.err"))" \
		sh -c "[ \$(wc -l < '$TMP/text.err') = 1 ] &&
		       grep -q \"<stdin>: blkparse's text output, not a blktrace trace (.*blkparse -i NAME -d - -o /dev/null | iowatcher -t -)\" '$TMP/text.err'"
	# blkparse -d - without -o: its text and the dump down one pipe
	for f in "$TOP"/samples/*.blktrace.0; do
		n=$(basename "${f%.blktrace.0}")
		rm -f "$TMP/out.png"
		blkparse -i "$n" -D "$TOP/samples" -d - 2> /dev/null |
			"$IOW" -t - -o "$TMP/out.png" > /dev/null 2> "$TMP/noo.err"
		check "$n: blkparse -d - without -o | iowatcher -t -: one line that says -o /dev/null ($(cat "$TMP/noo.err"))" \
			sh -c "[ \$(wc -l < '$TMP/noo.err') = 1 ] &&
			       grep -q \"blkparse's text output.*blkparse -i NAME -d - -o /dev/null | iowatcher -t -\" '$TMP/noo.err' &&
			       [ ! -e '$TMP/out.png' ]"
	done
fi
# other tools' files: named, with what reads them (iowatcher does not)
bad_input "a fio job file (not JSON)" \
	"fio-randrw.fio: a fio job file, not a blktrace trace (record a trace while fio runs: iowatcher -d DEV -p \"fio JOB.fio\")" \
	-t "$TOP/samples/fio-randrw.fio"
printf '[global]\nrw=randread\n\n[job1]\nfilename=/dev/sdb\n' > "$TMP/bare.fio"
bad_input "a fio job file that opens with its section" \
	"bare.fio: a fio job file, not a blktrace trace" -t "$TMP/bare.fio"
printf '\027\010\104tracing6\000\000\000\000\000\000\000\000' > "$TMP/trace.dat"
bad_input "a trace-cmd trace.dat's first bytes alone: read as one, cut short (t_tracedat reads them whole)" \
	"trace.dat: cut short at byte 19, in trace-cmd's headers (19 bytes)" \
	-t "$TMP/trace.dat"
printf 'PERFILE2\150\000\000\000\000\000\000\000' > "$TMP/perf.data"
bad_input "a perf.data: named, with the perf script that iowatcher reads" \
	"perf.data: a perf recording (perf.data: perf script prints it), not a blktrace trace (give perf script's text of it: perf script -i perf.data > perf.txt; iowatcher -t perf.txt" \
	-t "$TMP/perf.data"
printf '# tracer: nop\n#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n              dd-1234    [001] ..... 12345.678901: block_rq_issue: 7,0 W 4096 () 2048 + 8 [dd]\n' > "$TMP/ftrace.txt"
bad_input "ftrace's text: named as a kernel trace's" \
	"ftrace.txt: the text of a kernel trace (ftrace's or trace-cmd report's), not a blktrace trace (iowatcher cannot read it yet" \
	-t "$TMP/ftrace.txt"
printf '              dd 16111 [001]   376.294661:    block:block_rq_issue: 254,0 WS 4096 () 170543920 + 8 0x2,0,4 [dd]\n' > "$TMP/perf.txt"
"$IOW" -t "$TMP/perf.txt" --summary=json > "$TMP/perf.json" 2> "$TMP/perf.err"
check "perf script's text is read (t_perftext reads it whole)" python3 -c "
import json; d=json.load(open('$TMP/perf.json'))['traces'][0]['devices'][0]
assert d['device'] == '254,0' and d['queued'] == {'read': 0, 'write': 0}, d"
cp "$TOP/samples/ext4-causes.cause" "$TOP/samples/ext4-causes.cause.0" "$TMP/"
bad_input "the program's own NAME.cause: a causes file, give -t NAME" \
	"ext4-causes.cause: iowatcher's causes file (NAME.cause), not a blktrace trace (give -t $TMP/ext4-causes: a recording's causes are read with its trace)" \
	-t "$TMP/ext4-causes.cause"
bad_input "the program's own NAME.cause.N: a causes file, give -t NAME" \
	"ext4-causes.cause.0: iowatcher's per-CPU causes file (NAME.cause.N), not a blktrace trace (give -t $TMP/ext4-causes: " \
	-t "$TMP/ext4-causes.cause.0"

mkdir "$TMP/notraces"
cp "$TOP/samples/fio-randrw.png" "$TOP/samples/fio-randrw.mpstat" \
	"$TOP/samples/fio-randrw.fio" "$TMP/notraces/"
bad_input "a directory without a trace: what it holds" \
	"notraces: directory holds no blktrace trace (fio-randrw.fio: a fio job file; fio-randrw.mpstat: mpstat's output; fio-randrw.png: a PNG image; give blktrace's NAME.blktrace.N files or a blkparse -d dump)" \
	-t "$TMP/notraces"

finish
