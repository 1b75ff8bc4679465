/* test_forces.c — the reference force backends (GPUNB "cpu-ref", GPUIRR
 * "scalar") against references written here, independently, in long double:
 * the regular + irregular split of the force and jerk, the neighbour contract,
 * the jerk against a numerical derivative of the force, the start-up
 * derivatives (docs/ALGORITHMS.md §7) against a direct sum and against an accurate
 * integration, the potential, thread-count independence, prediction
 * consistency between the two libraries, list overflow and coincident bodies.
 * Only the public APIs of gpunb.h and gpuirr.h are used. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "check.h"
#include "gpunb/gpunb.h"
#include "gpuirr/gpuirr.h"

typedef double vec3[3];

enum { NBMAX = 1024 }; /* lists here reach ~450 near the heaviest stars */

/* ---------------------------------------------------------------- random */

typedef struct { uint64_t s[4]; } rng_t;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_init(rng_t *r, uint64_t seed)
{
    for (int k = 0; k < 4; k++) r->s[k] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return out;
}

/* uniform in (0, 1) */
static double urand(rng_t *r) { return ((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53; }

static double grand(rng_t *r)
{
    return sqrt(-2.0 * log(urand(r))) * cos(6.283185307179586 * urand(r));
}

static int irand(rng_t *r, int n) { return (int)(urand(r) * n); }

/* ---------------------------------------------------------------- bodies */

typedef struct {
    int n;
    double *m, *t0, *h2, *dtr;
    vec3 *x0, *v0, *a0, *j0; /* polynomials at t0 */
    vec3 *xp, *vp;           /* predicted at T_NOW by the test's own predictor */
} bodies;

static const double T_NOW = 0.0;

static bodies *bodies_new(int n)
{
    bodies *b = calloc(1, sizeof *b);
    b->n = n;
    b->m = calloc(n, sizeof *b->m);
    b->t0 = calloc(n, sizeof *b->t0);
    b->h2 = calloc(n, sizeof *b->h2);
    b->dtr = calloc(n, sizeof *b->dtr);
    b->x0 = calloc(n, sizeof *b->x0);
    b->v0 = calloc(n, sizeof *b->v0);
    b->a0 = calloc(n, sizeof *b->a0);
    b->j0 = calloc(n, sizeof *b->j0);
    b->xp = calloc(n, sizeof *b->xp);
    b->vp = calloc(n, sizeof *b->vp);
    return b;
}

static void bodies_free(bodies *b)
{
    if (!b) return;
    free(b->m); free(b->t0); free(b->h2); free(b->dtr);
    free(b->x0); free(b->v0); free(b->a0); free(b->j0); free(b->xp); free(b->vp);
    free(b);
}

static bodies *bodies_copy(const bodies *s)
{
    bodies *b = bodies_new(s->n);
    size_t n = (size_t)s->n;
    memcpy(b->m, s->m, n * sizeof *b->m);
    memcpy(b->t0, s->t0, n * sizeof *b->t0);
    memcpy(b->h2, s->h2, n * sizeof *b->h2);
    memcpy(b->dtr, s->dtr, n * sizeof *b->dtr);
    memcpy(b->x0, s->x0, n * sizeof *b->x0);
    memcpy(b->v0, s->v0, n * sizeof *b->v0);
    memcpy(b->a0, s->a0, n * sizeof *b->a0);
    memcpy(b->j0, s->j0, n * sizeof *b->j0);
    memcpy(b->xp, s->xp, n * sizeof *b->xp);
    memcpy(b->vp, s->vp, n * sizeof *b->vp);
    return b;
}

/* The documented predictor of gpunb.h / gpuirr.h, in the documented order. */
static void predict_all(bodies *b, double t)
{
    for (int i = 0; i < b->n; i++) {
        double s = t - b->t0[i];
        for (int k = 0; k < 3; k++) {
            double x0 = b->x0[i][k], v0 = b->v0[i][k], a = b->a0[i][k], j = b->j0[i][k];
            b->xp[i][k] = x0 + s * (v0 + s * (a / 2 + s * j / 6));
            b->vp[i][k] = v0 + s * (a + s * j / 2);
        }
    }
}

static void random_direction(rng_t *r, double d[3])
{
    double z = 2.0 * urand(r) - 1.0, phi = 6.283185307179586 * urand(r), s = sqrt(1.0 - z * z);
    d[0] = s * cos(phi);
    d[1] = s * sin(phi);
    d[2] = z;
}

/* A point of a Plummer sphere of the given scale (far tail cut), with an
 * isotropic Gaussian velocity whose dispersion falls off like the potential. */
static void plummer_point(rng_t *r, double scale, double sigma, double x[3], double v[3])
{
    double u = 0.01 + 0.98 * urand(r);
    double rad = scale / sqrt(pow(u, -2.0 / 3.0) - 1.0);
    double d[3];
    random_direction(r, d);
    double s = sigma / pow(1.0 + (rad / scale) * (rad / scale), 0.25);
    for (int k = 0; k < 3; k++) {
        x[k] = rad * d[k];
        v[k] = s * grand(r);
    }
}

/* Salpeter masses in [0.1, 10], total 1. */
static void salpeter_masses(rng_t *r, bodies *b)
{
    const double p = 1.0 - 2.35, lo = pow(0.1, p), hi = pow(10.0, p);
    double sum = 0;
    for (int i = 0; i < b->n; i++) {
        b->m[i] = pow(lo + urand(r) * (hi - lo), 1.0 / p);
        sum += b->m[i];
    }
    for (int i = 0; i < b->n; i++) b->m[i] /= sum;
}

/* k-th smallest (0-based) of a[0..n) by quickselect; reorders a. */
static double kth_smallest(double *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double piv = a[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) i++;
            while (a[j] > piv) j--;
            if (i <= j) {
                double t = a[i]; a[i] = a[j]; a[j] = t;
                i++; j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return a[k];
}

/* Neighbour radii for lists of about 0..100 members: h2_i = d_k^2/<m>, with
 * d_k the distance to the k-th nearest body, k uniform in 0..100 (0: h2 = 0);
 * regular steps dtr random powers of two (or zero). */
static void choose_h2_dtr(rng_t *r, bodies *b)
{
    int n = b->n;
    double *d2 = malloc((size_t)n * sizeof *d2);
    for (int i = 0; i < n; i++) {
        int m = 0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double dx = b->xp[j][0] - b->xp[i][0], dy = b->xp[j][1] - b->xp[i][1],
                   dz = b->xp[j][2] - b->xp[i][2];
            d2[m++] = dx * dx + dy * dy + dz * dz;
        }
        int k = irand(r, 101);
        b->h2[i] = k == 0 ? 0.0 : kth_smallest(d2, m, k - 1) * n;
        b->dtr[i] = urand(r) < 0.2 ? 0.0 : ldexp(1.0, -3 - irand(r, 10));
    }
    free(d2);
}

/* Plummer-like (clumpy = 0) or clumpy (several small dense Plummer clumps on
 * a background) bodies, with random polynomials at random t0 <= T_NOW
 * (one in ten exactly at T_NOW), predicted to T_NOW. */
static bodies *make_bodies(rng_t *r, int n, int clumpy)
{
    enum { NCLUMP = 6 };
    double cx[NCLUMP][3], cv[NCLUMP][3], cs[NCLUMP];
    for (int c = 0; c < NCLUMP; c++) {
        plummer_point(r, 1.0, 0.4, cx[c], cv[c]);
        cs[c] = 0.02 + 0.05 * urand(r);
    }
    bodies *b = bodies_new(n);
    salpeter_masses(r, b);
    for (int i = 0; i < n; i++) {
        if (!clumpy || urand(r) < 0.4) {
            plummer_point(r, 1.0, 0.5, b->x0[i], b->v0[i]);
        } else {
            int c = irand(r, NCLUMP);
            plummer_point(r, cs[c], 0.5, b->x0[i], b->v0[i]);
            for (int k = 0; k < 3; k++) {
                b->x0[i][k] += cx[c][k];
                b->v0[i][k] += cv[c][k];
            }
        }
        for (int k = 0; k < 3; k++) {
            b->a0[i][k] = grand(r);
            b->j0[i][k] = 10.0 * grand(r);
        }
        b->t0[i] = urand(r) < 0.1 ? T_NOW : T_NOW - urand(r) / 16;
    }
    predict_all(b, T_NOW);
    choose_h2_dtr(r, b);
    return b;
}

/* ------------------------------------------------------------ references */

/* The neighbour contract of gpunb.h, evaluated in double here. */
static int ref_is_neighbour(const bodies *b, int i, int j)
{
    if (i == j) return 0;
    double r[3], v[3], p[3];
    for (int k = 0; k < 3; k++) {
        r[k] = b->xp[j][k] - b->xp[i][k];
        v[k] = b->vp[j][k] - b->vp[i][k];
        p[k] = r[k] + b->dtr[i] * v[k];
    }
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    double p2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    return fmin(r2, p2) < b->m[j] * b->h2[i];
}

typedef struct {
    long double airr[3], areg[3], jirr[3], jreg[3];
    double fscale, jscale; /* sums of term magnitudes (docs/ALGORITHMS.md's metric) */
} ref_force;

/* Direct force and jerk on i in long double, split by the contract. */
static void ref_forces(const bodies *b, int i, ref_force *f)
{
    memset(f, 0, sizeof *f);
    long double fs = 0, js = 0;
    for (int j = 0; j < b->n; j++) {
        if (j == i) continue;
        long double r[3], v[3];
        for (int k = 0; k < 3; k++) {
            r[k] = (long double)b->xp[j][k] - b->xp[i][k];
            v[k] = (long double)b->vp[j][k] - b->vp[i][k];
        }
        long double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rr = sqrtl(r2);
        long double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
        long double m = b->m[j], mr3 = m / (r2 * rr);
        int nb = ref_is_neighbour(b, i, j);
        long double *a = nb ? f->airr : f->areg, *jk = nb ? f->jirr : f->jreg;
        for (int k = 0; k < 3; k++) {
            a[k] += mr3 * r[k];
            jk[k] += mr3 * v[k] - 3.0L * mr3 * rv / r2 * r[k];
        }
        long double vv = sqrtl(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        fs += m / r2;
        js += m * (vv / (r2 * rr) + 3.0L * fabsl(rv) * rr / (r2 * r2 * rr));
    }
    f->fscale = (double)fs;
    f->jscale = (double)js;
}

static double diff_norm(const double a[3], const long double b[3])
{
    long double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return (double)sqrtl(d0 * d0 + d1 * d1 + d2 * d2);
}

/* --------------------------------------------------------------- libraries */

typedef struct {
    int n;
    int *idx, *nnb, *list;
    vec3 *areg, *jreg, *airr, *jirr;
    int noverflow, firr_rc;
} result;

static result *result_new(int n, int nbmax)
{
    result *r = calloc(1, sizeof *r);
    r->n = n;
    r->idx = malloc((size_t)n * sizeof *r->idx);
    for (int i = 0; i < n; i++) r->idx[i] = i;
    r->nnb = calloc((size_t)n, sizeof *r->nnb);
    r->list = calloc((size_t)n * nbmax, sizeof *r->list);
    r->areg = calloc((size_t)n, sizeof *r->areg);
    r->jreg = calloc((size_t)n, sizeof *r->jreg);
    r->airr = calloc((size_t)n, sizeof *r->airr);
    r->jirr = calloc((size_t)n, sizeof *r->jirr);
    return r;
}

static void result_free(result *r)
{
    if (!r) return;
    free(r->idx); free(r->nnb); free(r->list);
    free(r->areg); free(r->jreg); free(r->airr); free(r->jirr);
    free(r);
}

static gpunb *open_nb(int nmax, int nbmax)
{
    char err[256], notice[256];
    gpunb_config cfg = {GPUNB_CPU_REF, 0};
    gpunb *g = gpunb_open(nmax, nbmax, &cfg, notice, sizeof notice, err, sizeof err);
    if (!g) {
        fprintf(stderr, "gpunb_open: %s\n", err);
        exit(2);
    }
    return g;
}

static gpuirr *open_irr(int nmax, int nbmax)
{
    char err[256];
    gpuirr *g = gpuirr_open(nmax, nbmax, GPUIRR_SCALAR, err, sizeof err);
    if (!g) {
        fprintf(stderr, "gpuirr_open: %s\n", err);
        exit(2);
    }
    return g;
}

static void load_bodies(gpunb *nb, gpuirr *ir, const bodies *b, const int *idx)
{
    if (nb) {
        gpunb_set_range(nb, 0, b->n);
        gpunb_set_jp(nb, b->n, idx, b->t0, (const vec3 *)b->x0, (const vec3 *)b->v0,
                     (const vec3 *)b->a0, (const vec3 *)b->j0, b->m);
    }
    if (ir)
        for (int i = 0; i < b->n; i++)
            gpuirr_set_jp(ir, i, b->t0[i], b->x0[i], b->v0[i], b->a0[i], b->j0[i], b->m[i]);
}

/* One force evaluation as the integrator does it: polynomials to both
 * libraries, prediction to T_NOW, regular force and lists from GPUNB (i-bodies
 * at the test's own predicted state), the lists to GPUIRR, irregular force. */
static void lib_forces(gpunb *nb, gpuirr *ir, int nbmax, const bodies *b, const double *h2,
                       result *r)
{
    load_bodies(nb, ir, b, r->idx);
    gpunb_predict(nb, T_NOW);
    r->noverflow = gpunb_regf(nb, b->n, r->idx, h2, b->dtr, (const vec3 *)b->xp,
                              (const vec3 *)b->vp, r->areg, r->jreg, r->nnb, r->list);
    for (int i = 0; i < b->n; i++)
        gpuirr_set_list(ir, i, r->nnb[i] < 0 ? 0 : r->nnb[i], r->list + (size_t)i * nbmax);
    gpuirr_pred_all(ir, 0, b->n, T_NOW);
    r->firr_rc = gpuirr_firr(ir, b->n, r->idx, r->airr, r->jirr);
}

/* -------------------------------------------------------------- the tests */

/* Total force and jerk vs the long double direct sum, each part (regular,
 * irregular) vs its own reference, and the lists vs the contract.
 * Tolerance 1e-12 of the term-magnitude sum: every pair term is computed with
 * a relative error of a few ulp, and a double sum of at most N = 3000 terms
 * accumulates at worst ~N u = 3e-13 of the sum of magnitudes (typically
 * sqrt(N) u ~ 1e-14). */
static void test_force_split(const char *name, const bodies *b, gpunb *nb, gpuirr *ir)
{
    int n = b->n;
    result *r = result_new(n, NBMAX);
    lib_forces(nb, ir, NBMAX, b, b->h2, r);
    CHECK(r->noverflow == 0 && r->firr_rc == 0, "%s: regf no overflow (%d), firr ok (%d)", name,
          r->noverflow, r->firr_rc);

    double ea_w = 0, ej_w = 0, ea_s = 0, ej_s = 0, ep_w = 0;
    long list_bad = 0, order_bad = 0, self_bad = 0, nsum = 0, near = 0;
    int nmax = 0;
    int *ref = malloc((size_t)n * sizeof *ref);
    for (int i = 0; i < n; i++) {
        ref_force f;
        ref_forces(b, i, &f);
        double at[3], jt[3];
        long double art[3], jrt[3];
        for (int k = 0; k < 3; k++) {
            at[k] = r->areg[i][k] + r->airr[i][k];
            jt[k] = r->jreg[i][k] + r->jirr[i][k];
            art[k] = f.areg[k] + f.airr[k];
            jrt[k] = f.jreg[k] + f.jirr[k];
        }
        double ea = diff_norm(at, art) / f.fscale, ej = diff_norm(jt, jrt) / f.jscale;
        double ep = fmax(fmax(diff_norm(r->areg[i], f.areg), diff_norm(r->airr[i], f.airr)) / f.fscale,
                         fmax(diff_norm(r->jreg[i], f.jreg), diff_norm(r->jirr[i], f.jirr)) / f.jscale);
        ea_w = fmax(ea_w, ea);
        ej_w = fmax(ej_w, ej);
        ep_w = fmax(ep_w, ep);
        ea_s += ea * ea;
        ej_s += ej * ej;

        int cnt = 0;
        for (int j = 0; j < n; j++) {
            if (ref_is_neighbour(b, i, j)) ref[cnt++] = j;
            /* pairs within 1e-5 of the boundary, where fast backends may differ */
            double dx = b->xp[j][0] - b->xp[i][0], dy = b->xp[j][1] - b->xp[i][1],
                   dz = b->xp[j][2] - b->xp[i][2];
            if (j != i && b->h2[i] > 0 && fabs(sqrt((dx * dx + dy * dy + dz * dz) / (b->m[j] * b->h2[i])) - 1) < 1e-5)
                near++;
        }
        const int *l = r->list + (size_t)i * NBMAX;
        if (r->nnb[i] != cnt || (cnt && memcmp(l, ref, (size_t)cnt * sizeof *ref))) list_bad++;
        for (int k = 0; k < r->nnb[i]; k++) {
            if (l[k] == i) self_bad++;
            if (k && l[k] <= l[k - 1]) order_bad++;
        }
        nsum += cnt;
        if (cnt > nmax) nmax = cnt;
    }
    free(ref);
    printf("# %s: N=%d, lists mean %.1f max %d, %ld pairs within 1e-5 of the radius\n", name, n,
           (double)nsum / n, nmax, near);
    CHECK(ea_w <= 1e-12, "%s: total force vs long double: RMS %.2e worst %.2e (<= 1e-12)", name,
          sqrt(ea_s / n), ea_w);
    CHECK(ej_w <= 1e-12, "%s: total jerk vs long double: RMS %.2e worst %.2e (<= 1e-12)", name,
          sqrt(ej_s / n), ej_w);
    CHECK(ep_w <= 1e-12, "%s: regular and irregular parts each vs their reference: worst %.2e", name,
          ep_w);
    CHECK(list_bad == 0, "%s: neighbour sets identical to the contract (%ld bodies differ)", name,
          list_bad);
    CHECK(order_bad == 0 && self_bad == 0, "%s: lists ascending (%ld faults), self excluded (%ld)",
          name, order_bad, self_bad);
    result_free(r);
}

/* Total force (regular + irregular) with every body at x0 + d v, t0 = T_NOW. */
static void total_force_shifted(const bodies *b, double d, gpunb *nb, gpuirr *ir, result *r,
                                vec3 *f)
{
    bodies *s = bodies_copy(b);
    for (int i = 0; i < b->n; i++) {
        s->t0[i] = T_NOW;
        for (int k = 0; k < 3; k++) {
            s->x0[i][k] = b->xp[i][k] + d * b->vp[i][k];
            s->v0[i][k] = b->vp[i][k];
        }
    }
    predict_all(s, T_NOW); /* s = 0: xp = x0 exactly */
    lib_forces(nb, ir, NBMAX, s, s->h2, r);
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < 3; k++) f[i][k] = r->areg[i][k] + r->airr[i][k];
    bodies_free(s);
}

/* The jerk is d/dt of the force along straight-line motion: compare it with
 * central differences of the total force, Richardson-extrapolated,
 *   D(d) = (F(x + d v) - F(x - d v))/(2d),  R = (4 D(d/2) - D(d))/3.
 * Step d = min(1e-5, 1e-2 T_min), T_min = min over pairs of r_ij/|v_ij|, so
 * each pair moves by at most 1e-2 of its separation: D's truncation error
 * is ~(d v/r)^2 ~ 1e-4 of a close pair's term (too much for a 1e-6 test, hence
 * the extrapolation), R's is ~(d v/r)^4 ~ 1e-8.  Roundoff: the forces are good
 * to ~1e-16 of fscale_i, which divided by d is ~1e-16 T_i/d ~ 1e-14 T_i/T_min
 * of the jerk scale; rounding x + d v adds ~1e-16 |x|/(d v) ~ 1e-14 |x|/r.
 * Both stay far below the tolerance 1e-6 of the jerk's term-magnitude sum. */
static void test_jerk_fd(const char *name, const bodies *b, gpunb *nb, gpuirr *ir)
{
    int n = b->n;
    double tmin = INFINITY;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double r2 = 0, v2 = 0;
            for (int k = 0; k < 3; k++) {
                double dx = b->xp[j][k] - b->xp[i][k], dv = b->vp[j][k] - b->vp[i][k];
                r2 += dx * dx;
                v2 += dv * dv;
            }
            if (v2 > 0) tmin = fmin(tmin, sqrt(r2 / v2));
        }
    double d = fmin(1e-5, 1e-2 * tmin);
    result *r = result_new(n, NBMAX);
    vec3 *fp = malloc((size_t)n * sizeof *fp), *fm = malloc((size_t)n * sizeof *fm);
    vec3 *fp2 = malloc((size_t)n * sizeof *fp2), *fm2 = malloc((size_t)n * sizeof *fm2);
    total_force_shifted(b, d, nb, ir, r, fp);
    total_force_shifted(b, -d, nb, ir, r, fm);
    total_force_shifted(b, d / 2, nb, ir, r, fp2);
    total_force_shifted(b, -d / 2, nb, ir, r, fm2);
    lib_forces(nb, ir, NBMAX, b, b->h2, r);
    double worst = 0, sum2 = 0, worst_plain = 0;
    for (int i = 0; i < n; i++) {
        ref_force f;
        ref_forces(b, i, &f);
        double e2 = 0, e2p = 0;
        for (int k = 0; k < 3; k++) {
            double dd = (fp[i][k] - fm[i][k]) / (2 * d), dh = (fp2[i][k] - fm2[i][k]) / d;
            double rich = (4 * dh - dd) / 3, jl = r->jreg[i][k] + r->jirr[i][k];
            e2 += (rich - jl) * (rich - jl);
            e2p += (dh - jl) * (dh - jl);
        }
        double e = sqrt(e2) / f.jscale;
        worst = fmax(worst, e);
        worst_plain = fmax(worst_plain, sqrt(e2p) / f.jscale);
        sum2 += e * e;
    }
    CHECK(worst <= 1e-6,
          "%s: jerk vs central difference of the force (d = %.2e, T_min = %.2e): RMS %.2e worst %.2e "
          "(<= 1e-6; plain difference worst %.2e)", name, d, tmin, sqrt(sum2 / n), worst, worst_plain);
    free(fp); free(fm); free(fp2); free(fm2);
    result_free(r);
}

/* Potential vs a long double sum: each row is a sum of positive terms, so
 * double with compensation is good to a few ulp; 1e-12 leaves room. */
static void test_potential(const char *name, const bodies *b, gpunb *nb)
{
    int n = b->n;
    double *pot = malloc((size_t)n * sizeof *pot);
    gpunb_pot(nb, n, b->m, (const vec3 *)b->xp, pot);
    double worst = 0;
    long double tot_ref = 0, tot = 0;
    for (int i = 0; i < n; i++) {
        long double s = 0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            long double dx = (long double)b->xp[j][0] - b->xp[i][0],
                        dy = (long double)b->xp[j][1] - b->xp[i][1],
                        dz = (long double)b->xp[j][2] - b->xp[i][2];
            s += b->m[j] / sqrtl(dx * dx + dy * dy + dz * dz);
        }
        worst = fmax(worst, (double)fabsl((pot[i] - s) / s));
        tot_ref += b->m[i] * s / 2;
        tot += (long double)b->m[i] * pot[i] / 2;
    }
    double etot = (double)fabsl((tot - tot_ref) / tot_ref);
    CHECK(worst <= 1e-12 && etot <= 1e-12,
          "%s: potential vs long double: worst body %.2e, total %.2e (<= 1e-12)", name, worst, etot);
    free(pot);
}

