/* block.h — one hierarchical block step of the Ahmad–Cohen Hermite scheme
 * (DESIGN.md "The block step", the paper's Listing C1). */
#ifndef NBODY6C_BLOCK_H
#define NBODY6C_BLOCK_H

#include "sim.h"

typedef struct block_scratch block_scratch;

block_scratch *block_create(const sim *s);
void block_free(block_scratch *b);

/* Forgets the schedule (after bodies' steps changed outside block_step). */
void block_reschedule(block_scratch *b);

/* The time of the next block (min over bodies of t0 + dt). */
double block_next_time(sim *s, block_scratch *b);

/* Integrates the next block: the bodies due at block_next_time.  Returns 0,
 * or -1 with a message in err (e.g. coinciding bodies). */
int block_step(sim *s, block_scratch *b, char *err, size_t errlen);

/* The irregular force on ni bodies from their lists at the predicted state,
 * with NBODY6's fictitious central mass for empty lists.  x, v: the bodies'
 * predicted states (slots).  Returns 0 or -1 (err set). */
int irregular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, char *err, size_t errlen);

/* Regular force, jerk and new lists for ni bodies at their predicted x, v;
 * radii of overflowed lists shrink by 0.9 until every list fits
 * (overflowed[k] = 1 for those).  Lists go to lists + k*nbmax. */
void regular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb,
                   int *lists, int *overflowed);

#endif
