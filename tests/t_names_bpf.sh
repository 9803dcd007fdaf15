#!/bin/sh
# t_names_bpf.sh: the names the BPF recorder gives what it saw, on ext4
# on a loop device in /dev/shm (issue #32's item 9).
# Files: a file written and deleted before the recording ends is named
# by the name it had, "(deleted)", not "inode N on M,m": deleted at once
# after its fsync (its unlink caught by ext4's tracepoint), deleted a
# second later (named by its handle while it was there), and written
# while open after its unlink (named by its handle, "(deleted)" as
# /proc says it); a file that stays keeps its plain name.
# Cgroups: --summary's tags say which hierarchy the cgroup names come
# from, in the text's heading and the JSON's tags_source; where the io
# controller is bound to v1 (blkio) and a cgroup2 hierarchy is mounted, a
# writer in a v2-only group is named by that group, "/ (v2 /GROUP)",
# not only "/".
# Needs root, BPF with the kernel's BTF, losetup, mkfs.ext4, python3.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1	# pictures drawn without -o land here, not in the checkout

if ! command -v python3 >/dev/null; then
	skip "names recorded with bpf: python3 missing"
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
ext4_loop "names recorded with bpf" 128M
mkdir "$MNT/dir" || { fail "mkdir on $DEV"; finish; exit 1; }

if ! "$IOW" -d "$DEV" -D "$TMP" -t probe --tracer bpf -p true \
	> /dev/null 2> "$TMP/probe.err"; then
	skip "names recorded with bpf: the BPF recorder cannot run here: $(tail -n 1 "$TMP/probe.err")"
	finish
	exit $?
fi

# files_json JSON: the summary's files, "NAME<tab>WRITTEN BYTES" a line
files_of() {
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["traces"][0]["files"]:
    print("%s\t%d" % (f["file"], f["write_bytes"]))' "$1"
}
# written NAME BYTES FILE: NAME wrote at least BYTES (a completion the
# kernel made unseen may take 4 KiB)
written() {
	awk -F '\t' -v n="$1" -v b="$2" '$1 == n && $2 >= b - 4096 { ok = 1 }
		END { exit !ok }' "$3"
}

# 1. files deleted before the end, three ways, and one that stays
TMPF="$MNT/dir/opened"
WL="dd if=/dev/zero of=$MNT/dir/at-once bs=1M count=4 conv=fsync status=none && rm $MNT/dir/at-once &&
dd if=/dev/zero of=$MNT/later bs=1M count=2 conv=fsync status=none && sleep 1 && rm $MNT/later &&
python3 -c \"
import os, time
fd = os.open('$TMPF', os.O_CREAT | os.O_WRONLY, 0o644)
os.unlink('$TMPF')
os.write(fd, b'x' * 1048576)
os.fsync(fd)
time.sleep(1)
os.close(fd)\" &&
dd if=/dev/zero of=$MNT/stays bs=1M count=1 conv=fsync status=none && sleep 0.3"
"$IOW" -d "$DEV" -D "$TMP" -t files --tracer bpf --summary=json -p "$WL" \
	> "$TMP/files.json" 2> "$TMP/files.err"
files_of "$TMP/files.json" > "$TMP/files.tsv" 2>&1
check "deleted at once after its fsync: its name, (deleted), its 4 MiB ($(tr '\t\n' '= ' < "$TMP/files.tsv"))" \
	written "$MNT/dir/at-once (deleted)" 4194304 "$TMP/files.tsv"
check "deleted a second later: its name, (deleted), its 2 MiB" \
	written "$MNT/later (deleted)" 2097152 "$TMP/files.tsv"
check "unlinked while open, then written: its name, (deleted), its 1 MiB" \
	written "$TMPF (deleted)" 1048576 "$TMP/files.tsv"
check "a file that stays: its plain name" \
	written "$MNT/stays" 1048576 "$TMP/files.tsv"