static void set_threads(int t)
{
#ifdef _OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

static int lists_equal(const result *a, const result *b, int nbmax)
{
    if (memcmp(a->nnb, b->nnb, (size_t)a->n * sizeof *a->nnb)) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->nnb[i] > 0 &&
            memcmp(a->list + (size_t)i * nbmax, b->list + (size_t)i * nbmax,
                   (size_t)a->nnb[i] * sizeof *a->list))
            return 0;
    return 1;
}

/* Bit-identical results with 1, 2 and 3 threads: each i is one thread's,
 * j summed in a fixed order. */
static void test_threads(const char *name, const bodies *b, gpunb *nb, gpuirr *ir)
{
#ifdef _OPENMP
    int n = b->n, saved = omp_get_max_threads();
    result *r[3];
    double *pot[3];
    vec3 *d[3][4];
    for (int t = 0; t < 3; t++) {
        set_threads(t + 1);
        r[t] = result_new(n, NBMAX);
        lib_forces(nb, ir, NBMAX, b, b->h2, r[t]);
        pot[t] = malloc((size_t)n * sizeof *pot[t]);
        gpunb_pot(nb, n, b->m, (const vec3 *)b->xp, pot[t]);
        for (int q = 0; q < 4; q++) d[t][q] = malloc((size_t)n * sizeof *d[t][q]);
        gpunb_fpoly(nb, n, r[t]->idx, b->h2, b->dtr, (const vec3 *)b->xp, (const vec3 *)b->vp,
                    (const vec3 *)b->a0, (const vec3 *)b->j0, d[t][0], d[t][1], d[t][2], d[t][3]);
    }
    set_threads(saved);
    size_t v = (size_t)n * sizeof(vec3);
    int same_regf = 1, same_firr = 1, same_pot = 1, same_fpoly = 1;
    for (int t = 1; t < 3; t++) {
        same_regf &= !memcmp(r[0]->areg, r[t]->areg, v) && !memcmp(r[0]->jreg, r[t]->jreg, v) &&
                     lists_equal(r[0], r[t], NBMAX);
        same_firr &= !memcmp(r[0]->airr, r[t]->airr, v) && !memcmp(r[0]->jirr, r[t]->jirr, v);
        same_pot &= !memcmp(pot[0], pot[t], (size_t)n * sizeof *pot[0]);
        for (int q = 0; q < 4; q++) same_fpoly &= !memcmp(d[0][q], d[t][q], v);
    }
    CHECK(same_regf, "%s: regf (force, jerk, lists) bit-identical with 1, 2, 3 threads", name);
    CHECK(same_firr, "%s: firr bit-identical with 1, 2, 3 threads", name);
    CHECK(same_fpoly, "%s: fpoly bit-identical with 1, 2, 3 threads", name);
    CHECK(same_pot, "%s: pot bit-identical with 1, 2, 3 threads", name);
    for (int t = 0; t < 3; t++) {
        result_free(r[t]);
        free(pot[t]);
        for (int q = 0; q < 4; q++) free(d[t][q]);
    }
#else
    (void)b; (void)nb; (void)ir;
    SKIP("%s: thread independence: built without OpenMP", name);
#endif
}

