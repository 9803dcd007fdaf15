#!/bin/sh
# t_depth_agree.sh: issue 36 item 6, one depth in every output. Traces
# with orphan requests (a sample's completions or one CPU's records taken
# out of a window by tests/tools/make_holes.py, seeded) give each device
# the same mean queue depth in the summary's JSON, in Perfetto's depth
# counter (time-weighted over the device's time outside loss windows:
# tests/pftrace_check.py) and in the CSV's queue-depth column.
. "$(dirname "$0")/lib.sh"
PROTO="$TOP/tests/data/perfetto"

for c in "dd-write completions 5" "dd-write cpu 5" \
	 "centos7-sda completions 5" "ext4-causes completions 2" \
	 "fio-randrw completions 7" "two-devices completions 3"; do
	set -- $c
	name="$1 $2 seed $3"
	python3 "$TOP/tests/tools/make_holes.py" "$TOP/samples/$1" \
		"$TMP/h" "$2" --seed "$3" > "$TMP/holes.json" || {
		fail "$name: make_holes"; continue; }
	rm -rf "$TMP/csv"
	if ! "$IOW" -t "$TMP/h" --summary=json -o "$TMP/h.pftrace" \
		--csv "$TMP/csv" > "$TMP/h.json" 2> "$TMP/h.err"; then
		fail "$name: iowatcher" "$(head -n 2 "$TMP/h.err")"
		continue
	fi
	if out=$(python3 "$TOP/tests/depth_agree.py" "$TMP/h.json" "$TMP/csv"); then
		pass "$name: CSV depth = summary depth"
	else
		fail "$name: CSV depth = summary depth" "$out"
	fi
	if ! command -v protoc > /dev/null; then
		skip "$name: Perfetto depth: protoc missing (Debian's protobuf-compiler)"
		continue
	fi
	protoc --decode=perfetto.protos.Trace -I "$PROTO" perfetto_trace.proto \
		< "$TMP/h.pftrace" > "$TMP/h.txt" 2> "$TMP/h.txt.err"
	if out=$(python3 "$TOP/tests/pftrace_check.py" "$TMP/h.txt" "$TMP/h.json"); then
		pass "$name: Perfetto depth = summary depth"
	else
		fail "$name: Perfetto depth = summary depth" "$(echo "$out" | head -n 3)"
	fi
done

# Known, not counted (issue 36 items 5 and 6, open): perf's text of a
# lossy 80k-IOPS run (tests/data/perf-lossy) holds 43 submissions printed
# twice whose copies never complete; no rule infers them lost, and the
# three outputs give 7,0 three depths (summary 16.3, CSV 14.0, Perfetto
# 1.9 on main c04dc30). Printed until they agree, then passed.
xz -dc "$TOP/tests/data/perf-lossy/fio-m1.perf.txt.xz" > "$TMP/p.txt"
rm -rf "$TMP/csv"
if "$IOW" -t "$TMP/p.txt" --summary=json -o "$TMP/p.pftrace" \
	--csv "$TMP/csv" > "$TMP/p.json" 2> "$TMP/p.err"; then
	out=$(python3 "$TOP/tests/depth_agree.py" "$TMP/p.json" "$TMP/csv")
	if command -v protoc > /dev/null; then
		protoc --decode=perfetto.protos.Trace -I "$PROTO" \
			perfetto_trace.proto < "$TMP/p.pftrace" > "$TMP/p.dec" 2>&1
		out="$out$(python3 "$TOP/tests/pftrace_check.py" "$TMP/p.dec" \
			"$TMP/p.json" | grep depth)"
	fi
	if [ -z "$out" ]; then
		pass "perf-lossy duplicates: one depth in summary, CSV, Perfetto"
	else
		echo "   known: perf-lossy duplicates: depths disagree:" $out
	fi
else
	fail "perf-lossy: iowatcher" "$(head -n 2 "$TMP/p.err")"
fi
finish
