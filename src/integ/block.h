/* block.h — one hierarchical block step of the Ahmad–Cohen Hermite scheme
 * (docs/ALGORITHMS.md "The block step", the paper's Listing C1). */
#ifndef NBODY6C_BLOCK_H
#define NBODY6C_BLOCK_H

#include <stdio.h>
#include "core/sim.h"

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

/* Steps by body since the last block_tally_clear (the energy check's
 * report of where an unexplained error came from), indexed by |name| (a
 * c.m. has NZERO + its first component's name; index 0 collects names out
 * of range): irregular and regular steps, and the work of the regular
 * corrections, sum of m |dx . a| (dx: the regular corrector's change of
 * the position, a: the body's force after it).  A regular step that
 * ended a long interval in which the body's path was bent by a close
 * neighbour moves it against that neighbour's force: where two stars in
 * a close encounter have different neighbour lists, their corrections
 * differ and the pair's energy jumps by about that work.  A few
 * operations per step are all it costs. */
typedef struct step_tally {
    int nirr, nreg;
    double wreg;
} step_tally;
const step_tally *block_tally(const block_scratch *b, int *nnames);
void block_tally_clear(block_scratch *b);

/* Wall time by block size (members 1, 2-8, 9-64, ..., the last bucket
 * open-ended) and phase; "between" is the time from the end of one block
 * step to the start of the next within the run loop (its controls and
 * progress line), "schedule" includes the schedule's rebuild after a KS
 * event.  Time outside the loop (checks, outputs, checkpoints) is in no
 * phase: the run calls block_profile_idle before it enters the loop. */
enum { BLOCK_PROF_BUCKETS = 7, BLOCK_PROF_PHASES = 11 };
typedef struct block_profile_row {
    int64_t blocks, steps_irr, steps_reg;
    double t[BLOCK_PROF_PHASES];
} block_profile_row;
typedef struct block_profile { block_profile_row row[BLOCK_PROF_BUCKETS]; } block_profile;

const block_profile *block_get_profile(const block_scratch *b);
/* The time until the next block step is not the block loop's (a check, an
 * output): it is left out of the profile. */
void block_profile_idle(block_scratch *b);
void block_profile_print(const block_profile *p, FILE *f);

#endif
