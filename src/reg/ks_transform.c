/* ks_transform.c — the KS matrix and the maps u <-> q, u' <-> qdot
 * (docs/ALGORITHMS.md §10.1, NBODY6's ksinit.f/kspred.f conventions). */
#include <math.h>
#include "reg/ks_transform.h"

void ks_q_of_u(const double u[4], double q[3])
{
    q[0] = u[0] * u[0] - u[1] * u[1] - u[2] * u[2] + u[3] * u[3];
    q[1] = 2.0 * (u[0] * u[1] - u[2] * u[3]);
    q[2] = 2.0 * (u[0] * u[2] + u[1] * u[3]);
}

void ks_ltp(const double u[4], const double p[3], double out[4])
{
    out[0] = u[0] * p[0] + u[1] * p[1] + u[2] * p[2];
    out[1] = -u[1] * p[0] + u[0] * p[1] + u[3] * p[2];
    out[2] = -u[2] * p[0] - u[3] * p[1] + u[0] * p[2];
    out[3] = u[3] * p[0] - u[2] * p[1] + u[1] * p[2];
}

void ks_lw(const double u[4], const double w[4], double out[3])
{
    out[0] = u[0] * w[0] - u[1] * w[1] - u[2] * w[2] + u[3] * w[3];
    out[1] = u[1] * w[0] + u[0] * w[1] - u[3] * w[2] - u[2] * w[3];
    out[2] = u[2] * w[0] + u[3] * w[1] + u[0] * w[2] + u[1] * w[3];
}

void ks_from_rel(const double q[3], const double qdot[3], double u[4], double up[4])
{
    double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    /* the branch keeps the divisor large: no cancellation in either case */
    if (q[0] <= 0.0) {
        u[2] = 0.0;
        u[1] = sqrt(0.5 * (r - q[0]));
        u[0] = 0.5 * q[1] / u[1];
        u[3] = 0.5 * q[2] / u[1];
    } else {
        u[3] = 0.0;
        u[0] = sqrt(0.5 * (r + q[0]));
        u[1] = 0.5 * q[1] / u[0];
        u[2] = 0.5 * q[2] / u[0];
    }
    double w[4];
    ks_ltp(u, qdot, w);
    for (int k = 0; k < 4; k++) up[k] = 0.5 * w[k];
}

void ks_to_rel(const double u[4], const double up[4], double q[3], double qdot[3])
{
    ks_q_of_u(u, q);
    double r = u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3];
    double w[3];
    ks_lw(u, up, w);
    for (int k = 0; k < 3; k++) qdot[k] = 2.0 * w[k] / r;
}

double ks_energy(const double u[4], const double up[4], double m)
{
    double r = u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3];
    double up2 = up[0] * up[0] + up[1] * up[1] + up[2] * up[2] + up[3] * up[3];
    return (2.0 * up2 - m) / r;
}
