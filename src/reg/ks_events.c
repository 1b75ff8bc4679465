/* ks_events.c — the block's regularisation events, in NBODY6's order
 * (ks_block_end, called by the block step at its end): pairs flagged for
 * termination end (a merged hierarchy splits, ks_merge.c), the chain ends
 * or starts (ks_chain.c), stable hierarchies merge (ks_merge.c), then new
 * pairs form from the block's members whose step fell below DTMIN
 * (§10.10), or heavy members in a hard binary (heavy_partner).  The file
 * on top of reg/: it calls KS (ks_pairs.c), chain and mergers, and none of
 * them calls it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "common/parallel.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- the search for new pairs (§10.10) ----------------------------------- */

/* The differential force on single i (corrected at t) and body j (at xj)
 * of i's other neighbours within sqrt(r2max) of i (fpert.f), its size. */
static double perturbation(const sim *s, int i, int j, const double xj[3], double t, double r2max)
{
    const int *L = sim_list(s, i);
    double p[3] = {0, 0, 0};
    for (int q = 0; q < s->nnb[i]; q++) {
        int k = L[q];
        if (k == j) continue;
        double xk[3], vk[3];
        ks_predict_slot(s, k, t, xk, vk);
        double di[3] = {xk[0] - s->x0[i][0], xk[1] - s->x0[i][1], xk[2] - s->x0[i][2]};
        double dj[3] = {xk[0] - xj[0], xk[1] - xj[1], xk[2] - xj[2]};
        double ri2 = dot3(di, di), rj2 = dot3(dj, dj);
        if (ri2 > r2max) continue;
        double fi = s->m[k] / (ri2 * sqrt(ri2)), fj = s->m[k] / (rj2 * sqrt(rj2));
        for (int c = 0; c < 3; c++) p[c] += fi * di[c] - fj * dj[c];
    }
    return sqrt(dot3(p, p));
}

/* The dominant close partner of single i (block member, corrected at t), or
 * -1. */
static int close_partner(const sim *s, int i, double t)
{
    double rmin = s->p.rmin, ai = sqrt(dot3(s->a[i], s->a[i]));
    double dtlim = fmax(s->smin, 4.0 * s->dt[i]);
    const int *L = sim_list(s, i);
    int best = -1;
    double bestv = 0.0;
    for (int q = 0; q < s->nnb[i]; q++) {
        int j = L[q];
        if (s->dt[j] > dtlim || ks_chain_owns(s->ks, j)) continue;
        double xj[3], vj[3];
        ks_predict_slot(s, j, t, xj, vj);
        double dx[3] = {xj[0] - s->x0[i][0], xj[1] - s->x0[i][1], xj[2] - s->x0[i][2]};
        double r2 = dot3(dx, dx);
        if (j >= s->n) {
            /* a close c.m. that dominates the force: no new pair beside it */
            if (r2 < 4.0 * rmin * rmin && s->m[j] / r2 >= 0.5 * ai) return -1;
            continue;
        }
        const double rm = ks_rmin_of_mass(s, s->m[i] + s->m[j]);
        if (r2 < 32.0 * rm * rm) {
            double v = (s->m[i] + s->m[j]) / r2;
            if (v > bestv) {
                bestv = v;
                best = j;
            }
        }
    }
    if (best < 0) return -1;
    double xj[3], vj[3];
    ks_predict_slot(s, best, t, xj, vj);
    double dx[3] = {xj[0] - s->x0[i][0], xj[1] - s->x0[i][1], xj[2] - s->x0[i][2]};
    double dv[3] = {vj[0] - s->v0[i][0], vj[1] - s->v0[i][1], vj[2] - s->v0[i][2]};
    double r = sqrt(dot3(dx, dx)), M = s->m[i] + s->m[best];
    /* RMIN scaled by the pair's mass (ks_state.h): a pair of two stars of
     * 30 times the mean mass on a near-circular orbit at 1.9 RMIN (binding
     * 1.7 |E|, steps 8e-6) was left to Hermite steps for 900 orbits and
     * lost 1.1e-4 of E (plummer-imf-1024, t = 19.0-19.75).  R0 and the
     * termination distances stay unscaled: scaled too, a Kroupa cluster
     * with primordial binaries (test_binpop, seed 33412259780) lost 1.2e-5
     * in 0.125 time units against 6.4e-7, its heavy perturbed pairs kept
     * in KS further out; formation alone scaled gives 8.1e-7 there */
    if (r >= ks_rmin_of_mass(s, M)) return -1;
    if (dot3(dx, dv) > 0.02 * sqrt(M * r)) return -1; /* receding fast */
    /* relative perturbation by the other close bodies (fpert.f) */
    if (perturbation(s, i, best, xj, t, 1e4 * rmin * rmin) * r * r / M > 0.01) return -1;
    return best;
}

