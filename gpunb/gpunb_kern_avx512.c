/* gpunb_kern_avx512.c — the AVX-512 regular-force kernel of the "cpu-simd"
 * GPUNB backend: one i-body against 16 consecutive j-bodies per step
 * (compiled with -mavx512f -mavx512dq -mavx512vl; called only when the CPU
 * has them).  Two-float coordinate differences, float arithmetic with
 * rsqrt14 and one Newton step, float sums over GPUNB_JBLOCK j-bodies, then
 * double; the neighbour test min(r^2, |r + dtr v|^2) < m_j h2 in float,
 * skipped for steps whose j-bodies are all too far to be neighbours
 * (gpunb_simd.h, GPUNB_FAR_MARGIN). */
#include <immintrin.h>
#include "gpunb/gpunb_simd.h"

/* Adds the 16 float lanes of v to the 16 double lanes of (lo, hi). */
static inline void flush(__m512 *v, __m512d *lo, __m512d *hi)
{
    *lo = _mm512_add_pd(*lo, _mm512_cvtps_pd(_mm512_castps512_ps256(*v)));
    *hi = _mm512_add_pd(*hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(*v), 1))));
    *v = _mm512_setzero_ps();
}

static inline double total(__m512d lo, __m512d hi) { return _mm512_reduce_add_pd(_mm512_add_pd(lo, hi)); }

