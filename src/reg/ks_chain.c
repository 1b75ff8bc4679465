/* ks_chain.c — chain regularisation in the run (docs/ALGORITHMS.md, chain §1–§3):
 * when a hard KS pair meets a strong perturber, the pair's components and
 * the intruder (a single, or both components of another pair) become one
 * AR-chain (chain.h).  This module owns the chain's place in the cluster:
 *
 *  - start (NBODY6's route C of ksint.f with IMPACT's size tests): the pairs
 *    are ended, the members become one c.m. body (the first member's slot,
 *    name 0, the members' mass and momentum) and ghosts (mass 0, far away,
 *    never due), every list naming a member names the c.m. instead;
 *  - each block: the chain is advanced to the block time with the tidal
 *    field of its perturbers (predicted to every substep), and its members
 *    resolved there for the force corrections (the c.m. feels the
 *    perturbers through the members, bodies listing the c.m. feel the
 *    members) and the energy measure;
 *  - end (chain.f label 70 roles): an escaper beyond 5 R_grav receding
 *    unbound, a stable bound triple (Mardling & Aarseth 2001), a perturber
 *    too strong for the chain's model, or a step budget: the members come
 *    back as singles at the block time with new polynomials, and the most
 *    bound pair (and a second bound one for four members) becomes KS.
 *
 * Energy: the chain's internal energy E_int = -B is integrated with the
 * perturbers' work (chain.h) and is part of the total (as EBIN is for KS);
 * a start and an end write the same state two ways, so their jumps are the
 * chain integration's own inconsistency (E_int + B at the end), recorded in
 * the ledger. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "common/predict.h"

#define CHAIN_STEP_BUDGET 2000000 /* chain steps before a bound chain is ended anyway */
#define CHAIN_PAUSE 0.001   /* no new chain for this long after one ended (TIME_CH) */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The perturbers' tidal field on the members at chain time t (members at
 * x relative to the c.m.); chain.h removes the mean itself. */
static void chain_perturb(void *ctx, double t, int n, const double (*x)[3], const double (*v)[3],
                          double (*acc)[3])
{
    (void)v;
    const sim *s = ctx;
    const ks_chain *ch = &s->ks->ch;
    int icm = ch->icm;
    double xc[3], vc[3];
    predict3(t - s->t0[icm], s->x0[icm], s->v0[icm], s->a[icm], s->j[icm], xc, vc);
    for (int k = 0; k < n; k++) acc[k][0] = acc[k][1] = acc[k][2] = 0.0;
    double cmsep2 = pow(s->p.gmin, -2.0 / 3.0);
    for (int q = 0; q < ch->np; q++) {
        int p = ch->plist[q];
        double xp[3], vp[3], ms[CHAIN_NMAX], xs[CHAIN_NMAX][3], vs[CHAIN_NMAX][3];
        predict3(t - s->t0[p], s->x0[p], s->v0[p], s->a[p], s->j[p], xp, vp);
        /* a KS pair perturber near the chain acts by its components (as on
         * a KS pair: ks_perturber_sources) */
        int ns = ks_perturber_sources(s, p, t, xp, vp, xc, cmsep2, ms, xs, vs);
        for (int e = 0; e < ns; e++)
            for (int k = 0; k < n; k++) {
                double d[3] = {xs[e][0] - xc[0] - x[k][0], xs[e][1] - xc[1] - x[k][1],
                               xs[e][2] - xc[2] - x[k][2]};
                double r2 = dot3(d, d), mr3 = ms[e] / (r2 * sqrt(r2));
                for (int c = 0; c < 3; c++) acc[k][c] += mr3 * d[c];
            }
    }
    /* KZ(14): the galactic tide on the members (its Coriolis part does no work) */
    if (tide_on(&s->tide)) {
        double jdummy[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < n; k++) tide_add_regular(&s->tide, x[k], v[k], acc[k], jdummy);
    }
}

/* Advances the chain to t and resolves its members there. */
int ks_chain_advance(sim *s, double t)
{
    ks_chain *ch = &s->ks->ch;
    if (!ch->active) return 0;
    if (ch->renew) ks_chain_select_perturbers(s, chain_time(&ch->c));
    if (t > chain_time(&ch->c)) {
        long long st0 = ch->c.steps;
        chain_params par;
        chain_params_default(&par);
        if (s->star_radius) { /* stellar collisions: the members' distances at every step */
            par.stop = ks_collide_chain_stop;
            par.stop_ctx = s;
        }
        int rc = chain_advance(&ch->c, t, &par, ch->np ? chain_perturb : NULL, s);
        if (rc >= 0 && s->star_radius) ks_collide_chain_stop(s, &ch->c);
        ch->steps += ch->c.steps - st0;
        if (rc < 0) {
            fprintf(stderr, "nbody6c: chain integration failed at t = %.10g: %s\n", t, ch->c.err);
            return -1;
        }
    }
    ks_chain_resolve(s, t);
    return 0;
}

int ks_body_name(const sim *s, int i)
{
    if (s->ks && s->ks->ch.active && i == s->ks->ch.icm) return (int)s->ks->ch.c.id[0];
    return abs(s->name[i]); /* a merged inner pair: its components' names, negated */
}

