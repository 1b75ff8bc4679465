/* test_gpunb_cuda.c — the CUDA backend of GPUNB against a double-precision
 * reference written here (and the CPU backend when the library has it):
 * regular force, jerk and neighbour lists on Plummer and clumpy inputs,
 * N_i in {1, 7, 32, 1000, 4096}, N_j from 1 to 262144; nbmax overflow;
 * a slice list that fills (redone, not an overflow); GPU prediction against
 * host prediction; FP64 differences; 1-vs-2-GPU bit identity; start-up
 * derivatives and potential; the irregular force over given lists
 * (gpunb_irrf) against a double sum.  Without a GPU it prints why and skips.
 *
 * Bounds (docs/ALGORITHMS.md): |dF_i| <= eps * sum_j |F_ij| over the summed terms,
 * eps <= 1e-6 RMS and 1e-5 worst (two-float differences, single-precision
 * terms: each term carries ~1e-7 relative error from rsqrtf and rounding,
 * random in sign; chunk sums are Kahan-compensated per slice, slices summed
 * in double).  Neighbour sets may differ from the double contract only for
 * pairs with |r_min/(h sqrt(m_j/<m>)) - 1| < 1e-5 (float r^2 is good to a few
 * 1e-7), counted, at most 1e-4 of all neighbour pairs.  fpoly's bounds are
 * at check_fpoly (float terms; double with NBODY6C_GPU_FP64).  pot is
 * computed in double on the GPU: sums of <= 262144 terms in another order
 * differ by <= n*u*sum|t| ~ 3e-11 of the term magnitudes, so 1e-10.  The
 * potential's triangle rows (gpunb_pot_rows) must be the contract's plain
 * loop bit for bit (IEEE operations in the host's order), on 1 or 2 GPUs,
 * and within tests/potref.h's bound, (k + 3.5) 2^-53 for a row of k terms,
 * of a long-double reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "check.h"
#include "potref.h"
#include "gpunb/gpunb.h"
#ifdef HAVE_CUDA
#include "gpunb/gpunb_cuda.h"
#endif

#define JBEG 3
#define NBMAX 400
#define C3(p) ((const double (*)[3])(p))

typedef struct {
    int n;                 /* slots: [0, JBEG) are not j-bodies, [JBEG, n) are */
    double *t0, *m;
    double (*x)[3], (*v)[3], (*a)[3], (*jk)[3];   /* polynomial at t0 */
    double (*xp)[3], (*vp)[3];                    /* predicted at t (host) */
    double mmean;
} bodies;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double urand(uint64_t *s) { return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }
static double grand(uint64_t *s)
{
    double u = urand(s) + 1e-300, w = urand(s);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * w);
}

static void iso(uint64_t *s, double r, double out[3])
{
    double z = 2 * urand(s) - 1, ph = 2 * M_PI * urand(s), q = sqrt(1 - z * z);
    out[0] = r * q * cos(ph); out[1] = r * q * sin(ph); out[2] = r * z;
}

static double plummer_radius(uint64_t *s)
{
    double u = urand(s) * 0.999 + 1e-6;
    return 1.0 / sqrt(pow(u, -2.0 / 3.0) - 1.0);
}

static bodies make_bodies(int nj, int clumpy, uint64_t *s)
{
    bodies B;
    B.n = nj + JBEG;
    size_t n = (size_t)B.n;
    B.t0 = calloc(n, sizeof(double)); B.m = calloc(n, sizeof(double));
    B.x = calloc(n, sizeof *B.x); B.v = calloc(n, sizeof *B.v);
    B.a = calloc(n, sizeof *B.a); B.jk = calloc(n, sizeof *B.jk);
    B.xp = calloc(n, sizeof *B.xp); B.vp = calloc(n, sizeof *B.vp);
    double msum = 0;
    int clump_left = 0;
    double cc[3] = {0, 0, 0};
    for (int i = 0; i < B.n; i++) {
        double r, d[3];
        if (clumpy && i >= JBEG && clump_left == 0 && urand(s) < 0.002 && B.n - i > 300) {
            clump_left = 200;   /* 200 consecutive slots in one tight clump */
            iso(s, plummer_radius(s), cc);
        }
        if (clump_left > 0) {
            iso(s, 0.02 * plummer_radius(s), d);
            for (int k = 0; k < 3; k++) B.x[i][k] = cc[k] + d[k];
            clump_left--;
        } else {
            r = plummer_radius(s);
            iso(s, r, B.x[i]);
        }
        for (int k = 0; k < 3; k++) {
            B.v[i][k] = 0.4 * grand(s);
            B.a[i][k] = grand(s);
            B.jk[i][k] = 3 * grand(s);
        }
        B.m[i] = (0.2 + 1.8 * urand(s)) / nj;
        if (i >= JBEG) msum += B.m[i];
    }
    B.mmean = msum / nj;
    return B;
}

static void free_bodies(bodies *B)
{
    free(B->t0); free(B->m); free(B->x); free(B->v); free(B->a); free(B->jk); free(B->xp); free(B->vp);
}

/* host prediction, operation order of src/common/predict.h */
static void predict_all(bodies *B, double t)
{
    for (int i = 0; i < B->n; i++) {
        double s = t - B->t0[i];
        for (int k = 0; k < 3; k++) {
            B->xp[i][k] = B->x[i][k] + s * (B->v[i][k] + s * (B->a[i][k] / 2 + s * B->jk[i][k] / 6));
            B->vp[i][k] = B->v[i][k] + s * (B->a[i][k] + s * B->jk[i][k] / 2);
        }
    }
}

static void send_all(gpunb *g, const bodies *B, double t)
{
    int nj = B->n - JBEG;
    int *idx = malloc((size_t)nj * sizeof(int));
    for (int k = 0; k < nj; k++) idx[k] = JBEG + k;
    gpunb_set_range(g, JBEG, B->n);
    gpunb_set_jp(g, nj, idx, B->t0 + JBEG, C3(B->x + JBEG), C3(B->v + JBEG), C3(B->a + JBEG),
                 C3(B->jk + JBEG), B->m + JBEG);
    gpunb_predict(g, t);
    free(idx);
}

typedef struct {
    int ni, *idx;
    double *h2, *dtr, (*x)[3], (*v)[3];
    double (*a)[3], (*jk)[3];
    int *nnb, *list, over;
} icase;

/* ni distinct i-bodies (a few outside the j-range when ni > 4), h from the
 * Plummer density for ~50 neighbours, tight clumps get a fixed h. */
static icase make_icase(const bodies *B, int ni, uint64_t *s, int clumpy)
{
    icase c;
    c.ni = ni;
    c.idx = malloc((size_t)ni * sizeof(int));
    c.h2 = malloc((size_t)ni * sizeof(double)); c.dtr = malloc((size_t)ni * sizeof(double));
    c.x = malloc((size_t)ni * sizeof *c.x); c.v = malloc((size_t)ni * sizeof *c.v);
    c.a = malloc((size_t)ni * sizeof *c.a); c.jk = malloc((size_t)ni * sizeof *c.jk);
    c.nnb = malloc((size_t)ni * sizeof(int)); c.list = malloc((size_t)ni * NBMAX * sizeof(int));
    int nj = B->n - JBEG;
    char *used = calloc((size_t)B->n, 1);
    for (int k = 0; k < ni; k++) {
        int i;
        if (ni > 4 && k < JBEG) i = k;   /* not a j-body: nothing to exclude */
        else if (ni <= nj) { do i = JBEG + (int)(urand(s) * nj); while (used[i]); }
        else i = JBEG + (int)(urand(s) * nj);
        used[i] = 1;
        c.idx[k] = i;
        double r2 = 0;
        for (int e = 0; e < 3; e++) { c.x[k][e] = B->xp[i][e]; c.v[k][e] = B->vp[i][e]; r2 += c.x[k][e] * c.x[k][e]; }
        double h = pow(50.0 / nj, 1.0 / 3.0) * pow(1 + r2, 5.0 / 6.0);
        if (clumpy && urand(s) < 0.5) h = 0.03;
        c.h2[k] = h * h / B->mmean;
        c.dtr[k] = urand(s) / 64;
    }
    free(used);
    return c;
}

static void free_icase(icase *c)
{
    free(c->idx); free(c->h2); free(c->dtr); free(c->x); free(c->v); free(c->a); free(c->jk);
    free(c->nnb); free(c->list);
}

static void run_regf(gpunb *g, icase *c)
{
    for (size_t k = 0; k < (size_t)c->ni * NBMAX; k++) c->list[k] = -7;   /* poison */
    for (int k = 0; k < c->ni; k++) { c->nnb[k] = -7; c->a[k][0] = NAN; c->jk[k][0] = NAN; }
    c->over = gpunb_regf(g, c->ni, c->idx, c->h2, c->dtr, C3(c->x), C3(c->v), c->a, c->jk, c->nnb, c->list);
}

typedef struct {
    double sa2, sj2, amax, jmax;   /* sums of eps^2, worst eps */
    long ni_cmp, pairs, ndiff, nbad, nover_bad, nover;
    double *rel;                   /* |dF|/|F| per i, for percentiles */
    long nrel;
} stats;

