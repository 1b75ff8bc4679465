/* ks_resolve.c — where the bodies are, as regularisation sees them: a slot
 * predicted to third order (as the force libraries do) or to high order
 * (events), a block member at its predicted state while the block's forces
 * are evaluated, a perturbed pair's components resolved at a time, bodies
 * restarted from their predicted state.  The bottom of reg/ above the orbit
 * integrators: it calls nothing else of reg/. */
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "common/predict.h"

void ks_predict_slot(const sim *s, int i, double t, double x[3], double v[3])
{
    if (t == s->t0[i]) {
        memcpy(x, s->x0[i], sizeof(double) * 3);
        memcpy(v, s->v0[i], sizeof(double) * 3);
        return;
    }
    predict3(t - s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], x, v);
}

void ks_block_state(const sim *s, int i, double t, double x[3], double v[3])
{
    if (s->block_forces && s->tpred[i] == t) {
        memcpy(x, s->x[i], sizeof(double) * 3);
        memcpy(v, s->v[i], sizeof(double) * 3);
        return;
    }
    ks_predict_slot(s, i, t, x, v);
}

void ks_predict_slot_high(const sim *s, int i, double t, double x[3], double v[3])
{
    sim_predict_one(s, i, t, x, v);
}

void ks_resolve_pair(sim *s, int k, double t)
{
    ks_pair *kp = &s->ks->pair[k];
    int icm = s->n + k;
    double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2, q[3], qd[3];
    ks_predict_slot(s, icm, t, kp->xcm, kp->vcm);
    ks_orbit_predict(&kp->o, t, q, qd);
    for (int c = 0; c < 3; c++) {
        kp->x1[c] = kp->xcm[c] + m2 / M * q[c];
        kp->v1[c] = kp->vcm[c] + m2 / M * qd[c];
        kp->x2[c] = kp->xcm[c] - m1 / M * q[c];
        kp->v2[c] = kp->vcm[c] - m1 / M * qd[c];
    }
    kp->tres = t;
}

/* The nb bodies idx start again at t from their high-order predicted state
 * (an event changed what their forces see; newpoly_bodies then gives them
 * new polynomials). */
void ks_restart_state(sim *s, int nb, const int *idx, double t)
{
    for (int q = 0; q < nb; q++) {
        int b = idx[q];
        double xb[3], vb[3];
        ks_predict_slot_high(s, b, t, xb, vb);
        memcpy(s->x0[b], xb, sizeof xb);
        memcpy(s->v0[b], vb, sizeof vb);
    }
}
