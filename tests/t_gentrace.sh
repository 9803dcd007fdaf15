#!/bin/sh
# tests/t_gentrace.sh: bench/gentrace writes traces blkparse and btt accept,
# whose totals match the ones gentrace prints, in both record versions and
# both byte orders, the same bytes for the same seed. With --flushes,
# --splits and --discards its traces have what real filesystems add, and
# iowatcher's --summary=json must equal gentrace's oracle class by class.
# --mix randread-seqwrite imitates the benchmark's recorded trace: fio's
# random 4 KiB reads inside the range of its sequential 128 KiB writes,
# every request plugged and unplugged.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/bench/gentrace"

if [ ! -x "$GEN" ]; then
	skip "bench/gentrace not built (make bench/gentrace)"
	finish
	exit $?
fi

# gen NAME ARGS...: writes $TMP/NAME.blktrace.*, totals in $TMP/NAME.txt
gen() {
	g_name=$1
	shift
	"$GEN" -o "$TMP/$g_name" -n 20000 -s 3 --merges "$@" \
		2> "$TMP/$g_name.txt"
}

# total NAME KEY: a number from gentrace's summary, e.g. "reads completed"
total() {
	sed -n "s/^gentrace: $2 \([0-9]*\).*/\1/p" "$TMP/$1.txt"
}

# kib_of NAME DIR: gentrace's completed KiB in blkparse's units: "123KiB",
# or "6405MiB" for 6405716 KiB (blkparse divides by 1000 while over 1e6).
kib_of() {
	sed -n "s/^gentrace: $2 completed [0-9]* kib \([0-9]*\)/\1/p" \
		"$TMP/$1.txt" | awk '{ n = $1; u = "K";
		while (n > 1000000) { n = int(n / 1000); u = (u == "K") ? "M" : "G" }
		print n u "iB" }'
}

# blk_total NAME LABEL: "count,size" from blkparse's Total section
blk_total() {
	sed -n '/^Total/,$p' "$TMP/$1.blkparse" |
		sed -n "s/.*$2: *\([0-9]*\), *\([0-9]*[KMG]iB\).*/\1,\2/p" |
		head -n 1
}

file_bytes() {
	cat "$TMP/$1".blktrace.* | wc -c
}

# Expected bytes: every record's header, plus payloads: a 16-byte comm per
# PROCESS note and the 8-byte TIMESTAMP note.
expect_bytes() {
	e_events=$(sed -n 's/^gentrace: .*: \([0-9]*\) events.*/\1/p' \
		"$TMP/$1.txt")
	e_notes=$(sed -n 's/.* events (\([0-9]*\) notes).*/\1/p' "$TMP/$1.txt")
	echo $((e_events * $2 + (e_notes - 1) * 16 + 8))
}

first_u32() {
	od -A n -t x4 -N 4 "$TMP/$1.blktrace.0" | tr -d ' '
}

test_generates_v7_native_files() {
	gen v7 && [ -s "$TMP/v7.blktrace.0" ] && [ -s "$TMP/v7.blktrace.1" ] &&
		[ ! -e "$TMP/v7.blktrace.2" ]
}
check test_generates_v7_native_files test_generates_v7_native_files

test_v7_records_are_48_bytes() {
	[ "$(file_bytes v7)" = "$(expect_bytes v7 48)" ] &&
		[ "$(first_u32 v7)" = 65617407 ]
}
check test_v7_records_are_48_bytes test_v7_records_are_48_bytes

test_same_seed_same_bytes() {
	gen again && cmp -s "$TMP/v7.blktrace.0" "$TMP/again.blktrace.0" &&
		cmp -s "$TMP/v7.blktrace.1" "$TMP/again.blktrace.1"
}
check test_same_seed_same_bytes test_same_seed_same_bytes

test_other_seed_other_bytes() {
	"$GEN" -o "$TMP/seed4" -n 20000 -s 4 --merges 2> /dev/null &&
		! cmp -s "$TMP/v7.blktrace.0" "$TMP/seed4.blktrace.0"
}
check test_other_seed_other_bytes test_other_seed_other_bytes

