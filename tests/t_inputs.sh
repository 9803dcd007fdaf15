#!/bin/sh
# tests/t_inputs.sh: the forms a trace comes in read as the trace itself.
# 1. blkparse's dump on a pipe, as README and the man page show it, with
#    the "Input file ... added" lines Debian's blkparse writes into it:
#    on every trace in samples/, the same JSON summary as the per-CPU
#    files, and with --live=text the same lines as its dump read from a
#    file.
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
		"$IOW" -t "$base" --summary=json > "$TMP/$n.files.json" 2>&1
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

finish
