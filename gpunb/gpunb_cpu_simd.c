/* gpunb_cpu_simd.c — the "cpu-simd" GPUNB backend: the regular force, its
 * derivative and the neighbour lists with AVX-512 or AVX2 kernels
 * (gpunb_kern_*.c) and OpenMP, under the same contract as gpunb.h.
 *
 * It predicts the j-bodies' polynomials (the front end's store,
 * gpunb_impl.h) in double (predict3, the integrator's formula) and keeps
 * the predicted state as structure-of-arrays
 * floats: two-float coordinates, float velocities and masses.  The kernels
 * form two-float differences, sum in float over blocks of GPUNB_JBLOCK
 * j-bodies and add the blocks in double; the neighbour test runs in float,
 * so pairs within ~1e-6 relative of the boundary may fall on the other side
 * than in the double reference (docs/ALGORITHMS.md allows 1e-5).  Force error bound
 * on the normalised metric (sum over non-neighbours of m_j/r^2): about
 * 1.5e-6 per term from rsqrt + Newton, plus (GPUNB_JBLOCK/W) 2^-24 from the
 * float block sums, plus 2^-47 |x|/r from the coordinates.
 *
 * Work is split into fixed j-slices of JSLICE bodies whose double partial
 * sums are added in slice order, so a result does not depend on how the
 * work was spread: many i-bodies go one per thread (all slices in order),
 * a few i-bodies (fewer than twice the threads) go one (i, slice) task per
 * thread and are merged afterwards, with bit-identical results.
 *
 * Start-up derivatives (gpunb_fpoly), the potential and the irregular
 * force over given lists (gpunb_irrf) are rare here and need (or may use)
 * double precision: they go to an embedded "cpu-ref" backend that reads this
 * library's j-body store (gpunb_share_store), receives every set_range and
 * set_jp and is predicted only when fpoly needs it.
 *
 * A j-body at r = 0 from i that is not its neighbour (zero mass or h2 = 0)
 * is left out of the sum rather than turned into an infinity.
 *
 * The far test: per block of 16 j-bodies the square root of the largest
 * mass and the largest speed (block_bounds, once per prediction), so that
 * a kernel step whose j-bodies are all out of any neighbour's reach skips
 * the neighbour test (gpunb_simd.h; same bits), in calls big enough for it
 * to pay (FAR_MIN_NI, FAR_MIN_NJ).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "gpunb/gpunb_impl.h"
#include "gpunb/gpunb_simd.h"
#include "common/predict.h"

enum { JSLICE = 4096 }; /* multiple of every SIMD width */
enum { FAR_MIN_NI = 32, FAR_MIN_NJ = 8192 }; /* from which a call uses the far test */

typedef struct simd_nb {
    struct gpunb base;
    gpunb *ref;                 /* cpu-ref: fpoly and pot */
    double ref_t;               /* time the ref was last predicted to, NaN: never */
    double last_t;              /* time of the last gpunb_predict */
    gpunb_kernel_fn kern;
    int jbeg, jend;
    double *tpred;              /* time of the predicted state; NaN after set_jp */
    float *f[10];               /* xh yh zh xl yl zl vx vy vz m, nmax + GPUNB_JPAD each */
    gpunb_soa soa;
    float *sqm, *vmax;          /* per 16 j-bodies from jbeg: gpunb_soa's bounds */
    int bounds_ok;              /* they match the predicted state and jbeg */
    int far_off;                /* gpunb_cpu_simd_set_far(g, 0): bounds that never skip */
    /* sliced mode scratch: ni * nslices partial results */
    size_t scratch_cap;
    double (*pacc)[3], (*pjrk)[3];
    int *pcnt, *plist;
} simd_nb;

static simd_nb *as_simd(gpunb *g) { return (simd_nb *)g; }

static void simd_close(gpunb *g)
{
    simd_nb *s = as_simd(g);
    if (s->ref) gpunb_close(s->ref);
    free(s->tpred);
    for (int q = 0; q < 10; q++) free(s->f[q]);
    free(s->sqm); free(s->vmax);
    free(s->pacc); free(s->pjrk); free(s->pcnt); free(s->plist);
    free(s);
}

static void simd_set_range(gpunb *g, int jbeg, int jend)
{
    simd_nb *s = as_simd(g);
    if (jbeg < 0) jbeg = 0;
    if (jend > g->nmax) jend = g->nmax;
    if (jend < jbeg) jend = jbeg;
    s->jbeg = jbeg;
    s->jend = jend;
    s->bounds_ok = 0;
    gpunb_set_range(s->ref, jbeg, jend);
    s->ref_t = NAN;
}

