#!/bin/sh
# t_pictures.sh: pictures that do not mislead, read back from what was
# drawn: the axis units of a big, fast device (PDF text), one-bin series
# and the seeks panel's note, the legend's share of a panel with seven
# traces, overlaid latency heat maps on one scale, the I/O map's mixed
# colour in its legend, "untagged" in grey.
. "$(dirname "$0")/lib.sh"
PROBE="$TOP/tests/tools/pngprobe"

# mktrace.py OUT CASE: a dump of a made-up device 259,0
cat > "$TMP/mktrace.py" <<'EOF'
import struct, sys

MAGIC7 = 0x65617407
QUEUE, GETRQ, ISSUE, COMPLETE = 1, 4, 7, 8
TC_READ, TC_WRITE, TC_QUEUE, TC_ISSUE, TC_COMPLETE = 1, 2, 16, 64, 128
CATS = {QUEUE: TC_QUEUE, GETRQ: TC_QUEUE, ISSUE: TC_ISSUE,
        COMPLETE: TC_COMPLETE}
DEV = 259 << 20
S = 10**9


def record(t, code, sector, nbytes, write):
    action = code | ((CATS[code] | (TC_WRITE if write else TC_READ)) << 16)
    return struct.pack("<IIQQIIIIIHH", MAGIC7, 0, t, sector, nbytes, action,
                       100, DEV, 0, 0, 0)


def io(t, sector, nbytes, write=False, d2c=100000):
    return [(t, record(t, QUEUE, sector, nbytes, write)),
            (t, record(t, GETRQ, sector, nbytes, write)),
            (t + 10000, record(t + 10000, ISSUE, sector, nbytes, write)),
            (t + 10000 + d2c, record(t + 10000 + d2c, COMPLETE, sector,
                                     nbytes, write))]


