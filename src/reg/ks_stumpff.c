/* ks_stumpff.c — scaled Stumpff functions by downward recursion
 *     c~_k = 1 - z c~_(k+2) / ((k+1)(k+2)).
 * NBODY6 starts at k = 12 (stumpf.f), enough for its step arguments
 * (|z| ~ 0.01); the prediction of an unperturbed orbit over up to a whole
 * period needs |4z| up to ~40, where the 12-term truncation errs by 1e-3.
 * The top order grows with |z| so that the neglected terms stay below
 * 1e-18: starting at top K (c~_K = 1), c~_k errs by about
 * |z|^((K-k)/2+1) k!/(K+2)!, largest for k = 6: 2e-21 at K = 16 for
 * |z| = 0.05, 1e-21 at K = 22 for |z| = 1, and below 1e-20 at the larger
 * orders chosen for |z| up to 40.  The divisions are
 * a table of 1/((k+1)(k+2)): the recursion is a chain of dependent
 * operations, and a division's latency made it 10 % of a run with
 * primordial binaries (test_ks checks it against the series summed in
 * long double). */
#include <math.h>
#include "reg/ks_stumpff.h"

/* 1 / ((k + 1)(k + 2)), k = 0..50 */
static const double inv_kk[51] = {
    0.5, 0.16666666666666666, 0.08333333333333333, 0.05,
    0.03333333333333333, 0.023809523809523808, 0.017857142857142856, 0.013888888888888888,
    0.011111111111111112, 0.00909090909090909, 0.007575757575757576, 0.00641025641025641,
    0.005494505494505495, 0.004761904761904762, 0.004166666666666667, 0.003676470588235294,
    0.0032679738562091504, 0.0029239766081871343, 0.002631578947368421, 0.002380952380952381,
    0.0021645021645021645, 0.001976284584980237, 0.0018115942028985507, 0.0016666666666666668,
    0.0015384615384615385, 0.0014245014245014246, 0.0013227513227513227, 0.0012315270935960591,
    0.0011494252873563218, 0.001075268817204301, 0.0010080645161290322, 0.000946969696969697,
    0.00089126559714795, 0.0008403361344537816, 0.0007936507936507937, 0.0007507507507507507,
    0.0007112375533428165, 0.0006747638326585695, 0.000641025641025641, 0.0006097560975609756,
    0.0005807200929152149, 0.0005537098560354374, 0.0005285412262156448, 0.000505050505050505,
    0.0004830917874396135, 0.00046253469010175765, 0.0004432624113475177, 0.00042517006802721087,
    0.00040816326530612246, 0.000392156862745098, 0.0003770739064856712,
};

/* The even top order for |z| (see above). */
static int top_order(double az)
{
    if (az <= 0.05) return 16;
    if (az <= 1.0) return 22;
    if (az <= 4.0) return 26;
    if (az <= 16.0) return 36;
    return 50;
}

void ks_stumpff(double z, double c[7])
{
    double ce = 1.0, co = 1.0; /* c~ at the top even and odd orders */
    for (int k = top_order(fabs(z)) - 2; k >= 0; k -= 2) {
        ce = 1.0 - z * ce * inv_kk[k];
        co = 1.0 - z * co * inv_kk[k + 1];
        if (k <= 6) c[k] = ce;
        if (k + 1 <= 6) c[k + 1] = co;
    }
}