static void simd_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                        const double (*x)[3], const double (*v)[3],
                        const double (*a)[3], const double (*jerk)[3], const double *m)
{
    simd_nb *s = as_simd(g);
    for (int k = 0; k < n; k++) s->tpred[idx[k]] = NAN;
    s->ref->ops->set_jp(s->ref, n, idx, t0, x, v, a, jerk, m); /* the store is shared */
    s->ref_t = NAN;
}

static void simd_predict(gpunb *g, double t)
{
    simd_nb *s = as_simd(g);
    const gpunb_jstore *js = g->jp;
    #pragma omp parallel for schedule(static) if (s->jend - s->jbeg > 8192)
    for (int j = s->jbeg; j < s->jend; j++) {
        if (s->tpred[j] == t) continue;
        double x[3], v[3];
        predict3(t - js->t0[j], js->x[j], js->v[j], js->a[j], js->j[j], x, v);
        for (int k = 0; k < 3; k++) {
            float hi = (float)x[k];
            s->f[k][j] = hi;
            s->f[3 + k][j] = (float)(x[k] - (double)hi);
            s->f[6 + k][j] = (float)v[k];
        }
        s->f[9][j] = (float)js->m[j];
        s->tpred[j] = t;
    }
    s->last_t = t;
    s->bounds_ok = 0;
}

/* The kernels' per-block bounds (gpunb_soa), for the predicted state:
 * once per regular force after a prediction or a new j-range. */
static void block_bounds(simd_nb *s)
{
    const int nb = (s->jend - s->jbeg + 15) / 16;
    const float *vx = s->f[6], *vy = s->f[7], *vz = s->f[8], *m = s->f[9];
    #pragma omp parallel for schedule(static) if (nb > 2048)
    for (int b = 0; b < nb; b++) {
        const int j0 = s->jbeg + 16 * b, j1 = j0 + 16 < s->jend ? j0 + 16 : s->jend;
        float mm = 0.0f, v2 = 0.0f;
        for (int j = j0; j < j1; j++) {
            mm = fmaxf(mm, m[j]);
            v2 = fmaxf(v2, vx[j] * vx[j] + vy[j] * vy[j] + vz[j] * vz[j]);
        }
        s->sqm[b] = s->far_off ? INFINITY : sqrtf(mm);
        s->vmax[b] = sqrtf(v2);
    }
    s->soa.bbase = s->jbeg;
    s->bounds_ok = 1;
}

static void prep_i(int self, double h2, double dtr, const double x[3], const double v[3], gpunb_iprep *ip)
{
    for (int k = 0; k < 3; k++) {
        float hi = (float)x[k];
        ip->xh[k] = hi;
        ip->xl[k] = (float)(x[k] - (double)hi);
        ip->v[k] = (float)v[k];
    }
    ip->h2 = (float)h2;
    ip->dtr = (float)dtr;
    ip->sqh = sqrtf(ip->h2);
    ip->speed = sqrtf(ip->v[0] * ip->v[0] + ip->v[1] * ip->v[1] + ip->v[2] * ip->v[2]);
    ip->self = self;
}

static int slice_count(const simd_nb *s)
{
    return (s->jend - s->jbeg + JSLICE - 1) / JSLICE;
}

/* Slice sl of the j-range of body k: partial sums and its neighbours. */
static int run_slice(const simd_nb *s, int sl, const gpunb_iprep *ip, double acc[3], double jrk[3],
                     int *list, int room)
{
    int j0 = s->jbeg + sl * JSLICE, j1 = j0 + JSLICE < s->jend ? j0 + JSLICE : s->jend;
    return s->kern(&s->soa, j0, j1, ip, acc, jrk, list, room);
}

/* One i-body, all slices in order: the reference order of the sums. */
static int regf_whole(const simd_nb *s, const gpunb_iprep *ip, double acc[3], double jrk[3], int *list)
{
    const int nbmax = s->base.nbmax, nsl = slice_count(s);
    double a[3] = {0, 0, 0}, j[3] = {0, 0, 0};
    int n = 0;
    for (int sl = 0; sl < nsl; sl++) {
        double pa[3], pj[3];
        int room = n < nbmax ? nbmax - n : 0;
        n += run_slice(s, sl, ip, pa, pj, list + (n < nbmax ? n : nbmax), room);
        for (int k = 0; k < 3; k++) { a[k] += pa[k]; j[k] += pj[k]; }
    }
    memcpy(acc, a, sizeof a);
    memcpy(jrk, j, sizeof j);
    return n;
}

