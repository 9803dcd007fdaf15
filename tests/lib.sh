# tests/lib.sh: helpers for shell tests. Source it, call pass/fail/skip
# per case, end with finish (prints "N passed, N failed[, N skipped]").
# Paths: $TOP is the checkout, $BUILD the build under test ($IOW_BUILD,
# relative to $TOP or absolute; default the checkout), $IOW its binary,
# $SHARED ../shared, $TMP a scratch directory removed at exit.
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "${IOW_BUILD:-.}" in
/*) BUILD=$IOW_BUILD;;
*) BUILD="$TOP/${IOW_BUILD:-.}";;
esac
IOW="$BUILD/iowatcher"
SHARED="$TOP/../shared"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n_pass=0; n_fail=0; n_skip=0

pass() { n_pass=$((n_pass + 1)); echo "ok   $1"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $1${2:+: $2}"; }
skip() { n_skip=$((n_skip + 1)); echo "skipped: $1"; }
# check NAME COMMAND...: passes when the command succeeds
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
finish() {
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" = 0 ]
}
