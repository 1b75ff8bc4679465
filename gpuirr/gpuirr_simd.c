/* gpuirr_simd.c — the SIMD GPUIRR backends "sse", "avx2", "avx512": per-body
 * state, prediction in double, two-float packing of the predicted state,
 * CPU feature detection and the OpenMP loop over active bodies that calls
 * the chosen kernel (gpuirr_kern_*.c, one body per call, SIMD over its
 * neighbours).
 *
 * Precision.  Prediction is double (predict3, the integrator's own formula),
 * then each coordinate is stored as x_hi = (float)x, x_lo = (float)(x - x_hi)
 * and the velocity as a float.  A kernel forms dx = (xj_hi - xi_hi) +
 * (xj_lo - xi_lo): for nearby bodies the hi difference is exact (Sterbenz),
 * so dx carries an absolute error of about 2^-47 |x| (the two lo roundings)
 * plus one float rounding, 2^-24 |dx|.  The rest is float: r^-1 from the
 * hardware estimate (relative error e0 <= 1.5*2^-12 on SSE/AVX2, 2^-14 for
 * AVX-512's rsqrt14; <= 2^-11 allowed for) and one Newton step, whose
 * relative error is 1.5 e0^2 + a few roundings <= 5.5e-7; r^-3 then
 * <= 1.7e-6, and each term m r/r^3 <= 2e-6 relative.  Sums run in float per
 * lane for at most GPUIRR_FLUSH = 16 SIMD steps, then in double, in a fixed
 * order.  Bound on the normalised error (docs/ALGORITHMS.md), for any list length:
 *     |dF_i| / sum_j m_j/r_ij^2  <=  2e-6 + 17 * 2^-24 + 2^-46 |x_i|/r_min
 *                                <=  3.2e-6
 * (worst case, errors adding linearly; they behave as a random walk,
 * measured RMS ~1e-7, tests/test_gpuirr_simd.c).  The jerk obeys the same
 * bound relative to sum_j m_j (|v_ij| + 3|r.v|/r)/r^3, plus the velocity
 * term: velocities are plain floats, so v_ij carries an absolute error of
 * 2^-24 (|v_i| + |v_j|) and a term's relative jerk error grows as
 * 2^-24 |v|/|v_ij|.  Close pairs move at orbital speeds (|v_ij| ~ |v| or
 * more) and keep the bound; a co-moving pair with |v_ij| < 1e-2 |v| would not
 * (measured 6e-4 with |v_ij| = 1e-4 |v|), which is why the test's close
 * pairs move at orbital speed.
 *
 * The last term above is why a neighbour closer than r_min = 1e-7 |x_i| (or
 * 1e-10 absolute: float r^-3 would overflow long before 1e-13) sends body i
 * to a double-precision sum here instead (so the bound holds at any
 * separation); that is also where a coincident pair (r = 0) is detected and
 * reported.
 *
 * Results depend only on the inputs: each body is summed by one thread in
 * list order, lanes combined in a fixed order.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "gpuirr/gpuirr_simd.h"
#include "common/parallel.h"
#include "common/predict.h"
#include "common/tuning.h"

/* pred_act predicts the union of the active bodies and their lists.  When
 * sum over the block of (1 + nnb) passes this fraction of the used slots it
 * predicts every used slot instead (the paper's NPACT switch).  With the
 * parallel marking of big blocks (pred_marked) the union costs about what
 * predicting it costs, so the switch comes only when the lists' entries
 * outnumber the slots.  (Measured before, with a serial or atomic-claim
 * gathering: 0.3 N was the break-even on 2 to 16 threads.) */
#define NPACT_FRACTION 1.0

/* A slot's polynomial and the time its record was predicted to (NaN: not
 * since set_jp), in two cache lines: a prediction touches these and the
 * 64-byte record, nothing else. */
typedef struct jbody {
    double t0, m, tpred;
    double x[3], v[3], a[3], j[3];
    double pad;
} jbody;

_Static_assert(sizeof(jbody) == 128, "jbody: two cache lines");

