#!/bin/sh
# t_causes_bpf.sh: the causes the BPF recorder keeps, on ext4 on a loop
# device in /dev/shm: a buffered dd of 64 MiB and sync, then 32 MiB of
# fio's direct writes to another file (issue #22's check), in a cgroup
# of the test's where the io controller's hierarchy is writable. The summary names both files with their bytes;
# --by process credits the writeback to dd, not a kworker, and fio's
# writes to fio; --by cgroup names the test's cgroup; --summary=stacks
# shows the writeback's and the direct I/O's kernel stacks (--stacks
# kernel); --stacks user names fio's innermost frame; without --stacks no
# stacks are kept and a note says how to keep them;
# --no-causes keeps no NAME.cause* (and removes those of the recording it
# replaces), also with ftrace; --stacks with --no-causes is a usage error;
# --live=json names the file a buffered dd wrote (--by file) and credits
# its writeback to dd (--by process) while the recording runs; both ways
# of reading a bio's page (typed loads, helper calls: IOWATCHER_BPF_READS)
# name a file's buffered and direct writes as the file, and a device read
# and written raw (direct, and through its page cache) as the device.
# Needs root, BPF with the kernel's BTF, losetup, mkfs.ext4, fio.
. "$(dirname "$0")/lib.sh"
# a recording drawn without -o leaves NAME.svg where it runs: not in
# the checkout
cd "$TMP" || exit 1

if ! command -v fio >/dev/null || ! command -v python3 >/dev/null; then
	skip "causes recorded with bpf: fio or python3 missing"
	finish
	exit $?
fi

tracing_lock
CG=""
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	lib_cleanup
}
trap cleanup EXIT
ext4_loop "causes recorded with bpf" 256M

if ! "$IOW" -d "$DEV" -D "$TMP" -t probe --tracer bpf -p true \
	> /dev/null 2> "$TMP/probe.err"; then
	skip "causes recorded with bpf: the BPF recorder cannot run here: $(tail -n 1 "$TMP/probe.err")"
	finish
	exit $?
fi

ROOT=$(cgroup_root)
JOIN=
if [ -n "$ROOT" ] && [ -w "$ROOT" ] && mkdir "$ROOT/iowtest.$$" 2>/dev/null
then
	CG="$ROOT/iowtest.$$"
	JOIN="echo \$\$ > $CG/cgroup.procs && "
fi

# 1. the files, the processes, the cgroup and the stacks, on issue #22's
# workload: a buffered dd of 64 MiB and sync, then 32 MiB of direct 4 KiB
# writes
WL="${JOIN}dd if=/dev/zero of=$MNT/buffered bs=1M count=64 status=none && sync && fio --name=direct --filename=$MNT/direct --rw=randwrite --bs=4k --size=32M --direct=1 --ioengine=psync --output=/dev/null && sync"
"$IOW" -d "$DEV" -D "$TMP" --tracer bpf --stacks kernel --summary=json -p "$WL" \
	> "$TMP/main.json" 2> "$TMP/main.err"
check "recorded with causes, the end line names them" \
	grep -q "^iowatcher: recorded .* with bpf in $TMP/$NAME.blktrace.* and .cause\* (" "$TMP/main.err"
check "NAME.cause and NAME.cause.N written" \
	sh -c "[ -s '$TMP/$NAME.cause' ] && ls '$TMP/$NAME'.cause.[0-9]* > /dev/null"
check "the summary's files: dd's 64 MiB buffered, fio's 32 MiB direct, the journal and metadata apart" \
	python3 - "$TMP/main.json" "$MNT" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
