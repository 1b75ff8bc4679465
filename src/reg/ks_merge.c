/* ks_merge.c — stable hierarchical triples (docs/ALGORITHMS.md, chain §4; NBODY6's
 * impact.f merger branch, merge.f, reset.f): a hard KS pair with a bound
 * outer body on an orbit that is stable by Mardling & Aarseth (2001) becomes
 * one KS pair of (inner c.m., outer body), with the inner pair carried
 * frozen, until the outer orbit gets unstable or strongly perturbed.
 *
 *  - merge: the inner pair is ended, its components collapse into one body
 *    at their c.m. (the first component's slot, name -name1; the second's
 *    slot becomes a ghost, name -name2) and the outer KS pair is formed;
 *  - while merged the inner orbit's relative state is frozen (as NBODY6
 *    does): the cluster sees the inner c.m. as a point and the inner pair
 *    keeps its energy mu h, which is booked in ks->emerge;
 *  - split (tested after every KS step of the outer pair): the outer pair is
 *    ended, the inner pair comes back from its saved relative state around
 *    its c.m. and goes to KS again.
 *
 * Energy: a merge writes the same state two ways except for the inner pair's
 * energy (to ks->emerge) and the tidal energy of the resolved inner pair with
 * the rest of the cluster, which the point model drops (to ks->etide, as a
 * change of KS model books it); a split takes both back.  So the measured E
 * is continuous through both events, and what the frozen inner orbit leaves
 * out (its own tidal response while merged) is what the stability and
 * perturbation tests keep small.
 *
 * Quadruples (impact.f's JCL > N case): when the dominant neighbour is the
 * c.m. of another hard, unmerged KS pair, both pairs are ended and collapsed
 * as above (two merger table entries, each with its own frozen orbit and
 * booked energy) and the two inner c.m. bodies form the outer KS pair.  The
 * stability test takes the wider inner pair as the inner binary and the
 * other pair's mass as the outer body (impact.f swaps so), at the merge and
 * at the split; the split brings both inner pairs back to KS.
 *
 * Departures from NBODY6: the stability test is Mardling & Aarseth (2001)
 * with the inclination factor (stability.f), with a 10 % margin at the merge
 * and none at the split; NBODY6's Ncode impact.f sets PCRIT so that every
 * bound triple fails its own final test (docs/ALGORITHMS.md, chain §4), and its
 * Block/ version applies the 10 % margin we use.  For quadruples impact.f
 * adds YFAC = 1 + 0.1 min(a2/a1, a1/a2) to the margin and wants the outer
 * body's own pair to have gamma < 1e-3; we apply the triple's margin and
 * tests only (the second pair's tidal response is what the frozen orbit
 * leaves out either way, and the split tests watch the outer orbit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "reg/ks_transform.h"

#define MERGE_MARGIN 1.1   /* stability margin at the merge (Block/impact.f) */
#define SPLIT_GAMMA 0.1    /* a merged pair perturbed beyond this splits (reset.f) */
#define APO_GAMMA 0.02     /* the outer orbit's perturbation at apocentre must stay below */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Mardling & Aarseth (2001): the outer pericentre over the inner semi-major
 * axis below which the triple (inner mass min, outer mass m3, outer
 * eccentricity e1, mutual inclination incl) is unstable. */
double ks_stability_ratio(double min, double m3, double e1, double incl)
{
    if (!(e1 < 1.0)) return INFINITY;
    double q = m3 / min;
    return 2.8 * pow((1.0 + q) * (1.0 + e1) / sqrt(1.0 - e1), 0.4) * (1.0 - 0.3 * incl / M_PI);
}

/* The angle between the inner and outer orbital planes. */
static double inclination(const double qi[3], const double vi[3], const double qo[3],
                          const double vo[3])
{
    double li[3], lo[3];
    cross3(qi, vi, li);
    cross3(qo, vo, lo);
    double c = dot3(li, lo) / sqrt(dot3(li, li) * dot3(lo, lo));
    return acos(fmax(-1.0, fmin(1.0, c)));
}

