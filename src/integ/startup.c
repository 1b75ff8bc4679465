/* startup.c — the force polynomials of every body at the start of a run
 * (docs/ALGORITHMS.md §7, after NBODY6-GPU's fpoly0.f/start.f and steps.f):
 * initial radii, neighbour lists, regular and irregular force and jerk,
 * second and third derivatives by direct summation over every body, and the
 * first irregular and regular steps.  Primordial binaries closer than RMIN
 * become KS pairs first (ks_primordial.c), so their c.m. bodies get their
 * polynomials in the same pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "integ/block.h"
#include "integ/startup.h"
#include "core/forces.h"
#include "core/steps.h"
#include "reg/ks.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Sends every body's current polynomial (t0, x0, v0, a, j) to both
 * libraries, and every list to GPUNB when it keeps them (gpunb_lists_kept;
 * GPUIRR's lists are sent by the callers, as before): start-up, restart and
 * escaper removal, the points where every slot may have changed. */
void startup_send_all(sim *s)
{
    int nb = s->ntot - s->ifirst;
    int *idx = malloc(sizeof(int) * nb);
    for (int k = 0; k < nb; k++) idx[k] = s->ifirst + k;
    gpunb_set_range(s->nb, s->ifirst, s->ntot);
    gpunb_set_jp(s->nb, nb, idx, s->t0 + s->ifirst, (const double(*)[3])(s->x0 + s->ifirst),
                 (const double(*)[3])(s->v0 + s->ifirst), (const double(*)[3])(s->a + s->ifirst),
                 (const double(*)[3])(s->j + s->ifirst), s->m + s->ifirst);
    gpunb_lists_send(s, nb, idx);
    for (int i = s->ifirst; i < s->ntot; i++)
        gpuirr_set_jp(s->irr, i, s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], s->m[i]);
    free(idx);
}

/* Lists with fewer than two members grow the radius by 1.5 and are redone
 * (fpoly0.f), so that every body starts with a usable irregular force. */
static void initial_lists(sim *s, int nb, const int *idx, vec3 *fr, vec3 *frd)
{
    int *nnb = malloc(sizeof(int) * nb), *ovf = malloc(sizeof(int) * nb);
    int *redo = malloc(sizeof(int) * nb);
    vec3 *ta = malloc(sizeof(vec3) * nb), *tj = malloc(sizeof(vec3) * nb);
    int *tl = malloc(sizeof(int) * (size_t)nb * s->nbmax);
    int *pos = malloc(sizeof(int) * nb);
    int m = nb;
    for (int k = 0; k < nb; k++) { redo[k] = idx[k]; pos[k] = k; }
    for (int pass = 0; m > 0 && pass < 100; pass++) {
        regular_force(s, m, redo, ta, tj, nnb, tl, ovf);
        int again = 0;
        for (int q = 0; q < m; q++) {
            int k = pos[q], i = redo[q];
            if (nnb[q] < 2 && nnb[q] < s->ntot - s->ifirst - 1 && !ovf[q]) {
                s->rs[i] *= 1.5;
                redo[again] = i;
                pos[again++] = k;
                continue;
            }
            memcpy(fr[k], ta[q], sizeof(vec3));
            memcpy(frd[k], tj[q], sizeof(vec3));
            s->nnb[i] = nnb[q];
            memcpy(sim_list(s, i), tl + (size_t)q * s->nbmax, sizeof(int) * nnb[q]);
        }
        m = again;
    }
    free(nnb); free(ovf); free(redo); free(ta); free(tj); free(tl); free(pos);
}

/* KZ(14): the Coriolis jerk T4 (a_y, -a_x) needs the total acceleration,
 * which is zero in the predictor while the first forces are computed. */
static void coriolis_jerk_at_start(sim *s)
{
    const double t4 = s->tide.t4;
    for (int i = s->ifirst; i < s->ntot; i++) {
        double dj[3] = {t4 * s->a[i][1], -t4 * s->a[i][0], 0.0};
        for (int c = 0; c < 3; c++) {
            s->fid[i][c] += dj[c];
            s->j[i][c] += dj[c];
        }
    }
}

/* KZ(14): the field's share of the second and third derivatives, which the
 * pairwise sums do not see: d/dt of (T1 x, 0, T3 z) and of T4 (v_y, -v_x). */
