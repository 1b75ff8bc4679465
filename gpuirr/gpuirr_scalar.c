/* gpuirr_scalar.c — the "scalar" GPUIRR backend: double precision, plain C +
 * OpenMP over the active bodies.  It owns a copy of every body slot (mass,
 * polynomial at t0, predicted state) and of each body's neighbour list, and
 * sums the irregular force and jerk over the list in list order.  It is the
 * reference for the SIMD backends and the fallback for CPUs without them;
 * its results do not depend on the thread count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuirr/gpuirr_impl.h"
#include "common/pairterm.h"
#include "common/predict.h"

typedef struct scalar_irr {
    struct gpuirr base; /* first member: gpuirr.c dispatches through it */
    double *m, *t0;
    double *tpred;      /* time of the predicted state; NaN after set_jp */
    double (*x0)[3], (*v0)[3], (*a0)[3], (*j0)[3];
    double (*xp)[3], (*vp)[3];
    int *nnb;           /* -1: set_list was given an impossible count */
    int *list;          /* nbmax entries per slot */
} scalar_irr;

static scalar_irr *as_scalar(gpuirr *g) { return (scalar_irr *)g; }

/* The integration's own third-order predictor (src/predict.h). */
static inline void predict_slot(scalar_irr *s, int i, double t)
{
    if (s->tpred[i] == t) return; /* already there: keep the very same state */
    predict3(t - s->t0[i], s->x0[i], s->v0[i], s->a0[i], s->j0[i], s->xp[i], s->vp[i]);
    s->tpred[i] = t;
}

static void scalar_close(gpuirr *g)
{
    scalar_irr *s = as_scalar(g);
    free(s->m); free(s->t0); free(s->tpred);
    free(s->x0); free(s->v0); free(s->a0); free(s->j0);
    free(s->xp); free(s->vp);
    free(s->nnb); free(s->list);
    free(s);
}

static void scalar_set_jp(gpuirr *g, int i, double t0, const double x[3], const double v[3],
                          const double a[3], const double jerk[3], double m)
{
    scalar_irr *s = as_scalar(g);
    s->t0[i] = t0;
    s->m[i] = m;
    s->tpred[i] = NAN;
    memcpy(s->x0[i], x, sizeof s->x0[i]);
    memcpy(s->v0[i], v, sizeof s->v0[i]);
    memcpy(s->a0[i], a, sizeof s->a0[i]);
    memcpy(s->j0[i], jerk, sizeof s->j0[i]);
}

static void scalar_set_list(gpuirr *g, int i, int nnb, const int *list)
{
    scalar_irr *s = as_scalar(g);
    if (nnb < 0 || nnb > g->nbmax) {
        /* Never truncate silently: firr reports the bad list instead. */
        s->nnb[i] = -1;
        return;
    }
    s->nnb[i] = nnb;
    if (nnb > 0) memcpy(s->list + (size_t)i * (size_t)g->nbmax, list, (size_t)nnb * sizeof *list);
}

static void scalar_pred_all(gpuirr *g, int jbeg, int jend, double t)
{
    scalar_irr *s = as_scalar(g);
    #pragma omp parallel for schedule(static)
    for (int j = jbeg; j < jend; j++) predict_slot(s, j, t);
}

/* Serial on purpose: neighbours are shared between active bodies, and two
 * threads must not predict one slot at once.  The path is for small blocks. */
static void scalar_pred_act(gpuirr *g, int ni, const int *ilist, double t)
{
    scalar_irr *s = as_scalar(g);
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        predict_slot(s, i, t);
        const int *l = s->list + (size_t)i * (size_t)g->nbmax;
        for (int n = 0; n < s->nnb[i]; n++) predict_slot(s, l[n], t);
    }
}

/* Irregular force on slot i; returns the first neighbour that coincides with
 * i (r^2 == 0), or -1 when there is none. */
