#!/bin/sh
# tests/t_taggers.sh: the shipped taggers, end to end through the tagger
# stage (tests/tools/tagrun counts completed I/O per tag), on a synthetic
# dump whose answers follow from how it is made, and on the real CentOS
# trace against counts taken from blkparse's own output.
. "$(dirname "$0")/lib.sh"

TAGRUN="$TOP/tests/tools/tagrun"
GEN="$TOP/tests/tools/gen-stream"
S="$TOP/scripts"

# same NAME EXPECTED-FILE ACTUAL-FILE
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "expected $(tr '\t\n' ' |' <"$2") got $(tr '\t\n' ' |' <"$3")"
	fi
}

# tagged NAME DUMP TAGGER: tagrun's table, sorted, into $TMP/NAME.out
tagged() {
	"$TAGRUN" -t 30 "$2" "$3" | sort >"$TMP/$1.out"
}

# expect NAME: the table read from stdin, sorted, into $TMP/NAME.want
expect() {
	sort >"$TMP/$1.want"
}

for tool in "$TAGRUN" "$GEN" "$S/tag-example"; do
	if [ ! -x "$tool" ]; then
		skip "$tool not built (make all)"
		finish
		exit
	fi
done

# gen-stream 1000 4: I/O k by pid 1000 + k % 4 at sector 8k, 4096 *
# (1 + k % 4) bytes, a read when k % 3 == 0, sync when k is odd.
"$GEN" 1000 4 >"$TMP/syn.dump"
TAB=$(printf '\t')

tagged example "$TMP/syn.dump" "$S/tag-example"
awk 'BEGIN {
	for (k = 0; k < 1000; k++) {
		c = (k % 2 ? "sync " : "") (k % 3 ? "write" : "read")
		n[c]++; b[c] += 4096 * (1 + k % 4)
	}
	for (c in n) printf "%s\t%d\t%d\n", c, n[c], b[c]
	print "untagged\t0\t0" }' | expect example
same "tag-example tags by direction and sync" "$TMP/example.want" \
	"$TMP/example.out"

if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 missing: the Python taggers"
else
	tagged pid "$TMP/syn.dump" "$S/tag-by-pid"
	expect pid <<-EOF
	proc0 (1000)${TAB}250${TAB}1024000
	proc1 (1001)${TAB}250${TAB}2048000
	proc2 (1002)${TAB}250${TAB}3072000
	proc3 (1003)${TAB}250${TAB}4096000
	untagged${TAB}0${TAB}0
	EOF
	same "tag-by-pid tags by process, named from PROCESS notes" \
		"$TMP/pid.want" "$TMP/pid.out"

	tagged group "$TMP/syn.dump" "$S/tag-by-pid -g pair:1001,1003"
	expect group <<-EOF
	pair${TAB}500${TAB}6144000
	proc0 (1000)${TAB}250${TAB}1024000
	proc2 (1002)${TAB}250${TAB}3072000
	untagged${TAB}0${TAB}0
	EOF
	same "tag-by-pid -g puts processes under one tag" "$TMP/group.want" \
		"$TMP/group.out"

	tagged size "$TMP/syn.dump" "$S/tag-by-size -s 8K"
	expect size <<-EOF
	<= 8K${TAB}500${TAB}3072000
	> 8K${TAB}500${TAB}7168000
	untagged${TAB}0${TAB}0
	EOF
	same "tag-by-size tags by request size" "$TMP/size.want" \
		"$TMP/size.out"

	# I/O k starts at sector 8k: below 4000 sectors (2000K) are k < 500.
	tagged range "$TMP/syn.dump" "$S/tag-by-range -r low:0-2000K -o rest"
	expect range <<-EOF
	low${TAB}500${TAB}5120000
	rest${TAB}500${TAB}5120000
	untagged${TAB}0${TAB}0
	EOF
	same "tag-by-range tags by start sector, K suffix = bytes" \
		"$TMP/range.want" "$TMP/range.out"

	# Sectors 4000 to 6079: I/O 500 to 759, 65 turns of the 4 sizes.
	tagged range2 "$TMP/syn.dump" "$S/tag-by-range -r mid:4000-6080"
	expect range2 <<-EOF
	mid${TAB}260${TAB}2662400
	untagged${TAB}740${TAB}7577600
	EOF
	same "tag-by-range leaves I/O outside its ranges untagged" \
		"$TMP/range2.want" "$TMP/range2.out"

	if "$TAGRUN" "$TMP/syn.dump" "$S/tag-by-range -r bad" \
		>/dev/null 2>"$TMP/bad.err"; then
		fail "a tagger's usage error fails the run"
	else
		check "a tagger's usage error fails the run, in one line" \
			grep -q "tagger '.*tag-by-range -r bad': event 0: exited before answering (exit status 1)" "$TMP/bad.err"
	fi
