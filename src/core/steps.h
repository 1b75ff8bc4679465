/* steps.h — time steps: Aarseth's criterion, quantisation to the block
 * levels SMAX/2^k, and NBODY6's rules for the new irregular and regular
 * steps (docs/ALGORITHMS.md §4). */
#ifndef NBODY6C_STEPS_H
#define NBODY6C_STEPS_H

#include "core/sim.h"

/* Aarseth's criterion dt = sqrt(eta (|a||a2| + |j|^2) / (|j||a3| + |a2|^2)). */
double step_aarseth(const double a[3], const double j[3], const double a2[3],
                    const double a3[3], double eta);

/* Above these, a new step must pass a convergence test on the velocity
 * correction of the last step (nbint.f's STEPJ = 0.01 (60000/N)^(1/3) for
 * irregular steps when N > 1000; gpucor.f's 0.1 for regular steps). */
#define STEP_REG_CHECKED 0.1
double step_irregular_checked(int n);

/* The block level for a step dt: smax if dt >= smax, else the largest
 * smax/2^k strictly below dt (NBODY6's STEPK). */
double step_level(double dt, double smax);

/* Halves step until t is a multiple of it (commensurability). */
double step_commensurate(double step, double t);

/* New irregular step after the irregular corrector.  step: current step;
 * dt0: the criterion's value; t: the current (new) time. */
double step_irregular_update(double step, double dt0, double t, double smax);

/* New regular step from the criterion's value dt0 and the old regular step dtr. */
double step_regular_update(double dtr, double dt0, double t, double smax);

/* First irregular and regular steps of body i at time t from its force
 * polynomials (steps.f): at the start, and for a body that appears or
 * restarts at a KS, chain or merger event.  Capped at the checked limits
 * above, which a first step cannot be tested against. */
void steps_first(sim *s, int i, double t);

#endif
