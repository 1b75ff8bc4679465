/* ks_transform.h — the Kustaanheimo–Stiefel transformation (docs/ALGORITHMS.md
 * §10.1): the 3x4 matrix L(u), q = L(u)u, and the maps between the relative
 * motion (q, qdot) and the KS variables (u, u' = du/dtau with dt = R dtau). */
#ifndef NBODY6C_KS_TRANSFORM_H
#define NBODY6C_KS_TRANSFORM_H

/* q = L(u) u */
void ks_q_of_u(const double u[4], double q[3]);
/* L^T(u) p (a 4-vector) */
void ks_ltp(const double u[4], const double p[3], double out[4]);
/* L(u) w (a 3-vector) */
void ks_lw(const double u[4], const double w[4], double out[3]);

/* u from q (NBODY6's branch choice); u' = L^T(u) qdot / 2. */
void ks_from_rel(const double q[3], const double qdot[3], double u[4], double up[4]);
/* q = L(u)u, qdot = 2 L(u) u' / R */
void ks_to_rel(const double u[4], const double up[4], double q[3], double qdot[3]);
/* Two-body energy per unit reduced mass from u, u': h = (2|u'|^2 - M)/R. */
double ks_energy(const double u[4], const double up[4], double m);

#endif
