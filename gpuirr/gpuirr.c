/* gpuirr.c — GPUIRR front end: picks the backend and forwards every call. */
#include <stdio.h>
#include "gpuirr_impl.h"

gpuirr *gpuirr_open(int nmax, int nbmax, gpuirr_simd simd, char *err, size_t errlen)
{
    switch (simd) {
    case GPUIRR_AUTO:
    case GPUIRR_SCALAR:
        return gpuirr_scalar_open(nmax, nbmax, err, errlen);
    default:
        snprintf(err, errlen, "SIMD irregular-force path not available in this build");
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
