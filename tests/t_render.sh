#!/bin/sh
# t_render.sh: pictures of real traces checked as a user would look at
# them: every format opens, the PNG has the expected size, the plot areas
# hold series colours where the trace has I/O and none in an idle gap;
# bad output names and paths fail cleanly, leaving no file behind.
. "$(dirname "$0")/lib.sh"
T="$CENTOS"
PROBE="$TOP/tests/tools/pngprobe"

for fmt in svg png pdf; do
	"$IOW" -t "$T" -o "$TMP/all.$fmt" 2> "$TMP/err"
	check "renders $fmt" [ -s "$TMP/all.$fmt" ]
done
if command -v xmllint >/dev/null; then
	check "SVG is valid XML" xmllint --noout "$TMP/all.svg"
else
	check "SVG is XML" grep -q "<svg" "$TMP/all.svg"
fi
size=$(wc -c < "$TMP/all.svg")
check "SVG is of modest size ($size bytes < 2 MB)" [ "$size" -lt 2000000 ]
if command -v pdfinfo >/dev/null; then
	check "PDF has a page" sh -c "pdfinfo '$TMP/all.pdf' | grep -q '^Pages: *1'"
else
	check "PDF header" sh -c "head -c 5 '$TMP/all.pdf' | grep -q '%PDF-'"
fi

# Size: -w/-h per graph, -c columns.
"$IOW" -t "$T" -O tput -O iops -w 500 -h 200 -c 2 -o "$TMP/s.png"
check "PNG is columns x width wide, rows x height + title tall" \
	[ "$("$PROBE" "$TMP/s.png")" = "1000 250" ]

# Where the data has I/O, the series colour shows; in the idle gap from
# 45 s to 68 s it does not. Plot areas come from IOWATCHER_LAYOUT.
rm -f "$TMP/layout"
IOWATCHER_LAYOUT="$TMP/layout" "$IOW" -t "$T" -O io -O tput -o "$TMP/gap.png"
# columns COLOUR GRAPH T0 T1: pixels of COLOUR in GRAPH's area from T0 to T1 s
columns() {
	awk -v g="$2" -v t0="$3" -v t1="$4" '$1 == g {
		x0 = $3 + (t0 - $7) / ($8 - $7) * $5
		x1 = $3 + (t1 - $7) / ($8 - $7) * $5
		printf "%d %d %d %d\n", x0, $4, x1, $4 + $6 }' "$TMP/layout" |
	{ read a b c d; "$PROBE" "$TMP/gap.png" "$a" "$b" "$c" "$d" "$1"; }
}
WRITE=D55E00
check "io: writes drawn around 5 s" [ "$(columns $WRITE io 4 6)" -gt 0 ]
check "io: nothing in the idle gap 45-68 s" [ "$(columns $WRITE io 46 67)" = 0 ]
# 799 events over 110 s: cells would be faint specks; they are dots in
# the write colour itself (faint cells: 0 such pixels at 39-41 s)
n=$(columns $WRITE io 39 41)
check "io: a sparse trace's I/O as dots to see ($n px at 39-41 s)" [ "$n" -ge 60 ]
check "tput: writes drawn around 40 s" [ "$(columns $WRITE tput 39 41)" -gt 0 ]
check "tput: nothing above the baseline in 46-67 s" [ "$(awk '$1 == "tput" { printf "%d %d %d %d\n", $3 + (46 - $7) / ($8 - $7) * $5, $4, $3 + (67 - $7) / ($8 - $7) * $5, $4 + $6 - 3 }' "$TMP/layout" | { read a b c d; "$PROBE" "$TMP/gap.png" "$a" "$b" "$c" "$d" "$WRITE"; })" = 0 ]
READ=0072B2
check "no read colour in a write-only trace" [ "$(columns $READ io 0 110)" = 0 ]

# A lone trace's queue depth is black: blue would read as its reads.
rm -f "$TMP/qlayout"
IOWATCHER_LAYOUT="$TMP/qlayout" "$IOW" -t "$TOP/samples/fio-randrw" -O queue-depth -o "$TMP/qd.png"
qd() { awk '{ printf "%d %d %d %d\n", $3, $4, $3 + $5, $4 + $6 }' "$TMP/qlayout" |
	{ read a b c d; "$PROBE" "$TMP/qd.png" "$a" "$b" "$c" "$d" "$1"; }; }