/* NBODY6's searches for heavy pairs beside the one above (nbint.f: a hard
 * binary of low eccentricity from STEP < 8 DTMIN; sweep2.f: a massive wide
 * one from 30 DTMIN, a < 12 RMIN), made one test.  Two heavy stars are a
 * hard binary holding a good part of the cluster's energy long before
 * their steps fall below DTMIN or their separation below RMIN (both set
 * by the mean mass); left to the Hermite steps, such a pair takes a large
 * share of all steps and loses E at every check.  So a single of more
 * than twice the mean mass with a step below 30 DTMIN pairs with its
 * dominant single neighbour when the two are a hard binary (E_b < EBH
 * and h < -ECLOSE), compact next to its neighbour sphere (apocentre below
 * 0.05 RS scaled by the pair's mass: ks_advance.c's hard pair, which stays
 * regularised through moderate perturbations) and weakly perturbed over
 * the whole orbit (relative perturbation below 0.01 at the apocentre, well
 * under the 0.05 at which a pair wider than 3 scaled RMIN is ended).
 * Equal masses never qualify. */
/* A heavy member with a short step, while no chain runs (NSUB > 0): who
 * heavy_partner looks at. */
static int heavy_seeker(const sim *s, int i)
{
    return s->m[i] > 2.0 * s->mmean && s->dt[i] < 30.0 * s->p.dtmin && !(s->ks->chain_on && s->ks->ch.active);
}

static int heavy_partner(const sim *s, int i, double t)
{
    if (!heavy_seeker(s, i)) return -1;
    const int *L = sim_list(s, i);
    int best = -1;
    double bestv = 0.0, xj[3], vj[3];
    for (int q = 0; q < s->nnb[i]; q++) {
        int j = L[q];
        if (j >= s->n || ks_chain_owns(s->ks, j)) continue;
        ks_predict_slot(s, j, t, xj, vj);
        double dx[3] = {xj[0] - s->x0[i][0], xj[1] - s->x0[i][1], xj[2] - s->x0[i][2]};
        double v = (s->m[i] + s->m[j]) / dot3(dx, dx);
        if (v > bestv) {
            bestv = v;
            best = j;
        }
    }
    if (best < 0) return -1;
    ks_predict_slot(s, best, t, xj, vj);
    double dx[3] = {xj[0] - s->x0[i][0], xj[1] - s->x0[i][1], xj[2] - s->x0[i][2]};
    double dv[3] = {vj[0] - s->v0[i][0], vj[1] - s->v0[i][1], vj[2] - s->v0[i][2]};
    double r = sqrt(dot3(dx, dx)), M = s->m[i] + s->m[best];
    double ainv = 2.0 / r - dot3(dv, dv) / M;
    if (!(ainv > 0.0)) return -1;
    double a = 1.0 / ainv, rv = dot3(dx, dv);
    /* hard, and bound tighter than ECLOSE per unit reduced mass: a pair
     * whose perturbers are most of its neighbours is ended unless h <
     * -ECLOSE (ks_advance.c), and a heavy star with a light companion
     * would be formed and ended again at every step */
    if (!(-0.5 * s->m[i] * s->m[best] * ainv < s->ks->ebh) || !(-0.5 * M * ainv < -s->p.eclose)) return -1;
    double e = sqrt(fmax((1.0 - r * ainv) * (1.0 - r * ainv) + rv * rv * ainv / M, 0.0));
    double apo = a * (1.0 + e);
    if (!(apo < 0.05 * ks_mass_scale(s, M) * s->rs[i])) return -1;
    /* the tidal perturbation grows as the separation cubed */
    double g = perturbation(s, i, best, xj, t, INFINITY) * r * r / M;
    if (!(g * (apo / r) * (apo / r) * (apo / r) < 0.01)) return -1;
    return best;
}

/* Whether member i may start a pair: a single with close_partner's step
 * below DTMIN or a heavy_seeker. */
static int may_seek(const sim *s, int i)
{
    if (i < s->ifirst || i >= s->n || ks_chain_owns(s->ks, i)) return 0;
    return s->dt[i] < s->p.dtmin || heavy_seeker(s, i);
}

/* The members act[q] that may start a pair, their q ascending in sel;
 * returns their number (-1: out of memory).  A big block's pass goes over
 * the team, each thread collecting its share in place, then the shares
 * moved together: with the step tally's pass (block.c) it was the big
 * blocks' ks_end phase, 1.40 -> 0.72 s for both at 512k on two GPUs. */
