#!/bin/sh
# t_cgroup_v1.sh: --by cgroup on cgroup v1's blkio (issue #37): a dd
# writer in a blkio cgroup of its own (v1) beside a direct reader, on
# ext4 on a loop device, recorded with bpf. dd with conv=fsync issues
# its writes itself: the recording gives them to /noisy-PID, as many
# bytes as the kernel's own blkio.throttle.io_service_bytes of that
# cgroup counts; the reader's I/O to /. Buffered writes left to the
# flusher: v1 has no cgroup writeback (the kernel charges them to the
# root blkcg, its counter for the cgroup stays at 0), and the recording
# says the same (the cgroup's bytes are the kernel's). Needs root, a v1
# blkio hierarchy at /sys/fs/cgroup/blkio, BPF, mkfs.ext4.
. "$(dirname "$0")/lib.sh"
BLKIO=/sys/fs/cgroup/blkio
if [ "$(id -u)" != 0 ]; then
	skip "cgroup v1 blkio: not root"; finish; exit $?
elif ! grep -q "^cgroup $BLKIO cgroup .*blkio" /proc/mounts; then
	skip "cgroup v1 blkio: no v1 blkio hierarchy at $BLKIO"; finish; exit $?
fi
tracing_lock
cd "$TMP" || exit 1
ext4_loop "cgroup v1 blkio" 256M -E lazy_itable_init=0,lazy_journal_init=0
CG=$BLKIO/noisy-$$
mkdir "$CG" || { fail "mkdir $CG"; finish; exit 1; }
trap 'rmdir "$CG" 2>/dev/null; lib_cleanup' EXIT
if ! "$IOW" -d "$DEV" -D "$TMP" -t probe --tracer bpf -p true \
	> /dev/null 2> "$TMP/probe.err"; then
	skip "cgroup v1 blkio: the BPF recorder cannot run here: $(tail -n 1 "$TMP/probe.err")"
	finish; exit $?
fi
dd if=/dev/urandom of="$MNT/read.dat" bs=1M count=16 status=none && sync

# the kernel's write bytes of the cgroup on this device
kernel_bytes() {
	awk -v d="$(cat "/sys/class/block/$NAME/dev")" '$1 == d && $2 == "Write" { print $3 }' "$CG/blkio.throttle.io_service_bytes"
}
# the recording's bytes of a tag, in bytes (the summary's tags table)
tag_bytes() { # TRACE TAG
	"$IOW" -t "$TMP/$1" --by cgroup --summary=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
tags = d["traces"][0].get("tags", [])
print(int(sum(t["bytes"] for t in tags if t["label"] == sys.argv[1])))' "$2"
}

for mode in fsync buffered; do
	conv=; [ $mode = fsync ] && conv=conv=fsync
	rm -f "$MNT/w.dat"; sync; echo 3 > /proc/sys/vm/drop_caches
	before=$(kernel_bytes); before=${before:-0}
	cat > "$TMP/job.sh" <<JOB
sh -c 'echo \$\$ > $CG/cgroup.procs; exec dd if=/dev/zero of=$MNT/w.dat bs=1M count=16 $conv status=none' &
dd if=$MNT/read.dat of=/dev/null bs=64k iflag=direct status=none
wait
sync
JOB
	"$IOW" -d "$DEV" -D "$TMP" -t $mode --tracer bpf -p sh "$TMP/job.sh" \
		> /dev/null 2> "$TMP/$mode.err"
	after=$(kernel_bytes); k=$(( ${after:-0} - before ))
	got=$(tag_bytes $mode "/noisy-$$")
	root=$(tag_bytes $mode "/")
	if [ $mode = fsync ]; then
		check "fsync: dd's writes in /noisy-$$ (recorded $got, the kernel's blkio counter $k bytes)" \
			[ "$got" = "$k" -a "$k" -ge 16777216 ]
		check "  the reader's 16 MiB in / ($root)" [ "$root" -ge 16777216 ]
	else
		check "buffered: the cgroup's bytes are the kernel's (recorded $got, the kernel $k; v1 has no cgroup writeback)" \
			[ "$got" = "$k" ]
		check "  the flusher's writes and the reader's in / ($root)" [ "$root" -ge 33554432 ]
		# and the table says so where the root's bytes are read
		"$IOW" -t "$TMP/$mode" --by cgroup --summary > "$TMP/$mode.txt" 2>&1
		check "  the tags' heading says v1 charges writeback to the root" \
			grep -q "^ tags (by bytes; cgroups of the io controller's v1 blkio hierarchy at .*, where buffered writeback is the root's (v1 charges it to no cgroup)" "$TMP/$mode.txt"
	fi
done
finish
