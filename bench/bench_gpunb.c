/* bench_gpunb.c — GPUNB speed: interactions per second and TFLOP/s (60 flops
 * per pair, the paper's count) of the regular force with neighbour lists,
 * for N_i in {64, 256, 1024, 4096} x N_j in {16k, 64k, 256k, 1M}.  One call =
 * set_jp of the N_i corrected bodies + predict + regf, transfers included,
 * as in an integration.  Paths: CUDA default (j-polynomials on the GPU,
 * two-float differences), FP64 differences; the CPU backend at a few sizes in the same run; start-up
 * (regf + fpoly over all N) and the potential at 32k and 128k.
 *
 *   bench_gpunb [--quick] [--ngpu N] [--point N_i N_j] [--cpu N_i N_j] [--overlap N_i N_j]
 *     --point: the default CUDA path at one size only (for tuning sweeps,
 *     e.g. NBODY6C_GPU_BLOCKS); NBODY6C_NGPU also limits the GPUs.
 *     --cpu: the CPU backend nbody6c runs with --gpu=off ("cpu-simd") at
 *     one size only.
 *     --overlap: how much host work gpunb_regf_begin/_end hide at one size:
 *     a call with the host idle, then with the host busy between the two
 *     halves (on every OpenMP thread, and on the calling thread alone)
 *     for 0.8 of that time.
 *     --potential N PATHS: the potential of N bodies: gpunb_pot (every
 *     row whole) and gpunb_pot_rows (the upper triangle) on each of PATHS
 *     (comma-separated: cuda, cpu for cpu-simd, cpu-ref), and "host", the
 *     plain scalar triangle loop that the rows reproduce; the rows of every
 *     path are compared with the first's bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "gpunb/gpunb.h"
#ifdef HAVE_CUDA
#include "gpunb/gpunb_cuda.h"
#endif

#define NBMAX 400
#define C3(p) ((const double (*)[3])(p))

typedef struct {
    int n;
    double *t0, *m, (*x)[3], (*v)[3], (*a)[3], (*jk)[3];
} bodies;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double urand(uint64_t *s) { return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static bodies plummer(int n, uint64_t seed)
{
    bodies B;
    B.n = n;
    B.t0 = calloc((size_t)n, sizeof(double)); B.m = calloc((size_t)n, sizeof(double));
    B.x = calloc((size_t)n, sizeof *B.x); B.v = calloc((size_t)n, sizeof *B.v);
    B.a = calloc((size_t)n, sizeof *B.a); B.jk = calloc((size_t)n, sizeof *B.jk);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        double r = 1.0 / sqrt(pow(urand(&s) * 0.999 + 1e-6, -2.0 / 3.0) - 1.0);
        double z = 2 * urand(&s) - 1, ph = 2 * M_PI * urand(&s), q = sqrt(1 - z * z);
        B.x[i][0] = r * q * cos(ph); B.x[i][1] = r * q * sin(ph); B.x[i][2] = r * z;
        for (int k = 0; k < 3; k++) {
            B.v[i][k] = 0.5 * (urand(&s) - 0.5);
            B.a[i][k] = urand(&s) - 0.5;
            B.jk[i][k] = urand(&s) - 0.5;
        }
        B.m[i] = 1.0 / n;
    }
    return B;
}

typedef struct {
    int ni, *idx;
    double *h2, *dtr, (*x)[3], (*v)[3], (*a)[3], (*jk)[3], *t0, *m;
    int *nnb, *list;
} iset;

/* ni bodies spread over the j-range, radii for ~50 neighbours (as NBODY6 keeps them) */
static iset make_iset(const bodies *B, int nj, int ni, uint64_t seed)
{
    iset I;
    I.ni = ni;
    I.idx = malloc((size_t)ni * sizeof(int));
    I.h2 = malloc((size_t)ni * sizeof(double)); I.dtr = malloc((size_t)ni * sizeof(double));
    I.x = malloc((size_t)ni * sizeof *I.x); I.v = malloc((size_t)ni * sizeof *I.v);
    I.a = malloc((size_t)ni * sizeof *I.a); I.jk = malloc((size_t)ni * sizeof *I.jk);
    I.t0 = malloc((size_t)ni * sizeof(double));
    I.m = malloc((size_t)ni * sizeof(double));
    I.nnb = malloc((size_t)ni * sizeof(int));
    I.list = malloc((size_t)ni * NBMAX * sizeof(int));
    uint64_t s = seed;
    for (int k = 0; k < ni; k++) {
        int i = ni >= nj ? k % nj : (int)(urand(&s) * nj);
        I.idx[k] = i;
        I.m[k] = B->m[i];
        double r2 = 0;
        for (int e = 0; e < 3; e++) { I.x[k][e] = B->x[i][e]; I.v[k][e] = B->v[i][e]; r2 += B->x[i][e] * B->x[i][e]; }
        double h = pow(50.0 / nj, 1.0 / 3.0) * pow(1 + r2, 5.0 / 6.0);
        I.h2[k] = h * h / B->m[i];   /* h2 = RS^2 / <m>, equal masses */
        I.dtr[k] = 1.0 / 256;
    }
    return I;
}

