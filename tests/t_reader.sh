#!/bin/sh
# tests/t_reader.sh: the ways a trace is read (feed_pipe.c) give the same
# output byte for byte: in a reader thread, in the caller's thread, and
# switching after the probe (the thread's blocks handed out, then the
# rest read in the caller's thread) or keeping the thread; on a trace
# long enough for the probe (700,000 events, with payloads: notes and
# split bios) and on a short one that ends inside it. A stream on stdin
# reads the same as its files.
. "$(dirname "$0")/lib.sh"
GEN="$BUILD/bench/gentrace"

# outputs NAME TRACE WAY: the summary, the CSV and an SVG of TRACE read
# WAY, in $TMP/NAME-WAY
outputs() {
	d="$TMP/$1-$3"
	mkdir -p "$d"
	IOWATCHER_READER=$3 "$IOW" -t "$2" --summary=json -o "$d/all.svg" \
		-O io -O tput -O latency -O queue-depth -O iops \
		--csv "$d/csv" > "$d/summary.json" 2> "$d/err"
}

# same NAME WAY: WAY's outputs are the thread's, file for file
same() {
	diff -r "$TMP/$1-thread" "$TMP/$1-$2" > "$TMP/diff" 2>&1
}

if ! "$GEN" -o "$TMP/long" -n 700000 --merges --flushes --splits \
	--discards 2> "$TMP/gen.err"; then
	fail "gentrace: $(head -n 1 "$TMP/gen.err")"
else
	for way in thread caller switch keep auto; do
		outputs long "$TMP/long" $way
		check "long trace read ($way): exit 0, no message" \
			[ ! -s "$TMP/long-$way/err" ]
	done
	events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['traces'][0]['events'])" \
		"$TMP/long-thread/summary.json")
	check "long trace: all $events events read, past the probe (327,680)" [ "$events" -gt 600000 ]
	for way in caller switch keep auto; do
		check "long trace: read $way, the same summary, CSV and SVG as with the thread" \
			same long $way
	done
	# a stream (stdin) always has the thread; its dump reads the same
	cat "$TMP"/long.blktrace.* > /dev/null
	if command -v blkparse > /dev/null &&
	   blkparse -i long -D "$TMP" -d "$TMP/long.dump" -O > /dev/null 2>&1; then
		IOWATCHER_READER=caller "$IOW" -t - --summary=json \
			< "$TMP/long.dump" > "$TMP/stdin.json" 2> "$TMP/stdin.err"
		IOWATCHER_READER=caller "$IOW" -t "$TMP/long.dump" \
			--summary=json > "$TMP/dump.json" 2> /dev/null
		check "the dump on stdin: the same devices' figures as the dump file" \
			python3 -c "import json,sys; d=[json.load(open(p))['traces'][0]['devices'] for p in sys.argv[1:]]; sys.exit(d[0] != d[1] or not d[0])" \
			"$TMP/stdin.json" "$TMP/dump.json"
	else
		skip "stdin against the dump: blkparse cannot make the dump"
	fi
fi

# a short trace ends before the probe: every way the same
short="$TOP/samples/fio-randrw"
for way in thread caller switch keep auto; do
	outputs short "$short" $way
done
for way in caller switch keep auto; do
	check "short trace: read $way, the same outputs" same short $way
done

# the real traces in samples/ (ext4 with fsync, splits, discards, two
# devices...): the same figures read in the thread or in the caller's
for f in "$TOP"/samples/*.blktrace.0; do
	base=${f%.blktrace.0}
	tn=$(basename "$base")
	for way in thread caller; do
		IOWATCHER_READER=$way "$IOW" -t "$base" --summary=json \
			-O tput -O latency -O queue-depth --csv "$TMP/$tn-$way" \
			> "$TMP/$tn-$way.json" 2> /dev/null
	done
	check "$tn: the same summary and CSV read in the thread or the caller's" \
		sh -c "cmp -s '$TMP/$tn-thread.json' '$TMP/$tn-caller.json' &&
		       diff -r '$TMP/$tn-thread' '$TMP/$tn-caller' > /dev/null"
done

# a way that is not one: one line, exit 1, nothing written
IOWATCHER_READER=fast "$IOW" -t "$short" --summary -o "$TMP/bad.svg" \
	> "$TMP/bad.out" 2> "$TMP/bad.err"; rc=$?
check "IOWATCHER_READER=fast: exit 1 ($rc), one line ($(head -c 100 "$TMP/bad.err"))" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/bad.err') = 1 ] &&
	       grep -q 'IOWATCHER_READER=fast: expected thread, caller or auto' '$TMP/bad.err' &&
	       [ ! -e '$TMP/bad.svg' ]"

finish
