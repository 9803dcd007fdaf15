#!/bin/sh
# scripts/demo.sh [IOWATCHER [DIR]]: renders the README's pictures of the
# bundled samples into DIR (default samples/) with IOWATCHER (default
# ./iowatcher). make demo runs it; tests/t_golden.sh runs it into a
# scratch directory and checks the pictures in samples/ are what it draws.
cd "$(dirname "$0")/.." || exit 1
iow=${1:-./iowatcher}
out=${2:-samples}
set -e
"$iow" -t samples/fio-randrw -F samples/fio-randrw_bw.1.log \
	-F samples/fio-randrw_bw.2.log@3 -o "$out/fio-randrw.png" --summary
"$iow" -t samples/fio-randrw -O latency -O latency-heatmap \
	-O latency-hist -O q2d-d2c -o "$out/fio-randrw-latency.png"
"$iow" -t samples/two-devices -P --merge-comm -O io -O tput \
	-O latency -o "$out/two-devices-by-process.png"
"$iow" -t samples/ext4-fsync -O tput -O iops -O latency \
	-O queue-depth -o "$out/ext4-fsync.png"
