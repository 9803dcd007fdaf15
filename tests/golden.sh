#!/bin/sh
# tests/golden.sh [--update]: renders every sample in samples/ the ways a
# user would (summaries, pictures, CSV) and compares each output's checksum with tests/data/golden.sha256; --update rewrites
# that file. A refactoring must leave it as it is: an output that changes
# on purpose is updated in the same commit, and the commit says why.
# Prints the differing files and exits 1 when any differs. With
# GOLDEN_KEEP=DIR the outputs are also copied into DIR (to compare two
# builds' outputs file by file: IOW=other/iowatcher GOLDEN_KEEP=...).
cd "$(dirname "$0")/.." || exit 1
IOW=${IOW:-./iowatcher}
top=$(mktemp -d)
out=$top/out
mkdir "$out"
trap 'rm -rf "$top"' EXIT
list="samples/fio-randrw samples/dd-write samples/ext4-fsync samples/discard
      samples/split-dd samples/overlap-fio samples/two-devices
      samples/ext4-causes"
for t in $list; do
	[ -f "$t.blktrace.0" ] || continue
	n=$(basename "$t")
	"$IOW" -t "$t" --summary=json > "$out/$n.json" 2> /dev/null
	"$IOW" -t "$t" --summary > "$out/$n.txt" 2> /dev/null
	"$IOW" -t "$t" -o "$out/$n.svg" --csv "$out/$n-csv" > /dev/null 2>&1
	"$IOW" -t "$t" -O latency-heatmap -O latency-scatter -O latency-hist \
		-O q2d-d2c -O offset-heatmap -O size -o "$out/$n-more.svg" \
		--csv "$out/$n-more-csv" > /dev/null 2>&1
	"$IOW" -t "$t" -P -O io -O tput -O latency -O queue-depth \
		-O latency-heatmap -o "$out/$n-P.png" > /dev/null 2>&1
	"$IOW" -t "$t" --per-device -O tput -O latency -o "$out/$n-dev.svg" \
		> /dev/null 2>&1
done
"$IOW" -t samples/fio-randrw -l before -t samples/ext4-fsync -l after \
	-o "$out/overlay.svg" --summary=json > "$out/overlay.json" 2> /dev/null
"$IOW" -t samples/fio-randrw -x 1:3 -y 0:100 --summary=json -o "$out/zoom.svg" \
	> "$out/zoom.json" 2> /dev/null
# a trace with causes, split and drawn by them
"$IOW" -t samples/ext4-causes --by file --summary=json \
	> "$out/causes-file.json" 2> /dev/null
"$IOW" -t samples/ext4-causes --summary=stacks > "$out/causes-stacks.txt" \
	2> /dev/null
"$IOW" -t samples/ext4-causes --events "$out/causes-events.csv" \
	> /dev/null 2>&1
"$IOW" -t samples/ext4-causes --by file -O tput -O top-files -O io-flame \
	-o "$out/causes.svg" > /dev/null 2>&1
(cd "$out" && find . -type f | LC_ALL=C sort | xargs sha256sum) > "$top/sums"
[ -n "$GOLDEN_KEEP" ] && mkdir -p "$GOLDEN_KEEP" && cp -r "$out/." "$GOLDEN_KEEP"
if [ "$1" = --update ]; then
	cp "$top/sums" tests/data/golden.sha256
	echo "golden: $(wc -l < tests/data/golden.sha256) outputs recorded"
	exit 0
fi
if cmp -s "$top/sums" tests/data/golden.sha256; then
	echo "golden: $(wc -l < "$top/sums") outputs as recorded"
	exit 0
fi
echo "golden: outputs differ from tests/data/golden.sha256:"
diff tests/data/golden.sha256 "$top/sums" | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u
exit 1
