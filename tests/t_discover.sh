#!/bin/sh
# t_discover.sh: -t DIR finds every kind of input the reader reads, as -t
# FILE reads it (reader/discover.c's table): a directory holding only a
# blktrace per-CPU set, a blkparse -d dump, trace-cmd's trace.dat or perf
# script's text (xz-compressed) gives the summary that -t of the trace
# itself gives, and one line on stderr names what it found and its kind;
# a directory of two kinds (a per-CPU set and a trace.dat) reads each as
# its own trace, as two -t would, and the line names both. --help lists
# the kinds (t_docs checks them against the table and the man page).
# The traces are the shipped samples (samples/README.md): fio-randrw's
# set, its CPU 0 file as a dump (one CPU's records are in time order:
# a dump), tracedat-fio.dat.xz and perf-fio.perf.txt.xz.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples"
cd "$TMP" || exit 1

# one_line FILE TEXT: FILE is the one line TEXT
one_line() {
	[ "$(wc -l < "$1")" = 1 ] && grep -qxF "$2" "$1"
}

# kind DIR WHAT NAME TRACE: -t DIR reads one trace, NAME, as -t TRACE
# does, and says so (WHAT: its kind's words)
kind() {
	d=$1 what=$2 tname=$3 trace=$4
	"$IOW" -t "$trace" --summary > "$d.want" 2> "$d.want.err"
	want_rc=$?
	"$IOW" -t "$d" --summary > "$d.got" 2> "$d.err"
	rc=$?
	if [ $want_rc != 0 ]; then
		fail "$what: -t of the file itself reads it" "$(head -n 2 "$d.want.err")"
		return
	fi
	check "-t DIR holding $what: exit 0, the summary of -t $tname" \
		sh -c "[ $rc = 0 ] && cmp -s '$d.want' '$d.got'"
	check "-t DIR holding $what: one line says so ($(cat "$d.err"))" \
		one_line "$d.err" "iowatcher: $d: 1 trace: $tname ($what$5)"
}

mkdir percpu dump tracedat perftext
cp "$S"/fio-randrw.blktrace.0 "$S"/fio-randrw.blktrace.1 percpu/
kind percpu "blktrace's per-CPU files" fio-randrw percpu/fio-randrw ", 2 CPUs"
cp "$S"/fio-randrw.blktrace.0 dump/cpu0.dump
kind dump "a blkparse -d dump" cpu0.dump dump/cpu0.dump
cp "$S"/perf-fio.perf.txt.xz perftext/
kind perftext "perf script's text" perf-fio.perf.txt perftext/perf-fio.perf.txt.xz
xz -dc "$S"/tracedat-fio.dat.xz > tracedat/run.dat
if "$IOW" -t tracedat/run.dat --summary > /dev/null 2> tracedat.err; then
	kind tracedat "trace-cmd's trace.dat" run.dat tracedat/run.dat

	# two kinds: each its own trace, in the directory's order
	mkdir two
	cp percpu/* tracedat/run.dat two/
	"$IOW" -t two/fio-randrw -t two/run.dat --summary > two.want 2> /dev/null
	"$IOW" -t two --summary > two.got 2> two.err
	rc=$?
	check "-t DIR of two kinds: both traces, as -t of each (exit $rc)" \
		sh -c "[ $rc = 0 ] && cmp -s two.want two.got"
	check "-t DIR of two kinds: the line names both ($(cat two.err))" \
		one_line two.err "iowatcher: two: 2 traces: fio-randrw (blktrace's per-CPU files, 2 CPUs), run.dat (trace-cmd's trace.dat)" two.err
else
	skip "trace.dat: not read by this build ($(head -n 1 tracedat.err))"
fi

"$IOW" --help > help
for w in blktrace dump trace.dat perf-text stdin; do
	check "--help's Inputs name $w" \
		sh -c "sed -n '/^Inputs/,/^Graphs/p' help | grep -q '^  $w '"
done
finish