/* Does this block need the members at t? */
static int chain_needed(const sim *s, const int *act, int nact)
{
    const ks_chain *ch = &s->ks->ch;
    if (nact < 0 || s->led.exact || s->ks->check_jumps) return 1;
    int C = ch->icm;
    for (int q = 0; q < nact; q++) {
        int i = act[q];
        if (i == C || ks_sorted_has(sim_list(s, i), s->nnb[i], C)) return 1;
        /* a regular step may put the c.m. on the new list */
        double d[3] = {s->x0[i][0] - s->x0[C][0], s->x0[i][1] - s->x0[C][1], s->x0[i][2] - s->x0[C][2]};
        if (dot3(d, d) < 4.0 * s->rs[i] * s->rs[i]) return 1;
    }
    return 0;
}

int ks_chain_sync(sim *s, double t, const int *act, int nact)
{
    if (!s->ks || !s->ks->ch.active) return 0;
    if (chain_time(&s->ks->ch.c) >= t || !chain_needed(s, act, nact)) return 0;
    return ks_chain_advance(s, t);
}

/* ---- start ---------------------------------------------------------------- */

/* The two-body elements of bodies with masses m1, m2, relative state dx, dv. */
static void two_body(double M, const double dx[3], const double dv[3], double *a, double *e,
                     double *rdot)
{
    double r = sqrt(dot3(dx, dx)), v2 = dot3(dv, dv), rv = dot3(dx, dv);
    double en = 0.5 * v2 - M / r;
    *a = -0.5 * M / en;
    double h[3] = {dx[1] * dv[2] - dx[2] * dv[1], dx[2] * dv[0] - dx[0] * dv[2],
                   dx[0] * dv[1] - dx[1] * dv[0]};
    double e2 = 1.0 + 2.0 * en * dot3(h, h) / (M * M);
    *e = sqrt(fmax(e2, 0.0));
    *rdot = rv / r;
}

/* When a pair and an intruder become a chain (ksint.f route C, IMPACT's
 * size tests, made earlier for a pair intruder): pair k bound with
 * a < 3 RMIN (RMIN scaled by the pair's mass: ks_rmin_of_mass) and perturbed; the intruder the approaching neighbour of its
 * c.m. within 5 RMIN with the largest (M + m_j)/r^2, whose pericentre comes
 * within 5 apocentre sizes (both pairs' for a pair intruder); and the
 * encounter strong: the pair's relative perturbation above 0.05 (NBODY6),
 * the intruder's tidal gamma at the pair's apocentre above CHAIN_GAMMA, or a
 * pair intruder within 4 apocentre sizes (binary-binary encounters must
 * not wait for gamma: KS + Hermite, with each pair resolved in the other's
 * perturbation, kept the scripted one of test_ks_chain to 2.8e-5, the chain
 * to 2.4e-7).  Returns the intruder's slot or -1. */
#define CHAIN_GAMMA 0.01
static double pair_apocentre(const ks_orbit *o)
{
    return o->h < 0.0 ? ks_orbit_semi(o) * (1.0 + ks_orbit_ecc(o)) : o->r;
}

static int chain_intruder(sim *s, int k, double t)
{
    const ks_pair *kp = &s->ks->pair[k];
    const ks_orbit *o = &kp->o;
    if (!ks_pair_perturbed(kp) || !(o->h < 0.0) || ks_pair_merged(s, k)) return -1;
    int icm = s->n + k;
    double a = ks_orbit_semi(o), rmin = s->p.rmin;
    if (!(a < 3.0 * ks_rmin_of_mass(s, s->m[icm]))) return -1;
    /* none of the list within 5 RMIN until quiet_until (below) */
    ks_pair *kq = &s->ks->pair[k];
    if (t < kq->quiet_until && kq->quiet_rmin == rmin && kq->quiet_epoch == s->ks->quiet_epoch) return -1;
    double M = s->m[icm], xc[3], vc[3];
    ks_predict_slot(s, icm, t, xc, vc);
    const int *L = sim_list(s, icm);
    int best = -1;
    double bestv = 0.0, quiet = INFINITY;
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        if (ks_chain_owns(s->ks, j) || (j >= s->n && ks_pair_merged(s, j - s->n))) continue;
        double xj[3], vj[3];
        ks_predict_slot(s, j, t, xj, vj);
        double dx[3] = {xj[0] - xc[0], xj[1] - xc[1], xj[2] - xc[2]};
        double dv[3] = {vj[0] - vc[0], vj[1] - vc[1], vj[2] - vc[2]};
        double r2 = dot3(dx, dx);
        /* the time this body needs to come within 5 RMIN, at twice its
         * speed relative to the c.m. plus the speed the pair's and its own
         * pull can add from there */
        const double gap = sqrt(r2) - 5.0 * rmin;
        quiet = fmin(quiet, gap / (2.0 * sqrt(dot3(dv, dv)) + sqrt(2.0 * (M + s->m[j]) / (5.0 * rmin))));
        if (dot3(dx, dv) >= 0.0 || r2 > 25.0 * rmin * rmin) continue;
        double val = (M + s->m[j]) / r2;
        if (val > bestv) {
            bestv = val;
            best = j;
        }
    }
    /* a quarter of the least of those times: the scan is repeated well
     * before any body could arrive, so that the outcome stays the same */
    kq->quiet_until = quiet > 0.0 ? t + 0.25 * quiet : -INFINITY;
    kq->quiet_rmin = rmin;
    kq->quiet_epoch = s->ks->quiet_epoch;
    if (best < 0) return -1;
    int jpair = best >= s->n;
    if (jpair && s->ks->pair[best - s->n].o.h >= 0.0) return -1;
    double xj[3], vj[3];
    ks_predict_slot(s, best, t, xj, vj);
    double dx[3] = {xj[0] - xc[0], xj[1] - xc[1], xj[2] - xc[2]};
    double dv[3] = {vj[0] - vc[0], vj[1] - vc[1], vj[2] - vc[2]};
    double a1, e1, rd, r = sqrt(dot3(dx, dx));
    two_body(M + s->m[best], dx, dv, &a1, &e1, &rd);
    double pmin = a1 > 0.0 ? a1 * (1.0 - e1) : (e1 > 1.0 ? -a1 * (e1 - 1.0) : r / 4.0);
    double size = pair_apocentre(o) + (jpair ? pair_apocentre(&s->ks->pair[best - s->n].o) : 0.0);
    if (!(pmin <= 5.0 * size)) return -1;
    if (jpair && r > 4.0 * rmin) return -1;
    double apo = pair_apocentre(o);
    double gj = 2.0 * s->m[best] * apo * apo * apo / (M * r * r * r);
    if (o->gamma > 0.05 || gj > CHAIN_GAMMA || (jpair && r < 4.0 * size)) return best;
    /* ksint.f route A: the c.m.'s step has fallen below DTMIN and the
     * intruder is inside RMIN.  Without it a single falls towards a hard
     * pair (a << RMIN) under Hermite steps until its tidal gamma reaches
     * CHAIN_GAMMA at a few apocentres: there the two bodies' regular
     * correctors (their lists differ, so do their regular forces) move them
     * apart by 1e-7 deep in the pair's potential (measured: 2e-5 of E at
     * r = 10 a; 8e-4 before the list-change term was summed directly) */
    if (s->dt[icm] < s->p.dtmin && r < rmin) return best;
    return -1;
}

