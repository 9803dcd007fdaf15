#!/bin/sh
# tracedat-capture.sh OUT.dat COMMAND...: a trace-cmd trace.dat of the block
# events while COMMAND runs, made with trace-cmd's own tools on kernels
# where `trace-cmd record` cannot run (it stops at "Can't enable ftrace"
# where writes to ftrace_enabled or set_ftrace_filter are refused). The
# events go to a tracefs instance of their own (so iowatcher's ftrace
# recorder, on the top buffer, can run beside it); after COMMAND, tracing
# stops and each CPU's per_cpu/cpuN/trace_pipe_raw is drained to its end
# (read without blocking, so no page is left half read), and
# `trace-cmd restore` writes the file from those pages and a copy of the
# tracefs files that describe them (the block events' formats only, and
# no kallsyms: a 55 KB header, not 7 MB). EVENTS (default "block") names
# the event systems. HOW=extract writes the file with `trace-cmd extract
# -B` instead, the events in a buffer named for the instance. Needs root
# and trace-cmd; leaves no instance, mount or file behind but OUT.dat.
set -u
out=$1; shift
events=${EVENTS:-block}
T=/sys/kernel/tracing M=
[ -e $T/trace_pipe ] || [ ! -e /sys/kernel/debug/tracing/trace_pipe ] ||
	T=/sys/kernel/debug/tracing
if [ ! -e $T/trace_pipe ]; then
	mount -t tracefs nodev $T || exit 1
	M=1
fi
I=$T/instances/iowatcher-tracedat.$$
W=$(mktemp -d) || exit 1
cleanup() {
	[ -d "$I" ] && { echo 0 > "$I/tracing_on"; rmdir "$I"; }
	rm -rf "$W"
	[ -n "$M" ] && umount $T
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir "$I" || exit 1
echo "${BUFFER_KB:-8192}" > "$I/buffer_size_kb"
echo mono > "$I/trace_clock"
for e in $events; do
	echo 1 > "$I/events/$e/enable" || exit 1
done
# buffer heads' events, from the whole machine, are no I/O of a device
if [ -e "$I/events/block/block_dirty_buffer/enable" ]; then
	echo 0 > "$I/events/block/block_dirty_buffer/enable"
	echo 0 > "$I/events/block/block_touch_buffer/enable"
fi
echo 1 > "$I/tracing_on"
"$@"
rc=$?
echo 0 > "$I/tracing_on"
if [ "${HOW:-restore}" = extract ]; then
	# trace-cmd's own reader of an instance: the file holds it as a
	# buffer of that name (and an empty top buffer)
	trace-cmd extract -B "${I##*/}" -o "$out" > "$W/extract.out" 2>&1 ||
		{ cat "$W/extract.out" >&2; exit 1; }
	exit $rc
fi
python3 - "$I" "$W" <<'EOF2' || exit 1
import errno, os, sys
inst, out = sys.argv[1], sys.argv[2]
for d in sorted(os.listdir(inst + "/per_cpu"), key=lambda n: int(n[3:])):
    fd = os.open("%s/per_cpu/%s/trace_pipe_raw" % (inst, d),
                 os.O_RDONLY | os.O_NONBLOCK)
    with open("%s/%s.raw" % (out, d), "wb") as f:
        while True:
            try:
                page = os.read(fd, 4096)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    break
                raise
            if not page:
                break
            f.write(page)
    os.close(fd)
EOF2
# the files that describe the pages: the header page's and event's
# layouts, ftrace's own events, the chosen systems' formats, the pids'
# names, printk's formats
D=$W/tracing
mkdir -p "$D/events"
cp $T/saved_cmdlines $T/printk_formats "$D/"
cp $T/events/header_page $T/events/header_event "$D/events/"
for sys in ftrace $events; do
	sys=${sys%%/*}
	for e in $T/events/$sys/*/; do
		n=$D/events/$sys/$(basename "$e")
		mkdir -p "$n" && cp "$e/format" "$e/id" "$n/" 2>/dev/null
	done
done
trace-cmd restore -c -t "$D" -k /dev/null -o "$W/head.dat" > /dev/null &&
	trace-cmd restore -i "$W/head.dat" -o "$out" \
		$(ls "$W"/cpu*.raw | sort -V) > /dev/null || exit 1
exit $rc