/* A small nbmax: bodies with more neighbours get nnb = -(their count) and
 * are counted; the others keep their exact lists. */
static void test_overflow(const char *name, const bodies *b)
{
    enum { SMALL = 8 };
    int n = b->n;
    gpunb *nb = open_nb(n, SMALL);
    result *r = result_new(n, SMALL);
    load_bodies(nb, NULL, b, r->idx);
    gpunb_predict(nb, T_NOW);
    int ret = gpunb_regf(nb, n, r->idx, b->h2, b->dtr, (const vec3 *)b->xp, (const vec3 *)b->vp,
                         r->areg, r->jreg, r->nnb, r->list);
    int expect = 0, flag_bad = 0, list_bad = 0;
    int ref[SMALL + 1];
    for (int i = 0; i < n; i++) {
        int cnt = 0;
        for (int j = 0; j < n; j++)
            if (ref_is_neighbour(b, i, j)) {
                if (cnt <= SMALL) ref[cnt] = j;
                cnt++;
            }
        if (cnt > SMALL) {
            expect++;
            if (r->nnb[i] != -cnt) flag_bad++;
        } else if (r->nnb[i] != cnt || (cnt && memcmp(ref, r->list + (size_t)i * SMALL,
                                                        (size_t)cnt * sizeof *ref))) {
            list_bad++;
        }
    }
    CHECK(ret == expect && flag_bad == 0 && list_bad == 0 && expect > 0,
          "%s: nbmax=%d: regf returns %d overflows (expected %d), %d unflagged, %d wrong lists", name,
          SMALL, ret, expect, flag_bad, list_bad);
    result_free(r);
    gpunb_close(nb);
}