/* The internal energy of members (x, v in any common frame): T + W about
 * their c.m. */
static double members_energy(int n, const double *m, const double (*x)[3], const double (*v)[3])
{
    double M = 0.0, p[3] = {0, 0, 0}, t = 0.0, w = 0.0;
    for (int k = 0; k < n; k++) {
        M += m[k];
        for (int c = 0; c < 3; c++) p[c] += m[k] * v[k][c];
        t += 0.5 * m[k] * dot3(v[k], v[k]);
    }
    t -= 0.5 * dot3(p, p) / M;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            double d[3] = {x[i][0] - x[k][0], x[i][1] - x[k][1], x[i][2] - x[k][2]};
            w -= m[i] * m[k] / sqrt(dot3(d, d));
        }
    return t + w;
}

/* The members (singles, by name) become the chain at time t. */
static int chain_start(sim *s, int n, const int *names, double t, char *err, size_t errlen)
{
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    ks_state *ks = s->ks;
    ks_chain *ch = &ks->ch;
    int slot[CHAIN_NMAX];
    double m[CHAIN_NMAX], x[CHAIN_NMAX][3], v[CHAIN_NMAX][3];
    long id[CHAIN_NMAX];
    for (int k = 0; k < n; k++) {
        slot[k] = ks_slot_of_name(s, names[k]);
        if (slot[k] < 0) {
            snprintf(err, errlen, "chain start: body %d is not a single", names[k]);
            return -1;
        }
        ks_predict_slot_high(s, slot[k], t, x[k], v[k]);
        m[k] = s->m[slot[k]];
        id[k] = names[k];
    }
    double e_before = members_energy(n, m, (const double(*)[3])x, (const double(*)[3])v);
    /* relative to the first member: chain.h wants a nearby origin (cluster
     * coordinates would cost a tight pair eps |x| / a of its accuracy) */
    double x0[3], v0[3], xr[CHAIN_NMAX][3], vr[CHAIN_NMAX][3], xcm[3], vcm[3];
    memcpy(x0, x[0], sizeof x0);
    memcpy(v0, v[0], sizeof v0);
    for (int k = 0; k < n; k++)
        for (int c = 0; c < 3; c++) {
            xr[k][c] = x[k][c] - x0[c];
            vr[k][c] = v[k][c] - v0[c];
        }
    if (chain_init(&ch->c, n, m, (const double(*)[3])xr, (const double(*)[3])vr, id, t, xcm, vcm)) {
        snprintf(err, errlen, "chain start at t = %g: %s", t, ch->c.err);
        return -1;
    }
    for (int c = 0; c < 3; c++) {
        xcm[c] += x0[c];
        vcm[c] += v0[c];
    }
    /* bodies that list some of the members but not all: they would gain
     * the others through the c.m.; they restart at t, as at a KS formation */
    unsigned char *mark = ks->mark;
    int nsplit = 0, *split = malloc(sizeof(int) * (size_t)(s->ntot + 1));
    if (!split) {
        snprintf(err, errlen, "out of memory at a chain start");
        return -1;
    }
    for (int b = s->ifirst; b < s->ntot; b++) {
        const int *l = sim_list(s, b);
        int hits = 0, self = 0;
        for (int k = 0; k < n; k++) self |= b == slot[k];
        for (int q = 0; q < s->nnb[b]; q++)
            for (int k = 0; k < n; k++) hits += l[q] == slot[k];
        mark[b] = !self && hits > 0 && hits < n;
        if (mark[b]) split[nsplit++] = b;
    }
    int C = slot[0];
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    for (int k = 1; k < n; k++) map[slot[k]] = C;
    ch->active = 0; /* the relabelling must not move the chain's own slots */
    ks_relabel_all(s, map, -1, -1, -1, NULL); /* members merge into the c.m. */
    if (!ch->plist) ch->plist = malloc(sizeof(int) * (size_t)(s->nbmax + 2));
    if (!ch->plist) {
        free(split);
        snprintf(err, errlen, "out of memory at a chain start");
        return -1;
    }
    ch->active = 1;
    ch->icm = C;
    memcpy(ch->slot, slot, sizeof(int) * (size_t)n);
    ch->np = 0;
    ch->steps = 0;
    double rs = 0.0, dtr = INFINITY;
    for (int k = 0; k < n; k++) {
        rs = fmax(rs, s->rs[slot[k]]);
        dtr = fmin(dtr, s->dtr[slot[k]]);
    }
    for (int k = 1; k < n; k++) ks_make_ghost(s, slot[k], t);
    s->name[C] = 0;
    s->m[C] = ch->c.mtot;
    memcpy(s->x0[C], xcm, sizeof(vec3));
    memcpy(s->v0[C], vcm, sizeof(vec3));
    s->rs[C] = rs;
    s->dtr[C] = dtr;
    s->nnb[C] = 0;
    /* the jump: the same state written two ways (rounding only) */
    ks->last_jump = 0.5 * ch->c.mtot * dot3(vcm, vcm) - ch->c.B -
                    (e_before + 0.5 * ch->c.mtot * dot3(vcm, vcm));
    int *idx = malloc(sizeof(int) * (size_t)(nsplit + 1));
    if (!idx) {
        free(split);
        snprintf(err, errlen, "out of memory at a chain start");
        return -1;
    }
    idx[0] = C;
    for (int q = 0; q < nsplit; q++) idx[q + 1] = split[q];
    ks_restart_state(s, nsplit, idx + 1, t);
    free(split);
    int rc = newpoly_bodies(s, nsplit + 1, idx, t, 0, err, errlen);
    free(idx);
    if (rc) return -1;
    ch->started++;
    return 0;
}

