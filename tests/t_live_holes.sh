#!/bin/sh
# t_live_holes.sh: --live says the holes the analysis infers (issue 36
# items 2 and 6). A sample's dump read through -t - --live, whole and
# with every completion taken out of a window (tests/tools/make_holes.py,
# seeded, as t_holes.sh makes them): the holed one's intervals name the
# requests judged lost as the trace streams (--live=json's per-device
# orphan_requests and unmatched_completions, inferred_windows; the text
# lines' "# HOLE"), the trace's end names those its end judged, and the
# counts add up to the summary's; the intact one names none.
. "$(dirname "$0")/lib.sh"

if ! command -v blkparse > /dev/null; then
	skip "blkparse missing (Debian's blktrace): no dump to read"
	finish
	exit
fi
cd "$TMP" || exit 1
blkparse -i "$TOP/samples/fio-randrw" -d "$TMP/whole.dump" -o /dev/null \
	> /dev/null 2>&1
python3 "$TOP/tests/tools/make_holes.py" "$TMP/whole.dump" "$TMP/holed.dump" \
	completions --seed 7 > "$TMP/holes.json" || fail "make_holes"

for t in holed whole; do
	mode=holes
	[ $t = whole ] && mode=intact
	if "$IOW" -t - --live=json --interval 0.5 --summary=json \
		< "$TMP/$t.dump" > "$TMP/$t.jsonl" 2> "$TMP/$t.err"; then
		if out=$(python3 "$TOP/tests/live_holes.py" "$TMP/$t.jsonl" $mode)
		then
			pass "$t: --live=json's holes as the summary's ($mode)"
		else
			fail "$t: --live=json's holes as the summary's ($mode)" \
				"$(echo "$out" | head -n 3)"
		fi
	else
		fail "$t: --live=json" "$(head -n 2 "$TMP/$t.err")"
	fi
	"$IOW" -t - --live=text --interval 0.5 --summary=json \
		< "$TMP/$t.dump" > "$TMP/$t.txt" 2> "$TMP/$t.txt.err"
	n=$(grep -c '^# HOLE inferred on 7,1' "$TMP/$t.txt")
	if [ $t = holed ]; then
		check "holed: --live=text says HOLE in an interval and at the end" \
			[ "$n" -ge 2 ]
	else
		check "whole: --live=text says no HOLE" [ "$n" -eq 0 ]
	fi
done

# the depth shown does not climb on the lost completions while the trace
# streams: each interval's depth at most the whole trace's 1.15 times
# (+0.01, as t_holes.sh's property), the requests still out said as
# overdue; the whole names none overdue
depth_holds() {
	python3 - "$TMP/whole.jsonl" "$TMP/holed.jsonl" <<'PY'
import json, sys
def intervals(path):
    out = []
    for line in open(path):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if "start_s" in j and "devices" in j:
            out.append({d["device"]: d for d in j["devices"]})
    return out
whole, holed = intervals(sys.argv[1]), intervals(sys.argv[2])
bad, overdue = [], 0
assert len(whole) == len(holed) > 4, (len(whole), len(holed))
for k, (w, h) in enumerate(zip(whole, holed)):
    for dev, d in h.items():
        want = w[dev]["queue_depth_mean"] * 1.15 + 0.01
        if d["queue_depth_mean"] > want:
            bad.append("interval %d %s: depth %.4f, the whole's %.4f"
                       % (k, dev, d["queue_depth_mean"],
                          w[dev]["queue_depth_mean"]))
        overdue = max(overdue, d.get("overdue_requests", 0))
    if any(d.get("overdue_requests", 0) for d in w.values()):
        bad.append("interval %d: the whole trace has overdue requests" % k)
if not overdue:
    bad.append("no interval says overdue requests")
print("\n".join(bad[:4]) if bad else "max overdue %d" % overdue)
sys.exit(1 if bad else 0)
PY
}
if out=$(depth_holds); then
	pass "holed: each interval's depth within the whole's, the lost said overdue ($out)"
else
	fail "holed: each interval's depth within the whole's, the lost said overdue" "$out"
fi
check "holed: --live=text says OVERDUE" grep -q '^# OVERDUE on 7,1: 98 requests' \
	"$TMP/holed.txt"
check "whole: --live=text says no OVERDUE" sh -c "! grep -q OVERDUE '$TMP/whole.txt'"

# a true slow request among fast ones is no hole: one completion of the
# whole dump moved 1.5 s later (the request truly took that long, the
# queue never held more than it does in stretches that drained): no
# interval calls it overdue, and it stays in the depth (1 while it is
# the only one out)
python3 - "$TMP/whole.dump" "$TMP/slow.dump" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
recs, i = [], 0
while i + 48 <= len(data):
    h = list(struct.unpack_from("<IIQQIIIIIHH", data, i))
    recs.append((h, data[i + 48:i + 48 + h[10]]))
    i += 48 + h[10]
done = [r for r in recs if r[0][5] & 0xffff == 8 and r[0][4]]
done[len(done) * 2 // 5][0][2] += 1500000000
recs.sort(key=lambda r: r[0][2])
open(sys.argv[2], "wb").write(b"".join(struct.pack("<IIQQIIIIIHH", *h) + p
                                       for h, p in recs))
PY
"$IOW" -t - --live=json --interval 0.5 < "$TMP/slow.dump" > "$TMP/slow.jsonl" 2> "$TMP/slow.err"
if out=$(python3 - "$TMP/slow.jsonl" <<'PY'
import json, sys
overdue, top = 0, 0
for line in open(sys.argv[1]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    for d in j.get("devices", []) if "start_s" in j else []:
        overdue += d.get("overdue_requests", 0)
        top = max(top, d["queue_depth_mean"])
print("overdue %d, deepest interval %.3f" % (overdue, top))
sys.exit(0 if overdue == 0 and top >= 0.99 else 1)
PY
); then
	pass "a request 1.5 s slow among fast ones: not overdue, in the depth ($out)"
else
	fail "a request 1.5 s slow among fast ones: not overdue, in the depth" "$out"
fi
finish
