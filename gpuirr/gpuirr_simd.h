/* gpuirr_simd.h — what the SIMD GPUIRR backend (gpuirr_simd.c) shares with
 * its kernels (gpuirr_kern_sse.c, gpuirr_kern_avx2.c, gpuirr_kern_avx512.c,
 * each compiled with its own instruction-set flags).
 *
 * Predicted j-body record, one 64-byte cache line per slot, written by the
 * prediction in gpuirr_simd.c and gathered by the kernels:
 *     [0..2]  x_hi = (float)x            [3]  m
 *     [4..6]  x_lo = (float)(x - x_hi)   [7]  0
 *     [8..10] v (float)                  [11..15] 0
 * so that x_hi + x_lo carries about 48 bits of x (absolute error about
 * 2^-48 |x|), while one 128-bit load picks up each group of four.
 *
 * Neighbour lists are stored with a stride of GPUIRR_LIST_PAD-rounded nbmax
 * and padded past their length with the body's own slot, so a kernel may
 * read whole vectors of indices; it masks the lanes past nnb itself.
 */
#ifndef NBODY6C_GPUIRR_SIMD_H
#define NBODY6C_GPUIRR_SIMD_H

#include "gpuirr/gpuirr_impl.h"

enum { GPUIRR_REC = 16,       /* floats per predicted record */
       GPUIRR_LIST_PAD = 16,  /* widest SIMD width: lists are padded to it */
       GPUIRR_FLUSH = 16 };   /* SIMD steps summed in float before double */

/* Sums the irregular acceleration and jerk on body i from its nnb listed
 * neighbours (list padded as above) at the predicted records rec.  Returns 0
 * with a, jerk set; or 1 when a listed neighbour lies closer than
 * sqrt(r2min) (then a, jerk are meaningless and the caller recomputes body i
 * in double precision). */
typedef int (*gpuirr_kernel_fn)(const float *rec, int i, int nnb, const int *list,
                                float r2min, double a[3], double jerk[3]);

int gpuirr_kern_sse(const float *rec, int i, int nnb, const int *list,
                    float r2min, double a[3], double jerk[3]);
int gpuirr_kern_avx2(const float *rec, int i, int nnb, const int *list,
                     float r2min, double a[3], double jerk[3]);
int gpuirr_kern_avx512(const float *rec, int i, int nnb, const int *list,
                       float r2min, double a[3], double jerk[3]);

/* 1 when this CPU (and OS) can run the given path (GPUIRR_SSE, GPUIRR_AVX2,
 * GPUIRR_AVX512); GPUIRR_SCALAR is always available. */
int gpuirr_simd_supported(gpuirr_simd path);

/* For tests: the double-precision predicted state of slot i (after pred_all or
 * pred_act covered it).  g must come from gpuirr_simd_open. */
void gpuirr_simd_predicted(const gpuirr *g, int i, double x[3], double v[3]);

/* For benchmarks: pred_act predicts every used slot instead of the active
 * bodies and their lists once the union would exceed this fraction of them
 * (negative: the default, NPACT_FRACTION in gpuirr_simd.c; a huge value
 * disables the switch). */
void gpuirr_simd_set_npact(gpuirr *g, double fraction);

/* For tests and benchmarks: pred_act's per-owner prediction (pred_owned in
 * gpuirr_simd.c, taken on a team of BIG_TEAM threads or more) for blocks
 * whose lists hold min to max entries (max < min: never; min < 0: the
 * defaults, or NBODY6C_PRED_OWNED=MIN,MAX read at open). */
void gpuirr_simd_set_owned(gpuirr *g, long min, long max);

#endif