check "queue depth of one trace: black line ($(qd 000000) px), no read blue ($(qd 0072B2) px)" \
	[ "$(qd 000000)" -gt 500 -a "$(qd 0072B2)" = 0 ]

# Samples recorded on this machine, when present, render in every graph.
for set in "$TOP"/samples/*.blktrace.0; do
	[ -f "$set" ] || continue
	base="$TOP/samples/$(basename "$set" .blktrace.0)"
	all=$("$IOW" --help | sed -n '/^Graphs/,/^Outputs/p' | sed -n 's/^  \([a-z0-9-]*\) .*/-O \1/p' | tr '\n' ' ')
	# io-flame draws stacks: asked of a trace without them, it says so
	# and nothing is drawn (t_causes)
	grep -q '^kstack' "$base.cause" 2>/dev/null ||
		all=$(echo "$all" | sed 's/-O io-flame //')
	check "$(basename "$base"): every graph renders" "$IOW" -t "$base" $all -o "$TMP/sample.png"
done

# Several traces overlaid, named in a legend.
"$IOW" -t "$T" -t "$T" -l one -l two -O tput -o "$TMP/two.png"
check "two traces overlaid: each in its colour" [ "$("$PROBE" "$TMP/two.png" 0 0 2000 2000 0072B2)" -gt 0 -a "$("$PROBE" "$TMP/two.png" 0 0 2000 2000 D55E00)" -gt 0 ]

# area_px PNG LAYOUT GRAPH COLOUR: pixels of COLOUR in GRAPH's plot area
# (its first panel), a few px of frame around it included
area_px() {
	awk -v g="$3" '$1 == g && $2 == 0 { printf "%d %d %d %d\n", $3 - 3, $4 - 3, $3 + $5 + 3, $4 + $6 + 3; exit }' "$2" |
	{ read a b c d; "$PROBE" "$1" "$a" "$b" "$c" "$d" "$4"; }
}
# Two different traces on one device: each in its own colour, whichever
# comes first (the first one's I/O map used to be dropped unseen).
overlay() {
	rm -f "$TMP/olayout"
	IOWATCHER_LAYOUT="$TMP/olayout" "$IOW" -t "$TOP/samples/$1" -l first \
		-t "$TOP/samples/$2" -l second -O io -o "$TMP/overlay.png"
}
overlay fio-randrw dd-write
r=$(area_px "$TMP/overlay.png" "$TMP/olayout" io 8CBFDC)
w=$(area_px "$TMP/overlay.png" "$TMP/olayout" io EBB388)
check "overlay fio-randrw, dd-write: first's reads ($r px), second's writes ($w px)" \
	[ "$r" -gt 500 -a "$w" -gt 40 ]
overlay dd-write fio-randrw
w=$(area_px "$TMP/overlay.png" "$TMP/olayout" io 88BDDB)
r=$(area_px "$TMP/overlay.png" "$TMP/olayout" io ECB68C)
check "overlay dd-write, fio-randrw: first's writes ($w px), second's reads ($r px)" \
	[ "$w" -gt 40 -a "$r" -gt 500 ]

# Bad output: one line, exit 2 for usage, 1 at run time; nothing left.
"$IOW" -t "$T" -o "$TMP/out.gif" 2> "$TMP/err"; rc=$?
check "unknown extension: exit 2" [ $rc = 2 ]
check "unknown extension: says so" grep -q "out.gif" "$TMP/err"
"$IOW" -t "$T" -O nosuchgraph -o "$TMP/x.png" 2> "$TMP/err"; rc=$?
check "unknown graph: exit 2" [ $rc = 2 ]
"$IOW" -t "$T" -o "$TMP/no/such/dir/x.png" 2> "$TMP/err"; rc=$?
check "unwritable path: exit 1 with one line" [ $rc = 1 -a "$(wc -l < "$TMP/err")" = 1 ]
mkdir -p "$TMP/ro"; chmod 555 "$TMP/ro"
if [ "$(id -u)" = 0 ] && ! command -v capsh >/dev/null; then
	: # root ignores directory permissions; the missing-dir case covers it
