/* runlog.h — what a run writes for its users: log.txt (one line per check,
 * columns documented in the README), the progress line on stderr and
 * summary.json at the end. */
#ifndef NBODY6C_RUNLOG_H
#define NBODY6C_RUNLOG_H

#include <stdio.h>
#include "integ/checks.h"
#include "core/sim.h"

/* Where this process's wall time went outside the block steps (app/run.c
 * fills it; the set-up's and the checks' parts are in the sim's timers). */
typedef struct run_walls {
    double process0;     /* omp_get_wtime() when the process began the run */
    double model;        /* the initial model: masses, positions, scaling */
    double snapshots, checkpoints;
    double steps0;       /* the block steps' wall time before this process (a restart's) */
} run_walls;

typedef struct runlog {
    FILE *log;
    int quiet;
    double e0, eprev;
    double de_sum_abs;   /* sum over checks of |dE/E| */
    double de_last;      /* last interval's dE/max(T,|E|) */
    double wall0;        /* wall clock at the start of the integration */
    int team_min;        /* the smallest OpenMP team of the run (0: not followed) */
    int team_changes;    /* how often the team changed size (team.h) */
    int row_as_comment;  /* the next check's row is written as a "# " comment */
    run_walls walls;
    /* ---- restarts and early stops (checkpoint.h, runctl.h) ---- */
    const char *stop_reason; /* summary.json "stop_reason"; NULL: "tcrit" (finished) */
} runlog;

/* Opens DIR/log.txt (already checked by the caller) and writes the header:
 * the version, `source` (where the run comes from: "deck PATH", "restart of
 * ..."), the parameters and backends, then `notes`, one "# " line per line
 * (initial conditions, units, KZ notes). */
int runlog_open(runlog *r, const char *dir, const sim *s, const char *source,
                const char *notes, char *err, size_t errlen);
/* Records one check (first = the t = 0 line); li: the interval's energy
 * ledger (NULL at the first). */
/* The scale of every relative energy error nbody6c writes (the log's dE,
 * dE_cum and ledger columns, the progress line, summary.json's de_rel,
 * de_sum_abs and energy_ledger): max(T, |E|) of the check, as NBODY6's
 * check.f divides its DE.  |E| alone misleads where E is near zero or
 * dominated by a tidal field's energy. */
double runlog_energy_scale(const diag *d);
void runlog_check(runlog *r, const sim *s, const diag *d, const ledger_interval *li, int first);
void runlog_progress(const runlog *r, const sim *s, const diag *d);
/* Ends a progress line left on the terminal, before a message on stderr. */
void runlog_progress_break(void);
int runlog_summary(const runlog *r, const char *dir, const sim *s, const diag *d,
                   char *err, size_t errlen);
void runlog_close(runlog *r);
/* "# " lines with the wall time of the set-up (after the header) and of
 * the whole process by part (at the end); summary.json has the same. */
void runlog_setup_walls(runlog *r, const sim *s);
void runlog_walls(runlog *r, const sim *s);

/* ---- restarts and early stops ---- */
/* Continues DIR/log.txt of a restarted run: cut to `bytes` (what belonged to
 * the checkpoint's state) and append.  Returns 0, or -1 when the file is
 * missing or shorter (the caller then starts a new log). */
int runlog_reopen(runlog *r, const char *dir, long long bytes);
/* A comment line "# ..." (checkpoints, stops, restarts). */
void runlog_note(runlog *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The log's length so far (for the checkpoint). */
long long runlog_bytes(runlog *r);

#endif