typedef struct simd_irr {
    gpuirr base;
    gpuirr_kernel_fn kern;
    int stride;            /* list stride: nbmax rounded up to GPUIRR_LIST_PAD */
    int nused;             /* 1 + highest slot given by set_jp or set_list */
    jbody *jb;                  /* polynomials, one 128-byte record per slot */
    float *rec;                 /* predicted records, GPUIRR_REC floats per slot */
    int *nnb, *list;
    unsigned *stamp;            /* pred_act: which slots this call has collected */
    unsigned epoch;
    double npact_fraction;      /* NPACT_FRACTION, or a benchmark's choice */
    long owned_min, owned_max;  /* list entries for pred_owned (NBODY6C_PRED_OWNED) */
    int *bad;                   /* scratch, nmax */
} simd_irr;

static simd_irr *state(gpuirr *g) { return (simd_irr *)g; }

int gpuirr_simd_supported(gpuirr_simd path)
{
    __builtin_cpu_init();
    switch (path) {
    case GPUIRR_SCALAR: return 1;
    case GPUIRR_SSE: return __builtin_cpu_supports("sse4.1") != 0;
    case GPUIRR_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GPUIRR_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
    default: return 0;
    }
}

static void simd_close(gpuirr *g)
{
    simd_irr *s = state(g);
    free(s->jb);
    free(s->rec); free(s->nnb); free(s->list);
    free(s->stamp); free(s->bad);
    free(s);
}