f = {x["file"]: x for x in t["files"]}
mnt = sys.argv[2]
# completions the kernel made without running the BPF program (a few
# in 100,000: bench/README.md) are noted and not counted: a loaded make
# check once had fio's file one 4 KiB bio short. Short by those, at most.
unseen = sum(d["unseen_completions"] for d in t["devices"])
b = f[mnt + "/buffered"]["write_bytes"]
assert 64 << 20 >= b >= (64 << 20) - unseen * (4 << 20), (unseen, f)
d = f[mnt + "/direct"]
assert 32 << 20 >= d["write_bytes"] >= (32 << 20) - unseen * 4096, (unseen, f)
assert 8192 >= d["bios"] >= 8192 - unseen, (unseen, f)
assert f["[journal]"]["write_bytes"] > 0, f
assert f["[metadata]"]["write_bytes"] + f["[metadata]"]["read_bytes"] > 0, f
PY
UNSEEN=$(python3 -c "import json; print(sum(d['unseen_completions'] for d in json.load(open('$TMP/main.json'))['traces'][0]['devices']))")
# the tags of a --by recording: label bytes
tags() {
	"$IOW" -t "$TMP/$NAME" --by "$1" --summary=json |
		python3 -c "
import json, sys
for t in json.load(sys.stdin)['traces'][0]['tags']:
    print('%s\t%d' % (t['label'], t['bytes']))"
}
tags process > "$TMP/process.tags"
check "--by process: the writeback is dd's, fio's writes fio's, no kworker's" \
	awk -F '\t' '/^dd \(/ { dd = $2 } /^fio \(/ { fio += $2 }
		/^kworker/ && $2 >= 1048576 { kw = 1 }
		END { exit !(dd >= 67108864 - u * 4194304 && fio >= 33554432 - u * 4096 && !kw) }' u="$UNSEEN" \
		"$TMP/process.tags"
if [ -n "$CG" ]; then
	tags cgroup > "$TMP/cgroup.tags"
	# where the io controller is v1's, "PATH (v2 GROUP)": the task's
	# cgroup v2 group after it (t_names_bpf.sh)
	check "--by cgroup: the test's cgroup by its path, fio's bytes in it" \
		awk -F '\t' -v cg="/iowtest.$$" -v u="$UNSEEN" '($1 == cg || index($1, cg " (v2 ") == 1) &&
			$2 >= 33554432 - u * 4096 { ok = 1 }
			END { exit !ok }' "$TMP/cgroup.tags"
else
	skip "--by cgroup: no writable hierarchy with the io controller"
fi
"$IOW" -t "$TMP/$NAME" --summary=stacks > "$TMP/stacks" 2>&1
check "--summary=stacks: the writeback's stack" \
	grep -qE '^ +(wb_workfn|writeback_sb_inodes)$' "$TMP/stacks"
check "--summary=stacks: the direct I/O's stack" \
	grep -qE '^ +(__)?iomap_dio_rw$' "$TMP/stacks"

# 2. user stacks: the innermost frame at least (fio and libc have no
# frame pointers), named from libc's symbols while fio runs (a process
# gone before its batch is read leaves its frames as addresses)
"$IOW" -d "$DEV" -D "$TMP" -t user --tracer bpf --stacks user -p \
	"fio --name=user --filename=$MNT/user --rw=write --bs=4k --size=1M --direct=1 --ioengine=psync --rate_iops=100 --runtime=1 --time_based --output=/dev/null" \
	> /dev/null 2> "$TMP/user.err"
check "--stacks user: user stacks named, and the frame pointers' note" \
	sh -c "grep -qE '^ustack	[0-9]+	.*pwrite' '$TMP/user.cause' &&
		grep -q '^note	user stacks need frame pointers' '$TMP/user.cause' &&
		grep -q '^kstack	' '$TMP/user.cause'"

# 3. no stacks (the default): none kept, and said so
"$IOW" -d "$DEV" -D "$TMP" -t nostacks --tracer bpf -p \
	"dd if=/dev/zero of=$MNT/nostacks bs=4k count=16 oflag=direct status=none" \
	> /dev/null 2> "$TMP/nostacks.err"
check "no --stacks: no stacks in the dictionary, an unrecorded line says how to keep them" \
	sh -c "[ -s '$TMP/nostacks.cause' ] &&
		! grep -qE '^[ku]stack	' '$TMP/nostacks.cause' &&
		grep -qx 'unrecorded	stacks	recorded without --stacks: record with --stacks kernel to keep kernel stacks' '$TMP/nostacks.cause'"
check "no --stacks: the file is still named" \
	grep -q "	$MNT/nostacks\$" "$TMP/nostacks.cause"