# Each CPU file: times never go back, sequence numbers count up by one.
# Skips the notes at the head (their payloads break the 48-byte stride).
test_cpu_files_sorted_with_contiguous_sequence() {
	for cpu in 0 1; do
		skip_bytes=$((5 * 64))	# PROCESS notes: swapper + 4 pids
		[ "$cpu" = 0 ] && skip_bytes=$((skip_bytes + 56))
		od -A n -t u4 -w48 -v -j "$skip_bytes" \
			"$TMP/v7.blktrace.$cpu" | awk '
			{ t = $4 * 4294967296 + $3
			  if ($1 != 1700885511) { bad = "magic " $1; exit }
			  if (NR > 1 && t < last) { bad = "time back"; exit }
			  if (NR > 1 && $2 != seq + 1) { bad = "seq"; exit }
			  last = t; seq = $2 }
			END { if (bad != "" || NR == 0) {
				print "cpu file: " bad > "/dev/stderr"; exit 1 } }' ||
			return 1
	done
}
check test_cpu_files_sorted_with_contiguous_sequence \
	test_cpu_files_sorted_with_contiguous_sequence

test_v8_records_are_64_bytes() {
	gen v8 --v8 && [ "$(file_bytes v8)" = "$(expect_bytes v8 64)" ] &&
		[ "$(first_u32 v8)" = 65617408 ]
}
check test_v8_records_are_64_bytes test_v8_records_are_64_bytes

test_swap_writes_other_byte_order() {
	gen sw --swap && [ "$(file_bytes sw)" = "$(file_bytes v7)" ] &&
		[ "$(first_u32 sw)" = 07746165 ] &&
		gen sw8 --v8 --swap && [ "$(first_u32 sw8)" = 08746165 ] &&
		[ "$(file_bytes sw8)" = "$(file_bytes v8)" ]
}
check test_swap_writes_other_byte_order test_swap_writes_other_byte_order

# The summary lines the benchmark and other tests read are there.
test_summary_names_totals() {
	grep -q '^gentrace: cpu 0 events [0-9]' "$TMP/v7.txt" &&
		grep -q '^gentrace: reads completed [0-9]* kib [0-9]' \
			"$TMP/v7.txt" &&
		grep -q '^gentrace: writes completed [0-9]* kib [0-9]' \
			"$TMP/v7.txt"
}
check test_summary_names_totals test_summary_names_totals

# The benchmark's traces keep their bytes: this checksum was taken from the
# generator before --flushes, --splits and --discards existed. (It holds
# for one libm: the device times go through exp() and log().)
test_default_trace_keeps_its_bytes() {
	[ "$(cksum < "$TMP/v7.blktrace.0")" = "2943920939 446248" ] &&
		[ "$(cksum < "$TMP/v7.blktrace.1")" = "4163272578 514016" ]
}
check test_default_trace_keeps_its_bytes test_default_trace_keeps_its_bytes

# class NAME DEVICE WHAT: the first number of gentrace's oracle line
# "gentrace: device DEVICE WHAT N ...", e.g. class rich all "flush ios"
class() {
	sed -n "s/^gentrace: device $2 $3 \([0-9]*\).*/\1/p" "$TMP/$1.txt"
}

test_rich_options_are_off_by_default() {
	[ "$(class v7 all "discard ios")" = 0 ] &&
		[ "$(class v7 all "flush ios")" = 0 ] &&
		[ "$(class v7 all "empty completions")" = 0 ]
}
check test_rich_options_are_off_by_default \
	test_rich_options_are_off_by_default

gen rich --flushes --splits --discards
gen rich_sw --flushes --splits --discards --swap
gen rich_v8 --flushes --splits --discards --v8 --swap

# mix NAME ARGS...: a --mix randread-seqwrite trace of 100000 events (the
# writes go round their 256 MiB about twice), totals in $TMP/NAME.txt
mix() {
	m_name=$1
	shift
	"$GEN" -o "$TMP/$m_name" -n 100000 -s 3 --mix randread-seqwrite \
		"$@" 2> "$TMP/$m_name.txt"
}
mix mix
mix mix_rich --merges --flushes --swap