static int grow_scratch(simd_nb *s, size_t tasks)
{
    if (tasks <= s->scratch_cap) return 0;
    free(s->pacc); free(s->pjrk); free(s->pcnt); free(s->plist);
    s->pacc = malloc(tasks * sizeof *s->pacc);
    s->pjrk = malloc(tasks * sizeof *s->pjrk);
    s->pcnt = malloc(tasks * sizeof *s->pcnt);
    s->plist = malloc(tasks * (size_t)s->base.nbmax * sizeof *s->plist);
    s->scratch_cap = (s->pacc && s->pjrk && s->pcnt && s->plist) ? tasks : 0;
    return s->scratch_cap ? 0 : -1;
}

/* Few i-bodies: one task per (i, slice), then the slices merged in order,
 * exactly as regf_whole would have added them. */
static int regf_sliced(simd_nb *s, int ni, const int *idx, const double *h2, const double *dtr,
                       const double (*x)[3], const double (*v)[3],
                       double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    const int nsl = slice_count(s), nbmax = s->base.nbmax;
    const int ntask = ni * nsl;
    #pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < ntask; t++) {
        int k = t / nsl, sl = t % nsl;
        gpunb_iprep ip;
        prep_i(idx[k], h2[k], dtr[k], x[k], v[k], &ip);
        s->pcnt[t] = run_slice(s, sl, &ip, s->pacc[t], s->pjrk[t], s->plist + (size_t)t * nbmax, nbmax);
    }
    int noverflow = 0;
    for (int k = 0; k < ni; k++) {
        double acc[3] = {0, 0, 0}, jrk[3] = {0, 0, 0};
        int n = 0, *out = list + (size_t)k * nbmax;
        for (int sl = 0; sl < nsl; sl++) {
            int t = k * nsl + sl, cnt = s->pcnt[t];
            int take = n >= nbmax ? 0 : (cnt < nbmax - n ? cnt : nbmax - n);
            memcpy(out + n, s->plist + (size_t)t * nbmax, (size_t)take * sizeof *out);
            n += cnt;
            for (int c = 0; c < 3; c++) { acc[c] += s->pacc[t][c]; jrk[c] += s->pjrk[t][c]; }
        }
        memcpy(a[k], acc, sizeof acc);
        memcpy(jerk[k], jrk, sizeof jrk);
        nnb[k] = n > nbmax ? -n : n;
        noverflow += n > nbmax;
    }
    return noverflow;
}

static int simd_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                     const double (*x)[3], const double (*v)[3],
                     double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    simd_nb *s = as_simd(g);
    const int nsl = slice_count(s);
    /* The far test pays where most steps are far: with many j-bodies (a
     * step of 16 random j-bodies then rarely holds one within reach) and
     * enough i-bodies for the bounds (about one i-body's kernel).  Where
     * half the steps are far the branch is mispredicted half the time:
     * N = 2048, one thread, the regular force was 21 % slower with it; at
     * 4096 no different; at 16k and 32k 6.5 and 7.7 % faster. */
    if (ni >= FAR_MIN_NI && s->jend - s->jbeg >= FAR_MIN_NJ) {
        if (!s->bounds_ok) block_bounds(s);
        s->soa.sqm = s->sqm;
    } else {
        s->soa.sqm = NULL;
    }
    if (nsl > 1 && ni < 2 * omp_get_max_threads() && grow_scratch(s, (size_t)ni * nsl) == 0)
        return regf_sliced(s, ni, idx, h2, dtr, x, v, a, jerk, nnb, list);
    const size_t nbmax = (size_t)g->nbmax;
    int noverflow = 0;
    #pragma omp parallel for schedule(dynamic, 4) reduction(+ : noverflow) \
        if (ni > 1 && (long)ni * (s->jend - s->jbeg) > 32768)
    for (int k = 0; k < ni; k++) {
        gpunb_iprep ip;
        prep_i(idx[k], h2[k], dtr[k], x[k], v[k], &ip);
        int n = regf_whole(s, &ip, a[k], jerk[k], list + (size_t)k * nbmax);
        nnb[k] = n > g->nbmax ? -n : n;
        noverflow += n > g->nbmax;
    }
    return noverflow;
}

