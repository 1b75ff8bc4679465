/* test_gpunb_simd.c — the "cpu-simd" GPUNB backend (AVX2 and AVX-512
 * kernels, whichever the CPU has) against the double-precision "cpu-ref"
 * backend on a fresh random cluster: half the bodies near the origin, half
 * near (10, -10, 10), some pairs at 1e-5.
 *
 * Checked: neighbour lists equal to the reference's except for pairs within
 * 1e-5 relative of the boundary (the contract, docs/ALGORITHMS.md; counted); regular
 * force and jerk of bodies with equal lists on docs/ALGORITHMS.md's normalised metric,
 * eps <= 1e-6 RMS and 1e-5 worst (bound in gpunb_cpu_simd.c: ~1.5e-6 per
 * term + 64 float roundings per block + 2^-47 |x|/r); few-body calls (one
 * task per j-slice) bit-identical to the same bodies in a large call and to
 * other thread counts; NBMAX overflow reported as with the reference; fpoly
 * and the potential equal to cpu-ref's (they are delegated to it).  The
 * potential's triangle rows (gpunb_pot_rows): both builds of the lanes and
 * both CPU backends give the contract's plain loop bit for bit, at any
 * thread count, within tests/potref.h's bound of a long-double reference. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "potref.h"
#include "gpunb/gpunb.h"
#include "gpunb/gpunb_cpu_lanes.h"
#include "gpunb/gpunb_impl.h"
#include "gpunb/gpunb_simd.h"

enum { N = 10000, NBMAX = 300, NI = 1500, NFEW = 3 };

static double urand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

typedef struct {
    double t0[N], m[N], x[N][3], v[N][3], a[N][3], j[N][3];
    int idx[N];
} cluster;

static void make_cluster(cluster *c, uint64_t *rs)
{
    for (int i = 0; i < N; i++) {
        const double off = i < N / 2 ? 0.0 : 10.0;
        c->idx[i] = i;
        c->t0[i] = -0.01 * urand(rs);
        c->m[i] = (0.5 + urand(rs)) / N;
        for (int k = 0; k < 3; k++) {
            c->x[i][k] = (k == 1 ? -off : off) + 2 * urand(rs) - 1;
            c->v[i][k] = 2 * urand(rs) - 1;
            c->a[i][k] = 2 * urand(rs) - 1;
            c->j[i][k] = 2 * urand(rs) - 1;
        }
    }
    /* every 50th body gets a partner at 1e-5 with a similar polynomial */
    for (int i = 0; i + 1 < N; i += 50)
        for (int k = 0; k < 3; k++) {
            c->t0[i + 1] = c->t0[i];
            c->x[i + 1][k] = c->x[i][k] + 0.577e-5;
            c->v[i + 1][k] = c->v[i][k] + 0.01 * (2 * urand(rs) - 1);
            c->a[i + 1][k] = c->a[i][k];
            c->j[i + 1][k] = c->j[i][k];
        }
}

/* Predicted states at t, double, as the libraries compute them. */
static void predicted(const cluster *c, double t, double (*xp)[3], double (*vp)[3])
{
    for (int i = 0; i < N; i++) {
        double s = t - c->t0[i];
        for (int k = 0; k < 3; k++) {
            xp[i][k] = c->x[i][k] + s * (c->v[i][k] + s * (c->a[i][k] / 2 + s * c->j[i][k] / 6));
            vp[i][k] = c->v[i][k] + s * (c->a[i][k] + s * c->j[i][k] / 2);
        }
    }
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int *nnb, *list;
    double (*a)[3], (*jk)[3];
} result;

static result alloc_result(int ni)
{
    result r = {malloc(sizeof(int) * ni), malloc(sizeof(int) * (size_t)ni * NBMAX),
                malloc(sizeof(double[3]) * ni), malloc(sizeof(double[3]) * ni)};
    return r;
}

static void free_result(result *r) { free(r->nnb); free(r->list); free(r->a); free(r->jk); }