# Two processes named fio on one device, their events in both CPU files.
test_mix_is_two_fio_jobs_on_one_device() {
	[ "$(class mix 8,0 "read ios")" -gt 0 ] &&
		[ "$(class mix 8,0 "write ios")" -gt 0 ] &&
		[ "$(grep -c '^gentrace: device 8,0 read' "$TMP/mix.txt")" = 1 ] &&
		[ "$(grep -c '^gentrace: device .* read' "$TMP/mix.txt")" = 2 ] &&
		grep -q '^gentrace: .* devices 1 pids 2 ' "$TMP/mix.txt" &&
		[ -s "$TMP/mix.blktrace.1" ] && [ ! -e "$TMP/mix.blktrace.2" ]
}
check test_mix_is_two_fio_jobs_on_one_device \
	test_mix_is_two_fio_jobs_on_one_device

test_mix_refuses_its_own_processes() {
	"$GEN" -o "$TMP/x" -n 100 --mix randread-seqwrite --pids 3 \
		2> "$TMP/x.err"
	[ $? = 2 ] && [ "$(cat "$TMP/x.err")" = "gentrace: --mix brings its \
own processes and device: drop --devices and --pids" ] || return 1
	"$GEN" -o "$TMP/x" -n 100 --mix randwrite 2> "$TMP/x.err"
	[ $? = 2 ] &&
		[ "$(cat "$TMP/x.err")" = "gentrace: --mix randwrite: want randread-seqwrite" ]
}
check test_mix_refuses_its_own_processes test_mix_refuses_its_own_processes

test_mix_keeps_its_bytes_per_seed() {
	mix mix_again && cmp -s "$TMP/mix.blktrace.0" "$TMP/mix_again.blktrace.0" &&
		cmp -s "$TMP/mix.blktrace.1" "$TMP/mix_again.blktrace.1"
}
check test_mix_keeps_its_bytes_per_seed test_mix_keeps_its_bytes_per_seed

test_rich_trace_has_flushes_discards_and_empty_completions() {
	[ "$(class rich all "discard ios")" -gt 0 ] &&
		[ "$(class rich all "flush ios")" -gt 0 ] &&
		[ "$(class rich all "empty completions")" -gt 0 ]
}
check test_rich_trace_has_flushes_discards_and_empty_completions \
	test_rich_trace_has_flushes_discards_and_empty_completions

# Each option brings its own class and nothing else.
test_each_rich_option_alone() {
	gen only_flushes --flushes && gen only_discards --discards &&
		[ "$(class only_flushes all "flush ios")" -gt 0 ] &&
		[ "$(class only_flushes all "discard ios")" = 0 ] &&
		[ "$(class only_discards all "discard ios")" -gt 0 ] &&
		[ "$(class only_discards all "flush ios")" = 0 ] &&
		[ "$(class only_discards all "empty completions")" = 0 ]
}
check test_each_rich_option_alone test_each_rich_option_alone

