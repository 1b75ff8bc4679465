/* gpunb_simd.h — what the SIMD CPU GPUNB backend (gpunb_cpu_simd.c) shares
 * with its kernels (gpunb_kern_avx2.c, gpunb_kern_avx512.c, each compiled
 * with its own instruction-set flags).
 *
 * The predicted j-bodies are kept as structure-of-arrays floats, two-float
 * coordinates (hi = (float)x, lo = (float)(x - hi)), float velocities and
 * masses, GPUNB_JPAD entries past nmax so a kernel may load whole vectors. */
#ifndef NBODY6C_GPUNB_SIMD_H
#define NBODY6C_GPUNB_SIMD_H

#include <stddef.h>

enum { GPUNB_JPAD = 32,      /* floats readable past the last slot */
       GPUNB_JBLOCK = 1024 }; /* j per float partial sum, then added in double */

typedef struct gpunb_soa {
    const float *xh, *yh, *zh, *xl, *yl, *zl, *vx, *vy, *vz, *m;
    /* Per block of 16 j-bodies from bbase on (block b: [bbase + 16 b,
     * bbase + 16 b + 16) within the j-range): the square root of its
     * largest mass and its largest speed.  A kernel step whose j-bodies all
     * lie beyond the farthest any of them could be a neighbour (gpunb_far)
     * skips the neighbour test, which would find none. */
    const float *sqm, *vmax;   /* NULL: no far test in this call */
    int bbase;
} gpunb_soa;

/* Where the neighbour test of a kernel step can be skipped: every r^2 of
 * the step above (sqrt(m_max h2) + dtr (|v_i| + v_max))^2 times this.  Then
 * r^2 > m_j h2, and |r + dtr v| >= |r| - dtr |v_ij| exceeds sqrt(m_max h2)
 * by about 1 %, far beyond the float roundings of r^2, |r + dtr v|^2 and
 * the bounds (each ~1e-7 relative): the test would find no neighbour, so
 * the lists and sums are the same bit for bit. */
#define GPUNB_FAR_MARGIN 1.02f

/* One i-body as the kernels take it. */
typedef struct gpunb_iprep {
    float xh[3], xl[3], v[3];
    float h2, dtr;   /* neighbour when min(r^2, |r + dtr v|^2) < m_j h2 */
    float sqh, speed; /* sqrt(h2) and |v|, for the far test */
    int self;        /* its own slot, excluded; -1 when not a j-body */
} gpunb_iprep;

/* Regular force and jerk on one i-body from j in [j0, j1) (set, not added),
 * and its neighbours there in ascending order: the first `room` are written
 * to list, the return value is how many there are. */
typedef int (*gpunb_kernel_fn)(const gpunb_soa *J, int j0, int j1, const gpunb_iprep *ip,
                               double acc[3], double jrk[3], int *list, int room);

int gpunb_kern_avx2(const gpunb_soa *J, int j0, int j1, const gpunb_iprep *ip,
                    double acc[3], double jrk[3], int *list, int room);
int gpunb_kern_avx512(const gpunb_soa *J, int j0, int j1, const gpunb_iprep *ip,
                      double acc[3], double jrk[3], int *list, int room);

/* gpunb_cpu_simd_open with a chosen kernel width (8: AVX2, 16: AVX-512,
 * 0: the widest the CPU has), for tests and benchmarks. */
struct gpunb;
struct gpunb *gpunb_cpu_simd_open_width(int nmax, int nbmax, int width, char *err, size_t errlen);

/* For tests: 0 turns the kernels' far test (GPUNB_FAR_MARGIN) off, so that
 * every step runs the neighbour test; 1 (the default) back on. */
void gpunb_cpu_simd_set_far(struct gpunb *g, int on);

#endif