/* ---- end ------------------------------------------------------------------ */

/* The list l (nb entries, sorted) with the members' slots other than the
 * c.m.'s own (which member 0 keeps) and self added, sorted, in tmp; returns
 * the count (up to 2 (nbmax + 2)). */
static int list_with_members(const sim *s, const int *l, int nb, int self, int *tmp)
{
    const ks_chain *ch = &s->ks->ch;
    int m = 0;
    for (int q = 0; q < nb; q++) tmp[m++] = l[q];
    for (int k = 1; k < ch->c.n && m < 2 * (s->nbmax + 2); k++)
        if (ch->slot[k] != self) tmp[m++] = ch->slot[k];
    /* insertion sort: lists are short */
    for (int q = 1; q < m; q++) {
        int e = tmp[q], r = q - 1;
        while (r >= 0 && tmp[r] > e) {
            tmp[r + 1] = tmp[r];
            r--;
        }
        tmp[r + 1] = e;
    }
    return m;
}

/* Adds the members' slots to every list that names the c.m. (kept sorted,
 * at most nbmax: a list that would overflow is returned in full[]), and to
 * every KS pair's perturber list that names it.  Without the latter a pair
 * beside the chain kept member 0 alone (in the c.m.'s slot) as its
 * perturber until its next selection, half an orbit later, while the
 * energy saw every member: test_ks_chain's pair beside a chain gained
 * 7.7e-5 of E in the 5e-4 time units after the chain's end. */
static int relabel_members_back(sim *s, int *full)
{
    ks_chain *ch = &s->ks->ch;
    int nfull = 0, *tmp = s->ks->tmp;
    for (int b = s->ifirst; b < s->ntot; b++) {
        int *l = sim_list(s, b), nb = s->nnb[b];
        if (b == ch->icm || !ks_sorted_has(l, nb, ch->icm)) continue;
        int m = list_with_members(s, l, nb, b, tmp);
        if (m > s->nbmax) {
            m = s->nbmax;
            full[nfull++] = b;
        }
        memcpy(l, tmp, sizeof(int) * (size_t)m);
        s->nnb[b] = m;
        s->ks->dirty[b] = 1;
    }
    for (int k = 0; k < s->npairs; k++) {
        ks_pair *kp = &s->ks->pair[k];
        if (!ks_list_has(kp->plist, kp->np, ch->icm)) continue;
        int m = list_with_members(s, kp->plist, kp->np, s->n + k, tmp);
        kp->np = m < s->nbmax ? m : s->nbmax;
        memcpy(kp->plist, tmp, sizeof(int) * (size_t)kp->np);
    }
    return nfull;
}

/* The members come back as singles at t; the most bound pair (and, with
 * four or more members, a second bound pair well apart from it) is handed
 * back to KS by name in ks_pairs[] (count returned). */
