# Sourced by the uvas-exp test scripts (tools/test-uvas-exp*.sh): what each
# needs before its cases. exp_test_setup NAME EXE [python]: EXE must be an
# executable (else FAIL), python3 present when asked (else SKIP, 77); the
# runner's own UVAS_* settings go (UVAS_DEVICE may pick the device); $tmp
# is a fresh directory of this user's (mode 755), removed at exit; fail()
# ends the test.
exp_test_setup() {
    if [ "${3:-}" = python ] && ! command -v python3 >/dev/null 2>&1; then
        echo "SKIP: python3 is not installed" >&2
        exit 77
    fi
    [ -x "$2" ] || { echo "FAIL: $2 is not an executable"; exit 1; }
    for v in $(env | sed -n 's/^\(UVAS_[A-Z_]*\)=.*/\1/p'); do
        [ "$v" = UVAS_DEVICE ] || unset "$v"
    done
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
    chmod 755 "$tmp"
    trap 'rm -rf "$tmp"' EXIT INT TERM
}

fail() { echo "FAIL: $*"; exit 1; }