static void tide_derivatives_at_start(sim *s)
{
    const tide *td = &s->tide;
    for (int i = s->ifirst; i < s->ntot; i++) {
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

/* The irregular forces of the start as the block step will see them: the
 * components of perturbed primordial pairs resolved (ks_irr_correct). */
static void primordial_corrections(sim *s, int nb, const int *idx, vec3 *fi, vec3 *fid)
{
    if (!ks_needs_correction(s)) return;
    const int **lp = malloc(sizeof(int *) * nb);
    int *nnb = malloc(sizeof(int) * nb);
    if (lp && nnb) {
        for (int k = 0; k < nb; k++) {
            lp[k] = sim_list(s, idx[k]);
            nnb[k] = s->nnb[idx[k]];
        }
        ks_irr_correct(s, nb, idx, lp, nnb, 0, fi, fid);
    }
    free(lp);
    free(nnb);
}

int startup_polynomials(sim *s, char *err, size_t errlen)
{
    double t = s->time;
    /* primordial binaries closer than RMIN start as KS pairs (start.f) */
    if (ks_primordial_layout(s, t, err, errlen) < 0) return -1;
    int nb = s->ntot - s->ifirst;
    for (int i = s->ifirst; i < s->ntot; i++) {
        double r2 = dot3(s->x0[i], s->x0[i]);
        s->rs[i] = s->p.rs0 * sqrt(1.0 + r2);
        s->dtr[i] = fmin(s->p.smax / 8.0 * sqrt(1.0 + r2), s->p.smax);
        s->t0[i] = s->t0r[i] = s->tpred[i] = t;
        memcpy(s->x[i], s->x0[i], sizeof(vec3));
        memcpy(s->v[i], s->v0[i], sizeof(vec3));
        memset(s->a[i], 0, sizeof(vec3));
        memset(s->j[i], 0, sizeof(vec3));
    }
    startup_send_all(s);
    gpunb_predict(s->nb, t);

    int *idx = malloc(sizeof(int) * nb);
    vec3 *fr = malloc(sizeof(vec3) * nb), *frd = malloc(sizeof(vec3) * nb);
    vec3 *fi = malloc(sizeof(vec3) * nb), *fid = malloc(sizeof(vec3) * nb);
    double *h2 = malloc(sizeof(double) * nb), *dtr = malloc(sizeof(double) * nb);
    vec3 *d2i = malloc(sizeof(vec3) * nb), *d3i = malloc(sizeof(vec3) * nb);
    vec3 *d2r = malloc(sizeof(vec3) * nb), *d3r = malloc(sizeof(vec3) * nb);
    if (!idx || !fr || !frd || !fi || !fid || !h2 || !dtr || !d2i || !d3i || !d2r || !d3r) {
        snprintf(err, errlen, "out of memory in the start-up");
        return -1;
    }
    for (int k = 0; k < nb; k++) idx[k] = s->ifirst + k;

    /* regular force and lists, then the irregular force from those lists */
    initial_lists(s, nb, idx, fr, frd);
    for (int i = s->ifirst; i < s->ntot; i++) gpuirr_set_list(s->irr, i, s->nnb[i], sim_list(s, i));
    gpuirr_pred_all(s->irr, s->ifirst, s->ntot, t);
    if (s->npairs > 0) ks_primordial_perturbers(s, t);
    if (irregular_force(s, nb, idx, fi, fid, err, errlen)) return -1;
    primordial_corrections(s, nb, idx, fi, fid);
    for (int k = 0; k < nb; k++) {
        int i = idx[k];
        memcpy(s->fr[i], fr[k], sizeof(vec3));
        memcpy(s->frd[i], frd[k], sizeof(vec3));
        memcpy(s->fi[i], fi[k], sizeof(vec3));
        memcpy(s->fid[i], fid[k], sizeof(vec3));
        for (int c = 0; c < 3; c++) {
            s->a[i][c] = fi[k][c] + fr[k][c];
            s->j[i][c] = fid[k][c] + frd[k][c];
        }
    }

    if (tide_on(&s->tide)) coriolis_jerk_at_start(s);

    /* second and third derivatives, every pair, split by the same contract */
    startup_send_all(s);
    gpunb_predict(s->nb, t);
    for (int k = 0; k < nb; k++) {
        int i = idx[k];
        h2[k] = s->rs[i] * s->rs[i] / s->mmean;
        dtr[k] = s->dtr[i];
    }
    gpunb_fpoly(s->nb, nb, idx, h2, dtr, (const double(*)[3])(s->x0 + s->ifirst),
                (const double(*)[3])(s->v0 + s->ifirst), (const double(*)[3])(s->a + s->ifirst),
                (const double(*)[3])(s->j + s->ifirst), d2i, d3i, d2r, d3r);
    for (int k = 0; k < nb; k++) {
        int i = idx[k];
        memcpy(s->d2[i], d2i[k], sizeof(vec3));
        memcpy(s->d3[i], d3i[k], sizeof(vec3));
        memcpy(s->d2r[i], d2r[k], sizeof(vec3));
        memcpy(s->d3r[i], d3r[k], sizeof(vec3));
    }
    if (tide_on(&s->tide)) tide_derivatives_at_start(s);
    startup_steps(s);
    if (s->npairs > 0) ks_primordial_orbits(s);
    startup_send_all(s); /* t0 unchanged; the libraries hold the same polynomials */
    free(idx); free(fr); free(frd); free(fi); free(fid); free(h2); free(dtr);
    free(d2i); free(d3i); free(d2r); free(d3r);
    return 0;
}

void startup_steps(sim *s)
{
    double t = s->time;
    for (int i = s->ifirst; i < s->ntot; i++) {
        steps_first(s, i, t);
        s->t0[i] = s->t0r[i] = t;
    }
}