static void elements(double M, const double dx[3], const double dv[3], double *a, double *e)
{
    double r = sqrt(dot3(dx, dx)), en = 0.5 * dot3(dv, dv) - M / r, l[3];
    cross3(dx, dv, l);
    *a = -0.5 * M / en;
    *e = sqrt(fmax(0.0, 1.0 + 2.0 * en * dot3(l, l) / (M * M)));
}

int ks_merger_at(const ks_state *ks, const sim *s, int i)
{
    if (s->name[i] >= 0 || s->m[i] == 0.0) return -1;
    for (int g = 0; g < ks->nmerge; g++)
        if (ks->mg[g].name1 == -s->name[i]) return g;
    return -1;
}

/* ---- the merge test ------------------------------------------------------ */

/* A merge of pair k with its dominant single neighbour, when the triple is
 * hard, compact, weakly perturbed and stable (impact.f's label 30 onwards,
 * in our words). */
typedef struct merge_plan {
    int j;                 /* the outer body's slot (a single, or a pair's c.m.) */
    int quad;              /* the outer body is a hard KS pair: a quadruple */
    int nb1, nb2;          /* that pair's component names */
    double ein_k, ein_b;   /* the two pairs' eccentricities (pair k's, the outer pair's) */
    double ain, ein, incl; /* inner orbit of the criterion (the wider pair), inclination */
    double aout, eout, apo;
} merge_plan;

