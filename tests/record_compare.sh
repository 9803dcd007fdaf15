#!/bin/sh
# tests/record_compare.sh OUTDIR [RUNS]: the recipe of the
# recordings --compare's tests read (issue #37), made with this
# program's BPF recorder (-p) as root, under the machine's tracing lock:
# ext4 on a loop device with --direct-io=on over tests/tools/slowfs (a
# FUSE file that answers late on demand, tests/lib.sh's slow_loop).
#   alone    fio: 4 KiB direct random reads at 1000 IOPS for 2 s
#   noisy    the same while dd, in a cgroup of its own (noisy), writes
#            32 MiB buffered to a file "noise" and fsyncs (conv=fsync)
#   again    alone again
#   spell    alone, with every request 2 ms late from 0.8 s to 1.2 s
#            (slow_delay 2, then 0)
#   run1..RUNS  alone for 1 s, again and again (RUNS, default 0): the
#            steady job the groups of runs are proved on
# tests/data/compare holds them compressed (zstd -19; the runs without
# their .cause files: the groups read no causes).
# Each is NAME.blktrace.* in OUTDIR.
. "$(dirname "$0")/lib.sh"
OUT=$1 RUNS=${2:-0}
[ -n "$OUT" ] || { echo "usage: $0 OUTDIR [RUNS]" >&2; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
tracing_lock
CG=""
cleanup() { [ -n "$CG" ] && rmdir "$CG" 2>/dev/null; lib_cleanup; }
trap cleanup EXIT
slow_loop 384M || { echo "no slow device: $LOOP_WHY" >&2; exit 1; }
DEV=$SLOW_LOOP MNT="$TMP/mnt"
mkdir -p "$MNT"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" &&
	mount "$DEV" "$MNT" || exit 1
echo "mnt $MNT" >> "$TMP/.lib-loops"
fio --name=prep --filename="$MNT/f" --rw=write --bs=1M --size=64M \
	--direct=1 --output=/dev/null && sync
ROOT=$(cgroup_root)
JOIN=
if [ -n "$ROOT" ] && [ -w "$ROOT" ] && mkdir "$ROOT/noisy" 2>/dev/null; then
	CG="$ROOT/noisy"
	JOIN="echo \$\$ > $CG/cgroup.procs && "
fi
FIO="fio --name=reader --filename=$MNT/f --rw=randread --bs=4k --direct=1 --rate_iops=1000 --runtime=2 --time_based --size=64M --output=/dev/null"
$FIO > /dev/null	# warm: the first run after mkfs is the slow one
cat > "$TMP/noisy.sh" <<EOS
#!/bin/sh
( ${JOIN}sleep 0.3; dd if=/dev/zero of=$MNT/noise bs=1M count=32 conv=fsync status=none ) &
$FIO
wait
EOS
cat > "$TMP/spell.sh" <<EOS
#!/bin/sh
( sleep 0.8; echo 2 > $SLOW_CTL; sleep 0.4; echo 0 > $SLOW_CTL ) &
$FIO
wait
EOS
rec() { # NAME CMD...
	name=$1; shift
	rm -f "$OUT/$name".blktrace.*
	"$IOW" -d "$DEV" -D "$OUT" -t "$name" -p "$@" > /dev/null || exit 1
}
rec alone $FIO
rec noisy sh "$TMP/noisy.sh"
rm -f "$MNT/noise"; sync
rec again $FIO
rec spell sh "$TMP/spell.sh"
i=1
while [ "$i" -le "$RUNS" ]; do
	rec "run$i" ${FIO%--runtime=2*}--runtime=1 --time_based --size=64M --output=/dev/null
	i=$((i + 1))
done
ls -l "$OUT"
