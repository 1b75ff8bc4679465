/* forces.h — the irregular and regular forces of given bodies (forces.c). */
#ifndef NBODY6C_FORCES_H
#define NBODY6C_FORCES_H

#include "sim.h"

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
