/* team.h — the OpenMP team: its size at the start, and how it follows the
 * cores that other processes leave free.
 *
 * nbody6c's blocks alternate short parallel loops with serial work, and
 * GCC's OpenMP threads spin while they wait for the next loop.  That is the
 * fastest on a machine of one's own, and a disaster beside a busy process:
 * with more runnable threads than cores the thread holding the work waits
 * for a time slice at every loop.  Sleeping instead of spinning
 * (OMP_WAIT_POLICY=passive) cures that but costs a third or more on a big
 * machine of one's own (docs/BENCHMARKS.md, "Two GPUs and thread teams").
 *
 * Two rules follow.
 *
 * The default team is the process's cores less a reserve: on 32 cores or
 * more one core in 16 for the kernel's and the CUDA driver's threads, which
 * would otherwise take a core from a spinning team now and then and stall
 * its barriers (on the 32-core two-GPU virtual machines measured, 32
 * spinning threads also drew steal time that 30 did not), at least one
 * core for each extra GPU's host thread, and on 32 cores or more another
 * such unit for each GPU host thread beyond the first.  Measured best on
 * those machines: 30 threads of 32 with one GPU and with two, all 16 of 16;
 * on a 64-core four-GPU host (three host threads, whose jobs and 2 ms spins
 * come at every regular force) 1M bodies' block steps took 8-12 s with 48
 * or 52 threads, 18-28 s with 56 and 42 s with 60 (the serial prediction
 * of the small blocks slowed most: a spinning team of 60 beside three
 * spinning host threads leaves the driver no core).  The same cliff came
 * on such a host (64 cores, one socket, one NUMA node, no SMT) with one GPU
 * and no host thread, and sooner with fewer bodies: 1M bodies' block
 * steps 11.1-11.5 s with 48 or 52 threads, 36 s with 56, 40-53 s with 60;
 * 128k bodies' (t = 0 -> 0.5) 6.1, 5.9, 6.2 s with 32, 40, 48 threads,
 * 8.1 s with 52, 8.8-11.6 s with 54-58, 19 s with 60 and 31 s with 64.
 * So on 64 cores or more a quarter is left at least, whatever the GPUs:
 * 48 of 64 (docs/BENCHMARKS.md, "Two GPUs and thread teams").
 *
 * Then, whoever chose the size, the team shrinks while other processes use
 * the cores: every TEAM_INTERVAL_S between blocks a sample is taken (the
 * user, nice and system time of this process's CPUs in /proc/stat, and this
 * process's own CPU time); over the last TEAM_WINDOW intervals the cores
 * the others used are the busy time less one's own; the team shrinks to
 * the rest, rounded (a neighbour that had 2/3 of a core beside a spinning
 * team wants a whole one), and grows only into whole free cores; at least
 * one thread and at most the chosen size.  A new size is taken only after
 * TEAM_CONFIRM decisions in a row agree, so that a burst of kernel work is
 * not a neighbour.  Steal time (a virtual
 * machine's host running something else) and interrupt time are not other
 * processes: a smaller team does not give them back; they are reported.
 * OMP_DYNAMIC=false keeps the team at its size whatever the neighbours do.
 * Results do not depend on the team size (docs/ALGORITHMS.md, "Reproducibility"). */
#ifndef NBODY6C_TEAM_H
#define NBODY6C_TEAM_H

#define TEAM_INTERVAL_S 0.25
enum { TEAM_WINDOW = 4, TEAM_CONFIRM = 3 };

/* Cumulative figures at one moment, in seconds. */
typedef struct team_sample {
    double wall;  /* wall clock */
    double own;   /* this process's CPU time (all its threads) */
    double busy;  /* user + nice + system time of this process's CPUs */
    double steal; /* steal time of those CPUs */
} team_sample;

typedef struct team {
    int adapt;  /* 0: the size stays (OMP_DYNAMIC=false, or /proc/stat unreadable) */
    int cores;  /* CPUs this process may run on */
    int max;    /* the team without neighbours (the user's or the default) */
    int now;    /* the team in use */
    double next; /* wall time of the next sample */
    team_sample win[TEAM_WINDOW + 1]; /* the last samples, oldest first */
    int nwin;
    int pending, agree; /* the size the last decisions asked for, and how many in a row */
    double others, steal; /* cores used by other processes / stolen, over the window */
    char why[200];        /* the reason of the last change, for the log */
    team_sample first;    /* the live side's first sample (have_first), for team_run_load */
    int have_first;
} team;

/* The default team on `cores` CPUs with `host_threads` GPU host threads of
 * the process's own beside it. */
int team_default_size(int cores, int host_threads);

/* Pure state machine (the tests feed it recorded figures). */
void team_init(team *t, int cores, int max, int adapt);
/* The cores other processes used (busy less one's own) and the cores
 * stolen between two samples; -1 when no time passed. */
int team_load_between(const team_sample *a, const team_sample *b, double *others, double *steal);
/* Takes one sample; returns 1 when the team size changes (t->now, t->why). */
int team_feed(team *t, const team_sample *s);

/* Reads the busy and steal time of the CPUs in `mask` (a cpu_set_t, or
 * NULL for all) from the text of /proc/stat; clock ticks `hz` a second.
 * Returns -1 when no CPU line was found. */
int team_parse_stat(const char *text, const void *mask, long hz, double *busy, double *steal);

/* The live side: the first sample, with OpenMP's present team as the
 * size without neighbours. */
void team_start(team *t);
/* Between blocks (cheap until the interval has passed): resizes the team.
 * Returns 1 when it changed (t->why says why). */
int team_adjust(team *t);
/* The mean load of this process's CPUs since team_start, in cores: what
 * other processes used and what a virtual machine's host stole.  Returns
 * -1 when /proc/stat could not be read. */
int team_run_load(const team *t, double *others, double *steal);
/* A line for the log: how the team was chosen (user_chose: --threads or
 * OMP_NUM_THREADS) and whether it follows the neighbours. */
void team_describe(const team *t, int user_chose, int host_threads, char *buf, int len);

#endif