static int chain_end(sim *s, double t, int *ks_names, char *err, size_t errlen)
{
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    ks_state *ks = s->ks;
    ks_chain *ch = &ks->ch;
    int n = ch->c.n;
    double xc[3], vc[3], xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3];
    ks_predict_slot_high(s, ch->icm, t, xc, vc);
    chain_get_state(&ch->c, xi, vi);
    /* KS candidates before the state leaves the chain */
    int npairs = 0;
    chain_pair_info dom;
    chain_dominant_pair(&ch->c, &dom);
    if (dom.energy < 0.0) {
        ks_names[0] = (int)ch->c.id[dom.i];
        ks_names[1] = (int)ch->c.id[dom.j];
        npairs = 1;
        if (n >= 4) {
            chain_pair_info best = {0};
            int found = 0;
            for (int i = 0; i < n; i++)
                for (int k = i + 1; k < n; k++) {
                    if (i == dom.i || i == dom.j || k == dom.i || k == dom.j) continue;
                    chain_pair_info pi;
                    chain_pair(&ch->c, i, k, &pi);
                    if (pi.energy < 0.0 && pi.r < ks_rmin_of_mass(s, ch->c.m[i] + ch->c.m[k]) &&
                        (!found || pi.energy < best.energy)) {
                        best = pi;
                        found = 1;
                    }
                }
            if (found) {
                ks_names[2] = (int)ch->c.id[best.i];
                ks_names[3] = (int)ch->c.id[best.j];
                npairs = 2;
            }
        }
    }
    double e_int = chain_energy(&ch->c);
    ks->last_jump = e_int + ch->c.B; /* the chain integration's inconsistency */
    int nfull = 0, *idx = malloc(sizeof(int) * (size_t)(s->ntot + n + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a chain end");
        return -1;
    }
    nfull = relabel_members_back(s, idx + n);
    for (int k = 0; k < n; k++) {
        int b = ch->slot[k];
        s->name[b] = (int)ch->c.id[k];
        s->m[b] = ch->c.m[k];
        for (int c = 0; c < 3; c++) {
            s->x0[b][c] = xc[c] + xi[k][c];
            s->v0[b][c] = vc[c] + vi[k][c];
        }
        s->t0[b] = s->t0r[b] = t;
        s->dtr[b] = s->dtr[ch->icm];
        s->rs[b] = s->rs[ch->icm];
        s->nnb[b] = 0;
        idx[k] = b;
    }
    ks_restart_state(s, nfull, idx + n, t);
    ch->active = 0;
    ch->np = 0;
    ch->ended++;
    ch->steps_total += ch->steps;
    int rc = newpoly_bodies(s, n + nfull, idx, t, 0, err, errlen);
    free(idx);
    return rc ? -1 : npairs;
}

/* Ends the active chain at t for escaper removal (escape.c): the members
 * come back as singles and no KS pair is formed among them, since they
 * all leave at once.  The drift of the chain's integration (E + B) goes to
 * the ledger as at any chain end, before the escapers' energy is measured
 * and booked.  Returns 0 or -1 with err. */
int ks_chain_end_escaper(sim *s, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || !ks->ch.active) return 0;
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    if (ks_chain_sync(s, t, NULL, -1) || chain_time(&ks->ch.c) != t) {
        snprintf(err, errlen, "chain escaper at t = %g: the chain is not at that time", t);
        return -1;
    }
    int exact = s->led.exact, names[4];
    double e0 = exact ? ks_total_energy(s) : 0.0;
    chain_pair_info dom;
    chain_dominant_pair(&ks->ch.c, &dom);
    int n1 = (int)ks->ch.c.id[0], n2 = (int)ks->ch.c.id[1];
    double rs = chain_rsum(&ks->ch.c);
    if (chain_end(s, t, names, err, errlen) < 0) return -1;
    double de = exact ? ks_total_energy(s) - e0 : ks->last_jump;
    ledger_record(&s->led, LED_CHAIN_END, t, n1, n2, de, dom.a, dom.e, rs);
    ks->ch.last_end = "escaper";
    return 0;
}

/* ---- absorption ------------------------------------------------------------ */

/* Absorption's reach: 3 RMIN, RMIN scaled by the mass of the chain's
 * dominant pair (absorb_candidate explains the cap). */
static double absorb_reach(const sim *s)
{
    const chain *c = &s->ks->ch.c;
    chain_pair_info dom;
    chain_dominant_pair(c, &dom);
    return 3.0 * ks_rmin_of_mass(s, c->m[dom.i] + c->m[dom.j]);
}

/* The perturber that should join the chain now (chmod.f's absorption, as
 * NBODY6 does with KZ(30) > 2): approaching, within 3 RMIN of the chain's
 * c.m. (RMIN scaled by the mass of the chain's dominant pair, as in the
 * escape test) and within 3 RSUM or with a tidal gamma above 0.1 on the
 * chain; a single or a bound KS pair, with room in the chain (CHAIN_NMAX
 * members); the one with the largest gamma.  Returns its slot or -1.
 * The 3 RMIN cap is chmod.f's and stops a runaway: each absorption widens
 * RSUM, and with a reach of 3 RSUM (or any body of gamma > 0.1) a 3-member
 * chain took in a fourth member 2.6e-3 (13 RMIN) away, then more, RSUM
 * 1.3e-3 -> 0.043 within 2e-11 time units, ended as too large and started
 * again, over and over: each restart gave the c.m. new polynomials (|d3|
 * up to 1e26), its step and its neighbours' fell to 1e-13, a KS pair's
 * below the time resolution, and the run stopped (cc-plummer-2048, NRAND
 * 12345, t = 789.395).  chmod.f's 3 min(RSUM, RMIN) cut also absorptions
 * that test_ks_chain's binary-binary encounter needs (its chain's end
 * inconsistency 3.0e-10 of E against 2.3e-11) and made test_ks_merge's
 * split encounter worse (median |dE/E| 3.3e-7 against 1.4e-7 over seven
 * impact parameters). */
