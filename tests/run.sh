#!/bin/sh
# Runs every test program of the given build folders (default: build) and
# counts the "ok" / "not ok" lines they print, after scripts/check-layers
# (which folder of src/ may include which).  A program that crashes or
# exits nonzero without a failed check counts as one failure.  Ends with
# "N passed, M failed" alone on the last line.
[ $# -eq 0 ] && set -- build
pass=0; fail=0; skip=0
log=$(mktemp)
for dir in scripts "$@"; do
    if [ "$dir" = scripts ]; then tests=scripts/check-layers; else tests="$dir"/tests/test_*; fi
    for t in $tests; do
        [ -x "$t" ] || continue
        echo "== $t"
        start=$(date +%s)
        "$t" >"$log" 2>&1
        rc=$?
        cat "$log"
        p=$(grep -c '^ok ' "$log"); f=$(grep -c '^not ok ' "$log"); s=$(grep -c '^skip ' "$log")
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "not ok - $t exited with status $rc"
            f=1
        fi
        echo "   ($p passed, $f failed, $s skipped, $(( $(date +%s) - start )) s)"
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    done
done
rm -f "$log"
echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
