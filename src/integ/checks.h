/* checks.h — what a run measures at every energy check (DTADJ) and output
 * (DELTAT): energies, virial ratio, density centre and core radius
 * (Casertano & Hut as NBODY6's core.f), Lagrangian radii at NBODY6's mass
 * fractions (lagr.f), the bound mass and its velocity dispersion, the
 * binaries (every bound pair, hard ones), mean list size. */
#ifndef NBODY6C_CHECKS_H
#define NBODY6C_CHECKS_H

#include "core/sim.h"

/* NBODY6's lagr.f: 1, 2, 5, 10, 20, 30, 40, 50, 62.5, 75, 90 % of the mass */
#define NLAGR 11
#define LAGR_HALF 7 /* the half-mass radius r_h: lagr_fractions[LAGR_HALF] = 0.5 */
extern const double lagr_fractions[NLAGR];

typedef struct diag {
    double t;
    double kin, pot, etot;   /* pot = W < 0; etot = kin + pot + etide (+ KS terms) */
    double etide, rtide;     /* KZ(14): tidal potential energy (Jacobi energy), tidal radius */
    double qvir;             /* kin/|pot| */
    double xd[3], rc, vc;
    int nc;
    double rlagr[NLAGR];     /* about the density centre */
    double nbmean;
    /* Bound mass: with a tidal field the mass within the Jacobi radius
     * (M_b / TIDAL(1))^(1/3) of the density centre, at its fixed point;
     * isolated, the bodies (single or c.m.) whose kinetic energy about the
     * mean velocity is below the depth of the spherical potential of the
     * mass about the density centre.  sigma: the mass-weighted 3-D rms
     * velocity of the bound bodies about their mean velocity. */
    double mbound, sigma;
    /* Binaries: every bound pair of stars (ks_binaries), and the hard ones
     * among them (binding energy below ks_hard_energy). */
    int nbin, nbin_hard;
} diag;


/* Fills d for the current time; updates s->xd, rc, rc2, nc, vc, rscale, tcr.
 * first: the first call of the run (core search starts from RSCALE). */
void checks_measure(sim *s, diag *d, int first);

/* The energy of the check alone (etot), at the current time. */
double checks_energy(sim *s);

#endif