static int cmp_dbl(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* Checks one regf result against the double contract, body by body. */
static stats compare(const bodies *B, const icase *c)
{
    stats S;
    memset(&S, 0, sizeof S);
    S.rel = malloc((size_t)(c->ni + 1) * sizeof(double));
    int ov_expected = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : ov_expected)
    for (int k = 0; k < c->ni; k++) {
        const int self = c->idx[k];
        double fa[3] = {0, 0, 0}, fj[3] = {0, 0, 0}, ma = 0, mj = 0;
        long nref = 0, nbound = 0, ndiff = 0, nbad = 0;
        int p = 0, n = c->nnb[k];
        const int *L = c->list + (size_t)k * NBMAX;
        for (int j = JBEG; j < B->n; j++) {
            if (j == self) continue;
            double r[3], v[3], rp2 = 0, r2 = 0, rv = 0;
            for (int e = 0; e < 3; e++) {
                r[e] = B->xp[j][e] - c->x[k][e];
                v[e] = B->vp[j][e] - c->v[k][e];
                r2 += r[e] * r[e];
                rv += r[e] * v[e];
                double q = r[e] + c->dtr[k] * v[e];
                rp2 += q * q;
            }
            double lim = B->m[j] * c->h2[k], rmin2 = fmin(r2, rp2);
            int nbref = rmin2 < lim;
            int bound = fabs(sqrt(rmin2 / lim) - 1) < 1e-5;
            nref += nbref;
            nbound += bound;
            int ingpu = 0;
            if (n >= 0 && p < n && L[p] == j) { ingpu = 1; p++; }
            if (n >= 0 && ingpu != nbref) { if (bound) ndiff++; else nbad++; }
            if (!ingpu) {
                double r1 = sqrt(r2), mr3 = B->m[j] / (r2 * r1), al = 3 * rv / r2;
                for (int e = 0; e < 3; e++) {
                    double tj = mr3 * (v[e] - al * r[e]);
                    fa[e] += mr3 * r[e];
                    fj[e] += tj;
                }
                ma += mr3 * r2;
                double tv2 = 0;
                for (int e = 0; e < 3; e++) { double tj = mr3 * (v[e] - al * r[e]); tv2 += tj * tj; }
                mj += sqrt(tv2);
            }
        }
        if (n >= 0 && p != n) nbad += n - p + 1;   /* entries out of range, unsorted or repeated */
        if (nref > NBMAX) ov_expected++;
        double ea = 0, ej = 0, fn = 0;
        if (n >= 0) {
            for (int e = 0; e < 3; e++) {
                ea += (c->a[k][e] - fa[e]) * (c->a[k][e] - fa[e]);
                ej += (c->jk[k][e] - fj[e]) * (c->jk[k][e] - fj[e]);
                fn += fa[e] * fa[e];
            }
            ea = ma > 0 ? sqrt(ea) / ma : sqrt(ea);
            ej = mj > 0 ? sqrt(ej) / mj : sqrt(ej);
        }
#pragma omp critical
        {
            if (n >= 0) {
                S.ni_cmp++;
                S.pairs += n;
                S.sa2 += ea * ea;
                S.sj2 += ej * ej;
                if (!(ea <= S.amax)) S.amax = ea;   /* NaN propagates as a failure */
                if (!(ej <= S.jmax)) S.jmax = ej;
                if (fn > 0) S.rel[S.nrel++] = sqrt(((c->a[k][0] - fa[0]) * (c->a[k][0] - fa[0]) +
                                                    (c->a[k][1] - fa[1]) * (c->a[k][1] - fa[1]) +
                                                    (c->a[k][2] - fa[2]) * (c->a[k][2] - fa[2])) / fn);
            } else {
                S.nover++;
                if (nref <= NBMAX - nbound) S.nover_bad++;   /* flagged without cause */
            }
            if (n >= 0 && nref > NBMAX + nbound) S.nover_bad++; /* an overflow not flagged */
            /* an overflow gives -count: over NBMAX, the reference's count to the boundary pairs */
            if (n > NBMAX || (n < 0 && (-n <= NBMAX || labs(-n - nref) > nbound))) nbad++;
            S.ndiff += ndiff;
            S.nbad += nbad;
        }
    }
    if (c->over != S.nover) S.nover_bad++;
    (void)ov_expected;
    return S;
}

static long total_pairs, total_diff;

static void report(const char *name, stats *S)
{
    double rms_a = S->ni_cmp ? sqrt(S->sa2 / S->ni_cmp) : 0, rms_j = S->ni_cmp ? sqrt(S->sj2 / S->ni_cmp) : 0;
    qsort(S->rel, (size_t)S->nrel, sizeof(double), cmp_dbl);
    double p50 = S->nrel ? S->rel[S->nrel / 2] : 0, p99 = S->nrel ? S->rel[(S->nrel * 99) / 100] : 0;
    printf("# %s: acc eps rms %.2e max %.2e, jerk eps rms %.2e max %.2e, |dF|/|F| p50 %.1e p99 %.1e, "
           "%ld pairs, %ld boundary diffs, %ld overflowed\n",
           name, rms_a, S->amax, rms_j, S->jmax, p50, p99, S->pairs, S->ndiff, S->nover);
    CHECK(S->nbad == 0, "%s: neighbour lists follow the contract (%ld non-boundary differences)", name, S->nbad);
    CHECK(S->nover_bad == 0, "%s: overflow flags right (%ld wrong)", name, S->nover_bad);
    CHECK(rms_a <= 1e-6 && S->amax <= 1e-5, "%s: acceleration within bound (rms %.2e, max %.2e)", name, rms_a,
          S->amax);
    CHECK(rms_j <= 1e-6 && S->jmax <= 1e-5, "%s: jerk within bound (rms %.2e, max %.2e)", name, rms_j, S->jmax);
    total_pairs += S->pairs;
    total_diff += S->ndiff;
    free(S->rel);
}

static int same_results(const icase *p, const icase *q)
{
    if (p->ni != q->ni || p->over != q->over) return 0;
    if (memcmp(p->nnb, q->nnb, (size_t)p->ni * sizeof(int))) return 0;
    if (memcmp(p->a, q->a, (size_t)p->ni * sizeof *p->a)) return 0;
    if (memcmp(p->jk, q->jk, (size_t)p->ni * sizeof *p->jk)) return 0;
    for (int k = 0; k < p->ni; k++)
        if (p->nnb[k] > 0 && memcmp(p->list + (size_t)k * NBMAX, q->list + (size_t)k * NBMAX,
                                    (size_t)p->nnb[k] * sizeof(int)))
            return 0;
    return 1;
}

/* ---- start-up derivatives and potential: double references */

static double norm3(const double *u) { return sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]); }

/* The double reference of the start-up derivatives, with what the bounds
 * need: out[12] (d2 irr, d3 irr, d2 reg, d3 reg), mag (sums of the terms'
 * norms: the FP64 kernel's scale), big (sums of each term's magnitude
 * bound T2, T3 below: the float kernel's scale) and edge (the norms of the
 * terms of boundary pairs, whose split the float test may decide the other
 * way).  T2 and T3 are the terms' formulae with every quantity replaced by
 * the size of what the float kernel rounds: |v_i| + |v_j| for the velocity
 * difference, |a_i| + |a_j| and |j_i| + |j_j| likewise, all signs positive. */
typedef struct { double out[12], mag[2], big[2], edge[2]; } fpoly_refs;

static void fpoly_ref(const bodies *B, const icase *c, int k, fpoly_refs *R)
{
    const int self = c->idx[k];
    memset(R, 0, sizeof *R);
    const double ai = norm3(B->a[self]), ji = norm3(B->jk[self]), vi = norm3(c->v[k]);
    for (int j = JBEG; j < B->n; j++) {
        if (j == self) continue;
        double r[3], v[3], A[3], J[3], r2 = 0, rp2 = 0, rv = 0, v2 = 0, rA = 0, vA = 0, rJ = 0;
        for (int e = 0; e < 3; e++) {
            r[e] = B->xp[j][e] - c->x[k][e];
            v[e] = B->vp[j][e] - c->v[k][e];
            A[e] = B->a[j][e] - B->a[self][e];
            J[e] = B->jk[j][e] - B->jk[self][e];
            double q = r[e] + c->dtr[k] * v[e];
            r2 += r[e] * r[e]; rp2 += q * q; rv += r[e] * v[e]; v2 += v[e] * v[e];
            rA += r[e] * A[e]; vA += v[e] * A[e]; rJ += r[e] * J[e];
        }
        const double crit = B->m[j] * c->h2[k], rmin2 = fmin(r2, rp2);
        const int nb = rmin2 < crit, edge = fabs(rmin2 / crit - 1) < 2e-5;
        double mr3 = B->m[j] / (r2 * sqrt(r2)), al = rv / r2, be = (v2 + rA) / r2 + al * al;
        double ga = (3 * vA + rJ) / r2 + al * (3 * be - 4 * al * al);
        double m2 = 0, m3 = 0;
        for (int e = 0; e < 3; e++) {
            double t = v[e] - 3 * al * r[e];
            double d2 = mr3 * (A[e] - 6 * al * t - 3 * be * r[e]);
            double d3 = mr3 * (J[e] - 9 * be * t - 3 * ga * r[e]) - 9 * al * d2;
            R->out[(nb ? 0 : 6) + e] += d2;
            R->out[(nb ? 3 : 9) + e] += d3;
            m2 += d2 * d2; m3 += d3 * d3;
        }
        R->mag[0] += sqrt(m2);
        R->mag[1] += sqrt(m3);
        const double rr = sqrt(r2), V = vi + norm3(B->vp[j]), Aa = ai + norm3(B->a[j]), Jj = ji + norm3(B->jk[j]);
        const double a_ = rr * V / r2, b_ = (V * V + rr * Aa) / r2 + a_ * a_;
        const double g_ = (3 * V * Aa + rr * Jj) / r2 + a_ * (3 * b_ + 4 * a_ * a_);
        const double T2 = mr3 * (Aa + 6 * a_ * (V + 3 * a_ * rr) + 3 * b_ * rr);
        const double T3 = mr3 * (Jj + 9 * b_ * (V + 3 * a_ * rr) + 3 * g_ * rr) + 9 * a_ * T2;
        R->big[0] += T2;
        R->big[1] += T3;
        if (edge) { R->edge[0] += sqrt(m2); R->edge[1] += sqrt(m3); }
    }
}