/* The two libraries and the test predict alike, bit for bit.  GPUNB with
 * h2 = 0 sums every j into the regular force (i-bodies at the test's
 * prediction, j-bodies at gpunb_predict's); GPUIRR with the full list sums
 * the same terms in the same order, with both at its own prediction.  The
 * two kernels use the same pair arithmetic, so the results are identical iff
 * the three predicted states are.  h2 = huge puts every j on the list and
 * leaves an exactly zero regular force; pred_act then gives what pred_all
 * gave for the bodies it is asked for. */
static void test_prediction(const char *name, const bodies *b)
{
    int n = b->n;
    gpunb *nb = open_nb(n, n);
    gpuirr *ir = open_irr(n, n);
    result *r0 = result_new(n, n), *r1 = result_new(n, n);
    double *h2zero = calloc((size_t)n, sizeof *h2zero), *h2huge = malloc((size_t)n * sizeof *h2huge);
    for (int i = 0; i < n; i++) h2huge[i] = 1e300;

    lib_forces(nb, ir, n, b, h2zero, r0); /* empty lists: force all regular */
    int empty = 1, irr_zero = 1;
    for (int i = 0; i < n; i++) {
        empty &= r0->nnb[i] == 0;
        for (int k = 0; k < 3; k++) irr_zero &= r0->airr[i][k] == 0 && r0->jirr[i][k] == 0;
    }
    CHECK(empty && irr_zero, "%s: h2 = 0: empty lists, zero irregular force", name);

    lib_forces(nb, ir, n, b, h2huge, r1); /* every j a neighbour: force all irregular */
    int full = 1, reg_zero = 1;
    for (int i = 0; i < n; i++) {
        full &= r1->nnb[i] == n - 1;
        const int *l = r1->list + (size_t)i * n;
        for (int k = 0; k < n - 1 && full; k++) full &= l[k] == (k < i ? k : k + 1);
        for (int k = 0; k < 3; k++) reg_zero &= r1->areg[i][k] == 0 && r1->jreg[i][k] == 0;
    }
    CHECK(full && reg_zero, "%s: h2 huge: full ascending lists, zero regular force", name);
    size_t v = (size_t)n * sizeof(vec3);
    CHECK(!memcmp(r0->areg, r1->airr, v) && !memcmp(r0->jreg, r1->jirr, v),
          "%s: GPUNB all-regular == GPUIRR all-irregular, bit for bit (one predicted state)", name);

    /* pred_act: fresh polynomials (predictions invalidated), predict only a
     * few active bodies and their neighbours, compare with pred_all. */
    result *r2 = result_new(n, n);
    lib_forces(nb, ir, n, b, b->h2, r2);
    int nact = n / 10, *act = malloc((size_t)nact * sizeof *act);
    for (int k = 0; k < nact; k++) act[k] = 7 * k % n;
    vec3 *a = malloc((size_t)nact * sizeof *a), *j = malloc((size_t)nact * sizeof *j);
    load_bodies(NULL, ir, b, NULL);
    gpuirr_pred_all(ir, 0, n, T_NOW + 1.0 / 64); /* stale state elsewhere */
    gpuirr_pred_act(ir, nact, act, T_NOW);
    int rc = gpuirr_firr(ir, nact, act, a, j);
    int same = rc == 0;
    for (int k = 0; k < nact; k++)
        same &= !memcmp(a[k], r2->airr[act[k]], sizeof a[k]) &&
                !memcmp(j[k], r2->jirr[act[k]], sizeof j[k]);
    CHECK(same, "%s: pred_act + firr on %d bodies == pred_all + firr, bit for bit", name, nact);
    free(act); free(a); free(j);
    result_free(r2);
    result_free(r0); result_free(r1);
    free(h2zero); free(h2huge);
    gpuirr_close(ir);
    gpunb_close(nb);
}

