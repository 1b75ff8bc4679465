#!/bin/sh
# batch-2gpu.sh — production runs on a dual-GPU workstation.
#
#   scripts/batch-2gpu.sh DECK1 DECK2     two runs at once, one per GPU, each
#                                         kept to its half of the cores (BIND)
#   scripts/batch-2gpu.sh --both DECK     one run over both GPUs, nbody6c's default team
#   scripts/batch-2gpu.sh --half 1|2 DECK one run as the first (second) run of a
#                                         pair is started, alone: the baseline
#                                         of a pair's slow-down
#
# Each run writes to $OUTROOT/<deck name>/ (default: the current folder).  A
# folder that already holds an unfinished run (checkpoint.bin, summary.json
# without "finished": true) is continued with --restart, so the same command
# resumes after a stop (TCOMP, STOP file, SIGTERM, a job time limit).
# SIGTERM/SIGINT to this script are passed on: every run checkpoints and
# stops cleanly.  The exit status is the worst of the runs'.
#
# Environment: NBODY6C (default bin/nbody6c), CORES (default: all online
# CPUs; give the physical core count on machines with hyper-threading),
# OUTROOT (default .), EXTRA (more nbody6c options, e.g. "--checkpoint-every 30"),
# BIND: how a run of a pair keeps to its half of the cores: "cores" (default:
# the run's CPU set is its half, taskset; its threads move within it),
# "threads" (each OpenMP thread on one core, OMP_PLACES; the CUDA driver's
# threads then share the master thread's core), "none".  On the 2-GPU
# machines measured (docs/notes/benchmarks-history.md, "Dual-GPU workstation") the three
# were within that machine's run-to-run spread of each other.
set -u
NBODY6C=${NBODY6C:-bin/nbody6c}
CORES=${CORES:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)}
OUTROOT=${OUTROOT:-.}
EXTRA=${EXTRA:-}

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# run_one DECK GPUS FIRST_CORE NCORES BIND: one run on the given GPUs and
# cores FIRST_CORE .. FIRST_CORE+NCORES-1, in the background.
run_one() {
    deck=$1 gpus=$2 first=$3 n=$4 bind=$5
    name=$(basename "$deck"); name=${name%.*}
    out=$OUTROOT/$name
    ngpu=$(echo "$gpus" | tr ',' '\n' | wc -l)
    if [ -f "$out/checkpoint.bin" ] && ! grep -q '"finished": true' "$out/summary.json" 2>/dev/null; then
        what="--restart $out/checkpoint.bin"
    else
        what="--out $out $deck"
    fi
    echo "batch-2gpu: $name on GPU $gpus, cores $first-$((first + n - 1)) ($bind): $NBODY6C $what" >&2
    # OMP_PLACES "{first}:n:1" = n single-core places from core `first`.
    set --
    case "$bind" in
        threads) places="OMP_PLACES={$first}:$n:1 OMP_PROC_BIND=close" ;;
        cores) places="OMP_PROC_BIND=false"
               if command -v taskset >/dev/null 2>&1; then set -- taskset -c "$first-$((first + n - 1))"
               else echo "batch-2gpu: no taskset: $name runs on any core" >&2; fi ;;
        *) places="OMP_PROC_BIND=false" ;;
    esac
    # the team: nbody6c's default on the run's own CPU set (its cores less
    # a core for the system on 16 or more, less one for the second GPU's
    # host thread); with BIND=threads the places fix it at n, and a run of
    # a pair with BIND=none, whose CPU set is every core, takes its half
    team=""
    if [ "$bind" = threads ] || { [ "$bind" = none ] && [ "$n" -lt "$CORES" ]; }; then
        team="OMP_NUM_THREADS=$n"
    fi
    env CUDA_VISIBLE_DEVICES="$gpus" $team $places \
        "$@" "$NBODY6C" --quiet --ngpu "$ngpu" $EXTRA $what >>"$OUTROOT/$name.stdout" 2>>"$OUTROOT/$name.stderr" &
    pids="$pids $!"
}

# The two GPUs: 0 and 1, or the first two of CUDA_VISIBLE_DEVICES when a
# batch system has set it to the GPUs granted to this job.
GPU_A=0 GPU_B=1
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    GPU_A=$(echo "$CUDA_VISIBLE_DEVICES" | cut -d, -f1)
    GPU_B=$(echo "$CUDA_VISIBLE_DEVICES" | cut -d, -f2)
fi

pids=""
forward() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
}
trap forward TERM INT

BIND=${BIND:-cores}
case "$BIND" in cores|threads|none) ;; *) echo "batch-2gpu: BIND must be cores, threads or none" >&2; exit 2 ;; esac
half=$((CORES / 2))
[ "$half" -ge 1 ] || half=1

[ $# -ge 1 ] || usage
mkdir -p "$OUTROOT"
if [ "$1" = "--both" ]; then
    [ $# -eq 2 ] || usage
    # not "threads": the second GPU's host thread would inherit the master's core
    run_one "$2" "$GPU_A,$GPU_B" 0 "$CORES" none
elif [ "$1" = "--half" ]; then
    [ $# -eq 3 ] || usage
    case "$2" in
        1) run_one "$3" "$GPU_A" 0 "$half" "$BIND" ;;
        2) run_one "$3" "$GPU_B" "$half" "$half" "$BIND" ;;
        *) usage ;;
    esac
elif [ $# -eq 2 ]; then
    run_one "$1" "$GPU_A" 0 "$half" "$BIND"
    run_one "$2" "$GPU_B" "$half" "$half" "$BIND"
else
    usage
fi

status=0
for p in $pids; do
    # wait returns early when a trapped signal arrives: wait again
    while :; do
        wait "$p"; rc=$?
        kill -0 "$p" 2>/dev/null || break
    done
    [ "$rc" -gt "$status" ] && status=$rc
done
exit $status