static int absorb_candidate(const sim *s, double t)
{
    const ks_chain *ch = &s->ks->ch;
    double rsum = chain_rsum(&ch->c), M = ch->c.mtot, xc[3], vc[3];
    double reach = absorb_reach(s);
    ks_predict_slot(s, ch->icm, t, xc, vc);
    int best = -1;
    double bestg = 0.0;
    for (int q = 0; q < ch->np; q++) {
        int p = ch->plist[q];
        int add = p >= s->n ? 2 : 1;
        /* up to the chain's capacity (NBODY6's ARchain NMX): at 6, NBODY6
         * Chain's limit, a hard pair (a = 2.4e-4) that came within 0.002 of
         * a five-body chain could join neither it nor leave it, and its c.m.
         * step fell below the time resolution (cc-plummer-2048, NRAND 12345,
         * t = 602.66) */
        if (ch->c.n + add > CHAIN_NMAX) continue;
        if (p >= s->n && !(s->ks->pair[p - s->n].o.h < 0.0)) continue;
        /* a merged hierarchy splits first (its gamma grows as it nears) */
        if (p >= s->n && ks_pair_merged(s, p - s->n)) continue;
        double xp[3], vp[3];
        ks_predict_slot(s, p, t, xp, vp);
        double d[3] = {xp[0] - xc[0], xp[1] - xc[1], xp[2] - xc[2]};
        double w[3] = {vp[0] - vc[0], vp[1] - vc[1], vp[2] - vc[2]};
        double r = sqrt(dot3(d, d));
        if (dot3(d, w) >= 0.0) continue;
        double g = 2.0 * s->m[p] * rsum * rsum * rsum / (M * r * r * r);
        if (r < reach && (r < 3.0 * rsum || g > 0.1) && g > bestg) {
            bestg = g;
            best = p;
        }
    }
    return best;
}

/* The singles named (already at time t) join the chain. */
static int chain_absorb(sim *s, int nadd, const int *names, double t, char *err, size_t errlen)
{
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    ks_state *ks = s->ks;
    ks_chain *ch = &ks->ch;
    int C = ch->icm, slot[2];
    double xc[3], vc[3], xcm[3] = {0, 0, 0}, vcm[3] = {0, 0, 0}, de_sum = 0.0;
    ks_predict_slot_high(s, C, t, xc, vc);
    for (int k = 0; k < nadd; k++) {
        slot[k] = ks_slot_of_name(s, names[k]);
        if (slot[k] < 0) {
            snprintf(err, errlen, "chain absorption: body %d is not a single", names[k]);
            return -1;
        }
        double x[3], v[3], de;
        ks_predict_slot_high(s, slot[k], t, x, v);
        /* relative to the chain's c.m. at the start of the absorption */
        for (int c = 0; c < 3; c++) {
            x[c] -= xc[c];
            v[c] -= vc[c];
        }
        if (chain_add_member(&ch->c, s->m[slot[k]], x, v, names[k], xcm, vcm, &de)) {
            snprintf(err, errlen, "chain absorption at t = %g: %s", t, ch->c.err);
            return -1;
        }
        de_sum += de;
    }
    /* bodies that list some of the new members and the c.m. but not all */
    unsigned char *mark = ks->mark;
    int nsplit = 0, *split = malloc(sizeof(int) * (size_t)(s->ntot + 1));
    int *idx = malloc(sizeof(int) * (size_t)(s->ntot + 2));
    if (!split || !idx) {
        free(split);
        free(idx);
        snprintf(err, errlen, "out of memory at a chain absorption");
        return -1;
    }
    for (int b = s->ifirst; b < s->ntot; b++) {
        const int *l = sim_list(s, b);
        int hits = 0, self = b == C;
        for (int k = 0; k < nadd; k++) self |= b == slot[k];
        for (int q = 0; q < s->nnb[b]; q++) {
            hits += l[q] == C;
            for (int k = 0; k < nadd; k++) hits += l[q] == slot[k];
        }
        mark[b] = !self && hits > 0 && hits < nadd + 1;
        if (mark[b]) split[nsplit++] = b;
    }
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    for (int k = 0; k < nadd; k++) map[slot[k]] = C;
    ch->active = 0; /* the relabelling must not move the chain's own slots */
    ks_relabel_all(s, map, -1, -1, -1, NULL);
    ch->active = 1;
    for (int k = 0; k < nadd; k++) {
        ch->slot[ch->c.n - nadd + k] = slot[k];
        ks_make_ghost(s, slot[k], t);
    }
    s->m[C] = ch->c.mtot;
    for (int c = 0; c < 3; c++) {
        s->x0[C][c] = xc[c] + xcm[c];
        s->v0[C][c] = vc[c] + vcm[c];
    }
    s->nnb[C] = 0;
    (void)de_sum; /* the state is written two ways: the measure is unchanged */
    idx[0] = C;
    for (int q = 0; q < nsplit; q++) idx[q + 1] = split[q];
    ks_restart_state(s, nsplit, idx + 1, t);
    free(split);
    int rc = newpoly_bodies(s, nsplit + 1, idx, t, 0, err, errlen);
    free(idx);
    ch->absorbed += nadd;
    return rc;
}

