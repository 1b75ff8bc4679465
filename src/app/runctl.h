/* runctl.h — production-run controls (NBODY6's TCOMP, STOP file, NCRIT, and
 * SIGTERM/SIGINT from batch systems): why a run stops early.  The loop in
 * run.c asks between block steps; every early stop ends with a checkpoint,
 * so the run can be continued with --restart. */
#ifndef NBODY6C_RUNCTL_H
#define NBODY6C_RUNCTL_H

typedef enum stop_reason {
    STOP_NONE = 0,
    STOP_TCRIT,      /* finished: t reached TCRIT */
    STOP_SIGTERM,
    STOP_SIGINT,
    STOP_TCOMP,      /* wall-time limit of the deck's line 1 */
    STOP_FILE,       /* a file named STOP appeared in the run folder */
    STOP_NCRIT,      /* fewer than NCRIT bodies remain */
    STOP_ENERGY      /* an energy check failed 5 QE (NBODY6's "CALCULATIONS HALTED") */
} stop_reason;

/* "tcrit", "sigterm", "sigint", "tcomp", "stop-file", "ncrit", "energy-error"
 * ("" for none). */
const char *runctl_reason_name(stop_reason r);

/* SIGTERM and SIGINT set a flag (the loop stops at the next block boundary
 * after a checkpoint); the handler resets itself, so a second signal ends the
 * program at once as usual. */
void runctl_install_signals(void);
/* STOP_SIGTERM / STOP_SIGINT once such a signal came, else STOP_NONE. */
stop_reason runctl_signal_stop(void);

/* 1 when DIR/STOP exists. */
int runctl_stop_file(const char *dir, char *path, int pathlen);

#endif