int gpunb_kern_avx512(const gpunb_soa *J, int j0, int j1, const gpunb_iprep *ip,
                      double acc[3], double jrk[3], int *list, int room)
{
    const __m512 xih = _mm512_set1_ps(ip->xh[0]), yih = _mm512_set1_ps(ip->xh[1]), zih = _mm512_set1_ps(ip->xh[2]);
    const __m512 xil = _mm512_set1_ps(ip->xl[0]), yil = _mm512_set1_ps(ip->xl[1]), zil = _mm512_set1_ps(ip->xl[2]);
    const __m512 vxi = _mm512_set1_ps(ip->v[0]), vyi = _mm512_set1_ps(ip->v[1]), vzi = _mm512_set1_ps(ip->v[2]);
    const __m512 h2 = _mm512_set1_ps(ip->h2), dtr = _mm512_set1_ps(ip->dtr);
    const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f), three_half = _mm512_set1_ps(1.5f);
    const __m512 three = _mm512_set1_ps(3.0f), zero = _mm512_setzero_ps();
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i self = _mm512_set1_epi32(ip->self);
    __m512 ax = zero, ay = zero, az = zero, jx = zero, jy = zero, jz = zero;
    __m512d d[12];
    for (int q = 0; q < 12; q++) d[q] = _mm512_setzero_pd();
    int nnb = 0, inblock = 0;

    for (int j = j0; j < j1; j += 16) {
        const int left = j1 - j;
        const __mmask16 inrange = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        const __m512i jidx = _mm512_add_epi32(_mm512_set1_epi32(j), lane);
        const __mmask16 valid = _mm512_mask_cmpneq_epi32_mask(inrange, jidx, self);

        const __m512 dx = _mm512_add_ps(_mm512_sub_ps(_mm512_loadu_ps(J->xh + j), xih), _mm512_sub_ps(_mm512_loadu_ps(J->xl + j), xil));
        const __m512 dy = _mm512_add_ps(_mm512_sub_ps(_mm512_loadu_ps(J->yh + j), yih), _mm512_sub_ps(_mm512_loadu_ps(J->yl + j), yil));
        const __m512 dz = _mm512_add_ps(_mm512_sub_ps(_mm512_loadu_ps(J->zh + j), zih), _mm512_sub_ps(_mm512_loadu_ps(J->zl + j), zil));
        const __m512 dvx = _mm512_sub_ps(_mm512_loadu_ps(J->vx + j), vxi);
        const __m512 dvy = _mm512_sub_ps(_mm512_loadu_ps(J->vy + j), vyi);
        const __m512 dvz = _mm512_sub_ps(_mm512_loadu_ps(J->vz + j), vzi);
        __m512 m = _mm512_loadu_ps(J->m + j);

        __m512 r2 = _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx)));
        const __m512 rv = _mm512_fmadd_ps(dz, dvz, _mm512_fmadd_ps(dy, dvy, _mm512_mul_ps(dx, dvx)));
        int far = 0;
        if (J->sqm && valid == 0xFFFF) {
            const int b = (j - J->bbase) >> 4;
            const float reach = J->sqm[b] * ip->sqh + ip->dtr * (ip->speed + J->vmax[b]);
            far = _mm512_cmp_ps_mask(r2, _mm512_set1_ps(reach * reach * GPUNB_FAR_MARGIN), _CMP_GT_OQ) == 0xFFFF;
        }
        if (!far) {
            /* some j-body could be a neighbour (or a lane is out of range
             * or i itself): the test, and the sum without those */
            const __m512 px = _mm512_fmadd_ps(dtr, dvx, dx), py = _mm512_fmadd_ps(dtr, dvy, dy);
            const __m512 pz = _mm512_fmadd_ps(dtr, dvz, dz);
            const __m512 p2 = _mm512_fmadd_ps(pz, pz, _mm512_fmadd_ps(py, py, _mm512_mul_ps(px, px)));
            const __mmask16 nb = _mm512_mask_cmp_ps_mask(valid, _mm512_min_ps(r2, p2), _mm512_mul_ps(m, h2), _CMP_LT_OQ);
            if (nb) {
                if (nnb + 16 <= room) {
                    _mm512_mask_compressstoreu_epi32(list + nnb, nb, jidx);
                    nnb += __builtin_popcount(nb);
                } else {
                    for (unsigned bits = nb; bits; bits &= bits - 1) {
                        if (nnb < room) list[nnb] = j + __builtin_ctz(bits);
                        nnb++;
                    }
                }
            }
            /* summed: valid, not neighbours, not at r = 0 (zero mass or h2) */
            const __mmask16 sum = _mm512_mask_cmp_ps_mask(valid & (__mmask16)~nb, r2, zero, _CMP_GT_OQ);
            m = _mm512_maskz_mov_ps(sum, m);
            r2 = _mm512_mask_blend_ps(sum, one, r2);
        }

        __m512 y = _mm512_rsqrt14_ps(r2);
        y = _mm512_mul_ps(y, _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_mul_ps(half, r2), y), y, three_half));
        const __m512 y2 = _mm512_mul_ps(y, y);
        const __m512 mr3 = _mm512_mul_ps(_mm512_mul_ps(m, y), y2);
        const __m512 alpha = _mm512_mul_ps(_mm512_mul_ps(three, rv), y2);
        ax = _mm512_fmadd_ps(mr3, dx, ax);
        ay = _mm512_fmadd_ps(mr3, dy, ay);
        az = _mm512_fmadd_ps(mr3, dz, az);
        jx = _mm512_fmadd_ps(mr3, _mm512_fnmadd_ps(alpha, dx, dvx), jx);
        jy = _mm512_fmadd_ps(mr3, _mm512_fnmadd_ps(alpha, dy, dvy), jy);
        jz = _mm512_fmadd_ps(mr3, _mm512_fnmadd_ps(alpha, dz, dvz), jz);

        if (++inblock == GPUNB_JBLOCK / 16 || j + 16 >= j1) {
            flush(&ax, &d[0], &d[1]); flush(&ay, &d[2], &d[3]); flush(&az, &d[4], &d[5]);
            flush(&jx, &d[6], &d[7]); flush(&jy, &d[8], &d[9]); flush(&jz, &d[10], &d[11]);
            inblock = 0;
        }
    }
    acc[0] = total(d[0], d[1]); acc[1] = total(d[2], d[3]); acc[2] = total(d[4], d[5]);
    jrk[0] = total(d[6], d[7]); jrk[1] = total(d[8], d[9]); jrk[2] = total(d[10], d[11]);
    return nnb;
}
