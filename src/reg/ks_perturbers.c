/* ks_perturbers.c — the perturbers of a KS pair (docs/ALGORITHMS.md §10.8,
 * §10.12): their selection from the c.m. neighbour list, the relative
 * perturbation P and dP/dt they exert on the pair at any time, how many
 * whole periods an unperturbed pair may skip, and the pair's mode after its
 * list changed (ks_set_mode). */
#include <math.h>
#include <string.h>
#include "reg/ks_state.h"
#include "common/predict.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

ks_ctl ks_ctl_of(const sim *s, int k)
{
    ks_ctl c;
    c.etau = s->p.etau;
    c.eclose = s->p.eclose;
    c.dtmax = s->dt[s->n + k];
    return c;
}

/* m r/r^3 and its time derivative, added to a, j (r = source - field point). */
static void add_pair_term(double m, const double r[3], const double w[3], double a[3], double j[3])
{
    double r2 = dot3(r, r), rv = dot3(r, w);
    double mr3 = m / (r2 * sqrt(r2));
    for (int c = 0; c < 3; c++) {
        a[c] += mr3 * r[c];
        j[c] += mr3 * (w[c] - 3.0 * rv / r2 * r[c]);
    }
}

int ks_perturber_sources(const sim *s, int p, double t, const double xp[3], const double vp[3],
                         const double xref[3], double cmsep2, double *ms, double (*xs)[3],
                         double (*vs)[3])
{
    double dx[3] = {xp[0] - xref[0], xp[1] - xref[1], xp[2] - xref[2]};
    double r2 = dot3(dx, dx);
    const ks_chain *ch = &s->ks->ch;
    if (p >= s->n && p < s->ntot) {
        /* a KS pair within GMIN^(-1/3) of its own size acts by its
         * components (kspert.f).  As a point it left out the quadrupole
         * tide on this pair's orbit, which the energy (pairs resolved)
         * does see: two hard pairs at a few sizes from each other lost
         * 1e-4 of E before they became a chain (cc-plummer-2048, NRAND
         * 4711, t = 539.568). */
        const ks_pair *kq = &s->ks->pair[p - s->n];
        if (r2 < cmsep2 * kq->o.r * kq->o.r) {
            int c1 = 2 * (p - s->n);
            double m1 = s->m[c1], m2 = s->m[c1 + 1], M = m1 + m2, q[3], qd[3];
            ks_orbit_predict(&kq->o, t, q, qd);
            ms[0] = m1;
            ms[1] = m2;
            for (int d = 0; d < 3; d++) {
                xs[0][d] = xp[d] + m2 / M * q[d];
                vs[0][d] = vp[d] + m2 / M * qd[d];
                xs[1][d] = xp[d] - m1 / M * q[d];
                vs[1][d] = vp[d] - m1 / M * qd[d];
            }
            return 2;
        }
    } else if (ch->active && p == ch->icm) {
        /* the chain by its members, at their configuration of the chain's
         * time around the c.m. predicted to t (NBODY6's xcpred.f): as a
         * point, a chain 1.4 RSUM from a KS pair that had just left another
         * chain left the same tide out of the pair's orbit (cc-plummer-2048,
         * NRAND 31415, t = 633.447: +5.8e-4 of E in one block) */
        double rs = chain_rsum(&ch->c);
        if (r2 < cmsep2 * rs * rs) {
            double xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3];
            chain_get_state(&ch->c, xi, vi);
            for (int k = 0; k < ch->c.n; k++) {
                ms[k] = ch->c.m[k];
                for (int d = 0; d < 3; d++) {
                    xs[k][d] = xp[d] + xi[k][d];
                    vs[k][d] = vp[d] + vi[k][d];
                }
            }
            return ch->c.n;
        }
    }
    ms[0] = s->m[p];
    memcpy(xs[0], xp, sizeof xs[0]);
    memcpy(vs[0], vp, sizeof vs[0]);
    return 1;
}

