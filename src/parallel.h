/* parallel.h — how many OpenMP threads a loop of a given size gets.
 *
 * A block step runs several short parallel loops, and most blocks are small:
 * waking every core for a few microseconds of work costs more than the work
 * (measured on the 16-core GPU machine: blocks of 9-64 bodies spent most of
 * their time in thread start-up).  So a loop gets one thread per `grain`
 * units of work, up to the OpenMP maximum. */
#ifndef NBODY6C_PARALLEL_H
#define NBODY6C_PARALLEL_H

#include <omp.h>

static inline int par_threads(long work, long grain)
{
    long n = work / grain;
    int max = omp_get_max_threads();
    return n < 1 ? 1 : (n > max ? max : (int)n);
}

#endif
