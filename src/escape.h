/* escape.h — escaper removal (KZ(23), NBODY6's escape.f), at energy checks.
 *
 * A single or a KS pair (as a whole) is an escaper when it is beyond twice
 * the tidal radius from the density centre: RTIDE of the field (KZ(14) > 0),
 * or 10 RSCALE for an isolated cluster, where it must also be unbound
 * (positive energy against the rest).  A candidate with another body
 * within 10 RMIN is kept (a companion: NBODY6 keeps a body whose neighbour
 * it still affects).  Chain members and merged hierarchies are left to
 * their own events.
 *
 * Removal is exact bookkeeping, not an approximation: the energy the
 * escaper carried (its kinetic, tidal and binding energy with the rest, a
 * pair's internal energy included) goes to s->e_escaped, measured as the
 * difference of the check's energy before and after, so that the energy
 * check is unaffected; the remaining bodies' force polynomials lose the
 * escaper's force and jerk (as NBODY6's remove.f corrects F and FDOT), it
 * leaves every neighbour and perturber list, and the slots are compacted
 * (N, NTOT and the mass shrink; the c.m. names keep NZERO). */
#ifndef NBODY6C_ESCAPE_H
#define NBODY6C_ESCAPE_H

#include <stdio.h>
#include "sim.h"

typedef struct escape_record {
    double t;     /* N-body time */
    int name;     /* the single's name, or the pair's c.m. name */
    int members;  /* 1 single, 2 KS pair */
    double m;     /* mass (N-body units) */
    double e;     /* its energy against the rest, tidal potential included */
    double r;     /* distance from the density centre */
} escape_record;

/* The escape radius at the current state (2 RTIDE). */
double escape_radius(const sim *s);

/* Removes the escapers at s->time (all bodies predicted there); records up
 * to maxrec of them in rec.  Returns the number of escapers (a pair counts
 * once), or -1 with err.  The caller re-measures the energy (checks.c adds
 * s->e_escaped) and rebuilds the schedule (block_reschedule). */
int escape_remove(sim *s, escape_record *rec, int maxrec, char *err, size_t errlen);

#endif
