/* potref.h — the potential's upper-triangle rows (gpunb_pot_rows) for the
 * tests: the plain loop of the contract, which every backend must give bit
 * for bit, and a reference far more exact than double, with the bound a row
 * may be off from it.
 *
 * The bound (u = 2^-53, each IEEE operation exact to a relative u): the
 * difference of two coordinates is off by u, its square by 3u, the sum of
 * the three squares (two additions of positive terms) by 5u, the square
 * root by 5u/2 + u, the quotient m_j/r by 4.5u; the plain sum of k positive
 * terms adds at most (k - 1)u of their total (Higham, Accuracy and
 * Stability, §4.2).  So a row of k = n - 1 - i terms is within
 * (k + 3.5)u of the exact row, to first order (the second-order terms are
 * below k^2 u^2, 1e-20 at k = 1e6).  The reference sums terms of long
 * double (2^-64 on x86) with Neumaier's compensation: its own error, 6.5
 * long-double units, is added to the bound. */
#ifndef NBODY6C_TESTS_POTREF_H
#define NBODY6C_TESTS_POTREF_H

#include <float.h>
#include <math.h>

/* the contract's loop: one row per i, j ascending, plain double */
static void potref_plain_rows(int n, const double *m, const double (*x)[3], double *row)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = i + 1; j < n; j++) {
            const double dx = x[j][0] - x[i][0], dy = x[j][1] - x[i][1], dz = x[j][2] - x[i][2];
            s += m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
        row[i] = s;
    }
}

/* row i in long double, compensated */
static long double potref_row(int n, int i, const double *m, const double (*x)[3])
{
    long double s = 0.0L, c = 0.0L;
    for (int j = i + 1; j < n; j++) {
        const long double dx = (long double)x[j][0] - x[i][0], dy = (long double)x[j][1] - x[i][1],
                          dz = (long double)x[j][2] - x[i][2];
        const long double t = m[j] / sqrtl(dx * dx + dy * dy + dz * dz), u = s + t;
        c += fabsl(s) >= fabsl(t) ? (s - u) + t : (t - u) + s;
        s = u;
    }
    return s + c;
}

/* The worst |row - reference| over the bound above (<= 1 passes) and the
 * worst relative error, over every `stride`-th row (all rows when 1). */
static double potref_check(int n, const double *m, const double (*x)[3], const double *row, int stride,
                           double *worst_rel)
{
    const double u = 0x1.0p-53, uref = 6.5 * ldexp(1.0, -LDBL_MANT_DIG);
    double worst = 0.0, wrel = 0.0;
#pragma omp parallel for schedule(dynamic, 4) reduction(max : worst, wrel)
    for (int i = 0; i < n; i += stride) {
        const long double ref = potref_row(n, i, m, x);
        const double k = (double)(n - 1 - i), err = (double)fabsl((long double)row[i] - ref);
        const double bound = ((k + 3.5) * u + uref) * (double)ref;
        const double r = err == 0.0 ? 0.0 : bound > 0.0 ? err / bound : INFINITY;
        const double rel = ref > 0.0L ? err / (double)ref : err;
        if (!(r <= worst)) worst = isnan(r) ? INFINITY : r;
        if (!(rel <= wrel)) wrel = isnan(rel) ? INFINITY : rel;
    }
    if (worst_rel) *worst_rel = wrel;
    return worst;
}

#endif
