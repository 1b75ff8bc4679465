/* reorder.h — the single bodies renumbered in Morton order of position
 * (reorder.c), for memory locality of the neighbour loops. */
#ifndef NBODY6C_REORDER_H
#define NBODY6C_REORDER_H

#include "sim.h"

/* Renumbers the singles [ifirst, n) in Morton order of x0, with everything
 * that names them, and reloads the force libraries and the schedule.
 * Returns 0, or -1 when out of memory (nothing changed then). */
int reorder_singles(sim *s);

#endif
