/* gpunb_cpu.c — the "cpu-ref" GPUNB backend: plain C + OpenMP in double
 * precision.  It owns a copy of the j-bodies (polynomials at t0 and their
 * predicted state) and computes the regular force, its derivative, the
 * neighbour lists, the start-up derivatives, the potential and the
 * irregular force over given lists.  It is the
 * oracle the fast backends are tested against, so every result is
 * deterministic and independent of the thread count: each i-body is computed
 * by one thread, summing its j-bodies in ascending order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpunb_impl.h"
#include "pairterm.h"
#include "predict.h"

typedef struct cpu_nb {
    struct gpunb base; /* first member: gpunb.c dispatches through it */
    int jbeg, jend;
    double *m, *t0;
    double *tpred;     /* time of the predicted state; NaN after set_jp */
    double (*x0)[3], (*v0)[3], (*a0)[3], (*j0)[3];
    double (*xp)[3], (*vp)[3];
} cpu_nb;

static cpu_nb *as_cpu(gpunb *g) { return (cpu_nb *)g; }

/* The neighbour contract of gpunb.h, evaluated in double: j is a neighbour
 * when min(|r|^2, |r + dtr v|^2) < m_j h2 (strict). */
static inline int is_neighbour(const double r[3], const double v[3], double r2,
                               double dtr, double mh2)
{
    double px = r[0] + dtr * v[0], py = r[1] + dtr * v[1], pz = r[2] + dtr * v[2];
    double p2 = px * px + py * py + pz * pz;
    double rmin2 = p2 < r2 ? p2 : r2;
    return rmin2 < mh2;
}

static void cpu_close(gpunb *g)
{
    cpu_nb *c = as_cpu(g);
    free(c->m); free(c->t0); free(c->tpred);
    free(c->x0); free(c->v0); free(c->a0); free(c->j0);
    free(c->xp); free(c->vp);
    free(c);
}

static void cpu_set_range(gpunb *g, int jbeg, int jend)
{
    cpu_nb *c = as_cpu(g);
    if (jbeg < 0) jbeg = 0;
    if (jend > g->nmax) jend = g->nmax;
    if (jend < jbeg) jend = jbeg;
    c->jbeg = jbeg;
    c->jend = jend;
}

static void cpu_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                       const double (*x)[3], const double (*v)[3],
                       const double (*a)[3], const double (*jerk)[3], const double *m)
{
    cpu_nb *c = as_cpu(g);
    for (int k = 0; k < n; k++) {
        int i = idx[k];
        c->t0[i] = t0[k];
        c->m[i] = m[k];
        c->tpred[i] = NAN;
        memcpy(c->x0[i], x[k], sizeof c->x0[i]);
        memcpy(c->v0[i], v[k], sizeof c->v0[i]);
        memcpy(c->a0[i], a[k], sizeof c->a0[i]);
        memcpy(c->j0[i], jerk[k], sizeof c->j0[i]);
    }
}

static void cpu_predict(gpunb *g, double t)
{
    cpu_nb *c = as_cpu(g);
    /* a parallel region costs microseconds: not worth it for small N */
    #pragma omp parallel for schedule(static) if (c->jend - c->jbeg > 8192)
    for (int j = c->jbeg; j < c->jend; j++) {
        if (c->tpred[j] == t) continue; /* already there: keep the very same state */
        predict3(t - c->t0[j], c->x0[j], c->v0[j], c->a0[j], c->j0[j], c->xp[j], c->vp[j]);
        c->tpred[j] = t;
    }
}

/* Regular force and neighbour list of one i-body; returns its neighbour
 * count (which may exceed nbmax: only the first nbmax are written). */
static int regf_one(const cpu_nb *c, int self, double h2, double dtr,
                    const double xi[3], const double vi[3],
                    double acc[3], double jrk[3], int *list)
{
    const int nbmax = c->base.nbmax;
    double sa[3] = {0, 0, 0}, sj[3] = {0, 0, 0};
    int n = 0;
    for (int j = c->jbeg; j < c->jend; j++) {
        if (j == self) continue;
        double r[3] = {c->xp[j][0] - xi[0], c->xp[j][1] - xi[1], c->xp[j][2] - xi[2]};
        double v[3] = {c->vp[j][0] - vi[0], c->vp[j][1] - vi[1], c->vp[j][2] - vi[2]};
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (is_neighbour(r, v, r2, dtr, c->m[j] * h2)) {
            if (n < nbmax) list[n] = j;
            n++;
            continue;
        }
        pair_term_add(c->m[j], r, v, r2, sa, sj);
    }
    for (int k = 0; k < 3; k++) {
        acc[k] = sa[k];
        jrk[k] = sj[k];
    }
    return n;
}