static void free_iset(iset *I)
{
    free(I->idx); free(I->h2); free(I->dtr); free(I->x); free(I->v); free(I->a); free(I->jk); free(I->t0); free(I->m);
    free(I->nnb); free(I->list);
}

static void send_range(gpunb *g, const bodies *B, int nj)
{
    int *idx = malloc((size_t)nj * sizeof(int));
    for (int k = 0; k < nj; k++) idx[k] = k;
    gpunb_set_range(g, 0, nj);
    gpunb_set_jp(g, nj, idx, B->t0, C3(B->x), C3(B->v), C3(B->a), C3(B->jk), B->m);
    gpunb_predict(g, 0.0);
    free(idx);
}

/* The i-bodies corrected at t (set_jp), then every j-body predicted to t. */
static void corrected_at(gpunb *g, const bodies *B, iset *I, double t)
{
    for (int k = 0; k < I->ni; k++) {
        I->t0[k] = t;
        for (int e = 0; e < 3; e++) { I->a[k][e] = B->a[I->idx[k]][e]; I->jk[k][e] = B->jk[I->idx[k]][e]; }
    }
    gpunb_set_jp(g, I->ni, I->idx, I->t0, C3(I->x), C3(I->v), C3(I->a), C3(I->jk), I->m);
    gpunb_predict(g, t);
}

/* One integration-like call: the i-bodies were corrected (set_jp), all j are
 * predicted, then the regular force.  Returns seconds per call. */
static double time_calls(gpunb *g, const bodies *B, iset *I, double min_s, double *mean_nnb)
{
    double t = 0, start = 0, el = 0;
    int reps = 0;
    for (int it = 0;; it++) {
        if (it == 2) start = omp_get_wtime();
        t += 1.0 / 1024;
        corrected_at(g, B, I, t);
        gpunb_regf(g, I->ni, I->idx, I->h2, I->dtr, C3(I->x), C3(I->v), I->a, I->jk, I->nnb, I->list);
        if (it >= 2) {
            reps++;
            el = omp_get_wtime() - start;
            if (el >= min_s && reps >= 3) break;
        }
    }
    long s = 0;
    for (int k = 0; k < I->ni; k++) s += I->nnb[k] > 0 ? I->nnb[k] : 0;
    *mean_nnb = (double)s / I->ni;
    return el / reps;
}

static gpunb *open_path(const char *path, int nmax, int ngpu, char *err, size_t errlen)
{
    gpunb_config cfg = {GPUNB_REQUIRED, ngpu};
    char notice[256];
    if (!strcmp(path, "cpu-ref")) cfg.mode = GPUNB_CPU_REF;
    if (!strcmp(path, "cpu")) cfg.mode = GPUNB_CPU;
    if (!strcmp(path, "fp64")) setenv("NBODY6C_GPU_FP64", "1", 1);
    gpunb *g = gpunb_open(nmax, NBMAX, &cfg, notice, sizeof notice, err, errlen);
    if (!strcmp(path, "fp64")) unsetenv("NBODY6C_GPU_FP64");
    /* as nbody6c does: a core for each extra GPU's host thread */
    if (g && gpunb_host_threads(g) > 0 && !getenv("OMP_NUM_THREADS")) {
        int n = omp_get_num_procs() - gpunb_host_threads(g);
        omp_set_num_threads(n > 1 ? n : 1);
    }
    return g;
}