fi
"$IOW" -t "$T" -o "$TMP/ro/x.png" 2> /dev/null
check "nothing half-written left in the output directory" [ -z "$(ls "$TMP/ro" | grep -v '^x.png$')" ]
"$IOW" -t "$T" -x 5:1 -o "$TMP/bad.png" 2> "$TMP/err"; rc=$?
check "bad range: exit 2" [ $rc = 2 ]
check "no output for a usage error" [ ! -e "$TMP/bad.png" ]
# The offset heat map of two traces on one device: a panel each (heat
# maps cannot overlay; it used to draw the first trace only).
IOWATCHER_LAYOUT="$TMP/off.layout" "$IOW" -t "$TOP/samples/fio-randrw" -l before \
	-t "$TOP/samples/dd-write" -l after -O offset-heatmap -o "$TMP/off.png" \
	> /dev/null 2>&1
check "offset heat map: a panel per trace of a device" \
	sh -c "grep -q 'device 7,1, before\$' '$TMP/off.layout' &&
	       grep -q 'device 7,1, after\$' '$TMP/off.layout'"
# no -o: the picture is named after the trace, so two traces drawn in
# one directory keep both pictures; one drawn again says it replaced it
mkdir "$TMP/here"
(cd "$TMP/here" && "$IOW" -t "$TOP/samples/dd-write" 2> ../a.err &&
	"$IOW" -t "$TOP/samples/split-dd.blktrace.0" 2> ../b.err)
check "no -o: -t dd-write draws dd-write.svg, -t split-dd.blktrace.0 split-dd.svg, no trace.svg ($(ls "$TMP/here" | tr '\n' ' '))" \
	sh -c "[ -s '$TMP/here/dd-write.svg' ] && [ -s '$TMP/here/split-dd.svg' ] &&
	       [ ! -e '$TMP/here/trace.svg' ] && [ ! -s '$TMP/a.err' ] && [ ! -s '$TMP/b.err' ]"
(cd "$TMP/here" && "$IOW" -t "$TOP/samples/dd-write" -t "$TOP/samples/split-dd" 2> ../ab.err)
check "no -o, two traces: dd-write+split-dd.svg" [ -s "$TMP/here/dd-write+split-dd.svg" ]
(cd "$TMP/here" && "$IOW" -t "$TOP/samples/dd-write" 2> ../again.err); rc=$?
check "no -o, drawn again: replaced, and said in one line ($(cat "$TMP/again.err"))" \
	sh -c "[ $rc = 0 ] && [ \"\$(cat '$TMP/again.err')\" = 'iowatcher: dd-write.svg replaced: an earlier run had drawn it (-o FILE names the picture)' ]"
(cd "$TMP/here" && "$IOW" -t "$TOP/samples/dd-write" -o dd-write.svg 2> ../named.err)
check "-o names the picture: replaced as asked, nothing said" [ ! -s "$TMP/named.err" ]

# a band of one point (an mpstat of one sample: ext4-causes ran 0.9 s)
# is a thin bar, as a line's lone point is a dot; it was not drawn
"$IOW" -t "$TOP/samples/ext4-causes" -O cpu -o "$TMP/cpu1.png" 2> /dev/null
px=$("$PROBE" "$TMP/cpu1.png" 60 70 740 295)
check "cpu of one mpstat sample: its stack drawn ($px coloured px)" [ "${px:-0}" -gt 100 ]

# -P: tags never take reads' blue or writes' vermilion (palette 0 and 1):
# the top writer was drawn blue beside a reader in vermilion
"$IOW" -t "$TOP/samples/ext4-causes" -P -o "$TMP/p.html" 2> /dev/null
check "-P: no tag coloured as reads or writes are" python3 -c "
import json, re, sys
page = open('$TMP/p.html').read()
colours = [int(c) for c in re.findall(r'\"color\":(-?\d+)', page)]
sys.exit(0 if colours and not set(colours) & {0, 1} else 1)"

finish