/* fpoly of the i-bodies of c (all j-bodies; i's a, jerk = their polynomial's,
 * as at start-up when t0 = t).  fp64: the double kernel (NBODY6C_GPU_FP64),
 * whose sums of <= 262144 terms in another order differ by <= n u sum|t|,
 * ~3e-11 of mag: bound 1e-10 of mag.  Float (the default): each term is
 * ~30 single-precision operations on quantities no larger than T2, T3's
 * (so <= 30 u big, u = 2^-24), summed in float over 32 pairs (<= 32 u big)
 * then in double: <= 62 u big = 3.7e-6 big, bound 1e-5 big; the split
 * between neighbours and the rest may differ by the boundary pairs' terms
 * (edge, twice: one sum loses what the other gains), the totals not. */
static void check_fpoly(gpunb *g, const bodies *B, const icase *c, int fp64, const char *name)
{
    int ni = c->ni;
    double (*ai)[3] = malloc((size_t)ni * sizeof *ai), (*ji)[3] = malloc((size_t)ni * sizeof *ji);
    double (*d2i)[3] = malloc((size_t)ni * sizeof *d2i), (*d3i)[3] = malloc((size_t)ni * sizeof *d3i);
    double (*d2r)[3] = malloc((size_t)ni * sizeof *d2r), (*d3r)[3] = malloc((size_t)ni * sizeof *d3r);
    for (int k = 0; k < ni; k++)
        for (int e = 0; e < 3; e++) { ai[k][e] = B->a[c->idx[k]][e]; ji[k][e] = B->jk[c->idx[k]][e]; d2i[k][e] = NAN; }
    gpunb_fpoly(g, ni, c->idx, c->h2, c->dtr, C3(c->x), C3(c->v), C3(ai), C3(ji), d2i, d3i, d2r, d3r);
    double worst = 0, worst_tot = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(max : worst, worst_tot)
    for (int k = 0; k < ni; k++) {
        fpoly_refs R;
        fpoly_ref(B, c, k, &R);
        const double *got[4] = {d2i[k], d3i[k], d2r[k], d3r[k]};
        double w = 0, wt = 0;
        for (int d = 0; d < 2; d++) {   /* d2, d3 */
            double es = 0, et = 0;
            for (int e = 0; e < 3; e++) {
                double di = got[d][e] - R.out[d * 3 + e], dr = got[2 + d][e] - R.out[6 + d * 3 + e];
                es += di * di + dr * dr;
                et += (di + dr) * (di + dr);
            }
            const double scale = fp64 ? 1e-10 * R.mag[d] : 1e-5 * R.big[d];
            const double allow = fp64 ? scale : scale + 2 * R.edge[d];
            w = fmax(w, sqrt(es) / allow);
            wt = fmax(wt, sqrt(et) / scale);
        }
        if (!(w <= worst)) worst = isnan(w) ? INFINITY : w;
        if (!(wt <= worst_tot)) worst_tot = isnan(wt) ? INFINITY : wt;
    }
    CHECK(worst <= 1 && worst_tot <= 1,
          "%s: fpoly within its bound (%s), split %.2f of it, irr + reg %.2f of it", name,
          fp64 ? "1e-10 of the terms' norms" : "1e-5 of the terms' magnitude bounds, boundary pairs aside",
          worst, worst_tot);
    free(ai); free(ji); free(d2i); free(d3i); free(d2r); free(d3r);
}

static void check_pot(gpunb *g, const bodies *B, int n, const char *name)
{
    double *pot = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) pot[i] = NAN;
    gpunb_pot(g, n, B->m, C3(B->x), pot);
    double worst = 0;
#pragma omp parallel for reduction(max : worst)
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double r2 = 0;
            for (int e = 0; e < 3; e++) { double d = B->x[j][e] - B->x[i][e]; r2 += d * d; }
            s += B->m[j] / sqrt(r2);
        }
        double w = fabs(pot[i] - s) / s;
        if (!(w <= worst)) worst = isnan(w) ? INFINITY : w;
    }
    CHECK(worst <= 1e-10, "%s: potential of %d bodies within 1e-10 relative (worst %.2e)", name, n, worst);
    free(pot);
}

/* gpunb_pot_rows of the first n bodies: the plain loop's bits, and the
 * reference's bound on every stride-th row (the reference costs a
 * long-double sum a row on the host) */
static void check_pot_rows(gpunb *g, const bodies *B, int n, int stride, const char *name)
{
    double *row = malloc((size_t)n * sizeof(double)), *plain = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) row[i] = NAN;
    const double t0 = omp_get_wtime();
    gpunb_pot_rows(g, n, B->m, C3(B->x), row);
    const double dt = omp_get_wtime() - t0;
    potref_plain_rows(n, B->m, C3(B->x), plain);
    double rel, worst = potref_check(n, B->m, C3(B->x), row, stride, &rel);
    printf("# %s: pot rows of %d bodies %.3f ms; worst error %.2e relative, %.3f of the bound\n", name, n, 1e3 * dt,
           rel, worst);
    CHECK(memcmp(row, plain, (size_t)n * sizeof(double)) == 0, "%s: pot rows of %d bodies equal the plain loop bit for bit",
          name, n);
    CHECK(worst <= 1.0, "%s: pot rows of %d bodies within (k + 3.5) 2^-53 of the long-double rows (worst %.3f of it)",
          name, n, worst);
    free(row); free(plain);
}

/* ---- the cases */

static gpunb *open_cuda(int ngpu, int nmax, char *err, size_t errlen)
{
    gpunb_config cfg = {GPUNB_REQUIRED, ngpu};
    char notice[256];
    return gpunb_open(nmax, NBMAX, &cfg, notice, sizeof notice, err, errlen);
}

static void regf_cases(gpunb *g, uint64_t *seed)
{
    static const struct { int nj, clumpy, ni[4]; } C[] = {
        {1, 0, {1, 0}},
        {100, 0, {7, 1, 0}},
        {5000, 1, {32, 1000, 0}},
        {65536, 0, {1, 4096, 0}},
        {65536, 1, {4096, 7, 0}},
        {262144, 0, {7, 1000, 4096, 0}},
        {262144, 1, {1000, 0}},
    };
    for (size_t ci = 0; ci < sizeof C / sizeof C[0]; ci++) {
        bodies B = make_bodies(C[ci].nj, C[ci].clumpy, seed);
        predict_all(&B, 0.0);
        send_all(g, &B, 0.0);
        for (int q = 0; q < 4 && C[ci].ni[q]; q++) {
            icase c = make_icase(&B, C[ci].ni[q], seed, C[ci].clumpy);
            double t0 = omp_get_wtime();
            run_regf(g, &c);
            double dt = omp_get_wtime() - t0;
            stats S = compare(&B, &c);
            char name[96];
            snprintf(name, sizeof name, "%s N_j=%d N_i=%d", C[ci].clumpy ? "clumpy" : "plummer", C[ci].nj, c.ni);
            printf("# %s: regf %.3f ms\n", name, dt * 1e3);
            report(name, &S);
            free_icase(&c);
        }
        free_bodies(&B);
    }
}

/* Some i-bodies get a huge radius: more than NBMAX neighbours, flagged. */
static void overflow_case(gpunb *g, uint64_t *seed)
{
    bodies B = make_bodies(20000, 0, seed);
    predict_all(&B, 0.0);
    send_all(g, &B, 0.0);
    icase c = make_icase(&B, 300, seed, 0);
    int want = 0;
    for (int k = 0; k < c.ni; k += 7) { c.h2[k] *= 1000; want++; }
    run_regf(g, &c);
    stats S = compare(&B, &c);
    CHECK(c.over >= want - 2 && S.nover == c.over, "overflow: %d of %d enlarged bodies flagged, return value %d",
          (int)S.nover, want, c.over);
    report("overflow N_j=20000 N_i=300", &S);
    free_icase(&c);
    free_bodies(&B);
}

/* Bodies at different t0: the GPU's prediction against the host's. */
static void prediction_case(gpunb *g, uint64_t *seed)
{
    bodies B = make_bodies(65536, 0, seed);
    const double t = 0.5;
    for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
    predict_all(&B, t);
    send_all(g, &B, t);
    icase c = make_icase(&B, 1000, seed, 0);
    run_regf(g, &c);
    stats S = compare(&B, &c);
    report("GPU prediction (t0 spread) N_j=65536 N_i=1000", &S);
    free_icase(&c);
    free_bodies(&B);
}

