/* pairterm.h — the force and jerk of one pair in double precision, shared by
 * the reference backends (gpunb_cpu.c, gpuirr_scalar.c) so that their regular
 * and irregular sums are the same arithmetic, term by term:
 *     a += m r/|r|^3,   jerk += m [v - 3 (r.v/|r|^2) r]/|r|^3
 * with r = x_j - x_i, v = v_j - v_i, r2 = |r|^2 > 0. */
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

#endif
