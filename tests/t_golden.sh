#!/bin/sh
# tests/t_golden.sh: every sample's summaries, pictures and CSV come out
# byte for byte as recorded in tests/data/golden.sha256 (tests/golden.sh
# --update records them, in the commit that changes an output on purpose).
. "$(dirname "$0")/lib.sh"
if IOW="$IOW" sh "$TOP/tests/golden.sh" > "$TMP/out" 2>&1; then
	pass "$(cat "$TMP/out")"
else
	fail "outputs as recorded" "$(tr '\n' ' ' < "$TMP/out")"
fi
finish
