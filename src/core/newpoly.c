/* newpoly.c — new force polynomials of a given set of bodies (fpoly0.f,
 * fpoly1.f, fpoly2.f, steps.f; docs/ALGORITHMS.md §7): lists, regular and
 * irregular force and jerk, second and third derivatives summed over every
 * body, first steps; and sending bodies to the force libraries.  The
 * contract is in newpoly.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "common/parallel.h"
#include "core/forces.h"
#include "core/newpoly.h"
#include "core/steps.h"

/* A list with fewer than two members is not enough for an irregular
 * polynomial: its radius grows by 1.5 and it is asked again (fpoly0.f). */
enum { LIST_PASSES = 100 };

static void nomem(void)
{
    fprintf(stderr, "nbody6c: out of memory for new force polynomials\n");
    exit(1);
}

/* The polynomials of n bodies (distinct slots) to both libraries, and
 * with `lists` their lists too.  Gathered by the team for many bodies: the
 * start-up's three serial passes over 1M bodies took 2.4-3.2 s. */
static void send_bodies(sim *s, int n, const int *idx, int lists)
{
    double *t0 = malloc(sizeof(double) * (n + 1)), *m = malloc(sizeof(double) * (n + 1));
    vec3 *x = malloc(sizeof(vec3) * (n + 1)), *v = malloc(sizeof(vec3) * (n + 1));
    vec3 *a = malloc(sizeof(vec3) * (n + 1)), *j = malloc(sizeof(vec3) * (n + 1));
    if (!t0 || !m || !x || !v || !a || !j) nomem();
#pragma omp parallel for schedule(static) if (par_worth(n, 4096))
    for (int k = 0; k < n; k++) {
        const int i = idx[k];
        t0[k] = s->t0[i];
        m[k] = s->m[i];
        memcpy(x[k], s->x0[i], sizeof(vec3));
        memcpy(v[k], s->v0[i], sizeof(vec3));
        memcpy(a[k], s->a[i], sizeof(vec3));
        memcpy(j[k], s->j[i], sizeof(vec3));
        gpuirr_set_jp(s->irr, i, s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], s->m[i]);
        if (lists) gpuirr_set_list(s->irr, i, s->nnb[i], sim_list(s, i));
    }
    gpunb_set_range(s->nb, s->ifirst, s->ntot);
    if (n > 0)
        gpunb_set_jp(s->nb, n, idx, t0, (const double(*)[3])x, (const double(*)[3])v,
                     (const double(*)[3])a, (const double(*)[3])j, m);
    if (lists) gpunb_lists_send(s, n, idx);
    free(t0); free(m); free(x); free(v); free(a); free(j);
}

void newpoly_send(sim *s, int n, const int *idx)
{
    int *all = NULL;
    if (!idx) {
        n = s->ntot - s->ifirst;
        all = malloc(sizeof(int) * (n + 1));
        if (!all) nomem();
        for (int k = 0; k < n; k++) all[k] = s->ifirst + k;
        idx = all;
    }
    send_bodies(s, n, idx, 1);
    free(all);
}

void newpoly_send_polynomials(sim *s)
{
    const int nb = s->ntot - s->ifirst;
    int *idx = malloc(sizeof(int) * (nb + 1));
    if (!idx) nomem();
    for (int k = 0; k < nb; k++) idx[k] = s->ifirst + k;
    gpunb_set_jp(s->nb, nb, idx, s->t0 + s->ifirst, (const double(*)[3])(s->x0 + s->ifirst),
                 (const double(*)[3])(s->v0 + s->ifirst), (const double(*)[3])(s->a + s->ifirst),
                 (const double(*)[3])(s->j + s->ifirst), s->m + s->ifirst);
    /* distinct slots: by the team for many, as send_bodies */
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
    for (int k = s->ifirst; k < s->ntot; k++)
        gpuirr_set_jp(s->irr, k, s->t0[k], s->x0[k], s->v0[k], s->a[k], s->j[k], s->m[k]);
    free(idx);
}

/* send_bodies, its time in the start-up's timers */
static void timed_send(sim *s, int nb, const int *idx, int lists, int start)
{
    const double w0 = omp_get_wtime();
    send_bodies(s, nb, idx, lists);
    if (start) s->ptm.sends += omp_get_wtime() - w0;
}

static int contiguous(int n, const int *idx)
{
    for (int k = 1; k < n; k++)
        if (idx[k] != idx[0] + k) return 0;
    return 1;
}

/* A list too short for an irregular polynomial that a larger radius could
 * lengthen (not a shrunk overflow, not every other body already, not the
 * last pass): asked again. */
static int ask_again(int nnb, int overflowed, int whole, int last)
{
    return nnb < 2 && nnb < whole && !overflowed && !last;
}

/* Lists and regular force; only the bodies whose list is too short are
 * asked again (each body's force and list depend on its own radius alone).
 * When the bodies are a run of slots (the start-up: every body), the first
 * pass writes straight into their rows, fr and frd: a temporary of 1M
 * lists was 1.8 GB to fault in and copy.  A body asked again has its row
 * and forces written again by a later pass. */