fi

# The real trace. Independent count, from blkparse's text output and
# without matching events into I/Os: per pid, the I/Os it queued less the
# bios it merged into a request (ios), and the bytes it queued (bytes).
# tagrun instead follows each COMPLETE back to its QUEUE by sector. The
# two agree exactly when every merge joins a request of the same process
# and every queued I/O completes inside the trace, both true of this
# trace; that the totals equal blkparse's Writes Completed checks it.
if ! command -v blkparse >/dev/null 2>&1; then
	skip "blkparse missing: the CentOS trace"
	finish
	exit
fi
blkparse -i centos7-sda -D "$TOP/samples" -d "$TMP/centos.dump" -O \
	>/dev/null 2>&1
blkparse -i centos7-sda -D "$TOP/samples" -f '%a %p %n\n' \
	>"$TMP/centos.txt" 2>/dev/null
awk '$1 == "Q" { n[$2]++; b[$2] += $3 * 512 }
     $1 == "M" || $1 == "F" { n[$2]-- }
     END { for (p in n) printf "%s\t%d\t%d\n", p, n[p], b[p] }' \
	"$TMP/centos.txt" | expect centos

# Labels "comm (pid)" (tag-by-pid) or "pid N" (tag-example -p) to pids.
by_pid() {
	grep -v '^untagged' | sed -E 's/^.*[( ]([0-9]+)\)?\t/\1\t/' | sort
}

if command -v python3 >/dev/null 2>&1; then
	tagged centos_pid "$TMP/centos.dump" "$S/tag-by-pid"
	by_pid <"$TMP/centos_pid.out" >"$TMP/centos_pid.pids"
	same "tag-by-pid on the CentOS trace: per-pid I/O and bytes as blkparse" \
		"$TMP/centos.want" "$TMP/centos_pid.pids"
	check "tag-by-pid on the CentOS trace: nothing untagged" \
		grep -qx "untagged${TAB}0${TAB}0" "$TMP/centos_pid.out"
	check "tag-by-pid on the CentOS trace: labels are comm (pid)" \
		grep -q "^kworker/u256:1 (17852)${TAB}" "$TMP/centos_pid.out"
fi

tagged centos_ex "$TMP/centos.dump" "$S/tag-example -p"
by_pid <"$TMP/centos_ex.out" >"$TMP/centos_ex.pids"
same "tag-example -p on the CentOS trace: per-pid I/O and bytes as blkparse" \
	"$TMP/centos.want" "$TMP/centos_ex.pids"

# blkparse's summary: Writes Completed 109; its KiB are summed per event
# rounded down, so compare bytes with the COMPLETE sizes instead.
awk -F'\t' '{ n += $2; b += $3 } END { print n, b }' "$TMP/centos_ex.out" \
	>"$TMP/total.out"
awk '$1 == "C" { n++; b += $3 * 512 } END { print n, b }' \
	"$TMP/centos.txt" >"$TMP/total.want"
same "CentOS totals: every completion counted once" "$TMP/total.want" \
	"$TMP/total.out"
check "CentOS totals: 109 completions, as blkparse's summary" \
	grep -q "^109 " "$TMP/total.out"

finish
