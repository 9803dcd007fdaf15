#!/bin/sh
# t_account.sh: a recording accounts for itself. Its --summary=json has
# per device the kernel's completed requests over the recording
# ("diskstats": reads, writes, discards, flushes, as /sys/block/DEV/stat
# counts them) and they equal the trace's completions by the same
# classes up to what the account explains (unseen, loss windows, in
# flight), with nothing left unexplained: with each recorder on ext4
# (fsyncs: flushes and flush sequences' empty ends; fstrim: discards),
# with a recording made to lose events (64 KiB rings read 300 ms late),
# and with unseen completions forced (IOWATCHER_BPF_UNSEEN=N: exactly
# those missing). The trace holds the account as a note blkparse prints;
# the end line, --summary and a later -t NAME say the same sentence.
# Needs root, tracefs, losetup, fio, blkparse, mkfs.ext4, python3.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1	# pictures drawn without -o land here, not in the checkout

T=$(tracefs_dir)
why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ -z "$T" ]; then why="tracefs not mounted"
elif ! command -v losetup >/dev/null || ! command -v blkparse >/dev/null ||
     ! command -v fio >/dev/null || ! command -v python3 >/dev/null ||
     ! command -v mkfs.ext4 >/dev/null
then why="losetup, blkparse, fio, mkfs.ext4 or python3 missing"
fi
if [ -n "$why" ]; then
	skip "account tests: $why"
	finish
	exit $?
fi

tracing_lock
truncate -s 256M "$TMP/disk.img"
DEV=$(losetup -f --show "$TMP/disk.img") || { fail "losetup"; finish; exit 1; }
ENABLE=/sys/class/block/$(basename "$DEV")/trace/enable
mkdir "$TMP/mnt"
SOCK="iowatcher-account-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; mountpoint -q "$TMP/mnt" 2>/dev/null && umount "$TMP/mnt"; losetup -d "$DEV"; lib_cleanup' EXIT
BEFORE=$(tracing_state)

TRACERS=
grep -qw blk "$T/available_tracers" && TRACERS=ftrace
if "$IOW" -d "$DEV" -D "$TMP" -t probe --tracer bpf -p true \
	> "$TMP/probe.out" 2>&1
then
	TRACERS="bpf $TRACERS"
else
	skip "bpf: $(tail -n 1 "$TMP/probe.out")"
fi

# account NAME: "KERNEL TRACE MISSING EXTRA UNSEEN UNEXPLAINED CLASSES_OK"
# from the JSON's one device (CLASSES_OK: per class, the kernel's count
# at least the trace's, the differences adding up to MISSING), or why not
account() {
	python3 - "$TMP/$1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
devs = [d for d in t["devices"] if "diskstats" in d]
if len(devs) != 1:
    print("no diskstats:", [sorted(d) for d in t["devices"]]); sys.exit()
d = devs[0]
k, a = d["diskstats"], d["account"]
tr = a["trace"]
ok = all(k[c] >= tr[c] for c in k) and \
     sum(k[c] - tr[c] for c in k) == a["missing"] and \
     tr["reads"] == d["read"]["ios"] and \
     d["write"]["ios"] <= tr["writes"] <= d["write"]["ios"] + d["empty_completions"] and \
     tr["discards"] == d["discard"]["ios"] and tr["flushes"] == d["flush"]["ios"] and \
     a["missing"] == a["missed_completion_runs"] + a["unseen"] + \
         a["in_loss_windows"] + a["at_tracing_edges"] + \
         a["inferred_holes"] + a["unexplained"]
print(a["kernel_total"], a["trace_total"], a["missing"], a["extra"],
      a["unseen"], a["unexplained"], "ok" if ok else "bad")
PY
}
json_text() {
	python3 -c 'import json, sys; print([d for d in json.load(open(sys.argv[1]))["traces"][0]["devices"] if "account" in d][0]["account"]["text"])' "$1" 2>/dev/null
}

# 1. a normal recording on ext4, with each recorder: fsyncs make flushes
# and empty completions, fstrim discards
mkfs.ext4 -q -F "$DEV"
WORK="fio --name=w --filename=$TMP/mnt/f --rw=randrw --bs=4k --size=4M --fsync=8 --output=/dev/null && fstrim $TMP/mnt"
for tr in $TRACERS; do
	mount "$DEV" "$TMP/mnt"
	"$IOW" -d "$DEV" -D "$TMP" -t $tr --tracer $tr --summary=json \
		-p "$WORK" > "$TMP/$tr.json" 2> "$TMP/$tr.err"
	umount "$TMP/mnt"
	set -- $(account $tr)
	check "$tr: the JSON has the kernel's counts, equal to the trace's up to the account ($*)" \
		[ "$7" = ok ]
	check "$tr: nothing left unexplained, no completion more than the kernel counted" \
		[ "$6" = 0 -a "$4" = 0 ]
	check "$tr: the kernel counted writes, flushes and discards of the run" \
		python3 -c 'import json, sys; k = [d for d in json.load(open(sys.argv[1]))["traces"][0]["devices"] if "diskstats" in d][0]["diskstats"]; assert k["writes"] > 0 and k["flushes"] > 0 and k["discards"] > 0, k' "$TMP/$tr.json"
	text=$(json_text "$TMP/$tr.json")
	check "$tr: the end line says the account ($text)" \
		grep -qF "; the trace $text" "$TMP/$tr.err"
	if [ "$3" = 0 ]; then
		check "$tr: agreeing, it says so in a few words" \
			sh -c "echo '$text' | grep -qE '^holds all [0-9,]+ completions the kernel counted$'"
	fi
	check "$tr: blkparse prints the account note" \
		sh -c "blkparse -i $tr -D '$TMP' 2>/dev/null | grep -qE ' m +N account: the kernel completed [0-9]+ reads, [0-9]+ writes, [0-9]+ discards, [0-9]+ flushes; [0-9]+ in flight at the start, [0-9]+ at the end; [0-9]+ as tracing began or ended'"
	"$IOW" -t "$TMP/$tr" --summary > "$TMP/$tr.txt" 2>&1
	check "$tr: a later -t NAME --summary says the same" \
		grep -qF "  the trace $text" "$TMP/$tr.txt"
	"$IOW" -t "$TMP/$tr" --summary=json > "$TMP/$tr.again.json" 2>&1
	check "$tr: and its JSON the same account" \
		[ "$(json_text "$TMP/$tr.again.json")" = "$text" ]
	check "$tr: tracing state restored" state_restored