/* An atomic maximum: set_jp may run in parallel for distinct slots. */
static void note_used(simd_irr *s, int i)
{
    int cur = __atomic_load_n(&s->nused, __ATOMIC_RELAXED);
    while (i + 1 > cur &&
           !__atomic_compare_exchange_n(&s->nused, &cur, i + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static void simd_set_jp(gpuirr *g, int i, double t0, const double x[3], const double v[3],
                        const double a[3], const double jerk[3], double m)
{
    simd_irr *s = state(g);
    jbody *b = &s->jb[i];
    b->t0 = t0;
    b->m = m;
    for (int k = 0; k < 3; k++) {
        b->x[k] = x[k]; b->v[k] = v[k];
        b->a[k] = a[k]; b->j[k] = jerk[k];
    }
    b->tpred = NAN;
    note_used(s, i);
}

static void simd_set_list(gpuirr *g, int i, int nnb, const int *list)
{
    simd_irr *s = state(g);
    int *row = s->list + (size_t)i * s->stride;
    int ok = nnb >= 0 && nnb <= g->nbmax;
    for (int k = 0; ok && k < nnb; k++) {
        ok = list[k] >= 0 && list[k] < g->nmax;
        row[k] = list[k];
        if (ok) note_used(s, list[k]);
    }
    if (!ok) nnb = 0;
    /* padding up to the kernels' widest step: valid addresses, masked (the
     * rest of the row is never read, so it is not rewritten every call) */
    int padded = (nnb + GPUIRR_LIST_PAD - 1) / GPUIRR_LIST_PAD * GPUIRR_LIST_PAD;
    for (int k = nnb; k < padded; k++) row[k] = i;
    /* never truncate silently: firr reports a list it could not take */
    s->nnb[i] = ok ? nnb : -1;
    note_used(s, i);
}

/* Predicts slot i to t in double and packs its record. */
static void predict_one(simd_irr *s, int i, double t)
{
    jbody *b = &s->jb[i];
    if (b->tpred == t) return;
    double x[3], v[3];
    predict3(t - b->t0, b->x, b->v, b->a, b->j, x, v);
    float *r = s->rec + (size_t)i * GPUIRR_REC;
    for (int k = 0; k < 3; k++) {
        float hi = (float)x[k];
        r[k] = hi;
        r[4 + k] = (float)(x[k] - (double)hi);
        r[8 + k] = (float)v[k];
    }
    r[3] = (float)b->m;
    b->tpred = t;
}

/* Slot i's state at its last prediction, in double (recomputed: the same
 * numbers predict_one packed). */
static void predicted_state(const simd_irr *s, int i, double x[3], double v[3])
{
    const jbody *b = &s->jb[i];
    predict3(b->tpred - b->t0, b->x, b->v, b->a, b->j, x, v);
}

enum { PRED_GRAIN = 2048 };  /* predictions worth a parallel loop (parallel.h) */

static void simd_pred_all(gpuirr *g, int jbeg, int jend, double t)
{
    simd_irr *s = state(g);
    #pragma omp parallel for schedule(static) if (par_worth(jend - jbeg, PRED_GRAIN))
    for (int i = jbeg; i < jend; i++) predict_one(s, i, t);
}

/* How far ahead the serial prediction fetches: a prediction is a handful of
 * random cache misses (the slot's record and polynomial), which one core
 * otherwise waits for one after the other. */
enum { PREFETCH_AHEAD = 8 };

static inline void prefetch_slot(const simd_irr *s, int j)
{
    __builtin_prefetch(&s->jb[j]);
    __builtin_prefetch((const char *)&s->jb[j] + 64);
    __builtin_prefetch(s->rec + (size_t)j * GPUIRR_REC, 1);
}

/* Predicts the slots u[0..n) (distinct), each record fetched PREFETCH_AHEAD
 * predictions before it is needed. */
static void predict_ahead(simd_irr *s, const int *u, int n, double t)
{
    for (int k = 0; k < n; k++) {
        if (k + PREFETCH_AHEAD < n) prefetch_slot(s, u[k + PREFETCH_AHEAD]);
        predict_one(s, u[k], t);
    }
}

static unsigned next_epoch(simd_irr *s)
{
    if (++s->epoch == 0) {
        memset(s->stamp, 0, sizeof *s->stamp * (size_t)s->base.nmax);
        s->epoch = 1;
    }
    return s->epoch;
}

/* The union of the bodies ilist[] and their lists, each slot once (marked in
 * stamp), into u; returns its size.  For small blocks, on one thread. */
static int gather_union(simd_irr *s, int ni, const int *ilist, int *u)
{
    const unsigned epoch = next_epoch(s);
    int nu = 0;
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        if (s->stamp[i] != epoch) { s->stamp[i] = epoch; u[nu++] = i; }
        const int *row = s->list + (size_t)i * s->stride;
        for (int q = 0; q < s->nnb[i]; q++) { /* nnb < 0: none */
            int j = row[q];
            if (s->stamp[j] != epoch) { s->stamp[j] = epoch; u[nu++] = j; }
        }
    }
    return nu;
}

/* Slots per piece of pred_marked's sweep: the marked ones of a piece are
 * collected first, so that their records can be fetched ahead. */
enum { SWEEP_PIECE = 512 };

/* The marked slots of [lo, hi) predicted in ascending order.  Marks are
 * sparse in a medium block (a few thousand of N), so the hardware
 * prefetcher does not guess the next record: without the fetch ahead each
 * prediction waited for its record (measured: ~40 % of predict_one's time
 * on the load of its tpred). */
static void predict_marked_piece(simd_irr *s, int lo, int hi, unsigned epoch, double t)
{
    int u[SWEEP_PIECE], n = 0;
    for (int j = lo; j < hi; j++)
        if (__atomic_load_n(&s->stamp[j], __ATOMIC_RELAXED) == epoch) u[n++] = j;
    predict_ahead(s, u, n, t);
}

/* A big block, in parallel: each thread marks the slots its share of the
 * block needs (relaxed stores of one value: no read-modify-write, no
 * order), then a sweep over the used slots predicts the marked ones.  A
 * serial gathering of the union measured ~300 us a block at N = 128k on the
 * GPU machine, as long as predicting everybody. */
static void pred_marked(simd_irr *s, int ni, const int *ilist, double t)
{
    const unsigned epoch = next_epoch(s);
    const int nused = s->nused;
    const int npieces = (nused + SWEEP_PIECE - 1) / SWEEP_PIECE;
    #pragma omp parallel
    {
        #pragma omp for schedule(static)
        for (int k = 0; k < ni; k++) {
            int i = ilist[k];
            __atomic_store_n(&s->stamp[i], epoch, __ATOMIC_RELAXED);
            const int *row = s->list + (size_t)i * s->stride;
            for (int q = 0; q < s->nnb[i]; q++) __atomic_store_n(&s->stamp[row[q]], epoch, __ATOMIC_RELAXED);
        }
        /* the loop's barrier: every mark is in before the sweep */
        #pragma omp for schedule(static)
        for (int p = 0; p < npieces; p++) {
            int lo = p * SWEEP_PIECE, hi = lo + SWEEP_PIECE < nused ? lo + SWEEP_PIECE : nused;
            predict_marked_piece(s, lo, hi, epoch, t);
        }
    }
}

/* A gathered union of a few hundred slots, split over a big team (see
 * par_worth_members): on the 16-core GPU hosts a block of 9-64 members
 * spent ~39 us predicting on one thread at 32k; split over 16 threads that
 * phase fell by 26-35 % at 32k and the 2-8 and 9-64-member phases by
 * 7-12 % at 128k (docs/notes/benchmarks-history.md); on the 2-core dev machine it did
 * not pay. */
static void predict_union_parallel(simd_irr *s, const int *u, int nu, double t)
{
    #pragma omp parallel
    {
        const int T = omp_get_num_threads(), r = omp_get_thread_num();
        const int lo = (int)((long)nu * r / T), hi = (int)((long)nu * (r + 1) / T);
        predict_ahead(s, u + lo, hi - lo, t);
    }
}

/* Slots a thread of pred_owned collects before it predicts them. */
enum { OWN_BATCH = 256 };

/* The union on a big team, each thread predicting the slots of its own
 * share [r nused / T, (r + 1) nused / T) of the slot range: every thread
 * reads the block's lists (shared, read-only) and predicts only its
 * share's entries (a slot named twice is predicted once: predict_one
 * checks tpred).  That share is the one the static loops over slots give
 * the same thread (pred_all, pred_marked's sweep) and, roughly, the big
 * blocks' static loops over ascending members (corrector, hand-back), so
 * the slot's polynomial and record are in that core's own cache.  One
 * core predicting them all waited on other cores' caches (~100 ns a slot
 * on the 16-core GPU hosts), and pred_marked's marks were stores into
 * other cores' lines. */
static void pred_owned(simd_irr *s, int ni, const int *ilist, double t)
{
    const int nused = s->nused;
    #pragma omp parallel
    {
        const int T = omp_get_num_threads(), r = omp_get_thread_num();
        const int lo = (int)((long)nused * r / T);
        const unsigned span = (unsigned)((long)nused * (r + 1) / T - lo);
        int u[OWN_BATCH], n = 0;
        for (int k = 0; k < ni; k++) {
            const int i = ilist[k];
            if ((unsigned)(i - lo) < span) u[n++] = i;
            const int *row = s->list + (size_t)i * s->stride;
            for (int q = 0; q < s->nnb[i]; q++) { /* nnb < 0: none */
                if (n == OWN_BATCH) {
                    predict_ahead(s, u, n, t);
                    n = 0;
                }
                if ((unsigned)(row[q] - lo) < span) u[n++] = row[q];
            }
            if (n > OWN_BATCH - 1) {
                predict_ahead(s, u, n, t);
                n = 0;
            }
        }
        predict_ahead(s, u, n, t);
    }
}

static void simd_pred_act(gpuirr *g, int ni, const int *ilist, double t)
{
    simd_irr *s = state(g);
    long work = 0;
    for (int k = 0; k < ni; k++) work += 1 + (s->nnb[ilist[k]] > 0 ? s->nnb[ilist[k]] : 0);
    if ((double)work > s->npact_fraction * s->nused) {
        simd_pred_all(g, 0, s->nused, t);
        return;
    }
    if (work >= s->owned_min && work <= s->owned_max && omp_get_max_threads() >= BIG_TEAM) {
        pred_owned(s, ni, ilist, t);
        return;
    }
    if (par_worth(work, PRED_GRAIN)) {
        pred_marked(s, ni, ilist, t);
        return;
    }
    int *u = s->bad; /* scratch of nmax ints: no firr runs meanwhile */
    const int nu = gather_union(s, ni, ilist, u);
    if (nu < PRED_GRAIN && par_worth_members(nu, PRED_GRAIN)) {
        predict_union_parallel(s, u, nu, t);
        return;
    }
    predict_ahead(s, u, nu, t);
}

/* Body i's irregular force in double from the predicted double state: the
 * path for neighbours too close for the float kernels.  Returns 0, or j + 1
 * for the first neighbour j that coincides with i. */
static int firr_double(const simd_irr *s, int i, double a[3], double jerk[3])
{
    const int *row = s->list + (size_t)i * s->stride;
    double xi[3], vi[3];
    predicted_state(s, i, xi, vi);
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    for (int q = 0; q < s->nnb[i]; q++) {
        int j = row[q];
        double xj[3], vj[3];
        predicted_state(s, j, xj, vj);
        double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
        double dvx = vj[0] - vi[0], dvy = vj[1] - vi[1], dvz = vj[2] - vi[2];
        double r2 = dx * dx + dy * dy + dz * dz;
        /* r < 1e-100 (or r = 0) would overflow r^-3: treat as coincident */
        if (!(r2 > 1e-200)) return j + 1;
        double rinv2 = 1.0 / r2;
        double mr3 = s->jb[j].m * rinv2 * sqrt(rinv2);
        double alpha = 3.0 * (dx * dvx + dy * dvy + dz * dvz) * rinv2;
        ax += mr3 * dx; ay += mr3 * dy; az += mr3 * dz;
        jx += mr3 * (dvx - alpha * dx); jy += mr3 * (dvy - alpha * dy); jz += mr3 * (dvz - alpha * dz);
    }
    a[0] = ax; a[1] = ay; a[2] = az;
    jerk[0] = jx; jerk[1] = jy; jerk[2] = jz;
    return 0;
}

/* Squared distance below which the float kernel hands body i to firr_double:
 * (1e-7 |x_i|)^2 keeps the two-float error of dx under 1e-7 relative, and
 * the 1e-10 floor keeps float r^-3 finite. */
static float close_r2(const float *rec)
{
    double x[3] = {(double)rec[0] + rec[4], (double)rec[1] + rec[5], (double)rec[2] + rec[6]};
    return (float)(1e-14 * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) + 1e-20);
}

/* Neighbour pairs worth a parallel force loop (parallel.h): ~1 us of work. */
enum { FIRR_GRAIN = 2048 };

/* Reasons a body's force could not be computed, kept in s->bad[k]: 0 none,
 * BAD_LIST, or j + 1 for a neighbour j that coincides with it. */
enum { BAD_LIST = -1 };

static int simd_firr(gpuirr *g, int ni, const int *ilist, double (*a)[3], double (*jerk)[3])
{
    simd_irr *s = state(g);
    const gpuirr_kernel_fn kern = s->kern;
    long pairs = 0;
    for (int k = 0; k < ni; k++) pairs += 1 + (s->nnb[ilist[k]] > 0 ? s->nnb[ilist[k]] : 0);
    #pragma omp parallel for schedule(dynamic, 8) if (par_worth(pairs, FIRR_GRAIN))
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        const int *row = s->list + (size_t)i * s->stride;
        s->bad[k] = 0;
        if (s->nnb[i] < 0) {
            s->bad[k] = BAD_LIST;
            for (int c = 0; c < 3; c++) a[k][c] = jerk[k][c] = 0.0;
        } else if (kern(s->rec, i, s->nnb[i], row, close_r2(s->rec + (size_t)i * GPUIRR_REC), a[k], jerk[k])) {
            s->bad[k] = firr_double(s, i, a[k], jerk[k]);
        }
    }
    /* the first failing body in ilist order is reported, whatever the threads */
    int first = -1;
    for (int k = 0; k < ni; k++) {
        if (!s->bad[k]) continue;
        if (s->bad[k] > 0) for (int c = 0; c < 3; c++) a[k][c] = jerk[k][c] = 0.0;
        if (first < 0) first = k;
    }
    if (first < 0) {
        g->error[0] = '\0';
        return 0;
    }
    int i = ilist[first];
    if (s->bad[first] == BAD_LIST)
        snprintf(g->error, sizeof g->error,
                 "body %d has no valid neighbour list (set_list got a count outside 0..%d "
                 "or a slot outside 0..%d)", i, g->nbmax, g->nmax - 1);
    else {
        double x[3], v[3];
        predicted_state(s, i, x, v);
        snprintf(g->error, sizeof g->error, "bodies %d and %d coincide at (%.17g, %.17g, %.17g)",
                 i, s->bad[first] - 1, x[0], x[1], x[2]);
    }
    return -1;
}

