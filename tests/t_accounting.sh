#!/bin/sh
# tests/t_accounting.sh: the rules of the man page's HOW I/O IS COUNTED on
# the real traces in samples/ (recorded on loop devices: ext4 with fsync,
# splits, discards, overlapping fio, two devices; see samples/README.md):
# blkparse's identity holds on every one, flushes are drawn as flushes,
# traces of several devices say so, and -x/-y/--device window everything.
. "$(dirname "$0")/lib.sh"

# json FILE EXPR: a value of the summary (d is the document)
json() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# identity BASE: read + flush + write + discard + empty completions equal
# blkparse's Reads + Writes Completed; read KiB its read KiB, write and
# discard KiB its write KiB; Q2C and Q2D count the same bios.
identity() {
	base=$1
	tn=$(basename "$base")
	"$IOW" -t "$base" --summary=json > "$TMP/$tn.json" ||
		{ fail "$tn: --summary=json"; return; }
	blkparse -i "$tn" -D "$(dirname "$base")" > "$TMP/$tn.bp" 2>/dev/null
	python3 - "$TMP/$tn.json" "$TMP/$tn.bp" > "$TMP/$tn.id" 2>&1 <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
bp = open(sys.argv[2]).read()
ios = rk = wk = 0
for blk in re.split(r"\n(?=Total \()", bp)[1:]:
    blk = blk.split("\n\n")[0]
    r = re.search(r"Reads Completed:\s+(\d+),\s+(\d+)KiB", blk)
    w = re.search(r"Writes Completed:\s+(\d+),\s+(\d+)KiB", blk)
    ios += int(r.group(1)) + int(w.group(1))
    rk += int(r.group(2))
    wk += int(w.group(2))
ours = our_r = our_w = 0
ok = True
for t in d["traces"]:
    for dev in t["devices"]:
        ours += (dev["read"]["ios"] + dev["write"]["ios"] +
                 dev["discard"]["ios"] + dev["flush"]["ios"] +
                 dev["empty_completions"])
        our_r += dev["read"]["bytes"]
        our_w += dev["write"]["bytes"] + dev["discard"]["bytes"]
        if dev["q2c_us"]["n"] != dev["q2d_us"]["n"]:
            print("Q2C n %d != Q2D n %d" % (dev["q2c_us"]["n"],
                                            dev["q2d_us"]["n"]))
            ok = False
        if dev["q2c_us"]["max"] + 0.001 < dev["q2d_us"]["max"]:
            print("Q2C max below Q2D max")
            ok = False
print("completions: ours %d, blkparse %d" % (ours, ios))
print("read KiB: ours %d, blkparse %d" % (our_r >> 10, rk))
print("write+discard KiB: ours %d, blkparse %d" % (our_w >> 10, wk))
ok = ok and ours == ios and our_r >> 10 == rk and our_w >> 10 == wk
sys.exit(0 if ok and ios > 0 else 1)
EOF
	if [ $? = 0 ]; then
		pass "$tn: blkparse's identity ($(head -n 1 "$TMP/$tn.id"))"
	else
		fail "$tn: blkparse's identity" "$(tr '\n' ';' < "$TMP/$tn.id")"
	fi
}

if ! command -v blkparse >/dev/null; then
	skip "blkparse not installed: identity not checked"
