#!/bin/sh
# tests/t_golden.sh: every sample's summaries, pictures and CSV come out
# byte for byte as recorded in tests/data/golden.sha256 (tests/golden.sh
# --update records them, in the commit that changes an output on purpose),
# and the README's pictures in samples/ are what make demo draws.
. "$(dirname "$0")/lib.sh"
if IOW="$IOW" sh "$TOP/tests/golden.sh" > "$TMP/out" 2>&1; then
	pass "$(cat "$TMP/out")"
else
	fail "outputs as recorded" "$(tr '\n' ' ' < "$TMP/out")"
fi
# the README's pictures in samples/ are what make demo draws now
if sh "$TOP/scripts/demo.sh" "$IOW" "$TMP" > /dev/null 2> "$TMP/demo.err"; then
	for png in fio-randrw.png fio-randrw-latency.png \
		   two-devices-by-process.png ext4-fsync.png; do
		check "samples/$png is what make demo draws" \
			cmp -s "$TOP/samples/$png" "$TMP/$png"
	done
else
	fail "scripts/demo.sh" "$(head -n 1 "$TMP/demo.err")"
fi
finish