static const gpuirr_ops ops_sse = {"sse", simd_close, simd_set_jp, simd_set_list,
                                   simd_pred_all, simd_pred_act, simd_firr};
static const gpuirr_ops ops_avx2 = {"avx2", simd_close, simd_set_jp, simd_set_list,
                                    simd_pred_all, simd_pred_act, simd_firr};
static const gpuirr_ops ops_avx512 = {"avx512", simd_close, simd_set_jp, simd_set_list,
                                      simd_pred_all, simd_pred_act, simd_firr};

/* Memory for the arrays read at random (polynomials, records, lists):
 * 2 MB aligned and, where the kernel allows, on transparent huge pages, so
 * random neighbour access does not also miss the TLB. */
static void *alloc_random_access(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t rounded = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, rounded);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

static int alloc_arrays(simd_irr *s, int nmax)
{
    size_t n = (size_t)nmax;
    size_t recbytes = (n * GPUIRR_REC * sizeof(float) + 63) / 64 * 64;
    s->jb = alloc_random_access(n * sizeof *s->jb);
    s->rec = alloc_random_access(recbytes);
    s->nnb = calloc(n, sizeof *s->nnb);
    s->list = alloc_random_access(n * (size_t)s->stride * sizeof *s->list);
    s->stamp = calloc(n, sizeof *s->stamp);
    s->bad = malloc(n * sizeof *s->bad);
    if (!s->jb || !s->rec || !s->nnb || !s->list || !s->stamp || !s->bad)
        return -1;
    for (size_t i = 0; i < n; i++) s->jb[i] = (jbody){.tpred = NAN};
    memset(s->rec, 0, recbytes);
    for (int i = 0; i < nmax; i++)
        for (int k = 0; k < s->stride; k++) s->list[(size_t)i * s->stride + k] = i;
    return 0;
}