enum { SEEK_GRAIN = 8192 };
static int pair_seekers(const sim *s, const int *act, int nact, int *sel)
{
    if (!par_worth(nact, SEEK_GRAIN)) {
        int n = 0;
        for (int q = 0; q < nact; q++)
            if (may_seek(s, act[q])) sel[n++] = q;
        return n;
    }
    int *cnt = calloc((size_t)omp_get_max_threads(), sizeof(int)), team = 1;
    if (!cnt) return -1;
#pragma omp parallel
    {
        const int T = omp_get_num_threads(), r = omp_get_thread_num();
        const int lo = (int)((long)nact * r / T), hi = (int)((long)nact * (r + 1) / T);
        int n = 0;
        for (int q = lo; q < hi; q++)
            if (may_seek(s, act[q])) sel[lo + n++] = q;
        cnt[r] = n;
        if (r == 0) team = T;
    }
    int nsel = 0;
    for (int r = 0; r < team; r++) { /* the shares in thread order: q ascending */
        memmove(sel + nsel, sel + (long)nact * r / team, sizeof(int) * (size_t)cnt[r]);
        nsel += cnt[r];
    }
    free(cnt);
    return nsel;
}

/* A formation or termination just made (its values in ks->last_*). */
static void note_event(sim *s, int kind, double t, int name1, int name2, double e0)
{
    ks_state *ks = s->ks;
    ks_note_event(s, kind, t, name1, name2, ks->last_jump, e0, ks->last_a, ks->last_ecc, ks->last_gamma);
}

int ks_block_end(sim *s, const int *act, int nact, double t, char *err, size_t errlen)
{
    if (!s->ks) return 0;
    int changes = 0;
    /* candidates first (by name: the events below move slots) */
    int ncand = 0, *cand = NULL;
    if (!s->p.ks_off) {
        int *sel = malloc(sizeof(int) * (nact + 1));
        const int nsel = sel ? pair_seekers(s, act, nact, sel) : -1;
        if (nsel < 0) {
            free(sel);
            snprintf(err, errlen, "out of memory at the block's search for new KS pairs");
            return -1;
        }
        for (int e = 0; e < nsel; e++) {
            const int i = act[sel[e]];
            int j = s->dt[i] < s->p.dtmin ? close_partner(s, i, t) : -1;
            if (j < 0) j = heavy_partner(s, i, t);
            if (j < 0) continue;
            if (!cand) cand = malloc(sizeof(int) * 2 * nact);
            if (!cand) break;
            int dup = 0;
            for (int c = 0; c < 2 * ncand; c++)
                if (cand[c] == s->name[i] || cand[c] == s->name[j]) dup = 1;
            if (dup) continue;
            cand[2 * ncand] = s->name[i];
            cand[2 * ncand + 1] = s->name[j];
            ncand++;
        }
        free(sel);
    }
    for (int k = s->npairs - 1; k >= 0; k--) {
        if (!s->ks->pair[k].terminate) continue;
        int exact = s->ks->check_jumps || s->led.exact;
        int n1 = s->name[2 * k], n2 = s->name[2 * k + 1];
        if (ks_pair_merged(s, k)) { /* a merged hierarchy splits (ks_merge.c) */
            if (ks_split(s, k, t, err, errlen)) { free(cand); return -1; }
            changes++;
            continue;
        }
        double e0 = exact ? ks_total_energy(s) : 0.0;
        if (ks_terminate(s, k, t, err, errlen)) { free(cand); return -1; }
        note_event(s, LED_KS_TERM, t, n1, n2, e0);
        changes++;
    }
    /* chain regularisation: a chain ends, or a strongly perturbed pair and
     * its intruder become one */
    int nch = ks_chain_block_end(s, t, err, errlen);
    if (nch < 0) { free(cand); return -1; }
    changes += nch;
    /* a hard pair with a bound outer body on a stable orbit merges */
    int nmg = ks_merge_block_end(s, t, err, errlen);
    if (nmg < 0) { free(cand); return -1; }
    changes += nmg;
    for (int c = 0; c < ncand; c++) {
        int i = ks_slot_of_name(s, cand[2 * c]), j = ks_slot_of_name(s, cand[2 * c + 1]);
        if (i < 0 || j < 0 || ks_chain_owns(s->ks, i) || ks_chain_owns(s->ks, j)) continue;
        int exact = s->ks->check_jumps || s->led.exact;
        double e0 = exact ? ks_total_energy(s) : 0.0;
        if (ks_form(s, i, j, t, err, errlen)) { free(cand); return -1; }
        note_event(s, LED_KS_FORM, t, cand[2 * c], cand[2 * c + 1], e0);
        changes++;
    }
    free(cand);
    return changes;
}