static int merge_test(const sim *s, int k, double t, merge_plan *mp)
{
    const ks_state *ks = s->ks;
    const ks_pair *kp = &ks->pair[k];
    const ks_orbit *o = &kp->o;
    if (ks_pair_merged(s, k) || !(o->h < 0.0)) return 0;
    int icm = s->n + k;
    double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2;
    if (!(m1 * m2 * o->h / M < ks->ebh)) return 0; /* the inner pair must be hard */
    double xc[3], vc[3];
    ks_predict_slot(s, icm, t, xc, vc);
    /* the dominant perturber (largest m/r^3) and the next one */
    const int *L = sim_list(s, icm);
    int j1 = -1, j2 = -1;
    double p1 = 0.0, p2 = 0.0, psum = 0.0;
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        if (s->m[j] == 0.0) continue;
        double xj[3], vj[3];
        ks_predict_slot(s, j, t, xj, vj);
        double d[3] = {xj[0] - xc[0], xj[1] - xc[1], xj[2] - xc[2]}, r2 = dot3(d, d);
        double p = s->m[j] / (r2 * sqrt(r2));
        psum += p; /* a chain's c.m. perturbs too; it is never the outer body */
        if (ks_chain_owns(ks, j)) continue;
        if (p > p1) {
            j2 = j1;
            p2 = p1;
            j1 = j;
            p1 = p;
        } else if (p > p2) {
            j2 = j;
            p2 = p;
        }
    }
    if (j1 < 0) return 0;
    /* a single (not a merged c.m.), or for a quadruple a pair's c.m. that is
     * hard and not itself merged (impact.f's EB2 < EBH) */
    int kb = j1 >= s->n ? j1 - s->n : -1;
    if (kb >= 0) {
        if (kb >= s->npairs || ks_pair_merged(s, kb)) return 0;
        const ks_orbit *ob = &ks->pair[kb].o;
        double mb1 = s->m[2 * kb], mb2 = s->m[2 * kb + 1];
        if (!(ob->h < 0.0) || !(mb1 * mb2 * ob->h / (mb1 + mb2) < ks->ebh)) return 0;
    } else if (s->name[j1] <= 0) {
        return 0;
    }
    double xj[3], vj[3];
    ks_predict_slot_high(s, j1, t, xj, vj);
    double dx[3] = {xj[0] - xc[0], xj[1] - xc[1], xj[2] - xc[2]};
    double dv[3] = {vj[0] - vc[0], vj[1] - vc[1], vj[2] - vc[2]};
    double r = sqrt(dot3(dx, dx)), Mt = M + s->m[j1];
    elements(Mt, dx, dv, &mp->aout, &mp->eout);
    if (!(mp->aout > 0.0) || !(mp->eout < 1.0)) return 0;
    mp->apo = mp->aout * (1.0 + mp->eout);
    /* the outer orbit hard enough (EBS) and compact: well inside the
     * c.m.'s neighbour sphere, which supplies the outer pair's perturbers */
    double rd[3] = {xc[0] - s->xd[0], xc[1] - s->xd[1], xc[2] - s->xd[2]};
    double ebs = 0.25 * ks->ebh / sqrt(1.0 + sqrt(dot3(rd, rd)) / s->rscale);
    if (!(-0.5 * M * s->m[j1] / mp->aout < ebs)) return 0;
    if (mp->apo > 10.0 * s->p.rmin || mp->apo > 0.5 * s->rs[icm]) return 0;
    if (r > 10.0 * s->p.rmin) return 0;
    /* the tidal perturbation of the outer orbit by the other neighbours
     * (their magnitudes summed), now and at apocentre; the next perturber
     * must not hold the outer body tighter than the inner pair does */
    double pert = 2.0 * r * r * r * (psum - p1) / Mt;
    if (j2 >= 0) {
        double x2[3], v2[3];
        ks_predict_slot(s, j2, t, x2, v2);
        double d2[3] = {x2[0] - xj[0], x2[1] - xj[1], x2[2] - xj[2]};
        if ((s->m[j2] + s->m[j1]) / dot3(d2, d2) > Mt / (r * r)) return 0;
    }
    double gapo = pert * pow(mp->apo / r, 3.0);
    if (pert > s->p.gmax || gapo > APO_GAMMA) return 0;
    /* the outer pair's gamma as its KS perturbation will see it: the
     * differential force of the c.m.'s other neighbours (a chain's c.m.
     * included) on the outer body and the inner c.m.  A chain of three
     * 1.9e-3 from the outer body was left out of both estimates: merged,
     * the outer pair met gamma 0.10-0.40 > SPLIT_GAMMA at its next step,
     * split, and merged again, once a block for 1.2e-4 time units, losing
     * 5.5e-4 of E (cc-plummer-2048, NRAND 4711, t = 654.904).  Half
     * SPLIT_GAMMA leaves room for the perturbation to grow before a split. */
    double dp[3] = {0.0, 0.0, 0.0};
    for (int q = 0; q < s->nnb[icm]; q++) {
        int j = L[q];
        if (j == j1 || s->m[j] == 0.0) continue;
        double xk[3], vk[3];
        ks_predict_slot(s, j, t, xk, vk);
        double a1[3] = {xk[0] - xj[0], xk[1] - xj[1], xk[2] - xj[2]};
        double ac[3] = {xk[0] - xc[0], xk[1] - xc[1], xk[2] - xc[2]};
        double r1 = sqrt(dot3(a1, a1)), rc = sqrt(dot3(ac, ac));
        for (int c = 0; c < 3; c++)
            dp[c] += s->m[j] * (a1[c] / (r1 * r1 * r1) - ac[c] / (rc * rc * rc));
    }
    if (sqrt(dot3(dp, dp)) * r * r / Mt > 0.5 * SPLIT_GAMMA) return 0;
    if (r > 5.0 * s->p.rmin && gapo > 1e-3) return 0;
    /* stability with the inner orbit as it is now */
    double q[3], qd[3];
    ks_orbit_predict(o, t, q, qd);
    mp->ain = -0.5 * M / o->h;
    mp->ein = mp->ein_k = ks_orbit_ecc(o);
    double min = M, mout = s->m[j1];
    mp->quad = kb >= 0;
    if (mp->quad) {
        /* the wider pair is the criterion's inner binary, the other pair's
         * mass its outer body (impact.f's swap before stability.f) */
        const ks_orbit *ob = &ks->pair[kb].o;
        double ab = -0.5 * s->m[j1] / ob->h;
        mp->ein_b = ks_orbit_ecc(ob);
        mp->nb1 = s->name[2 * kb];
        mp->nb2 = s->name[2 * kb + 1];
        if (ab > mp->ain) {
            ks_orbit_predict(ob, t, q, qd);
            mp->ain = ab;
            mp->ein = mp->ein_b;
            min = s->m[j1];
            mout = M;
        }
    }
    mp->incl = inclination(q, qd, dx, dv);
    double pcr = ks_stability_ratio(min, mout, mp->eout, mp->incl) * mp->ain;
    if (mp->aout * (1.0 - mp->eout) * (1.0 - pert) < MERGE_MARGIN * pcr) return 0;
    mp->j = j1;
    return 1;
}

