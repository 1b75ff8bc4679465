/* pairterm.h — the force and jerk of one pair in double precision, shared by
 * the reference backends (gpunb_cpu.c, gpuirr_scalar.c) so that their regular
 * and irregular sums are the same arithmetic, term by term:
 *     a += m r/|r|^3,   jerk += m [v - 3 (r.v/|r|^2) r]/|r|^3
 * with r = x_j - x_i, v = v_j - v_i, r2 = |r|^2 > 0; and the second and third
 * time derivatives of the force term (fpoly2.f; the start-up polynomials and
 * the terms KS events move between the regular and irregular parts). */
#ifndef NBODY6C_PAIRTERM_H
#define NBODY6C_PAIRTERM_H

#include <math.h>

static inline void pair_term_add(double m, const double r[3], const double v[3], double r2,
                                 double a[3], double jerk[3])
{
    double rinv2 = 1.0 / r2;
    double mr3 = m * rinv2 * sqrt(rinv2);
    double rv3 = 3.0 * (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]) * rinv2;
    for (int k = 0; k < 3; k++) {
        a[k] += mr3 * r[k];
        jerk[k] += mr3 * (v[k] - rv3 * r[k]);
    }
}

/* ALGORITHMS.md §7: the second and third derivatives of one pair term, from
 * the relative position r, velocity v, acceleration A and jerk J. */
static inline void pair_d2d3(double mj, const double r[3], const double v[3],
                             const double A[3], const double J[3], double d2[3], double d3[3])
{
    double rinv2 = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double mr3 = mj * rinv2 * sqrt(rinv2);
    double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
    double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double rA = r[0] * A[0] + r[1] * A[1] + r[2] * A[2];
    double vA = v[0] * A[0] + v[1] * A[1] + v[2] * A[2];
    double rJ = r[0] * J[0] + r[1] * J[1] + r[2] * J[2];
    double alpha = rv * rinv2;
    double beta = (v2 + rA) * rinv2 + alpha * alpha;
    double gamma = (3.0 * vA + rJ) * rinv2 + alpha * (3.0 * beta - 4.0 * alpha * alpha);
    for (int k = 0; k < 3; k++) {
        double w = v[k] - 3.0 * alpha * r[k];
        d2[k] = mr3 * (A[k] - 6.0 * alpha * w - 3.0 * beta * r[k]);
    }
    for (int k = 0; k < 3; k++) {
        double w = v[k] - 3.0 * alpha * r[k];
        d3[k] = mr3 * (J[k] - 9.0 * beta * w - 3.0 * gamma * r[k]) - 9.0 * alpha * d2[k];
    }
}

#endif