else
	for f in "$TOP"/samples/*.blktrace.0; do
		identity "${f%.blktrace.0}"
	done
fi

# A trace with cache flushes: never drawn or counted as reads.
flushy=""
multi=""
for f in "$TOP"/samples/*.blktrace.0; do
	base=${f%.blktrace.0}
	tn=$(basename "$base")
	[ -f "$TMP/$tn.json" ] || "$IOW" -t "$base" --summary=json > "$TMP/$tn.json"
	n=$(json "$TMP/$tn.json" "sum(x['flush']['ios'] for x in d['traces'][0]['devices'])")
	[ "$n" -gt 0 ] && [ -z "$flushy" ] && flushy=$base
	n=$(json "$TMP/$tn.json" "len(d['traces'][0]['devices'])")
	[ "$n" -gt 1 ] && [ -z "$multi" ] && multi=$base
done

if [ -z "$flushy" ]; then
	fail "a sample with cache flushes (samples/README.md)"
else
	tn=$(basename "$flushy")
	"$IOW" -t "$flushy" -O iops -O tput -O latency --csv "$TMP/f" \
		-o "$TMP/f.svg" > /dev/null 2>&1
	check "$tn: the IOPS graph has a flush series" \
		grep -q flush "$TMP/f/iops.csv"
	check "$tn: throughput has none (flushes carry no bytes)" \
		sh -c "! grep -q flush '$TMP/f/tput.csv'"
	check "$tn: the latency graph has a flush series" \
		grep -q flush "$TMP/f/latency.csv"
	"$IOW" -t "$flushy" --summary > "$TMP/f.txt"
	check "$tn: the text summary has a flush row" \
		grep -qE '^  flush +[0-9]+ I/Os' "$TMP/f.txt"
	check "$tn: and a flush latency row" grep -q 'D2C flush' "$TMP/f.txt"
	reads=$(json "$TMP/$tn.json" "d['traces'][0]['devices'][0]['read']['ios']")
	bp_reads=$(sed -n '/^Total/,$p' "$TMP/$tn.bp" |
		sed -n 's/.*Reads Completed: *\([0-9]*\),.*/\1/p' | head -n 1)
	check "$tn: fewer reads than blkparse's, which counts flushes ($reads < $bp_reads)" \
		[ "$reads" -lt "$bp_reads" ]
fi

if [ -z "$multi" ]; then
	fail "a sample of two devices (samples/README.md)"
else
	tn=$(basename "$multi")
	IOWATCHER_LAYOUT="$TMP/m.layout" "$IOW" -t "$multi" -O tput \
		-O queue-depth -O seeks --csv "$TMP/m" -o "$TMP/m.svg" \
		> /dev/null 2>&1
	check "$tn: throughput says it sums the devices" \
		grep -q '^tput .* Throughput (sum of 2 devices)$' "$TMP/m.layout"
	check "$tn: queue depth does not (it draws each device)" \
		grep -q '^queue-depth .* Queue depth$' "$TMP/m.layout"
	check "$tn: queue depth draws a line per device" \
		sh -c "head -n 1 '$TMP/m/queue-depth.csv' | grep -c 'device' | grep -q 1 &&
		       [ \$(head -n 1 '$TMP/m/queue-depth.csv' | tr ',' '\n' | grep -c device) = 2 ]"
	check "$tn: seeks too" \
		sh -c "[ \$(head -n 1 '$TMP/m/seeks.csv' | tr ',' '\n' | grep -c device) = 2 ]"
	IOWATCHER_LAYOUT="$TMP/p.layout" timeout 30 "$IOW" -t "$multi" -O tput \
		-O latency --per-device --csv "$TMP/p" -o "$TMP/p.svg" \
		> /dev/null 2>&1
	check "$tn: --per-device draws a panel per device" \
		sh -c "[ \$(grep -c '^tput .* Throughput, device [0-9]*,[0-9]*$' '$TMP/p.layout') = 2 ]"
	check "$tn: --per-device CSV names each device's columns" \
		grep -q '^time_s,span_s,device_[0-9]*_[0-9]*_read_mb_per_s,.*,device_[0-9]*_[0-9]*_write_mb_per_s$' "$TMP/p/tput.csv"
	# the devices' columns add up to the trace's, bin by bin
	python3 - "$TMP/p/tput.csv" "$TMP/m/tput.csv" > "$TMP/p.sum" 2>&1 <<'EOF'
import csv, sys
per = list(csv.DictReader(open(sys.argv[1])))
whole = list(csv.DictReader(open(sys.argv[2])))
assert len(per) == len(whole) > 0, (len(per), len(whole))
for a, b in zip(per, whole):
    for d in ("read", "write"):
        s = sum(float(v) for k, v in a.items() if k.endswith(d + "_mb_per_s"))
        assert abs(s - float(b[d + "_mb_per_s"])) < 1e-6, (a, b)
print(len(per), "bins")
EOF
	check "$tn: and they add up to the whole trace's ($(tail -n 1 "$TMP/p.sum"))" \
		[ "$(tail -n 1 "$TMP/p.sum" | cut -d' ' -f2)" = bins ]
	dev=$(json "$TMP/$tn.json" "d['traces'][0]['devices'][1]['device']")
	"$IOW" -t "$multi" -d "$dev" --summary=json > "$TMP/one.json"
	check "$tn: -d $dev keeps that device alone" \
		[ "$(json "$TMP/one.json" "[x['device'] for x in d['traces'][0]['devices']]")" = "['$dev']" ]
	all=$(json "$TMP/$tn.json" "d['traces'][0]['events']")
	one=$(json "$TMP/one.json" "d['traces'][0]['events']")
	check "$tn: and counts only its events ($one < $all)" [ "$one" -lt "$all" ]
