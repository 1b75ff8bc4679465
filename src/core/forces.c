/* forces.c — the forces of given bodies through the two libraries: the
 * irregular force from their lists (GPUIRR, or for big blocks GPUNB's
 * gpunb_irrf on the GPU) with NBODY6's fictitious central mass for an empty
 * list and the Coriolis term, and the regular force, jerk and new lists
 * (GPUNB) with the overflow retries.  Used by the block step and by the
 * events that give bodies new polynomials (KS, chain, mergers). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "core/forces.h"
#include "common/parallel.h"
#include "common/predict.h"
#include "common/tuning.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The predicted state of j at t, as the libraries saw it: a block member
 * already corrected keeps its prediction in x, v (tpred = t). */
static void state_at(const sim *s, int j, double t, double x[3], double v[3])
{
    if (s->tpred[j] == t) {
        memcpy(x, s->x[j], sizeof(double[3]));
        memcpy(v, s->v[j], sizeof(double[3]));
    } else {
        predict3(t - s->t0[j], s->x0[j], s->v0[j], s->a[j], s->j[j], x, v);
    }
}

static void add_pair_term(const sim *s, int i, int j, double t, double sign, double f[3],
                          double jk[3])
{
    double xj[3], vj[3];
    state_at(s, j, t, xj, vj);
    double dx[3], dv[3];
    for (int c = 0; c < 3; c++) {
        dx[c] = xj[c] - s->x[i][c];
        dv[c] = vj[c] - s->v[i][c];
    }
    double r2 = dot3(dx, dx);
    if (!(r2 > 0.0)) return;
    double mr3 = sign * s->m[j] / (r2 * sqrt(r2)), rv = 3.0 * dot3(dx, dv) / r2;
    for (int c = 0; c < 3; c++) {
        f[c] += mr3 * dx[c];
        jk[c] += mr3 * (dv[c] - rv * dx[c]);
    }
}

/* Why not the difference of the two library sums: with a hard pair or a
 * chain close to i the irregular jerk is ~1e11 while the regular jerk is
 * ~10; two single-precision sums over different lists then differ by
 * rounding of order 1e-7 of the whole (1e4), which eq. 12 would carry into
 * the regular corrector as a spurious regular jerk and a position increment
 * deep in the pair's potential (measured: a body at 10 a from a pair of
 * a = 4e-6 moved by 2.3e-6 at one regular step, 3e-3 of E lost).  The gained
 * and lost bodies are few and at the list's edge, so their direct sum is
 * cheap and exact to double rounding. */
void list_change_force(const sim *s, int i, double t, const int *lold, int nold,
                       const int *lnew, int nnew, double df[3], double dj[3])
{
    for (int c = 0; c < 3; c++) df[c] = dj[c] = 0.0;
    int p = 0, q = 0;
    while (p < nold || q < nnew) {
        if (q >= nnew || (p < nold && lold[p] < lnew[q])) {
            add_pair_term(s, i, lold[p++], t, -1.0, df, dj); /* lost */
        } else if (p >= nold || lnew[q] < lold[p]) {
            add_pair_term(s, i, lnew[q++], t, 1.0, df, dj); /* gained */
        } else {
            p++;
            q++;
        }
    }
}

/* KZ(14): the Coriolis force belongs to the irregular force, as in NBODY6
 * (xtrnlf.f), since it changes with the velocity on the irregular time
 * scale.  It is taken at the velocity predicted to fourth order (the whole
 * polynomial), not at the block's low-order prediction: the Hermite
 * corrector is not iterated, and a velocity-dependent force at a velocity
 * with an O(dt^3) error makes the scheme third order (a test particle's
 * Jacobi integral lost 1e-7 in 10 orbits, against 5e-10 without the
 * field).  Its derivative needs the acceleration, from the same
 * polynomial.  The second irregular force of a regular step (the new
 * lists, after the body was corrected) reuses the cached values, so that
 * the Coriolis term cancels in F_I,new - F_I,old as it should.  The cache
 * is used only while a block's forces are evaluated (no slot changes
 * then). */