# json_matches_oracle NAME: iowatcher's --summary=json of $TMP/NAME has,
# per device, gentrace's ios and bytes of every class, its flushes and
# their mean D2C, its empty completions, and Q2C, D2C and Q2D over exactly
# its data bios (every merged bio and split piece), means to 0.001 us.
# Prints each difference.
json_matches_oracle() {
	"$IOW" -t "$TMP/$1" --summary=json > "$TMP/$1.json" || return 1
	python3 - "$TMP/$1.json" "$TMP/$1.txt" <<'EOF'
import json
import re
import sys

oracle = {}
for line in open(sys.argv[2]):
    m = re.match(r"gentrace: device (\S+) (\w+) (.*)", line)
    if not m or m.group(1) == "all":
        continue
    dev, what, rest = m.groups()
    nums = [float(x) for x in re.findall(r"\b\d+(?:\.\d+)?\b", rest)]
    o = oracle.setdefault(dev, {})
    if what in ("read", "write", "discard"):
        o[what] = nums[:2]
    elif what == "flush":
        o["flush"], o["flush_d2c"] = nums[:2]
    elif what == "empty":
        o["empty"] = nums[0]
    elif what == "data":
        o["bios"], o["q2c"], o["d2c"], o["q2d"] = nums[:4]
trace = json.load(open(sys.argv[1]))["traces"][0]
devices = {d["device"]: d for d in trace["devices"]}
bad = []
# the generator loses nothing: nothing is inferred lost (its flushes go
# one at a time, as the kernel's flush machinery sends them)
for w in trace.get("loss_windows", []):
    if w.get("inferred"):
        bad.append("a hole inferred in an intact trace: %s" % w)


def same(dev, what, got, want, tol=0.0):
    if abs(got - want) > tol:
        bad.append("%s %s: iowatcher %s, gentrace %s" % (dev, what, got, want))


for dev, o in oracle.items():
    j = devices.pop(dev, None)
    if j is None:
        bad.append("%s: missing from the JSON" % dev)
        continue
    for c in ("read", "write", "discard"):
        same(dev, c + " ios", j[c]["ios"], o[c][0])
        same(dev, c + " bytes", j[c]["bytes"], o[c][1])
    same(dev, "flush ios", j["flush"]["ios"], o["flush"])
    same(dev, "flush d2c n", j["flush"]["d2c_us"]["n"], o["flush"])
    same(dev, "flush d2c mean", j["flush"]["d2c_us"]["mean"],
         o["flush_d2c"], 0.0011)
    same(dev, "empty_completions", j["empty_completions"], o["empty"])
    for lat in ("q2c", "d2c", "q2d"):
        same(dev, lat + " n", j[lat + "_us"]["n"], o["bios"])
        same(dev, lat + " mean", j[lat + "_us"]["mean"], o[lat], 0.0011)
for dev in devices:
    bad.append("%s: in the JSON, not in gentrace's totals" % dev)
if not oracle:
    bad.append("no 'gentrace: device' lines")
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

if [ ! -x "$IOW" ] || ! command -v python3 > /dev/null 2>&1; then
	skip "iowatcher against gentrace's oracle: needs iowatcher and python3"
else
	for name in v7 rich rich_sw rich_v8 mix mix_rich; do
		check "test_iowatcher_json_equals_gentrace_oracle ($name)" \
			json_matches_oracle "$name"
	done
fi

if ! command -v blkparse > /dev/null 2>&1; then
	skip "blkparse checks: blkparse not installed"
	finish
	exit $?
fi

for name in v7 sw rich rich_sw mix mix_rich; do
	blkparse -i "$name" -D "$TMP" > "$TMP/$name.blkparse" 2>&1
done

for name in v7 sw rich rich_sw mix mix_rich; do
	for dir in reads writes; do
		label=$( [ $dir = reads ] && echo "Reads Completed" ||
			echo "Writes Completed")
		want="$(total $name "$dir completed"),$(kib_of $name $dir)"
		got=$(blk_total $name "$label")
		if [ "$got" = "$want" ]; then
			pass "test_blkparse_${dir}_completed_match_gentrace ($name)"
		else
			fail "test_blkparse_${dir}_completed_match_gentrace ($name)" \
				"blkparse $got, gentrace $want"
		fi
	done
done

# The spec's identity: every completion is one of the five classes.
test_blkparse_completions_are_the_five_classes() {
	for t_name in v7 rich rich_sw; do
		want=$(($(class $t_name all "read ios") + \
			$(class $t_name all "write ios") + \
			$(class $t_name all "discard ios") + \
			$(class $t_name all "flush ios") + \
			$(class $t_name all "empty completions")))
		got=$(blk_total $t_name "Reads Completed" | cut -d, -f1)
		got=$((got + $(blk_total $t_name "Writes Completed" | cut -d, -f1)))
		[ "$got" = "$want" ] || {
			echo "$t_name: blkparse $got completions, gentrace $want" >&2
			return 1
		}
	done
}
check test_blkparse_completions_are_the_five_classes \
	test_blkparse_completions_are_the_five_classes

# X S / N cuts a 512 KiB front piece: N = S + 1024, whatever the byte
# order (the remainder's sector is big-endian in the payload).
test_split_names_the_remainder() {
	for t_name in rich rich_sw; do
		awk '$6 == "X" { n++; if ($9 != "/" || $10 != $8 + 1024) bad++ }
			END { exit !(n > 0 && !bad) }' "$TMP/$t_name.blkparse" ||
			return 1
	done
}
check test_split_names_the_remainder test_split_names_the_remainder

# A preflush+FUA write, as blk-mq traces it: Q and G with FLUSH and FUA,
# the flush request D FN / C FN 0 (others' may come between), the data D
# and C with FUA, then an empty C WS where the data ended.
test_preflush_fua_write_sequence() {
	awk '$6 == "Q" && $7 == "FWFS" && !s { s = $8; end = $8 + $10; dev = $1 }
		!s || $1 != dev { next }
		$8 == s && $6 != "X" { seq = seq " " $6 ":" $7 }
		$7 == "FN" { seq = seq " " $6 ":FN" }
		$6 == "C" && $7 == "WS" && $8 == end && $9 == "[0]" {
			print seq " empty"; exit }' "$TMP/rich.blkparse" |
		grep -Eq '^ Q:FWFS G:FWFS( [DC]:FN)* D:FN( [DC]:FN)* C:FN( [DC]:FN)* D:WFS( [DC]:FN)* C:WFS( [DC]:FN)* empty$'
}
check test_preflush_fua_write_sequence test_preflush_fua_write_sequence

# Every flush bio (Q FWS 0, or Q FWFS with data) brings one D FN and one
# C FN 0 and ends in one empty completion; the empty flushes' at sector 0.
test_flush_events_add_up() {
	awk -v flushes="$(class rich all "flush ios")" '
		$6 == "Q" && $7 == "FWS" { plain++ }
		$6 == "Q" && $7 == "FWFS" { fua++ }
		$6 == "D" && $7 == "FN" { d++ }
		$6 == "C" && $7 == "FN" && $8 == 0 { c++ }
		$6 == "C" && $7 == "WS" && $9 == "[0]" { empty++
			if ($8 == 0) empty0++ }
		END { exit !(plain > 0 && fua > 0 && plain + fua == flushes &&
			d == flushes && c == flushes && empty == flushes &&
			empty0 == plain) }' "$TMP/rich.blkparse"
}
check test_flush_events_add_up test_flush_events_add_up

test_blkparse_counts_every_io_event() {
	for t_name in v7 rich mix mix_rich; do
		want=$(sed -n 's/^gentrace: .*: \([0-9]*\) events (\([0-9]*\) n.*/\1 \2/p' \
			"$TMP/$t_name.txt" | awk '{ print $1 - $2 }')
		grep -q "^Events ($t_name): $want entries" \
			"$TMP/$t_name.blkparse" || return 1
	done
}
check test_blkparse_counts_every_io_event test_blkparse_counts_every_io_event

# Per CPU file, sequence numbers run on without a gap, X records and
# their payloads included.
test_blkparse_sees_no_sequence_skips() {
	for t_name in v7 rich mix mix_rich; do
		grep -q '^Skips: 0 forward' "$TMP/$t_name.blkparse" || return 1
	done
}
check test_blkparse_sees_no_sequence_skips test_blkparse_sees_no_sequence_skips

# The mix's reads are 4 KiB, aligned, at random places all over the
# 256 MiB its 128 KiB writes go through in order and wrap around in.
test_mix_reads_random_inside_sequential_writes() {
	awk '$6 != "Q" { next }
		$7 == "R" { r++; if ($10 != 8 || $8 % 8 || $8 + 8 > 524288) bad++
			if ($8 == last_r + 8) seq_r++
			if ($8 < 65536) low++; if ($8 >= 458752) high++
			last_r = $8 }
		$7 == "WS" { w++; if ($10 != 256 || $8 + 256 > 524288) bad++
			if (w > 1 && $8 != next_w && $8 != 0) bad++
			if ($8 == 0) wraps++; if ($8 + 256 == 524288) ends++
			next_w = $8 + 256 }
		END { exit !(r > 2 * w && w > 0 && !bad && seq_r < r / 100 &&
			low > r / 16 && high > r / 16 && wraps >= 2 && ends >= 1) }' \
		"$TMP/mix.blkparse"
}
check test_mix_reads_random_inside_sequential_writes \
	test_mix_reads_random_inside_sequential_writes

# Reads and writes are in flight together (the directions interleave),
# never more than fio's 16 reads and 4 writes.
test_mix_depths() {
	awk '$6 == "Q" { n[$7]++; if (n[$7] > max[$7]) max[$7] = n[$7]
			if (n["R"] && n["WS"]) both++ }
		$6 == "C" { n[$7]-- }
		END { exit !(max["R"] <= 16 && max["R"] >= 8 &&
			max["WS"] <= 4 && max["WS"] >= 2 && both > 1000) }' \
		"$TMP/mix.blkparse"
}
check test_mix_depths test_mix_depths

