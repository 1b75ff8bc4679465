/* bench_gpuirr.c — speed of the GPUIRR backends: irregular pair interactions
 * per second (total and per thread) for each backend the CPU supports
 * ("scalar" beside "sse", "avx2", "avx512" in the same run), over 1, 2, 4, 8,
 * 16 threads (as many as the machine has) and active blocks of a few hundred
 * bodies to all of them; then the cost of pred_act against pred_all, which
 * places the NPACT turn-around.
 *
 * Set-up: N = 65536 bodies in a unit ball, lists of 50 to 100 random
 * neighbours (uniform in N, as the slot order of a real run is unrelated to
 * position), predicted from random t0.
 *
 * Usage: bench_gpuirr [N] [seconds per measurement]   (defaults 65536, 0.3)
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuirr/gpuirr.h"
#include "gpuirr/gpuirr_simd.h"

enum { NBMAX = 400, NB_LO = 50, NB_HI = 100 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double urand(uint64_t *s) { return (double)(next(s) >> 11) * 0x1.0p-53; }

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int n;
    double *t0, *m, (*x)[3], (*v)[3], (*a)[3], (*j)[3];
    int *nnb, *list;
} bodies;

static void make_bodies(bodies *b, int n, uint64_t *rs)
{
    b->n = n;
    b->t0 = malloc(sizeof *b->t0 * n); b->m = malloc(sizeof *b->m * n);
    b->x = malloc(sizeof *b->x * n); b->v = malloc(sizeof *b->v * n);
    b->a = malloc(sizeof *b->a * n); b->j = malloc(sizeof *b->j * n);
    b->nnb = malloc(sizeof *b->nnb * n);
    b->list = malloc(sizeof *b->list * (size_t)n * NBMAX);
    char *seen = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
        b->t0[i] = -0.01 * urand(rs);
        b->m[i] = 1.0 / n;
        double r;
        do {
            for (int k = 0; k < 3; k++) b->x[i][k] = 2 * urand(rs) - 1;
            r = b->x[i][0] * b->x[i][0] + b->x[i][1] * b->x[i][1] + b->x[i][2] * b->x[i][2];
        } while (r > 1);
        for (int k = 0; k < 3; k++) {
            b->v[i][k] = 2 * urand(rs) - 1;
            b->a[i][k] = 2 * urand(rs) - 1;
            b->j[i][k] = 2 * urand(rs) - 1;
        }
        int nnb = NB_LO + (int)(urand(rs) * (NB_HI - NB_LO + 1)), *l = b->list + (size_t)i * NBMAX;
        seen[i] = 1;
        for (int k = 0; k < nnb;) {
            int j = (int)(urand(rs) * n);
            if (!seen[j]) { seen[j] = 1; l[k++] = j; }
        }
        for (int k = 0; k < nnb; k++) seen[l[k]] = 0;
        seen[i] = 0;
        qsort(l, (size_t)nnb, sizeof *l, cmp_int);
        b->nnb[i] = nnb;
    }
    free(seen);
}

/* A random active block of ni distinct bodies, ascending. */
static void make_block(int n, int ni, int *ilist, uint64_t *rs)
{
    if (ni >= n) { for (int i = 0; i < n; i++) ilist[i] = i; return; }
    char *seen = calloc((size_t)n, 1);
    for (int k = 0; k < ni;) {
        int i = (int)(urand(rs) * n);
        if (!seen[i]) { seen[i] = 1; ilist[k++] = i; }
    }
    free(seen);
    qsort(ilist, (size_t)ni, sizeof *ilist, cmp_int);
}

static void load(gpuirr *g, const bodies *b)
{
    for (int i = 0; i < b->n; i++) {
        gpuirr_set_jp(g, i, b->t0[i], b->x[i], b->v[i], b->a[i], b->j[i], b->m[i]);
        gpuirr_set_list(g, i, b->nnb[i], b->list + (size_t)i * NBMAX);
    }
}

/* Pair interactions per second of firr on the block, best of repeats over
 * at least `secs`. */
static double pair_rate(gpuirr *g, const bodies *b, int ni, const int *ilist, double (*acc)[3],
                        double (*jrk)[3], double secs)
{
    long pairs = 0;
    for (int k = 0; k < ni; k++) pairs += b->nnb[ilist[k]];
    double best = 0, t_start = now();
    int reps = 0;
    do {
        double t0 = now();
        int inner = 0;
        do { gpuirr_firr(g, ni, ilist, acc, jrk); inner++; } while (now() - t0 < 0.02);
        double rate = (double)pairs * inner / (now() - t0);
        if (rate > best) best = rate;
        reps++;
    } while (now() - t_start < secs || reps < 3);
    return best;
}