static void coriolis_state(sim *s, int i)
{
    if (s->tcor[i] == s->tpred[i]) return;
    double dt = s->tpred[i] - s->t0[i], dt2 = dt * dt / 2, dt3 = dt2 * dt / 3, dt4 = dt3 * dt / 4;
    for (int c = 0; c < 3; c++) {
        double a2 = s->d2[i][c] + s->d2r[i][c], a3 = s->d3[i][c] + s->d3r[i][c];
        s->vcor[i][c] = s->v0[i][c] + dt * s->a[i][c] + dt2 * s->j[i][c] + dt3 * a2 + dt4 * a3;
        s->acor[i][c] = s->a[i][c] + dt * s->j[i][c] + dt2 * a2 + dt3 * a3;
    }
    s->tcor[i] = s->tpred[i];
}

static void add_coriolis(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j)
{
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        if (!s->block_forces) {
            /* start-up and KS events: the body sits at its own t0 (x = x0) */
            tide_add_coriolis(&s->tide, s->v[i], s->a[i], a[k], j[k]);
            continue;
        }
        coriolis_state(s, i);
        tide_add_coriolis(&s->tide, s->vcor[i], s->acor[i], a[k], j[k]);
    }
}

/* KZ(14): the smooth tidal force belongs to the regular force (xtrnlf.f). */
static void add_tide_regular(const sim *s, int ni, const int *ilist, vec3 *a, vec3 *j)
{
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        tide_add_regular(&s->tide, s->x[i], s->v[i], a[k], j[k]);
    }
}

/* What irregular_force adds to the sum over the list, whichever library
 * summed it. */
static void irregular_extra(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j)
{
    /* An empty list: NBODY6's fictitious mass 0.01 <m> at the origin keeps the
     * irregular polynomial (and so the step criterion) well defined. */
    double mf = 0.01 * s->mmean;
    /* by the team in big blocks (a pass over every member's list size) */
#pragma omp parallel for schedule(static) if (par_worth(ni, 16384))
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        if (s->nnb[i] != 0) continue;
        double r[3] = {-s->x[i][0], -s->x[i][1], -s->x[i][2]};
        double w[3] = {-s->v[i][0], -s->v[i][1], -s->v[i][2]};
        double r2 = dot3(r, r), rv = dot3(r, w);
        double r3i = mf / (r2 * sqrt(r2));
        for (int c = 0; c < 3; c++) {
            a[k][c] += r3i * r[c];
            j[k][c] += r3i * (w[c] - 3.0 * rv / r2 * r[c]);
        }
    }
    if (tide_on(&s->tide)) add_coriolis(s, ni, ilist, a, j);
}

int irregular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, char *err, size_t errlen)
{
    if (gpuirr_firr(s->irr, ni, ilist, a, j) != 0) {
        snprintf(err, errlen, "irregular force at t = %.17g: %s", s->time, gpuirr_error(s->irr));
        return -1;
    }
    irregular_extra(s, ni, ilist, a, j);
    return 0;
}

/* The switch point of the GPU irregular force, in block members (see
 * docs/notes/benchmarks-history.md for its measurement).  With the lists resident on the
 * GPU a block's call moves 4 bytes up (the slot) and 52 down per member, and GPUIRR's
 * prediction of the members' neighbours (most of a CPU block's time at
 * 128k, 513-4096 members) is not needed: bench_irrf put the GPU ahead from
 * 256 members at N = 32k-128k (2-7x); below a few hundred members the
 * GPU's round trip (~40 us) is what a CPU block costs. */
#define IRR_GPU_MIN_DEFAULT 512

static void irr_gpu_decide(sim *s)
{
    if (s->irr_gpu_min != 0) return;
    const tuning tn = tuning_read();
    int v = tn.irr_gpu_min != TUNING_UNSET ? tn.irr_gpu_min : IRR_GPU_MIN_DEFAULT;
    int ok = strcmp(gpunb_backend(s->nb), "cuda") == 0 || tn.irr_gpu_any == 1;
    s->irr_gpu_min = v > 0 && ok ? v : INT_MAX;
}

