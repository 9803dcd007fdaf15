#!/bin/sh
# tests/t_gentrace.sh: bench/gentrace writes traces blkparse and btt accept,
# whose totals match the ones gentrace prints, in both record versions and
# both byte orders, the same bytes for the same seed.
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

if ! command -v blkparse > /dev/null 2>&1; then
	skip "blkparse checks: blkparse not installed"
	finish
	exit $?
fi

for name in v7 sw; do
	blkparse -i "$name" -D "$TMP" > "$TMP/$name.blkparse" 2>&1
done

for name in v7 sw; do
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

test_blkparse_counts_every_io_event() {
	want=$(sed -n 's/^gentrace: .*: \([0-9]*\) events (\([0-9]*\) n.*/\1 \2/p' \
		"$TMP/v7.txt" | awk '{ print $1 - $2 }')
	grep -q "^Events (v7): $want entries" "$TMP/v7.blkparse"
}
check test_blkparse_counts_every_io_event test_blkparse_counts_every_io_event

test_blkparse_sees_no_sequence_skips() {
	grep -q '^Skips: 0 forward' "$TMP/v7.blkparse"
}
check test_blkparse_sees_no_sequence_skips test_blkparse_sees_no_sequence_skips

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
test_btt_d2c_q2c_match_gentrace() {
	blkparse -i v7 -D "$TMP" -d "$TMP/v7.dump" -O > /dev/null 2>&1 &&
		btt -i "$TMP/v7.dump" > "$TMP/v7.btt" 2>&1 || return 1
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
