/* ks_correct.c — the differential corrections of the irregular force
 * (docs/ALGORITHMS.md §10.9): GPUIRR and GPUNB see every c.m. as a point
 * mass; a perturbed c.m. feels the mass-weighted force of its perturbers on
 * its components, a body with a perturbed c.m. on its list feels the two
 * components instead of the point, and the same both ways for the chain
 * (its parts: ks_chain.c) and for one-component entries (ks_partial.c).
 * Above the chain and the entries; called by the block step and by new
 * polynomials (ks_newpoly.c). */
#include "reg/ks.h"
#include "reg/ks_state.h"

/* The force on the point (x, v) from body src as the force libraries see it
 * (a point), replaced by its components when src is a perturbed pair:
 * adds (resolved - point). */
static void add_source_correction(const sim *s, int src, const double x[3], const double v[3],
                                  double a[3], double j[3])
{
    if (src < s->n) return;
    const ks_pair *kq = &s->ks->pair[src - s->n];
    if (!ks_pair_perturbed(kq)) return; /* a point either way */
    int k = src - s->n;
    ks_add_term(s->m[2 * k], kq->x1, kq->v1, x, v, 1.0, a, j);
    ks_add_term(s->m[2 * k + 1], kq->x2, kq->v2, x, v, 1.0, a, j);
    ks_add_term(s->m[src], kq->xcm, kq->vcm, x, v, -1.0, a, j);
}

/* Perturbed c.m. i (pair k): sum over perturbers p of the mass-weighted force
 * on the components minus the force on the c.m. point. */
static void cm_correction(const sim *s, int k, double t, double a[3], double j[3])
{
    const ks_pair *kp = &s->ks->pair[k];
    double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2;
    for (int n = 0; n < kp->np; n++) {
        int p = kp->plist[n];
        double xp[3], vp[3];
        ks_block_state(s, p, t, xp, vp);
        const ks_chain *ch = &s->ks->ch;
        if (p == ch->icm && ks_chain_resolved_at(ch, t)) {
            /* the chain by its members (and the chain's c.m. feels this
             * pair's components: ks_chain_cm_correction), so that the
             * forces between the two are equal and opposite */
            for (int c = 0; c < ch->c.n; c++) {
                ks_add_term(m1 / M * ch->c.m[c], ch->x[c], ch->v[c], kp->x1, kp->v1, 1.0, a, j);
                ks_add_term(m2 / M * ch->c.m[c], ch->x[c], ch->v[c], kp->x2, kp->v2, 1.0, a, j);
            }
        } else if (p >= s->n && ks_pair_perturbed(&s->ks->pair[p - s->n])) {
            const ks_pair *kq = &s->ks->pair[p - s->n];
            int q = p - s->n;
            double mq1 = s->m[2 * q], mq2 = s->m[2 * q + 1];
            ks_add_term(m1 / M * mq1, kq->x1, kq->v1, kp->x1, kp->v1, 1.0, a, j);
            ks_add_term(m1 / M * mq2, kq->x2, kq->v2, kp->x1, kp->v1, 1.0, a, j);
            ks_add_term(m2 / M * mq1, kq->x1, kq->v1, kp->x2, kp->v2, 1.0, a, j);
            ks_add_term(m2 / M * mq2, kq->x2, kq->v2, kp->x2, kp->v2, 1.0, a, j);
        } else {
            ks_add_term(m1 / M * s->m[p], xp, vp, kp->x1, kp->v1, 1.0, a, j);
            ks_add_term(m2 / M * s->m[p], xp, vp, kp->x2, kp->v2, 1.0, a, j);
        }
        ks_add_term(s->m[p], xp, vp, kp->xcm, kp->vcm, -1.0, a, j);
    }
}


/* Does the chain's c.m. correction (ks_chain_cm_correction) take the
 * perturbed pair whose c.m. is slot J by its components?  Then the point
 * correction of the pairs' loop must leave J out: taken twice, the pair's
 * quadrupole acted twice on the chain's c.m. and a pair beside a chain
 * gained 3e-4 of E per 3e-4 time units (test_ks_chain's pair beside a
 * chain, offset 0.003, 0.002). */
static int chain_takes_pair_resolved(const sim *s, int J, double t)
{
    const ks_chain *ch = &s->ks->ch;
    if (J < s->n || J >= s->ntot) return 0;
    const ks_pair *kq = &s->ks->pair[J - s->n];
    return ks_pair_resolved_at(kq, t) && ks_list_has(ch->plist, ch->np, J);
}

/* Does cm_correction of pair k take the chain by its members? */
static int chain_in_pair_cm_correction(const sim *s, int k, double t)
{
    const ks_chain *ch = &s->ks->ch;
    const ks_pair *kp = &s->ks->pair[k];
    return ks_chain_resolved_at(ch, t) && ks_pair_resolved_at(kp, t) &&
           ks_list_has(kp->plist, kp->np, ch->icm);
}

int ks_needs_correction(const sim *s)
{
    return s->ks && (s->npairs > 0 || s->ks->ch.active);
}

/* The chain's part of ks_irr_correct: its c.m. feels the perturbers through
 * the members, a body that lists the c.m. feels the members. */
static void chain_irr_correct(const sim *s, int ni, const int *ilist, const int *const *lists,
                              const int *nnb, double (*a)[3], double (*j)[3])
{
    const ks_chain *ch = &s->ks->ch;
    double t = s->time;
#pragma omp parallel for schedule(dynamic, 16) if (ni > 64)
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        if (i == ch->icm) {
            ks_chain_cm_correction(s, t, a[k], j[k]);
            continue;
        }
        if (!ks_sorted_has(lists[k], nnb[k], ch->icm)) continue;
        if (i >= s->n && chain_in_pair_cm_correction(s, i - s->n, t)) continue; /* done there */
        double x[3], v[3];
        ks_block_state(s, i, t, x, v);
        ks_chain_source_correction(s, x, v, a[k], j[k]);
    }
}

void ks_irr_correct(const sim *s, int ni, const int *ilist, const int *const *lists,
                    const int *nnb, int current_lists, double (*a)[3], double (*j)[3])
{
    if (!s->ks) return;
    if (s->ks->ch.active) chain_irr_correct(s, ni, ilist, lists, nnb, a, j);
    if (s->npairs == 0) return;
    double t = s->time;
    const int part = current_lists && s->ks->npart > 0;
#pragma omp parallel for schedule(dynamic, 16) if (ni > 64)
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        const ks_pair *ki = NULL;
        double x[3], v[3];
        if (i >= s->n) {
            ki = &s->ks->pair[i - s->n];
            if (!ks_pair_perturbed(ki)) ki = NULL;
        }
        ks_block_state(s, i, t, x, v);
        const int chain_cm = s->ks->ch.active && i == s->ks->ch.icm;
        if (ki) cm_correction(s, i - s->n, t, a[k], j[k]);
        /* c.m. bodies come last in an ascending list */
        const int *L = lists[k];
        for (int q = nnb[k] - 1; q >= 0 && L[q] >= s->n; q--) {
            int J = L[q];
            if (ki && ks_list_has(ki->plist, ki->np, J)) continue; /* done above */
            if (chain_cm && chain_takes_pair_resolved(s, J, t)) continue; /* chain_irr_correct */
            int comp = part ? ks_partial_comp(s, i, J) : -1;
            if (comp >= 0) ks_partial_correct(s, J, comp, t, x, v, a[k], j[k]);
            else add_source_correction(s, J, x, v, a[k], j[k]);
        }
    }
}
