#!/bin/sh
# tests/t_zoned.sh: version-2 blktrace records (Linux's struct
# blk_io_trace2, late 2025: 64 bytes, a 64-bit action whose bits 32-38
# are zone append, zone reset, reset all, finish, open, close and
# write-zeroes) built here from the uapi header's layout, since no zoned
# device can be made on the test machine: zone management is a class of
# its own that moves no bytes (a reset of a 256 MiB zone too), a zone
# append is a write drawn where it landed (its completion's sector), a
# write-zeroes is a class of its own; the summary's text and JSON, the
# CSV and the pictures keep them apart.
. "$(dirname "$0")/lib.sh"

# zoned FILE SWAP: a trace of one device (8,16), 256 MiB zones: a write
# at zone 0's start, two zone appends queued at zone 1's start that land
# at its start and 128 MiB into it (the write pointer), a reset of zone 2 (bytes: the zone's 256 MiB, as a record may
# say), an open, a finish, a close, a reset-all, a 1 MiB write-zeroes,
# a zone plug and unplug; each Q, D and C.
zoned() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
path, swap = sys.argv[1], sys.argv[2] == "1"
e = ">" if swap else "<"
Q, D, C, ZPLUG, ZUNPLUG = 1, 7, 8, 18, 19
TC = {"W": 1 << 1, "Q": 1 << 4, "I": 1 << 6, "C": 1 << 7, "S": 1 << 3}
# enum blktrace_cat's version-2 bits, each shifted by BLK_TC_SHIFT (16)
ZA, ZR, ZRA, ZF, ZO, ZC, WZ = (1 << (16 + b) for b in range(16, 23))
dev = (8 << 20) | 16
zone = 256 << 20
recs = []
def io(t, sector, nbytes, cats, landed=None):
    recs.append((t, sector, nbytes, Q | TC["Q"] << 16 | cats))
    recs.append((t + 10000, sector, nbytes, D | TC["I"] << 16 | cats))
    recs.append((t + 50000, sector if landed is None else landed, nbytes,
                 C | TC["C"] << 16 | cats))