"$IOW" -t "$TMP/nostacks" --summary=stacks > "$TMP/nostacks.stacks" 2>&1
rc=$?
check "no --stacks: --summary=stacks says so in one line, and what to type ($rc)" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/nostacks.stacks') = 1 ] &&
	       grep -q 'stacks were not recorded with this trace (recorded without --stacks: record with --stacks kernel to keep kernel stacks; --by process' '$TMP/nostacks.stacks'"
"$IOW" -t "$TMP/nostacks" --by stack -o "$TMP/nostacks.png" > "$TMP/nostacks.by" 2>&1
rc=$?
check "no --stacks: --by stack says so too, no picture ($rc)" \
	sh -c "[ $rc = 1 ] && [ ! -e '$TMP/nostacks.png' ] &&
	       grep -q 'record with --stacks kernel' '$TMP/nostacks.by'"
"$IOW" -t "$TMP/nostacks" -O tput -O io-flame -o "$TMP/nostacks.png" > "$TMP/nostacks.fl" 2>&1
rc=$?
check "no --stacks: -O io-flame says so in one line, no picture ($rc)" \
	sh -c "[ $rc = 1 ] && [ ! -e '$TMP/nostacks.png' ] &&
	       [ \$(wc -l < '$TMP/nostacks.fl') = 1 ] &&
	       grep -q 'record with --stacks kernel' '$TMP/nostacks.fl'"
check "no --stacks: --by file works" \
	sh -c "'$IOW' -t '$TMP/nostacks' --by file --summary | grep -q '$MNT/nostacks'"

# 4. --no-causes: only the trace, and the replaced recording's causes go
"$IOW" -d "$DEV" -D "$TMP" --tracer bpf --no-causes --summary=json -p \
	"dd if=/dev/zero of=$MNT/nocauses bs=4k count=16 oflag=direct status=none" \
	> "$TMP/nocauses.json" 2> "$TMP/nocauses.err"
check "--no-causes: the trace recorded" \
	sh -c "[ -s '$TMP/$NAME.blktrace.0' ] && grep -q '\"ios\"' '$TMP/nocauses.json'"
check "--no-causes: no NAME.cause*, the earlier recording's removed" \
	sh -c "! ls '$TMP/$NAME'.cause* > /dev/null 2>&1 &&
		! grep -q 'cause' '$TMP/nocauses.err'"
if [ -n "$(tracefs_dir)" ]; then
	"$IOW" -d "$DEV" -D "$TMP" -t ft --tracer ftrace --no-causes \
		--summary=json -p "dd if=/dev/zero of=$MNT/ft bs=4k count=16 oflag=direct status=none" \
		> "$TMP/ft.json" 2> "$TMP/ft.err"
	check "--no-causes with --tracer ftrace records ($(tail -n 1 "$TMP/ft.err"))" \
		sh -c "grep -q 'with ftrace' '$TMP/ft.err' && [ -s '$TMP/ft.blktrace.0' ] &&
			! ls '$TMP'/ft.cause* > /dev/null 2>&1"
else
	skip "--no-causes with ftrace: tracefs not mounted"
fi

# 5. --stacks and --no-causes: one line saying why
"$IOW" -d "$DEV" -D "$TMP" -t both --no-causes --stacks none -p true \
	> /dev/null 2> "$TMP/both.err"; rc=$?
check "--stacks with --no-causes: a usage error in one line ($rc)" \
	sh -c "[ $rc = 2 ] && [ \$(grep -c '^iowatcher: ' '$TMP/both.err') = 1 ] &&
		grep -qx 'iowatcher: --stacks keeps stacks with the causes, which --no-causes leaves out: give one of them' '$TMP/both.err' &&
		[ ! -e '$TMP/both.blktrace.0' ]"

