/* ks_chain_members.c — the chain as the rest of the cluster sees it: its
 * perturbers (chlist.f's tidal test), its members resolved at a time from
 * the c.m. body and the chain's state, and the force corrections between
 * the members and the cluster (the c.m.'s from its perturbers, a body's
 * from the members instead of the c.m.).  ks_chain.c (start, advance, end)
 * and the force corrections of ks_correct.c and ks_newpoly.c call these;
 * they call only the state and the predictors below them. */
#include <math.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "common/predict.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void ks_chain_select_perturbers(sim *s, double t)
{
    ks_chain *ch = &s->ks->ch;
    int icm = ch->icm;
    double M = ch->c.mtot, rsum = chain_rsum(&ch->c);
    double xcm[3], vcm[3];
    predict3(t - s->t0[icm], s->x0[icm], s->v0[icm], s->a[icm], s->j[icm], xcm, vcm);
    /* tidal gamma 2 m_j RSUM^3 / (M r^3) above GMIN/100 (chlist.f's 0.01 GMIN) */
    double fac = 2.0 * rsum * rsum * rsum / (M * 0.01 * s->p.gmin);
    const int *L = sim_list(s, icm);
    ch->np = 0;
    ch->gpert = 0.0;
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        double xj[3], vj[3];
        predict3(t - s->t0[j], s->x0[j], s->v0[j], s->a[j], s->j[j], xj, vj);
        double dx[3] = {xj[0] - xcm[0], xj[1] - xcm[1], xj[2] - xcm[2]};
        double r2 = dot3(dx, dx), r3 = r2 * sqrt(r2);
        if (r3 < fac * s->m[j]) {
            ch->plist[ch->np++] = j;
            double g = 2.0 * s->m[j] * rsum * rsum * rsum / (M * r3);
            if (g > ch->gpert) ch->gpert = g;
        }
    }
    ch->renew = 0;
}

void ks_chain_resolve(sim *s, double t)
{
    ks_chain *ch = &s->ks->ch;
    double xc[3], vc[3], xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3];
    ks_predict_slot(s, ch->icm, t, xc, vc);
    chain_get_state(&ch->c, xi, vi);
    for (int k = 0; k < ch->c.n; k++)
        for (int c = 0; c < 3; c++) {
            ch->x[k][c] = xc[c] + xi[k][c];
            ch->v[k][c] = vc[c] + vi[k][c];
        }
    ch->tres = t;
}

void ks_chain_cm_correction(const sim *s, double t, double a[3], double j[3])
{
    const ks_chain *ch = &s->ks->ch;
    double M = ch->c.mtot, xc[3], vc[3];
    ks_block_state(s, ch->icm, t, xc, vc);
    for (int n = 0; n < ch->np; n++) {
        int p = ch->plist[n];
        double xp[3], vp[3];
        ks_block_state(s, p, t, xp, vp);
        const ks_pair *kq = p >= s->n ? &s->ks->pair[p - s->n] : NULL;
        if (kq && ks_pair_resolved_at(kq, t)) {
            /* a perturbed pair by its components, as the pair's own c.m.
             * feels the members (ks_correct.c): as a point here, the pair's
             * quadrupole acted on one side only, and a pair 0.02 from a
             * chain of that size gained 1e-5 of E per 1e-4 time units */
            int q = p - s->n;
            for (int k = 0; k < ch->c.n; k++) {
                ks_add_term(ch->c.m[k] / M * s->m[2 * q], kq->x1, kq->v1, ch->x[k], ch->v[k], 1.0, a, j);
                ks_add_term(ch->c.m[k] / M * s->m[2 * q + 1], kq->x2, kq->v2, ch->x[k], ch->v[k], 1.0, a,
                            j);
            }
        } else {
            for (int k = 0; k < ch->c.n; k++)
                ks_add_term(ch->c.m[k] / M * s->m[p], xp, vp, ch->x[k], ch->v[k], 1.0, a, j);
        }
        ks_add_term(s->m[p], xp, vp, xc, vc, -1.0, a, j);
    }
}

void ks_chain_source_correction(const sim *s, const double x[3], const double v[3], double a[3],
                                double j[3])
{
    const ks_chain *ch = &s->ks->ch;
    double xc[3], vc[3];
    ks_block_state(s, ch->icm, ch->tres, xc, vc);
    for (int k = 0; k < ch->c.n; k++) ks_add_term(ch->c.m[k], ch->x[k], ch->v[k], x, v, 1.0, a, j);
    ks_add_term(ch->c.mtot, xc, vc, x, v, -1.0, a, j);
}