void ks_pert_eval(void *ctx, double t, const double q[3], const double qdot[3],
                  double p[3], double pdot[3])
{
    const ks_pert_ctx *c = ctx;
    const sim *s = c->s;
    const ks_pair *kp = &s->ks->pair[c->k];
    int icm = s->n + c->k;
    double m1 = s->m[2 * c->k], m2 = s->m[2 * c->k + 1], M = m1 + m2;
    double xcm[3], vcm[3];
    predict3(t - s->t0[icm], s->x0[icm], s->v0[icm], s->a[icm], s->j[icm], xcm, vcm);
    /* component offsets from the c.m. */
    double r1[3], w1[3], r2[3], w2[3];
    for (int d = 0; d < 3; d++) {
        r1[d] = m2 / M * q[d];
        w1[d] = m2 / M * qdot[d];
        r2[d] = -m1 / M * q[d];
        w2[d] = -m1 / M * qdot[d];
    }
    double a1[3] = {0, 0, 0}, j1[3] = {0, 0, 0}, a2[3] = {0, 0, 0}, j2[3] = {0, 0, 0};
    double cmsep2 = pow(s->p.gmin, -2.0 / 3.0);
    for (int n = 0; n < kp->np; n++) {
        int q_ = kp->plist[n];
        double xp[3], vp[3];
        predict3(t - s->t0[q_], s->x0[q_], s->v0[q_], s->a[q_], s->j[q_], xp, vp);
        double ms[CHAIN_NMAX], xs[CHAIN_NMAX][3], vs[CHAIN_NMAX][3];
        int nsrc = ks_perturber_sources(s, q_, t, xp, vp, xcm, cmsep2, ms, xs, vs);
        for (int q = 0; q < nsrc; q++) {
            double d1[3], e1[3], d2[3], e2[3];
            for (int d = 0; d < 3; d++) {
                double dx = xs[q][d] - xcm[d], dv = vs[q][d] - vcm[d];
                d1[d] = dx - r1[d];
                e1[d] = dv - w1[d];
                d2[d] = dx - r2[d];
                e2[d] = dv - w2[d];
            }
            add_pair_term(ms[q], d1, e1, a1, j1);
            add_pair_term(ms[q], d2, e2, a2, j2);
        }
    }
    for (int d = 0; d < 3; d++) {
        p[d] = a1[d] - a2[d];
        pdot[d] = j1[d] - j2[d];
    }
    /* KZ(14): the galactic tide on the relative motion (xtrnlp.f); the
     * Coriolis terms do no work on the pair and are left out, as NBODY6 does */
    if (tide_on(&s->tide)) tide_add_regular(&s->tide, q, qdot, p, pdot);
}

/* Apocentre distance used for the tidal test: a(1+e) for a bound pair
 * (NBODY6 uses max(zeta a, R) for soft pairs; here a(1+e) for all bound
 * pairs), R otherwise. */
static double apocentre_radius(const ks_pair *kp)
{
    const ks_orbit *o = &kp->o;
    if (o->h >= 0.0) return o->r;
    double rap = ks_orbit_semi(o) * (1.0 + ks_orbit_ecc(o));
    return fmax(rap, o->r);
}

