/* runstate.h — what a run keeps beside struct sim (app/run.c's check and
 * output schedule, counters and the log's energy bookkeeping), and its
 * checkpoint section (RUNS). */
#ifndef NBODY6C_RUNSTATE_H
#define NBODY6C_RUNSTATE_H

#include <stdint.h>
#include "core/bytes.h"
#include "integ/checks.h"

/* What run.c keeps beside struct sim: the check and output schedule, the
 * output counters and the log's energy bookkeeping. */
typedef struct run_state {
    double tcheck, tout;     /* next energy check (DTADJ) and output (DELTAT) */
    int64_t nout;            /* outputs made so far (DELTAT times passed) */
    int64_t nsnap;           /* snapshots written (the last one's number) */
    int64_t nckpt;           /* checkpoints written */
    double e0, eprev;        /* run log: first and previous energy */
    double de_sum_abs, de_last;
    int64_t log_bytes;       /* length of log.txt that belongs to this state */
    diag last;               /* the last measurement (summary, progress) */
    /* ---- NBODY6's error control (check.f; run.c) ---- */
    double echeck;           /* E at the last energy check that passed */
    int64_t qe_repeats;      /* consecutive failed checks repeated with KZ(2) = 2 */
    double etai0, etar0;     /* the ETAs KZ(17) may return to */
} run_state;

/* The RUNS section's body.  load returns 0, or -1 for a malformed one; a
 * body written before the error control's fields were added reads as "no
 * check passed yet" (echeck = the last measured energy). */
void runstate_save(wbuf *w, const run_state *rs);
int runstate_load(rbuf *r, run_state *rs);

#endif