/* ---- merge and split ----------------------------------------------------- */

static int grow_table(ks_state *ks, int need)
{
    if (ks->nmerge + need <= ks->cap) return 0;
    return -1; /* each entry holds two stars, cap is n/2: cannot happen */
}

/* The singles i1, i2 (both at t) become one body at their c.m. in slot i1
 * (name `name`), i2 a ghost (name `gname`); every list that named either
 * names i1.  Bodies that listed either restart at t: their irregular force
 * loses the pair's tidal part at once (a jump of up to ~(a/r)^2 of it next
 * to a hard pair), which their Hermite polynomials must not straddle. */
static int collapse_pair(sim *s, int i1, int i2, int name, int gname, double t, char *err,
                         size_t errlen)
{
    ks_state *ks = s->ks;
    unsigned char *mark = ks->mark;
    int nsplit = 0, *idx = malloc(sizeof(int) * (size_t)(s->ntot + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a merger");
        return -1;
    }
    idx[0] = i1;
    for (int b = s->ifirst; b < s->ntot; b++) {
        const int *l = sim_list(s, b);
        int hits = 0;
        for (int q = 0; q < s->nnb[b]; q++) hits += (l[q] == i1) + (l[q] == i2);
        mark[b] = b != i1 && b != i2 && hits >= 1;
        if (mark[b]) idx[1 + nsplit++] = b;
    }
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    map[i2] = i1;
    ks_relabel_all(s, map, -1, -1, -1, NULL); /* two labels into one: no list grows */
    double m1 = s->m[i1], m2 = s->m[i2], M = m1 + m2;
    for (int c = 0; c < 3; c++) {
        s->x0[i1][c] = (m1 * s->x0[i1][c] + m2 * s->x0[i2][c]) / M;
        s->v0[i1][c] = (m1 * s->v0[i1][c] + m2 * s->v0[i2][c]) / M;
    }
    s->m[i1] = M;
    s->name[i1] = name;
    s->rs[i1] = fmax(s->rs[i1], s->rs[i2]);
    s->dtr[i1] = fmin(s->dtr[i1], s->dtr[i2]);
    s->nnb[i1] = 0;
    ks_make_ghost(s, i2, t);
    s->name[i2] = gname;
    ks_restart_state(s, nsplit, idx + 1, t);
    int rc = newpoly_bodies(s, nsplit + 1, idx, t, 0, err, errlen);
    free(idx);
    return rc;
}

/* The inner c.m. at slot p (a single at t) and its ghost g become the two
 * components again at their frozen relative state; lists that named p name
 * both, and their bodies restart at t (the force on them gains the pair's
 * tidal part at once, as collapse_pair explains). */
static int expand_pair(sim *s, int p, int g, const ks_merger *mg, double t, char *err,
                       size_t errlen)
{
    ks_state *ks = s->ks;
    double M = mg->m1 + mg->m2, xc[3], vc[3];
    memcpy(xc, s->x0[p], sizeof xc);
    memcpy(vc, s->v0[p], sizeof vc);
    int *idx = malloc(sizeof(int) * (size_t)(s->ntot + 2));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a merger split");
        return -1;
    }
    int nlist = 0, *lst = malloc(sizeof(int) * (size_t)(s->ntot + 1));
    if (!lst) {
        free(idx);
        snprintf(err, errlen, "out of memory at a merger split");
        return -1;
    }
    for (int b = s->ifirst; b < s->ntot; b++) {
        const int *l = sim_list(s, b);
        int has = 0;
        for (int q = 0; q < s->nnb[b] && b != p; q++) has |= l[q] == p;
        if (has) lst[nlist++] = b;
    }
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    int nfull = ks_relabel_all(s, map, p, p, g, idx + 2);
    /* the bodies that listed p (a full one is in idx already) */
    for (int q = 0; q < nlist; q++) {
        int b = lst[q], dup = 0;
        for (int r = 0; r < nfull; r++) dup |= idx[2 + r] == b;
        if (!dup) idx[2 + nfull++] = b;
    }
    free(lst);
    double rs = s->rs[p], dtr = s->dtr[p];
    s->name[p] = mg->name1;
    s->name[g] = mg->name2;
    s->m[p] = mg->m1;
    s->m[g] = mg->m2;
    for (int c = 0; c < 3; c++) {
        s->x0[p][c] = xc[c] + mg->m2 / M * mg->q[c];
        s->v0[p][c] = vc[c] + mg->m2 / M * mg->qd[c];
        s->x0[g][c] = xc[c] - mg->m1 / M * mg->q[c];
        s->v0[g][c] = vc[c] - mg->m1 / M * mg->qd[c];
    }
    s->t0[g] = s->t0r[g] = t;
    s->rs[g] = rs;
    s->dtr[p] = s->dtr[g] = dtr;
    s->nnb[p] = s->nnb[g] = 0;
    ks_restart_state(s, nfull, idx + 2, t);
    idx[0] = p;
    idx[1] = g;
    int rc = newpoly_bodies(s, 2 + nfull, idx, t, 0, err, errlen);
    free(idx);
    return rc;
}

