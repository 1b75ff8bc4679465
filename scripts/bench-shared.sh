#!/bin/sh
# bench-shared.sh [--cpus LIST] [--reps K] [--bin PATH] DECK [nbody6c options...]
#
# What one busy neighbour costs a run (issue 14, item 2): DECK with the
# default thread team and with --threads 1, each alone and beside one busy
# process (a shell loop), K times each (default 1).  Prints the wall time of
# every run (the whole process, start-up included) and the ratio
#     (default team beside the neighbour) / (--threads 1 beside the neighbour)
# which should stay at or below 1.5: the neighbour should cost this run no
# more than its fair share of the cores.
#
# --cpus LIST pins the runs and the neighbour to those CPUs (taskset), so
# "--cpus 0,1" is a 2-core machine on a larger one.  The environment passes
# through, so OMP_WAIT_POLICY=active, GOMP_SPINCOUNT=... or OMP_NUM_THREADS
# compare other settings with nbody6c's defaults.  Not a test: timings
# depend on the machine and on whatever else runs there.
set -e
cpus=""; reps=1; bin=bin/nbody6c
while [ $# -gt 0 ]; do
    case "$1" in
        --cpus) cpus="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--cpus LIST] [--reps K] [--bin PATH] DECK [options]" >&2; exit 2; }
deck="$1"; shift
[ -f "$deck" ] || { echo "$0: $deck: no such deck" >&2; exit 2; }
[ -x "$bin" ] || { echo "$0: $bin not built (make)" >&2; exit 2; }
pin=""
[ -n "$cpus" ] && pin="taskset -c $cpus"
tmp=$(mktemp -d)
neighbour=""
cleanup() { [ -n "$neighbour" ] && kill "$neighbour" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

# one run: prints its wall time in seconds
run_once() {
    t0=$(date +%s.%N)
    $pin "$bin" --quiet --force --out "$tmp/run" "$@" "$deck" >"$tmp/out" 2>&1 ||
        { cat "$tmp/out" >&2; echo "$0: the run failed" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}

# the best of K runs (the least disturbed by the rest of the machine)
best_of() {
    best=""
    for k in $(seq "$reps"); do
        t=$(run_once "$@")
        best=$(echo "$t $best" | awk '{print (NF == 1 || $1 < $2) ? $1 : $2}')
    done
    echo "$best"
}

echo "deck $deck, options '$*', cpus ${cpus:-all}, best of $reps"
echo "env: OMP_NUM_THREADS=${OMP_NUM_THREADS-} OMP_WAIT_POLICY=${OMP_WAIT_POLICY-} GOMP_SPINCOUNT=${GOMP_SPINCOUNT-} OMP_PLACES=${OMP_PLACES-}"
alone_def=$(best_of "$@")
alone_one=$(best_of --threads 1 "$@")
$pin sh -c 'while :; do :; done' &
neighbour=$!
busy_def=$(best_of "$@")
busy_one=$(best_of --threads 1 "$@")
kill "$neighbour"; neighbour=""
printf '%-34s %10s %10s\n' "" "alone" "neighbour"
printf '%-34s %9ss %9ss\n' "default team" "$alone_def" "$busy_def"
printf '%-34s %9ss %9ss\n' "--threads 1" "$alone_one" "$busy_one"
echo "$busy_def $busy_one" | awk '{r = $1 / $2; printf "ratio default/1-thread beside the neighbour: %.2f (%s)\n", r, r <= 1.5 ? "within 1.5" : "ABOVE 1.5"}'