static int cpu_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                    const double (*x)[3], const double (*v)[3],
                    double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    const cpu_nb *c = as_cpu(g);
    const size_t nbmax = (size_t)g->nbmax;
    int noverflow = 0;
    #pragma omp parallel for schedule(dynamic, 8) reduction(+ : noverflow) \
        if (ni > 1 && (long)ni * (c->jend - c->jbeg) > 16384)
    for (int k = 0; k < ni; k++) {
        int n = regf_one(c, idx[k], h2[k], dtr[k], x[k], v[k], a[k], jerk[k],
                         list + (size_t)k * nbmax);
        if (n > g->nbmax) {
            nnb[k] = -1;
            noverflow++;
        } else {
            nnb[k] = n;
        }
    }
    return noverflow;
}

/* ALGORITHMS.md §7: the second and third derivatives of one pair term, from
 * the relative position r, velocity v, acceleration A and jerk J. */
static inline void pair_d2d3(double mj, const double r[3], const double v[3],
                             const double A[3], const double J[3], double d2[3], double d3[3])
{
    double rinv2 = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double mr3 = mj * rinv2 * sqrt(rinv2);
    double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
    double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double rA = r[0] * A[0] + r[1] * A[1] + r[2] * A[2];
    double vA = v[0] * A[0] + v[1] * A[1] + v[2] * A[2];
    double rJ = r[0] * J[0] + r[1] * J[1] + r[2] * J[2];
    double alpha = rv * rinv2;
    double beta = (v2 + rA) * rinv2 + alpha * alpha;
    double gamma = (3.0 * vA + rJ) * rinv2 + alpha * (3.0 * beta - 4.0 * alpha * alpha);
    for (int k = 0; k < 3; k++) {
        double w = v[k] - 3.0 * alpha * r[k];
        d2[k] = mr3 * (A[k] - 6.0 * alpha * w - 3.0 * beta * r[k]);
    }
    for (int k = 0; k < 3; k++) {
        double w = v[k] - 3.0 * alpha * r[k];
        d3[k] = mr3 * (J[k] - 9.0 * beta * w - 3.0 * gamma * r[k]) - 9.0 * alpha * d2[k];
    }
}

static void fpoly_one(const cpu_nb *c, int self, double h2, double dtr,
                      const double xi[3], const double vi[3], const double ai[3], const double ji[3],
                      double d2irr[3], double d3irr[3], double d2reg[3], double d3reg[3])
{
    double s2i[3] = {0, 0, 0}, s3i[3] = {0, 0, 0}, s2r[3] = {0, 0, 0}, s3r[3] = {0, 0, 0};
    for (int j = c->jbeg; j < c->jend; j++) {
        if (j == self) continue;
        double r[3], v[3], A[3], J[3], d2[3], d3[3];
        for (int k = 0; k < 3; k++) {
            r[k] = c->xp[j][k] - xi[k];
            v[k] = c->vp[j][k] - vi[k];
            A[k] = c->a0[j][k] - ai[k];
            J[k] = c->j0[j][k] - ji[k];
        }
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        pair_d2d3(c->m[j], r, v, A, J, d2, d3);
        double *s2 = s2r, *s3 = s3r;
        if (is_neighbour(r, v, r2, dtr, c->m[j] * h2)) {
            s2 = s2i;
            s3 = s3i;
        }
        for (int k = 0; k < 3; k++) {
            s2[k] += d2[k];
            s3[k] += d3[k];
        }
    }
    memcpy(d2irr, s2i, sizeof s2i);
    memcpy(d3irr, s3i, sizeof s3i);
    memcpy(d2reg, s2r, sizeof s2r);
    memcpy(d3reg, s3r, sizeof s3r);
}

static void cpu_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                      const double (*x)[3], const double (*v)[3],
                      const double (*a)[3], const double (*jerk)[3],
                      double (*d2irr)[3], double (*d3irr)[3],
                      double (*d2reg)[3], double (*d3reg)[3])
{
    const cpu_nb *c = as_cpu(g);
    #pragma omp parallel for schedule(dynamic, 8)
    for (int k = 0; k < ni; k++)
        fpoly_one(c, idx[k], h2[k], dtr[k], x[k], v[k], a[k], jerk[k],
                  d2irr[k], d3irr[k], d2reg[k], d3reg[k]);
}