static void simd_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                       const double (*x)[3], const double (*v)[3],
                       const double (*a)[3], const double (*jerk)[3],
                       double (*d2irr)[3], double (*d3irr)[3],
                       double (*d2reg)[3], double (*d3reg)[3])
{
    simd_nb *s = as_simd(g);
    if (!(s->ref_t == s->last_t)) {
        gpunb_predict(s->ref, s->last_t);
        s->ref_t = s->last_t;
    }
    gpunb_fpoly(s->ref, ni, idx, h2, dtr, x, v, a, jerk, d2irr, d3irr, d2reg, d3reg);
}

static void simd_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    gpunb_pot(as_simd(g)->ref, n, m, x, pot);
}

static void simd_pot_rows(gpunb *g, int n, const double *m, const double (*x)[3], double *row)
{
    gpunb_pot_rows(as_simd(g)->ref, n, m, x, row);
}

/* The irregular force over given lists: the reference's double sums (the
 * CPU's irregular force is GPUIRR's job; this is here for the API). */
static int simd_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
                     const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3])
{
    simd_nb *s = as_simd(g);
    if (!(s->ref_t == s->last_t)) {
        gpunb_predict(s->ref, s->last_t);
        s->ref_t = s->last_t;
    }
    return gpunb_irrf(s->ref, ni, x, v, nnb, lists, a, jerk);
}

static const gpunb_ops simd_ops = {
    .name = "cpu-simd",
    .close = simd_close,
    .set_range = simd_set_range,
    .set_jp = simd_set_jp,
    .predict = simd_predict,
    .regf = simd_regf,
    .fpoly = simd_fpoly,
    .pot = simd_pot,
    .pot_rows = simd_pot_rows,
    .irrf = simd_irrf,
};

static gpunb_kernel_fn best_kernel(void)
{
    __builtin_cpu_init();
    if (gpunb_cpu_has_avx512()) return gpunb_kern_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return gpunb_kern_avx2;
    return NULL;
}

void gpunb_cpu_simd_set_far(gpunb *g, int on)
{
    simd_nb *s = as_simd(g);
    s->far_off = !on;
    s->bounds_ok = 0;
}

gpunb *gpunb_cpu_simd_open(int nmax, int nbmax, char *err, size_t errlen)
{
    return gpunb_cpu_simd_open_width(nmax, nbmax, 0, err, errlen);
}

gpunb *gpunb_cpu_simd_open_width(int nmax, int nbmax, int width, char *err, size_t errlen)
{
    gpunb_kernel_fn kern = best_kernel();
    if (!kern) {
        snprintf(err, errlen, "gpunb cpu-simd: this CPU lacks AVX2 and FMA (use cpu-ref)");
        return NULL;
    }
    if (width == 8) kern = gpunb_kern_avx2;
    if (width == 16 && kern != gpunb_kern_avx512) {
        snprintf(err, errlen, "gpunb cpu-simd: this CPU lacks AVX-512");
        return NULL;
    }
    simd_nb *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    if (gpunb_base_init(&s->base, &simd_ops, nmax, nbmax)) { free(s); goto oom; }
    s->ref = gpunb_cpu_open(nmax, nbmax, err, errlen);
    if (!s->ref) { gpunb_base_free(&s->base); free(s); return NULL; }
    gpunb_share_store(s->ref, &s->base);
    size_t n = (size_t)nmax;
    s->tpred = malloc(n * sizeof *s->tpred);
    s->sqm = malloc((n / 16 + 1) * sizeof *s->sqm);
    s->vmax = malloc((n / 16 + 1) * sizeof *s->vmax);
    int ok = s->tpred && s->sqm && s->vmax;
    for (int q = 0; q < 10; q++) {
        s->f[q] = aligned_alloc(64, ((n + GPUNB_JPAD) * sizeof(float) + 63) / 64 * 64);
        if (s->f[q]) memset(s->f[q], 0, (n + GPUNB_JPAD) * sizeof(float));
        ok = ok && s->f[q];
    }
    if (!ok) { gpunb_base_free(&s->base); simd_close(&s->base); goto oom; }
    for (size_t i = 0; i < n; i++) s->tpred[i] = NAN;
    s->soa = (gpunb_soa){s->f[0], s->f[1], s->f[2], s->f[3], s->f[4], s->f[5], s->f[6], s->f[7], s->f[8], s->f[9],
                         s->sqm, s->vmax, 0};
    s->kern = kern;
    s->jbeg = 0;
    s->jend = nmax;
    s->ref_t = NAN;
    s->last_t = NAN;
    return &s->base;
oom:
    snprintf(err, errlen, "gpunb cpu-simd: out of memory for %d bodies", nmax);
    return NULL;
}