void ks_select_perturbers(sim *s, int k, double t)
{
    ks_pair *kp = &s->ks->pair[k];
    int icm = s->n + k;
    double M = s->m[2 * k] + s->m[2 * k + 1];
    double rap = apocentre_radius(kp);
    /* tidal gamma > GMIN at apocentre: r^3 < 2 RAP^3 m_j / (M GMIN) */
    double fac = 2.0 * rap * rap * rap / (M * s->p.gmin);
    double xcm[3], vcm[3];
    predict3(t - s->t0[icm], s->x0[icm], s->v0[icm], s->a[icm], s->j[icm], xcm, vcm);
    const int *L = sim_list(s, icm);
    kp->np = 0;
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        double xj[3], vj[3];
        predict3(t - s->t0[j], s->x0[j], s->v0[j], s->a[j], s->j[j], xj, vj);
        double dx[3] = {xj[0] - xcm[0], xj[1] - xcm[1], xj[2] - xcm[2]};
        double r2 = dot3(dx, dx);
        if (r2 * sqrt(r2) < fac * s->m[j]) kp->plist[kp->np++] = j;
    }
    /* a hyperbolic pair keeps its nearest neighbour as a perturber, so that
     * it is integrated (and tested for termination) as a perturbed pair */
    if (kp->np == 0 && kp->o.h >= 0.0 && s->nnb[icm] > 0) {
        double best = INFINITY;
        int jb = -1;
        for (int q = 0; q < s->nnb[icm]; q++) {
            int j = L[q];
            double xj[3], vj[3];
            predict3(t - s->t0[j], s->x0[j], s->v0[j], s->a[j], s->j[j], xj, vj);
            double dx[3] = {xj[0] - xcm[0], xj[1] - xcm[1], xj[2] - xcm[2]};
            if (dot3(dx, dx) < best) { best = dot3(dx, dx); jb = j; }
        }
        kp->plist[kp->np++] = jb;
    }
    kp->renew = 0;
}

int ks_unperturbed_periods(const sim *s, int k, double t)
{
    const ks_pair *kp = &s->ks->pair[k];
    int icm = s->n + k;
    double M = s->m[2 * k] + s->m[2 * k + 1];
    double tk = ks_orbit_period(&kp->o);
    double rap = apocentre_radius(kp);
    double xcm[3], vcm[3];
    predict3(t - s->t0[icm], s->x0[icm], s->v0[icm], s->a[icm], s->j[icm], xcm, vcm);
    /* time until a neighbour comes within the distance where its tidal
     * perturbation reaches GMIN, at its present approach speed; at most two
     * c.m. steps (the list is renewed by then) */
    double dtp = 2.0 * s->dt[icm];
    const int *L = sim_list(s, icm);
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        double xj[3], vj[3];
        predict3(t - s->t0[j], s->x0[j], s->v0[j], s->a[j], s->j[j], xj, vj);
        double dx[3] = {xj[0] - xcm[0], xj[1] - xcm[1], xj[2] - xcm[2]};
        double dv[3] = {vj[0] - vcm[0], vj[1] - vcm[1], vj[2] - vcm[2]};
        double r = sqrt(dot3(dx, dx));
        double rcrit = rap * cbrt(2.0 * s->m[j] / (M * s->p.gmin));
        /* approach speed bounded below by the relative speed: a body that
         * passes by at an angle still closes in */
        double vr = sqrt(dot3(dv, dv));
        double dtj = vr > 0.0 ? (r - rcrit) / vr : INFINITY;
        if (dtj < dtp) dtp = dtj;
    }
    if (!(dtp > tk)) return 0;
    int kk = 1 + (int)(dtp / (2.0 * tk));
    return kk > 1000000 ? 1000000 : kk;
}

/* After the perturber list changed: an unperturbed bound pair goes to whole
 * periods (rectified first, §10.13), a pair leaving that mode is restarted. */
void ks_set_mode(sim *s, int k)
{
    ks_pair *kp = &s->ks->pair[k];
    ks_pert_ctx ctx = {s, k};
    ks_pert pf = {ks_pert_eval, &ctx};
    ks_ctl c = ks_ctl_of(s, k);
    if (kp->np == 0 && kp->o.h < 0.0) {
        if (!kp->o.frozen && ks_orbit_ecc(&kp->o) > 0.05) ks_orbit_rectify(&kp->o);
        int kk = ks_unperturbed_periods(s, k, kp->o.t0);
        ks_orbit_freeze(&kp->o, kk < 1 ? 1 : kk);
    } else if (kp->o.frozen) {
        ks_orbit_poly(&kp->o, &pf, &c);
    }
}

void ks_primordial_perturbers(sim *s, double t)
{
    for (int k = 0; k < s->npairs; k++) {
        ks_select_perturbers(s, k, t);
        ks_set_mode(s, k);
    }
    for (int k = 0; k < s->npairs; k++) ks_resolve_pair(s, k, t);
}
