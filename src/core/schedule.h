/* schedule.h — which bodies are due when: the bodies grouped by their next
 * step time t0 + dt (block steps keep t0 a multiple of dt, so there are
 * about as many groups as step levels, a few dozen).  Replaces NBODY6's
 * LISTQ queue, whose refills scan all N bodies. */
#ifndef NBODY6C_SCHEDULE_H
#define NBODY6C_SCHEDULE_H

#include "core/sim.h"

typedef struct schedule schedule;

schedule *schedule_create(int cap);
void schedule_free(schedule *q);

/* Forgets everything; the next schedule_time rebuilds from the bodies'
 * t0 + dt (after steps changed outside the block step, or a restart). */
void schedule_reset(schedule *q);

/* After an event that moved bodies between slots, changed their steps or
 * the range [ifirst, ntot) (a KS event), the block's members taken out
 * included: the same groups as a rebuild would make, by moving only the
 * slots whose t0 + dt differs from the time they are filed at (a rebuild
 * refiles all N: ~1 ms at N = 128k on one core).  Counts in
 * s->cnt.schedule_fills, as a rebuild does.  Nothing after a reset. */
void schedule_refresh(schedule *q, sim *s);

/* 1 when the next schedule_time rebuilds (O(N)) after a schedule_reset. */
int schedule_stale(const schedule *q);

/* The next block time: the smallest t0 + dt over bodies [ifirst, ntot). */
double schedule_time(schedule *q, sim *s);

/* Takes the bodies due at the next block time out of the schedule, into
 * act in ascending slot order (so a block's order does not depend on its
 * history).  Returns their number. */
int schedule_take(schedule *q, sim *s, int *act);

/* Puts body i back at its (new) t0 + dt. */
void schedule_put(schedule *q, const sim *s, int i);

/* schedule_put of the n distinct bodies ids[] (a block's members taken out
 * by schedule_take), in parallel for big blocks. */
void schedule_put_block(schedule *q, const sim *s, const int *ids, int n);

#endif