/* Mardling & Aarseth (2001): is the triple (inner pair i, j; outer k)
 * stable?  Inclination factor left at its coplanar value (conservative). */
static int stable_triple(const chain *c, const chain_pair_info *in, int k)
{
    double mi = c->m[in->i] + c->m[in->j], M = c->mtot;
    double x[CHAIN_NMAX][3], v[CHAIN_NMAX][3];
    chain_get_state(c, x, v);
    double xin[3], vin[3];
    for (int d = 0; d < 3; d++) {
        xin[d] = (c->m[in->i] * x[in->i][d] + c->m[in->j] * x[in->j][d]) / mi;
        vin[d] = (c->m[in->i] * v[in->i][d] + c->m[in->j] * v[in->j][d]) / mi;
    }
    double dx[3] = {x[k][0] - xin[0], x[k][1] - xin[1], x[k][2] - xin[2]};
    double dv[3] = {v[k][0] - vin[0], v[k][1] - vin[1], v[k][2] - vin[2]};
    double a1, e1, rd;
    two_body(M, dx, dv, &a1, &e1, &rd);
    if (!(a1 > 0.0) || !(e1 < 1.0) || !(in->a > 0.0)) return 0;
    double q = c->m[k] / mi;
    double rp = 2.8 * pow((1.0 + q) * (1.0 + e1) / sqrt(1.0 - e1), 0.4);
    return a1 * (1.0 - e1) / in->a > rp;
}

/* A perturber of tidal gamma above 0.2, approaching and inside the
 * absorption reach, that could not be absorbed (no room, a hyperbolic or a
 * merged pair): the chain must end before it arrives.  One farther out, or
 * receding, acts on the members as an external force until it is absorbed
 * or gone, as in NBODY6 (chmod.f flags nothing else).  Ending the chain for
 * any perturber of gamma > 0.2, once the reach was capped at 3 RMIN, made a
 * chain start and end at the same block time over and over while a bound
 * pair at gamma 1.9 and 2.2 RMIN approached it, until the steps fell below
 * the time resolution (cc-plummer-2048, NRAND 31415, t = 618.17; NRAND
 * 12345, t = 653.75). */
static int unabsorbable_strong_perturber(const sim *s, double t)
{
    const ks_chain *ch = &s->ks->ch;
    double rsum = chain_rsum(&ch->c), M = ch->c.mtot, reach = absorb_reach(s), xc[3], vc[3];
    ks_predict_slot(s, ch->icm, t, xc, vc);
    for (int q = 0; q < ch->np; q++) {
        int p = ch->plist[q];
        double xp[3], vp[3];
        ks_predict_slot(s, p, t, xp, vp);
        double d[3] = {xp[0] - xc[0], xp[1] - xc[1], xp[2] - xc[2]};
        double w[3] = {vp[0] - vc[0], vp[1] - vc[1], vp[2] - vc[2]};
        double r2 = dot3(d, d), g = 2.0 * s->m[p] * rsum * rsum * rsum / (M * r2 * sqrt(r2));
        if (g > 0.2 && dot3(d, w) < 0.0 && r2 < reach * reach) return 1;
    }
    return 0;
}

/* Why the chain should end now (NULL: go on). */
static const char *end_reason(const sim *s, double t)
{
    const ks_chain *ch = &s->ks->ch;
    const chain *c = &ch->c;
    if (c->n < 3) return "two members left";
    if (ch->gpert > 0.2 && unabsorbable_strong_perturber(s, t)) return "strong perturber";
    chain_pair_info dom;
    chain_dominant_pair(c, &dom);
    double wsum = 0.0;
    for (int i = 0; i < c->n; i++)
        for (int k = i + 1; k < c->n; k++) wsum += c->m[i] * c->m[k];
    double rgrav = wsum / fmax(fabs(chain_energy(c)), 1e-300);
    chain_escape esc;
    double rmin = ks_rmin_of_mass(s, c->m[dom.i] + c->m[dom.j]);
    if (chain_find_escaper(c, fmin(5.0 * rgrav, 3.0 * rmin), &esc)) return "escape";
    if (c->n == 3 && dom.energy < 0.0) {
        int k = 3 - dom.i - dom.j;
        if (stable_triple(c, &dom, k)) return "stable triple";
    }
    if (ch->steps > CHAIN_STEP_BUDGET) return "step budget";
    /* the perturbers come from the c.m.'s neighbour sphere: the chain must
     * stay well inside it */
    if (chain_rsum(c) > 0.5 * s->rs[ch->icm]) return "too large";
    return NULL;
}

/* ---- the block end ----------------------------------------------------- */