# A fio job is one thread: it submits from one CPU until the scheduler
# moves it (now and then: on 1% of its Qs or fewer), never from both.
test_mix_jobs_submit_from_one_cpu_at_a_time() {
	awk '$6 == "Q" { n[$7]++; if (n[$7] > 1 && $2 != cpu[$7]) moves[$7]++
			cpu[$7] = $2 }
		END { exit !(moves["R"] + moves["WS"] > 0 &&
			moves["R"] < n["R"] / 100 &&
			moves["WS"] < n["WS"] / 100) }' \
		"$TMP/mix.blkparse"
}
check test_mix_jobs_submit_from_one_cpu_at_a_time \
	test_mix_jobs_submit_from_one_cpu_at_a_time

# Every request is plugged and unplugged between its G and I, as direct
# I/O traces on blk-mq: P, then U with one request let go, both with the
# read direction and nothing else (blkparse: "P N", "U N [fio] 1"). A
# flush goes to the flush machinery instead: no P, U or I.
test_mix_plugs_every_request() {
	for t_name in mix mix_rich; do
		awk -v flushes="$(class $t_name all "flush ios")" '
			$6 == "G" { g++ } $6 == "I" { i++ }
			$6 == "P" { p++; if ($7 != "N" || NF != 8) bad++ }
			$6 == "U" { u++; if ($7 != "N" || $9 != 1) bad++ }
			END { exit !(i > 0 && p == i && u == i &&
				i + flushes == g && !bad) }' \
			"$TMP/$t_name.blkparse" || return 1
	done
	# the reader's first I/O, in order: Q G P U I D
	[ "$(awk '$6 == "Q" && $7 == "R" && !pid { pid = $5 }
		pid && $5 == pid && n++ < 6 { printf "%s", $6 }' \
		"$TMP/mix.blkparse")" = QGPUID ]
}
check test_mix_plugs_every_request test_mix_plugs_every_request

test_blkparse_write_merges_match() {
	want=$(sed -n 's/^gentrace: writes queued [0-9]* merges \([0-9]*\)/\1/p' \
		"$TMP/v7.txt")
	got=$(sed -n '/^Total/,$p' "$TMP/v7.blkparse" |
		sed -n 's/.*Write Merges: *\([0-9]*\),.*/\1/p')
	[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]
}
check test_blkparse_write_merges_match test_blkparse_write_merges_match

if ! command -v btt > /dev/null 2>&1; then
	skip "btt checks: btt not installed"
	finish
	exit $?
fi

# btt counts D2C and Q2C once per queued bio; gentrace prints that too.
# (It runs in $TMP: it leaves its *_fp.dat files where it runs.)
test_btt_d2c_q2c_match_gentrace() {
	blkparse -i v7 -D "$TMP" -d "$TMP/v7.dump" -O > /dev/null 2>&1 &&
		(cd "$TMP" && btt -i v7.dump) > "$TMP/v7.btt" 2>&1 || return 1
	# "gentrace: per bio (btt) d2c avg D s q2c avg Q s n N"
	want=$(awk '/^gentrace: per bio/ { print $7, $11 }' "$TMP/v7.txt")
	got=$(awk '$1 == "D2C" && !d { d = $3 } $1 == "Q2C" && !q { q = $3 }
		END { print d, q }' "$TMP/v7.btt")
	echo "$want $got" | awk '{
		for (i = 1; i <= 2; i++) {
			diff = $i - $(i + 2); if (diff < 0) diff = -diff
			if ($(i + 2) == "" || diff > 1e-6 * $i + 1e-9) exit 1
		} }'
}
check test_btt_d2c_q2c_match_gentrace test_btt_d2c_q2c_match_gentrace

finish
