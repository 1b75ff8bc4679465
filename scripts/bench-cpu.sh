#!/bin/sh
# CPU benchmark: the 1k-32k sample decks from t = 0 to 2 on the CPU backends,
# THREADS threads (default 2, like NBODY6's reference figures).  Prints a
# Markdown table and puts it into docs/BENCHMARKS.md between the
# "bench-cpu" markers, with the machine, the date, the code (commit) and the
# command.
#   scripts/bench-cpu.sh [DECK...]      (env: THREADS, SIMD, BIN)
set -e
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/nbody6c}
THREADS=${THREADS:-2}
SIMD=${SIMD:-auto}
[ $# -eq 0 ] && set -- input/plummer-eq-1024-t2.deck input/plummer-imf-1024-t2.deck \
    input/plummer-eq-4096-t2.deck input/plummer-imf-4096-t2.deck input/plummer-imf-16384-t2.deck \
    input/plummer-imf-32768-t2.deck
out=$(mktemp -d)
field() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2"; }
# NBODY6's CPU (AVX) build on 2 cores, measured once (input/README.md)
ref() {
    case "$1" in
    plummer-imf-1024-t2.deck) echo "0.25 s, 6.4e-6, 0.33 M / 0.10 M, 17" ;;
    plummer-imf-4096-t2.deck) echo "1.77 s, 9.7e-7, 1.84 M / 0.44 M, 29" ;;
    plummer-imf-16384-t2.deck) echo "22.9 s, 2.8e-8, 11.2 M / 2.02 M, 47" ;;
    plummer-imf-32768-t2.deck) echo "77.1 s, 5.7e-9, 27.8 M / 4.30 M, 60" ;;
    plummer-eq-1024-t2.deck) echo "0.27 s, 2.9e-7, 0.39 M / 0.084 M, 17" ;;
    plummer-eq-4096-t2.deck) echo "1.65 s, 4.1e-8, 2.20 M / 0.35 M, 25" ;;
    *) echo "-" ;;
    esac
}
table=$(mktemp)
{
echo "| deck | N | wall (s) | start-up (s) | regular (s) | irregular (s) | ΔE/E at t=2 | irregular / regular steps | ⟨N_nb⟩ | backends | NBODY6 AVX, 2 threads (wall, ΔE/E, steps, ⟨N_nb⟩) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for deck in "$@"; do
    name=$(basename "$deck")
    "$BIN" --quiet --gpu=off --simd="$SIMD" --threads "$THREADS" --force --out "$out/run" "$deck" >&2
    s="$out/run/summary.json"
    printf '| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2e | %s / %s | %.1f | %s + %s | %s |\n' \
        "$name" "$(field n "$s")" "$(field wall_s "$s")" "$(field wall_startup_s "$s")" \
        "$(field wall_regular_s "$s")" "$(field wall_irregular_s "$s")" "$(field de_rel "$s")" \
        "$(field steps_irregular "$s")" "$(field steps_regular "$s")" "$(field mean_neighbours "$s")" \
        "$(field gpunb_backend "$s")" "$(field gpuirr_backend "$s")" "$(ref "$name")"
done
} > "$table"
cat "$table"
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
doc=docs/BENCHMARKS.md
[ -f "$doc" ] || printf '# Benchmarks\n\n<!-- bench-cpu -->\n<!-- /bench-cpu -->\n' > "$doc"
new=$(mktemp)
{
    sed -n '1,/<!-- bench-cpu -->/p' "$doc"
    code=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    git diff --quiet HEAD -- src gpunb gpuirr 2>/dev/null || code="$code with local changes"
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores of $cpu, $THREADS threads, code $code, \`THREADS=$THREADS SIMD=$SIMD scripts/bench-cpu.sh\` (t = 0 → 2, wall = integration without start-up):"
    echo
    cat "$table"
    sed -n '/<!-- \/bench-cpu -->/,$p' "$doc"
} > "$new"
mv "$new" "$doc"
rm -rf "$out" "$table"
