/* gpuirr.c — GPUIRR front end: picks the backend and forwards every call.
 * GPUIRR_AUTO takes the widest SIMD path the CPU supports (AVX-512, AVX2,
 * SSE4.1; measured fastest in that order, bench/bench_gpuirr.c), else the
 * scalar backend; an explicit path fails with a message when the CPU lacks
 * it. */
#include <stdio.h>
#include "gpuirr/gpuirr_impl.h"
#include "gpuirr/gpuirr_simd.h"

gpuirr *gpuirr_open(int nmax, int nbmax, gpuirr_simd simd, char *err, size_t errlen)
{
    static const gpuirr_simd best_first[] = {GPUIRR_AVX512, GPUIRR_AVX2, GPUIRR_SSE};
    switch (simd) {
    case GPUIRR_AUTO:
        for (size_t k = 0; k < sizeof best_first / sizeof best_first[0]; k++)
            if (gpuirr_simd_supported(best_first[k]))
                return gpuirr_simd_open(nmax, nbmax, best_first[k], err, errlen);
        return gpuirr_scalar_open(nmax, nbmax, err, errlen);
    case GPUIRR_SCALAR:
        return gpuirr_scalar_open(nmax, nbmax, err, errlen);
    case GPUIRR_SSE:
    case GPUIRR_AVX2:
    case GPUIRR_AVX512:
        return gpuirr_simd_open(nmax, nbmax, simd, err, errlen);
    default:
        snprintf(err, errlen, "gpuirr_open: unknown SIMD path %d", (int)simd);
        return NULL;
    }
}

void gpuirr_close(gpuirr *g) { if (g) g->ops->close(g); }
const char *gpuirr_backend(const gpuirr *g) { return g->ops->name; }
const char *gpuirr_error(const gpuirr *g) { return g->error; }

void gpuirr_set_jp(gpuirr *g, int i, double t0, const double x[3], const double v[3],
                   const double a[3], const double jerk[3], double m)
{
    g->ops->set_jp(g, i, t0, x, v, a, jerk, m);
}

void gpuirr_set_list(gpuirr *g, int i, int nnb, const int *list) { g->ops->set_list(g, i, nnb, list); }
void gpuirr_pred_all(gpuirr *g, int jbeg, int jend, double t) { g->ops->pred_all(g, jbeg, jend, t); }
void gpuirr_pred_act(gpuirr *g, int ni, const int *ilist, double t) { g->ops->pred_act(g, ni, ilist, t); }

int gpuirr_firr(gpuirr *g, int ni, const int *ilist, double (*a)[3], double (*jerk)[3])
{
    return g->ops->firr(g, ni, ilist, a, jerk);
}