/* §7 pair term, written here in the recursive form
 *   a2 = m A/r^3 - 6 alpha adot - 3 beta a,
 *   a3 = m J/r^3 - 9 alpha a2 - 9 beta adot - 3 gamma a,
 * with a, adot the pair's force and jerk; s2, s3 get bounds of the term's
 * magnitude (every constituent taken positive), the scale roundoff errors
 * are measured against. */
static void ref_d2d3(long double m, const long double r[3], const long double v[3],
                     const long double A[3], const long double J[3],
                     long double d2[3], long double d3[3], long double *s2, long double *s3)
{
    long double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rr = sqrtl(r2);
    long double rv = 0, v2 = 0, rA = 0, vA = 0, rJ = 0, aA = 0, aJ = 0;
    for (int k = 0; k < 3; k++) {
        rv += r[k] * v[k];
        v2 += v[k] * v[k];
        rA += r[k] * A[k];
        vA += v[k] * A[k];
        rJ += r[k] * J[k];
        aA += A[k] * A[k];
        aJ += J[k] * J[k];
    }
    aA = sqrtl(aA);
    aJ = sqrtl(aJ);
    long double vv = sqrtl(v2), mr3 = m / (r2 * rr);
    long double al = rv / r2, be = (v2 + rA) / r2 + al * al;
    long double ga = (3 * vA + rJ) / r2 + al * (3 * be - 4 * al * al);
    for (int k = 0; k < 3; k++) {
        long double a = mr3 * r[k], ad = mr3 * v[k] - 3 * al * a;
        d2[k] = mr3 * A[k] - 6 * al * ad - 3 * be * a;
        d3[k] = mr3 * J[k] - 9 * al * d2[k] - 9 * be * ad - 3 * ga * a;
    }
    long double B = (v2 + fabsl(rA)) / r2 + al * al;
    long double G = (3 * fabsl(vA) + fabsl(rJ)) / r2 + fabsl(al) * (3 * B + 4 * al * al);
    long double t2 = mr3 * (aA + 6 * fabsl(al) * (vv + 3 * fabsl(al) * rr) + 3 * B * rr);
    *s2 += t2;
    *s3 += mr3 * (aJ + 9 * B * (vv + 3 * fabsl(al) * rr) + 3 * G * rr) + 9 * fabsl(al) * t2;
}