W = TC["W"] << 16
t = 1000000
io(t, 0, 65536, W); t += 1000000
io(t, zone // 512, 65536, W | ZA, zone // 512); t += 1000000
io(t, zone // 512, 65536, W | ZA, (zone + (128 << 20)) // 512); t += 1000000
recs.append((t, 2 * zone // 512, 0, ZPLUG | TC["Q"] << 16)); t += 1000
recs.append((t, 2 * zone // 512, 0, ZUNPLUG | TC["Q"] << 16)); t += 1000000
io(t, 2 * zone // 512, zone, W | ZR); t += 1000000
io(t, 3 * zone // 512, 0, W | ZO); t += 1000000
io(t, 3 * zone // 512, 0, W | ZF); t += 1000000
io(t, 4 * zone // 512, 0, W | ZC); t += 1000000
io(t, 0, 0, W | ZRA); t += 1000000
io(t, 5 * zone // 512, 1 << 20, W | WZ); t += 1000000
recs.sort()
with open(path, "wb") as f:
    for seq, (t, sector, nbytes, action) in enumerate(recs, 1):
        # struct blk_io_trace2: magic, sequence, time, sector, bytes,
        # pid, action (u64), device, cpu, error, pdu_len, pad[12]
        f.write(struct.pack(e + "IIQQIIQIIHH12x", 0x65617408, seq, t,
                            sector, nbytes, 42, action, dev, 0, 0, 0))
EOF
}

# json FILE EXPR: a value of the summary (d its document, v its device)
json() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d['traces'][0]['devices'][0]; print($2)" "$1"
}

for swap in 0 1; do
	zoned "$TMP/z$swap.blktrace.0" $swap
	order=$([ $swap = 1 ] && echo "byte-swapped" || echo "native")
	if ! "$IOW" -t "$TMP/z$swap" --summary=json > "$TMP/z$swap.json" \
		2> "$TMP/z$swap.err"; then
		fail "$order: --summary=json" "$(cat "$TMP/z$swap.err")"
		continue
	fi
	got=$(json "$TMP/z$swap.json" "v['zone-mgmt'], v['write-zeroes'], v['write'], v['read']")
	want="{'ios': 5, 'bytes': 0} {'ios': 1, 'bytes': 1048576} {'ios': 3, 'bytes': 196608} {'ios': 0, 'bytes': 0}"
	check "$order: zone management (a 256 MiB zone's reset among them) moves no bytes, write-zeroes and zone appends apart ($got)" \
		[ "$got" = "$want" ]
done

"$IOW" -t "$TMP/z0" --summary > "$TMP/z.txt" 2>&1
check "text: a zone-mgmt line with no bytes" \
	grep -Eq '^  zone-mgmt +5 I/Os +no bytes' "$TMP/z.txt"
check "text: a write-zeroes line of 1 MiB" \
	grep -Eq '^  write-zeroes +1 I/O +1(\.0)? ?MiB' "$TMP/z.txt"
check "text: 3 writes of 192 KiB (the zone appends are writes)" \
	grep -Eq '^  write +3 I/Os +192(\.0)? ?KiB' "$TMP/z.txt"
"$IOW" -t - --summary < "$TMP/z0.blktrace.0" > "$TMP/zpipe.txt" 2>&1
check "a dump on stdin (blkparse -d -): the same zone-mgmt line" \
	grep -Eq '^  zone-mgmt +5 I/Os +no bytes' "$TMP/zpipe.txt"

"$IOW" -t "$TMP/z0" -o "$TMP/z.png" --csv "$TMP/csv" > "$TMP/draw.out" 2>&1 ||
	fail "drawn" "$(cat "$TMP/draw.out")"
# the I/O map's rows (8 MiB each here): the appends where they landed
# (zone 1's start and 128 MiB into it, not twice its start), no row for
# the zones the management commands named, the write-zeroes at 1.25 GiB
rows=$(python3 -c 'import csv,sys; print(" ".join(r["offset_lo_bytes"] for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/csv/io.csv")
check "CSV: the I/O map has the appends where they landed, no zone command ($rows)" \
	[ "$rows" = "0 268435456 402653184 1342177280" ]
check "CSV: IOPS has zone-mgmt and write-zeroes columns, throughput no zone-mgmt" \
	sh -c "head -n 1 '$TMP/csv/iops.csv' | grep -q 'zone_mgmt_ios_per_s,write_zeroes_ios_per_s' &&
	       head -n 1 '$TMP/csv/tput.csv' | grep -q 'write_zeroes_mb_per_s' &&
	       ! head -n 1 '$TMP/csv/tput.csv' | grep -q zone_mgmt"
# the per-I/O log: each zone command a row of its class with no bytes,
# the appends at the sectors they landed at
"$IOW" -t "$TMP/z0" --events "$TMP/ev.csv" > /dev/null 2>&1
got=$(python3 -c 'import csv,sys; print(" ".join("%s:%s:%s" % (r["class"], r["sector"], r["bytes"]) for r in csv.DictReader(open(sys.argv[1])) if r["class"] != "write" or r["sector"] != "0"))' "$TMP/ev.csv" 2>&1)
want="write:524288:65536 write:786432:65536 zone-mgmt:1048576:0 zone-mgmt:1572864:0 zone-mgmt:1572864:0 zone-mgmt:2097152:0 zone-mgmt:0:0 write-zeroes:2621440:1048576"
check "--events: zone commands without bytes, appends where they landed ($got)" \
	[ "$got" = "$want" ]
# zone management is drawn in its own colour (the palette's dark red)
zone_px=$("$TOP/tests/tools/pngprobe" "$TMP/z.png" 0 0 1520 950 AA0000 30)
check "picture: zone management drawn in a colour of its own ($zone_px px)" \
	[ "${zone_px:-0}" -gt 100 ]

finish
