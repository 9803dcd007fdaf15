#!/bin/sh
# t_movie.sh: movies of real traces in every container, checked with
# ffprobe (frames, size, duration) and by looking at decoded frames: I/O
# lit where the trace has I/O, nothing lit in the fio sample's idle gap.
# Bad cases: no ffmpeg, an unwritable directory: one line, exit 1, no
# file left.
. "$(dirname "$0")/lib.sh"
if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
	skip "movies: ffmpeg not installed"; finish; exit
fi
PROBE="$TOP/tests/tools/pngprobe"
S="$TOP/samples/fio-randrw"
T="$CENTOS"
probe() { ffprobe -v error -count_frames -select_streams v:0 \
	-show_entries stream=nb_read_frames,width,height -of csv=p=0 "$1"; }

for ext in mp4 webm ogv gif; do
	"$IOW" -t "$S" --movie -w 320 -h 240 --fps 10 --movie-length 2 \
		-o "$TMP/m.$ext" 2> "$TMP/err"
	check "$ext: written" [ -s "$TMP/m.$ext" ]
	check "$ext: 20 frames of 320x240 ($(probe "$TMP/m.$ext"))" \
		[ "$(probe "$TMP/m.$ext")" = "320,240,20" ]
done
# N/s: frames per second of trace (the sample lasts 5.04 s: 21 at 4/s)
"$IOW" -t "$S" --movie -w 320 -h 240 --fps 10 --movie-length 4/s \
	-o "$TMP/n.mp4" 2> "$TMP/err"
check "--movie-length 4/s: 21 frames ($(probe "$TMP/n.mp4"))" \
	[ "$(probe "$TMP/n.mp4")" = "320,240,21" ]
# A 9 ms trace is slowed down to the 10 s minimum, not one frame long.
"$IOW" -t "$TOP/samples/dd-write" --movie -w 320 -h 240 --fps 10 \
	-o "$TMP/short.mp4" 2> "$TMP/err"
check "a 9 ms trace makes a 10 s movie ($(probe "$TMP/short.mp4"))" \
	[ "$(probe "$TMP/short.mp4")" = "320,240,100" ]
dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$TMP/m.mp4")
check "mp4 lasts 2 s ($dur)" python3 -c "import sys; sys.exit(abs($dur - 2) > 0.15)"

# -K keeps every frame; frame 5 (0.5 s into the I/O) shows reads and writes
# on the disc, a frame in the idle gap (2.2-2.8 s of 5) none lit.
"$IOW" -t "$S" --movie -w 640 -h 360 --fps 10 --movie-length 5 \
	-K "$TMP/frames" -o "$TMP/k.mp4" 2> "$TMP/err"
check "-K keeps every frame (50)" [ "$(ls "$TMP/frames" | wc -l)" = 50 ]
disc="0 40 370 360"
lit() { "$PROBE" "$TMP/frames/$1" $disc "$2"; }
check "I/O lit on the disc at 0.5 s (reads)" [ "$(lit frame-000005.png 0072B2)" -gt 0 ]
check "I/O lit on the disc at 0.5 s (writes)" [ "$(lit frame-000005.png D55E00)" -gt 0 ]
gap=$(($(lit frame-000026.png 0072B2) + $(lit frame-000026.png D55E00)))
check "nothing lit in the idle gap at 2.6 s ($gap px)" [ "$gap" = 0 ]
check "rect style renders" "$IOW" -t "$S" --movie=rect -w 320 -h 240 --fps 10 --movie-length 1 -o "$TMP/r.mp4"
ffmpeg -v error -ss 0.9 -i "$TMP/k.mp4" -frames:v 1 "$TMP/decoded.png"
check "a decoded frame shows I/O" [ "$("$PROBE" "$TMP/decoded.png" $disc)" -gt 0 ]

# The small graphs are the stills' plot panels (white plot areas, grid
# lines, tick labels with units, legends), drawn once into the background,
# with the time axes of both one above the other; IOWATCHER_LAYOUT says
# where their plot areas landed (px at the default 1280x720). Frame 10 of
# 50 has the cursor a fifth of the way along both.
IOWATCHER_LAYOUT="$TMP/mlayout" "$IOW" -t "$S" --movie --fps 10 \
	--movie-length 5 -K "$TMP/big" -o "$TMP/big.mp4" 2> "$TMP/err"