int ks_chain_block_end(sim *s, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || !ks->chain_on) return 0;
    ks_chain *ch = &ks->ch;
    int events = 0;
    if (ch->active) {
        /* the end tests look at the chain where the block left it: only
         * when it was brought to this block's time */
        if (chain_time(&ch->c) < t) return 0;
        const char *why = end_reason(s, t);
        /* a strong perturber that can join the chain does (ending the chain
         * would leave its members to KS in that very encounter) */
        int p = why && strcmp(why, "strong perturber") ? -1 : absorb_candidate(s, t);
        if (p >= 0) {
            int exact = s->led.exact, names[2], nadd = 0;
            double e0 = exact ? ks_total_energy(s) : 0.0;
            if (p >= s->n) {
                int k = p - s->n, m1 = s->name[2 * k], m2 = s->name[2 * k + 1];
                if (ks_terminate(s, k, t, err, errlen)) return -1;
                double dj = ks->last_jump;
                if (exact) {
                    double e1 = ks_total_energy(s);
                    dj = e1 - e0;
                    e0 = e1;
                }
                ledger_record(&s->led, LED_KS_TERM, t, m1, m2, dj, ks->last_a, ks->last_ecc,
                              ks->last_gamma);
                names[nadd++] = m1;
                names[nadd++] = m2;
            } else {
                names[nadd++] = s->name[p];
            }
            if (chain_absorb(s, nadd, names, t, err, errlen)) return -1;
            double de = exact ? ks_total_energy(s) - e0 : 0.0;
            ledger_record(&s->led, LED_CHAIN_START, t, names[0], nadd > 1 ? names[1] : 0, de, 0.0,
                          0.0, 0.0);
            return 1;
        }
        if (!why) return 0;
        int exact = s->led.exact, names[4];
        double e0 = exact ? ks_total_energy(s) : 0.0;
        chain_pair_info dom;
        chain_dominant_pair(&ch->c, &dom);
        int n1 = (int)ch->c.id[0], n2 = (int)ch->c.id[1];
        double rs = chain_rsum(&ch->c);
        int np = chain_end(s, t, names, err, errlen);
        if (np < 0) return -1;
        double de = exact ? ks_total_energy(s) - e0 : ks->last_jump;
        ledger_record(&s->led, LED_CHAIN_END, t, n1, n2, de, dom.a, dom.e, rs);
        events++;
        for (int q = 0; q < np; q++) {
            int i = ks_slot_of_name(s, names[2 * q]), j = ks_slot_of_name(s, names[2 * q + 1]);
            if (i < 0 || j < 0) continue;
            if (ks_form(s, i, j, t, err, errlen)) return -1;
            ledger_record(&s->led, LED_KS_FORM, t, names[2 * q], names[2 * q + 1], ks->last_jump,
                          ks->last_a, ks->last_ecc, 0.0);
            events++;
        }
        ch->last_end = why;
        /* NBODY6's TIME_CH: a chain that ended may leave a configuration
         * that passes the start tests at once (a triple just stable, an
         * escaper still close); without a pause the run can start and end
         * a chain at every block, each an O(N) event */
        ch->next_start = t + CHAIN_PAUSE;
        return events;
    }
    for (int k = 0; k < s->npairs; k++) {
        /* the pause holds unless the pair is strongly perturbed (ksint.f
         * waives TIME_CH for gamma > 0.2): such a pair's steps and its
         * c.m.'s fall towards the time resolution and the run could not
         * reach the end of the pause */
        if (t < ch->next_start && !(s->ks->pair[k].o.gamma > 0.2)) continue;
        int J = chain_intruder(s, k, t);
        if (J < 0) continue;
        int names[4], n = 0;
        names[n++] = s->name[2 * k];
        names[n++] = s->name[2 * k + 1];
        int kj = J >= s->n ? J - s->n : -1;
        if (kj >= 0) {
            names[n++] = s->name[2 * kj];
            names[n++] = s->name[2 * kj + 1];
        } else {
            names[n++] = s->name[J];
        }
        int exact = s->led.exact;
        double e0 = exact ? ks_total_energy(s) : 0.0;
        const ks_orbit *o = &ks->pair[k].o;
        double a = ks_orbit_semi(o), e = ks_orbit_ecc(o), g = o->gamma;
        /* the pairs end first (the higher index first: ending moves the last pair) */
        int kk[2] = {k, kj};
        if (kj > k) {
            kk[0] = kj;
            kk[1] = k;
        }
        for (int q = 0; q < 2; q++) {
            if (kk[q] < 0) continue;
            int m1 = s->name[2 * kk[q]], m2 = s->name[2 * kk[q] + 1];
            if (ks_terminate(s, kk[q], t, err, errlen)) return -1;
            double dt_ = ks->last_jump;
            if (exact) {
                double e1 = ks_total_energy(s);
                dt_ = e1 - e0;
                e0 = e1;
            }
            ledger_record(&s->led, LED_KS_TERM, t, m1, m2, dt_, ks->last_a, ks->last_ecc,
                          ks->last_gamma);
        }
        if (chain_start(s, n, names, t, err, errlen)) return -1;
        double de = exact ? ks_total_energy(s) - e0 : ks->last_jump;
        ledger_record(&s->led, LED_CHAIN_START, t, names[0], names[2], de, a, e, g);
        return 1;
    }
    return 0;
}
