#!/bin/bash
# cc-acceptance.sh — the core-collapse acceptance runs of issue 11, side by
# side, each on one thread with the CPU backends (the figures in
# docs/BENCHMARKS.md, "Accuracy to expect", come from these):
#
#   cc12345, cc4711, cc31415   input/cc-plummer-2048.deck with NRAND 12345
#                              (as shipped), 4711, 31415: to t = 900, DTADJ 10
#   imf1024                    input/plummer-imf-1024-t200.deck: power-law
#                              masses 10 -> 0.1, to t = 200, DTADJ 2
#
#   scripts/cc-acceptance.sh OUTDIR [RUN...]      (default: all four)
#
# A run whose OUTDIR/RUN/checkpoint.bin exists and has not finished goes on
# from it (--restart), so the script can be called again after a stop.
# CC_TIME_LIMIT=SECONDS stops every run cleanly (SIGTERM: a checkpoint is
# written) after that much wall time.  NBODY6C is the binary (default
# build/bin/nbody6c).  At the end: each run's time reached, the number of
# checks, the largest per-check |dE/E| and those above 1e-4.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${1:?usage: $0 OUTDIR [RUN...]}
shift
runs=${*:-cc12345 cc4711 cc31415 imf1024}
bin=${NBODY6C:-build/bin/nbody6c}
[ -x "$bin" ] || { echo "$0: no binary $bin (make first, or set NBODY6C)" >&2; exit 2; }
mkdir -p "$out" || exit 2

deck_of() {
    case "$1" in
        cc*) sed "2s/^\( *[0-9]* *[0-9]* *[0-9]*\) *[0-9]*/\1 ${1#cc}/" input/cc-plummer-2048.deck ;;
        imf1024) cat input/plummer-imf-1024-t200.deck ;;
        *) return 1 ;;
    esac
}

pids=""
for r in $runs; do
    d=$out/$r
    deck_of "$r" >"$out/$r.deck" || { echo "$0: unknown run $r" >&2; exit 2; }
    if grep -q "energy error above" "$out/$r.out" 2>/dev/null; then
        continue # halted by the error control: a restart would only repeat it
    elif [ -f "$d/checkpoint.bin" ] && ! grep -q '"finished": true' "$d/summary.json" 2>/dev/null; then
        "$bin" --restart "$d/checkpoint.bin" --threads 1 --gpu=off --quiet --checkpoint-every 1 \
            >>"$out/$r.out" 2>&1 &
    elif [ ! -f "$d/summary.json" ]; then
        "$bin" "$out/$r.deck" --out "$d" --force --threads 1 --gpu=off --quiet --checkpoint-every 1 \
            >>"$out/$r.out" 2>&1 &
    else
        continue
    fi
    pids="$pids $!"
done
if [ -n "${CC_TIME_LIMIT:-}" ] && [ -n "$pids" ]; then
    ( sleep "$CC_TIME_LIMIT"; kill -TERM $pids 2>/dev/null ) &
    killer=$!
fi
for p in $pids; do wait "$p"; done
[ -n "${killer:-}" ] && kill "$killer" 2>/dev/null

printf '%-9s %9s %7s %11s %s\n' run t_reached checks max_dE above_1e-4
for r in $runs; do
    log=$out/$r/log.txt
    [ -f "$log" ] || continue
    scripts/log-columns "$log" t dE |
    awk -v r="$r" 'NF == 2 { n++; t = $1; a = $2 < 0 ? -$2 : $2; if (a > m) m = a;
                             if (a > 1e-4) { big = big sprintf(" %s:%s", $1, $2) } }
         END { printf "%-9s %9s %7d %11.3e%s\n", r, t, n, m, big }'
done