# 6. both ways the QUEUE program reads a bio's page (IOWATCHER_BPF_READS:
# typed loads where the kernel has bpf_rdonly_cast, a helper call a field
# before Linux 6.2): a file's buffered and direct writes on ext4 named as
# the file; a device nothing holds, read direct (user memory: the device
# by its block_device) and written through its own page cache (the
# device's inode), named as the device
# bytes_ok JSON NAME KIND BYTES UNIT: NAME's KIND bytes are BYTES, short
# by at most UNIT a completion the recording noted as unseen
bytes_ok() {
	python3 - "$@" <<'PY'
import json, sys
path, name, kind, want, unit = sys.argv[1:]
t = json.load(open(path))["traces"][0]
f = {x["file"]: x for x in t["files"]}
unseen = sum(d["unseen_completions"] for d in t["devices"])
got = f[name][kind + "_bytes"]
assert int(want) >= got >= int(want) - unseen * int(unit), (got, unseen, f)
PY
}
if loop_device 16M; then
	RAW=$LOOP
	for way in typed helper; do
		IOWATCHER_BPF_READS=$way "$IOW" -d "$DEV" -D "$TMP" -t "f-$way" \
			--tracer bpf --summary=json -p \
			"dd if=/dev/zero of=$MNT/b-$way bs=1M count=8 status=none && sync && dd if=/dev/zero of=$MNT/d-$way bs=4k count=256 oflag=direct status=none" \
			> "$TMP/f-$way.json" 2> "$TMP/f-$way.err"
		check "$way reads: the buffered file's 8 MiB" \
			bytes_ok "$TMP/f-$way.json" "$MNT/b-$way" write 8388608 4194304
		check "$way reads: the direct file's 1 MiB" \
			bytes_ok "$TMP/f-$way.json" "$MNT/d-$way" write 1048576 4096
		IOWATCHER_BPF_READS=$way "$IOW" -d "$RAW" -D "$TMP" -t "raw-$way" \
			--tracer bpf --summary=json -p \
			"dd if=$RAW of=/dev/null bs=4k count=256 iflag=direct status=none && dd if=/dev/zero of=$RAW bs=64k count=16 status=none && sync" \
			> "$TMP/raw-$way.json" 2> "$TMP/raw-$way.err"
		check "$way reads: a raw device's 1 MiB of direct reads are the device's" \
			bytes_ok "$TMP/raw-$way.json" "$RAW" read 1048576 4096
		check "$way reads: its 1 MiB of buffered writes are the device's" \
			bytes_ok "$TMP/raw-$way.json" "$RAW" write 1048576 1048576
	done
else
	fail "a second loop device: $LOOP_WHY"
fi
IOWATCHER_BPF_READS=fast "$IOW" -d "$DEV" -D "$TMP" -t bad --tracer bpf \
	-p true > /dev/null 2> "$TMP/bad.err"; rc=$?
check "IOWATCHER_BPF_READS=fast: one line naming the variable, exit 1 ($rc)" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < '$TMP/bad.err') = 1 ] && grep -q '^iowatcher: IOWATCHER_BPF_READS=fast: expected typed, helper or auto' '$TMP/bad.err'"

# 7. the live view, told the causes as they are written: --by file names
# the file dd wrote, and --by process credits its writeback to dd, in the
# JSON lines written while the recording runs (the workload copies them
# before it ends: after the stop, the names found then would do)
live_run() {
	by=$1 file=$2
	"$IOW" -d "$DEV" -D "$TMP" -t "live-$by" --tracer bpf --live=json \
		--interval 0.25 --by "$by" -o "$TMP/live-$by.svg" -p \
		"dd if=/dev/zero of=$MNT/$file bs=1M count=8 status=none && sync && sleep 1.5 && cp $TMP/live-$by.jsonl $TMP/live-$by.during" \
		> "$TMP/live-$by.jsonl" 2> "$TMP/live-$by.err"
}
# live_bytes FILE NAME: the bytes of the live view's rows called NAME
live_bytes() {
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    for row in json.loads(line)["top"]:
        if row["name"] == sys.argv[2]:
            n += row["bytes"]
print(n)' "$1" "$2"
}

live_run file livefile
got=$(live_bytes "$TMP/live-file.during" "$MNT/livefile" 2>&1)
check "--live=json --by file: dd's 8 MiB under its file's name while recording ($got)" \
	[ "$got" = 8388608 ]
check "--live: the file named once in the dictionary" \
	[ "$(grep -c "^file	.*	$MNT/livefile\$" "$TMP/live-file.cause")" = 1 ]
live_run process liveproc
got=$(live_bytes "$TMP/live-process.during" dd 2>&1)
check "--live=json --by process: the writeback dd's while recording ($got)" \
	[ "${got:-0}" -ge 8388608 ]
finish