static void bench_path(const char *path, const bodies *B, const int *njs, int nnj, const int *nis, int nni,
                       double min_s, int ngpu)
{
    char err[256];
    gpunb *g = open_path(path, B->n, ngpu, err, sizeof err);
    if (!g) { printf("%-8s  not available: %s\n", path, err); return; }
    int ng = 0;
#ifdef HAVE_CUDA
    gpunb_cuda_stats st;
    if (gpunb_cuda_get_stats(g, &st)) ng = st.ngpu;
#endif
    for (int a = 0; a < nnj; a++) {
        send_range(g, B, njs[a]);
        for (int b = 0; b < nni; b++) {
            iset I = make_iset(B, njs[a], nis[b], 12345 + (uint64_t)b);
            double nb, dt = time_calls(g, B, &I, min_s, &nb);
            double rate = (double)nis[b] * njs[a] / dt;
            printf("%-8s %4d %7d %5d %10.1f %11.3e %8.2f %6.1f\n", path, ng, njs[a], nis[b], dt * 1e6, rate,
                   rate * 60e-12, nb);
            fflush(stdout);
            free_iset(&I);
        }
    }
#ifdef HAVE_CUDA
    if (gpunb_cuda_get_stats(g, &st)) {
        printf("# %s: %ld regf calls, %ld slice-list redos, slice capacity %d\n", path, st.regf_calls,
               st.slice_retries, st.slice_capacity);
        double n = st.regf_calls > 0 ? 1e6 / st.regf_calls : 0.0;
        printf("# %s: us per call: flush %.1f, pack %.1f, GPUs %.1f, combine %.1f", path, st.t_flush * n,
               st.t_pack * n, st.t_dev * n, st.t_combine * n);
        if (st.k_force > 0.0)
            printf("; GPU 0: predict %.1f, upload %.1f, force %.1f, lists %.1f, copy back %.1f",
                   st.k_predict * n, st.k_upload * n, st.k_force * n, st.k_lists * n, st.k_down * n);
        printf("\n");
    }
#endif
    gpunb_close(g);
}

/* Start-up as the integrator does it: all bodies sent, regf over all N
 * (lists + regular force), fpoly over all N; then the potential. */
static void bench_startup(const char *path, const bodies *B, int n, int ngpu)
{
    char err[256];
    gpunb *g = open_path(path, n, ngpu, err, sizeof err);
    if (!g) { printf("startup %-8s not available: %s\n", path, err); return; }
    iset I = make_iset(B, n, n, 777);
    double (*d2i)[3] = malloc((size_t)n * sizeof *d2i), (*d3i)[3] = malloc((size_t)n * sizeof *d3i);
    double (*d2r)[3] = malloc((size_t)n * sizeof *d2r), (*d3r)[3] = malloc((size_t)n * sizeof *d3r);
    double *pot = malloc((size_t)n * sizeof(double));
    for (int k = 0; k < n; k++)
        for (int e = 0; e < 3; e++) { I.a[k][e] = B->a[k][e]; I.jk[k][e] = B->jk[k][e]; }
    double t0 = omp_get_wtime();
    send_range(g, B, n);
    double t1 = omp_get_wtime();
    int over = gpunb_regf(g, n, I.idx, I.h2, I.dtr, C3(I.x), C3(I.v), I.a, I.jk, I.nnb, I.list);
    double t2 = omp_get_wtime();
    for (int k = 0; k < n; k++)
        for (int e = 0; e < 3; e++) { I.a[k][e] = B->a[k][e]; I.jk[k][e] = B->jk[k][e]; }
    gpunb_fpoly(g, n, I.idx, I.h2, I.dtr, C3(I.x), C3(I.v), C3(I.a), C3(I.jk), d2i, d3i, d2r, d3r);
    double t3 = omp_get_wtime();
    gpunb_pot(g, n, B->m, C3(B->x), pot);
    double t4 = omp_get_wtime();
    printf("startup %-8s N=%7d  send %.3f s  regf %.3f s  fpoly %.3f s  total %.3f s   pot %.3f s  (%d overflowed)\n",
           path, n, t1 - t0, t2 - t1, t3 - t2, t3 - t0, t4 - t3, over);
    free(d2i); free(d3i); free(d2r); free(d3r); free(pot);
    free_iset(&I);
    gpunb_close(g);
}