static int same_result(const result *p, const result *q, int ni)
{
    for (int k = 0; k < ni; k++) {
        if (p->nnb[k] != q->nnb[k]) return 0;
        if (memcmp(p->a[k], q->a[k], sizeof p->a[k]) || memcmp(p->jk[k], q->jk[k], sizeof p->jk[k])) return 0;
        if (p->nnb[k] > 0 && memcmp(p->list + (size_t)k * NBMAX, q->list + (size_t)k * NBMAX,
                                    sizeof(int) * (size_t)p->nnb[k]))
            return 0;
    }
    return 1;
}

static void test_width(int width, const cluster *c, const int *ilist, const double *h2, const double *dtr,
                       double (*xp)[3], double (*vp)[3], double t)
{
    char err[256];
    gpunb *g = gpunb_cpu_simd_open_width(N, NBMAX, width, err, sizeof err);
    gpunb *ref = gpunb_cpu_open(N, NBMAX, err, sizeof err);
    CHECK(g && ref, "cpu-simd (width %d) and cpu-ref open (%s)", width, g && ref ? "ok" : err);
    if (!g || !ref) return;
    CHECK(strcmp(gpunb_backend(g), "cpu-simd") == 0, "backend name %s", gpunb_backend(g));
    gpunb *both[2] = {g, ref};
    for (int b = 0; b < 2; b++) {
        gpunb_set_range(both[b], 0, N);
        gpunb_set_jp(both[b], N, c->idx, c->t0, (const double (*)[3])c->x, (const double (*)[3])c->v,
                     (const double (*)[3])c->a, (const double (*)[3])c->j, c->m);
        gpunb_predict(both[b], t);
    }
    double (*xi)[3] = malloc(sizeof(double[3]) * NI), (*vi)[3] = malloc(sizeof(double[3]) * NI);
    for (int k = 0; k < NI; k++) memcpy(xi[k], xp[ilist[k]], sizeof xi[k]), memcpy(vi[k], vp[ilist[k]], sizeof vi[k]);

    result rs = alloc_result(NI), rr = alloc_result(NI);
    int ovs = gpunb_regf(g, NI, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, rs.a, rs.jk, rs.nnb, rs.list);
    int ovr = gpunb_regf(ref, NI, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, rr.a, rr.jk, rr.nnb, rr.list);

    /* lists: differences only at the boundary */
    int ndiff = 0, nbad = 0, nsame = 0, overflow_agree = 1;
    long total = 0;
    double *ef = malloc(sizeof(double) * NI), *ej = malloc(sizeof(double) * NI);
    int nerr = 0;
    for (int k = 0; k < NI; k++) {
        int i = ilist[k];
        if (rr.nnb[k] < 0 || rs.nnb[k] < 0) {   /* both overflowed, each giving -count */
            overflow_agree &= rr.nnb[k] < -NBMAX && rs.nnb[k] < -NBMAX;
            continue;
        }
        total += rr.nnb[k];
        const int *ls = rs.list + (size_t)k * NBMAX, *lr = rr.list + (size_t)k * NBMAX;
        int p = 0, q = 0, differ = 0;
        while (p < rs.nnb[k] || q < rr.nnb[k]) {
            int js = p < rs.nnb[k] ? ls[p] : N, jr = q < rr.nnb[k] ? lr[q] : N;
            if (js == jr) { p++; q++; continue; }
            int j = js < jr ? js : jr;
            if (js < jr) p++; else q++;
            differ = 1;
            ndiff++;
            double r[3], v[3], r2 = 0, p2 = 0;
            for (int d = 0; d < 3; d++) {
                r[d] = xp[j][d] - xp[i][d];
                v[d] = vp[j][d] - vp[i][d];
                r2 += r[d] * r[d];
                p2 += (r[d] + dtr[k] * v[d]) * (r[d] + dtr[k] * v[d]);
            }
            double rel = sqrt(fmin(r2, p2) / (c->m[j] * h2[k])) - 1;
            if (fabs(rel) >= 1e-5) nbad++;
        }
        if (differ) continue;
        nsame++;
        /* force and jerk of equal lists against the reference, normalised */
        double fn = 0, jn = 0, df = 0, dj = 0;
        for (int j = 0, q2 = 0; j < N; j++) {
            if (j == i) continue;
            if (q2 < rr.nnb[k] && lr[q2] == j) { q2++; continue; }
            double r[3], v[3], r2 = 0, rv = 0, v2 = 0;
            for (int d = 0; d < 3; d++) {
                r[d] = xp[j][d] - xp[i][d];
                v[d] = vp[j][d] - vp[i][d];
                r2 += r[d] * r[d]; rv += r[d] * v[d]; v2 += v[d] * v[d];
            }
            fn += c->m[j] / r2;
            jn += c->m[j] / (r2 * sqrt(r2)) * (sqrt(v2) + 3 * fabs(rv) / sqrt(r2));
        }
        for (int d = 0; d < 3; d++) {
            df += (rs.a[k][d] - rr.a[k][d]) * (rs.a[k][d] - rr.a[k][d]);
            dj += (rs.jk[k][d] - rr.jk[k][d]) * (rs.jk[k][d] - rr.jk[k][d]);
        }
        ef[nerr] = sqrt(df) / fn;
        ej[nerr] = sqrt(dj) / jn;
        if (!isfinite(ef[nerr])) ef[nerr] = INFINITY;
        if (!isfinite(ej[nerr])) ej[nerr] = INFINITY;
        nerr++;
    }
    CHECK(ovs == ovr && overflow_agree, "width %d: overflow count %d (reference %d), flags agree", width, ovs, ovr);
    CHECK(nbad == 0, "width %d: lists differ from cpu-ref only within 1e-5 of the boundary: %d differences in %ld "
          "entries, %d outside", width, ndiff, total, nbad);
    double frms = 0, jrms = 0;
    for (int q = 0; q < nerr; q++) frms += ef[q] * ef[q], jrms += ej[q] * ej[q];
    frms = sqrt(frms / nerr); jrms = sqrt(jrms / nerr);
    qsort(ef, (size_t)nerr, sizeof *ef, cmp_dbl);
    qsort(ej, (size_t)nerr, sizeof *ej, cmp_dbl);
    CHECK(nerr > NI / 2 && frms <= 1e-6 && ef[nerr - 1] <= 1e-5,
          "width %d: regular force error (normalised) rms %.2e max %.2e over %d bodies", width, frms, ef[nerr - 1], nerr);
    CHECK(nerr > NI / 2 && jrms <= 1e-6 && ej[nerr - 1] <= 1e-5,
          "width %d: regular jerk error (normalised) rms %.2e max %.2e", width, jrms, ej[nerr - 1]);

    /* few bodies (sliced over j) equal to the same bodies in the big call,
     * and to the big call with another thread count */
    result rf = alloc_result(NFEW), rt = alloc_result(NI);
    omp_set_num_threads(2);
    gpunb_regf(g, NFEW, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, rf.a, rf.jk, rf.nnb, rf.list);
    CHECK(same_result(&rf, &rs, NFEW), "width %d: %d bodies sliced over j bit-identical to the whole-row call", width, NFEW);
    omp_set_num_threads(3);
    gpunb_regf(g, NI, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, rt.a, rt.jk, rt.nnb, rt.list);
    omp_set_num_threads(1);
    gpunb_regf(g, NFEW, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, rf.a, rf.jk, rf.nnb, rf.list);
    omp_set_num_threads(2);
    CHECK(same_result(&rt, &rs, NI) && same_result(&rf, &rs, NFEW),
          "width %d: results identical with 1, 2 and 3 threads", width);

    /* the far test (steps whose j-bodies are all too far to be neighbours
     * skip the neighbour test) changes no bit: with it off, and with
     * regular steps 30 times longer (velocity-only neighbours common) */
    result ro = alloc_result(NI), rl = alloc_result(NI), rlo = alloc_result(NI);
    double *dtr30 = malloc(sizeof(double) * NI);
    for (int k = 0; k < NI; k++) dtr30[k] = 30 * dtr[k];
    gpunb_cpu_simd_set_far(g, 0);
    gpunb_regf(g, NI, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi, ro.a, ro.jk, ro.nnb, ro.list);
    gpunb_regf(g, NI, ilist, h2, dtr30, (const double (*)[3])xi, (const double (*)[3])vi, rlo.a, rlo.jk, rlo.nnb,
               rlo.list);
    gpunb_cpu_simd_set_far(g, 1);
    gpunb_regf(g, NI, ilist, h2, dtr30, (const double (*)[3])xi, (const double (*)[3])vi, rl.a, rl.jk, rl.nnb, rl.list);
    long far = 0, steps = 0, vonly = 0;
    for (int k = 0; k < NI; k++) {   /* in double: the steps the far test can skip, the velocity-only neighbours */
        const int i = ilist[k];
        const double vi2 = sqrt(vp[i][0] * vp[i][0] + vp[i][1] * vp[i][1] + vp[i][2] * vp[i][2]);
        for (int j0 = 0; j0 < N; j0 += 16, steps++) {
            double mm = 0, vm = 0, rmin = INFINITY;
            for (int j = j0; j < j0 + 16 && j < N; j++) {
                mm = fmax(mm, c->m[j]);
                vm = fmax(vm, sqrt(vp[j][0] * vp[j][0] + vp[j][1] * vp[j][1] + vp[j][2] * vp[j][2]));
                double r2 = 0;
                for (int d = 0; d < 3; d++) r2 += (xp[j][d] - xp[i][d]) * (xp[j][d] - xp[i][d]);
                rmin = fmin(rmin, r2);
            }
            const double reach = sqrt(mm * h2[k]) + dtr30[k] * (vi2 + vm);
            far += rmin > reach * reach * GPUNB_FAR_MARGIN;
        }
        for (int q = 0; q < rl.nnb[k]; q++) {
            const int j = rl.list[(size_t)k * NBMAX + q];
            double r2 = 0;
            for (int d = 0; d < 3; d++) r2 += (xp[j][d] - xp[i][d]) * (xp[j][d] - xp[i][d]);
            vonly += r2 >= c->m[j] * h2[k] * 1.0001;
        }
    }
    printf("# width %d, steps 30x: %.0f %% of the (i, 16 j) steps far, %ld velocity-only neighbours\n", width,
           100.0 * far / steps, vonly);
    CHECK(same_result(&ro, &rs, NI) && same_result(&rlo, &rl, NI) && 2 * far > steps && vonly > 1000,
          "width %d: the far test off or on, bit-identical (%.0f %% of the steps far, %ld velocity-only neighbours)",
          width, 100.0 * far / steps, vonly);
    free(dtr30);
    free_result(&ro); free_result(&rl); free_result(&rlo);

    /* fpoly and pot are the reference's */
    double (*d[8])[3];
    for (int q = 0; q < 8; q++) d[q] = malloc(sizeof(double[3]) * NFEW);
    gpunb_fpoly(g, NFEW, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi,
                (const double (*)[3])c->a, (const double (*)[3])c->j, d[0], d[1], d[2], d[3]);
    gpunb_fpoly(ref, NFEW, ilist, h2, dtr, (const double (*)[3])xi, (const double (*)[3])vi,
                (const double (*)[3])c->a, (const double (*)[3])c->j, d[4], d[5], d[6], d[7]);
    int same = 1;
    for (int q = 0; q < 4; q++) same &= memcmp(d[q], d[q + 4], sizeof(double[3]) * NFEW) == 0;
    double pot_s[64], pot_r[64];
    gpunb_pot(g, 64, c->m, (const double (*)[3])c->x, pot_s);
    gpunb_pot(ref, 64, c->m, (const double (*)[3])c->x, pot_r);
    CHECK(same && memcmp(pot_s, pot_r, sizeof pot_s) == 0, "width %d: fpoly and pot equal cpu-ref's", width);
    for (int q = 0; q < 8; q++) free(d[q]);

    free_result(&rs); free_result(&rr); free_result(&rf); free_result(&rt);
    free(ef); free(ej); free(xi); free(vi);
    gpunb_close(g);
    gpunb_close(ref);
}