/* Direct §7 sums on i from all j (split by the contract when irr != NULL). */
static void ref_fpoly(const bodies *b, const long double (*x)[3], const long double (*v)[3],
                      const long double (*a)[3], const long double (*jk)[3], int i,
                      long double d2irr[3], long double d3irr[3], long double d2reg[3],
                      long double d3reg[3], double *s2, double *s3)
{
    long double S2 = 0, S3 = 0;
    for (int k = 0; k < 3; k++) d2irr[k] = d3irr[k] = d2reg[k] = d3reg[k] = 0;
    for (int j = 0; j < b->n; j++) {
        if (j == i) continue;
        long double r[3], u[3], A[3], J[3], d2[3], d3[3];
        for (int k = 0; k < 3; k++) {
            r[k] = x[j][k] - x[i][k];
            u[k] = v[j][k] - v[i][k];
            A[k] = a[j][k] - a[i][k];
            J[k] = jk[j][k] - jk[i][k];
        }
        ref_d2d3(b->m[j], r, u, A, J, d2, d3, &S2, &S3);
        int nb = ref_is_neighbour(b, i, j);
        for (int k = 0; k < 3; k++) {
            (nb ? d2irr : d2reg)[k] += d2[k];
            (nb ? d3irr : d3reg)[k] += d3[k];
        }
    }
    *s2 = (double)S2;
    *s3 = (double)S3;
}

static void to_ld(const bodies *b, long double (*x)[3], long double (*v)[3],
                  long double (*a)[3], long double (*j)[3])
{
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < 3; k++) {
            x[i][k] = b->xp[i][k];
            v[i][k] = b->vp[i][k];
            a[i][k] = b->a0[i][k];
            j[i][k] = b->j0[i][k];
        }
}

/* gpunb_fpoly vs the direct §7 sums, each part (irregular, regular) on its
 * own.  All t0 = T_NOW, so the stored a, jerk of j belong to its predicted
 * state; A, J are the random polynomial coefficients (the formulas are
 * algebraic in them).  Tolerance 1e-11 of the term-magnitude bound: each
 * double term has ~20 roundings, each a relative u of a constituent, summed
 * over N = 1000 terms: worst ~20 N u ~ 2e-12, typical far less. */
static void test_fpoly_direct(const char *name, const bodies *src)
{
    bodies *b = bodies_copy(src);
    int n = b->n;
    for (int i = 0; i < n; i++) {
        b->t0[i] = T_NOW;
        memcpy(b->x0[i], b->xp[i], sizeof b->x0[i]);
        memcpy(b->v0[i], b->vp[i], sizeof b->v0[i]);
    }
    predict_all(b, T_NOW);
    gpunb *nb = open_nb(n, NBMAX);
    int *idx = malloc((size_t)n * sizeof *idx);
    for (int i = 0; i < n; i++) idx[i] = i;
    load_bodies(nb, NULL, b, idx);
    gpunb_predict(nb, T_NOW);
    vec3 *d2i = malloc((size_t)n * sizeof(vec3)), *d3i = malloc((size_t)n * sizeof(vec3));
    vec3 *d2r = malloc((size_t)n * sizeof(vec3)), *d3r = malloc((size_t)n * sizeof(vec3));
    gpunb_fpoly(nb, n, idx, b->h2, b->dtr, (const vec3 *)b->xp, (const vec3 *)b->vp,
                (const vec3 *)b->a0, (const vec3 *)b->j0, d2i, d3i, d2r, d3r);
    long double(*x)[3] = malloc((size_t)n * sizeof *x), (*v)[3] = malloc((size_t)n * sizeof *v);
    long double(*a)[3] = malloc((size_t)n * sizeof *a), (*jk)[3] = malloc((size_t)n * sizeof *jk);
    to_ld(b, x, v, a, jk);
    double w2 = 0, w3 = 0, s2sum = 0, s3sum = 0;
    for (int i = 0; i < n; i++) {
        long double r2i[3], r3i[3], r2r[3], r3r[3];
        double s2, s3;
        ref_fpoly(b, (const long double(*)[3])x, (const long double(*)[3])v,
                  (const long double(*)[3])a, (const long double(*)[3])jk, i, r2i, r3i, r2r, r3r,
                  &s2, &s3);
        double e2 = fmax(diff_norm(d2i[i], r2i), diff_norm(d2r[i], r2r)) / s2;
        double e3 = fmax(diff_norm(d3i[i], r3i), diff_norm(d3r[i], r3r)) / s3;
        w2 = fmax(w2, e2);
        w3 = fmax(w3, e3);
        s2sum += e2 * e2;
        s3sum += e3 * e3;
    }
    CHECK(w2 <= 1e-11 && w3 <= 1e-11,
          "%s: fpoly irregular and regular parts vs direct §7 sums: a2 RMS %.2e worst %.2e, "
          "a3 RMS %.2e worst %.2e (<= 1e-11)", name, sqrt(s2sum / n), w2, sqrt(s3sum / n), w3);
    free(x); free(v); free(a); free(jk);
    free(d2i); free(d3i); free(d2r); free(d3r);
    free(idx);
    gpunb_close(nb);
    bodies_free(b);
}