static int firr_one(const scalar_irr *s, int i, double acc[3], double jrk[3])
{
    const double *xi = s->xp[i], *vi = s->vp[i];
    const int *l = s->list + (size_t)i * (size_t)s->base.nbmax;
    double sa[3] = {0, 0, 0}, sj[3] = {0, 0, 0};
    int bad = -1;
    for (int n = 0; n < s->nnb[i]; n++) {
        int j = l[n];
        double r[3] = {s->xp[j][0] - xi[0], s->xp[j][1] - xi[1], s->xp[j][2] - xi[2]};
        double v[3] = {s->vp[j][0] - vi[0], s->vp[j][1] - vi[1], s->vp[j][2] - vi[2]};
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (r2 == 0) {
            bad = j;
            break;
        }
        pair_term_add(s->m[j], r, v, r2, sa, sj); /* as the cpu-ref regular force */
    }
    for (int k = 0; k < 3; k++) {
        acc[k] = sa[k];
        jrk[k] = sj[k];
    }
    return bad;
}

static int scalar_firr(gpuirr *g, int ni, const int *ilist, double (*a)[3], double (*jerk)[3])
{
    const scalar_irr *s = as_scalar(g);
    /* The failure reported is the one of the first listed body (lowest k),
     * whatever the thread count; ties resolved under a critical section. */
    int errk = ni, erri = -1, errj = -1;
    #pragma omp parallel for schedule(dynamic, 8)
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        int j = -2;
        if (s->nnb[i] >= 0) {
            j = firr_one(s, i, a[k], jerk[k]);
        } else {
            memset(a[k], 0, sizeof a[k]);
            memset(jerk[k], 0, sizeof jerk[k]);
        }
        if (j != -1) {
            #pragma omp critical(gpuirr_scalar_error)
            if (k < errk) {
                errk = k;
                erri = i;
                errj = j;
            }
        }
    }
    if (errk == ni) {
        g->error[0] = '\0';
        return 0;
    }
    if (errj == -2)
        snprintf(g->error, sizeof g->error,
                 "body %d has no valid neighbour list (set_list got a count outside 0..%d)",
                 erri, g->nbmax);
    else
        snprintf(g->error, sizeof g->error, "bodies %d and %d coincide at (%.17g, %.17g, %.17g)",
                 erri, errj, s->xp[erri][0], s->xp[erri][1], s->xp[erri][2]);
    return -1;
}

static const gpuirr_ops scalar_ops = {
    .name = "scalar",
    .close = scalar_close,
    .set_jp = scalar_set_jp,
    .set_list = scalar_set_list,
    .pred_all = scalar_pred_all,
    .pred_act = scalar_pred_act,
    .firr = scalar_firr,
};

gpuirr *gpuirr_scalar_open(int nmax, int nbmax, char *err, size_t errlen)
{
    if (nmax < 1 || nbmax < 1) {
        snprintf(err, errlen, "gpuirr scalar: bad sizes nmax=%d nbmax=%d", nmax, nbmax);
        return NULL;
    }
    size_t n = (size_t)nmax, nb = (size_t)nbmax;
    if (nb > SIZE_MAX / sizeof(int) / n) {
        snprintf(err, errlen, "gpuirr scalar: %d lists of %d entries do not fit in memory", nmax, nbmax);
        return NULL;
    }
    scalar_irr *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    s->base.ops = &scalar_ops;
    s->m = calloc(n, sizeof *s->m);
    s->t0 = calloc(n, sizeof *s->t0);
    s->tpred = malloc(n * sizeof *s->tpred);
    s->x0 = calloc(n, sizeof *s->x0);
    s->v0 = calloc(n, sizeof *s->v0);
    s->a0 = calloc(n, sizeof *s->a0);
    s->j0 = calloc(n, sizeof *s->j0);
    s->xp = calloc(n, sizeof *s->xp);
    s->vp = calloc(n, sizeof *s->vp);
    s->nnb = calloc(n, sizeof *s->nnb);
    s->list = malloc(n * nb * sizeof *s->list);
    if (!s->m || !s->t0 || !s->tpred || !s->x0 || !s->v0 || !s->a0 || !s->j0 || !s->xp ||
        !s->vp || !s->nnb || !s->list) {
        scalar_close(&s->base);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) s->tpred[i] = NAN;
    s->base.nmax = nmax;
    s->base.nbmax = nbmax;
    s->base.error[0] = '\0';
    return &s->base;
oom:
    snprintf(err, errlen, "gpuirr scalar: out of memory for %d bodies with lists of %d", nmax, nbmax);
    return NULL;
}
