# tests/lib.sh: helpers for shell tests. Source it, call pass/fail/skip
# per case, end with finish (prints "N passed, N failed[, N skipped]").
# Paths: $TOP is the checkout, $BUILD the build under test ($IOW_BUILD,
# relative to $TOP or absolute; default the checkout), $IOW its binary,
# $CENTOS the CentOS 7 sample (samples/centos7-sda), $TMP a scratch
# directory removed at exit. Nothing is read from outside the checkout.
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "${IOW_BUILD:-.}" in
/*) BUILD=$IOW_BUILD;;
*) BUILD="$TOP/${IOW_BUILD:-.}";;
esac
IOW="$BUILD/iowatcher"
CENTOS="$TOP/samples/centos7-sda"
TMP=$(mktemp -d)
# python3: Debian's (/usr/bin/python3, which scripts/install-deps gives
# the packages the tests need) ahead of any other on PATH. A version
# manager's shim (pyenv's is a bash script that runs pyenv) costs about
# half a second of CPU a call, and the suite makes hundreds; its
# interpreter lacks python3-pandas. tests/run.sh makes the directory once
# for the suite ($IOW_PYBIN); a test run alone makes its own.
# (outside $TMP, which some tests check holds only what they made).
LIB_PYBIN=
if [ -z "${IOW_PYBIN:-}" ] && [ -x /usr/bin/python3 ] &&
   [ "$(command -v python3)" != /usr/bin/python3 ]; then
	LIB_PYBIN=$(mktemp -d) && IOW_PYBIN=$LIB_PYBIN &&
		ln -s /usr/bin/python3 "$IOW_PYBIN/python3"
fi
[ -n "${IOW_PYBIN:-}" ] && PATH="$IOW_PYBIN:$PATH" && export PATH
# lib_cleanup: what every test does last, also from a trap of its own:
# unmounts, detaches and removes what ext4_loop and loop_device made and
# what tracefs_dir mounted (the machine as the test found it), then
# removes $TMP.
lib_cleanup() {
	# the file systems and loop devices of ext4_loop and loop_device,
	# the latest first
	if [ -f "$TMP/.lib-loops" ]; then
		tac "$TMP/.lib-loops" | while read -r kind what; do
			case $kind in
			mnt) mountpoint -q "$what" && umount "$what";;
			dev) losetup -d "$what";;
			img) rm -f "$what";;
			esac
		done
	fi
	if [ -f "$TMP/.lib-mounted" ]; then
		while read -r m; do umount "$m" 2>/dev/null; done \
			< "$TMP/.lib-mounted"
	fi
	rm -rf "$TMP"
	if [ -n "$LIB_PYBIN" ]; then rm -rf "$LIB_PYBIN"; fi
}
trap lib_cleanup EXIT
# a test killed (Ctrl-C, the suite's runner, a time limit) cleans up too:
# a shell that dies of a signal runs no EXIT trap, one that exits does
# (a killed test once left a FUSE mount of slow_loop behind)
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
n_pass=0; n_fail=0; n_skip=0

# tc ARG...: trace-cmd, and tracefs put back as it was: trace-cmd (its
# libtracefs) mounts tracefs where it is not, even to convert a file
tc() {
	tc_was=$(awk '$3 == "tracefs"' /proc/self/mounts)
	trace-cmd "$@"
	tc_rc=$?
	[ -n "$tc_was" ] ||
		awk '$3 == "tracefs" { print $2 }' /proc/self/mounts |
			while read -r m; do umount "$m"; done
	return $tc_rc
}
pass() { n_pass=$((n_pass + 1)); echo "ok   $1"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $1${2:+: $2}"; }
skip() { n_skip=$((n_skip + 1)); echo "skipped: $1"; }
# check NAME COMMAND...: passes when the command succeeds
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
finish() {
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" = 0 ]
}

# repeat_pass WHAT: true in a pass that repeats the suite against another
# build (tests/run.sh's IOW_REPEAT), where WHAT is left out; says so.
repeat_pass() {
	[ "${IOW_REPEAT:-0}" = 1 ] || return 1
	echo "   (repeat pass: $1 in the first pass only)"
}

# shots_dir: where the browser tests (t_html, t_compare) save their
# screenshots for a person to look at: $IOW_SHOTS, else BUILD/test-shots
# when a test runs alone; in the suite's run (tests/run.sh sets
# IOW_SUITE=1) none unless IOW_SHOTS names a directory: no check reads
# them, and they were a quarter of t_html's browser time (alone, load
# ~1: 37.8 s with, 28.4 s without, the same 118 checks passed).
shots_dir() {
	if [ -n "${IOW_SHOTS:-}" ]; then echo "$IOW_SHOTS"
	elif [ "${IOW_SUITE:-0}" != 1 ]; then echo "$BUILD/test-shots"
	fi
}

# ---- recording: the kernel's tracing state ----
# tracefs_dir: where tracefs is (with trace_pipe), or nothing. As root,
# where it is not mounted yet (a fresh machine), it mounts it, as the
# program does when it records, and lib_cleanup unmounts it at exit.
tracefs_dir() {
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/trace_pipe" ] && { echo "$d"; return; }
	done
	[ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] || return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 0
	echo /sys/kernel/tracing >> "$TMP/.lib-mounted"
	[ -e /sys/kernel/tracing/trace_pipe ] && echo /sys/kernel/tracing
}
# tracing_lock: waits for the machine's kernel tracing to be ours alone.
# The blk tracer and a device's trace/enable are global: two test runs
# at once (two checkouts, two builds) would find each other's tracer on
# and fail as "busy". Held until the test exits.
tracing_lock() {
	exec 9> "${IOW_TRACING_LOCK:-/tmp/iowatcher-tracing.lock}"
	flock 9 2>/dev/null || true
}
# tracing_state: what a recording must leave as it found it ($T: tracefs,
# $ENABLE: the traced device's trace/enable); BEFORE=$(tracing_state)
# before the first recording
tracing_state() {
	printf '%s|%s|%s|%s|%s|blk_cgroup %s\n' "$(cat "$T/current_tracer")" \
		"$(grep -xE 'bin|nobin' "$T/trace_options")" \
		"$(cat "$T/trace_clock")" "$(cat "$T/tracing_on")" \
		"$(cat "$ENABLE")" "$(cat "$T/options/blk_cgroup" 2>/dev/null)"
}
# state_restored: the state is $BEFORE again, the device's tracing off
state_restored() {
	now=$(tracing_state)
	[ "$now" = "$BEFORE" ] && [ "$(cat "$ENABLE")" = 0 ] && return 0
	echo "     tracing state: before '$BEFORE', now '$now'"
	return 1
}

# cgroup_root: the io controller's hierarchy (v1's blkio, else cgroup2's
# where its children have io), as the recorders name cgroups; or nothing
cgroup_root() {
	awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup" &&
		($(i + 3) ~ /(^|,)blkio(,|$)/)) { print $5; exit } }' \
		/proc/self/mountinfo | grep . && return
	v2=$(awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup2") {
		print $5; exit } }' /proc/self/mountinfo)
	[ -n "$v2" ] && grep -qw io "$v2/cgroup.subtree_control" 2>/dev/null &&
		echo "$v2"
}

# ---- a device to record on ----
# loop_device SIZE: a loop device on a file of SIZE (truncate's) in
# /dev/shm; its path in $LOOP. Returns 1 with the reason in $LOOP_WHY
# where it cannot. lib_cleanup detaches it and removes the file.
loop_device() {
	LOOP="" LOOP_WHY=""
	if [ "$(id -u)" != 0 ]; then LOOP_WHY="not root"; return 1; fi
	if ! command -v losetup >/dev/null; then LOOP_WHY="no losetup"; return 1; fi
	if [ ! -d /dev/shm ]; then LOOP_WHY="no /dev/shm"; return 1; fi
	img=$(mktemp /dev/shm/iow-test.XXXXXX) || { LOOP_WHY="no file in /dev/shm"; return 1; }
	echo "img $img" >> "$TMP/.lib-loops"
	truncate -s "$1" "$img"
	if ! LOOP=$(losetup -f --show "$img" 2>"$TMP/.lib-err"); then
		LOOP="" LOOP_WHY="no loop device ($(cat "$TMP/.lib-err"))"
		return 1
	fi
	echo "dev $LOOP" >> "$TMP/.lib-loops"
}
# slow_loop SIZE: a slow device on demand: a loop device (--direct-io=on)
# on the file "disk" of tests/tools/slowfs, a FUSE file system over a
# file of SIZE in /dev/shm that answers late when told (slow_delay).
# Its path in $SLOW_LOOP; returns 1 with the reason in $LOOP_WHY where it
# cannot (not root, no FUSE, slowfs built without libfuse3). lib_cleanup
# detaches the device, unmounts the file system and removes the file.
slow_loop() {
	SLOW_LOOP="" LOOP_WHY=""
	slowfs="$TOP/tests/tools/slowfs"
	[ -x "$slowfs" ] || slowfs="$BUILD/tests/tools/slowfs"
	if [ "$(id -u)" != 0 ]; then LOOP_WHY="not root"; return 1; fi
	if [ ! -x "$slowfs" ]; then LOOP_WHY="no tests/tools/slowfs (make)"; return 1; fi
	if [ ! -e /dev/fuse ]; then LOOP_WHY="no /dev/fuse"; return 1; fi
	img=$(mktemp /dev/shm/iow-slow.XXXXXX) || { LOOP_WHY="no file in /dev/shm"; return 1; }
	echo "img $img" >> "$TMP/.lib-loops"
	truncate -s "$1" "$img"
	SLOW_MNT="$TMP/slowfs"
	mkdir -p "$SLOW_MNT"
	# the plain build's slowfs, also in the sanitizer pass: a test tool,
	# not the program under test
	if ! ASAN_OPTIONS=detect_leaks=0 "$slowfs" "$img" "$SLOW_MNT" \
		2> "$TMP/.lib-err"; then
		LOOP_WHY="slowfs did not mount ($(head -n 1 "$TMP/.lib-err"))"
		return 1
	fi
	echo "mnt $SLOW_MNT" >> "$TMP/.lib-loops"
	if ! SLOW_LOOP=$(losetup -f --show --direct-io=on "$SLOW_MNT/disk" \
		2> "$TMP/.lib-err"); then
		SLOW_LOOP="" LOOP_WHY="no loop device on FUSE ($(cat "$TMP/.lib-err"))"
		return 1
	fi
	echo "dev $SLOW_LOOP" >> "$TMP/.lib-loops"
	SLOW_CTL="$SLOW_MNT/ctl"
}
# slow_delay MS [OFFSET LENGTH [COUNT]]: the slow device answers MS late:
# every request (MS alone), or those touching the byte range, the next
# COUNT of them (none or 0: until cleared); slow_delay 0 clears.
# cat "$SLOW_CTL" tells how many were delayed.
slow_delay() {
	echo "$*" > "$SLOW_CTL"
}

# ext4_loop WHAT SIZE [MKFS_OPTION...]: ext4 on a loop_device of SIZE,
# mounted at $TMP/mnt: $DEV the device, $NAME its name, $MNT the mount.
# Where there can be none (not root, no losetup, mkfs.ext4 or loop
# device), prints "skipped: WHAT: why" and ends the test; a mkfs or
# mount that fails is a failure and ends it too.
ext4_loop() {
	what=$1 size=$2
	shift 2
	if ! command -v mkfs.ext4 >/dev/null; then
		LOOP_WHY="no mkfs.ext4"
	elif loop_device "$size"; then
		DEV=$LOOP NAME=$(basename "$LOOP") MNT="$TMP/mnt"
		mkdir -p "$MNT"
		if mkfs.ext4 -q -F "$@" "$DEV" && mount "$DEV" "$MNT"; then
			echo "mnt $MNT" >> "$TMP/.lib-loops"
			return 0
		fi
		fail "$what: ext4 on $DEV"
		finish
		exit 1
	fi
	skip "$what: $LOOP_WHY"
	finish
	exit $?
}
