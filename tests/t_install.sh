#!/bin/sh
# t_install.sh: make install with PREFIX and DESTDIR puts the program, its
# man page, the taggers and libtracecmd's process (iowatcher-tracedat) in
# place, and the installed program finds its own taggers and helper
# wherever it was put.
. "$(dirname "$0")/lib.sh"
make -C "$TOP" -s install PREFIX=/opt/iow DESTDIR="$TMP/root" > "$TMP/log" 2>&1
check "make install succeeds" [ $? = 0 ]
R="$TMP/root/opt/iow"
check "program installed" [ -x "$R/bin/iowatcher" ]
check "man page installed" [ -f "$R/share/man/man1/iowatcher.1" ]
for t in tag-by-pid tag-by-range tag-by-size tag-example iowatcher.py; do
	check "$t installed" [ -f "$R/lib/iowatcher/$t" ]
done
# Away from the source tree, the installed program uses its own taggers.
cp -r "$R" "$TMP/moved"
n=$(cd / && "$TMP/moved/bin/iowatcher" -t "$CENTOS" \
	-T tag-by-pid --summary=json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['traces'][0]['tags']))")
check "installed program finds its shipped tagger ($n tags)" [ "$n" = 5 ]
# libtracecmd's process (reader/tracedat.c's fence), where the program
# was built with libtracecmd: installed, and found by the moved program
if [ -x "$TOP/iowatcher-tracedat" ]; then
	check "iowatcher-tracedat installed" [ -x "$R/lib/iowatcher/iowatcher-tracedat" ]
	xz -dc "$TOP/samples/tracedat-fio.dat.xz" > "$TMP/s.dat"
	"$TMP/moved/bin/iowatcher" -t "$TMP/s.dat" --summary=json > "$TMP/td.json" 2> "$TMP/td.err"
	"$TOP/iowatcher" -t "$TMP/s.dat" --summary=json > "$TMP/td-top.json" 2>&1
	check "installed program reads a trace.dat with its own helper ($(head -c 100 "$TMP/td.err"))" \
		cmp -s "$TMP/td.json" "$TMP/td-top.json"
else
	skip "iowatcher-tracedat installed: built without libtracecmd"
fi
finish