area() { awk -v g="$1" '$1 == g { printf "%d %d %d %d", $3, $4, $3 + $5, $4 + $6 }' "$TMP/mlayout"; }
check "both small graphs laid out ($(tr '\n' ';' < "$TMP/mlayout"))" \
	[ -n "$(area tput)" ] && [ -n "$(area queue-depth)" ]
set -- $(area tput); tx0=$1 ty0=$2 tx1=$3 ty1=$4
set -- $(area queue-depth); qx0=$1 qy0=$2 qx1=$3 qy1=$4
check "the time axes line up ($tx0-$tx1, $qx0-$qx1)" \
	[ "$tx0" = "$qx0" ] && [ $((tx1 - qx1)) -le 1 ] && [ $((qx1 - tx1)) -le 1 ]
F10="$TMP/big/frame-000010.png"
px() { "$PROBE" "$F10" "$@"; }
check "throughput: reads in their colour" [ "$(px $tx0 $ty0 $tx1 $ty1 0072B2 12)" -gt 200 ]
check "throughput: writes in their colour" [ "$(px $tx0 $ty0 $tx1 $ty1 D55E00 12)" -gt 200 ]
check "queue depth: a black line" [ "$(px $qx0 $qy0 $qx1 $qy1 000000 12)" -gt 200 ]
plot_w=$(( (tx1 - tx0) * (ty1 - ty0) ))
check "throughput: a white plot area, as the stills ($(px $tx0 $ty0 $tx1 $ty1 FFFFFF 2) of $plot_w px)" \
	[ "$(px $tx0 $ty0 $tx1 $ty1 FFFFFF 2)" -gt $((plot_w / 2)) ]
check "throughput: grid lines, as the stills" [ "$(px $tx0 $ty0 $tx1 $ty1 E5E5E5 3)" -gt 1000 ]
cursor() { # X0 X1 Y0 Y1 PCT: dark pixels in a 5 px strip PCT % along
	x=$(( $1 + ($2 - $1) * $5 / 100 )); px $((x - 2)) $3 $((x + 3)) $4 474747 40; }
check "throughput: the cursor at 1/5 ($(cursor $tx0 $tx1 $ty0 $ty1 20) px)" \
	[ "$(cursor $tx0 $tx1 $ty0 $ty1 20)" -ge $(( (ty1 - ty0) * 9 / 10 )) ]
check "queue depth: the cursor at 1/5 too" \
	[ "$(cursor $qx0 $qx1 $qy0 $qy1 20)" -ge $(( (qy1 - qy0) * 9 / 10 )) ]
check "no cursor elsewhere ($(cursor $tx0 $tx1 $ty0 $ty1 60) px at 3/5)" \
	[ "$(cursor $tx0 $tx1 $ty0 $ty1 60)" -lt $(( (ty1 - ty0) / 4 )) ]

# The rect of a trace of two devices: a band each, one above the other,
# titled with its device and with axes (tick labels left of and below
# each plot area); the fio reads of 7,1 in its band, the kworkers'
# writes in 7,0's, neither in the other's.
rm -f "$TMP/rlayout"
IOWATCHER_LAYOUT="$TMP/rlayout" "$IOW" -t "$TOP/samples/two-devices" --movie=rect \
	--fps 10 --movie-length 3 -K "$TMP/rect" -o "$TMP/rect.mp4" 2> "$TMP/err"
band() { awk -v t="$1" '$1 == "rect" && $9 " " $10 == t { printf "%d %d %d %d", $3, $4, $3 + $5, $4 + $6 }' "$TMP/rlayout"; }
check "rect: a band per device ($(grep '^rect' "$TMP/rlayout" | cut -d' ' -f9- | tr '\n' ';'))" \
	[ -n "$(band 'device 7,0')" ] && [ -n "$(band 'device 7,1')" ]
set -- $(band 'device 7,0'); ax0=$1 ay0=$2 ax1=$3 ay1=$4
set -- $(band 'device 7,1'); bx0=$1 by0=$2 bx1=$3 by1=$4
check "rect: the bands one above the other, apart" [ "${ay1:-0}" -lt "${by0:-0}" ]
LAST="$TMP/rect/frame-000030.png"
check "rect: 7,1's reads in its band ($("$PROBE" "$LAST" $bx0 $by0 $bx1 $by1 0072B2) px)" \
	[ "$("$PROBE" "$LAST" $bx0 $by0 $bx1 $by1 0072B2)" -gt 500 ]
