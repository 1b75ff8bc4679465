/* hermite.c — the Hermite correctors of one body (docs/ALGORITHMS.md §2, §3).
 * Both are the same interpolation: from a0, j0 at the start and a1, j1 at the
 * end of an interval dt, the 2nd and 3rd derivatives follow and correct the
 * third-order prediction by their dt^4 and dt^5 terms. */
#include "core/hermite.h"

/* AT3 = a3 dt^3/6, BT2 = a2(start) dt^2/2 */
static void interpolate(double dt, double a0, double j0, double a1, double j1,
                        double *at3, double *bt2)
{
    double df = a0 - a1, sum = j0 + j1;
    *at3 = 2.0 * df + dt * sum;
    *bt2 = -3.0 * df - dt * (sum + j0);
}

void hermite_irregular(double dt, const double xp[3], const double vp[3],
                       const double a0[3], const double j0[3],
                       const double a1[3], const double j1[3],
                       double x[3], double v[3], double a2[3], double a3[3])
{
    double dt2 = dt * dt;
    for (int k = 0; k < 3; k++) {
        double at3, bt2;
        interpolate(dt, a0[k], j0[k], a1[k], j1[k], &at3, &bt2);
        x[k] = xp[k] + (0.6 * at3 + bt2) * dt2 / 12.0;
        v[k] = vp[k] + (0.75 * at3 + bt2) * dt / 3.0;
        a2[k] = 2.0 * (3.0 * at3 + bt2) / dt2;
        a3[k] = 6.0 * at3 / (dt2 * dt);
    }
}

void hermite_regular(double dtr, const double fr[3], const double frd[3],
                     const double fro[3], const double frdo[3], int skip,
                     double x[3], double v[3], double a2r[3], double a3r[3])
{
    double dt2 = dtr * dtr;
    for (int k = 0; k < 3; k++) {
        double at3, bt2;
        interpolate(dtr, fr[k], frd[k], fro[k], frdo[k], &at3, &bt2);
        if (!skip) {
            x[k] += (0.6 * at3 + bt2) * dt2 / 12.0;
            v[k] += (0.75 * at3 + bt2) * dtr / 3.0;
        }
        a2r[k] = 2.0 * (3.0 * at3 + bt2) / dt2;
        a3r[k] = 6.0 * at3 / (dt2 * dtr);
    }
}
