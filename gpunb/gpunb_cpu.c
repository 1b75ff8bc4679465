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
#include "gpunb/gpunb_cpu_lanes.h"
#include "gpunb/gpunb_impl.h"
#include "common/pairterm.h"
#include "common/predict.h"

typedef struct cpu_nb {
    struct gpunb base; /* first member: gpunb.c dispatches through it */
    int jbeg, jend;
    double *tpred;     /* time of the predicted state; NaN after set_jp */
    double (*xp)[3], (*vp)[3];
} cpu_nb;

static cpu_nb *as_cpu(gpunb *g) { return (cpu_nb *)g; }
/* the polynomials: the front end's store (gpunb_impl.h) */
static inline const gpunb_jstore *J(const cpu_nb *c) { return c->base.jp; }

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
    free(c->tpred);
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
    (void)t0; (void)x; (void)v; (void)a; (void)jerk; (void)m; /* in the store already */
    cpu_nb *c = as_cpu(g);
    for (int k = 0; k < n; k++) c->tpred[idx[k]] = NAN;
}

static void cpu_predict(gpunb *g, double t)
{
    cpu_nb *c = as_cpu(g);
    /* a parallel region costs microseconds: not worth it for small N */
    #pragma omp parallel for schedule(static) if (c->jend - c->jbeg > 8192)
    for (int j = c->jbeg; j < c->jend; j++) {
        if (c->tpred[j] == t) continue; /* already there: keep the very same state */
        predict3(t - J(c)->t0[j], J(c)->x[j], J(c)->v[j], J(c)->a[j], J(c)->j[j], c->xp[j], c->vp[j]);
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
        if (is_neighbour(r, v, r2, dtr, J(c)->m[j] * h2)) {
            if (n < nbmax) list[n] = j;
            n++;
            continue;
        }
        pair_term_add(J(c)->m[j], r, v, r2, sa, sj);
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
            nnb[k] = -n;
            noverflow++;
        } else {
            nnb[k] = n;
        }
    }
    return noverflow;
}

/* Start-up derivatives (docs/ALGORITHMS.md §7) in batches of FPOLY_LANES
 * i-bodies, each summing its j-bodies in ascending order
 * (gpunb_cpu_lanes.h): the AVX-512 build where the CPU has it, eight
 * bodies a vector, else the baseline build, with the same bits. */
static void fpoly_batch(const cpu_nb *c, int use_avx512, int n, const int *idx, const double *h2,
                        const double *dtr, const double (*x)[3], const double (*v)[3],
                        const double (*a)[3], const double (*jerk)[3],
                        double (*d2irr)[3], double (*d3irr)[3], double (*d2reg)[3], double (*d3reg)[3])
{
    const fpoly_src src = {(const double (*)[3])c->xp, (const double (*)[3])c->vp, (const double (*)[3])J(c)->a,
                           (const double (*)[3])J(c)->j, J(c)->m, c->jbeg, c->jend};
    fpoly_lanes L;
    fpoly_out o;
    L.n = n;
    for (int l = 0; l < FPOLY_LANES; l++) {
        const int k = l < n ? l : 0; /* spare lanes repeat body 0; their sums are dropped */
        L.self[l] = idx[k];
        L.h2[l] = h2[k];
        L.dtr[l] = dtr[k];
        for (int e = 0; e < 3; e++) {
            L.x[e][l] = x[k][e];
            L.v[e][l] = v[k][e];
            L.a[e][l] = a[k][e];
            L.j[e][l] = jerk[k][e];
        }
    }
    if (use_avx512) gpunb_cpu_fpoly_lanes_avx512(&src, &L, &o);
    else fpoly_lanes_run(&src, &L, &o, n);
    for (int l = 0; l < n; l++)
        for (int e = 0; e < 3; e++) {
            d2irr[l][e] = o.d2i[e][l];
            d3irr[l][e] = o.d3i[e][l];
            d2reg[l][e] = o.d2r[e][l];
            d3reg[l][e] = o.d3r[e][l];
        }
}

int gpunb_cpu_has_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static void cpu_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                      const double (*x)[3], const double (*v)[3],
                      const double (*a)[3], const double (*jerk)[3],
                      double (*d2irr)[3], double (*d3irr)[3],
                      double (*d2reg)[3], double (*d3reg)[3])
{
    const cpu_nb *c = as_cpu(g);
    const int use_avx512 = gpunb_cpu_has_avx512(), nbatch = (ni + FPOLY_LANES - 1) / FPOLY_LANES;
    #pragma omp parallel for schedule(dynamic, 1) if (nbatch > 1)
    for (int b = 0; b < nbatch; b++) {
        const int k = b * FPOLY_LANES, n = ni - k < FPOLY_LANES ? ni - k : FPOLY_LANES;
        fpoly_batch(c, use_avx512, n, idx + k, h2 + k, dtr + k, x + k, v + k, a + k, jerk + k, d2irr + k,
                    d3irr + k, d2reg + k, d3reg + k);
    }
}

/* Potential: each row summed in ascending j with Neumaier's compensation, so
 * the result is good to a few ulp whatever N and the thread count; rows in
 * batches of FPOLY_LANES (gpunb_cpu_lanes.h), same bits in either build. */
static void cpu_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    (void)g;
    const int use_avx512 = gpunb_cpu_has_avx512(), nbatch = (n + FPOLY_LANES - 1) / FPOLY_LANES;
    #pragma omp parallel for schedule(dynamic, 1) if (nbatch > 1)
    for (int b = 0; b < nbatch; b++) {
        const int i0 = b * FPOLY_LANES, k = n - i0 < FPOLY_LANES ? n - i0 : FPOLY_LANES;
        if (use_avx512) gpunb_cpu_pot_lanes_avx512(n, m, x, i0, k, pot + i0);
        else pot_lanes_run(n, m, x, i0, k, pot + i0, k);
    }
}

/* The triangle's rows (gpunb_pot_rows), FPOLY_LANES rows a batch; rows
 * shrink with i, so the batches go out one at a time. */
static void cpu_pot_rows(gpunb *g, int n, const double *m, const double (*x)[3], double *row)
{
    (void)g;
    const int use_avx512 = gpunb_cpu_has_avx512(), nbatch = (n + FPOLY_LANES - 1) / FPOLY_LANES;
    #pragma omp parallel for schedule(dynamic, 1) if (nbatch > 1)
    for (int b = 0; b < nbatch; b++) {
        const int i0 = b * FPOLY_LANES, k = n - i0 < FPOLY_LANES ? n - i0 : FPOLY_LANES;
        if (use_avx512) gpunb_cpu_pot_rows_lanes_avx512(n, m, x, i0, k, row + i0);
        else pot_rows_lanes_run(n, m, x, i0, k, row + i0, k);
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
        pair_term_add(J(c)->m[j], r, v, r2, sa, sj);
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
    .pot_rows = cpu_pot_rows,
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
    c->tpred = malloc(n * sizeof *c->tpred);
    c->xp = calloc(n, sizeof *c->xp);
    c->vp = calloc(n, sizeof *c->vp);
    if (!c->tpred || !c->xp || !c->vp || gpunb_base_init(&c->base, &cpu_ops, nmax, nbmax)) {
        cpu_close(&c->base);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) c->tpred[i] = NAN;
    c->jbeg = 0;
    c->jend = nmax;
    return &c->base;
oom:
    snprintf(err, errlen, "gpunb cpu-ref: out of memory for %d bodies", nmax);
    return NULL;
}