/* Busy on the wall clock for w seconds: the whole OpenMP team, or one thread. */
static void host_busy(double w, int team)
{
    const double end = omp_get_wtime() + w;
    volatile double sink = 0;
    if (!team) {
        while (omp_get_wtime() < end) sink += 1.0;
        return;
    }
#pragma omp parallel
    {
        while (omp_get_wtime() < end) sink += 1.0;
    }
    (void)sink;
}

/* One integration-like call with the regular force in two halves and the
 * host busy for w seconds between them (w = 0: the plain call); seconds
 * per call. */
static double time_split(gpunb *g, const bodies *B, iset *I, double w, int team, int reps)
{
    double t = 0, el = 0;
    for (int it = 0; it < reps + 2; it++) {
        double start = omp_get_wtime();
        t += 1.0 / 1024;
        corrected_at(g, B, I, t);
        gpunb_regf_begin(g, I->ni, I->idx, I->h2, I->dtr, C3(I->x), C3(I->v));
        if (w > 0) host_busy(w, team);
        gpunb_regf_end(g, I->a, I->jk, I->nnb, I->list);
        if (it >= 2) el += omp_get_wtime() - start;
    }
    return el / reps;
}

static void bench_overlap(const bodies *B, int ni, int nj, int ngpu)
{
    char err[256];
    gpunb *g = open_path("cuda", nj, ngpu, err, sizeof err);
    if (!g) { printf("# overlap: %s\n", err); return; }
    send_range(g, B, nj);
    iset I = make_iset(B, nj, ni, 7);
    const double T = time_split(g, B, &I, 0.0, 0, 20);
    const double w = 0.8 * T;
    const double Tt = time_split(g, B, &I, w, 1, 20), T1 = time_split(g, B, &I, w, 0, 20);
    printf("# overlap N_i=%d N_j=%d: call %.1f us; host busy %.1f us between the halves: "
           "team %.1f us (%.0f %% of the busy time hidden), one thread %.1f us (%.0f %% hidden)\n",
           ni, nj, 1e6 * T, 1e6 * w, 1e6 * Tt, 100 * (T + w - Tt) / w, 1e6 * T1, 100 * (T + w - T1) / w);
    free_iset(&I);
    gpunb_close(g);
}

/* the plain triangle rows of gpunb_pot_rows's contract, one thread a row */
static void host_pot_rows(int n, const double *m, const double (*x)[3], double *row)
{
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = i + 1; j < n; j++) {
            const double dx = x[j][0] - x[i][0], dy = x[j][1] - x[i][1], dz = x[j][2] - x[i][2];
            s += m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
        row[i] = s;
    }
}

