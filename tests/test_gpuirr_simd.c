/* test_gpuirr_simd.c — the SIMD GPUIRR paths ("sse", "avx2", "avx512")
 * against double-precision references: a direct double sum written here
 * (own Taylor predictor, own pair formula) and the "scalar" backend.  Every
 * path the CPU supports is tested; the others are skipped with the reason.
 *
 * Checked: the predicted state against the double Taylor series; irregular
 * force and jerk on fresh random lists of 0, 1, 7, 8, 9, 15, 16, 17, 100, 600
 * and NBMAX entries, bodies near the origin and near |x| ~ 17, neighbours at
 * 1e-5 (float path) and 1e-8 (the library's double path); pred_act after
 * set_jp of some bodies; results independent of the thread count; the
 * coinciding-body and bad-list errors; GPUIRR_AUTO choosing a SIMD path.
 *
 * Tolerances (docs/ALGORITHMS.md's normalised metric): |dF_i| <= eps sum_j m_j/r_ij^2,
 * jerk likewise with sum_j m_j (|v| + 3|r.v|/r)/r^3.  gpuirr_simd.c derives a
 * worst-case bound of 3.2e-6 for any list length (per-term rsqrt + Newton
 * error, float sums of at most 16 steps, two-float coordinates; closer
 * pairs go to double), so the required eps <= 1e-5 worst case and 1e-6 RMS
 * (random-walk rounding: measured RMS ~1e-7) are the limits checked.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gpuirr/gpuirr.h"
#include "gpuirr/gpuirr_simd.h"

enum { NBODY = 4000, NBMAX = 650, NREP = 6 };

static const int sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 100, 600, NBMAX};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

typedef struct { uint64_t s; } rng;

static double urand(rng *r) /* uniform in [0, 1) */
{
    r->s += 0x9E3779B97F4A7C15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double sym(rng *r) { return 2.0 * urand(r) - 1.0; }

typedef struct {
    double t0[NBODY], m[NBODY];
    double x0[NBODY][3], v0[NBODY][3], a0[NBODY][3], j0[NBODY][3];
    int nnb[NBODY];
    int *list;          /* NBMAX per body */
    int ni, ilist[NBODY];
} scene;

/* The test's own predictor: the Taylor series term by term. */
static void taylor(const scene *sc, int i, double t, double x[3], double v[3])
{
    double s = t - sc->t0[i];
    for (int k = 0; k < 3; k++) {
        x[k] = sc->x0[i][k] + sc->v0[i][k] * s + sc->a0[i][k] * s * s / 2 + sc->j0[i][k] * s * s * s / 6;
        v[k] = sc->v0[i][k] + sc->a0[i][k] * s + sc->j0[i][k] * s * s / 2;
    }
}

/* Direct double sum on body i at time t, with the metric's normalisers. */
static void direct(const scene *sc, int i, double t, double a[3], double jk[3], double *fnorm, double *jnorm)
{
    double xi[3], vi[3];
    taylor(sc, i, t, xi, vi);
    for (int k = 0; k < 3; k++) a[k] = jk[k] = 0;
    *fnorm = *jnorm = 0;
    for (int q = 0; q < sc->nnb[i]; q++) {
        int j = sc->list[(size_t)i * NBMAX + q];
        double xj[3], vj[3], r[3], v[3];
        taylor(sc, j, t, xj, vj);
        for (int k = 0; k < 3; k++) { r[k] = xj[k] - xi[k]; v[k] = vj[k] - vi[k]; }
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rr = sqrt(r2);
        double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
        double mr3 = sc->m[j] / (r2 * rr);
        for (int k = 0; k < 3; k++) {
            a[k] += mr3 * r[k];
            jk[k] += mr3 * (v[k] - 3 * rv / r2 * r[k]);
        }
        *fnorm += sc->m[j] / r2;
        *jnorm += mr3 * (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 3 * fabs(rv) / rr);
    }
}

static void random_body(scene *sc, rng *r, int i, const double centre[3], double t)
{
    sc->t0[i] = t - 0.01 * urand(r);
    sc->m[i] = (0.5 + urand(r)) / NBODY;
    for (int k = 0; k < 3; k++) {
        sc->x0[i][k] = centre[k] + sym(r);
        sc->v0[i][k] = sym(r);
        sc->a0[i][k] = sym(r);
        sc->j0[i][k] = sym(r);
    }
}

/* Body j placed at distance sep from body i at time tc (both predicted by
 * the Taylor series), with the relative speed of a pair on a bound or mildly
 * hyperbolic orbit, sqrt(2 (m_i + m_j)/sep) times 0.7 to 1.3: the close pairs
 * a run meets.  (The kernels hold velocities in float, so a co-moving pair,
 * |v_ij| << |v|, would see a larger relative jerk error: gpuirr_simd.c.) */
static void close_partner(scene *sc, rng *r, int i, int j, double sep, double tc)
{
    double u[3] = {sym(r), sym(r), sym(r)}, w[3] = {sym(r), sym(r), sym(r)};
    double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double speed = sqrt(2 * (sc->m[i] + sc->m[j]) / sep) * (0.7 + 0.6 * urand(r));
    double s = tc - sc->t0[i];
    sc->t0[j] = sc->t0[i];
    for (int k = 0; k < 3; k++) {
        double dv = speed * w[k] / nw;
        sc->v0[j][k] = sc->v0[i][k] + dv;
        sc->x0[j][k] = sc->x0[i][k] + sep * u[k] / nu - dv * s;
        sc->a0[j][k] = sc->a0[i][k];
        sc->j0[j][k] = sc->j0[i][k];
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A fresh list for i of n distinct bodies of [lo, hi) other than i,
 * including `must` when it is >= 0. */
static void random_list(scene *sc, rng *r, int i, int n, int lo, int hi, int must, char *seen)
{
    int *l = sc->list + (size_t)i * NBMAX, k = 0;
    memset(seen, 0, NBODY);
    seen[i] = 1;
    if (must >= 0 && n > 0) { l[k++] = must; seen[must] = 1; }
    while (k < n) {
        int j = lo + (int)(urand(r) * (hi - lo));
        if (!seen[j]) { seen[j] = 1; l[k++] = j; }
    }
    qsort(l, (size_t)n, sizeof *l, cmp_int);
    sc->nnb[i] = n;
}

/* Bodies [0, 2000) near the origin, [2000, 4000) around (10, -10, 10).  The
 * active bodies are the first 2 * NSIZES * NREP of each half's first
 * quarter; each gets a list size from `sizes`, and every third one a close
 * partner (1e-5, or 1e-8 every ninth) from the half's last quarter. */
static void build_scene(scene *sc, rng *r, double t)
{
    static const double origin[3] = {0, 0, 0}, far[3] = {10, -10, 10};
    char *seen = malloc(NBODY);
    for (int i = 0; i < NBODY; i++) random_body(sc, r, i, i < NBODY / 2 ? origin : far, t);
    sc->ni = 0;
    for (int half = 0; half < 2; half++) {
        int base = half * NBODY / 2, lo = base, hi = base + NBODY / 2;
        for (int q = 0; q < NSIZES * NREP; q++) {
            int i = base + q, must = -1;
            if (q % 3 == 0) {
                must = hi - 1 - q;
                close_partner(sc, r, i, must, q % 9 == 0 ? 1e-8 : 1e-5, t);
            }
            random_list(sc, r, i, sizes[q % NSIZES], lo, hi, must, seen);
            sc->ilist[sc->ni++] = i;
        }
    }
    free(seen);
}

static void load(gpuirr *g, const scene *sc)
{
    for (int i = 0; i < NBODY; i++) {
        gpuirr_set_jp(g, i, sc->t0[i], sc->x0[i], sc->v0[i], sc->a0[i], sc->j0[i], sc->m[i]);
        gpuirr_set_list(g, i, sc->nnb[i], sc->list + (size_t)i * NBMAX);
    }
}

typedef struct { double f_rms, f_max, j_rms, j_max, rel50, rel99; int n; } errstat;

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Errors of (a, jk) against the direct double sum at t. */
static errstat measure(const scene *sc, double t, double (*a)[3], double (*jk)[3], int *nonzero_empty)
{
    errstat e = {0};
    double *rel = malloc(sizeof *rel * (size_t)sc->ni);
    int nrel = 0;
    *nonzero_empty = 0;
    for (int k = 0; k < sc->ni; k++) {
        int i = sc->ilist[k];
        double ar[3], jr[3], fn, jn;
        direct(sc, i, t, ar, jr, &fn, &jn);
        if (sc->nnb[i] == 0) {
            for (int c = 0; c < 3; c++) *nonzero_empty |= a[k][c] != 0.0 || jk[k][c] != 0.0;
            continue;
        }
        double df = 0, dj = 0, fr = 0;
        for (int c = 0; c < 3; c++) {
            df += (a[k][c] - ar[c]) * (a[k][c] - ar[c]);
            dj += (jk[k][c] - jr[c]) * (jk[k][c] - jr[c]);
            fr += ar[c] * ar[c];
        }
        double ef = sqrt(df) / fn, ej = sqrt(dj) / jn;
        if (!isfinite(ef)) ef = INFINITY;
        if (!isfinite(ej)) ej = INFINITY;
        e.f_rms += ef * ef; e.j_rms += ej * ej;
        if (ef > e.f_max) e.f_max = ef;
        if (ej > e.j_max) e.j_max = ej;
        rel[nrel++] = sqrt(df / fr);
        e.n++;
    }
    e.f_rms = sqrt(e.f_rms / e.n);
    e.j_rms = sqrt(e.j_rms / e.n);
    qsort(rel, (size_t)nrel, sizeof *rel, cmp_dbl);
    e.rel50 = rel[nrel / 2];
    e.rel99 = rel[(nrel * 99) / 100];
    free(rel);
    return e;
}

static void check_errors(const char *path, const char *what, errstat e, int nonzero_empty)
{
    CHECK(!nonzero_empty, "%s %s: empty lists give exactly zero", path, what);
    CHECK(e.f_rms <= 1e-6 && e.f_max <= 1e-5,
          "%s %s: force error (normalised) rms %.2e max %.2e over %d bodies (|dF|/|F| median %.1e, 99%% %.1e)",
          path, what, e.f_rms, e.f_max, e.n, e.rel50, e.rel99);
    CHECK(e.j_rms <= 1e-6 && e.j_max <= 1e-5, "%s %s: jerk error (normalised) rms %.2e max %.2e",
          path, what, e.j_rms, e.j_max);
}

/* Predicted state against the Taylor series: both double; they differ in
 * operation order only, a few roundings of the largest term. */
/* The predicted state of the first ni active bodies and their neighbours. */
static void check_prediction_n(const char *path, const char *what, gpuirr *g, const scene *sc, int ni, double t)
{
    double worst = 0;
    for (int k = 0; k < ni; k++) {
        int i = sc->ilist[k];
        for (int q = -1; q < sc->nnb[i]; q++) {
            int j = q < 0 ? i : sc->list[(size_t)i * NBMAX + q];
            double xl[3], vl[3], xt[3], vt[3], s = t - sc->t0[j];
            gpuirr_simd_predicted(g, j, xl, vl);
            taylor(sc, j, t, xt, vt);
            for (int c = 0; c < 3; c++) {
                double scale_x = fabs(sc->x0[j][c]) + fabs(sc->v0[j][c] * s) + fabs(sc->a0[j][c] * s * s) +
                                 fabs(sc->j0[j][c] * s * s * s);
                double scale_v = fabs(sc->v0[j][c]) + fabs(sc->a0[j][c] * s) + fabs(sc->j0[j][c] * s * s);
                double e = fmax(fabs(xl[c] - xt[c]) / scale_x, fabs(vl[c] - vt[c]) / scale_v);
                if (!(e <= worst)) worst = isnan(e) ? INFINITY : fmax(worst, e);
            }
        }
    }
    CHECK(worst <= 1e-15, "%s prediction (%s) vs double Taylor series: max error %.1e (of the sum of term magnitudes)",
          path, what, worst);
}

static void check_prediction(const char *path, gpuirr *g, const scene *sc, double t)
{
    check_prediction_n(path, "all active", g, sc, sc->ni, t);
}

static void run_firr(gpuirr *g, const scene *sc, double (*a)[3], double (*jk)[3], int *rc)
{
    *rc = gpuirr_firr(g, sc->ni, sc->ilist, a, jk);
}

static void test_path(gpuirr_simd path, const char *name, scene *sc, rng *r)
{
    char err[256];
    gpuirr *g = gpuirr_open(NBODY, NBMAX, path, err, sizeof err);
    CHECK(g != NULL, "%s opens (%s)", name, g ? "ok" : err);
    if (!g) return;
    CHECK(strcmp(gpuirr_backend(g), name) == 0, "%s: backend name '%s'", name, gpuirr_backend(g));
    gpuirr *ref = gpuirr_open(NBODY, NBMAX, GPUIRR_SCALAR, err, sizeof err);
    CHECK(ref != NULL, "scalar reference opens (%s)", ref ? "ok" : err);

    double t = 1.0;
    build_scene(sc, r, t);
    load(g, sc);
    double (*a)[3] = calloc(NBODY, sizeof *a), (*jk)[3] = calloc(NBODY, sizeof *jk);
    double (*a2)[3] = calloc(NBODY, sizeof *a2), (*jk2)[3] = calloc(NBODY, sizeof *jk2);
    int rc, nz = 0;

    /* all bodies predicted */
    gpuirr_pred_all(g, 0, NBODY, t);
    check_prediction(name, g, sc, t);
    run_firr(g, sc, a, jk, &rc);
    CHECK(rc == 0, "%s firr after pred_all returns 0 (%s)", name, rc ? gpuirr_error(g) : "");
    check_errors(name, "vs direct double sum (pred_all)", measure(sc, t, a, jk, &nz), nz);

    /* against the scalar backend, same metric */
    if (ref) {
        load(ref, sc);
        gpuirr_pred_all(ref, 0, NBODY, t);
        int rcr = gpuirr_firr(ref, sc->ni, sc->ilist, a2, jk2);
        double fmaxe = 0, jmaxe = 0;
        for (int k = 0; k < sc->ni; k++) {
            int i = sc->ilist[k];
            if (sc->nnb[i] == 0) continue;
            double ar[3], jr[3], fn, jn, df = 0, dj = 0;
            direct(sc, i, t, ar, jr, &fn, &jn);
            for (int c = 0; c < 3; c++) {
                df += (a[k][c] - a2[k][c]) * (a[k][c] - a2[k][c]);
                dj += (jk[k][c] - jk2[k][c]) * (jk[k][c] - jk2[k][c]);
            }
            fmaxe = fmax(fmaxe, sqrt(df) / fn);
            jmaxe = fmax(jmaxe, sqrt(dj) / jn);
        }
        CHECK(rcr == 0 && fmaxe <= 1e-5 && jmaxe <= 1e-5,
              "%s vs scalar backend: max normalised error force %.2e jerk %.2e", name, fmaxe, jmaxe);
    }

    /* a later block: move some bodies on (set_jp), then predict only the
     * active ones and their neighbours */
    double t2 = t + 0.005;
    for (int i = 0; i < NBODY; i += 7) {
        sc->t0[i] = t + 0.001;
        gpuirr_set_jp(g, i, sc->t0[i], sc->x0[i], sc->v0[i], sc->a0[i], sc->j0[i], sc->m[i]);
    }
    for (int k = 0; k < sc->ni; k++) { /* the close pairs, close again at t2 */
        int i = sc->ilist[k], q = i % (NBODY / 2), j = (i / (NBODY / 2) + 1) * (NBODY / 2) - 1 - q;
        if (q % 3) continue;
        close_partner(sc, r, i, j, q % 9 == 0 ? 1e-8 : 1e-5, t2);
        gpuirr_set_jp(g, j, sc->t0[j], sc->x0[j], sc->v0[j], sc->a0[j], sc->j0[j], sc->m[j]);
    }
    gpuirr_pred_act(g, sc->ni, sc->ilist, t2);
    check_prediction(name, g, sc, t2);
    run_firr(g, sc, a, jk, &rc);
    CHECK(rc == 0, "%s firr after pred_act returns 0 (%s)", name, rc ? gpuirr_error(g) : "");
    check_errors(name, "vs direct double sum (pred_act)", measure(sc, t2, a, jk, &nz), nz);

    /* pred_act's other two ways: a small block on one thread, and a big one
     * marked in parallel (the NPACT switch to pred_all pushed out of reach) */
    double t3 = t2 + 0.001, t4 = t3 + 0.001;
    gpuirr_pred_act(g, 9, sc->ilist, t3);
    check_prediction_n(name, "small block, serial", g, sc, 9, t3);
    gpuirr_simd_set_npact(g, 1e9);
    gpuirr_pred_act(g, sc->ni, sc->ilist, t4);
    check_prediction_n(name, "big block, parallel marking", g, sc, sc->ni, t4);
    gpuirr_simd_set_npact(g, -1.0);
    /* and on a team of 8 (the 16-core GPU hosts' way; CI's team is
     * smaller): a block of a few hundred list entries predicted by each
     * thread's own share of the slots (pred_owned), the whole active set
     * that way (each thread's share more than its batch), and with that
     * path off, the union split over the team (256 to 2047 entries) */
    {
        int m = 0;
        long work = 0, all = 0;
        while (m < sc->ni && work < 300) work += 1 + sc->nnb[sc->ilist[m++]];
        for (int k = 0; k < sc->ni; k++) all += 1 + sc->nnb[sc->ilist[k]];
        int nthr0 = omp_get_max_threads();
        omp_set_num_threads(8);
        double t5 = t4 + 0.001, t6 = t5 + 0.001, t7 = t6 + 0.001;
        gpuirr_pred_act(g, m, sc->ilist, t5);
        omp_set_num_threads(nthr0);
        CHECK(work >= 256 && work < 2048, "%s: %d members with %ld list entries for the team's union", name, m, work);
        check_prediction_n(name, "a few hundred entries, team of 8, by owner", g, sc, m, t5);
        omp_set_num_threads(8);
        gpuirr_simd_set_owned(g, 1, all);
        gpuirr_pred_act(g, sc->ni, sc->ilist, t6);
        omp_set_num_threads(nthr0);
        CHECK(all / 8 > 256, "%s: %ld entries for the team of 8 by owner (over a batch each)", name, all);
        check_prediction_n(name, "every active body, team of 8, by owner", g, sc, sc->ni, t6);
        omp_set_num_threads(8);
        gpuirr_simd_set_owned(g, 1, 0);
        gpuirr_pred_act(g, m, sc->ilist, t7);
        omp_set_num_threads(nthr0);
        gpuirr_simd_set_owned(g, -1, 0);
        check_prediction_n(name, "union of a few hundred slots, team of 8", g, sc, m, t7);
        gpuirr_pred_act(g, sc->ni, sc->ilist, t4);
    }
    run_firr(g, sc, a, jk, &rc);
    CHECK(rc == 0, "%s firr after the marked pred_act returns 0 (%s)", name, rc ? gpuirr_error(g) : "");
    check_errors(name, "vs direct double sum (marked pred_act)", measure(sc, t4, a, jk, &nz), nz);

    /* thread-count independence: bit for bit */
    int nthr = omp_get_max_threads();
    omp_set_num_threads(1);
    run_firr(g, sc, a, jk, &rc);
    omp_set_num_threads(nthr > 1 ? nthr + 1 : 3);
    run_firr(g, sc, a2, jk2, &rc);
    omp_set_num_threads(nthr);
    CHECK(memcmp(a, a2, sizeof *a * (size_t)sc->ni) == 0 && memcmp(jk, jk2, sizeof *jk * (size_t)sc->ni) == 0,
          "%s: results identical with 1 and %d threads", name, nthr > 1 ? nthr + 1 : 3);

    /* a neighbour at the very position of body i: an error naming both */
    int i = sc->ilist[NSIZES - 1], j = sc->list[(size_t)i * NBMAX + 3];
    gpuirr_set_jp(g, j, sc->t0[i], sc->x0[i], sc->v0[i], sc->a0[i], sc->j0[i], sc->m[j]);
    gpuirr_pred_all(g, 0, NBODY, t2);
    run_firr(g, sc, a, jk, &rc);
    char want[64], want2[64];
    snprintf(want, sizeof want, "%d and %d", i, j);
    snprintf(want2, sizeof want2, "%d and %d", j, i);
    CHECK(rc == -1 && (strstr(gpuirr_error(g), want) || strstr(gpuirr_error(g), want2)),
          "%s: coinciding bodies %d, %d -> rc %d, error \"%s\"", name, i, j, rc, gpuirr_error(g));
    int finite = 1;
    for (int k = 0; k < sc->ni; k++)
        for (int c = 0; c < 3; c++) finite &= isfinite(a[k][c]) && isfinite(jk[k][c]);
    CHECK(finite, "%s: no NaN or infinity in the output of a failing call", name);
    gpuirr_set_jp(g, j, sc->t0[j], sc->x0[j], sc->v0[j], sc->a0[j], sc->j0[j], sc->m[j]);

    /* a list longer than nbmax is refused, not truncated */
    gpuirr_set_list(g, i, NBMAX + 1, sc->list);
    gpuirr_pred_all(g, 0, NBODY, t2);
    run_firr(g, sc, a, jk, &rc);
    CHECK(rc == -1 && strstr(gpuirr_error(g), "list"), "%s: over-long list -> rc %d, \"%s\"", name, rc,
          gpuirr_error(g));

    free(a); free(jk); free(a2); free(jk2);
    gpuirr_close(ref);
    gpuirr_close(g);
}

int main(void)
{
    uint64_t seed = check_seed();
    rng r = {seed};
    scene *sc = malloc(sizeof *sc);
    sc->list = malloc(sizeof *sc->list * (size_t)NBODY * NBMAX);

    __builtin_cpu_init();
    const struct { gpuirr_simd path; const char *name; int have; const char *need; } paths[] = {
        {GPUIRR_SSE, "sse", __builtin_cpu_supports("sse4.1"), "SSE4.1"},
        {GPUIRR_AVX2, "avx2", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), "AVX2+FMA"},
        {GPUIRR_AVX512, "avx512",
         __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl"),
         "AVX-512 F/DQ/VL"},
    };
    const char *best = "scalar";
    for (int p = 0; p < 3; p++) {
        if (paths[p].have) {
            test_path(paths[p].path, paths[p].name, sc, &r);
            best = paths[p].name;
        } else {
            char err[256];
            gpuirr *g = gpuirr_open(100, 10, paths[p].path, err, sizeof err);
            SKIP("%s: this CPU lacks %s", paths[p].name, paths[p].need);
            CHECK(g == NULL && strstr(err, paths[p].name), "%s refused with \"%s\"", paths[p].name, err);
            gpuirr_close(g);
        }
    }
    char err[256];
    gpuirr *g = gpuirr_open(100, 10, GPUIRR_AUTO, err, sizeof err);
    CHECK(g && strcmp(gpuirr_backend(g), best) == 0, "GPUIRR_AUTO picks the widest path the CPU has: %s",
          g ? gpuirr_backend(g) : err);
    gpuirr_close(g);

    free(sc->list);
    free(sc);
    return check_done();
}