static void slice_fill_case(gpunb *g, uint64_t *seed)
{
#ifdef HAVE_CUDA
    gpunb_cuda_stats s0, s1;
    gpunb_cuda_get_stats(g, &s0);
    /* clump members sit in consecutive slots, so one slice holds ~150 neighbours */
    bodies B = make_bodies(65536, 1, seed);
    predict_all(&B, 0.0);
    send_all(g, &B, 0.0);
    icase c = make_icase(&B, 2000, seed, 1);
    run_regf(g, &c);
    gpunb_cuda_get_stats(g, &s1);
    stats S = compare(&B, &c);
    printf("# slice lists: %ld redone launches so far, capacity %d\n", s1.slice_retries, s1.slice_capacity);
    CHECK(s1.slice_retries > 0, "a filled slice list was detected and redone (%ld times in all)", s1.slice_retries);
    report("slice fill clumpy N_j=65536 N_i=2000", &S);
    free_icase(&c);
    free_bodies(&B);
#else
    (void)g; (void)seed;
#endif
}

static void cpu_backend_case(gpunb *g, uint64_t *seed)
{
    gpunb_config cfg = {GPUNB_CPU_REF, 0};
    char err[256], notice[256];
    gpunb *gc = gpunb_open(70000, NBMAX, &cfg, notice, sizeof notice, err, sizeof err);
    if (!gc) { SKIP("CPU backend: %s", err); return; }
    bodies B = make_bodies(65536, 0, seed);
    predict_all(&B, 0.0);
    send_all(g, &B, 0.0);
    send_all(gc, &B, 0.0);
    icase c = make_icase(&B, 1000, seed, 0), d = make_icase(&B, 1000, seed, 0);
    memcpy(d.idx, c.idx, sizeof(int) * 1000);
    memcpy(d.h2, c.h2, sizeof(double) * 1000);
    memcpy(d.dtr, c.dtr, sizeof(double) * 1000);
    memcpy(d.x, c.x, sizeof(double) * 3000);
    memcpy(d.v, c.v, sizeof(double) * 3000);
    run_regf(g, &c);
    run_regf(gc, &d);
    long diff = 0, pairs = 0;
    double worst = 0;
    for (int k = 0; k < 1000; k++) {
        pairs += d.nnb[k] > 0 ? d.nnb[k] : 0;
        if (c.nnb[k] != d.nnb[k] ||
            (c.nnb[k] > 0 && memcmp(c.list + k * NBMAX, d.list + k * NBMAX, sizeof(int) * c.nnb[k]))) {
            diff++;   /* a body on the radius in one list only: its whole pull is in one force only */
            continue;
        }
        double e = 0, f = 0;
        for (int q = 0; q < 3; q++) { e += pow(c.a[k][q] - d.a[k][q], 2); f += d.a[k][q] * d.a[k][q]; }
        if (f > 0 && sqrt(e / f) > worst) worst = sqrt(e / f);
    }
    printf("# CPU backend vs CUDA: %ld of 1000 lists differ, worst |dF|/|F| %.2e\n", diff, worst);
    CHECK(diff <= 1 + pairs * 1e-4, "CPU and CUDA backends give the same lists (%ld differ)", diff);
    CHECK(worst < 1e-4, "CPU and CUDA backends agree on the force where the lists agree (worst |dF|/|F| %.2e)",
          worst);
    free_icase(&c); free_icase(&d); free_bodies(&B);
    gpunb_close(gc);
}

/* ---- gpunb_irrf: the irregular force over given lists */

/* Double reference over a list at the host-predicted state: errors
 * normalised by the sum of term magnitudes (docs/ALGORITHMS.md). */
static void irrf_ref_err(const bodies *B, const double xi[3], const double vi[3], int n, const int *L,
                         const double a[3], const double jk[3], double *ea, double *ej, double *rel)
{
    double fa[3] = {0, 0, 0}, fj[3] = {0, 0, 0}, ma = 0, mj = 0;
    for (int q = 0; q < n; q++) {
        int j = L[q];
        double r[3], v[3], r2 = 0, rv = 0, t2 = 0;
        for (int e = 0; e < 3; e++) {
            r[e] = B->xp[j][e] - xi[e];
            v[e] = B->vp[j][e] - vi[e];
            r2 += r[e] * r[e];
            rv += r[e] * v[e];
        }
        double mr3 = B->m[j] / (r2 * sqrt(r2)), al = 3 * rv / r2;
        for (int e = 0; e < 3; e++) {
            double tj = mr3 * (v[e] - al * r[e]);
            fa[e] += mr3 * r[e];
            fj[e] += tj;
            t2 += tj * tj;
        }
        ma += mr3 * sqrt(r2);
        mj += sqrt(t2);
    }
    double da = 0, dj = 0, fn = 0;
    for (int e = 0; e < 3; e++) {
        da += (a[e] - fa[e]) * (a[e] - fa[e]);
        dj += (jk[e] - fj[e]) * (jk[e] - fj[e]);
        fn += fa[e] * fa[e];
    }
    *ea = ma > 0 ? sqrt(da) / ma : sqrt(da);
    *ej = mj > 0 ? sqrt(dj) / mj : sqrt(dj);
    *rel = fn > 0 ? sqrt(da / fn) : 0;
}

/* Lists from the regular force (real neighbour sets), some i-bodies
 * outside the j-range, j-bodies at spread t0 (the GPU's prediction), more
 * i-bodies than one upload chunk; the stated bound (gpunb_cuda.cu, k_irrf:
 * 2.3e-6 worst for the acceleration) and docs/ALGORITHMS.md's for the jerk; two
 * calls (and 1 vs 2 GPUs where there are two) bit-identical. */
static void irrf_cases(gpunb *g, uint64_t *seed)
{
    static const struct { int nj, clumpy, ni; } C[] = {
        {5000, 1, 7}, {65536, 0, 1}, {65536, 1, 20000}, {262144, 0, 40000},
    };
    char err[256];
    gpunb *g2 = open_cuda(2, 262144 + JBEG, err, sizeof err);
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (g2 && gpunb_cuda_get_stats(g2, &st) && st.ngpu < 2) { gpunb_close(g2); g2 = NULL; }
#endif
    for (size_t ci = 0; ci < sizeof C / sizeof C[0]; ci++) {
        bodies B = make_bodies(C[ci].nj, C[ci].clumpy, seed);
        const double t = 0.5;
        for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
        predict_all(&B, t);
        send_all(g, &B, t);
        icase c = make_icase(&B, C[ci].ni, seed, C[ci].clumpy);
        run_regf(g, &c);
        const int ni = c.ni;
        const int **lp = malloc(sizeof(int *) * ni);
        int *nn = malloc(sizeof(int) * ni);
        long pairs = 0;
        for (int k = 0; k < ni; k++) {
            nn[k] = c.nnb[k] < 0 ? 0 : c.nnb[k];
            lp[k] = c.list + (size_t)k * NBMAX;
            pairs += nn[k];
        }
        double (*a)[3] = malloc(sizeof *a * ni), (*jk)[3] = malloc(sizeof *jk * ni);
        double (*a2)[3] = malloc(sizeof *a2 * ni), (*j2)[3] = malloc(sizeof *j2 * ni);
        for (int k = 0; k < ni; k++) a[k][0] = jk[k][0] = NAN;
        double w0 = omp_get_wtime();
        int rc = gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a, jk);
        double dt = omp_get_wtime() - w0;
        double sa2 = 0, sj2 = 0, amax = 0, jmax = 0, *rel = malloc(sizeof(double) * (ni + 1));
        for (int k = 0; k < ni; k++) {
            double ea, ej;
            irrf_ref_err(&B, c.x[k], c.v[k], nn[k], lp[k], a[k], jk[k], &ea, &ej, &rel[k]);
            sa2 += ea * ea;
            sj2 += ej * ej;
            if (!(ea <= amax)) amax = ea;
            if (!(ej <= jmax)) jmax = ej;
        }
        qsort(rel, (size_t)ni, sizeof(double), cmp_dbl);
        char name[96];
        snprintf(name, sizeof name, "irrf %s N_j=%d N_i=%d", C[ci].clumpy ? "clumpy" : "plummer", C[ci].nj, ni);
        double rms_a = sqrt(sa2 / ni), rms_j = sqrt(sj2 / ni);
        printf("# %s: %ld pairs, %.3f ms; acc eps rms %.2e max %.2e, jerk eps rms %.2e max %.2e, "
               "|dF|/|F| p50 %.1e p99 %.1e\n", name, pairs, dt * 1e3, rms_a, amax, rms_j, jmax, rel[ni / 2],
               rel[(ni * 99) / 100]);
        CHECK(rc == 0, "%s: returns 0 (%d)", name, rc);
        CHECK(rms_a <= 1e-6 && amax <= 2.3e-6, "%s: acceleration within bound (rms %.2e, max %.2e)", name, rms_a,
              amax);
        CHECK(rms_j <= 1e-6 && jmax <= 1e-5, "%s: jerk within bound (rms %.2e, max %.2e)", name, rms_j, jmax);
        gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a2, j2);
        CHECK(!memcmp(a, a2, sizeof *a * ni) && !memcmp(jk, j2, sizeof *jk * ni), "%s: two calls bit-identical",
              name);
        if (g2) {
            send_all(g2, &B, t);
            gpunb_irrf(g2, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a2, j2);
            CHECK(!memcmp(a, a2, sizeof *a * ni) && !memcmp(jk, j2, sizeof *jk * ni),
                  "%s: 1 and 2 GPUs bit-identical", name);
        }
