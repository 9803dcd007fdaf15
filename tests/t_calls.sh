#!/bin/sh
# t_calls.sh: calls run one way between files (tests/calls.py, from the
# objects' symbols with nm): a hub's parts never call the hub back; what
# they share is a leaf file of the folder (compare_names.c,
# reader/bytesrc_in.c, analysis/analysis_shared.c), or the hub hands them
# its helpers in a table (analysis/analysis_hub.h). No circle is allowed:
# the last one, analysis.c with analysis_loss.c and analysis_holes.c, was
# broken that way. The check fails on a planted circle of two objects, and
# (the tool's --allow) on an allowed circle with a third file in it.
. "$(dirname "$0")/lib.sh"
C="$TOP/tests/calls.py"
# the objects: beside the binary with IOW_BUILD=DIR/, else in build/
OBJ=$BUILD
[ -f "$OBJ/iowatcher.o" ] || OBJ="$BUILD/build"
if ! command -v nm > /dev/null; then
	skip "no nm (binutils)"; finish; exit
fi
if ! [ -f "$OBJ/iowatcher.o" ]; then
	skip "no objects in $OBJ (make first)"; finish; exit
fi
if out=$(python3 "$C" "$OBJ"); then
	pass "calls run one way between files ($(echo "$out" | tail -n 1))"
else
	fail "calls run one way between files" "$out"
fi
# planted: two files that call each other
mkdir -p "$TMP/plant/x"
printf 'int b_f(void);\nint a_f(void) { return b_f(); }\n' > "$TMP/a.c"
printf 'int a_f(void);\nint b_f(void) { return a_f() + 1; }\nint c_f(void) { return 0; }\n' > "$TMP/b.c"
cc -c -o "$TMP/plant/x/a.o" "$TMP/a.c" && cc -c -o "$TMP/plant/x/b.o" "$TMP/b.c"
python3 "$C" "$TMP/plant" > "$TMP/planted.out"
rc=$?
check "a planted circle fails it, named ($(head -n 1 "$TMP/planted.out"))" \
	sh -c "[ $rc = 1 ] && grep -q '^files call each other in a circle: x/a.c x/b.c: x/a.c -> x/b.c (b_f); x/b.c -> x/a.c (a_f)' '$TMP/planted.out'"
python3 "$C" --allow=x/a.c,x/b.c "$TMP/plant" > /dev/null
check "the same circle, allowed, passes" [ $? = 0 ]
printf 'int c_f(void);\nint a_f(void);\nint d_f(void) { return a_f() + c_f(); }\n' > "$TMP/d.c"
printf 'int d_f(void);\nint b_f(void);\nint a_f(void) { return b_f() + d_f(); }\n' > "$TMP/a.c"
cc -c -o "$TMP/plant/x/a.o" "$TMP/a.c" && cc -c -o "$TMP/plant/x/d.o" "$TMP/d.c"
python3 "$C" --allow=x/a.c,x/b.c "$TMP/plant" > "$TMP/grown.out"
rc=$?
check "an allowed circle that grows fails it ($(head -n 1 "$TMP/grown.out"))" \
	sh -c "[ $rc = 1 ] && grep -q '^files call each other in a circle: x/a.c x/b.c x/d.c' '$TMP/grown.out'"
finish