done

# 2. made to lose events: what is missing, the loss windows explain
export IOWATCHER_BPF_PAUSE_MS=300
FIO="fio --name=r --filename=$DEV --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --direct=1 --runtime=1 --time_based --output=/dev/null"
for tr in $TRACERS; do
	"$IOW" -d "$DEV" -D "$TMP" -t loss$tr --tracer $tr --buffer 64K \
		--no-causes --summary=json -p "$FIO" > "$TMP/loss$tr.json" \
		2> "$TMP/loss$tr.err"
	set -- $(account loss$tr)
	lost=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["traces"][0]["lost_events"])' "$TMP/loss$tr.json" 2>/dev/null)
	check "$tr, losing events ($lost lost): the kernel's counts equal the trace's up to the account ($*)" \
		[ "$7" = ok -a "${lost:-0}" -gt 0 ]
	check "$tr, losing events: the loss windows explain what is missing (unexplained $6)" \
		[ "$6" = 0 ]
	text=$(json_text "$TMP/loss$tr.json")
	# what is missing is in loss windows, or completions the kernel
	# made without running the BPF program (it counts them: a slow,
	# sanitized run beside other work had 3 such of 89,296)
	check "$tr, losing events: the end line says where they went ($text)" \
		sh -c "grep -qF '; the trace $text' '$TMP/loss$tr.err' && { [ '$3' = 0 ] || echo '$text' | grep -qE 'in loss windows|unseen by the BPF program'; }"
done
unset IOWATCHER_BPF_PAUSE_MS

# 3. unseen completions forced: every 50th data completion; the kernel
# counted exactly those more than the trace holds
if [ "${TRACERS#bpf}" = "$TRACERS" ]; then
	skip "unseen completions: the BPF recorder cannot run here"
else
	FIO="fio --name=r --filename=$DEV --rw=randread --bs=4k --size=4M --iodepth=2 --ioengine=libaio --direct=1 --output=/dev/null"
	IOWATCHER_BPF_UNSEEN=50 "$IOW" -d "$DEV" -D "$TMP" -t unseen \
		--tracer bpf --no-causes --summary=json -p "$FIO" \
		> "$TMP/unseen.json" 2> "$TMP/unseen.err"
	set -- $(account unseen)
	# (every 50th of each CPU's: about 20 of fio's 1024)
	check "unseen: the kernel's 1024 reads, those the program did not see missing and said unseen ($*)" \
		[ "$7" = ok -a "$1" -ge 1024 -a "$3" -ge 10 -a "$5" = "$3" -a "$6" = 0 ]
	text=$(json_text "$TMP/unseen.json")
	check "unseen: the end line says how many and where ($text)" \
		sh -c "grep -qF '; the trace $text' '$TMP/unseen.err' && echo '$text' | grep -q ' unseen by the BPF program$'"
	check "unseen: blkparse prints the recorder's count in the note" \
		sh -c "blkparse -i unseen -D '$TMP' 2>/dev/null | grep -qE 'account: .*; $5 completions unseen; missed runs: '"
fi

# 4. the live view's header: the kernel's completions since the start
# beside the trace's analysed, as the recording goes (a tmux server of
# this run's own)
if ! command -v tmux > /dev/null; then
	skip "the live header: tmux missing"
else
	tmux -L "$SOCK" new-session -d -x 160 -y 30 "'$IOW' -d '$DEV' -D '$TMP' -t live --live -p 'fio --name=r --filename=$DEV --rw=randread --bs=4k --iodepth=2 --ioengine=libaio --direct=1 --rate_iops=1000 --runtime=4 --time_based'; sleep 60"
	seen=
	for i in $(seq 1 100); do
		tmux -L "$SOCK" capture-pane -p > "$TMP/screen" 2>/dev/null
		seen=$(grep -oE "completions: the kernel's [0-9]+ since the start, the trace's [0-9]+ analysed" "$TMP/screen" | grep -v "kernel's 0 ")
		[ -n "$seen" ] && break
		sleep 0.1
	done
	# seen: q ends the recording (fio's 4 s are a bound, not a need)
	[ -n "$seen" ] && tmux -L "$SOCK" send-keys q
	while tmux -L "$SOCK" capture-pane -p 2>/dev/null | grep -q "iowatcher --live"; do
		sleep 0.2
	done
	tmux -L "$SOCK" capture-pane -p > "$TMP/screen.end" 2>/dev/null
	tmux -L "$SOCK" kill-server 2>/dev/null
	check "the live header counts the kernel's completions beside the trace's (${seen:-none seen})" \
		[ -n "$seen" ]
	check "the live recording ends with its account" \
		sh -c "tr -d '\\n' < '$TMP/screen.end' | grep -q 'the trace holds'"
fi
check "tracing state restored" state_restored

finish
