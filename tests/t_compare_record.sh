#!/bin/sh
# t_compare_record.sh: --compare on real recordings (issue #29's case):
# ext4 on a loop device in /dev/shm, fio's direct 4 KiB random reads at
# 2000 IOPS for 4 s alone (A), then the same beside a buffered dd of
# 128 MiB and sync in a cgroup of the test's (B). The line says why B
# differs, whether or not the mean's change is significant (dd writes in
# a burst of a few of the 40 windows: a block bootstrap cannot be sure of
# one burst): the writes B added (dd's, its file's or their size: mix);
# dd is a contributor, mix; B has more writes; B is not faster. Needs
# root, losetup, mkfs.ext4, fio and a recorder that runs.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1	# pictures drawn without -o land here, not in the checkout

why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null
then why="losetup or mkfs.ext4 missing"
elif ! command -v fio >/dev/null || ! command -v python3 >/dev/null
then why="fio or python3 missing"
elif [ ! -d /dev/shm ]; then why="no /dev/shm"
fi
if [ -n "$why" ]; then
	skip "--compare on recordings: $why"
	finish
	exit $?
fi
if repeat_pass "--compare on recordings (t_compare covers its code)"; then
	finish
	exit $?
fi

tracing_lock
IMG=$(mktemp /dev/shm/iow-compare.XXXXXX) || exit 1
MNT="$TMP/mnt"
DEV="" CG=""
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$IMG"; lib_cleanup
}
trap cleanup EXIT
truncate -s 512M "$IMG"
if ! DEV=$(losetup -f --show "$IMG" 2>"$TMP/err"); then
	DEV=""
	skip "--compare on recordings: no loop device ($(cat "$TMP/err"))"
	finish
	exit $?
fi
mkdir "$MNT"
mkfs.ext4 -q -F "$DEV" && mount "$DEV" "$MNT" || { fail "ext4 on $DEV"; finish; exit 1; }
fio --name=prep --filename="$MNT/f" --rw=write --bs=1M --size=64M \
	--direct=1 --output=/dev/null && sync
ROOT=$(cgroup_root)
JOIN=
if [ -n "$ROOT" ] && [ -w "$ROOT" ] && mkdir "$ROOT/iowcmp.$$" 2>/dev/null
then
	CG="$ROOT/iowcmp.$$"
	JOIN="echo \$\$ > $CG/cgroup.procs && "
fi
FIO="fio --name=reader --filename=$MNT/f --rw=randread --bs=4k --direct=1 --rate_iops=2000 --runtime=4 --time_based --size=64M --output=/dev/null"
cat > "$TMP/noisy.sh" <<EOS
#!/bin/sh
( ${JOIN}sleep 0.5; dd if=/dev/zero of=$MNT/noise bs=1M count=128 status=none; sync ) &
$FIO
wait
EOS
if ! "$IOW" -d "$DEV" -D "$TMP" -t alone -p $FIO > /dev/null 2> "$TMP/rec.err" ||
   ! "$IOW" -d "$DEV" -D "$TMP" -t noisy -p sh "$TMP/noisy.sh" > /dev/null 2>> "$TMP/rec.err"
then
	skip "--compare on recordings: the recording failed: $(tail -n 1 "$TMP/rec.err")"
	finish
	exit $?
fi
"$IOW" -t "$TMP/alone" -t "$TMP/noisy" --compare=json > "$TMP/cmp.json" 2> "$TMP/cmp.err"
check "the reader alone against beside dd: compared ($(head -c 300 "$TMP/cmp.err"))" [ -s "$TMP/cmp.json" ]
summary=$(python3 -c "import json; print(json.load(open('$TMP/cmp.json'))['summary'])")
echo "     $summary"
check "B is not faster" python3 -c "import json,sys; sys.exit(json.load(open('$TMP/cmp.json'))['verdict'] == 'faster')"
check "  its line names the writes B added (mix), not a rate" sh -c "
	echo '$summary' | grep -q 'most\(ly\| of it\): B had more I/Os of \(comm dd\|file $MNT/noise\|size [0-9]* [KM]iB\|class write\)'"
check "  B has more writes" python3 -c "
import json, sys
d = json.load(open('$TMP/cmp.json'))
w = [g for g in d['classes'] if g['class'] == 'write']
sys.exit(not w or not w[0]['ios']['diff'] > 50)"
check "  dd's writes are a contributor, mix" python3 -c "
import json, sys
d = json.load(open('$TMP/cmp.json'))
sys.exit(not any(c['stratum'] == 'comm' and c['value'] == 'dd' and c['kind'] == 'mix' and c['share'] > 0.2 for c in d['contributors']))"
finish