static void bench_potential(const bodies *B, int n, const char *paths, int ngpu)
{
    double *row = malloc((size_t)n * sizeof(double)), *first = malloc((size_t)n * sizeof(double));
    double *pot = malloc((size_t)n * sizeof(double));
    int have_first = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", paths);
    for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
        double tp = NAN, tr;
        if (!strcmp(p, "host")) {
            const double t0 = omp_get_wtime();
            host_pot_rows(n, B->m, C3(B->x), row);
            tr = omp_get_wtime() - t0;
        } else {
            char err[256];
            gpunb *g = open_path(p, n, ngpu, err, sizeof err);
            if (!g) { printf("potential %-8s not available: %s\n", p, err); continue; }
            gpunb_pot_rows(g, 64, B->m, C3(B->x), row);   /* first-call costs (context, buffers) apart */
            double t0 = omp_get_wtime();
            gpunb_pot(g, n, B->m, C3(B->x), pot);
            tp = omp_get_wtime() - t0;
            t0 = omp_get_wtime();
            gpunb_pot_rows(g, n, B->m, C3(B->x), row);
            tr = omp_get_wtime() - t0;
            gpunb_close(g);
        }
        const char *same = "";
        if (!have_first) memcpy(first, row, (size_t)n * sizeof(double)), have_first = 1;
        else same = memcmp(first, row, (size_t)n * sizeof(double)) ? "  rows DIFFER from the first path's"
                                                                     : "  rows bit-identical to the first path's";
        printf("potential %-8s N=%8d  pot %8.3f s  rows %8.3f s  (%.3g pairs/s)%s\n", p, n, tp, tr,
               0.5 * (double)n * (n - 1) / tr, same);
    }
    free(row); free(first); free(pot);
}

int main(int argc, char **argv)
{
    int quick = 0, ngpu = 0, pni = 0, pnj = 0, oni = 0, onj = 0, cni1 = 0, cnj1 = 0, potn = 0;
    const char *potpaths = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick")) quick = 1;
        else if (!strcmp(argv[a], "--ngpu") && a + 1 < argc) ngpu = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--point") && a + 2 < argc) { pni = atoi(argv[a + 1]); pnj = atoi(argv[a + 2]); a += 2; }
        else if (!strcmp(argv[a], "--overlap") && a + 2 < argc) { oni = atoi(argv[a + 1]); onj = atoi(argv[a + 2]); a += 2; }
        else if (!strcmp(argv[a], "--cpu") && a + 2 < argc) { cni1 = atoi(argv[a + 1]); cnj1 = atoi(argv[a + 2]); a += 2; }
        else if (!strcmp(argv[a], "--potential") && a + 2 < argc) { potn = atoi(argv[a + 1]); potpaths = argv[a + 2]; a += 2; }
        else {
            fprintf(stderr, "usage: %s [--quick] [--ngpu N] [--point N_i N_j] [--cpu N_i N_j] [--overlap N_i N_j] "
                    "[--potential N PATHS]\n",
                    argv[0]);
            return 2;
        }
    }
    static const int njs[] = {16384, 65536, 262144, 1048576}, nis[] = {64, 256, 1024, 4096};
    const int nnj = quick ? 2 : 4;
    bodies B = plummer(1048576, 42);
    printf("# GPUNB benchmark: one call = set_jp(N_i) + predict + regf, 60 flops per pair; %d host threads\n",
           omp_get_max_threads());
    printf("%-8s %4s %7s %5s %10s %11s %8s %6s\n", "path", "gpus", "N_j", "N_i", "us/call", "pairs/s", "TFLOP/s",
           "<nnb>");
    const double min_s = quick ? 0.05 : 0.25;
    if (potn > 0 && potn <= B.n) {
        bench_potential(&B, potn, potpaths, ngpu);
        return 0;
    }
    if (oni > 0 && onj > 0 && onj <= B.n) {
        bench_overlap(&B, oni, onj, ngpu);
        return 0;
    }
    if (pni > 0 && pnj > 0 && pnj <= B.n) {
        bench_path("cuda", &B, &pnj, 1, &pni, 1, 0.5, ngpu);
        return 0;
    }
    if (cni1 > 0 && cnj1 > 0 && cnj1 <= B.n) {
        bench_path("cpu", &B, &cnj1, 1, &cni1, 1, 1.0, 0);
        return 0;
    }
    bench_path("cuda", &B, njs, nnj, nis, 4, min_s, ngpu);
    bench_path("fp64", &B, njs, nnj, nis, 4, min_s, ngpu);
    static const int cnj[] = {16384, 65536}, cni[] = {1024};
    bench_path("cpu-ref", &B, cnj, quick ? 1 : 2, cni, 1, min_s, 0);
    bench_startup("cuda", &B, 32768, ngpu);
    bench_startup("cuda", &B, 131072, ngpu);
    if (!quick) bench_startup("cpu-ref", &B, 32768, 0);
    return 0;
}
