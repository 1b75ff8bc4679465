/* parallel.h — when a loop of the block step is worth running in parallel.
 *
 * Most blocks are small, and a parallel loop costs a wake-up of the whole
 * thread team.  Measured on the 16-core GPU machine (32k bodies, t = 0 -> 2):
 * teams of varying size (one thread per grain of work) made the run 2.2x
 * slower than the whole team or one thread, so a loop takes either. */
#ifndef NBODY6C_PARALLEL_H
#define NBODY6C_PARALLEL_H

#include <omp.h>

/* 1 when `work` units (predictions, pairs, bodies) reach `grain`, the size
 * below which the team's wake-up costs more than the loop. */
static inline int par_worth(long work, long grain) { return work >= grain; }

/* The same for a loop over block members whose state sits at random slots
 * (a few cache lines each).  After the parallel phases of big blocks those
 * lines are in other cores' caches, so on a big team (8 threads or more)
 * one core fetching a few hundred of them waits longer than the team's
 * wake-up: GPUIRR's prediction of 256-2047 slots on the 16-core GPU hosts
 * (docs/notes/benchmarks-history.md, "Small blocks on the 16-core hosts").  There such
 * loops go parallel from MEMBERS_GRAIN_BIG_TEAM members. */
enum { MEMBERS_GRAIN_BIG_TEAM = 256, BIG_TEAM = 8 };
static inline int par_worth_members(long n, long grain)
{
    if (grain > MEMBERS_GRAIN_BIG_TEAM && omp_get_max_threads() >= BIG_TEAM) grain = MEMBERS_GRAIN_BIG_TEAM;
    return n >= grain;
}

#endif
