#!/bin/sh
# t_cli.sh: the command line as a newcomer meets it, no root needed: -h
# alone is the help; every option error names the option as typed (short,
# long, abbreviated, inside a group) in plain text; graphs too small to
# draw are refused with the minimum; -p refuses words after a quoted
# workload before anything is recorded; --help's headings hold their
# options; and the movie, output-format and tagger mistakes say what to
# type instead. Messages are checked by their exact text.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples/dd-write"
cd "$TMP" || exit 1

# says NAME RC TEXT ARGS...: exit status RC and TEXT as stderr's first
# line, and nothing written here (no trace.svg, no recording)
says() {
	name=$1 rc=$2 text=$3; shift 3
	"$IOW" "$@" > "$TMP/out" 2> "$TMP/err"; got=$?
	first=$(head -n 1 "$TMP/err")
	left=$(ls -A "$TMP" | grep -v -x -e out -e err)
	if [ $got = "$rc" ] && [ "$first" = "$text" ] && [ -z "$left" ]; then
		pass "$name"
	else
		fail "$name" "exit $got, '$first'${left:+, left $left}"
	fi
	rm -rf "$TMP"/* 2>/dev/null
}

# ---- -h ----
"$IOW" -h > "$TMP/h" 2> "$TMP/err"; rc=$?
"$IOW" --help > "$TMP/help"
check "-h alone prints the help (exit $rc)" \
	sh -c "[ $rc = 0 ] && [ ! -s '$TMP/err' ] && cmp -s '$TMP/h' '$TMP/help'"
rm -f "$TMP/h" "$TMP/help"
says "-h with other options is the height: its missing argument" 2 \
	"iowatcher: -h needs an argument (-h is the graph height; the help is --help)" \
	-t "$S" -h

# ---- option errors, named as typed ----
says "-m: unknown, named as typed" 2 \
	"iowatcher: -m: unknown option (a movie is --movie)" -m
says "-m inside a group (-Pm)" 2 \
	"iowatcher: -m: unknown option (a movie is --movie)" -t "$S" -Pm
says "-Z: unknown" 2 "iowatcher: -Z: unknown option" -t "$S" -Z
says "--frobnicate=1: unknown, without its value" 2 \
	"iowatcher: --frobnicate: unknown option" -t "$S" --frobnicate=1
says "--sumary: a long option one letter off says which was meant" 2 \
	"iowatcher: --sumary: unknown option (did you mean --summary?)" -t "$S" --sumary
says "--summray=json: two letters swapped, without its value" 2 \
	"iowatcher: --summray: unknown option (did you mean --summary?)" -t "$S" --summray=json
says "--nocauses: a dash left out" 2 \
	"iowatcher: --nocauses: unknown option (did you mean --no-causes?)" -t "$S" --nocauses
says "-t without its argument" 2 "iowatcher: -t needs an argument" -t
says "--movie-length without its argument" 2 \
	"iowatcher: --movie-length needs an argument" -t "$S" --movie-length
says "--trace without its argument, named long" 2 \
	"iowatcher: --trace needs an argument" --trace
says "--mo: ambiguous, with the candidates" 2 \
	"iowatcher: --mo: ambiguous, it could be --movie, --movie-length" -t "$S" --mo
says "--help=x: takes no argument" 2 "iowatcher: --help takes no argument" --help=x
says "a value error names the long option as typed" 2 \
	"iowatcher: --columns 0: a number of columns from 1 to 16" -t "$S" --columns 0
says "an abbreviated long option, as typed" 2 \
	"iowatcher: --act Z: the action is Q, D or C" -t "$S" --act Z

# ---- sizes too small to draw ----
says "-w 10: refused, naming the minimum" 2 \
	"iowatcher: -w 10: a width in pixels from 200 (the narrowest graph that can be drawn) to 20000" \
	-t "$S" -w 10 -o x.svg
says "--width 199, as typed" 2 \
	"iowatcher: --width 199: a width in pixels from 200 (the narrowest graph that can be drawn) to 20000" \
	-t "$S" --width 199 -o x.svg
says "-h 100: refused, naming the minimum" 2 \
	"iowatcher: -h 100: a height in pixels from 150 (the lowest graph that can be drawn) to 20000" \
	-t "$S" -h 100 -o x.svg
"$IOW" -t "$S" -w 200 -h 150 -O tput -o "$TMP/min.png"; rc=$?
check "the smallest size draws (exit $rc)" [ $rc = 0 -a -s "$TMP/min.png" ]
check "  and shows the writes" [ "$("$TOP/tests/tools/pngprobe" "$TMP/min.png" 0 0 200 200 D55E00)" -gt 0 ]
rm -f "$TMP/min.png"

# ---- -p takes the rest of the command line ----
says "-p \"CMD\" followed by options: refused before recording" 2 \
	"iowatcher: -p takes the rest of the command line, so '-o' cannot follow the quoted workload: put iowatcher's options before -p" \
	-d /dev/null -D "$TMP" -t rec -p "dd if=/dev/zero of=/dev/null count=1" -o a.png --summary
says "-p \"CMD\" followed by a word" 2 \
	"iowatcher: -p takes the rest of the command line, so 'more' cannot follow the quoted workload: put iowatcher's options before -p" \
	-d /dev/null -D "$TMP" -t rec -p "sleep 0" more

# ---- -t naming a trace that exists, with -d: read it, never record ----
# (beside $TMP: says() wants $TMP empty)
HAVE="$TMP.have"
mkdir "$HAVE"
cp "$TOP"/samples/dd-write.blktrace.* "$HAVE/"
cp "$TOP"/samples/dd-write.blktrace.0 "$HAVE/one.dump"
for t in dd-write one.dump; do
	says "-t $t (a trace) with -d: refused, saying what to type" 2 \
		"iowatcher: -t $t is a trace already, and -d /dev/null would record a new one: to read only that device's I/O of the trace, give -d MAJ,MIN; to record, give a new name with -t (or none)" \
		-t "$t" -d /dev/null -D "$HAVE" --summary
done
check "  nothing written beside the trace" [ "$(ls "$HAVE" | wc -l)" = 3 ]
rm -rf "$HAVE"

# ---- --help's headings ----
"$IOW" --help > "$TMP/help"
# under HEADING OPTION: OPTION's line comes after HEADING and before the
# next heading (a line that starts with a letter)
under() {
	awk -v h="$1" -v o="$2" '/^[A-Z]/ { sect = $0 } index($0, o) && $1 ~ /^-/ { print sect; exit }' "$TMP/help" |
		grep -q "^$1"
}
for o in "-P, --per-process" "--merge-comm" "-T, --tagger" "--tagger-timeout"; do
	check "--help: $o under Tagging" under Tagging "$o"
done
check "--help: --help under Other" under Other "--help"
check "--help: -w names its minimum" grep -q -- "-w, --width PX .*at least 200" "$TMP/help"
check "--help: .ogg is a movie" grep -q "\.ogg" "$TMP/help"
rm -f "$TMP/help"

# a choice given twice with two values: refused (the last was kept silently)
says "--summary --summary=json: refused, naming both" 2 \
	"iowatcher: --summary given twice, as text and as json: give it once" \
	-t "$S" --summary --summary=json
"$IOW" -t "$S" --summary --summary > "$TMP/out" 2> "$TMP/err"
check "--summary twice, the same: as once" sh -c "[ $? = 0 ] && [ ! -s '$TMP/err' ] && grep -q 'events' '$TMP/out'"
rm -f "$TMP/out" "$TMP/err"

# ---- movies, output names, taggers ----
says "--movie without -o names no file the user never typed" 2 \
	"iowatcher: --movie needs -o FILE (.mp4, .webm, .ogv, .ogg or .gif)" -t "$S" --movie
says "--movie -o x.mkv lists .ogg" 2 \
	"iowatcher: x.mkv: a movie is .mp4, .webm, .ogv, .ogg or .gif" -t "$S" --movie -o x.mkv
says "-o out.mp4 without --movie: add --movie" 2 \
	"iowatcher: out.mp4: a movie's name: add --movie (a picture is .svg, .png or .pdf)" -t "$S" -o out.mp4
says "-o out.OGG without --movie: add --movie" 2 \
	"iowatcher: out.OGG: a movie's name: add --movie (a picture is .svg, .png or .pdf)" -t "$S" -o out.OGG
says "-o out.txt: every output's extensions, from the table" 2 \
	"iowatcher: out.txt: unknown output format (the name must end in .svg, .png or .pdf for a picture, .mp4, .webm, .ogv, .ogg or .gif for a movie (with --movie), .html or .htm for the report, .pftrace or .perfetto-trace for Perfetto, or .jsonl for the per-device log)" -t "$S" -o out.txt
says "-T \"My run\" (the original's title): says where the title is" 1 \
	"iowatcher: tagger 'My': command not found (not a shipped tagger, not on PATH; the title is --title)" \
	-t "$S" -T "My run" -o x.png
finish