/* The cpu-ref start-up derivatives run FPOLY_LANES bodies at once; its
 * AVX-512 build must give the bits of the baseline build (this file's copy
 * of fpoly_lanes_run), spare lanes and the self-exclusion included.  Mixed
 * neighbour radii split the sums between the irregular and regular parts. */
static void test_fpoly_lanes(uint64_t *rs, int have512)
{
    enum { NJ = 700 };
    double (*x)[3] = malloc(sizeof(double[3]) * NJ), (*v)[3] = malloc(sizeof(double[3]) * NJ);
    double (*a)[3] = malloc(sizeof(double[3]) * NJ), (*jk)[3] = malloc(sizeof(double[3]) * NJ);
    double *m = malloc(sizeof(double) * NJ);
    for (int j = 0; j < NJ; j++) {
        for (int e = 0; e < 3; e++) {
            x[j][e] = 2.0 * urand(rs) - 1.0;
            v[j][e] = urand(rs) - 0.5;
            a[j][e] = 0.1 * (urand(rs) - 0.5);
            jk[j][e] = 0.1 * (urand(rs) - 0.5);
        }
        m[j] = (0.5 + urand(rs)) / NJ;
    }
    const fpoly_src src = {(const double (*)[3])x, (const double (*)[3])v, (const double (*)[3])a,
                           (const double (*)[3])jk, m, 0, NJ};
    int same = 1, split = 1;
    for (int n = 1; n <= FPOLY_LANES; n += FPOLY_LANES - 1) {
        fpoly_lanes L;
        L.n = n;
        for (int l = 0; l < FPOLY_LANES; l++) {
            int i = l < n ? 37 * l + 5 : 5;
            L.self[l] = i;
            L.h2[l] = (l % 2 ? 0.3 : 0.05) * NJ;
            L.dtr[l] = 0.01 * l;
            for (int e = 0; e < 3; e++) {
                L.x[e][l] = x[i][e]; L.v[e][l] = v[i][e]; L.a[e][l] = a[i][e]; L.j[e][l] = jk[i][e];
            }
        }
        fpoly_out base, wide;
        fpoly_lanes_run(&src, &L, &base, n);
        if (have512) gpunb_cpu_fpoly_lanes_avx512(&src, &L, &wide);
        else wide = base;
        for (int l = 0; l < n; l++)
            for (int e = 0; e < 3; e++) {
                same &= base.d2i[e][l] == wide.d2i[e][l] && base.d3i[e][l] == wide.d3i[e][l] &&
                        base.d2r[e][l] == wide.d2r[e][l] && base.d3r[e][l] == wide.d3r[e][l];
                split &= isfinite(base.d2i[e][l]) && isfinite(base.d2r[e][l]) && base.d2r[e][l] != 0.0;
            }
        split &= n == 1 || base.d2i[0][1] != 0.0;
        /* and the plain per-pair loop (the scalar code the lanes replaced) */
        for (int l = 0; l < n; l++) {
            double s2[2][3] = {{0, 0, 0}, {0, 0, 0}}, s3[2][3] = {{0, 0, 0}, {0, 0, 0}};
            for (int j = 0; j < NJ; j++) {
                if (j == L.self[l]) continue;
                double r[3], u[3], A[3], J[3];
                for (int e = 0; e < 3; e++) {
                    r[e] = x[j][e] - L.x[e][l]; u[e] = v[j][e] - L.v[e][l];
                    A[e] = a[j][e] - L.a[e][l]; J[e] = jk[j][e] - L.j[e][l];
                }
                double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rinv2 = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
                double mr3 = m[j] * rinv2 * sqrt(rinv2);
                double rv = r[0] * u[0] + r[1] * u[1] + r[2] * u[2], v2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
                double rA = r[0] * A[0] + r[1] * A[1] + r[2] * A[2], vA = u[0] * A[0] + u[1] * A[1] + u[2] * A[2];
                double rJ = r[0] * J[0] + r[1] * J[1] + r[2] * J[2];
                double al = rv * rinv2, be = (v2 + rA) * rinv2 + al * al;
                double ga = (3.0 * vA + rJ) * rinv2 + al * (3.0 * be - 4.0 * al * al);
                double p[3] = {r[0] + L.dtr[l] * u[0], r[1] + L.dtr[l] * u[1], r[2] + L.dtr[l] * u[2]};
                double p2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
                int part = (p2 < r2 ? p2 : r2) < m[j] * L.h2[l] ? 0 : 1;
                for (int e = 0; e < 3; e++) {
                    double w = u[e] - 3.0 * al * r[e];
                    double d2 = mr3 * (A[e] - 6.0 * al * w - 3.0 * be * r[e]);
                    s2[part][e] += d2;
                    s3[part][e] += mr3 * (J[e] - 9.0 * be * w - 3.0 * ga * r[e]) - 9.0 * al * d2;
                }
            }
            for (int e = 0; e < 3; e++)
                same &= base.d2i[e][l] == s2[0][e] && base.d3i[e][l] == s3[0][e] && base.d2r[e][l] == s2[1][e] &&
                        base.d3r[e][l] == s3[1][e];
        }
    }
    CHECK(same && split, "fpoly lanes: %sbaseline build and a plain per-pair loop agree bit for bit "
          "(1 and %d lanes, finite, both parts summed)", have512 ? "AVX-512 build, " : "", FPOLY_LANES);

    /* the potential: both builds against the plain compensated row sum */
    int pot_same = 1;
    for (int i0 = 0; i0 < NJ; i0 += 97) {
        const int n = NJ - i0 < FPOLY_LANES ? NJ - i0 : FPOLY_LANES - i0 % 3;
        double pb[FPOLY_LANES], pw[FPOLY_LANES];
        pot_lanes_run(NJ, m, (const double (*)[3])x, i0, n, pb, n);
        if (have512) gpunb_cpu_pot_lanes_avx512(NJ, m, (const double (*)[3])x, i0, n, pw);
        else memcpy(pw, pb, sizeof pb);
        for (int l = 0; l < n; l++) {
            const int i = i0 + l;
            double sum = 0, comp = 0;
            for (int j = 0; j < NJ; j++) {
                if (j == i) continue;
                double dx = x[j][0] - x[i][0], dy = x[j][1] - x[i][1], dz = x[j][2] - x[i][2];
                double term = m[j] / sqrt(dx * dx + dy * dy + dz * dz), t = sum + term;
                comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
                sum = t;
            }
            pot_same &= pb[l] == sum + comp && pw[l] == sum + comp;
        }
    }
    CHECK(pot_same, "pot lanes: %s equal the scalar compensated row sums bit for bit",
          have512 ? "both builds" : "the baseline build");
    free(x); free(v); free(a); free(jk); free(m);
}

