/* gpunb.c — GPUNB front end: picks the backend (--gpu=auto|off|ref|required) and
 * forwards every call to it. */
#include <stdio.h>
#include "gpunb_impl.h"

/* The CPU backends: the SIMD one where the CPU has AVX2 + FMA, else the
 * double-precision reference (which --gpu=ref also asks for). */
static gpunb *open_cpu(int nmax, int nbmax, int reference, char *err, size_t errlen)
{
    if (!reference) {
        char why[256];
        gpunb *g = gpunb_cpu_simd_open(nmax, nbmax, why, sizeof why);
        if (g) return g;
    }
    return gpunb_cpu_open(nmax, nbmax, err, errlen);
}

gpunb *gpunb_open(int nmax, int nbmax, const gpunb_config *cfg,
                  char *notice, size_t noticelen, char *err, size_t errlen)
{
    gpunb_config def = {GPUNB_AUTO, 0, 0};
    if (!cfg) cfg = &def;
    if (notice && noticelen) notice[0] = '\0';
    if (cfg->mode == GPUNB_CPU_REF) return open_cpu(nmax, nbmax, 1, err, errlen);
    if (cfg->mode != GPUNB_CPU) {
#ifdef HAVE_CUDA
        char why[256] = "";
        gpunb *g = gpunb_cuda_open(nmax, nbmax, cfg, why, sizeof why);
        if (g) return g;
        if (cfg->mode == GPUNB_REQUIRED) {
            snprintf(err, errlen, "--gpu=required: %s", why);
            return NULL;
        }
        if (notice) snprintf(notice, noticelen, "no usable GPU (%s): regular force on the CPU backend", why);
#else
        if (cfg->mode == GPUNB_REQUIRED) {
            snprintf(err, errlen, "--gpu=required: this binary was built without CUDA (make CUDA=1)");
            return NULL;
        }
        if (notice) snprintf(notice, noticelen, "built without CUDA: regular force on the CPU backend");
#endif
    }
    return open_cpu(nmax, nbmax, 0, err, errlen);
}

void gpunb_close(gpunb *g) { if (g) g->ops->close(g); }
const char *gpunb_backend(const gpunb *g) { return g->ops->name; }
int gpunb_host_threads(const gpunb *g) { return g->host_threads; }
void gpunb_set_range(gpunb *g, int jbeg, int jend) { g->ops->set_range(g, jbeg, jend); }

void gpunb_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                  const double (*x)[3], const double (*v)[3],
                  const double (*a)[3], const double (*jerk)[3], const double *m)
{
    g->ops->set_jp(g, n, idx, t0, x, v, a, jerk, m);
}

void gpunb_predict(gpunb *g, double t) { g->ops->predict(g, t); }

int gpunb_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
               const double (*x)[3], const double (*v)[3],
               double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    return g->ops->regf(g, ni, idx, h2, dtr, x, v, a, jerk, nnb, list);
}

void gpunb_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                 const double (*x)[3], const double (*v)[3],
                 const double (*a)[3], const double (*jerk)[3],
                 double (*d2irr)[3], double (*d3irr)[3],
                 double (*d2reg)[3], double (*d3reg)[3])
{
    g->ops->fpoly(g, ni, idx, h2, dtr, x, v, a, jerk, d2irr, d3irr, d2reg, d3reg);
}

void gpunb_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    g->ops->pot(g, n, m, x, pot);
}

int gpunb_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
               const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3])
{
    if (ni <= 0) return 0;
    return g->ops->irrf(g, ni, x, v, nnb, lists, a, jerk);
}