/* The inner pair of singles named n1, n2 (at t, just out of KS) into the
 * merger table (outer: the outer body's name, a merged pair's negated; ecc:
 * the pair's eccentricity before its end; apo: the outer apocentre) and
 * collapsed into its c.m. body, its energy and its tidal energy with the
 * rest of the cluster booked. */
static int merge_inner(sim *s, int n1, int n2, int outer, double ecc, double apo, double t,
                       char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    int i1 = ks_slot_of_name(s, n1), i2 = ks_slot_of_name(s, n2);
    if (i1 < 0 || i2 < 0) {
        snprintf(err, errlen, "merger at t = %g: inner components %d, %d not found", t, n1, n2);
        return -1;
    }
    ks_merger *mg = &ks->mg[ks->nmerge];
    memset(mg, 0, sizeof *mg);
    mg->name1 = n1;
    mg->name2 = n2;
    mg->outer = outer;
    mg->m1 = s->m[i1];
    mg->m2 = s->m[i2];
    double M = mg->m1 + mg->m2;
    for (int c = 0; c < 3; c++) {
        mg->q[c] = s->x0[i1][c] - s->x0[i2][c];
        mg->qd[c] = s->v0[i1][c] - s->v0[i2][c];
    }
    double hin = 0.5 * dot3(mg->qd, mg->qd) - M / sqrt(dot3(mg->q, mg->q));
    mg->ein = mg->m1 * mg->m2 / M * hin;
    mg->ain = -0.5 * M / hin;
    mg->ein_e = ecc;
    mg->apo0 = apo;
    mg->t = t;
    /* the point model drops the inner pair's energy and its tidal energy
     * with the rest of the cluster: both are booked */
    double w = ks_tidal_two(s, t, i1, i2, mg->m1, mg->m2, s->x0[i1], s->x0[i2]);
    ks->emerge += mg->ein;
    ks->etide += w;
    ledger_record(&s->led, LED_TIDE, t, n1, n2, w, mg->ain, mg->ein_e, 0.0);
    ks->nmerge++;
    return collapse_pair(s, i1, i2, -n1, -n2, t, err, errlen);
}

/* An event into the ledger: the local jump, or the whole measure with
 * --energy-audit (e0: the energy before). */