check "no file named by inode" \
	sh -c "! grep -q '^inode ' '$TMP/files.tsv' && ! grep -q 'files not found' '$TMP/files.cause'"
"$IOW" -t "$TMP/files" --by file --summary > "$TMP/byfile.txt" 2>&1
check "--by file: the tag of the file deleted at once is its name" \
	grep -q "  $MNT/dir/at-once (deleted)$" "$TMP/byfile.txt"

# 1b. the reader held back (IOWATCHER_BPF_PAUSE_MS): the file is gone
# before the recorder could look it up by its handle; the unlink's record
# names it. And another file given its number after is not taken for it
# (each file of a number is told by its inode's generation).
IOWATCHER_BPF_PAUSE_MS=1500 "$IOW" -d "$DEV" -D "$TMP" -t paused --tracer bpf \
	--summary=json -p "dd if=/dev/zero of=$MNT/dir/first bs=1M count=3 conv=fsync status=none && rm $MNT/dir/first && dd if=/dev/zero of=$MNT/dir/second bs=1M count=1 conv=fsync status=none" \
	> "$TMP/paused.json" 2> "$TMP/paused.err"
files_of "$TMP/paused.json" > "$TMP/paused.tsv" 2>&1
check "gone before its handle was tried: named by its unlink ($(tr '\t\n' '= ' < "$TMP/paused.tsv"))" \
	written "$MNT/dir/first (deleted)" 3145728 "$TMP/paused.tsv"
check "the file given its number after: its own name, its own bytes" \
	sh -c "awk -F '\t' '\$1 == \"$MNT/dir/second\" && \$2 >= 1044480 && \$2 <= 1048576 { ok = 1 } END { exit !ok }' '$TMP/paused.tsv'"

# 2. cgroups: the hierarchy said; a writer in a v2-only group named by it
IOROOT=$(cgroup_root)
V2=$(awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup2") {
	print $5; exit } }' /proc/self/mountinfo)
if [ -z "$IOROOT" ]; then
	skip "cgroups: no hierarchy with the io controller"
	finish
	exit $?
fi
JOIN=
if [ -n "$V2" ] && [ "$V2" != "$IOROOT" ] && mkdir "$V2/iownames.$$" 2>/dev/null
then
	CG="$V2/iownames.$$"
	JOIN="echo \$\$ > $CG/cgroup.procs && "
fi
"$IOW" -d "$DEV" -D "$TMP" -t cg --tracer bpf -p \
	"${JOIN}dd if=/dev/zero of=$MNT/cg bs=1M count=4 oflag=direct status=none" \
	> /dev/null 2> "$TMP/cg.err"
"$IOW" -t "$TMP/cg" --by cgroup --summary > "$TMP/cg.txt" 2>&1
"$IOW" -t "$TMP/cg" --by cgroup --summary=json > "$TMP/cg.json" 2>&1
if [ "$V2" = "$IOROOT" ]; then
	kind="cgroup v2 hierarchy at $IOROOT"
else
	kind="v1 blkio hierarchy at $IOROOT"
fi
check "--by cgroup --summary: the tags' heading names the hierarchy ($(grep ' tags (' "$TMP/cg.txt"))" \
	grep -q "^ tags (by bytes; cgroups of the io controller's $kind" "$TMP/cg.txt"
check "--by cgroup --summary=json: tags_source names it too" \
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
assert sys.argv[2] in t["tags_source"], t.get("tags_source")' "$TMP/cg.json" "$kind"
if [ -n "$CG" ]; then
	check "--by cgroup: the writer's v2-only group named, its 4 MiB in it" \
		python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
tags = {x["label"]: x["bytes"] for x in t["tags"]}
assert tags.get(sys.argv[2], 0) >= 4 << 20, tags' "$TMP/cg.json" "/ (v2 /iownames.$$)"
else
	skip "--by cgroup: the io controller's hierarchy is cgroup2's, or no group could be made there"
fi
finish
