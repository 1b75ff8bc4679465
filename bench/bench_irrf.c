/* bench_irrf.c — where the irregular force of a block pays on the GPU: the
 * block step's two ways, timed on the same bodies and lists at fresh times,
 *   CPU: gpuirr_pred_act (the members and their neighbours) + gpuirr_firr;
 *   GPU: gather of the members' x, v + gpunb_predict + gpunb_irrf (CUDA
 *        backend; prediction of every j-body on the GPU, lists uploaded);
 *   res: the same with gpunb_irrf_resident (the lists held on the GPU, as
 *        the block step now does);
 * for blocks of 256 to N members, median of 7, and the ratio CPU / res.
 * The switch point of src/core/forces.c (IRR_GPU_MIN_DEFAULT) is where that
 * ratio passes 1.
 *
 * Set-up as bench_gpuirr.c: N bodies in a unit ball, lists of 50 to 100
 * random neighbours (uniform in N: slot order is unrelated to position in
 * a real run), random t0.
 *
 * Usage: bench_irrf [N]   (default 131072; needs a GPU, else it says so)
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuirr/gpuirr.h"
#include "gpunb/gpunb.h"
#include "common/predict.h"

enum { NBMAX = 400, NB_LO = 50, NB_HI = 100, REPS = 7 };

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double urand(uint64_t *s) { return (double)(next(s) >> 11) * 0x1.0p-53; }

/* The members' predicted state at t on the host, as the block step makes
 * it for the GPU irregular force. */