#ifdef HAVE_CUDA
        if (ci == 2) {
            /* A neighbour within r_min (3e-11 from body 0, same polynomial
             * otherwise): summed again in double; body 1 lists one at its
             * very position: reported, its force zero, the others kept. */
            int k0 = -1, k1 = -1;
            for (int k = 0; k < ni && k1 < 0; k++)
                if (c.idx[k] >= JBEG && nn[k] >= 2) { if (k0 < 0) k0 = k; else k1 = k; }
            int j0 = lp[k0][1], j1 = lp[k1][0];
            int sl[2] = {j0, j1};
            double tj[2] = {B.t0[c.idx[k0]], B.t0[c.idx[k1]]}, mj[2] = {B.m[j0], B.m[j1]};
            double xs[2][3], vs[2][3], as[2][3], js[2][3];
            for (int e = 0; e < 3; e++) {
                xs[0][e] = B.x[c.idx[k0]][e] + (e == 0 ? 3e-11 : 0.0);
                xs[1][e] = B.x[c.idx[k1]][e];
                vs[0][e] = B.v[c.idx[k0]][e]; vs[1][e] = B.v[c.idx[k1]][e];
                as[0][e] = B.a[c.idx[k0]][e]; as[1][e] = B.a[c.idx[k1]][e];
                js[0][e] = B.jk[c.idx[k0]][e]; js[1][e] = B.jk[c.idx[k1]][e];
            }
            for (int q = 0; q < 2; q++) {
                int j = sl[q];
                B.t0[j] = tj[q];
                memcpy(B.x[j], xs[q], sizeof xs[q]); memcpy(B.v[j], vs[q], sizeof vs[q]);
                memcpy(B.a[j], as[q], sizeof as[q]); memcpy(B.jk[j], js[q], sizeof js[q]);
            }
            gpunb_set_jp(g, 2, sl, tj, C3(xs), C3(vs), C3(as), C3(js), mj);
            gpunb_predict(g, t);
            predict_all(&B, t);
            gpunb_cuda_stats s0, s1;
            gpunb_cuda_get_stats(g, &s0);
            rc = gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a2, j2);
            gpunb_cuda_get_stats(g, &s1);
            double ea, ej, r;
            irrf_ref_err(&B, c.x[k0], c.v[k0], nn[k0], lp[k0], a2[k0], j2[k0], &ea, &ej, &r);
            int others = 1;
            for (int k = 0; k < ni; k++) {
                if (k == k0 || k == k1) continue;
                int touched = 0;
                for (int q = 0; q < nn[k]; q++) touched |= lp[k][q] == j0 || lp[k][q] == j1;
                if (!touched) others &= !memcmp(a[k], a2[k], sizeof a[k]) && !memcmp(jk[k], j2[k], sizeof jk[k]);
            }
            printf("# irrf near pair: %ld bodies summed in double, error %.1e / %.1e\n",
                   s1.irrf_double - s0.irrf_double, ea, ej);
            CHECK(rc == k1 + 1 && a2[k1][0] == 0.0 && j2[k1][0] == 0.0 && others,
                  "irrf: a neighbour at r = 0 reported (%d, want %d), its force zero, other bodies unchanged", rc,
                  k1 + 1);
            CHECK(s1.irrf_double > s0.irrf_double && ea <= 1e-12 && ej <= 1e-12,
                  "irrf: a neighbour at 3e-11 summed in double (error %.1e, %.1e)", ea, ej);
            /* the same through the resident lists (k_irrf_d reads them too) */
            double (*a3)[3] = malloc(sizeof *a3 * ni), (*j3)[3] = malloc(sizeof *j3 * ni);
            gpunb_set_list(g, ni, c.idx, nn, (const int *const *)lp);
            int rc3 = gpunb_irrf_resident(g, ni, c.idx, C3(c.x), C3(c.v), a3, j3);
            CHECK(rc3 == rc && !memcmp(a2, a3, sizeof *a2 * ni) && !memcmp(j2, j3, sizeof *j2 * ni),
                  "irrf_resident: the near pair and the r = 0 body as with the lists given (%d, %d)", rc3, rc);
            free(a3); free(j3);
            int keep = lp[k1][0];
            c.list[(size_t)k1 * NBMAX] = 0;   /* slot 0 < JBEG: not a j-body */
            rc = gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a2, j2);
            c.list[(size_t)k1 * NBMAX] = keep;
            CHECK(rc == k1 + 1, "irrf: a slot outside the j-range reported (%d, want %d)", rc, k1 + 1);
        }
#endif
        free(rel); free(a); free(jk); free(a2); free(j2); free(lp); free(nn);
        free_icase(&c);
        free_bodies(&B);
    }
    if (g2) gpunb_close(g2);
}

/* ---- resident lists (gpunb.h): regf's lists kept on the GPU, set_list's
 * uploads, irrf_resident the same sums as gpunb_irrf over the same lists */
static void resident_case(gpunb *g, const char *tag, uint64_t *seed)
{
    bodies B = make_bodies(65536, 1, seed);
    const double t = 0.5;
    for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
    predict_all(&B, t);
    send_all(g, &B, t);
    gpunb_set_list(g, 0, NULL, NULL, NULL);   /* lists on, every one empty */
    icase c = make_icase(&B, 20000, seed, 1);
    run_regf(g, &c);                          /* keeps each whole list */
    const int ni = c.ni;
    const int **lp = malloc(sizeof(int *) * (ni + 1));
    int *nn = malloc(sizeof(int) * (ni + 1)), *idx2 = malloc(sizeof(int) * (ni + 1));
    double (*a)[3] = malloc(sizeof *a * ni), (*jk)[3] = malloc(sizeof *jk * ni);
    double (*a2)[3] = malloc(sizeof *a2 * ni), (*j2)[3] = malloc(sizeof *j2 * ni);
    int nover = 0;
    for (int k = 0; k < ni; k++) {
        nover += c.nnb[k] < 0;
        nn[k] = c.nnb[k] < 0 ? 0 : c.nnb[k];   /* an overflowed body keeps its (empty) list */
        lp[k] = c.list + (size_t)k * NBMAX;
    }
    double w0 = omp_get_wtime();
    int rc = gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a, jk);
    double w1 = omp_get_wtime();
    for (int k = 0; k < ni; k++) a2[k][0] = j2[k][0] = NAN;
    int rc2 = gpunb_irrf_resident(g, ni, c.idx, C3(c.x), C3(c.v), a2, j2);
    double w2 = omp_get_wtime();
    printf("# resident %s: %d bodies (%d overflowed), lists given %.3f ms, resident %.3f ms\n", tag, ni, nover,
           1e3 * (w1 - w0), 1e3 * (w2 - w1));
    CHECK(rc == 0 && rc2 == 0 && !memcmp(a, a2, sizeof *a * ni) && !memcmp(jk, j2, sizeof *jk * ni),
          "resident %s: gpunb_regf's lists kept, irrf_resident equals gpunb_irrf bit for bit", tag);
#ifdef HAVE_CUDA
    {   /* gpunb_irrf_members: the i-bodies predicted on the GPU from its
         * polynomials (c.x, c.v are the host's predict3 of the same ones);
         * with the first JBEG bodies, which are no j-bodies, it sends them */
        gpunb_cuda_stats s0, s1, s2;
        gpunb_cuda_get_stats(g, &s0);
        const int nm = ni - JBEG;
        for (int k = 0; k < ni; k++) a2[k][0] = j2[k][0] = NAN;
        const int rm = gpunb_irrf_members(g, nm, c.idx + JBEG, C3(c.x + JBEG), C3(c.v + JBEG), a2 + JBEG, j2 + JBEG);
        gpunb_cuda_get_stats(g, &s1);
        CHECK(rm == 0 && s1.irrf_members == s0.irrf_members + 1 && !memcmp(a + JBEG, a2 + JBEG, sizeof *a * nm) &&
                  !memcmp(jk + JBEG, j2 + JBEG, sizeof *jk * nm),
              "resident %s: irrf_members, i-bodies predicted on the GPU, equals gpunb_irrf bit for bit (%d bodies)",
              tag, nm);
        for (int k = 0; k < ni; k++) a2[k][0] = j2[k][0] = NAN;
        const int rn = gpunb_irrf_members(g, ni, c.idx, C3(c.x), C3(c.v), a2, j2);
        gpunb_cuda_get_stats(g, &s2);
        CHECK(rn == 0 && s2.irrf_members == s1.irrf_members && !memcmp(a, a2, sizeof *a * ni) &&
                  !memcmp(jk, j2, sizeof *jk * ni),
              "resident %s: irrf_members with bodies outside the j-range sends them, bit for bit", tag);
    }
