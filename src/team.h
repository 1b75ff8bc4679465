/* team.h — the default OpenMP team on a shared machine (issue 14, item 2).
 *
 * nbody6c's blocks alternate short parallel loops with serial work, and
 * GCC's OpenMP threads spin while they wait for the next loop.  That is the
 * fastest on a machine of one's own, and a disaster beside a busy process:
 * with more runnable threads than cores the thread holding the work waits
 * for a time slice at every loop (3-37 times slower than one thread on 2
 * cores).  Sleeping instead of spinning (OMP_WAIT_POLICY=passive) cures that
 * but costs 25-45 % on a dedicated 16-core machine.
 *
 * So the waiting is left as it is, and the default team follows the machine:
 * every TEAM_INTERVAL_S of wall time, between blocks, the team becomes the
 * cores of this process's CPU set that other processes leave free (the CPU
 * time of those cores in /proc/stat less this process's own), at least one
 * and at most the default team.  Two such runs side by side settle at half
 * the cores each.  A team the user chose (--threads, OMP_NUM_THREADS) is
 * never changed.  Results do not depend on the team size (DESIGN.md,
 * "Reproducibility"), so neither do they on the neighbours. */
#ifndef NBODY6C_TEAM_H
#define NBODY6C_TEAM_H

#define TEAM_INTERVAL_S 0.25

typedef struct team {
    int active;       /* 0: the user chose the team, or /proc/stat is not readable */
    int max;          /* the default team (omp_get_max_threads() at the start) */
    int now;          /* the team in use */
    double next;      /* wall time of the next sample */
    double wall, cpu; /* wall time and this process's CPU time at the last sample */
    double busy;      /* busy CPU seconds of this process's CPUs at the last sample */
    double others;    /* cores that other processes used over the last interval */
} team;

/* Takes the first sample.  user_chose: the team was set by the user. */
void team_start(team *t, int user_chose);
/* Between blocks (cheap until the interval has passed): resizes the team to
 * the free cores.  Returns 1 when the team changed (t->now, t->others). */
int team_adjust(team *t);

#endif