static void new_lists(sim *s, int nb, const int *idx, vec3 *fr, vec3 *frd)
{
    const size_t nbmax = (size_t)s->nbmax;
    int *nnb = malloc(sizeof(int) * nb), *ovf = malloc(sizeof(int) * nb);
    int *redo = malloc(sizeof(int) * nb), *pos = malloc(sizeof(int) * nb);
    if (!nnb || !ovf || !redo || !pos) nomem();
    vec3 *ta = NULL, *tj = NULL;
    int *tl = NULL;
    const int direct = nb > 0 && contiguous(nb, idx);
    int m = nb;
    for (int k = 0; k < nb; k++) { redo[k] = idx[k]; pos[k] = k; }
    for (int pass = 0; m > 0 && pass < LIST_PASSES; pass++) {
        const int inplace = pass == 0 && direct;
        if (!inplace && !tl) { /* later passes are no larger than this one */
            ta = malloc(sizeof(vec3) * m);
            tj = malloc(sizeof(vec3) * m);
            tl = malloc(sizeof(int) * (size_t)m * nbmax);
            if (!ta || !tj || !tl) nomem();
        }
        vec3 *pa = inplace ? fr : ta, *pj = inplace ? frd : tj;
        int *pl = inplace ? sim_list(s, idx[0]) : tl;
        regular_force(s, m, redo, pa, pj, nnb, pl, ovf);
        const int last = pass + 1 == LIST_PASSES, whole = s->ntot - s->ifirst - 1;
#pragma omp parallel for schedule(static) if (par_worth(m, 4096))
        for (int q = 0; q < m; q++) {
            if (ask_again(nnb[q], ovf[q], whole, last)) continue;
            const int k = pos[q], i = redo[q];
            s->nnb[i] = nnb[q];
            if (inplace) continue;
            memcpy(fr[k], pa[q], sizeof(vec3));
            memcpy(frd[k], pj[q], sizeof(vec3));
            memcpy(sim_list(s, i), pl + (size_t)q * nbmax, sizeof(int) * nnb[q]);
        }
        int again = 0;
        for (int q = 0; q < m; q++) {
            if (!ask_again(nnb[q], ovf[q], whole, last)) continue;
            s->rs[redo[q]] *= 1.5;
            redo[again] = redo[q];
            pos[again++] = pos[q];
        }
        m = again;
    }
    free(nnb); free(ovf); free(redo); free(pos); free(ta); free(tj); free(tl);
}

/* KZ(14) at the start: the Coriolis jerk T4 (a_y, -a_x) needs the total
 * acceleration, which was zero in the predictor while the forces were
 * computed. */
static void coriolis_jerk_at_start(sim *s, int nb, const int *idx)
{
    const double t4 = s->tide.t4;
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        double dj[3] = {t4 * s->a[i][1], -t4 * s->a[i][0], 0.0};
        for (int c = 0; c < 3; c++) {
            s->fid[i][c] += dj[c];
            s->j[i][c] += dj[c];
        }
    }
}

/* KZ(14) at the start: the field's share of the second and third
 * derivatives, which the pairwise sums do not see: d/dt of (T1 x, 0, T3 z)
 * and of T4 (v_y, -v_x). */
static void tide_derivatives_at_start(sim *s, int nb, const int *idx)
{
    const tide *td = &s->tide;
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        const double *a = s->a[i], *j = s->j[i];
        s->d2r[i][0] += td->t1 * a[0];
        s->d2r[i][2] += td->t3 * a[2];
        s->d3r[i][0] += td->t1 * j[0];
        s->d3r[i][2] += td->t3 * j[2];
        double a2[3];
        for (int c = 0; c < 3; c++) a2[c] = s->d2[i][c] + s->d2r[i][c];
        s->d2[i][0] += td->t4 * j[1];
        s->d2[i][1] -= td->t4 * j[0];
        s->d3[i][0] += td->t4 * a2[1];
        s->d3[i][1] -= td->t4 * a2[0];
    }
}

/* Second and third derivatives of both parts from every body's polynomial
 * at t (the bodies' own a, j already total). */
static void derivatives(sim *s, int nb, const int *idx, double t, int start)
{
    vec3 *xs = malloc(sizeof(vec3) * nb), *vs = malloc(sizeof(vec3) * nb);
    vec3 *as = malloc(sizeof(vec3) * nb), *js = malloc(sizeof(vec3) * nb);
    vec3 *d2i = malloc(sizeof(vec3) * nb), *d3i = malloc(sizeof(vec3) * nb);
    vec3 *d2r = malloc(sizeof(vec3) * nb), *d3r = malloc(sizeof(vec3) * nb);
    double *h2 = malloc(sizeof(double) * nb), *dtr = malloc(sizeof(double) * nb);
    if (!xs || !vs || !as || !js || !d2i || !d3i || !d2r || !d3r || !h2 || !dtr) nomem();
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        memcpy(xs[k], s->x0[i], sizeof(vec3));
        memcpy(vs[k], s->v0[i], sizeof(vec3));
        memcpy(as[k], s->a[i], sizeof(vec3));
        memcpy(js[k], s->j[i], sizeof(vec3));
        h2[k] = s->rs[i] * s->rs[i] / s->mmean;
        dtr[k] = s->dtr[i];
    }
    gpunb_predict(s->nb, t);
    const double w0 = omp_get_wtime();
    gpunb_fpoly(s->nb, nb, idx, h2, dtr, (const double(*)[3])xs, (const double(*)[3])vs,
                (const double(*)[3])as, (const double(*)[3])js, d2i, d3i, d2r, d3r);
    if (start) s->ptm.sums += omp_get_wtime() - w0;
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        memcpy(s->d2[i], d2i[k], sizeof(vec3));
        memcpy(s->d3[i], d3i[k], sizeof(vec3));
        memcpy(s->d2r[i], d2r[k], sizeof(vec3));
        memcpy(s->d3r[i], d3r[k], sizeof(vec3));
    }
    free(xs); free(vs); free(as); free(js); free(d2i); free(d3i); free(d2r); free(d3r);
    free(h2); free(dtr);
}