#endif

    /* set_list: every list without its first entry; body 5's slot named
     * again at the end with its whole list (the last one wins) */
    for (int k = 0; k < ni; k++) {
        idx2[k] = c.idx[k];
        if (nn[k] > 0) { lp[k]++; nn[k]--; }
    }
    idx2[ni] = c.idx[5];
    lp[ni] = c.list + (size_t)5 * NBMAX;
    nn[ni] = c.nnb[5] < 0 ? 0 : c.nnb[5];
    gpunb_set_list(g, ni + 1, idx2, nn, (const int *const *)lp);
    lp[5] = lp[ni];
    nn[5] = nn[ni];
    rc = gpunb_irrf(g, ni, C3(c.x), C3(c.v), nn, (const int *const *)lp, a, jk);
    rc2 = gpunb_irrf_resident(g, ni, c.idx, C3(c.x), C3(c.v), a2, j2);
    CHECK(rc == 0 && rc2 == 0 && !memcmp(a, a2, sizeof *a * ni) && !memcmp(jk, j2, sizeof *jk * ni),
          "resident %s: set_list's lists (a slot named twice: the last) taken, bit for bit", tag);

    /* a resident list naming a slot outside the j-range */
    int bad[2] = {0, lp[7][0]}, nbad = 2;
    const int *bp = bad;
    gpunb_set_list(g, 1, &c.idx[7], &nbad, &bp);
    rc2 = gpunb_irrf_resident(g, ni, c.idx, C3(c.x), C3(c.v), a2, j2);
    int others = 1;
    for (int k = 0; k < ni; k++)
        if (k != 7) others &= !memcmp(a[k], a2[k], sizeof a[k]);
    CHECK(rc2 == 8 && a2[7][0] == 0.0 && j2[7][0] == 0.0 && others,
          "resident %s: a slot outside the j-range reported on the GPU (%d, want 8), its force zero, the others kept",
          tag, rc2);
    free(lp); free(nn); free(idx2); free(a); free(jk); free(a2); free(j2);
    free_icase(&c);
    free_bodies(&B);
}

static void resident_cases(uint64_t *seed)
{
    char err[256];
    gpunb *g1 = open_cuda(1, 262144 + JBEG, err, sizeof err);
    if (g1) {
        resident_case(g1, "1 GPU", seed);
        gpunb_close(g1);
    }
    gpunb *g2 = open_cuda(2, 262144 + JBEG, err, sizeof err);
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (g2 && gpunb_cuda_get_stats(g2, &st) && st.ngpu < 2) { gpunb_close(g2); g2 = NULL; }
#endif
    if (g2) {
        resident_case(g2, "2 GPUs", seed);   /* regf's lists combined on the host, then kept */
        gpunb_close(g2);
    } else {
        SKIP("resident lists on 2 GPUs: fewer here");
    }
}

/* gpunb_regf_begin/_end against gpunb_regf on ngpu GPUs: more i-bodies
 * than one chunk (the end runs the others), clumps (slice lists redone),
 * set_jp updates pending at the begin (it sends them to every GPU), some
 * lists over NBMAX; the forces, lists, return value and the resident lists
 * (joined on GPU 0 from every GPU's part) bit for bit. */
static void split_case(int ngpu, uint64_t *seed)
{
    char err[256];
    setenv("NBODY6C_SETJP_EAGER", "0", 1);  /* set_jp's updates pending at the begin */
    gpunb *g = open_cuda(ngpu, 65536 + JBEG, err, sizeof err);
    unsetenv("NBODY6C_SETJP_EAGER");
    if (!g) { CHECK(0, "%d-GPU instance opens: %s", ngpu, err); return; }
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (gpunb_cuda_get_stats(g, &st) && st.ngpu < ngpu) {
        SKIP("gpunb_regf_begin/_end on %d GPUs: only %d here", ngpu, st.ngpu);
        gpunb_close(g);
        return;
    }
#endif
    bodies B = make_bodies(65536, 1, seed);
    const double t = 0.5;
    for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
    predict_all(&B, t);
    icase c = make_icase(&B, 20000, seed, 1), d = make_icase(&B, 20000, seed, 1);
    for (int k = 0; k < c.ni; k += 97) c.h2[k] *= 1000;   /* over NBMAX */
    memcpy(d.idx, c.idx, sizeof(int) * c.ni);
    memcpy(d.h2, c.h2, sizeof(double) * c.ni);
    memcpy(d.dtr, c.dtr, sizeof(double) * c.ni);
    memcpy(d.x, c.x, sizeof *c.x * c.ni);
    memcpy(d.v, c.v, sizeof *c.v * c.ni);
    double (*a1)[3] = (double (*)[3])malloc(sizeof *a1 * c.ni), (*j1)[3] = (double (*)[3])malloc(sizeof *j1 * c.ni);
    double (*a2)[3] = (double (*)[3])malloc(sizeof *a2 * c.ni), (*j2)[3] = (double (*)[3])malloc(sizeof *j2 * c.ni);
    int *empty = (int *)calloc((size_t)c.ni, sizeof(int));
    const int **none = (const int **)malloc(sizeof(int *) * c.ni);
    for (int k = 0; k < c.ni; k++) none[k] = empty;

    send_all(g, &B, t);                                   /* pending until the regular force */
    gpunb_set_list(g, c.ni, c.idx, empty, none);
    run_regf(g, &c);
    gpunb_irrf_resident(g, c.ni, c.idx, C3(c.x), C3(c.v), a1, j1);

    send_all(g, &B, t);
    gpunb_set_list(g, c.ni, c.idx, empty, none);          /* the kept lists wiped: the split call keeps them again */
    for (size_t k = 0; k < (size_t)d.ni * NBMAX; k++) d.list[k] = -7;
    for (int k = 0; k < d.ni; k++) { d.nnb[k] = -7; d.a[k][0] = NAN; d.jk[k][0] = NAN; }
    gpunb_regf_begin(g, d.ni, d.idx, d.h2, d.dtr, C3(d.x), C3(d.v));
    d.over = gpunb_regf_end(g, d.a, d.jk, d.nnb, d.list);
    gpunb_irrf_resident(g, d.ni, d.idx, C3(d.x), C3(d.v), a2, j2);

    stats S = compare(&B, &c);
    report("split call's reference: clumpy N_j=65536 N_i=20000", &S);
    CHECK(c.over > 0 && same_results(&c, &d),
          "%d GPU(s): gpunb_regf_begin/_end equal gpunb_regf bit for bit (20000 bodies in two chunks, %d over NBMAX)",
          ngpu, c.over);
    CHECK(!memcmp(a1, a2, sizeof *a1 * c.ni) && !memcmp(j1, j2, sizeof *j1 * c.ni),
          "%d GPU(s): the split call keeps the same resident lists", ngpu);
    free(a1); free(j1); free(a2); free(j2); free(empty); free(none);
    free_icase(&c);
    free_icase(&d);
    free_bodies(&B);
    gpunb_close(g);
}

/* set_jp's eager flush (NBODY6C_SETJP_EAGER): the updates sent in pieces
 * that cross the threshold in every way (below it, exactly at it, one
 * piece of the parallel path over it, one body), some slots first with
 * wrong polynomials and again later (the last must win, also when the two
 * went in different flushes): the same forces and lists as with no eager
 * flush, bit for bit, and right against the double reference. */
static gpunb *open_eager(int ngpu, int eager, int nmax, char *err, size_t errlen)
{
    char v[16];
    snprintf(v, sizeof v, "%d", eager);
    setenv("NBODY6C_SETJP_EAGER", v, 1);
    gpunb *g = open_cuda(ngpu, nmax, err, errlen);
    unsetenv("NBODY6C_SETJP_EAGER");
    return g;
}

static void send_pieces(gpunb *g, bodies *B, double t)
{
    const int nj = B->n - JBEG, wrong = 500;
    int *idx = malloc((size_t)nj * sizeof(int));
    for (int k = 0; k < nj; k++) idx[k] = JBEG + k;
    gpunb_set_range(g, JBEG, B->n);
    double (*xw)[3] = malloc(sizeof *xw * wrong);
    for (int k = 0; k < wrong; k++)
        for (int e = 0; e < 3; e++) xw[k][e] = B->x[JBEG + k][e] + 0.5;
    gpunb_set_jp(g, wrong, idx, B->t0 + JBEG, C3(xw), C3(B->v + JBEG), C3(B->a + JBEG), C3(B->jk + JBEG),
                 B->m + JBEG);
    static const int piece[] = {200, 300, 1, 4000, 3000};
    int k0 = 0;
    for (int q = 0; k0 < nj; q++) {
        const int n = q < 5 ? piece[q] : nj - k0;
        gpunb_set_jp(g, n, idx + k0, B->t0 + JBEG + k0, C3(B->x + JBEG + k0), C3(B->v + JBEG + k0),
                     C3(B->a + JBEG + k0), C3(B->jk + JBEG + k0), B->m + JBEG + k0);
        k0 += n;
    }
    gpunb_predict(g, t);
    free(xw);
    free(idx);
}

/* ngpu 2: the second GPU's flushes outside a regular force are queued by
 * its own host thread (posted, not waited for), so there this also checks
 * that they reach it in order and before the force. */