fi

# -x past the end: an error, one line on stderr, nothing written (a
# summary of nothing read as a quiet disk, and exited 0)
base=$TOP/samples/fio-randrw
"$IOW" -t "$base" -x 50:60 --summary=json -o "$TMP/x.svg" \
	> "$TMP/x.json" 2> "$TMP/x.err"
rc=$?
check "-x past the end: exit 1, no picture, no summary" \
	sh -c "[ $rc = 1 ] && [ ! -e '$TMP/x.svg' ] && [ ! -s '$TMP/x.json' ]"
check "-x past the end: says so in one line, with the trace's range" \
	sh -c "[ \$(wc -l < '$TMP/x.err') = 1 ] &&
	       grep -q 'no event in -x 50:60: the trace runs from 0.000 to 5.0' '$TMP/x.err'"
# -x on an idle stretch inside the trace (fio-randrw has none from 2 s
# to 3 s): an answer, said once, exit 0
"$IOW" -t "$base" -x 2:3 --summary=json > "$TMP/idle.json" 2> "$TMP/idle.err"
rc=$?
check "-x on an idle stretch inside the trace: exit 0, 0 events, said once" \
	sh -c "[ $rc = 0 ] && [ \$(wc -l < '$TMP/idle.err') = 1 ] &&
	       grep -q 'an idle stretch of the trace' '$TMP/idle.err'"
# --device the trace does not have: the same, naming the devices it has
"$IOW" -t "$TOP/samples/two-devices" -d 8,0 --summary -o "$TMP/d.svg" \
	> "$TMP/d.txt" 2> "$TMP/d.err"
rc=$?
check "-d 8,0 of a trace of 7,0 and 7,1: exit 1, nothing written" \
	sh -c "[ $rc = 1 ] && [ ! -e '$TMP/d.svg' ] && [ ! -s '$TMP/d.txt' ]"
check "-d 8,0: one line naming the trace's devices" \
	sh -c "[ \$(wc -l < '$TMP/d.err') = 1 ] &&
	       grep -q \"the trace's devices are 7,0 7,1\" '$TMP/d.err'"
# A device's rates and depth are over its own span, not the trace's:
# the same with --device as without (7,0 of two-devices was divided by
# the 2.343 s of both devices' events, by its own 1.514 s alone)
"$IOW" -t "$TOP/samples/two-devices" --summary=json > "$TMP/both.json"
"$IOW" -t "$TOP/samples/two-devices" -d 7,0 --summary=json > "$TMP/alone.json"
dev70="[x for x in d['traces'][0]['devices'] if x['device'] == '7,0'][0]"
check "a device's span_s is its own, with or without the other device" \
	[ "$(json "$TMP/both.json" "$dev70['span_s']")" = "$(json "$TMP/alone.json" "$dev70['span_s']")" ]
check "a device's mean depth is the same with or without the other device" \
	[ "$(json "$TMP/both.json" "$dev70['queue_depth_mean']")" = "$(json "$TMP/alone.json" "$dev70['queue_depth_mean']")" ]
"$IOW" -t "$TOP/samples/two-devices" --summary > "$TMP/both.txt"
"$IOW" -t "$TOP/samples/two-devices" -d 7,0 --summary > "$TMP/alone.txt"
check "a device's text rates are the same with or without the other device" \
	sh -c "[ \"\$(grep -A3 '^ device 7,0' '$TMP/both.txt' | tail -n 3)\" = \"\$(grep -A3 '^ device 7,0' '$TMP/alone.txt' | tail -n 3)\" ]"
check "and the text says the device's span where it is not the trace's" \
	grep -q "^ device 7,0 (rates and depth over its own 1.514 s, first event to last, of the trace's 2.343 s)" "$TMP/both.txt"
"$IOW" -t "$base" -x 1:2 --summary=json > "$TMP/w.json" 2> "$TMP/w.err"
check "-x 1:2 counts the window's events only" \
	[ "$(json "$TMP/w.json" "d['traces'][0]['events']")" -lt 14000 ]
check "-x 1:2: duration is the window's" \
	[ "$(json "$TMP/w.json" "d['traces'][0]['duration_s']")" = 1.0 ]
finish