/* Potential: each row summed in ascending j with Neumaier's compensation, so
 * the result is good to a few ulp whatever N and the thread count. */
static void cpu_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    (void)g;
    #pragma omp parallel for schedule(dynamic, 8)
    for (int i = 0; i < n; i++) {
        double sum = 0, comp = 0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double dx = x[j][0] - x[i][0], dy = x[j][1] - x[i][1], dz = x[j][2] - x[i][2];
            double term = m[j] / sqrt(dx * dx + dy * dy + dz * dz);
            double t = sum + term;
            if (fabs(sum) >= fabs(term))
                comp += (sum - t) + term;
            else
                comp += (term - t) + sum;
            sum = t;
        }
        pot[i] = sum + comp;
    }
}

/* Irregular force of one body in list order, in double (the arithmetic of
 * GPUIRR's scalar backend: pairterm.h).  Returns 0, or 1 for a slot outside
 * the j-range or r = 0 (r < 1e-100 would overflow r^-3 as well). */
static int irrf_one(const cpu_nb *c, const double xi[3], const double vi[3], int nnb, const int *list,
                    double acc[3], double jrk[3])
{
    double sa[3] = {0, 0, 0}, sj[3] = {0, 0, 0};
    for (int q = 0; q < nnb; q++) {
        int j = list[q];
        if (j < c->jbeg || j >= c->jend) return 1;
        double r[3] = {c->xp[j][0] - xi[0], c->xp[j][1] - xi[1], c->xp[j][2] - xi[2]};
        double v[3] = {c->vp[j][0] - vi[0], c->vp[j][1] - vi[1], c->vp[j][2] - vi[2]};
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (!(r2 > 1e-200)) return 1;
        pair_term_add(c->m[j], r, v, r2, sa, sj);
    }
    for (int k = 0; k < 3; k++) {
        acc[k] = sa[k];
        jrk[k] = sj[k];
    }
    return 0;
}

static int cpu_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
                    const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3])
{
    const cpu_nb *c = as_cpu(g);
    int first = ni; /* the first failing body in the given order, whatever the threads */
    #pragma omp parallel for schedule(dynamic, 64) reduction(min : first) if (ni > 256)
    for (int k = 0; k < ni; k++) {
        if (irrf_one(c, x[k], v[k], nnb[k] > 0 ? nnb[k] : 0, lists[k], a[k], jerk[k])) {
            for (int e = 0; e < 3; e++) a[k][e] = jerk[k][e] = 0.0;
            if (k < first) first = k;
        }
    }
    return first < ni ? first + 1 : 0;
}

static const gpunb_ops cpu_ops = {
    .name = "cpu-ref",
    .close = cpu_close,
    .set_range = cpu_set_range,
    .set_jp = cpu_set_jp,
    .predict = cpu_predict,
    .regf = cpu_regf,
    .fpoly = cpu_fpoly,
    .pot = cpu_pot,
    .irrf = cpu_irrf,
};

gpunb *gpunb_cpu_open(int nmax, int nbmax, char *err, size_t errlen)
{
    if (nmax < 1 || nbmax < 1) {
        snprintf(err, errlen, "gpunb cpu-ref: bad sizes nmax=%d nbmax=%d", nmax, nbmax);
        return NULL;
    }
    cpu_nb *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    size_t n = (size_t)nmax;
    c->m = calloc(n, sizeof *c->m);
    c->t0 = calloc(n, sizeof *c->t0);
    c->tpred = malloc(n * sizeof *c->tpred);
    c->x0 = calloc(n, sizeof *c->x0);
    c->v0 = calloc(n, sizeof *c->v0);
    c->a0 = calloc(n, sizeof *c->a0);
    c->j0 = calloc(n, sizeof *c->j0);
    c->xp = calloc(n, sizeof *c->xp);
    c->vp = calloc(n, sizeof *c->vp);
    if (!c->m || !c->t0 || !c->tpred || !c->x0 || !c->v0 || !c->a0 || !c->j0 || !c->xp || !c->vp) {
        c->base.ops = &cpu_ops;
        cpu_close(&c->base);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) c->tpred[i] = NAN;
    c->base.ops = &cpu_ops;
    c->base.nmax = nmax;
    c->base.nbmax = nbmax;
    c->jbeg = 0;
    c->jend = nmax;
    return &c->base;
oom:
    snprintf(err, errlen, "gpunb cpu-ref: out of memory for %d bodies", nmax);
    return NULL;
}
