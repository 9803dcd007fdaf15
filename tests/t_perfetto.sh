#!/bin/sh
# t_perfetto.sh: -o NAME.pftrace, the trace for Perfetto, decoded by
# protoc with Perfetto's own perfetto_trace.proto (tests/data/perfetto,
# Apache-2.0, its LICENSE beside it): every sample's file decodes, its
# bios are slices on lanes that never overlap, one per I/O of the
# summary, and its counters add up to the summary (tests/pftrace_check.py);
# causes, stacks, loss windows and two traces are carried; a bad path is
# one line and leaves nothing.
. "$(dirname "$0")/lib.sh"
PROTO="$TOP/tests/data/perfetto"
CHECK="$TOP/tests/pftrace_check.py"

if ! command -v protoc > /dev/null; then
	skip "Perfetto traces: protoc missing (Debian's protobuf-compiler; make deps installs it)"
	finish
	exit $?
fi
decode() {
	protoc --decode=perfetto.protos.Trace -I "$PROTO" perfetto_trace.proto \
		< "$1" > "$2" 2> "$2.err"
}

for s in dd-write fio-randrw overlap-fio split-dd ext4-fsync discard \
	 two-devices ext4-causes centos7-sda; do
	"$IOW" -t "$TOP/samples/$s" -o "$TMP/$s.pftrace" --summary=json \
		> "$TMP/$s.json" 2> "$TMP/$s.err"
	if ! decode "$TMP/$s.pftrace" "$TMP/$s.txt"; then
		fail "$s: decodes with perfetto_trace.proto" \
			"$(head -n 2 "$TMP/$s.err" "$TMP/$s.txt.err")"
		continue
	fi
	if out=$(python3 "$CHECK" "$TMP/$s.txt" "$TMP/$s.json"); then
		pass "$s: decodes; lanes never overlap, a slice per I/O, counters add up ($out)"
	else
		fail "$s: lanes, slices and counters" "$(echo "$out" | head -n 5)"
	fi
done

# who and what caused each bio: the causes recorded with the trace
T="$TMP/ext4-causes.txt"
check "ext4-causes: slices carry pid, comm and file" \
	sh -c "grep -q 'name: \"comm\"' '$T' && grep -q 'name: \"file\"' '$T' &&
		grep -q 'name: \"pid\"' '$T'"
check "ext4-causes: kernel stacks as the slices' callstacks" \
	grep -q 'function_name: "submit_bio' "$T"
check "a flow from each bio's queueing to its issue" \
	sh -c "grep -q 'flow_ids:' '$TMP/fio-randrw.txt' &&
		grep -q 'terminating_flow_ids:' '$TMP/fio-randrw.txt'"

# a recording that lost events: its window is a slice of its own
cd "$TMP" || exit 1
n=$(python3 "$TOP/tests/tools/make_lossy.py" "$TOP/samples/fio-randrw" lossy 1 0.3 0.6)
"$IOW" -t lossy -o lossy.pftrace --summary=json > lossy.json 2> /dev/null
if decode lossy.pftrace lossy.txt &&
   out=$(python3 "$CHECK" lossy.txt lossy.json); then
	pass "a lossy trace: lanes and counters hold ($out)"
else
	fail "a lossy trace: lanes and counters hold" "$out"
fi
check "the loss window is a slice on a track of its own ($n events)" \
	sh -c "grep -q 'name: \"events lost by the recorder\"' lossy.txt &&
		grep -q 'name: \"$n events lost\"' lossy.txt"

# two traces: each device's track named with its trace
"$IOW" -t "$TOP/samples/dd-write" -l before -t "$TOP/samples/split-dd" \
	-l after -o two.perfetto-trace 2> two.err
if decode two.perfetto-trace two.txt; then
	check "two traces (.perfetto-trace): a device track per trace, named by its label" \
		sh -c "grep -q 'name: \"before: block device' two.txt &&
			grep -q 'name: \"after: block device' two.txt"
else
	fail "two traces (.perfetto-trace) decode" "$(head -n 2 two.err two.txt.err)"
fi

# --per-device changes the summary's shape only: the Perfetto trace and
# the events log are the whole trace's, row for row (a device's part of
# the analysis told its rows, forgotten requests and depth taken out a
# second time: the log doubled, MB/s twice the summary's). Two devices;
# a recorded loss; completions taken out of a window (inferred holes).
pd_same() {	# name, trace
	for pd in "" --per-device; do
		"$IOW" -t "$2" $pd -o "pd$pd.pftrace" --events "pd$pd.csv" \
			2> /dev/null || return 1
	done
	cmp -s pd.pftrace pd--per-device.pftrace &&
		cmp -s pd.csv pd--per-device.csv
}
check "--per-device: two-devices' Perfetto trace and events log unchanged" \
	pd_same two "$TOP/samples/two-devices"
check "--per-device: a lossy trace's Perfetto trace and events log unchanged" \
	pd_same lossy lossy
if command -v blkparse > /dev/null; then
	blkparse -i "$TOP/samples/two-devices" -d whole2.dump -o /dev/null \
		> /dev/null 2>&1
	python3 "$TOP/tests/tools/make_holes.py" whole2.dump holed2.dump \
		completions --seed 7 > /dev/null
	check "--per-device: a holed trace's Perfetto trace and events log unchanged" \
		pd_same holed holed2.dump
fi

# bad output paths: one line, exit 1, nothing left
"$IOW" -t "$TOP/samples/dd-write" -o "$TMP/no/such/dir/x.pftrace" \
	> out.txt 2> err.txt
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l < err.txt)" = 1 ] &&
   grep -q "no/such/dir/x.pftrace" err.txt; then
	pass "a directory that is not there: one line naming it, exit 1"
else
	fail "a directory that is not there" "exit $rc: $(cat err.txt)"
fi
"$IOW" -t "$TOP/samples/no-such-trace" -o gone.pftrace > /dev/null 2>&1
check "a trace that fails to read leaves no file" \
	sh -c "! ls gone.pftrace* > /dev/null 2>&1"
finish