static void predict_members(int ni, const int *ilist, double t, const double *t0,
                            const double (*x)[3], const double (*v)[3], const double (*a)[3],
                            const double (*j)[3], double (*xi)[3], double (*vi)[3])
{
#pragma omp parallel for schedule(static) if (ni >= 4096)
    for (int k = 0; k < ni; k++) {
        int i = ilist[k];
        predict3(t - t0[i], x[i], v[i], a[i], j[i], xi[k], vi[k]);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 131072;
    uint64_t rs = 12345;
    double *t0 = malloc(sizeof *t0 * n), *m = malloc(sizeof *m * n);
    double (*x)[3] = malloc(sizeof *x * n), (*v)[3] = malloc(sizeof *v * n);
    double (*a)[3] = malloc(sizeof *a * n), (*j)[3] = malloc(sizeof *j * n);
    double (*xi)[3] = malloc(sizeof *xi * n), (*vi)[3] = malloc(sizeof *vi * n);
    double (*fa)[3] = malloc(sizeof *fa * n), (*fj)[3] = malloc(sizeof *fj * n);
    int *nnb = malloc(sizeof *nnb * n), *list = malloc(sizeof *list * (size_t)n * NBMAX);
    int *ilist = malloc(sizeof *ilist * n), *nb_i = malloc(sizeof *nb_i * n);
    const int **lp = malloc(sizeof *lp * n);
    char *seen = calloc((size_t)n, 1);
    int *idx = malloc(sizeof *idx * n);
    for (int i = 0; i < n; i++) {
        t0[i] = -0.01 * urand(&rs);
        m[i] = 1.0 / n;
        double r;
        do {
            for (int k = 0; k < 3; k++) x[i][k] = 2 * urand(&rs) - 1;
            r = x[i][0] * x[i][0] + x[i][1] * x[i][1] + x[i][2] * x[i][2];
        } while (r > 1);
        for (int k = 0; k < 3; k++) {
            v[i][k] = 2 * urand(&rs) - 1;
            a[i][k] = 2 * urand(&rs) - 1;
            j[i][k] = 2 * urand(&rs) - 1;
        }
        int q = NB_LO + (int)(urand(&rs) * (NB_HI - NB_LO + 1)), *l = list + (size_t)i * NBMAX;
        seen[i] = 1;
        for (int k = 0; k < q;) {
            int s = (int)(urand(&rs) * n);
            if (!seen[s]) { seen[s] = 1; l[k++] = s; }
        }
        for (int k = 0; k < q; k++) seen[l[k]] = 0;
        seen[i] = 0;
        qsort(l, (size_t)q, sizeof *l, cmp_int);
        nnb[i] = q;
        idx[i] = i;
    }
    char err[256], notice[256];
    gpunb_config cfg = {GPUNB_REQUIRED, 1};
    gpunb *g = gpunb_open(n, NBMAX, &cfg, notice, sizeof notice, err, sizeof err);
    if (!g) {
        printf("bench_irrf: no CUDA backend (%s)\n", err);
        return 0;
    }
    gpuirr *ir = gpuirr_open(n, NBMAX, GPUIRR_AUTO, err, sizeof err);
    if (!ir) { printf("bench_irrf: %s\n", err); return 1; }
    for (int i = 0; i < n; i++) {
        gpuirr_set_jp(ir, i, t0[i], x[i], v[i], a[i], j[i], m[i]);
        gpuirr_set_list(ir, i, nnb[i], list + (size_t)i * NBMAX);
    }
    gpunb_set_range(g, 0, n);
    gpunb_set_jp(g, n, idx, t0, (const double(*)[3])x, (const double(*)[3])v, (const double(*)[3])a,
                 (const double(*)[3])j, m);
    printf("# bench_irrf N=%d, %d threads, GPUIRR %s, GPUNB %s; ms per block (median of %d)\n", n,
           omp_get_max_threads(), gpuirr_backend(ir), gpunb_backend(g), REPS);
    {   /* every list resident on the GPU */
        for (int i = 0; i < n; i++) lp[i] = list + (size_t)i * NBMAX;
        gpunb_set_list(g, n, idx, nnb, lp);
    }
    printf("%8s %10s %10s %10s %10s %8s\n", "members", "pairs", "cpu_ms", "gpu_ms", "res_ms", "cpu/res");
    double tnow = 0.0;
    /* finer between 4k and 64k members, where the switch lies */
    static const int sizes[] = {256, 1024, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536,
                                98304, 131072, 196608, 262144, 524288, 1048576};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    for (int si = 0; si < nsizes && (si == 0 || sizes[si - 1] < n); si++) {
        const int ni = sizes[si] < n ? sizes[si] : n;
        /* a random block, ascending */
        memset(seen, 0, (size_t)n);
        if (ni >= n) for (int k = 0; k < n; k++) ilist[k] = k;
        else
            for (int k = 0; k < ni;) {
                int i = (int)(urand(&rs) * n);
                if (!seen[i]) { seen[i] = 1; ilist[k++] = i; }
            }
        qsort(ilist, (size_t)ni, sizeof *ilist, cmp_int);
        long pairs = 0;
        for (int k = 0; k < ni; k++) {
            nb_i[k] = nnb[ilist[k]];
            lp[k] = list + (size_t)ilist[k] * NBMAX;
            pairs += nb_i[k];
        }
        double tc[REPS], tg[REPS], tr[REPS];
        for (int r = 0; r < REPS; r++) {
            tnow += 1e-6;
            double w0 = omp_get_wtime();
            gpuirr_pred_act(ir, ni, ilist, tnow);
            gpuirr_firr(ir, ni, ilist, fa, fj);
            double w1 = omp_get_wtime();
            tc[r] = w1 - w0;
            tnow += 1e-6;
            w0 = omp_get_wtime();
            predict_members(ni, ilist, tnow, t0, (const double(*)[3])x, (const double(*)[3])v,
                            (const double(*)[3])a, (const double(*)[3])j, xi, vi);
            gpunb_predict(g, tnow);
            gpunb_irrf(g, ni, (const double(*)[3])xi, (const double(*)[3])vi, nb_i, lp, fa, fj);
            tg[r] = omp_get_wtime() - w0;
            tnow += 1e-6;
            w0 = omp_get_wtime();
            predict_members(ni, ilist, tnow, t0, (const double(*)[3])x, (const double(*)[3])v,
                            (const double(*)[3])a, (const double(*)[3])j, xi, vi);
            gpunb_predict(g, tnow);
            gpunb_irrf_resident(g, ni, ilist, (const double(*)[3])xi, (const double(*)[3])vi, fa, fj);
            tr[r] = omp_get_wtime() - w0;
        }
        qsort(tc, REPS, sizeof(double), cmp_dbl);
        qsort(tg, REPS, sizeof(double), cmp_dbl);
        qsort(tr, REPS, sizeof(double), cmp_dbl);
        printf("%8d %10ld %10.3f %10.3f %10.3f %8.2f\n", ni, pairs, 1e3 * tc[REPS / 2], 1e3 * tg[REPS / 2],
               1e3 * tr[REPS / 2], tc[REPS / 2] / tr[REPS / 2]);
    }
    gpuirr_close(ir);
    gpunb_close(g);
    return 0;
}