static int merge(sim *s, int k, const merge_plan *mp, double t, char *err, size_t errlen)
{
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    ks_state *ks = s->ks;
    if (grow_table(ks, mp->quad ? 2 : 1)) {
        snprintf(err, errlen, "merger table full");
        return -1;
    }
    int exact = ks->check_jumps || s->led.exact;
    int n1 = s->name[2 * k], n2 = s->name[2 * k + 1];
    /* the outer body by name: a single's, or (quadruple) the outer pair's
     * first component's, which names its c.m. once collapsed (negated) */
    int nj = mp->quad ? mp->nb1 : s->name[mp->j];
    if (mp->quad) {
        /* the outer pair's relative motion to t first: ending pair k
         * restarts the bodies that list its c.m., the outer pair's c.m.
         * among them, and newpoly_bodies then remakes the outer pair's
         * polynomials at its own time, so that a pair behind t would see
         * its predicted h at t jump (its termination's jump in
         * test_ks_merge's quadruple: 9.5e-12 of E without this, 8.8e-15
         * with it) */
        ks_pair_step_to(s, mp->j - s->n, t);
    }
    double e0 = exact ? ks_total_energy(s) : 0.0;
    if (ks_terminate(s, k, t, err, errlen)) return -1;
    ks_note_event(s, LED_KS_TERM, t, n1, n2, ks->last_jump, e0, ks->last_a, ks->last_ecc, ks->last_gamma);
    if (exact) e0 = ks_total_energy(s);
    if (mp->quad) {
        /* the outer pair (found by name: the first end moved the slots)
         * ends too before either collapses: a collapse restarts the bodies
         * that list the pair, and a KS pair among them would have its
         * perturbation polynomials restarted away from its own time, its
         * predicted h jumping (9.4e-8 of E at the first collapse in
         * test_ks_merge's quadruple, done before the second pair's end) */
        int kb = -1;
        for (int q = 0; q < s->npairs; q++)
            if (s->name[2 * q] == mp->nb1 && s->name[2 * q + 1] == mp->nb2) kb = q;
        if (kb < 0) {
            snprintf(err, errlen, "merger at t = %g: outer pair %d-%d not found", t, mp->nb1,
                     mp->nb2);
            return -1;
        }
        if (ks_terminate(s, kb, t, err, errlen)) return -1;
        ks_note_event(s, LED_KS_TERM, t, mp->nb1, mp->nb2, ks->last_jump, e0, ks->last_a,
                      ks->last_ecc, ks->last_gamma);
        if (exact) e0 = ks_total_energy(s);
    }
    if (merge_inner(s, n1, n2, mp->quad ? -nj : nj, mp->ein_k, mp->apo, t, err, errlen))
        return -1;
    ks_note_event(s, LED_MERGE, t, n1, nj, 0.0, e0, mp->aout, mp->eout, 0.0);
    if (exact) e0 = ks_total_energy(s);
    if (mp->quad) {
        if (merge_inner(s, mp->nb1, mp->nb2, -n1, mp->ein_b, mp->apo, t, err, errlen))
            return -1;
        ks_note_event(s, LED_MERGE, t, mp->nb1, n1, 0.0, e0, mp->aout, mp->eout, 0.0);
        if (exact) e0 = ks_total_energy(s);
        nj = -nj;
    }
    int p = ks_slot_of_name(s, -n1), j = ks_slot_of_name(s, nj);
    if (p < 0 || j < 0) {
        snprintf(err, errlen, "merger at t = %g: outer body %d not found", t, nj);
        return -1;
    }
    if (ks_form(s, p, j, t, err, errlen)) return -1;
    ks_note_event(s, LED_KS_FORM, t, n1, nj, ks->last_jump, e0, ks->last_a, ks->last_ecc, 0.0);
    ks->merged++;
    /* every merger in the log; on stderr too with KZ(18) = 1 */
    if (mp->quad)
        sim_event(s, ks->merge_log, "t = %.6f merged quadruple: pairs %d-%d and %d-%d (wider "
                  "a = %.3e, e = %.3f), outer a = %.3e, e = %.3f, inclination %.0f deg", t,
                  n1, n2, mp->nb1, mp->nb2, mp->ain, mp->ein, mp->aout, mp->eout,
                  mp->incl * 180.0 / M_PI);
    else
        sim_event(s, ks->merge_log, "t = %.6f merged hierarchy: inner %d-%d (a = %.3e, e = %.3f), "
                  "outer %d (a = %.3e, e = %.3f, inclination %.0f deg)", t, n1, n2, mp->ain,
                  mp->ein, nj, mp->aout, mp->eout, mp->incl * 180.0 / M_PI);
    return 0;
}