/* gpunb_pot_rows on the CPU: the lanes (baseline and AVX-512 builds) and
 * both backends against the plain loop, bit for bit, and the rows against
 * the long-double reference with potref.h's bound, on a fresh cluster with
 * pairs at 1e-5 and masses over two decades; n from 1 to a few thousand
 * (spare lanes, a last batch of one). */
static void test_pot_rows(uint64_t *rs, int have512)
{
    enum { NP = 3001 };
    double (*x)[3] = malloc(sizeof(double[3]) * NP), *m = malloc(sizeof(double) * NP);
    double *plain = malloc(sizeof(double) * NP), *got = malloc(sizeof(double) * NP);
    for (int j = 0; j < NP; j++) {
        const double off = j % 3 == 0 ? 10.0 : 0.0;
        m[j] = pow(10.0, -2.0 * urand(rs)) / NP;
        for (int e = 0; e < 3; e++) x[j][e] = off + 2.0 * urand(rs) - 1.0;
        if (j % 40 == 1)
            for (int e = 0; e < 3; e++) x[j][e] = x[j - 1][e] + 1e-5 * (urand(rs) - 0.5);
    }
    int lanes_same = 1;
    potref_plain_rows(NP, m, (const double (*)[3])x, plain);
    for (int i0 = 0; i0 < NP; i0 += 89) {
        const int n = NP - i0 < FPOLY_LANES ? NP - i0 : 1 + i0 % FPOLY_LANES;
        double pb[FPOLY_LANES], pw[FPOLY_LANES];
        pot_rows_lanes_run(NP, m, (const double (*)[3])x, i0, n, pb, n);
        if (have512) gpunb_cpu_pot_rows_lanes_avx512(NP, m, (const double (*)[3])x, i0, n, pw);
        else memcpy(pw, pb, sizeof pb);
        lanes_same &= memcmp(pb, plain + i0, sizeof(double) * n) == 0 && memcmp(pw, plain + i0, sizeof(double) * n) == 0;
    }
    CHECK(lanes_same, "pot rows lanes: %s the plain loop bit for bit", have512 ? "both builds equal" : "the baseline build equals");

    static const int sizes[] = {1, 2, 9, 17, 1000, NP};
    const int nthr = omp_get_max_threads();
    for (int mode = 0; mode < 2; mode++) {
        char err[256];
        gpunb_config cfg = {mode ? GPUNB_CPU : GPUNB_CPU_REF, 0};
        gpunb *g = gpunb_open(NP, 8, &cfg, NULL, 0, err, sizeof err);
        if (!g) { CHECK(0, "open: %s", err); continue; }
        int same = 1;
        double worst = 0.0, wrel = 0.0;
        for (size_t q = 0; q < sizeof sizes / sizeof sizes[0]; q++) {
            const int n = sizes[q];
            potref_plain_rows(n, m, (const double (*)[3])x, plain);
            for (int t = 1; t <= nthr; t += nthr > 1 ? nthr - 1 : 1) {
                omp_set_num_threads(t);
                for (int i = 0; i < n; i++) got[i] = NAN;
                gpunb_pot_rows(g, n, m, (const double (*)[3])x, got);
                same &= memcmp(got, plain, sizeof(double) * n) == 0;
            }
            omp_set_num_threads(nthr);
            double rel;
            worst = fmax(worst, potref_check(n, m, (const double (*)[3])x, got, 1, &rel));
            wrel = fmax(wrel, rel);
        }
        printf("# pot rows %s: worst error %.2e relative, %.3f of the bound\n", gpunb_backend(g), wrel, worst);
        CHECK(same, "pot rows %s: the plain loop bit for bit (n = 1 .. %d, 1 and %d threads)", gpunb_backend(g), NP,
              nthr);
        CHECK(worst <= 1.0, "pot rows %s: within (k + 3.5) 2^-53 of the long-double rows (worst %.3f of it)",
              gpunb_backend(g), worst);
        gpunb_close(g);
    }
    free(x); free(m); free(plain); free(got);
}

