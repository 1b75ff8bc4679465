/* run.h — one run from a deck to TCRIT: options from the command line, the
 * set-up, the loop of block steps with checks at DTADJ and outputs at
 * DELTAT, the log, the progress line and summary.json. */
#ifndef NBODY6C_RUN_H
#define NBODY6C_RUN_H

#include "deck.h"
#include "gpunb.h"
#include "gpuirr.h"

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
} run_options;

/* Exit codes of the program. */
enum { EXIT_OK = 0, EXIT_RUN_FAILURE = 1, EXIT_BAD_INPUT = 2 };

/* Runs the deck d.  Returns one of the exit codes; messages on stderr. */
int run_deck(const deck *d, const run_options *o);

#endif