/* Merger mg (a copy: its table entry goes here) back to its inner pair of
 * singles at t, the outer KS pair already ended (nj: the other body's name,
 * for the ledger); the booked energies taken back.  *e0 (exact mode): the
 * energy before, and after on return. */
static int unmerge(sim *s, const ks_merger *mgp, int nj, double *e0, int exact, double t,
                   char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    ks_merger mg = *mgp;
    int p = ks_slot_of_name(s, -mg.name1), gh = ks_slot_of_name(s, -mg.name2), g = -1;
    for (int q = 0; q < ks->nmerge; q++)
        if (ks->mg[q].name1 == mg.name1) g = q;
    if (p < 0 || gh < 0 || g < 0) {
        snprintf(err, errlen, "merger split at t = %g: the slots of %d, %d not found", t,
                 mg.name1, mg.name2);
        return -1;
    }
    double M = mg.m1 + mg.m2, x1[3], x2[3];
    for (int c = 0; c < 3; c++) {
        x1[c] = s->x0[p][c] + mg.m2 / M * mg.q[c];
        x2[c] = s->x0[p][c] - mg.m1 / M * mg.q[c];
    }
    double w = ks_tidal_two(s, t, p, gh, mg.m1, mg.m2, x1, x2);
    ks->emerge -= mg.ein;
    ks->etide -= w;
    ledger_record(&s->led, LED_TIDE, t, mg.name1, mg.name2, -w, mg.ain, mg.ein_e, 0.0);
    ks->mg[g] = ks->mg[ks->nmerge - 1];
    ks->nmerge--;
    if (ks->nmerge == 0) ks->emerge = 0.0; /* rounding of the bookings, as NBODY6 clears EMERGE */
    if (expand_pair(s, p, gh, &mg, t, err, errlen)) return -1;
    ks_note_event(s, LED_SPLIT, t, mg.name1, nj, 0.0, *e0, 0.0, 0.0, 0.0);
    if (exact) *e0 = ks_total_energy(s);
    return 0;
}

/* The singles named n1, n2 (at t) become a KS pair again. */
static int reform(sim *s, int n1, int n2, double *e0, int exact, double t, char *err,
                  size_t errlen)
{
    ks_state *ks = s->ks;
    int p = ks_slot_of_name(s, n1), gh = ks_slot_of_name(s, n2);
    if (ks_form(s, p, gh, t, err, errlen)) return -1;
    ks_note_event(s, LED_KS_FORM, t, n1, n2, ks->last_jump, *e0, ks->last_a, ks->last_ecc, 0.0);
    if (exact) *e0 = ks_total_energy(s);
    return 0;
}

