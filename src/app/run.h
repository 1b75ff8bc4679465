/* run.h — one run from a deck to TCRIT: options from the command line, the
 * set-up, the loop of block steps with checks at DTADJ and outputs at
 * DELTAT, the log, the progress line and summary.json. */
#ifndef NBODY6C_RUN_H
#define NBODY6C_RUN_H

#include "io/deck.h"
#include "gpunb/gpunb.h"
#include "gpuirr/gpuirr.h"

typedef struct run_options {
    const char *deck_path;   /* "-" = stdin */
    const char *out_dir;     /* default "nbody6c-run" */
    const char *ic_file;     /* KZ(22) file, default fort.10 */
    int force;               /* overwrite an existing run */
    int threads;             /* 0 = OpenMP default */
    int nbmax;               /* 0 = max(NNBMAX + 50, 400) */
    int quiet;               /* no progress line */
    gpunb_config gpu;
    gpuirr_simd simd;
    /* ---- snapshots, checkpoints, restarts (snapshot.h, checkpoint.h) ---- */
    const char *restart_path;  /* --restart FILE: continue that checkpoint */
    double checkpoint_every;   /* minutes of wall time between checkpoints; 0: 60, < 0: never */
    int checkpoint_at_dtadj;   /* also a checkpoint at every energy check */
    int no_snapshots;          /* --snapshots off */
    int snapshot_layout;       /* --snapshot-layout: SNAP_LAYOUT_* */
    /* ---- KS ---- */
    int ks_off;                /* 1: no KS regularisation (comparisons, benchmarks) */
    int energy_audit;          /* every event measured by the whole energy (ledger.h) */
    double energy_probe;       /* > 0: probe.txt, E every this much model time (run.c) */
    /* ---- stellar evolution (KZ(19) = 3) ---- */
    const char *kicks;         /* --kicks: the remnants' kick distributions (evol.h), NULL: NBODY6's */
} run_options;

/* Which snapshot files a run writes (docs/SNAPSHOTS.md). */
enum { SNAP_LAYOUT_NBODY6C, SNAP_LAYOUT_NBODY6PP, SNAP_LAYOUT_BOTH };

/* Exit codes of the program. */
enum { EXIT_OK = 0, EXIT_RUN_FAILURE = 1, EXIT_BAD_INPUT = 2 };

/* A run in memory, without files (the program's loop and the tests use these).
 * run_start: the sim with both libraries open, its block scratch in s->bs,
 * start-up polynomials done and the t = 0 measurement in *d0 (may be NULL). */
struct sim;
struct diag;
struct sim *run_start(const deck *d, int n, const double *m, const double (*x)[3],
                      const double (*v)[3], const run_options *o, struct diag *d0,
                      char *err, size_t errlen);
/* Block steps up to time t (the last block at or before t), then s->time = t. */
int run_advance(struct sim *s, double t, char *err, size_t errlen);
void run_end(struct sim *s);

/* Runs the deck d.  Returns one of the exit codes; messages on stderr.
 * o->out_dir NULL: "nbody6c-run".  A run stopped early (SIGTERM, SIGINT,
 * TCOMP, STOP file, NCRIT) writes a checkpoint and returns EXIT_OK; log.txt
 * and summary.json ("stop_reason") say why. */
int run_deck(const deck *d, const run_options *o);

/* Continues the checkpoint o->restart_path.  rd: an NBODY6 restart deck
 * (KSTART 2-5) whose new values replace the saved ones (values <= 0 keep
 * them), or NULL to continue as saved.  o->out_dir NULL: the checkpoint's
 * folder (log.txt there continues). */
int run_restart(const deck *rd, const run_options *o);

#endif