int newpoly_bodies(sim *s, int nb, const int *idx, double t, unsigned flags, char *err, size_t errlen)
{
    const newpoly_reg *reg = s->newpoly_reg;
    const int start = flags & NEWPOLY_START;
    /* the bodies' slots are distinct: the passes over them go to the team
     * when they are many (the start-up) */
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        s->t0[i] = s->t0r[i] = s->tpred[i] = t;
        memcpy(s->x[i], s->x0[i], sizeof(vec3));
        memcpy(s->v[i], s->v0[i], sizeof(vec3));
        memset(s->a[i], 0, sizeof(vec3));
        memset(s->j[i], 0, sizeof(vec3));
    }
    timed_send(s, nb, idx, 1, start);
    if (reg) reg->begin(s, nb, idx, t, flags);
    gpunb_predict(s->nb, t);

    vec3 *fr = malloc(sizeof(vec3) * nb), *frd = malloc(sizeof(vec3) * nb);
    vec3 *fi = malloc(sizeof(vec3) * nb), *fid = malloc(sizeof(vec3) * nb);
    const int **lp = malloc(sizeof(int *) * nb);
    int *nnb = malloc(sizeof(int) * nb);
    if (!fr || !frd || !fi || !fid || !lp || !nnb) nomem();
    /* the start-up's parts go to the process's timers (sim.h) */
    double w0 = omp_get_wtime(), r0 = s->ptm.retry_all;
    new_lists(s, nb, idx, fr, frd);
    if (start) s->ptm.lists += omp_get_wtime() - w0;
    if (start) s->ptm.retries += s->ptm.retry_all - r0;
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
    for (int k = 0; k < nb; k++) {
        const int i = idx[k];
        gpuirr_set_list(s->irr, i, s->nnb[i], sim_list(s, i));
        lp[k] = sim_list(s, i);
        nnb[k] = s->nnb[i];
    }
    if (reg) reg->lists_made(s, nb, idx, t, flags);

    /* the irregular force from the new lists: the bodies and their
     * neighbours predicted (everyone when the set is the whole range) */
    w0 = omp_get_wtime();
    if (nb == s->ntot - s->ifirst) gpuirr_pred_all(s->irr, s->ifirst, s->ntot, t);
    else gpuirr_pred_act(s->irr, nb, idx, t);
    int rc = irregular_force(s, nb, idx, fi, fid, err, errlen);
    if (rc == 0) {
        if (reg) reg->irr_correct(s, nb, idx, lp, nnb, fi, fid);
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
        for (int k = 0; k < nb; k++) {
            const int i = idx[k];
            memcpy(s->fi[i], fi[k], sizeof(vec3));
            memcpy(s->fid[i], fid[k], sizeof(vec3));
            memcpy(s->fr[i], fr[k], sizeof(vec3));
            memcpy(s->frd[i], frd[k], sizeof(vec3));
            for (int c = 0; c < 3; c++) {
                s->a[i][c] = fi[k][c] + fr[k][c];
                s->j[i][c] = fid[k][c] + frd[k][c];
            }
        }
        if (start && tide_on(&s->tide)) coriolis_jerk_at_start(s, nb, idx);
        if (start) s->ptm.irregular += omp_get_wtime() - w0;

        /* every body's a, j at t is in the libraries before the sums; the
         * lists are there already (given to GPUIRR above, kept by GPUNB from
         * its regular force, reg/'s edits sent by reg/) */
        w0 = omp_get_wtime();
        timed_send(s, nb, idx, 0, start);
        derivatives(s, nb, idx, t, start);
        if (start) s->ptm.derivatives += omp_get_wtime() - w0;
        if (start && tide_on(&s->tide)) tide_derivatives_at_start(s, nb, idx);
#pragma omp parallel for schedule(static) if (par_worth(nb, 4096))
        for (int k = 0; k < nb; k++) steps_first(s, idx[k], t);
        if (reg) reg->end(s, nb, idx, t, flags);
        timed_send(s, nb, idx, 0, start);
    }
    free(fr); free(frd); free(fi); free(fid); free(lp); free(nnb);
    return rc ? -1 : 0;
}
