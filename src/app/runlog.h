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

/* log.txt's columns, in order: X(id, name, unit, width, format, meaning).
 * One line declares a column: its header name, unit (printed in the units
 * line under the names; "-" for counts and ratios), field width and printf
 * format (taking the width, then the value as a double).  runlog.c's
 * fill_row gives each id its value at a check; README's tables say what
 * each means (tests/test_cli.c checks that they name every column).  A
 * column may go anywhere: a restart whose log has other columns writes the
 * names again, and readers take each row by the names above it. */
#define RUNLOG_COLUMNS(X)                                                                        \
    X(t, "t", "N-body", 10, "%*.5f", "time")                                                     \
    X(t_myr, "t_myr", "Myr", 11, "%*.4f", "time, t TSTAR")                                       \
    X(n, "N", "-", 8, "%*.0f", "stars in the run (KS pairs, mergers and the chain by members)")   \
    X(mass, "M", "N-body", 9, "%*.6f", "total mass")                                             \
    X(mass_msun, "M_msun", "Msun", 11, "%*.6g", "total mass in Msun")                            \
    X(mbound, "M_b", "N-body", 9, "%*.6f", "bound mass (checks.h)")                              \
    X(r_dc, "r_dc", "N-body", 9, "%*.3e", "distance of the density centre from the origin")     \
    X(rc, "rc", "N-body", 9, "%*.5f", "core radius")                                             \
    X(nc, "nc", "-", 6, "%*.0f", "bodies inside the core radius")                                \
    X(rh, "rh", "N-body", 9, "%*.5f", "half-mass radius (the 50 % Lagrangian radius)")           \
    X(r1, "r1%", "N-body", 9, "%*.5f", "Lagrangian radius of 1 % of the mass")                   \
    X(r2, "r2%", "N-body", 9, "%*.5f", "2 %")                                                    \
    X(r5, "r5%", "N-body", 9, "%*.5f", "5 %")                                                    \
    X(r10, "r10%", "N-body", 9, "%*.5f", "10 %")                                                 \
    X(r20, "r20%", "N-body", 9, "%*.5f", "20 %")                                                 \
    X(r30, "r30%", "N-body", 9, "%*.5f", "30 %")                                                 \
    X(r40, "r40%", "N-body", 9, "%*.5f", "40 %")                                                 \
    X(r62, "r62.5%", "N-body", 9, "%*.5f", "62.5 %")                                             \
    X(r75, "r75%", "N-body", 9, "%*.5f", "75 %")                                                 \
    X(r90, "r90%", "N-body", 9, "%*.5f", "90 %")                                                 \
    X(sigma, "sigma", "N-body", 9, "%*.5f", "3-D velocity dispersion of the bound mass")         \
    X(qvir, "Q", "-", 8, "%*.5f", "virial ratio T/|W|")                                          \
    X(n_bin, "n_bin", "-", 7, "%*.0f", "binaries: bound pairs of stars (binaries.txt)")          \
    X(n_bin_hard, "n_bin_hard", "-", 10, "%*.0f", "hard ones among them")                        \
    X(e, "E", "N-body", 14, "%*.10f", "total energy")                                            \
    X(kin, "T", "N-body", 14, "%*.10f", "kinetic energy")                                        \
    X(pot, "W", "N-body", 14, "%*.10f", "potential energy")                                      \
    X(de, "dE", "-", 11, "%*.3e", "the interval's energy change over max(T, |E|)")              \
    X(de_cum, "dE_cum", "-", 11, "%*.3e", "(E - E0)/max(T, |E|)")                                \
    X(nnb, "<nnb>", "-", 8, "%*.2f", "mean neighbour-list size")                                 \
    X(steps_irr, "steps_irr", "-", 13, "%*.0f", "irregular steps so far")                        \
    X(steps_reg, "steps_reg", "-", 12, "%*.0f", "regular steps so far")                          \
    X(wall, "wall", "s", 9, "%*.2f", "integration wall time")                                    \
    X(wall_reg, "wall_reg", "s", 9, "%*.2f", "of it the regular force")                          \
    X(wall_irr, "wall_irr", "s", 9, "%*.2f", "of it the irregular force")                        \
    X(wall_rest, "wall_rest", "s", 9, "%*.2f", "the rest")                                       \
    X(ks_form, "ks_form", "-", 8, "%*.0f", "KS pairs formed so far")                             \
    X(ks_term, "ks_term", "-", 8, "%*.0f", "KS pairs terminated so far")                         \
    X(ks_steps, "ks_steps", "-", 11, "%*.0f", "KS steps so far")                                 \
    X(n_hard, "n_hard", "-", 6, "%*.0f", "hard KS binaries")                                     \
    X(ebin, "ebin", "N-body", 13, "%*.6e", "their binding energy")                               \
    X(e_tide, "e_tide", "N-body", 11, "%*.3e", "tidal energy booked at KS model changes")       \
    X(de_rest, "dE_rest", "-", 10, "%*.2e", "ledger: the rest")                                  \
    X(de_ksform, "dE_ksform", "-", 10, "%*.2e", "ledger: KS formations")                         \
    X(de_ksterm, "dE_ksterm", "-", 10, "%*.2e", "ledger: KS terminations")                       \
    X(de_kspend, "dE_kspend", "-", 10, "%*.2e", "ledger: change of the KS pairs' pending term")  \
    X(de_tide, "dE_tide", "-", 10, "%*.2e", "ledger: tidal energy booked")                       \
    X(ch_beg, "ch_beg", "-", 6, "%*.0f", "chains started so far")                                \
    X(ch_end, "ch_end", "-", 6, "%*.0f", "chains ended so far")                                  \
    X(de_chain, "dE_chain", "-", 10, "%*.2e", "ledger: chain starts and ends")                   \
    X(e_chain, "e_chain", "N-body", 10, "%*.3e", "the active chain's internal energy")           \
    X(n_merge, "n_merge", "-", 7, "%*.0f", "stable hierarchies merged now")                      \
    X(e_merge, "e_merge", "N-body", 13, "%*.6e", "their inner pairs' energy (EMERGE)")          \
    X(de_merge, "dE_merge", "-", 10, "%*.2e", "ledger: merges and splits")                       \
    X(m_star, "M_star", "Msun", 11, "%*.3f", "the stars' mass (KZ(19) = 3; nan without)")         \
    X(m_lost, "M_lost", "Msun", 10, "%*.3f", "mass lost to stellar evolution so far (ZMDOT)")     \
    X(n_wd, "n_WD", "-", 6, "%*.0f", "white dwarfs now (KZ(19) = 3)")                             \
    X(n_ns, "n_NS", "-", 6, "%*.0f", "neutron stars now (KZ(19) = 3)")                            \
    X(n_bh, "n_BH", "-", 6, "%*.0f", "black holes now (KZ(19) = 3)")                              \
    X(de_star, "dE_star", "-", 10, "%*.2e", "ledger: stellar evolution's energy booked")          \
    X(n_coll, "n_coll", "-", 7, "%*.0f", "stellar collisions so far (KZ(19) = 3)")

/* One row of log.txt: a double per column. */
typedef struct runlog_row {
#define RUNLOG_ROW_FIELD(id, name, unit, width, fmt, what) double id;
    RUNLOG_COLUMNS(RUNLOG_ROW_FIELD)
#undef RUNLOG_ROW_FIELD
} runlog_row;

typedef struct runlog {
    FILE *log;
    double tstar;        /* Myr per N-body time unit (the t_myr column) */
    double munit;        /* Msun per N-body mass unit (M_msun) */
    int quiet;
    double e0, eprev;
    double de_sum_abs;   /* sum over checks of |dE/E| */
    double de_last;      /* last interval's dE/max(T,|E|) */
    double wall0;        /* wall clock at the start of the integration */
    int team_min;        /* the smallest OpenMP team of the run (0: not followed) */
    int team_changes;    /* how often the team changed size (team.h) */
    double load_others, load_steal; /* the run's mean load of its CPUs (team_run_load; < 0: unknown) */
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
/* The column names line and the units line under it (RUNLOG_COLUMNS). */
void runlog_column_header(FILE *f);
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
