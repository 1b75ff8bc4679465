/* imf.c — NBODY6's deterministic initial mass functions, each a fixed
 * sequence of quantiles from BODY1 down to BODYN (no random numbers): the
 * power law (KZ(20) = 0, data.f) and Scalo's function (KZ(20) = 1, imf.f);
 * and the scaling to mean mass 1 that every mass function ends with.  The
 * random Kroupa function is in imf_kroupa.c.
 *
 * Power law: body i
 * (1-based) has
 *     m_i = 1 / (FM1 - (i-1) FMN)^(1/(ALPHAS-1)),
 *     FM1 = BODY1^-(ALPHAS-1),  FMN = (FM1 - BODYN^-(ALPHAS-1)) / (N-1),
 * so m_1 = BODY1 and m_N = BODYN, heaviest first; the masses are then scaled
 * to mean 1 (NBODY6 scales to mean mass before its N-body scaling).  The
 * mean before that scaling is returned: BODY1 and BODYN are solar masses, so
 * it is the physical mean mass, which NBODY6 makes its ZMBAR (the unit of
 * mass per body behind TSTAR and VSTAR), whatever the deck's ZMBAR said.
 *
 * Equal masses (all 1) are handled here, as NBODY6 does before it looks at
 * the formula: ALPHAS == 1 (the exponent 1/(ALPHAS-1) does not exist) or
 * BODY1 == BODYN.  N = 1 also gives the single mass 1 (FMN would divide by
 * N - 1 = 0; the mean scaling makes any single mass 1 anyway).  The caller
 * checks that BODY1 and BODYN are positive.
 *
 * Scalo (Eggleton, Fitchett & Tout 1989, ApJ 347, 998, as NBODY6's imf.f):
 * the mass at cumulative number fraction X in (0, 1) is
 *     m(X) = 0.19 X / ((1 - X)^0.75 + 0.032 (1 - X)^0.25),
 * which rises from 0 to infinity.  X_1 and X_N are the fractions of BODY1
 * and BODYN, and body i has m(X_1 - (i-1)(X_1 - X_N)/(N-1)): evenly spaced
 * fractions, heaviest first, mean taken and scaled away as for the power
 * law.  imf.f finds X_1, X_N by Newton iteration to 1e-6 in the mass; here
 * they are found by bisection to the last bit (m is increasing), so the
 * masses agree with NBODY6's to about 1e-6. */
#include <math.h>
#include "ic/ic.h"

static void equal_masses(int n, double *m)
{
    for (int i = 0; i < n; i++)
        m[i] = 1.0;
}

double imf_power_law(int n, double alphas, double body1, double bodyn, double *m)
{
    if (n <= 0)
        return 1.0;
    if (alphas == 1.0 || body1 == bodyn || n == 1) {
        equal_masses(n, m);
        return 1.0;
    }
    const double alpha1 = alphas - 1.0;
    const double fm1 = 1.0 / pow(body1, alpha1);
    const double fmn = (fm1 - 1.0 / pow(bodyn, alpha1)) / (double)(n - 1);
    const double expo = 1.0 / alpha1;
    for (int i = 0; i < n; i++) {
        const double fmi = fm1 - (double)i * fmn;
        m[i] = 1.0 / pow(fmi, expo);
    }
    return imf_scale_to_mean_one(n, m);
}

double imf_scale_to_mean_one(int n, double *m)
{
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += m[i];
    const double to_mean_one = (double)n / total;
    for (int i = 0; i < n; i++)
        m[i] *= to_mean_one;
    return total / (double)n;
}

static double scalo_mass(double x)
{
    const double y = 1.0 - x;
    return 0.19 * x / (pow(y, 0.75) + 0.032 * pow(y, 0.25));
}

/* The X in (0, 1) with scalo_mass(X) = mass, by bisection: m(X) increases
 * strictly (its numerator grows, its denominator falls), and halving until
 * the interval stops shrinking gives X to the last bit. */
static double scalo_fraction(double mass)
{
    double lo = 0.0, hi = 1.0;
    for (;;) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            return mid;
        if (scalo_mass(mid) < mass)
            lo = mid;
        else
            hi = mid;
    }
}

double imf_scalo(int n, double body1, double bodyn, double *m)
{
    if (n <= 0)
        return 1.0;
    if (body1 == bodyn || n == 1) {
        equal_masses(n, m);
        return 1.0;
    }
    const double x1 = scalo_fraction(body1), xn = scalo_fraction(bodyn);
    const double dx = (x1 - xn) / (double)(n - 1);
    for (int i = 0; i < n; i++)
        m[i] = scalo_mass(x1 - (double)i * dx);
    return imf_scale_to_mean_one(n, m);
}