out, case = sys.argv[1], sys.argv[2]
ev = []
if case == "big":
    # 4000 I/Os of 1 MiB a second for 2 s over 1.2 TiB: 4.2 GB/s
    top, n = int(1.2 * 2**40) // 512, 8000
    for k in range(n):
        ev += io(k * (2 * S // n), (k * 7919 % n) * (top // n), 1 << 20,
                 write=bool(k % 2))
elif case == "seq":
    # 200 sequential writes over 2 s: I/O, but not one seek
    for k in range(200):
        ev += io(k * S // 100, k * 8, 4096, write=True)
elif case == "two":
    # 2000 reads over 2 s taking 48 or 50 us in turn: one eighth of an
    # octave, where the scatter snapped both to one row of points
    for k in range(2000):
        ev += io(k * S // 1000, k * 8, 4096, d2c=(48000, 50000)[k % 2])
elif case.startswith("sweep"):
    # sweepr2, sweepw3: 1000 reads (writes) of 4 KiB a second for 2 (3)
    # s, at offsets all over the first 16 MiB
    for k in range(1000 * int(case[6:])):
        ev += io(k * S // 1000, (k * 7919 % 4096) * 8, 4096,
                 write=case[5] == "w")
elif case.startswith("lat"):
    # 2000 reads over 2 s, each taking the given microseconds
    us = int(case[3:])
    for k in range(2000):
        ev += io(k * S // 1000, k * 8, 4096, d2c=us * 1000)
ev.sort(key=lambda e: e[0])
open(out, "wb").write(b"".join(r for _, r in ev))
EOF
mk() { python3 "$TMP/mktrace.py" "$TMP/$1.dump" "$1"; }
have_pdftotext=1
command -v pdftotext > /dev/null || have_pdftotext=0

# ---- units: a 1.2 TiB device at 4 GB/s ----
mk big
"$IOW" -t "$TMP/big.dump" -O io -O tput -o "$TMP/big.pdf"
if [ $have_pdftotext = 1 ]; then
	pdftotext "$TMP/big.pdf" - > "$TMP/big.txt"
	check "offsets of a 1.2 TiB device in TiB" grep -qx "offset (TiB)" "$TMP/big.txt"
	k=$(grep -c '^[0-9.]*K\( MB/s\)*$' "$TMP/big.txt")
	check "no tick label of 1000 units or more ($k like '1K')" [ "$k" = 0 ]
	check "2 GB/s throughput labelled in GB/s" grep -qx "2 GB/s" "$TMP/big.txt"
else
	skip "axis units: pdftotext not installed"
fi

# ---- one bin: --bin-ms longer than the trace ----
S="$TOP/samples/fio-randrw"
rm -f "$TMP/layout"
IOWATCHER_LAYOUT="$TMP/layout" "$IOW" -t "$S" --bin-ms 100000 -O tput -O latency \
	-o "$TMP/bin.png"
# px GRAPH COLOUR: pixels of COLOUR in GRAPH's plot area
px() {
	awk -v g="$1" '$1 == g { printf "%d %d %d %d\n", $3, $4, $3 + $5, $4 + $6; exit }' "$TMP/layout" |
	{ read a b c d; "$PROBE" "$TMP/bin.png" "$a" "$b" "$c" "$d" "$2"; }
}
w=$(awk '$1 == "tput" { printf "%d", $5 }' "$TMP/layout")
check "one bin: throughput drawn across the panel ($(px tput 0072B2) px of reads, $w wide)" \
	[ "$(px tput 0072B2)" -ge "$w" ]
check "one bin: latency drawn across the panel ($(px latency D55E00) px of writes' mean)" \
	[ "$(px latency D55E00)" -ge "$w" ]
"$IOW" -t "$S" --bin-ms 100000 -O iops --csv "$TMP/bin" --summary=json > "$TMP/bin.json"
got=$(awk -F, 'NR == 2 { printf "%.1f", $3 }' "$TMP/bin/iops.csv")
want=$(python3 -c "import json; d=json.load(open('$TMP/bin.json'))['traces'][0]; print('%.1f' % (d['devices'][0]['read']['ios'] / d['duration_s']))" 2> /dev/null)
check "one bin: the rate over the trace's length ($got I/Os per s, summary $want)" \
	[ -n "$got" -a "$got" = "$want" ]

# ---- the seeks panel of I/O without a seek ----
mk seq
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$TMP/seq.dump" -O seeks -o "$TMP/seq.pdf"
	check "sequential writes: the seeks panel says \"no seeks\"" \
		sh -c "pdftotext '$TMP/seq.pdf' - | grep -qx 'no seeks'"
	# -x beyond the trace is an error: one line, exit 1, no picture
	"$IOW" -t "$TMP/seq.dump" -O seeks -x 100:200 -o "$TMP/none.pdf" \
		2> "$TMP/none.err"
	rc=$?
	check "-x beyond the trace: one line, exit 1, no picture ($(head -c 90 "$TMP/none.err"))" \
		sh -c "[ $rc = 1 ] && [ ! -e '$TMP/none.pdf' ] && [ \$(wc -l < '$TMP/none.err') = 1 ] &&
		       grep -q 'no event in -x 100:200: the trace runs from' '$TMP/none.err'"
else
	skip "the seeks panel's note: pdftotext not installed"
fi

# ---- seven traces: the legend leaves the plot most of its panel ----
mkdir "$TMP/seven"
for i in 1 2 3 4 5 6 7; do
	s=fio-randrw; [ $i -gt 4 ] && s=dd-write
	for c in 0 1; do
		ln -s "$TOP/samples/$s.blktrace.$c" \
			"$TMP/seven/nvme0n1-ext4-fsync-run-$i.blktrace.$c"
	done
done
rm -f "$TMP/layout"
IOWATCHER_LAYOUT="$TMP/layout" "$IOW" -t "$TMP/seven" -O latency -O io -h 300 \
	-o "$TMP/seven.png"
for g in latency io; do
	h=$(awk -v g=$g '$1 == g { printf "%d", $6 }' "$TMP/layout")
	check "seven traces: $g plot area $h px of its 300 px panel (>= 165)" \
		[ "${h:-0}" -ge 165 ]
done

# ---- the I/O map's mixed colour is in its legend ----
# (its swatch's colour: test_plot's test_mixed_cell_colour_is_in_the_legend)
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$S" -O io -o "$TMP/mix.pdf"
	check "reads and writes in one cell: \"read + write\" in the legend" \
		sh -c "pdftotext '$TMP/mix.pdf' - | grep -qx 'read + write'"
else
	skip "the mix in the legend: pdftotext not installed"
fi

# ---- untagged I/O in grey ----
T="$CENTOS"
rm -f "$TMP/layout"
IOWATCHER_LAYOUT="$TMP/layout" "$IOW" -t "$T" -O io -o "$TMP/untag.png" \
	-T 'tag-by-range -r low:0-1G -r mid:1G-10G -r a:10G-12G -r b:12G-14G'
grey=$(awk '$1 == "io" { printf "%d %d %d %d\n", $3, $4, $3 + $5, $4 + $6; exit }' "$TMP/layout" |
	{ read a b c d; "$PROBE" "$TMP/untag.png" "$a" "$b" "$c" "$d" 888888; })
check "untagged I/O drawn grey ($grey px)" [ "$grey" -ge 200 ]

# ---- two devices in one trace: each title says what it does with them ----
# (throughput and IOPS add up, latency and sizes pool the bios, queue
# depth draws a line per device, or with tags a line per class summed)
D="$TOP/samples/two-devices"
rm -f "$TMP/dlayout"
IOWATCHER_LAYOUT="$TMP/dlayout" "$IOW" -t "$D" -O tput -O iops -O latency \
	-O queue-depth -O q2d-d2c -O latency-hist -O size -O latency-heatmap \
	-o "$TMP/dev.png"
# title GRAPH: the title of GRAPH's first panel in the layout
title() { awk -v g="$1" '$1 == g { for (i = 9; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : ""; exit }' "$TMP/dlayout"; }
for want in "tput:Throughput (sum of 2 devices)" "iops:IOPS (sum of 2 devices)" \
	"latency:Device latency (D2C) (2 devices pooled)" \
	"q2d-d2c:Where the time goes (Q2D + D2C) (2 devices pooled)" \
	"latency-hist:Latency histogram (D2C) (2 devices pooled)" \
	"size:Request size (2 devices pooled)" \
	"latency-heatmap:Latency heat map (D2C) (2 devices pooled)" \
	"queue-depth:Queue depth"; do
	g=${want%%:*}
	check "two devices: $g titled \"$(title $g)\"" [ "$(title $g)" = "${want#*:}" ]
done
rm -f "$TMP/dlayout"
IOWATCHER_LAYOUT="$TMP/dlayout" "$IOW" -t "$D" -P -O queue-depth -O seeks \
	-o "$TMP/devP.png"
check "two devices by process: a class's queue depth sums them ($(title queue-depth))" \
	[ "$(title queue-depth)" = "Queue depth (sum of 2 devices)" ]

# ---- tags ranked once, as the summary ranks them ----
# ext4-fsync by process: kworker/1:1H sends 161 cache flushes (no bytes),
# second by I/Os after jbd2; dd 25426 and dd 25440 moved the most bytes
# after jbd2. With --top 3, every graph keeps jbd2 and the two dd (the
# summary's first three), the kworker in "other" (by I/Os, IOPS and
# latency gave it a class and put dd 25440 in "other"), and each tag
# keeps its colour in every graph: dd 25426's (AA0000, the second: tags
# take the palette's hues after read-blue and write-vermilion) in IOPS as
# in throughput.
E="$TOP/samples/ext4-fsync"
rm -f "$TMP/tlayout"
IOWATCHER_LAYOUT="$TMP/tlayout" "$IOW" -t "$E" -P --top 3 -O iops -O tput \
	-O latency --csv "$TMP/top3" -o "$TMP/top3.png"
"$IOW" -t "$E" -P --top 3 --summary > "$TMP/top3.txt"
classes() { head -n 1 "$TMP/top3/$1.csv" | tr ',' '\n' | sed -n "s/_$2\$//p" | tr '\n' ' '; }
want="jbd2_loop0_8_25343 dd_25426 dd_25440 other "
check "IOPS, throughput and latency: the same classes, the summary's top 3 ($(classes iops ios_per_s))" \
	sh -c "[ '$(classes iops ios_per_s)' = '$want' ] && [ '$(classes tput mb_per_s)' = '$want' ] &&
	       [ '$(classes latency d2c_max_us)' = '$want' ]"
check "the summary's top 3 are the graphs' ($(sed -n '/^ tags/,$p' "$TMP/top3.txt" | sed -n 3,5p | sed 's/.*B  //' | tr '\n' '|'))" \
	sh -c "sed -n '/^ tags/,\$p' '$TMP/top3.txt' | sed -n 3,5p | sed 's/.*B  //' | tr '\n' '|' | grep -qx 'jbd2/loop0-8 (25343)|dd (25426)|dd (25440)|'"
check "latency: the kworker's flushes in \"other\"" \
	sh -c "head -n 1 '$TMP/top3/latency.csv' | grep -q ',other_flush_d2c_mean_us' && ! head -n 1 '$TMP/top3/latency.csv' | grep -q kworker"
tpx() { awk -v g="$1" '$1 == g { printf "%d %d %d %d\n", $3, $4, $3 + $5, $4 + $6; exit }' "$TMP/tlayout" |
	{ read a b c d; "$PROBE" "$TMP/top3.png" "$a" "$b" "$c" "$d" "$2" 12; }; }
check "dd 25426's colour in IOPS ($(tpx iops AA0000) px) as in throughput ($(tpx tput AA0000) px)" \
	[ "$(tpx iops AA0000)" -gt 20 -a "$(tpx tput AA0000)" -gt 20 ]

# ---- CPU time: one stacked panel by default, the columns apart on request ----
rm -f "$TMP/clayout"
IOWATCHER_LAYOUT="$TMP/clayout" "$IOW" -t "$S" --csv "$TMP/cpu" -o "$TMP/cpu.png"
check "beside a trace with mpstat: one CPU panel ($(cut -d' ' -f1 "$TMP/clayout" | grep cpu | tr '\n' ' '))" \
	[ "$(cut -d' ' -f1 "$TMP/clayout" | grep -c '^cpu')" = 1 ] && grep -q '^cpu 0 ' "$TMP/clayout"
# fio-randrw.mpstat: %irq is 0 throughout (no layer), the rest are not
check "its layers: mpstat's columns that are ever above 0 ($(head -n 1 "$TMP/cpu/cpu.csv"))" \
	[ "$(head -n 1 "$TMP/cpu/cpu.csv")" = "time_s,span_s,usr_pct,sys_pct,iowait_pct,soft_pct,steal_pct" ]
# the stack's top is the busy share: 100 - %idle of each sample
awk '$2 == "all" && $1 != "Average:" { print 100 - $NF }' "$S.mpstat" > "$TMP/busy"
# mpstat's samples each average a second: drawn as a level over it, not
# points joined by slopes (a ramp between two seconds that never was)
"$IOW" -t "$S" -O cpu-sys -o "$TMP/cpusteps.svg" 2> /dev/null
check "mpstat's seconds drawn as steps over their spans ($(python3 "$TOP/tests/svg_steps.py" "$TMP/cpusteps.svg") stepped lines)" \
	python3 "$TOP/tests/svg_steps.py" "$TMP/cpusteps.svg"
awk -F, 'NR > 1 { print $3 + $4 + $5 + $6 + $7 }' "$TMP/cpu/cpu.csv" > "$TMP/top"
check "the stack's top is 100 - %idle ($(tr '\n' ' ' < "$TMP/top"))" \
	sh -c "[ \$(wc -l < '$TMP/top') = 5 ] && paste '$TMP/top' '$TMP/busy' |
	       awk '{ d = \$1 - \$2; if (d > 0.02 || d < -0.02) exit 1 }'"
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$S" -l before -t "$TOP/samples/dd-write" -l after -O cpu \
		-o "$TMP/cpu2.pdf"
	pdftotext "$TMP/cpu2.pdf" - > "$TMP/cpu2.txt"
	check "two traces: a CPU panel each ($(grep -c '^CPU time, ' "$TMP/cpu2.txt")), on one scale to 100 % ($(grep -cx 100 "$TMP/cpu2.txt"))" \
		[ "$(grep -c '^CPU time, ' "$TMP/cpu2.txt")" = 2 -a "$(grep -cx 100 "$TMP/cpu2.txt")" = 2 ]
else
	skip "CPU panels of two traces: pdftotext not installed"
fi
rm -f "$TMP/clayout"
IOWATCHER_LAYOUT="$TMP/clayout" "$IOW" -t "$S" -O cpu-sys -O cpu-irq -o "$TMP/cpu2.png"
check "-O cpu-sys -O cpu-irq: those panels alone" \
	[ "$(cut -d' ' -f1 "$TMP/clayout" | tr '\n' ' ')" = "cpu-sys cpu-irq " ]

# ---- latencies decades apart: a log axis, and the axis says so ----
# an NVMe-like trace (55 us) overlaid on a disk's (50 ms): on a linear
# axis the first lies on the floor
mk lat55
mk lat50000
# rows GRAPH PNG LAYOUT [COLOUR]: the runs of rows of COLOUR (or any
# colour) in GRAPH's plot area, "FIRST-LAST" a line
rows() { awk -v g="$1" '$1 == g { printf "%d %d %d %d\n", $3, $4, $3 + $5, $4 + $6; exit }' "$3" |
	{ read a b c d; "$PROBE" -r "$2" "$a" "$b" "$c" "$d" $4; }; }
# area GRAPH LAYOUT: its plot area's top and bottom rows
bottom() { awk -v g="$1" '$1 == g { printf "%d", $4 + $6 - 1; exit }' "$2"; }
height() { awk -v g="$1" '$1 == g { printf "%d", $6; exit }' "$2"; }
for axis in auto linear; do
	rm -f "$TMP/l-$axis.layout"
	opt=; [ $axis = auto ] || opt="--latency-axis $axis"
	IOWATCHER_LAYOUT="$TMP/l-$axis.layout" "$IOW" -t "$TMP/lat55.dump" -l nvme \
		-t "$TMP/lat50000.dump" -l disk -O latency -O q2d-d2c $opt \
		-o "$TMP/l-$axis.png"
	# the lowest row of the nvme line (blue), above the floor by
	lowest=$(rows latency "$TMP/l-$axis.png" "$TMP/l-$axis.layout" 0072B2 | tail -n 1 | cut -d- -f2)
	above=-1
	[ -n "$lowest" ] && above=$(( $(bottom latency "$TMP/l-$axis.layout") - lowest ))
	eval "above_$axis=$above"
done
h=$(height latency "$TMP/l-auto.layout")
check "55 us beside 50 ms (auto): the 55 us line $above_auto px above the floor of $h" \
	[ "$above_auto" -ge $((h / 10)) ]
check "--latency-axis linear: on the floor ($above_linear px)" \
	[ "$above_linear" -ge 0 -a "$above_linear" -le 3 ]
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$TMP/lat55.dump" -t "$TMP/lat50000.dump" -O latency -O q2d-d2c \
		-O latency-scatter -O latency-heatmap -o "$TMP/l.pdf"
	pdftotext "$TMP/l.pdf" - > "$TMP/l.txt"
	check "the axes say \"log scale\" ($(grep -c 'log scale' "$TMP/l.txt") of 6 panels)" \
		[ "$(grep -c '(log scale)$' "$TMP/l.txt")" = 6 ]
	"$IOW" -t "$TMP/lat55.dump" -O latency -O latency-scatter -o "$TMP/l1.pdf"
	check "one trace at 55 us: linear axes, not said log" \
		sh -c "! pdftotext '$TMP/l1.pdf' - | grep -q 'log scale'"
else
	skip "log scale on the axes: pdftotext not installed"
fi

# ---- the scatter places each I/O at its latency ----
# 48 and 50 us: two rows of points (the scatter drew one), their heights
# above the floor of the (auto: linear) axis 50/48 apart
mk two
rm -f "$TMP/s.layout"
IOWATCHER_LAYOUT="$TMP/s.layout" "$IOW" -t "$TMP/two.dump" -O latency-scatter \
	-h 900 -o "$TMP/s.png"
rows latency-scatter "$TMP/s.png" "$TMP/s.layout" > "$TMP/s.rows"
check "scatter: two rows of points at 48 and 50 us ($(tr '\n' ' ' < "$TMP/s.rows"))" \
	[ "$(wc -l < "$TMP/s.rows")" = 2 ]
b=$(bottom latency-scatter "$TMP/s.layout")
ratio=$(awk -F- -v b="$b" '{ c[NR] = b - ($1 + $2) / 2 } END { if (NR == 2) printf "%.4f", c[1] / c[2]; else print 0 }' "$TMP/s.rows")
check "their heights above the axis's 0: 50/48 = 1.042 apart ($ratio)" \
	awk "BEGIN { exit !($ratio > 1.03 && $ratio < 1.055) }"
rm -f "$TMP/s.layout"
IOWATCHER_LAYOUT="$TMP/s.layout" "$IOW" -t "$TMP/two.dump" -O latency-scatter \
	-h 1500 --latency-axis log -o "$TMP/s-log.png"
check "on a log axis as well ($(rows latency-scatter "$TMP/s-log.png" "$TMP/s.layout" | tr '\n' ' '))" \
	[ "$(rows latency-scatter "$TMP/s-log.png" "$TMP/s.layout" | wc -l)" = 2 ]

# ---- sizes in a unit that keeps them short ----
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$TMP/big.dump" -O size -O offset-heatmap -o "$TMP/size.pdf"
	pdftotext "$TMP/size.pdf" - > "$TMP/size.txt"
	check "1 MiB requests: \"1 MiB\" on the size axis" grep -qx "1 MiB" "$TMP/size.txt"
	k=$(grep -c '^[0-9.]*K\( KiB\)*$' "$TMP/size.txt")
	check "no size or colour bar label of 1000 units ($k like '1K KiB')" [ "$k" = 0 ]
	check "the offset heat map's colour bar in bytes: 1 KiB to 2 MiB" \
		sh -c "grep -qx 'bytes 1 KiB' '$TMP/size.txt' && grep -qx '2 MiB' '$TMP/size.txt'"
else
	skip "size units: pdftotext not installed"
fi

# ---- overlaid latency heat maps: one latency axis, one colour bar ----
if [ $have_pdftotext = 1 ]; then
	"$IOW" -t "$S" -l before -t "$TOP/samples/dd-write" -l after \
		-O latency-heatmap -o "$TMP/heat.pdf"
	pdftotext "$TMP/heat.pdf" - > "$TMP/heat.txt"
	bars=$(grep -c '^I/Os per 30 ms' "$TMP/heat.txt")
	check "two heat maps, two colour bars of I/Os per 30 ms ($bars)" [ "$bars" = 2 ]
	maxes=$(sed -n '/^I\/Os per/{n;n;p}' "$TMP/heat.txt" | sort -u | wc -l)
	check "both colour bars end at the same count" [ "$maxes" = 1 ]
	tops=$(grep -c '^100 ms$' "$TMP/heat.txt")
	check "both latency axes reach 100 ms ($tops)" [ "$tops" = 2 ]
else
	skip "heat maps' shared scales: pdftotext not installed"
fi

# ---- two traces compared by eye: nothing of one hides the other ----
# a: 2 s of reads, b: 3 s of writes, over the same 16 MiB: two lengths,
# so two I/O maps of their own columns before they share a grid
mk sweepr2
mk sweepw3
two="-t $TMP/sweepr2.dump -l a -t $TMP/sweepw3.dump -l b"
rm -f "$TMP/two.layout"
IOWATCHER_LAYOUT="$TMP/two.layout" "$IOW" $two -O io -O q2d-d2c \
	-O latency-hist -o "$TMP/two.png" --csv "$TMP/two"
# area GRAPH FROM TO: the part of GRAPH's plot area from FROM to TO of
# its width
area() {
	awk -v g="$1" -v f="$2" -v t="$3" '$1 == g { printf "%d %d %d %d", $3 + $5 * f, $4, $3 + $5 * t, $4 + $6; exit }' "$TMP/two.layout"
}
probe() { "$PROBE" "$TMP/two.png" $(area "$1" "$2" "$3") $4 $5; }
all=$(probe io 0.01 0.65)
b_alone=$(probe io 0.01 0.65 D55E00 60)
check "I/O map, a's 2 s under b's 3 s: b's colour not over a's ($b_alone of $all px in b's alone)" \
	[ "$all" -gt 1000 -a "$b_alone" -lt $((all / 10)) ]
check "I/O map: b alone after a's end ($(probe io 0.7 0.99) px)" \
	[ "$(probe io 0.7 0.99)" -gt 1000 ]
# q2d-d2c: a's D2C band (AA0000 at 0.75 on white, BF4040) with b's
# (56B4E9) seen through it is 7097BF, a colour no legend names
# (b's lines on a's bands' edges blend a few pixels where they cross)
blend=$(probe q2d-d2c 0.01 0.65 7097BF 25)
a_d2c=$(probe q2d-d2c 0.01 0.65 BF4040 25)
check "q2d-d2c: no band of b seen through a's ($blend px of their blend, $a_d2c of a's D2C)" \
	[ "$a_d2c" -gt 1000 -a "$blend" -lt $((a_d2c / 100)) ]
shares=$(python3 - "$TMP/two/latency-hist.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(' '.join('%s %.2f' % (c, sum(float(r[c]) for r in rows if r[c]))
               for c in rows[0] if c != 'latency_lo_us'))
PY
)
check "latency-hist: each line in shares of its I/Os, 2000 reads and 3000 writes alike ($shares)" \
	[ "$shares" = "a_read_pct 100.00 b_write_pct 100.00" ]
if [ $have_pdftotext = 1 ]; then
	"$IOW" $two -O io -O q2d-d2c -O latency-hist -o "$TMP/two.pdf"
	pdftotext "$TMP/two.pdf" - > "$TMP/two.txt"
	check "I/O map: the two traces' mix in the legend (a read + b write)" \
		grep -qx "a read + b write" "$TMP/two.txt"
	# two recorded runs on one device: fio-randrw's writes share cells
	# with overlap-fio's reads and its writes, beside each run's own
	# read + write: four mixes drawn, four named
	"$IOW" -t "$TOP/samples/fio-randrw" -t "$TOP/samples/overlap-fio" -O io \
		-o "$TMP/runs.pdf"
	mixes=$(pdftotext "$TMP/runs.pdf" - | grep -c ' + ')
	check "I/O map of two runs: every mix in the legend ($mixes of 4)" \
		[ "$mixes" = 4 ]
	check "latency-hist: the axis says shares ($(grep "I/Os" "$TMP/two.txt" | head -1))" \
		grep -qx "% of each line's I/Os" "$TMP/two.txt"
	check "q2d-d2c: the legend says how b is drawn" \
		grep -q "the others a line at each layer's top" "$TMP/two.txt"
	# Files by bytes: ext4-causes' top file 16 MiB, fio-randrw's (made
	# causes) 7 MiB; both panels' axes to 16 MiB
	for c in 0 1; do
		cp "$TOP/samples/fio-randrw.blktrace.$c" "$TMP/files.blktrace.$c"
	done
	python3 "$TOP/tests/tools/make_causes.py" "$TMP/files" > /dev/null
	"$IOW" -t "$TOP/samples/ext4-causes" -t "$TMP/files" -O top-files \
		-o "$TMP/files.pdf"
	n=$(pdftotext "$TMP/files.pdf" - | grep -cx "16 MiB")
	check "Files by bytes of two traces: one scale, 16 MiB on both axes ($n)" [ "$n" = 2 ]
else
	skip "the overlays' legends and axes: pdftotext not installed"
fi

finish