/* ------------------------------------ start-up derivatives vs integration */

enum { NSMALL = 64 };

typedef struct {
    long double x[NSMALL][3], v[NSMALL][3];
} state;

static void direct_aj(const double *m, const state *s, long double a[NSMALL][3],
                      long double j[NSMALL][3])
{
    for (int i = 0; i < NSMALL; i++) {
        for (int k = 0; k < 3; k++) a[i][k] = j[i][k] = 0;
        for (int q = 0; q < NSMALL; q++) {
            if (q == i) continue;
            long double r[3], v[3];
            for (int k = 0; k < 3; k++) {
                r[k] = s->x[q][k] - s->x[i][k];
                v[k] = s->v[q][k] - s->v[i][k];
            }
            long double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            long double mr3 = m[q] / (r2 * sqrtl(r2)), al = (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]) / r2;
            for (int k = 0; k < 3; k++) {
                a[i][k] += mr3 * r[k];
                j[i][k] += mr3 * (v[k] - 3 * al * r[k]);
            }
        }
    }
}

static void rk4_step(const double *m, state *s, long double dt)
{
    static const long double w[4] = {0, 0.5L, 0.5L, 1};
    long double kx[4][NSMALL][3], kv[4][NSMALL][3], a[NSMALL][3], jdummy[NSMALL][3];
    state t;
    for (int st = 0; st < 4; st++) {
        t = *s;
        if (st)
            for (int i = 0; i < NSMALL; i++)
                for (int k = 0; k < 3; k++) {
                    t.x[i][k] += w[st] * dt * kx[st - 1][i][k];
                    t.v[i][k] += w[st] * dt * kv[st - 1][i][k];
                }
        direct_aj(m, &t, a, jdummy);
        for (int i = 0; i < NSMALL; i++)
            for (int k = 0; k < 3; k++) {
                kx[st][i][k] = t.v[i][k];
                kv[st][i][k] = a[i][k];
            }
    }
    for (int i = 0; i < NSMALL; i++)
        for (int k = 0; k < 3; k++) {
            s->x[i][k] += dt / 6 * (kx[0][i][k] + 2 * kx[1][i][k] + 2 * kx[2][i][k] + kx[3][i][k]);
            s->v[i][k] += dt / 6 * (kv[0][i][k] + 2 * kv[1][i][k] + 2 * kv[2][i][k] + kv[3][i][k]);
        }
}

/* Jerk and §7 a2 (direct sums) at one integrated state. */
static void jerk_and_a2(const bodies *b, const state *s, long double jk[NSMALL][3],
                        long double a2[NSMALL][3])
{
    long double a[NSMALL][3];
    direct_aj(b->m, s, a, jk);
    for (int i = 0; i < NSMALL; i++) {
        long double d3irr[3], d2reg[3], d3reg[3];
        double s2, s3;
        ref_fpoly(b, (const long double(*)[3])s->x, (const long double(*)[3])s->v,
                  (const long double(*)[3])a, (const long double(*)[3])jk, i, a2[i], d3irr, d2reg,
                  d3reg, &s2, &s3);
        for (int k = 0; k < 3; k++) a2[i][k] += d2reg[k]; /* irregular + regular */
    }
}

/* a2 and a3 from gpunb_fpoly (irregular + regular) at t = 0 against
 * derivatives along an accurate integration: with h = 2e-4,
 *   a2 ~ Richardson of (jerk(h) - jerk(-h))/(2h) and (jerk(h/2) - jerk(-h/2))/h,
 *   a3 ~ the same of the §7 a2 at the integrated states.
 * 64 equal-mass bodies, no pair closer than 0.05, so every timescale
 * T = r/v, sqrt(r^3/m) is >~ 0.02 and h/T <~ 1e-2: the extrapolated
 * differences are good to ~(h/T)^4 ~ 1e-8; RK4 in long double with steps of
 * h/32 leaves errors ~(dt/T)^5 per step, negligible; roundoff in the
 * long double sums divided by 2h stays ~1e-15.  Errors are measured against
 * each body's term-magnitude bound (s2, s3 of ref_d2d3), the natural scale of
 * the cancelling sums; tolerance 1e-5. */
