/* hermite.h — the fourth-order Hermite correctors of the Ahmad–Cohen scheme
 * (docs/ALGORITHMS.md §2 irregular, §3 regular).  Pure functions on one body's
 * polynomials: block.c decides when they run. */
#ifndef NBODY6C_HERMITE_H
#define NBODY6C_HERMITE_H

/* Irregular corrector.  In: predicted xp, vp; old irregular a0, j0 at t0; new
 * a1, j1 at t = t0 + dt.  Out: corrected x, v (the regular part is in the
 * predictor, not here), a2 and a3 of the irregular force at the new time. */
void hermite_irregular(double dt, const double xp[3], const double vp[3],
                       const double a0[3], const double j0[3],
                       const double a1[3], const double j1[3],
                       double x[3], double v[3], double a2[3], double a3[3]);

/* Regular corrector (eq. 12 form).  fr, frd: regular force and jerk at t0r;
 * fro, frdo: the regular force and jerk at t = t0r + dtr with the OLD list
 * (new regular + (new-list irregular - old-list irregular)).  Adds the
 * correction to x, v (unless skip) and returns a2r, a3r at the new time. */
void hermite_regular(double dtr, const double fr[3], const double frd[3],
                     const double fro[3], const double frdo[3], int skip,
                     double x[3], double v[3], double a2r[3], double a3r[3]);

#endif
