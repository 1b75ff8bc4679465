/* gpunb_kern_avx2.c — the AVX2 + FMA regular-force kernel of the "cpu-simd"
 * GPUNB backend: one i-body against 8 consecutive j-bodies per step
 * (compiled with -mavx2 -mfma; called only when the CPU has them).
 * Two-float coordinate differences, float arithmetic with the 12-bit rsqrt
 * and one Newton step, float sums over GPUNB_JBLOCK j-bodies, then double;
 * the neighbour test min(r^2, |r + dtr v|^2) < m_j h2 in float, skipped
 * for steps whose j-bodies are all too far to be neighbours (gpunb_simd.h,
 * GPUNB_FAR_MARGIN). */
#include <immintrin.h>
#include "gpunb/gpunb_simd.h"

/* Adds the 8 float lanes of v to the 8 double lanes of (lo, hi). */
static inline void flush(__m256 *v, __m256d *lo, __m256d *hi)
{
    *lo = _mm256_add_pd(*lo, _mm256_cvtps_pd(_mm256_castps256_ps128(*v)));
    *hi = _mm256_add_pd(*hi, _mm256_cvtps_pd(_mm256_extractf128_ps(*v, 1)));
    *v = _mm256_setzero_ps();
}

static inline double total(__m256d lo, __m256d hi)
{
    __m256d s = _mm256_add_pd(lo, hi);
    __m128d t = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(_mm_add_sd(t, _mm_unpackhi_pd(t, t)));
}

int gpunb_kern_avx2(const gpunb_soa *J, int j0, int j1, const gpunb_iprep *ip,
                    double acc[3], double jrk[3], int *list, int room)
{
    const __m256 xih = _mm256_set1_ps(ip->xh[0]), yih = _mm256_set1_ps(ip->xh[1]), zih = _mm256_set1_ps(ip->xh[2]);
    const __m256 xil = _mm256_set1_ps(ip->xl[0]), yil = _mm256_set1_ps(ip->xl[1]), zil = _mm256_set1_ps(ip->xl[2]);
    const __m256 vxi = _mm256_set1_ps(ip->v[0]), vyi = _mm256_set1_ps(ip->v[1]), vzi = _mm256_set1_ps(ip->v[2]);
    const __m256 h2 = _mm256_set1_ps(ip->h2), dtr = _mm256_set1_ps(ip->dtr);
    const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f), three_half = _mm256_set1_ps(1.5f);
    const __m256 three = _mm256_set1_ps(3.0f), zero = _mm256_setzero_ps();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i self = _mm256_set1_epi32(ip->self);
    __m256 ax = zero, ay = zero, az = zero, jx = zero, jy = zero, jz = zero;
    __m256d d[12];
    for (int q = 0; q < 12; q++) d[q] = _mm256_setzero_pd();
    int nnb = 0, inblock = 0;

    for (int j = j0; j < j1; j += 8) {
        const __m256i jidx = _mm256_add_epi32(_mm256_set1_epi32(j), lane);
        const __m256i inrange = _mm256_cmpgt_epi32(_mm256_set1_epi32(j1 - j), lane);
        const __m256 valid = _mm256_castsi256_ps(_mm256_andnot_si256(_mm256_cmpeq_epi32(jidx, self), inrange));

        const __m256 dx = _mm256_add_ps(_mm256_sub_ps(_mm256_loadu_ps(J->xh + j), xih), _mm256_sub_ps(_mm256_loadu_ps(J->xl + j), xil));
        const __m256 dy = _mm256_add_ps(_mm256_sub_ps(_mm256_loadu_ps(J->yh + j), yih), _mm256_sub_ps(_mm256_loadu_ps(J->yl + j), yil));
        const __m256 dz = _mm256_add_ps(_mm256_sub_ps(_mm256_loadu_ps(J->zh + j), zih), _mm256_sub_ps(_mm256_loadu_ps(J->zl + j), zil));
        const __m256 dvx = _mm256_sub_ps(_mm256_loadu_ps(J->vx + j), vxi);
        const __m256 dvy = _mm256_sub_ps(_mm256_loadu_ps(J->vy + j), vyi);
        const __m256 dvz = _mm256_sub_ps(_mm256_loadu_ps(J->vz + j), vzi);
        __m256 m = _mm256_loadu_ps(J->m + j);

        __m256 r2 = _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
        const __m256 rv = _mm256_fmadd_ps(dz, dvz, _mm256_fmadd_ps(dy, dvy, _mm256_mul_ps(dx, dvx)));
        int far = 0;
        if (J->sqm) {
            const int blk = (j - J->bbase) >> 4;
            const float reach = J->sqm[blk] * ip->sqh + ip->dtr * (ip->speed + J->vmax[blk]);
            const __m256 beyond = _mm256_cmp_ps(r2, _mm256_set1_ps(reach * reach * GPUNB_FAR_MARGIN), _CMP_GT_OQ);
            far = _mm256_movemask_ps(_mm256_and_ps(beyond, valid)) == 0xFF;
        }
        if (!far) {
            /* some j-body could be a neighbour (or a lane is out of range
             * or i itself): the test, and the sum without those */
            const __m256 px = _mm256_fmadd_ps(dtr, dvx, dx), py = _mm256_fmadd_ps(dtr, dvy, dy);
            const __m256 pz = _mm256_fmadd_ps(dtr, dvz, dz);
            const __m256 p2 = _mm256_fmadd_ps(pz, pz, _mm256_fmadd_ps(py, py, _mm256_mul_ps(px, px)));
            const __m256 nbv = _mm256_and_ps(valid, _mm256_cmp_ps(_mm256_min_ps(r2, p2), _mm256_mul_ps(m, h2), _CMP_LT_OQ));
            const unsigned nb = (unsigned)_mm256_movemask_ps(nbv);
            for (unsigned b = nb; b; b &= b - 1) {
                if (nnb < room) list[nnb] = j + __builtin_ctz(b);
                nnb++;
            }
            /* summed: valid, not neighbours, not at r = 0 (zero mass or h2) */
            const __m256 sum = _mm256_and_ps(_mm256_andnot_ps(nbv, valid), _mm256_cmp_ps(r2, zero, _CMP_GT_OQ));
            m = _mm256_and_ps(sum, m);
            r2 = _mm256_blendv_ps(one, r2, sum);
        }

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

        if (++inblock == GPUNB_JBLOCK / 8 || j + 8 >= j1) {
            flush(&ax, &d[0], &d[1]); flush(&ay, &d[2], &d[3]); flush(&az, &d[4], &d[5]);
            flush(&jx, &d[6], &d[7]); flush(&jy, &d[8], &d[9]); flush(&jz, &d[10], &d[11]);
            inblock = 0;
        }
    }
    acc[0] = total(d[0], d[1]); acc[1] = total(d[2], d[3]); acc[2] = total(d[4], d[5]);
    jrk[0] = total(d[6], d[7]); jrk[1] = total(d[8], d[9]); jrk[2] = total(d[10], d[11]);
    return nnb;
}
