#!/bin/sh
# t_devlog.sh: -o NAME.jsonl, the per-device log (output/devlog.c, a row
# of outputs.c's table): one JSON line per device with I/O of each
# trace, with the figures --summary=json gives that device; two traces
# one after the other; a file only when whole.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples"
"$IOW" -t "$S/two-devices" -t "$S/dd-write" -o "$TMP/dev.jsonl"
check "it writes the file" [ -s "$TMP/dev.jsonl" ]
"$IOW" -t "$S/two-devices" -t "$S/dd-write" --summary=json > "$TMP/sum.json"
same=$(python3 - "$TMP/dev.jsonl" "$TMP/sum.json" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
summ = json.load(open(sys.argv[2]))
want = [(t['label'], d) for t in summ['traces'] for d in t['devices']]
if len(lines) != len(want):
    print('lines %d, devices %d' % (len(lines), len(want))); sys.exit()
for got, (label, dev) in zip(lines, want):
    if got['trace'] != label:
        print('trace', got['trace'], label); sys.exit()
    for k, v in dev.items():
        if got.get(k) != v:
            print('differs', label, dev['device'], k); sys.exit()
print('same %d' % len(lines))
PY
)
check "each line is a device of the JSON summary, its figures the same ($same)" \
	[ "$same" = "same 3" ]
check "the lines name the traces in order" \
	sh -c "cut -c1-30 '$TMP/dev.jsonl' | grep -c two-devices | grep -qx 2"
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
if [ "$(id -u)" = 0 ]; then
	# root writes anywhere: a name in a directory that is not there
	"$IOW" -t "$S/dd-write" -o "$TMP/nodir/dev.jsonl" 2> "$TMP/err"
else
	"$IOW" -t "$S/dd-write" -o "$TMP/ro/dev.jsonl" 2> "$TMP/err"
fi
rc=$?
check "a file it cannot write: one line, exit 1 ($(head -c 120 "$TMP/err"))" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ] && grep -q 'dev.jsonl' '$TMP/err'"
check "and nothing left behind" sh -c "[ -z \"\$(find '$TMP/ro' '$TMP/nodir' -type f 2>/dev/null)\" ]"
# a run that fails once the log is open (a trace that is not one)
head -c 4096 /dev/urandom > "$TMP/bad.blktrace.0"
"$IOW" -t "$S/dd-write" -t "$TMP/bad" -o "$TMP/half.jsonl" 2> "$TMP/err2"
rc=$?
check "a run that fails after opening it leaves no log ($(head -c 100 "$TMP/err2"))" \
	sh -c "[ $rc = 1 ] && [ -z \"\$(ls '$TMP' | grep 'half.jsonl')\" ]"
finish