int irr_on_gpu(sim *s, int ni)
{
    irr_gpu_decide(s);
    return ni >= s->irr_gpu_min;
}

int gpunb_lists_kept(sim *s)
{
    irr_gpu_decide(s);
    return s->irr_gpu_min != INT_MAX;
}

void gpunb_lists_send(sim *s, int n, const int *idx)
{
    if (n <= 0 || !gpunb_lists_kept(s)) return;
    const int **lp = malloc(sizeof(int *) * n);
    int *nnb = malloc(sizeof(int) * n);
    if (!lp || !nnb) {
        fprintf(stderr, "nbody6c: out of memory sending the neighbour lists\n");
        exit(1);
    }
    for (int k = 0; k < n; k++) {
        lp[k] = sim_list(s, idx[k]);
        nnb[k] = s->nnb[idx[k]];
    }
    gpunb_set_list(s->nb, n, idx, nnb, lp);
    free((void *)lp);
    free(nnb);
}

int irregular_force_gpu(sim *s, int ni, const int *ilist, vec3 *xs, vec3 *vs, vec3 *a, vec3 *j, char *err,
                        size_t errlen)
{
#pragma omp parallel for schedule(static) if (par_worth(ni, 4096))
    for (int k = 0; k < ni; k++) {
        memcpy(xs[k], s->x[ilist[k]], sizeof(vec3));
        memcpy(vs[k], s->v[ilist[k]], sizeof(vec3));
    }
    if (gpunb_irrf_members(s->nb, ni, ilist, (const double(*)[3])xs, (const double(*)[3])vs, a, j) != 0) {
        /* rare: GPUIRR (predicted for these bodies first) sums them again
         * and names a coincident pair */
        gpuirr_pred_act(s->irr, ni, ilist, s->time);
        return irregular_force(s, ni, ilist, a, j, err, errlen);
    }
    irregular_extra(s, ni, ilist, a, j);
    return 0;
}

int regf_in_alloc(regf_in *r, int n)
{
    r->idx = malloc(sizeof(int) * n);
    r->h2 = malloc(sizeof(double) * n);
    r->dtr = malloc(sizeof(double) * n);
    r->x = malloc(sizeof(vec3) * n);
    r->v = malloc(sizeof(vec3) * n);
    return r->idx && r->h2 && r->dtr && r->x && r->v ? 0 : -1;
}

void regf_in_free(regf_in *r)
{
    if (!r) return;
    free(r->idx); free(r->h2); free(r->dtr); free(r->x); free(r->v);
}

/* gpunb_regf's inputs for the bodies ilist[pos[q]], q < m (pos NULL: all). */
static void regf_gather(const sim *s, const int *ilist, const int *pos, int m, regf_in *r)
{
#pragma omp parallel for schedule(static) if (par_worth(m, 4096))
    for (int q = 0; q < m; q++) {
        int i = ilist[pos ? pos[q] : q];
        r->idx[q] = i;
        r->h2[q] = s->rs[i] * s->rs[i] / s->mmean;
        r->dtr[q] = s->dtr[i];
        memcpy(r->x[q], s->x[i], sizeof(vec3));
        memcpy(r->v[q], s->v[i], sizeof(vec3));
    }
}

static void regf_call(sim *s, int m, const regf_in *r, vec3 *a, vec3 *j, int *nnb, int *lists)
{
    gpunb_regf(s->nb, m, r->idx, r->h2, r->dtr, (const double(*)[3])r->x, (const double(*)[3])r->v,
               a, j, nnb, lists);
}

static void out_of_memory(void)
{
    fprintf(stderr, "nbody6c: out of memory in the regular force\n");
    exit(1);
}