static void eager_case(int ngpu, uint64_t *seed)
{
    char err[256];
    gpunb *g0 = open_eager(1, 0, 32768 + JBEG, err, sizeof err);
    gpunb *g1 = open_eager(ngpu, 1000, 32768 + JBEG, err, sizeof err);
    if (!g0 || !g1) {
        CHECK(0, "eager-flush instances open: %s", err);
        if (g0) gpunb_close(g0);
        if (g1) gpunb_close(g1);
        return;
    }
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (gpunb_cuda_get_stats(g1, &st) && st.ngpu < ngpu) {
        SKIP("eager flush on %d GPUs: only %d here", ngpu, st.ngpu);
        gpunb_close(g0);
        gpunb_close(g1);
        return;
    }
#endif
    bodies B = make_bodies(32768, 0, seed);
    const double t = 0.5;
    for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
    predict_all(&B, t);
    send_pieces(g0, &B, t);
    send_pieces(g1, &B, t);
    icase c = make_icase(&B, 3000, seed, 0), d = make_icase(&B, 3000, seed, 0);
    memcpy(d.idx, c.idx, sizeof(int) * c.ni);
    memcpy(d.h2, c.h2, sizeof(double) * c.ni);
    memcpy(d.dtr, c.dtr, sizeof(double) * c.ni);
    memcpy(d.x, c.x, sizeof *c.x * c.ni);
    memcpy(d.v, c.v, sizeof *c.v * c.ni);
    run_regf(g0, &c);
    run_regf(g1, &d);
    CHECK(same_results(&c, &d), "set_jp in pieces: eager flush at 1000 entries on %d GPU(s) = no eager flush on 1, "
          "bit for bit", ngpu);
    stats S = compare(&B, &d);
    report("eager flush, N_j=32768 N_i=3000", &S);
    free_icase(&c);
    free_icase(&d);
    free_bodies(&B);
    gpunb_close(g0);
    gpunb_close(g1);
}

/* Held updates (gpunb_hold_jp) on the GPU: set_jp while the hold lasts,
 * with a regular force in flight (queued by gpunb_regf_begin) or not yet
 * (a whole gpunb_regf after them), in pieces that cross the eager flush's threshold
 * (1024), some slots first wrong: the regular force and the resident
 * irregular force after it see the bodies as they were; after the release
 * they are those of the updated bodies sent the plain way, bit for bit. */
static void hold_case(int ngpu, int inflight, uint64_t *seed)
{
    char err[256];
    gpunb *g = open_cuda(ngpu, 32768 + JBEG, err, sizeof err);
    if (!g) { CHECK(0, "%d-GPU instance opens: %s", ngpu, err); return; }
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (gpunb_cuda_get_stats(g, &st) && st.ngpu < ngpu) {
        SKIP("held updates on %d GPUs: only %d here", ngpu, st.ngpu);
        gpunb_close(g);
        return;
    }
#endif
    bodies B = make_bodies(32768, 1, seed), B2 = make_bodies(32768, 1, seed);
    const double t = 0.5;
    for (int i = 0; i < B.n; i++) B.t0[i] = t - urand(seed) / 64;
    const size_t n3 = sizeof(double) * 3 * (size_t)B.n;
    memcpy(B2.t0, B.t0, sizeof(double) * B.n); memcpy(B2.m, B.m, sizeof(double) * B.n);
    memcpy(B2.x, B.x, n3); memcpy(B2.v, B.v, n3); memcpy(B2.a, B.a, n3); memcpy(B2.jk, B.jk, n3);
    const int nh = 12000, nw = 700;
    int *idx = malloc(sizeof(int) * nh);
    double (*xw)[3] = malloc(sizeof *xw * nw);
    for (int k = 0; k < nh; k++) {
        idx[k] = JBEG + 2 * k;
        for (int e = 0; e < 3; e++) B2.x[idx[k]][e] += 0.002 * (e + 1);
    }
    for (int k = 0; k < nw; k++)
        for (int e = 0; e < 3; e++) xw[k][e] = B.x[idx[k]][e] + 0.5;
    predict_all(&B, t);
    predict_all(&B2, t);
    icase p = make_icase(&B, 3000, seed, 1), q = make_icase(&B, 3000, seed, 1), h = make_icase(&B, 3000, seed, 1),
          r = make_icase(&B, 3000, seed, 1);
    icase *cs[3] = {&q, &h, &r};
    for (int u = 0; u < 3; u++) {
        memcpy(cs[u]->idx, p.idx, sizeof(int) * p.ni);
        memcpy(cs[u]->h2, p.h2, sizeof(double) * p.ni);
        memcpy(cs[u]->dtr, p.dtr, sizeof(double) * p.ni);
        memcpy(cs[u]->x, p.x, sizeof *p.x * p.ni);
        memcpy(cs[u]->v, p.v, sizeof *p.v * p.ni);
    }
    double (*a1)[3] = malloc(sizeof *a1 * p.ni), (*j1)[3] = malloc(sizeof *j1 * p.ni);
    double (*a2)[3] = malloc(sizeof *a2 * p.ni), (*j2)[3] = malloc(sizeof *j2 * p.ni);
    double (*ah)[3] = malloc(sizeof *ah * p.ni), (*jh)[3] = malloc(sizeof *jh * p.ni);

    gpunb_set_list(g, 0, NULL, NULL, NULL);   /* resident lists on: each regf keeps its own */
    send_all(g, &B2, t);   /* what the updated bodies give */
    run_regf(g, &q);
    gpunb_irrf_resident(g, q.ni, q.idx, C3(q.x), C3(q.v), a2, j2);
    send_all(g, &B, t);
    run_regf(g, &p);
    gpunb_irrf_resident(g, p.ni, p.idx, C3(p.x), C3(p.v), a1, j1);

    for (size_t k = 0; k < (size_t)h.ni * NBMAX; k++) h.list[k] = -7;
    if (inflight) gpunb_regf_begin(g, h.ni, h.idx, h.h2, h.dtr, C3(h.x), C3(h.v));
    gpunb_hold_jp(g);
    gpunb_set_jp(g, nw, idx, B2.t0, C3(xw), C3(B2.v), C3(B2.a), C3(B2.jk), B2.m);   /* wrong first */
    double *t0h = malloc(sizeof(double) * nh), *mh = malloc(sizeof(double) * nh);
    double (*xh)[3] = malloc(sizeof *xh * nh), (*vh)[3] = malloc(sizeof *vh * nh);
    double (*ahh)[3] = malloc(sizeof *ahh * nh), (*jhh)[3] = malloc(sizeof *jhh * nh);
    for (int k = 0; k < nh; k++) {
        const int i = idx[k];
        t0h[k] = B2.t0[i]; mh[k] = B2.m[i];
        memcpy(xh[k], B2.x[i], sizeof xh[k]); memcpy(vh[k], B2.v[i], sizeof vh[k]);
        memcpy(ahh[k], B2.a[i], sizeof ahh[k]); memcpy(jhh[k], B2.jk[i], sizeof jhh[k]);
    }
    static const int piece[] = {500, 1, 3000, 8499};   /* 12000 in all */
    for (int u = 0, k0 = 0; u < 4; k0 += piece[u++])
        gpunb_set_jp(g, piece[u], idx + k0, t0h + k0, C3(xh + k0), C3(vh + k0), C3(ahh + k0), C3(jhh + k0), mh + k0);
    if (inflight)
        h.over = gpunb_regf_end(g, h.a, h.jk, h.nnb, h.list);
    else
        h.over = gpunb_regf(g, h.ni, h.idx, h.h2, h.dtr, C3(h.x), C3(h.v), h.a, h.jk, h.nnb, h.list);
    gpunb_predict(g, t);
    gpunb_irrf_resident(g, h.ni, h.idx, C3(h.x), C3(h.v), ah, jh);
    CHECK(same_results(&p, &h) && !memcmp(a1, ah, sizeof *a1 * p.ni) && !memcmp(j1, jh, sizeof *j1 * p.ni),
          "%d GPU(s), force %s: updates held during a regular force change neither it nor the irregular force "
          "after it", ngpu, inflight ? "in flight" : "after them");
    gpunb_release_jp(g);
    gpunb_predict(g, t);
    run_regf(g, &r);
    gpunb_irrf_resident(g, r.ni, r.idx, C3(r.x), C3(r.v), ah, jh);
    /* an overflowed body keeps the resident list of an earlier call, which
     * differs between q's turn and r's: its irregular force is not compared */
    int irr_same = 1;
    for (int k = 0; k < q.ni; k++)
        if (q.nnb[k] >= 0 && (memcmp(a2[k], ah[k], sizeof a2[k]) || memcmp(j2[k], jh[k], sizeof j2[k]))) irr_same = 0;
    CHECK(!same_results(&p, &q) && same_results(&q, &r) && irr_same,
          "%d GPU(s), force %s: after the release, the forces of the updated bodies (the later update wins)", ngpu,
          inflight ? "in flight" : "after them");
    free(idx); free(xw); free(t0h); free(mh); free(xh); free(vh); free(ahh); free(jhh);
    free(a1); free(j1); free(a2); free(j2); free(ah); free(jh);
    free_icase(&p); free_icase(&q); free_icase(&h); free_icase(&r);
    free_bodies(&B);
    free_bodies(&B2);
    gpunb_close(g);
}

