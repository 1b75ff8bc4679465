/* escape.h — escaper removal (KZ(23), NBODY6's escape.f), at energy checks.
 *
 * A system is an escaper when its body (a single, a KS pair's c.m., a
 * merged hierarchy's outer c.m., the chain's c.m.) is beyond twice the
 * tidal radius from the density centre: RTIDE of the field (KZ(14) > 0),
 * or 10 RSCALE for an isolated cluster, where it must also be unbound
 * (positive energy against the rest).  A candidate with another body
 * within 10 RMIN is kept (a companion: NBODY6 keeps a body whose neighbour
 * it still affects).  The system leaves whole, every star of it.
 *
 * Removal is exact bookkeeping, not an approximation.  The system first
 * comes apart into single stars by the ordinary events (a KS pair ends, a
 * merged hierarchy splits and its pairs end, the chain ends), whose own
 * jumps (a pair's pending inconsistency, the chain's drift) go to the
 * ledger and the next interval's dE as at any such event: they are
 * integration errors, not energy that left.  Then the energy the stars
 * carry (kinetic, tidal, their mutual binding energy and their binding
 * with the rest: a merged inner pair's and a chain's internal energy
 * included) goes to s->e_escaped, measured as the difference of the
 * check's energy before and after their removal, so that the energy check
 * is unaffected; the remaining bodies' force polynomials lose each star's
 * force and jerk (as NBODY6's remove.f corrects F and FDOT), it leaves
 * every neighbour and perturber list, and the slots are compacted (N, NTOT
 * and the mass shrink; the c.m. names keep NZERO). */
#ifndef NBODY6C_ESCAPE_H
#define NBODY6C_ESCAPE_H

#include <stdio.h>
#include "core/bytes.h"
#include "core/sim.h"

/* One star removed (a system of several gives one record per star). */
typedef struct escape_record {
    double t;     /* N-body time */
    int name;     /* the star's name */
    int members;  /* stars in its system: 1 single, 2 KS pair, 3 merged triple, n chain */
    double m;     /* its mass (N-body units) */
    double e;     /* its share m/M_system of the system's energy against the rest (the
                   * system's c.m. motion and tidal potential; so v_inf is the system's) */
    double r;     /* the system's distance from the density centre */
} escape_record;

/* The escape radius at the current state (2 RTIDE). */
double escape_radius(const sim *s);

/* Its part of the checkpoint (section XTRN, after the tidal field's): the
 * escapers removed so far and NZERO.  save returns 1 when a reader must
 * know the section (bodies were removed); load returns 0, or -1 for a
 * malformed one. */
int escape_save(wbuf *w, const sim *s);
int escape_load(rbuf *r, sim *s);

/* Removes the escapers at s->time (all bodies predicted there); records up
 * to maxrec of their stars in rec.  Returns the number of stars removed
 * (one record each), or -1 with err.  The caller re-measures the energy (checks.c adds
 * s->e_escaped) and rebuilds the schedule (block_reschedule). */
int escape_remove(sim *s, escape_record *rec, int maxrec, char *err, size_t errlen);

#endif
