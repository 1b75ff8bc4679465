/* checks.h — what a run measures at every energy check (DTADJ) and output
 * (DELTAT): energies, virial ratio, density centre and core radius
 * (Casertano & Hut as NBODY6's core.f), Lagrangian radii, mean list size. */
#ifndef NBODY6C_CHECKS_H
#define NBODY6C_CHECKS_H

#include "core/sim.h"

#define NLAGR 4
extern const double lagr_fractions[NLAGR]; /* 0.01, 0.1, 0.5, 0.9 */

typedef struct diag {
    double t;
    double kin, pot, etot;   /* pot = W < 0; etot = kin + pot + etide (+ KS terms) */
    double etide, rtide;     /* KZ(14): tidal potential energy (Jacobi energy), tidal radius */
    double qvir;             /* kin/|pot| */
    double xd[3], rc, vc;
    int nc;
    double rlagr[NLAGR];     /* about the density centre */
    double nbmean;
} diag;


/* Fills d for the current time; updates s->xd, rc, rc2, nc, vc, rscale, tcr.
 * first: the first call of the run (core search starts from RSCALE). */
void checks_measure(sim *s, diag *d, int first);

/* The energy of the check alone (etot), at the current time. */
double checks_energy(sim *s);

#endif
