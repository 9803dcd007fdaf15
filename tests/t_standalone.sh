#!/bin/sh
# t_standalone.sh: a clone stands alone. No file of the project reads or
# names the developers' directory beside the checkout (CONTRIBUTING.md alone may,
# to tell contributors what is there), and every trace the tests, the
# demo and the benchmark read is in the repository.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
# the project's files: git's list in a clone, else the tree without builds
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files > "$TMP/files"
else
	find . -type f ! -path './.git/*' ! -path './build-*' | sed 's|^\./||' > "$TMP/files"
fi
check "the project has files to look at ($(wc -l < "$TMP/files"))" [ "$(wc -l < "$TMP/files")" -gt 50 ]
: > "$TMP/named"
while IFS= read -r f; do
	[ "$f" = CONTRIBUTING.md ] && continue
	[ -f "$f" ] || continue
	# ([e]: this file names no such directory itself)
	grep -In -e '\.\./shar[e]d' -e '"shar[e]d", "traces"' -e 'shar[e]d/traces' -e 'shar[e]d/spec' "$f" /dev/null >> "$TMP/named"
done < "$TMP/files"
if [ -s "$TMP/named" ]; then
	fail "no file but CONTRIBUTING.md names the developers' directory" "$(head -n 5 "$TMP/named" | tr '\n' ' ')"
else
	pass "no file but CONTRIBUTING.md names the developers' directory"
fi
check "the CentOS 7 sample is in the repository" [ -s samples/centos7-sda.blktrace.0 -a -s samples/centos7-sda.blktrace.1 ]
check "samples/README.md says where the CentOS trace came from" grep -q 'centos7-sda' samples/README.md
finish