/* NPACT_FRACTION, or NBODY6C_NPACT=F (common/tuning.h). */
static double npact_default(void)
{
    const tuning tn = tuning_read();
    return tn.npact > 0 ? tn.npact : NPACT_FRACTION;
}

/* pred_owned's range of list entries: from OWNED_MIN to OWNED_MAX by
 * default; NBODY6C_PRED_OWNED=MIN,MAX sets it (0,0: never) for tuning. */
enum { OWNED_MIN = 64, OWNED_MAX = 16384 };
static void owned_range(simd_irr *s)
{
    s->owned_min = OWNED_MIN;
    s->owned_max = OWNED_MAX;
    const tuning tn = tuning_read();
    if (tn.pred_owned_set) {
        s->owned_min = tn.pred_owned_min > 0 ? tn.pred_owned_min : 1;
        s->owned_max = tn.pred_owned_max;
    }
}

gpuirr *gpuirr_simd_open(int nmax, int nbmax, gpuirr_simd path, char *err, size_t errlen)
{
    static const char *const need[] = {
        [GPUIRR_SSE] = "SSE4.1", [GPUIRR_AVX2] = "AVX2 and FMA",
        [GPUIRR_AVX512] = "AVX-512 (F, DQ, VL)"};
    const gpuirr_ops *ops;
    gpuirr_kernel_fn kern;
    switch (path) {
    case GPUIRR_SSE: ops = &ops_sse; kern = gpuirr_kern_sse; break;
    case GPUIRR_AVX2: ops = &ops_avx2; kern = gpuirr_kern_avx2; break;
    case GPUIRR_AVX512: ops = &ops_avx512; kern = gpuirr_kern_avx512; break;
    default:
        snprintf(err, errlen, "gpuirr_simd_open: not a SIMD path (%d)", (int)path);
        return NULL;
    }
    if (!gpuirr_simd_supported(path)) {
        snprintf(err, errlen, "irregular force path '%s' needs %s, which this CPU lacks",
                 ops->name, need[path]);
        return NULL;
    }
    if (nmax < 1 || nbmax < 0) {
        snprintf(err, errlen, "gpuirr_simd_open: nmax %d or nbmax %d out of range", nmax, nbmax);
        return NULL;
    }
    simd_irr *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "gpuirr_simd_open: out of memory"); return NULL; }
    s->base.ops = ops;
    s->base.nmax = nmax;
    s->base.nbmax = nbmax;
    s->kern = kern;
    s->npact_fraction = npact_default();
    owned_range(s);
    s->stride = (nbmax + GPUIRR_LIST_PAD - 1) / GPUIRR_LIST_PAD * GPUIRR_LIST_PAD;
    if (s->stride == 0) s->stride = GPUIRR_LIST_PAD;
    if (alloc_arrays(s, nmax)) {
        simd_close(&s->base);
        snprintf(err, errlen, "gpuirr_simd_open: out of memory for %d bodies", nmax);
        return NULL;
    }
    return &s->base;
}

void gpuirr_simd_predicted(const gpuirr *g, int i, double x[3], double v[3])
{
    predicted_state((const simd_irr *)g, i, x, v);
}

void gpuirr_simd_set_owned(gpuirr *g, long min, long max)
{
    simd_irr *s = state(g);
    if (min < 0) {
        owned_range(s);
        return;
    }
    s->owned_min = min > 0 ? min : 1;
    s->owned_max = max;
}

void gpuirr_simd_set_npact(gpuirr *g, double fraction)
{
    state(g)->npact_fraction = fraction < 0 ? npact_default() : fraction;
}