/* Seconds per call of pred_all(0, n) and of pred_act(ni) at fresh times. */
static double pred_time(gpuirr *g, int n, int ni, const int *ilist, int all, double *tnow)
{
    double best = 1e30;
    for (int r = 0; r < 7; r++) {
        *tnow += 1e-6;
        double t0 = now();
        if (all) gpuirr_pred_all(g, 0, n, *tnow);
        else gpuirr_pred_act(g, ni, ilist, *tnow);
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 65536;
    double secs = argc > 2 ? atof(argv[2]) : 0.3;
    uint64_t rs = 12345;
    bodies b;
    make_bodies(&b, n, &rs);
    int ncpu = omp_get_num_procs(), nthr_default = omp_get_max_threads();
    int *ilist = malloc(sizeof *ilist * n);
    double (*acc)[3] = malloc(sizeof *acc * n), (*jrk)[3] = malloc(sizeof *jrk * n);

    __builtin_cpu_init();
    char model[128] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) { snprintf(model, sizeof model, "%s", c + 2); model[strcspn(model, "\n")] = 0; }
                break;
            }
        fclose(f);
    }
    printf("# bench_gpuirr: N = %d, lists of %d-%d random neighbours, CPU \"%s\", %d logical CPUs\n",
           n, NB_LO, NB_HI, model, ncpu);
    printf("# irregular pair interactions per second (best of repeats), M = 1e6\n");
    printf("%-8s %7s %7s %12s %14s\n", "backend", "threads", "ni", "Mpairs/s", "Mpairs/s/thr");

    const struct { gpuirr_simd path; const char *name; } paths[] = {
        {GPUIRR_SCALAR, "scalar"}, {GPUIRR_SSE, "sse"}, {GPUIRR_AVX2, "avx2"}, {GPUIRR_AVX512, "avx512"}};
    const int blocks[] = {256, 1024, 4096, n};
    const int threads[] = {1, 2, 4, 8, 16};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        char err[256];
        gpuirr *g = gpuirr_open(n, NBMAX, paths[p].path, err, sizeof err);
        if (!g) { printf("%-8s skipped: %s\n", paths[p].name, err); continue; }
        load(g, &b);
        gpuirr_pred_all(g, 0, n, 0.0);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            if (threads[t] > ncpu) break;
            omp_set_num_threads(threads[t]);
            for (size_t q = 0; q < sizeof blocks / sizeof blocks[0]; q++) {
                int ni = blocks[q] < n ? blocks[q] : n;
                make_block(n, ni, ilist, &rs);
                double rate = pair_rate(g, &b, ni, ilist, acc, jrk, secs);
                printf("%-8s %7d %7d %12.1f %14.1f\n", paths[p].name, threads[t], ni, rate * 1e-6,
                       rate * 1e-6 / threads[t]);
                fflush(stdout);
            }
        }
        gpuirr_close(g);
    }

    /* NPACT: pred_act (the union of block and lists) against pred_all */
    omp_set_num_threads(nthr_default);
    char err[256];
    gpuirr *g = gpuirr_open(n, NBMAX, GPUIRR_AUTO, err, sizeof err);
    if (g && strcmp(gpuirr_backend(g), "scalar") != 0) {
        load(g, &b);
        gpuirr_simd_set_npact(g, 1e30);
        double tnow = 0;
        pred_time(g, n, 0, NULL, 1, &tnow); /* warm-up: threads, pages */
        double t_all = pred_time(g, n, 0, NULL, 1, &tnow);
        printf("\n# prediction (%s state, %d threads): pred_all of %d bodies %.3f ms\n",
               gpuirr_backend(g), nthr_default, n, 1e3 * t_all);
        printf("%7s %11s %12s %10s %14s\n", "ni", "sum(1+nnb)", "pred_act ms", "act/all", "default ms");
        for (int ni = 16; ni <= n; ni *= 2) {
            make_block(n, ni, ilist, &rs);
            long work = 0;
            for (int k = 0; k < ni; k++) work += 1 + b.nnb[ilist[k]];
            double t_act = pred_time(g, n, ni, ilist, 0, &tnow);
            gpuirr_simd_set_npact(g, -1); /* back to the library's own choice */
            double t_def = pred_time(g, n, ni, ilist, 0, &tnow);
            gpuirr_simd_set_npact(g, 1e30);
            printf("%7d %11ld %12.3f %10.2f %14.3f\n", ni, work, 1e3 * t_act, t_act / t_all, 1e3 * t_def);
        }
    }
    gpuirr_close(g);
    return 0;
}