int ks_split(sim *s, int k, double t, char *err, size_t errlen)
{
    if (ks_partial_flush(s, t, err, errlen)) return -1; /* ks_partial.c: before slots move */
    ks_state *ks = s->ks;
    int ip = s->name[2 * k] < 0 ? 2 * k : 2 * k + 1, jo = ip == 2 * k ? 2 * k + 1 : 2 * k;
    int g = ks_merger_at(ks, s, ip);
    if (g < 0) {
        snprintf(err, errlen, "merger split at t = %g: pair %d holds no merged pair", t, k);
        return -1;
    }
    ks_merger mg = ks->mg[g], mgb = {0};
    /* a quadruple: the other component is a merged pair too */
    int gb = s->name[jo] < 0 ? ks_merger_at(ks, s, jo) : -1;
    if (s->name[jo] < 0 && gb < 0) {
        snprintf(err, errlen, "merger split at t = %g: pair %d's outer body has no merger", t, k);
        return -1;
    }
    if (gb >= 0) mgb = ks->mg[gb];
    int nj = s->name[jo];
    int exact = ks->check_jumps || s->led.exact;
    double e0 = exact ? ks_total_energy(s) : 0.0;
    if (ks_terminate(s, k, t, err, errlen)) return -1;
    ks_note_event(s, LED_KS_TERM, t, mg.name1, nj, ks->last_jump, e0, ks->last_a, ks->last_ecc,
         ks->last_gamma);
    if (exact) e0 = ks_total_energy(s);
    /* a quadruple's pairs both expand before either is formed (a formed
     * pair among the bodies an expansion restarts: see merge) */
    if (unmerge(s, &mg, nj, &e0, exact, t, err, errlen)) return -1;
    if (gb >= 0 && unmerge(s, &mgb, mg.name1, &e0, exact, t, err, errlen)) return -1;
    if (reform(s, mg.name1, mg.name2, &e0, exact, t, err, errlen)) return -1;
    if (gb >= 0 && reform(s, mgb.name1, mgb.name2, &e0, exact, t, err, errlen)) return -1;
    ks->splits++;
    if (gb >= 0)
        sim_event(s, ks->merge_log, "t = %.6f split quadruple: pairs %d-%d and %d-%d (merged at "
                  "t = %.6f)", t, mg.name1, mg.name2, mgb.name1, mgb.name2, mg.t);
    else
        sim_event(s, ks->merge_log, "t = %.6f split hierarchy: inner %d-%d, outer %d (merged at "
                  "t = %.6f)", t, mg.name1, mg.name2, nj, mg.t);
    return 0;
}

/* ---- while merged ----------------------------------------------------------- */

int ks_merge_unstable(const sim *s, int k)
{
    const ks_state *ks = s->ks;
    const ks_orbit *o = &ks->pair[k].o;
    int ip = s->name[2 * k] < 0 ? 2 * k : 2 * k + 1, jo = ip == 2 * k ? 2 * k + 1 : 2 * k;
    int g = ks_merger_at(ks, s, ip);
    if (g < 0) return 1;
    const ks_merger *mg = &ks->mg[g];
    if (s->name[jo] < 0) {
        /* a quadruple: the wider inner pair against the other's mass, as
         * at the merge */
        int gb = ks_merger_at(ks, s, jo);
        if (gb < 0) return 1;
        if (ks->mg[gb].ain > mg->ain) {
            mg = &ks->mg[gb];
            jo = ip;
        }
    }
    if (!isfinite(o->h) || !(o->h < 0.0)) return 1;
    if (o->gamma > SPLIT_GAMMA) return 1;
    if (o->r > 2.0 * mg->apo0) return 1;
    double a1 = ks_orbit_semi(o), e1 = ks_orbit_ecc(o), q[3], qd[3];
    ks_to_rel(o->u, o->up, q, qd);
    double incl = inclination(mg->q, mg->qd, q, qd);
    double m3 = s->m[jo];
    double pcr = ks_stability_ratio(mg->m1 + mg->m2, m3, e1, incl) * mg->ain;
    return a1 * (1.0 - e1) * (1.0 - 2.0 * o->gamma) < pcr;
}

int ks_merge_block_end(sim *s, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || !ks->merge_on || s->p.ks_off) return 0;
    for (int k = 0; k < s->npairs; k++) {
        ks_pair *kp = &ks->pair[k];
        if (!kp->merge_check) continue;
        kp->merge_check = 0;
        merge_plan mp = {0}; /* (the quadruple fields are set only for one) */
        if (!merge_test(s, k, t, &mp)) continue;
        if (merge(s, k, &mp, t, err, errlen)) return -1;
        return 1; /* one a block: the merge moved slots and pairs */
    }
    return 0;
}