/* gpunb_lists_naming on the GPU against a scan of the same lists on the
 * host: 20000 rows set by gpunb_set_list (entries ascending, distinct),
 * then every seventh again with an entry fewer (the last list wins);
 * labels that many, few and no lists name, a negative one, fewer than
 * four. */
static void naming_case(uint64_t *seed)
{
    char err[256];
    enum { NR = 20000, NL = 60 };
    gpunb *g = open_cuda(1, NR + JBEG, err, sizeof err);
    if (!g) { CHECK(0, "lists_naming instance opens: %s", err); return; }
    int *idx = (int *)malloc(sizeof(int) * NR), *nn = (int *)malloc(sizeof(int) * NR);
    int *rows = (int *)malloc(sizeof(int) * (size_t)NR * NL);
    const int **lp = (const int **)malloc(sizeof(int *) * NR);
    char *used = (char *)calloc(NR + JBEG, 1);
    for (int b = 0; b < NR; b++) {
        idx[b] = JBEG + b;
        int n = (int)(urand(seed) * NL), m = 0;
        memset(used, 0, NR + JBEG);
        for (int q = 0; q < n; q++) {   /* clustered: label 77 in about a third of the lists */
            int e = urand(seed) < 0.01 ? 77 : JBEG + (int)(urand(seed) * NR);
            used[e] = 1;
        }
        for (int e = 0; e < NR + JBEG; e++)
            if (used[e]) rows[(size_t)b * NL + m++] = e;
        nn[b] = m;
        lp[b] = rows + (size_t)b * NL;
    }
    gpunb_set_list(g, NR, idx, nn, lp);
    for (int b = 0; b < NR; b += 7) {   /* again, one entry fewer */
        if (nn[b] > 0) nn[b]--;
    }
    gpunb_set_list(g, NR, idx, nn, lp);
    const int labs[3][4] = {{77, rows[5 * NL], NR + JBEG + 5, -1}, {rows[9 * NL + 1], 77, 3, JBEG + 11}, {77, 5, -1, -1}};
    const int nlab[3] = {4, 4, 2};
    unsigned char *mk = (unsigned char *)malloc(NR + JBEG + 1);
    for (int u = 0; u < 3; u++) {
        const int lo = u == 1 ? 0 : 100, hi = u == 1 ? NR + JBEG : NR - 1000;
        memset(mk, 0xee, NR + JBEG + 1);
        gpunb_lists_naming(g, lo, hi, nlab[u], labs[u], mk);
        long differ = 0, named = 0;
        for (int b = lo; b < hi; b++) {
            unsigned want = 0;
            if (b >= JBEG) {
                const int r = b - JBEG;
                for (int q = 0; q < nn[r]; q++)
                    for (int l = 0; l < nlab[u]; l++) want |= (unsigned)(lp[r][q] == labs[u][l]) << l;
            }
            differ += mk[b - lo] != want;
            named += want != 0;
        }
        CHECK(differ == 0 && named > 0 && mk[hi - lo] == 0xee,
              "gpunb_lists_naming, %d labels, rows [%d, %d): the host's scan of the same lists (%ld rows differ, "
              "%ld name a label, nothing written past the range)", nlab[u], lo, hi, differ, named);
    }
    free(idx); free(nn); free(rows); free(lp); free(used); free(mk);
    gpunb_close(g);
}

static void fp64_case(uint64_t *seed)
{
    char err[256];
    setenv("NBODY6C_GPU_FP64", "1", 1);
    gpunb *g = open_cuda(0, 262144 + JBEG, err, sizeof err);
    unsetenv("NBODY6C_GPU_FP64");
    if (!g) { CHECK(0, "FP64 instance opens: %s", err); return; }
    bodies B = make_bodies(262144, 0, seed);
    predict_all(&B, 0.0);
    send_all(g, &B, 0.0);
    icase c = make_icase(&B, 1000, seed, 0);
    run_regf(g, &c);
    stats S = compare(&B, &c);
    report("FP64 differences N_j=262144 N_i=1000", &S);
    icase c7 = make_icase(&B, 7, seed, 0);
    check_fpoly(g, &B, &c7, 1, "fpoly FP64 N_j=262144 N_i=7");
    free_icase(&c7);
    free_icase(&c);
    free_bodies(&B);
    gpunb_close(g);
}

static void multi_gpu_case(uint64_t *seed)
{
    char err[256];
    gpunb *g2 = open_cuda(2, 262144 + JBEG, err, sizeof err);
    if (!g2) { CHECK(0, "2-GPU instance opens: %s", err); return; }
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    gpunb_cuda_get_stats(g2, &st);
    if (st.ngpu < 2) { SKIP("1-vs-2-GPU identity: only %d GPU", st.ngpu); gpunb_close(g2); return; }
#endif
    gpunb *g1 = open_cuda(1, 262144 + JBEG, err, sizeof err);
    {   /* the potential's rows: every row block on one GPU or the other */
        bodies B = make_bodies(65536, 1, seed);
        double *r1 = malloc((size_t)B.n * sizeof(double)), *r2 = malloc((size_t)B.n * sizeof(double));
        gpunb_pot_rows(g1, B.n, B.m, C3(B.x), r1);
        gpunb_pot_rows(g2, B.n, B.m, C3(B.x), r2);
        CHECK(memcmp(r1, r2, (size_t)B.n * sizeof(double)) == 0, "pot rows on 1 and 2 GPUs bit-identical (N = %d)", B.n);
        free(r1); free(r2);
        free_bodies(&B);
    }
    static const int nis[] = {7, 1000, 4096};
    for (int clumpy = 0; clumpy < 2; clumpy++) {
        bodies B = make_bodies(clumpy ? 65536 : 262144, clumpy, seed);
        predict_all(&B, 0.0);
        send_all(g1, &B, 0.0);
        send_all(g2, &B, 0.0);
        for (int q = 0; q < 3; q++) {
            icase c = make_icase(&B, nis[q], seed, clumpy), d = make_icase(&B, nis[q], seed, clumpy);
            memcpy(d.idx, c.idx, sizeof(int) * c.ni);
            memcpy(d.h2, c.h2, sizeof(double) * c.ni);
            memcpy(d.dtr, c.dtr, sizeof(double) * c.ni);
            memcpy(d.x, c.x, sizeof(double) * 3 * c.ni);
            memcpy(d.v, c.v, sizeof(double) * 3 * c.ni);
            run_regf(g1, &c);
            run_regf(g2, &d);
            CHECK(same_results(&c, &d), "1 and 2 GPUs bit-identical: %s N_j=%d N_i=%d", clumpy ? "clumpy" : "plummer",
                  B.n - JBEG, c.ni);
            if (q == 1) {
                stats S = compare(&B, &d);
                report("2 GPUs", &S);
            }
            free_icase(&c); free_icase(&d);
        }
        free_bodies(&B);
    }
    gpunb_close(g1);
    gpunb_close(g2);
}

int main(void)
{
    char err[256];
    gpunb *g = open_cuda(0, 262144 + JBEG, err, sizeof err);
    if (!g) {
        SKIP("CUDA backend not available: %s", err);
        return check_done();
    }
    uint64_t seed = check_seed();
    CHECK(strcmp(gpunb_backend(g), "cuda") == 0, "backend is cuda");
    double t0 = omp_get_wtime();
    regf_cases(g, &seed);
    overflow_case(g, &seed);
    slice_fill_case(g, &seed);
    prediction_case(g, &seed);
    {   /* start-up derivatives and potential */
        bodies B = make_bodies(32768, 0, &seed);
        predict_all(&B, 0.0);
        send_all(g, &B, 0.0);
        icase c = make_icase(&B, 1000, &seed, 0), c7 = make_icase(&B, 7, &seed, 0);
        check_fpoly(g, &B, &c, 0, "fpoly N_j=32768 N_i=1000");
        check_fpoly(g, &B, &c7, 0, "fpoly N_j=32768 N_i=7");
        check_pot(g, &B, 20000, "pot");
        for (int n = 1; n <= 3; n++) check_pot_rows(g, &B, n, 1, "rows");
        check_pot_rows(g, &B, 129, 1, "rows");
        check_pot_rows(g, &B, B.n, 7, "rows");
        free_icase(&c); free_icase(&c7); free_bodies(&B);
        B = make_bodies(20000, 1, &seed);   /* clumps: close pairs */
        check_pot_rows(g, &B, B.n, 3, "rows, clumpy");
        free_bodies(&B);
    }
    cpu_backend_case(g, &seed);
    irrf_cases(g, &seed);
    resident_cases(&seed);
    eager_case(1, &seed);
    eager_case(2, &seed);
    split_case(1, &seed);
    split_case(2, &seed);
    naming_case(&seed);
    hold_case(1, 1, &seed);
    hold_case(1, 0, &seed);
    hold_case(2, 0, &seed);
    hold_case(2, 1, &seed);
    fp64_case(&seed);
    multi_gpu_case(&seed);
    printf("# boundary pairs: %ld of %ld neighbour pairs (%.1e)\n", total_diff, total_pairs,
           total_pairs ? (double)total_diff / total_pairs : 0.0);
    CHECK(total_diff <= 1e-4 * total_pairs, "boundary differences at most 1e-4 of all pairs (%ld of %ld)", total_diff,
          total_pairs);
    printf("# test time %.1f s\n", omp_get_wtime() - t0);
    gpunb_close(g);
    return check_done();
}
