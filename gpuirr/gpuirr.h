/* gpuirr.h — GPUIRR: the irregular force and its derivative from each
 * body's neighbour list (Nitadori & Aarseth 2012, §3.5), behind one API:
 *   "scalar"  plain double precision: the reference and the fallback;
 *   "sse", "avx2", "avx512"  two-float coordinates, single-precision sums.
 *
 * Units are physical (G = 1).  The library keeps its own state per body slot
 * (mass, t0, x, v, a, jerk at t0, neighbour list) and predicts inside with
 *     x(t) = x0 + v0 s + a s^2/2 + j s^3/6,  v(t) = v0 + a s + j s^2/2,  s = t - t0
 * (the integrator's own predictor, same operation order in the scalar
 * backend).  gpuirr_firr then sums
 *     a_i = sum_{j in L_i} m_j r/|r|^3,
 *     jerk_i = sum m_j [v - 3 (r.v/|r|^2) r]/|r|^3      (r = x_j - x_i, v = v_j - v_i)
 * at the predicted state.  An empty list gives zero (the integrator supplies
 * NBODY6's fictitious central mass).
 */
#ifndef NBODY6C_GPUIRR_H
#define NBODY6C_GPUIRR_H

#include <stddef.h>

typedef struct gpuirr gpuirr;

typedef enum {
    GPUIRR_AUTO = 0,
    GPUIRR_SCALAR,
    GPUIRR_SSE,
    GPUIRR_AVX2,
    GPUIRR_AVX512
} gpuirr_simd;

gpuirr *gpuirr_open(int nmax, int nbmax, gpuirr_simd simd, char *err, size_t errlen);
/* (gpuirr_set_jp and gpuirr_set_list may be called from several threads at
 * once for distinct slots; every other call from one thread at a time.) */
void gpuirr_close(gpuirr *g);
const char *gpuirr_backend(const gpuirr *g);

void gpuirr_set_jp(gpuirr *g, int i, double t0, const double x[3], const double v[3],
                   const double a[3], const double jerk[3], double m);
void gpuirr_set_list(gpuirr *g, int i, int nnb, const int *list);

/* Predict slots [jbeg, jend) to t; or only the ni bodies of ilist and their
 * neighbours (the paper's NPACT path). */
void gpuirr_pred_all(gpuirr *g, int jbeg, int jend, double t);
void gpuirr_pred_act(gpuirr *g, int ni, const int *ilist, double t);

/* Irregular force and jerk on the ni bodies of ilist from their lists, at the
 * predicted state.  Returns 0; or -1 when a body coincides with one of its
 * neighbours (then gpuirr_error names the two). */
int gpuirr_firr(gpuirr *g, int ni, const int *ilist, double (*a)[3], double (*jerk)[3]);
const char *gpuirr_error(const gpuirr *g);

#endif
