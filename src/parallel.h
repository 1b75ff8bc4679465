/* parallel.h — when a loop of the block step is worth running in parallel.
 *
 * Most blocks are small, and a parallel loop costs a wake-up of the whole
 * thread team.  Measured on the 16-core GPU machine (32k bodies, t = 0 -> 2):
 * teams of varying size (one thread per grain of work) made the run 2.2x
 * slower than the whole team or one thread, so a loop takes either. */
#ifndef NBODY6C_PARALLEL_H
#define NBODY6C_PARALLEL_H

/* 1 when `work` units (predictions, pairs, bodies) reach `grain`, the size
 * below which the team's wake-up costs more than the loop. */
static inline int par_worth(long work, long grain) { return work >= grain; }

#endif
