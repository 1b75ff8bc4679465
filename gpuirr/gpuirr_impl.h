/* gpuirr_impl.h — what a GPUIRR backend provides: a table of functions behind
 * gpuirr.h.  Each backend embeds `struct gpuirr` as the first member of its
 * own state. */
#ifndef NBODY6C_GPUIRR_IMPL_H
#define NBODY6C_GPUIRR_IMPL_H

#include "gpuirr/gpuirr.h"

typedef struct gpuirr_ops {
    const char *name;
    void (*close)(gpuirr *g);
    void (*set_jp)(gpuirr *g, int i, double t0, const double x[3], const double v[3],
                   const double a[3], const double jerk[3], double m);
    void (*set_list)(gpuirr *g, int i, int nnb, const int *list);
    void (*pred_all)(gpuirr *g, int jbeg, int jend, double t);
    void (*pred_act)(gpuirr *g, int ni, const int *ilist, double t);
    int (*firr)(gpuirr *g, int ni, const int *ilist, double (*a)[3], double (*jerk)[3]);
} gpuirr_ops;

struct gpuirr {
    const gpuirr_ops *ops;
    int nmax, nbmax;
    char error[256];
};

gpuirr *gpuirr_scalar_open(int nmax, int nbmax, char *err, size_t errlen);
/* The SIMD backends (gpuirr_simd.c): path is GPUIRR_SSE, GPUIRR_AVX2 or
 * GPUIRR_AVX512; NULL with a message in err when the CPU lacks it. */
gpuirr *gpuirr_simd_open(int nmax, int nbmax, gpuirr_simd path, char *err, size_t errlen);

#endif
