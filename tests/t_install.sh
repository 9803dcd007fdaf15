#!/bin/sh
# t_install.sh: make install with PREFIX and DESTDIR puts the program, its
# man page and the taggers in place, and the installed program finds its
# own taggers wherever it was put.
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
finish
