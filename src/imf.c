/* imf.c — the power-law initial mass function of NBODY6 (KZ(20) = 0): body i
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
 * checks that BODY1 and BODYN are positive. */
#include <math.h>
#include "ic.h"

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
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        const double fmi = fm1 - (double)i * fmn;
        m[i] = 1.0 / pow(fmi, expo);
        total += m[i];
    }
    const double to_mean_one = (double)n / total;
    for (int i = 0; i < n; i++)
        m[i] *= to_mean_one;
    return total / (double)n;
}