/* The radius factor after a list of count > nbmax members: NBODY6's 0.9
 * (regint.f) for a small overflow; for a large one the cube root that
 * brings a uniform sphere's count to OVERFLOW_FILL nbmax, so that a radius
 * far too big (a start-up's RS0 at a dense centre) needs one round, not
 * many: each round is a regular force over the whole system. */
#define OVERFLOW_FILL 0.8
static double overflow_shrink(int count, int nbmax)
{
    double f = cbrt(OVERFLOW_FILL * nbmax / (double)count);
    return f < 0.9 ? f : 0.9;
}

/* The bodies whose list overflowed (nnb = -count < 0) again, with a smaller
 * radius each round, until every list fits: a list is never cut, so the
 * bodies outside move to the regular force consistently.  Few and small:
 * their results go through scratch arrays of their own. */
static void regf_retry_overflowed(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb,
                                  int *lists, int *overflowed)
{
    const int nbmax = s->nbmax;
    int m = 0;
    for (int k = 0; k < ni; k++) m += nnb[k] < 0;
    if (m == 0) return;
    const double w0 = omp_get_wtime();
    int *pos = malloc(sizeof(int) * m), *tn = malloc(sizeof(int) * m);
    int *tl = malloc(sizeof(int) * (size_t)m * nbmax);
    vec3 *ta = malloc(sizeof(vec3) * m), *tj = malloc(sizeof(vec3) * m);
    regf_in r;
    if (!pos || !tn || !tl || !ta || !tj || regf_in_alloc(&r, m)) out_of_memory();
    m = 0;
    for (int k = 0; k < ni; k++)
        if (nnb[k] < 0) {
            tn[m] = nnb[k];
            pos[m++] = k;
        }
    while (m > 0) {
        for (int q = 0; q < m; q++) {
            s->rs[ilist[pos[q]]] *= overflow_shrink(-tn[q], nbmax);
            overflowed[pos[q]] = 1;
            s->cnt.nb_overflow_retries++;
        }
        regf_gather(s, ilist, pos, m, &r);
        regf_call(s, m, &r, ta, tj, tn, tl);
        int again = 0;
        for (int q = 0; q < m; q++) {
            int k = pos[q];
            if (tn[q] < 0) {
                tn[again] = tn[q];
                pos[again++] = k;
                continue;
            }
            memcpy(a[k], ta[q], sizeof(vec3));
            memcpy(j[k], tj[q], sizeof(vec3));
            nnb[k] = tn[q];
            memcpy(lists + (size_t)k * nbmax, tl + (size_t)q * nbmax, sizeof(int) * tn[q]);
        }
        m = again;
    }
    regf_in_free(&r);
    free(pos); free(tn); free(tl); free(ta); free(tj);
    s->ptm.retry_all += omp_get_wtime() - w0;
}

void regular_force_begin(sim *s, int ni, const int *ilist, regf_in *r)
{
    regf_gather(s, ilist, NULL, ni, r);
    gpunb_regf_begin(s->nb, ni, r->idx, r->h2, r->dtr, (const double(*)[3])r->x, (const double(*)[3])r->v);
}

void regular_force_end(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb, int *lists,
                       int *overflowed)
{
    gpunb_regf_end(s->nb, a, j, nnb, lists);
    for (int k = 0; k < ni; k++) overflowed[k] = 0;
    regf_retry_overflowed(s, ni, ilist, a, j, nnb, lists, overflowed);
    if (tide_on(&s->tide)) add_tide_regular(s, ni, ilist, a, j);
}

void regular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb,
                   int *lists, int *overflowed)
{
    /* straight into the caller's arrays: a temporary of ni * nbmax entries
     * (tens of MB in big blocks) cost more in page faults than the force */
    regf_in r;
    if (regf_in_alloc(&r, ni)) out_of_memory();
    regular_force_begin(s, ni, ilist, &r);
    regular_force_end(s, ni, ilist, a, j, nnb, lists, overflowed);
    regf_in_free(&r);
}
