/* gpuirr_kern_avx2.c — the AVX2 + FMA irregular-force kernel of the SIMD
 * GPUIRR backend: 8 neighbours of one body per step (compiled with -mavx2
 * -mfma; called only when the CPU has them).  Each neighbour's record is
 * fetched as three 128-bit loads and the 8 records transposed into lanes:
 * measured faster than vgatherdps on both an AMD Zen 5 and an Intel Xeon
 * (bench/bench_gpuirr.c).
 *
 * Arithmetic and error bound as in gpuirr_simd.c's header comment: two-float
 * coordinate differences, float sums per lane, the 12-bit rsqrt plus one
 * Newton-Raphson step, lanes combined in double. */
#include <immintrin.h>
#include "gpuirr/gpuirr_simd.h"

/* Sums the 8 lanes of v in double, in a fixed order. */
static double lanes_sum(__m256 v)
{
    __m256d s = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                              _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    __m128d t = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(_mm_add_sd(t, _mm_unpackhi_pd(t, t)));
}

/* Loads 4-float group g of the records of j[0..7] and transposes it, so
 * that c0 holds component 0 of the eight bodies in list order, and so on. */
static inline void load_group8(const float *rec, const int *j, int g,
                               __m256 *c0, __m256 *c1, __m256 *c2, __m256 *c3)
{
    __m256 r[4];
    for (int k = 0; k < 4; k++)
        r[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(rec + (size_t)j[k] * GPUIRR_REC + 4 * g)),
                                    _mm_load_ps(rec + (size_t)j[k + 4] * GPUIRR_REC + 4 * g), 1);
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    *c0 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    *c1 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    *c2 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    *c3 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
}

int gpuirr_kern_avx2(const float *rec, int i, int nnb, const int *list,
                      float r2min, double a[3], double jerk[3])
{
    const float *ri = rec + (size_t)i * GPUIRR_REC;
    const __m256 xih = _mm256_set1_ps(ri[0]), yih = _mm256_set1_ps(ri[1]), zih = _mm256_set1_ps(ri[2]);
    const __m256 xil = _mm256_set1_ps(ri[4]), yil = _mm256_set1_ps(ri[5]), zil = _mm256_set1_ps(ri[6]);
    const __m256 vxi = _mm256_set1_ps(ri[8]), vyi = _mm256_set1_ps(ri[9]), vzi = _mm256_set1_ps(ri[10]);
    const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f), three_half = _mm256_set1_ps(1.5f);
    const __m256 three = _mm256_set1_ps(3.0f), vr2min = _mm256_set1_ps(r2min);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 ax = _mm256_setzero_ps(), ay = ax, az = ax, jx = ax, jy = ax, jz = ax;
    int near = 0;
    double sum[6] = {0, 0, 0, 0, 0, 0};
    int inblock = 0;

    for (int k = 0; k < nnb; k += 8) {
        const __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(nnb - k), lane));
        /* the next 8 records are needed next: start their cache misses now
         * (measured: 20-40% faster than without; one step ahead is best) */
        if (k + 8 < nnb)
            for (int q = 8; q < 16; q++) _mm_prefetch((const char *)(rec + (size_t)list[k + q] * GPUIRR_REC), _MM_HINT_T0);
        __m256 xh, yh, zh, m, xl, yl, zl, vx, vy, vz, unused;
        load_group8(rec, list + k, 0, &xh, &yh, &zh, &m);
        load_group8(rec, list + k, 1, &xl, &yl, &zl, &unused);
        load_group8(rec, list + k, 2, &vx, &vy, &vz, &unused);
        /* Sterbenz: x_hi of nearby bodies subtract exactly; the lo parts
         * carry the rest. */
        const __m256 dx = _mm256_add_ps(_mm256_sub_ps(xh, xih), _mm256_sub_ps(xl, xil));
        const __m256 dy = _mm256_add_ps(_mm256_sub_ps(yh, yih), _mm256_sub_ps(yl, yil));
        const __m256 dz = _mm256_add_ps(_mm256_sub_ps(zh, zih), _mm256_sub_ps(zl, zil));
        const __m256 dvx = _mm256_sub_ps(vx, vxi), dvy = _mm256_sub_ps(vy, vyi), dvz = _mm256_sub_ps(vz, vzi);
        /* lanes past the list get zero mass and r2 = 1: finite, no effect */
        m = _mm256_and_ps(valid, m);

        __m256 r2 = _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
        const __m256 rv = _mm256_fmadd_ps(dz, dvz, _mm256_fmadd_ps(dy, dvy, _mm256_mul_ps(dx, dvx)));
        near |= _mm256_movemask_ps(_mm256_and_ps(valid, _mm256_cmp_ps(r2, vr2min, _CMP_LT_OQ)));
        r2 = _mm256_blendv_ps(one, r2, valid);
        /* 12-bit estimate, one Newton step: y (1.5 - 0.5 r2 y^2) */
        __m256 y = _mm256_rsqrt_ps(r2);
        y = _mm256_mul_ps(y, _mm256_fnmadd_ps(_mm256_mul_ps(_mm256_mul_ps(half, r2), y), y, three_half));
        const __m256 y2 = _mm256_mul_ps(y, y);
        const __m256 mr3 = _mm256_mul_ps(_mm256_mul_ps(m, y), y2);
        const __m256 alpha = _mm256_mul_ps(_mm256_mul_ps(three, rv), y2);
        ax = _mm256_fmadd_ps(mr3, dx, ax);
        ay = _mm256_fmadd_ps(mr3, dy, ay);
        az = _mm256_fmadd_ps(mr3, dz, az);
        jx = _mm256_fmadd_ps(mr3, _mm256_fnmadd_ps(alpha, dx, dvx), jx);
        jy = _mm256_fmadd_ps(mr3, _mm256_fnmadd_ps(alpha, dy, dvy), jy);
        jz = _mm256_fmadd_ps(mr3, _mm256_fnmadd_ps(alpha, dz, dvz), jz);
        /* float sums over GPUIRR_FLUSH steps at most, then double: keeps
         * the rounding of long lists at a bounded ~GPUIRR_FLUSH ulps */
        if (++inblock == GPUIRR_FLUSH || k + 8 >= nnb) {
            sum[0] += lanes_sum(ax); sum[1] += lanes_sum(ay); sum[2] += lanes_sum(az);
            sum[3] += lanes_sum(jx); sum[4] += lanes_sum(jy); sum[5] += lanes_sum(jz);
            ax = ay = az = jx = jy = jz = _mm256_setzero_ps();
            inblock = 0;
        }
    }
    if (near) return 1;
    a[0] = sum[0]; a[1] = sum[1]; a[2] = sum[2];
    jerk[0] = sum[3]; jerk[1] = sum[4]; jerk[2] = sum[5];
    return 0;
}
