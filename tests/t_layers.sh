#!/bin/sh
# t_layers.sh: the house's layout (tests/layers.py): no include points up
# the pipeline (the Makefile's STAGES, lowest first, and FRONT_DOORS, the
# stage of each file at the top), at most 16 sources at the top, no
# object or .d file beside a source, no two modules including each other
# in a circle; and the check fails on an include planted to point up, a
# circle planted between two modules of one stage, and a source planted
# at the top.
. "$(dirname "$0")/lib.sh"
L="$TOP/tests/layers.py"

if out=$(python3 "$L" "$TOP"); then
	pass "includes point down the pipeline ($out)"
else
	fail "includes point down the pipeline" "$out"
fi

# a copy of the sources and the Makefile, to plant in
copy() {
	rm -rf "$TMP/copy"
	python3 - "$TOP" "$TMP/copy" <<'EOF2'
import os, shutil, sys
top, dst = sys.argv[1], sys.argv[2]
for d, dirs, names in os.walk(top):
    dirs[:] = [x for x in dirs if not x.startswith((".", "build")) and x != "node_modules"]
    for n in names:
        if n.endswith((".c", ".h")) or (n == "Makefile" and d == top):
            rel = os.path.relpath(os.path.join(d, n), top)
            os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
            shutil.copy(os.path.join(d, n), os.path.join(dst, rel))
EOF2
}
copy
printf '#include "graphs/graphs.h"\n' >> "$TMP/copy/base/error.c"
python3 "$L" "$TMP/copy" > "$TMP/planted.out"
rc=$?
check "a planted upward include fails it, named ($(head -n 1 "$TMP/planted.out"))" \
	sh -c "[ $rc = 1 ] && grep -q '^base/error.c (base) includes graphs/graphs.h (graphs), a later stage' '$TMP/planted.out'"
copy
printf '#include "analysis/analysis.h"\n' >> "$TMP/copy/analysis/histogram.h"
python3 "$L" "$TMP/copy" > "$TMP/circle.out"
rc=$?
check "a planted circle fails it, named ($(head -n 1 "$TMP/circle.out"))" \
	sh -c "[ $rc = 1 ] && grep -q '^modules include each other in a circle: .*analysis/analysis .*analysis/histogram' '$TMP/circle.out'"
copy
for n in 1 2 3 4 5; do : > "$TMP/copy/stray$n.c"; done
python3 "$L" "$TMP/copy" > "$TMP/stray.out"
check "17 sources at the top fail it" [ $? = 1 ]
copy
: > "$TMP/copy/analysis/analysis.o"
python3 "$L" "$TMP/copy" > "$TMP/obj.out"
check "an object beside a source fails it" [ $? = 1 ]
finish
