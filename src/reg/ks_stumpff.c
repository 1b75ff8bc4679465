/* ks_stumpff.c — scaled Stumpff functions by downward recursion
 *     c~_k = 1 - z c~_(k+2) / ((k+1)(k+2)).
 * NBODY6 starts at k = 12 (stumpf.f), enough for its step arguments
 * (|z| ~ 0.01); the prediction of an unperturbed orbit over up to a whole
 * period needs |4z| up to ~40, where the 12-term truncation errs by 1e-3.
 * Starting at k = 50 the neglected terms are below 1e-18 for |z| <= 40 and
 * the cost (50 multiply-adds) is negligible next to a force evaluation. */
#include "ks_stumpff.h"

#define KS_STUMPFF_TOP 50

void ks_stumpff(double z, double c[7])
{
    double ce = 1.0, co = 1.0; /* c~ at the top even and odd orders */
    for (int k = KS_STUMPFF_TOP - 2; k >= 0; k -= 2) {
        ce = 1.0 - z * ce / ((double)(k + 1) * (k + 2));
        co = 1.0 - z * co / ((double)(k + 2) * (k + 3));
        if (k <= 6) c[k] = ce;
        if (k + 1 <= 6) c[k + 1] = co;
    }
}