static void test_fpoly_integration(rng_t *rng)
{
    bodies *b = bodies_new(NSMALL);
    for (int i = 0; i < NSMALL; i++) {
        b->m[i] = 1.0 / NSMALL;
        for (;;) {
            plummer_point(rng, 0.6, 0.5, b->x0[i], b->v0[i]);
            int ok = 1;
            for (int q = 0; q < i && ok; q++) {
                double dx = b->x0[q][0] - b->x0[i][0], dy = b->x0[q][1] - b->x0[i][1],
                       dz = b->x0[q][2] - b->x0[i][2];
                ok = dx * dx + dy * dy + dz * dz >= 0.05 * 0.05;
            }
            if (ok) break;
        }
        b->t0[i] = T_NOW;
    }
    state s0;
    for (int i = 0; i < NSMALL; i++)
        for (int k = 0; k < 3; k++) {
            s0.x[i][k] = b->x0[i][k];
            s0.v[i][k] = b->v0[i][k];
        }
    long double a[NSMALL][3], jk[NSMALL][3];
    direct_aj(b->m, &s0, a, jk);
    for (int i = 0; i < NSMALL; i++)
        for (int k = 0; k < 3; k++) {
            b->a0[i][k] = (double)a[i][k];
            b->j0[i][k] = (double)jk[i][k];
        }
    predict_all(b, T_NOW);
    choose_h2_dtr(rng, b);
    for (int i = 0; i < NSMALL; i++) b->h2[i] *= 0.1; /* N = 64: lists of ~0..10 */

    gpunb *nb = open_nb(NSMALL, NBMAX);
    int idx[NSMALL];
    for (int i = 0; i < NSMALL; i++) idx[i] = i;
    load_bodies(nb, NULL, b, idx);
    gpunb_predict(nb, T_NOW);
    vec3 d2i[NSMALL], d3i[NSMALL], d2r[NSMALL], d3r[NSMALL];
    gpunb_fpoly(nb, NSMALL, idx, b->h2, b->dtr, (const vec3 *)b->xp, (const vec3 *)b->vp,
                (const vec3 *)b->a0, (const vec3 *)b->j0, d2i, d3i, d2r, d3r);
    gpunb_close(nb);

    /* states at -h, -h/2, h/2, h */
    const long double h = 2e-4L;
    const int nsub = 16;
    static state st[4];
    long double jt[4][NSMALL][3], a2t[4][NSMALL][3];
    for (int dir = 0; dir < 2; dir++) {
        state s = s0;
        long double dt = (dir ? h : -h) / 2 / nsub;
        for (int half = 0; half < 2; half++) {
            for (int q = 0; q < nsub; q++) rk4_step(b->m, &s, dt);
            st[dir ? 2 + half : 1 - half] = s;
        }
    }
    for (int q = 0; q < 4; q++) jerk_and_a2(b, &st[q], jt[q], a2t[q]);

    double w2 = 0, w3 = 0, w2p = 0, s2sum = 0, s3sum = 0;
    long double x0l[NSMALL][3], v0l[NSMALL][3], a0l[NSMALL][3], j0l[NSMALL][3];
    to_ld(b, x0l, v0l, a0l, j0l);
    for (int i = 0; i < NSMALL; i++) {
        long double r2i[3], r3i[3], r2r[3], r3r[3];
        double s2, s3;
        ref_fpoly(b, (const long double(*)[3])x0l, (const long double(*)[3])v0l,
                  (const long double(*)[3])a0l, (const long double(*)[3])j0l, i, r2i, r3i, r2r, r3r,
                  &s2, &s3);
        long double fd2[3], fd3[3], lib2[3], lib3[3], e2 = 0, e3 = 0, e2p = 0;
        for (int k = 0; k < 3; k++) {
            long double D2h = (jt[3][i][k] - jt[0][i][k]) / (2 * h), D2q = (jt[2][i][k] - jt[1][i][k]) / h;
            long double D3h = (a2t[3][i][k] - a2t[0][i][k]) / (2 * h), D3q = (a2t[2][i][k] - a2t[1][i][k]) / h;
            fd2[k] = (4 * D2q - D2h) / 3;
            fd3[k] = (4 * D3q - D3h) / 3;
            lib2[k] = (long double)d2i[i][k] + d2r[i][k];
            lib3[k] = (long double)d3i[i][k] + d3r[i][k];
            e2 += (lib2[k] - fd2[k]) * (lib2[k] - fd2[k]);
            e3 += (lib3[k] - fd3[k]) * (lib3[k] - fd3[k]);
            e2p += (lib2[k] - D2h) * (lib2[k] - D2h);
        }
        double n2 = (double)sqrtl(e2) / s2, n3 = (double)sqrtl(e3) / s3;
        w2 = fmax(w2, n2);
        w3 = fmax(w3, n3);
        w2p = fmax(w2p, (double)sqrtl(e2p) / s2);
        s2sum += n2 * n2;
        s3sum += n3 * n3;
    }
    CHECK(w2 <= 1e-5, "fpoly a2 (irr + reg) vs d(jerk)/dt along an RK4 integration (N=%d, h=%.0Le): "
          "RMS %.2e worst %.2e (<= 1e-5; plain central difference worst %.2e)", NSMALL, h,
          sqrt(s2sum / NSMALL), w2, w2p);
    CHECK(w3 <= 1e-5, "fpoly a3 (irr + reg) vs d(a2)/dt along the integration: RMS %.2e worst %.2e "
          "(<= 1e-5)", sqrt(s3sum / NSMALL), w3);
    bodies_free(b);
}

/* A body on top of one of its neighbours: firr fails and names both; the
 * first failing body in ilist order is the one reported. */
static void test_coincide(void)
{
    gpuirr *ir = open_irr(8, 4);
    double z[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++) {
        double x[3] = {i * 0.5, 0.25, -1.0}, v[3] = {0.1, 0, 0};
        if (i == 6) x[0] = 0.5; /* slot 6 sits on slot 1 */
        if (i == 7) x[0] = 1.0; /* slot 7 sits on slot 2 */
        gpuirr_set_jp(ir, i, T_NOW, x, v, z, z, 0.125);
    }
    int l0[2] = {2, 3}, l1[3] = {0, 5, 6}, l2[1] = {7}, l3[1] = {4};
    gpuirr_set_list(ir, 0, 2, l0);
    gpuirr_set_list(ir, 1, 3, l1);
    gpuirr_set_list(ir, 2, 1, l2);
    gpuirr_set_list(ir, 3, 1, l3);
    gpuirr_pred_all(ir, 0, 8, T_NOW);
    double a[4][3], j[4][3];
    int ok0 = gpuirr_firr(ir, 1, (int[]){0}, a, j);
    int il[4] = {3, 0, 1, 2};
    int rc = gpuirr_firr(ir, 4, il, a, j);
    const char *e = gpuirr_error(ir);
    CHECK(ok0 == 0 && rc == -1 && strstr(e, "bodies 1 and 6 coincide") != NULL,
          "coincident neighbour: firr returns %d (clean call %d), error \"%s\"", rc, ok0, e);
    gpuirr_close(ir);
}

int main(void)
{
    rng_t rng;
    rng_init(&rng, check_seed());

    gpunb *nb = open_nb(3000, NBMAX);
    gpuirr *ir = open_irr(3000, NBMAX);
    CHECK(!strcmp(gpunb_backend(nb), "cpu-ref") && !strcmp(gpuirr_backend(ir), "scalar"),
          "backends: gpunb \"%s\", gpuirr \"%s\"", gpunb_backend(nb), gpuirr_backend(ir));

    struct { const char *name; int n, clumpy; } cfg[] = {
        {"plummer-1000", 1000, 0}, {"clumpy-1000", 1000, 1},
        {"plummer-3000", 3000, 0}, {"clumpy-3000", 3000, 1},
    };
    bodies *keep[4];
    for (int c = 0; c < 4; c++) {
        keep[c] = make_bodies(&rng, cfg[c].n, cfg[c].clumpy);
        test_force_split(cfg[c].name, keep[c], nb, ir);
        test_jerk_fd(cfg[c].name, keep[c], nb, ir);
        test_potential(cfg[c].name, keep[c], nb);
    }
    test_threads(cfg[3].name, keep[3], nb, ir);
    test_overflow(cfg[1].name, keep[1]);
    test_prediction(cfg[0].name, keep[0]);
    test_fpoly_direct(cfg[0].name, keep[0]);
    test_fpoly_direct(cfg[1].name, keep[1]);
    test_fpoly_integration(&rng);
    test_coincide();

    for (int c = 0; c < 4; c++) bodies_free(keep[c]);
    gpuirr_close(ir);
    gpunb_close(nb);
    return check_done();
}
