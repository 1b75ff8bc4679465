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

/* The force and jerk on body i at time t from the bodies its new list
 * gained (in lnew, not in lold) minus those it lost: F_I,new - F_I,old of
 * paper eq. 12, summed directly in double from the predicted states.  Both
 * lists ascending.  Every body is a point mass here, as in the regular force
 * the term turns into. */
void list_change_force(const sim *s, int i, double t, const int *lold, int nold,
                       const int *lnew, int nnew, double df[3], double dj[3]);

#endif