check "rect: 7,0's writes in its band ($("$PROBE" "$LAST" $ax0 $ay0 $ax1 $ay1 D55E00) px)" \
	[ "$("$PROBE" "$LAST" $ax0 $ay0 $ax1 $ay1 D55E00)" -gt 200 ]
check "rect: no writes in 7,1's band" [ "$("$PROBE" "$LAST" $bx0 $by0 $bx1 $by1 D55E00)" = 0 ]
# tick labels: dark text in the 40 px left of a plot area and below it
check "rect: offsets labelled beside each band" \
	[ "$("$PROBE" "$LAST" $((bx0 - 40)) $by0 $((bx0 - 6)) $by1 333333 60)" -gt 40 ]
check "rect: times labelled under each band" \
	[ "$("$PROBE" "$LAST" $bx0 $((by1 + 6)) $bx1 $((by1 + 20)) 333333 60)" -gt 40 ]

# A GIF has one palette made before the first frame: its frame 5 shows the
# read and write colours, and ffmpeg holds no frames back (palettegen kept
# them all: 400 frames of 1280x720 took 1.5 GB).
"$IOW" -t "$S" --movie -w 640 -h 360 --fps 10 --movie-length 5 \
	-o "$TMP/k.gif" 2> "$TMP/err"
ffmpeg -v error -i "$TMP/k.gif" -vf "select=eq(n\,5)" -frames:v 1 "$TMP/gif5.png"
check "GIF frame 5: reads in their colour" [ "$(lit ../gif5.png 0072B2)" -gt 0 ]
check "GIF frame 5: writes in their colour" [ "$(lit ../gif5.png D55E00)" -gt 0 ]
# the memory of a long GIF: the program's allocator's, so in the first
# pass only (the sanitizer's adds its own; the GIFs above run its code)
if repeat_pass "the long GIF's memory"; then
	:
elif [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$TMP/rss" "$IOW" -t "$S" --movie --fps 20 \
		--movie-length 20 -o "$TMP/big.gif" 2> "$TMP/err"
	rss=$(tail -1 "$TMP/rss")
	check "GIF of 400 frames of 1280x720: under 400 MB (${rss} KB)" \
		[ "$rss" -lt 409600 ]
else
	skip "GIF memory: /usr/bin/time not installed"
fi

# Bad cases.
mkdir -p "$TMP/nobin"
for tool in sh cat dirname mktemp rm; do ln -sf "$(command -v $tool)" "$TMP/nobin/"; done
PATH="$TMP/nobin" "$IOW" -t "$S" --movie -w 320 -h 240 -o "$TMP/none.mp4" 2> "$TMP/err"; rc=$?
check "no ffmpeg: exit 1, one line ($(cat "$TMP/err"))" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ]"
check "no ffmpeg: no file left" [ -z "$(ls "$TMP" | grep none)" ]
"$IOW" -t "$S" --movie -w 320 -h 240 -o "$TMP/no/such/dir/x.mp4" 2> "$TMP/err"; rc=$?
check "unwritable directory: exit 1, one line" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/err') = 1 ]"
"$IOW" -t "$S" --movie -w 321 -h 240 -o "$TMP/odd.mp4" 2> /dev/null; rc=$?
check "odd width: usage error" [ $rc = 2 ]
"$IOW" -t "$S" --movie --movie-length 0/s -o "$TMP/z.mp4" 2> /dev/null; rc=$?
check "--movie-length 0/s: usage error" [ $rc = 2 ]
"$IOW" -t "$S" --movie --movie-length 1e9 -o "$TMP/long.mp4" 2> "$TMP/err"; rc=$?
check "a movie of 2e10 frames: exit 1, one line ($(cat "$TMP/err"))" \
	[ $rc = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ]
check "a movie too long: no file left" [ -z "$(ls "$TMP" | grep long)" ]
"$IOW" -t "$S" --movie -o "$TMP/x.avi" 2> /dev/null; rc=$?
check "unknown container: usage error" [ $rc = 2 ]
finish
