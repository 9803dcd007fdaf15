#!/bin/sh
# t_docs.sh: --help and the man page name every option and every graph
# the program has (the options from the rows of cli.c's table, the graphs
# from --help's list, which is printed from the graph table; test_cli
# walks the option table itself).
. "$(dirname "$0")/lib.sh"
"$IOW" --help > "$TMP/help"
opts=$(sed -n 's/^[[:space:]]*{ \.name = "\([a-z-]*\)",.*/\1/p' "$TOP/cli.c")
check "cli.c's table has its rows" [ "$(echo "$opts" | wc -w)" -ge 30 ]
for o in $opts; do
	esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
	if grep -q -- "--$o" "$TMP/help" && grep -q -- "\\\\-\\\\-$esc" "$TOP/iowatcher.1"; then
		pass "--$o in --help and the man page"
	else
		fail "--$o in --help and the man page"
	fi
done
graphs=$(sed -n '/^Graphs/,/^Outputs/p' "$TMP/help" | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
[ -n "$graphs" ] || fail "--help lists the graphs"
for g in $graphs; do
	esc=$(printf '%s' "$g" | sed 's/-/\\\\-/g')
	check "graph $g in the man page" grep -q "^\\.BR* .*$esc" "$TOP/iowatcher.1"
done
outputs=$(sed -n '/^Outputs/,/^[^ ]/p' "$TMP/help" | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
check "--help lists the outputs (from the table)" [ "$(echo "$outputs" | wc -w)" -ge 9 ]
for n in $outputs; do
	check "output $n in the man page (OUTPUT, The outputs)" \
		sh -c "sed -n '/^\\.SS The outputs/,/^\\.S[HS]/p' '$TOP/iowatcher.1' | grep -qx '\\.B $n'"
done
# an output written but not in the table is in neither
rows=$(cd "$TOP" && grep -ho '^const struct output_ops [a-z_]* =' *.c */*.c | sed 's/.* \([a-z_]*\) =/\1/')
check "the sources define the outputs' rows" [ "$(echo "$rows" | wc -w)" -ge 9 ]
for r in $rows; do
	check "row $r is in outputs.c's table" grep -q "&$r\b" "$TOP/outputs.c"
done
# every input kind the reader reads: a row of reader/discover.c's table
# (each input of tracepoints, blocktp.h, is one), in --help (printed from
# the table) and in the man page's INPUT
inputs=$(sed -n '/^Inputs/,/^Graphs/p' "$TMP/help" | sed -n 's/^  \([a-z.-]*\) .*/\1/p')
check "--help lists the input kinds (from the table): $(echo $inputs)" \
	[ "$(echo "$inputs" | wc -w)" -ge 5 ]
for n in $inputs; do
	check "input $n in the man page (INPUT)" \
		sh -c "sed -n '/^\\.SH INPUT/,/^\\.SH/p' '$TOP/iowatcher.1' | grep -qx '\\.B $n'"
done
tps=$(cd "$TOP" && grep -ho '^const struct blocktp_input [a-z_]* =' reader/*.c | sed 's/.* \([a-z_]*\) =/\1/')
check "the reader defines its inputs of tracepoints" [ "$(echo "$tps" | wc -w)" -ge 2 ]
for r in $tps; do
	check "input $r is a row of reader/discover.c's table" grep -q "&$r\b" "$TOP/reader/discover.c"
done
check "README names the two set-up commands" sh -c "grep -q 'make demo' '$TOP/README.md' && grep -q 'make check' '$TOP/README.md'"
finish