int main(void)
{
    uint64_t seed = check_seed(), rs = seed;
    cluster *c = malloc(sizeof *c);
    make_cluster(c, &rs);
    double t = 0.003;
    double (*xp)[3] = malloc(sizeof(double[3]) * N), (*vp)[3] = malloc(sizeof(double[3]) * N);
    predicted(c, t, xp, vp);

    /* NI distinct bodies; radii for ~50 neighbours (2/3 of them), ~0 (1/6),
     * and too many for NBMAX (1/6); the few-body call takes the first 3 */
    int *ilist = malloc(sizeof(int) * NI);
    double *h2 = malloc(sizeof(double) * NI), *dtr = malloc(sizeof(double) * NI);
    char *seen = calloc(N, 1);
    for (int k = 0; k < NI;) {
        int i = (int)(urand(&rs) * N);
        if (seen[i]) continue;
        seen[i] = 1;
        double rs_nb = k % 6 == 4 ? 0.02 : k % 6 == 5 ? 0.9 : 0.3; /* in N-body length units */
        h2[k] = rs_nb * rs_nb * N;        /* RS^2 / <m>, <m> = 1/N */
        dtr[k] = 0.01 * urand(&rs);
        ilist[k++] = i;
    }
    free(seen);

    __builtin_cpu_init();
    int have2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int have512 = have2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
    int nthr = omp_get_max_threads();
    if (have2) test_width(8, c, ilist, h2, dtr, xp, vp, t);
    else SKIP("cpu-simd AVX2 kernel: this CPU lacks AVX2+FMA");
    if (have512) test_width(16, c, ilist, h2, dtr, xp, vp, t);
    else SKIP("cpu-simd AVX-512 kernel: this CPU lacks AVX-512 F/DQ/VL");
    test_fpoly_lanes(&rs, have512);
    test_pot_rows(&rs, have512);
    if (!have512) SKIP("cpu-ref fpoly and pot, AVX-512 build: this CPU lacks AVX-512");
    omp_set_num_threads(nthr);

    free(ilist); free(h2); free(dtr); free(xp); free(vp); free(c);
    return check_done();
}
