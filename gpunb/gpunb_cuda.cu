/* gpunb_cuda.cu — the CUDA backend of GPUNB (gpunb.h): regular force, jerk
 * and neighbour lists (Nitadori & Aarseth 2012, §3.4), start-up derivatives
 * (fpoly) and the potential, on every visible GPU.
 *
 * What it owns:
 *  - the j-bodies' polynomials on each GPU (set_jp sends only the corrected
 *    bodies; the front end keeps no host store for this backend:
 *    keeps_poly) and their prediction on the GPU;
 *  - the regular-force kernel: two i-bodies per thread in registers, j-bodies
 *    through shared memory, coordinate differences in two-float (hi + lo)
 *    arithmetic or, with NBODY6C_GPU_FP64=1, in double; single-precision
 *    pair terms summed per chunk of 32 and Kahan-compensated per slice;
 *  - the j-range cut into NGROUP groups and each group into slices that depend
 *    only on (ni, nj): every GPU takes whole groups, a thread block does one
 *    (i-block, slice), partial forces go to memory per slice and are reduced
 *    in slice order in double per group, groups are added on the host in
 *    group order, so 1, 2 or 4 GPUs give bit-identical forces and lists;
 *  - partial neighbour lists in 16-bit slice-local indices, gathered on the
 *    GPU into ascending 32-bit global lists, serialised before one copy back;
 *    a slice list that fills triggers a redo with a bigger buffer (counted),
 *    apart from a true nbmax overflow (nnb = -count);
 *  - with one GPU, a regular force in two halves (gpunb_regf_begin queues
 *    the first chunk's work and returns, gpunb_regf_end waits, redoes,
 *    combines and runs any further chunks), so the caller works meanwhile;
 *  - the irregular force over given lists (gpunb_irrf, for big blocks) on
 *    GPU 0 alone, from the same predicted j-state: one warp per i-body
 *    (bound and layout at k_irrf);
 *  - the resident neighbour lists (gpunb.h) on GPU 0: one row of nbmax
 *    slots per body slot, written by set_list (host lists) and by regf
 *    (its lists copied on the GPU from where they were built, with one
 *    GPU; with several, GPU 0 holds only its groups' part, so the combined
 *    lists go up from the host), read by irrf_resident.
 * Every CUDA call is checked; a failure after open is fatal (exit 1).
 */
#include <cuda_runtime.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

extern "C" {
#include "gpunb/gpunb_impl.h"
#include "gpunb/gpunb_cuda.h"
#include "common/tuning.h"
}

#define NGROUP 4            /* j-groups: the unit of work of one GPU (so at most 4 GPUs) */
#define NI_CHUNK 16384      /* i-bodies per launch sequence of gpunb_regf */
#define TARGET_BLOCKS 2048  /* thread blocks aimed at per regular-force launch */
#define SLICE_MIN 256       /* smallest j-slice of the regular force */
#define SLICE_MAX 65536     /* largest j-slice: local indices fit in 16 bits */
#define JSLICE_D 2048       /* j-slice of the double-precision kernels (fpoly, pot) */
#define POT_ROWS_BS 128     /* rows (threads) of a thread block of k_pot_rows */
#define D_PARTIALS (1 << 20) /* (i, slice) partial results per launch of those */
#define LIST_CAP0 64        /* first capacity of a (slice, i) partial list */
#define FAR 1.0e18f         /* position of padding j-bodies (mass 0) */
#define IRR_CHUNK 8192      /* i-bodies per upload of gpunb_irrf (packing overlaps the copy) */
#define SETJP_EAGER 1024     /* pending set_jp entries that set_jp queues at once */
#define IRR_TRACE_MAX 4096  /* irrf calls up to this size are traced apart (NBODY6C_GPUNB_TRACE) */
#define IRR_FLUSH 16        /* pair terms a lane sums in float before double */

/* ------------------------------------------------------------------ errors */

static void cuda_die(const char *what, cudaError_t e, const char *file, int line)
{
    fprintf(stderr, "gpunb cuda: %s failed (%s:%d): %s\n", what, file, line, cudaGetErrorString(e));
    exit(1);
}
#define CK(call)                                                          \
    do {                                                                  \
        cudaError_t e_ = (call);                                          \
        if (e_ != cudaSuccess) cuda_die(#call, e_, __FILE__, __LINE__);   \
    } while (0)
#define CKL(name) CK(cudaGetLastError())

/* ------------------------------------------------------------- data types */

/* four doubles, 16-byte aligned (CUDA 13 deprecates double4) */
typedef struct __align__(16) dbl4 { double x, y, z, w; } dbl4;
static __host__ __device__ __forceinline__ dbl4 mkd4(double x, double y, double z, double w)
{
    dbl4 r = {x, y, z, w};
    return r;
}

typedef struct JPoly {       /* a j-body's polynomial at t0 (112 bytes) */
    double x[3], v[3], a[3], j[3], t0, m;
} JPoly;

/* Slicing of the j-range for one regular-force call: a function of ni and
 * nj only (never of the GPU count), so every GPU count sums the same
 * slices in the same order. */
typedef struct Geom {
    int ni, bs, iblocks, ni_pad;
    int nj, Ng, nsg, S;       /* group size, slices per group, slice size */
} Geom;

typedef struct RegfArgs {
    const float4 *jxh, *jxl, *jv;
    const dbl4 *jxd;
    const float4 *ixh, *ixl, *iv;
    const int *iself;
    const dbl4 *ixd;
    int ni_pad, nj, Ng, nsg, S, s0, L;
    double *pacc;
    int *pcnt;
    unsigned short *plist;
    int *misc;        /* reset here: k_reduce raises misc[0] after this launch */
} RegfArgs;

typedef struct Dev {
    int id;
    cudaStream_t st;
    int g0, g1;                       /* its groups [g0, g1) */
    JPoly *poly;                      /* nmax polynomials, by body slot */
    float4 *jxh, *jxl, *jv;           /* predicted: hi + mass, lo, velocity (by j = slot - jbeg) */
    dbl4 *jxd, *jvd;               /* predicted in double: x + mass, v */
    int pred_ok, pred_double; double pred_t; int pred_lo, pred_hi;
    JPoly *d_up; size_t up_cap;       /* set_jp staging: polynomials, then slots */
    cudaEvent_t up_done[2];           /* the upload from staging buffer b is over */
    int list_guess;                   /* list entries copied back with the header */
    char *d_i; size_t i_cap;          /* i-bodies of one chunk */
    double *pacc; size_t pacc_cap;    /* [slice][6][ni_pad] */
    int *pcnt; size_t pcnt_cap;       /* [slice][ni_pad] */
    unsigned short *plist; size_t plist_cap; int L;
    char *d_hdr, *h_hdr; size_t hdr_cap; /* group sums, counts, flags */
    int *d_off, *d_gcnt;
    double *d_part; size_t part_cap;  /* fpoly / pot partials */
    double *d_out, *h_out; size_t out_cap, hout_cap;
    dbl4 *d_pos; size_t pos_cap;   /* pot: bodies' x + m */
    long retries;
    char *d_irr; size_t irr_cap;      /* gpunb_irrf: i-records + lists (GPU 0) */
    char *d_irro; size_t irro_cap;    /* gpunb_irrf: sums and flags */
    cudaEvent_t ev[6];                /* NBODY6C_GPUNB_TRACE: phase marks of a regf launch */
    double k_sum[5];                  /* their accumulated intervals (s) */
    /* trace: regf_end waits on a begun regf, [1]: of more than 4096 bodies;
     * of them, its prediction not yet done / its force kernel done; the
     * force kernel's GPU time */
    long rf_waits[2], rf_unstarted[2], rf_forced[2];
    double rf_kforce[2];
    cudaEvent_t iev[6];               /* the same for a small irrf call (GPU 0) */
} Dev;

typedef struct DevPool DevPool;

typedef struct GpunbCuda {
    struct gpunb base;
    int ngpu, fp64;
    int target_blocks;                /* NBODY6C_GPU_BLOCKS, default TARGET_BLOCKS */
    int jbeg, jend;
    double t;
    Dev dev[NGROUP];
    /* set_jp writes the polynomials straight into a pinned staging buffer
     * (entry = the body's place in the pending update); a flush sends it and
     * the next updates fill the other buffer meanwhile */
    struct {
        JPoly *poly; int *slot; size_t cap; int busy;
        unsigned long post[NGROUP];   /* GPU k's post number of this buffer's last upload (k >= 1) */
    } stage[2];
    int fill;                         /* the buffer set_jp writes */
    /* slot i has an entry in the pending update iff pend_gen[i] == gen:
     * then pend_pos[i] is its place (a flush ends every entry at once by
     * a new gen; resetting the slots one by one cost ~0.4 ms after a
     * block of 80k members at N = 128k) */
    int *pend_pos;
    unsigned *pend_gen, gen;
    int npend;                        /* entries in the pending update */
    int eager;                        /* NBODY6C_SETJP_EAGER, default SETJP_EAGER */
    int hold;                         /* gpunb_hold_jp: the pending update stays here */
    char *h_i; size_t hi_cap;         /* pinned i-data */
    int *h_offs; size_t offs_cap;     /* combine: where each i's list starts, per GPU */
    dbl4 *h_pos; size_t hpos_cap;
    long regf_calls;
    DevPool *pool;                    /* host threads of GPUs 1.. (NULL with one GPU) */
    int trace;                        /* NBODY6C_GPUNB_TRACE: time the device phases */
    double t_flush, t_pack, t_dev, t_combine;
    double rf_begun, t_inflight[2], t_rfwait[2]; /* trace: when gpunb_regf_begin queued; the host's time
                                                  * until _end, and _end's wait ([1]: > 4096 bodies) */
    /* gpunb_irrf: list offsets, pinned i-records + lists, pinned results */
    int *irr_off; size_t irr_off_cap;
    char *h_irr; size_t h_irr_cap;
    char *h_irro; size_t h_irro_cap;
    long irrf_calls, irrf_double, irrf_members;
    double t_irrf;
    /* NBODY6C_GPUNB_TRACE: irrf calls of at most IRR_TRACE_MAX bodies (the
     * latency-bound ones): host phases and GPU 0's phases between events */
    long irr_small;
    double irr_h[3], irr_k[5];
    /* resident lists on GPU 0 (NULL until the first set_list): nmax rows of
     * nbmax slots, their counts; set_list's staging (pinned and device)
     * and the host's last-wins marks for repeated slots */
    int *d_res, *d_resn;
    char *h_sl, *d_sl; size_t h_sl_cap, d_sl_cap;
    unsigned char *h_nm, *d_nm; size_t h_nm_cap, d_nm_cap; /* gpunb_lists_naming's marks */
    /* several GPUs: the other GPUs' parts of a chunk's lists on GPU 0, and
     * the event after their copies (the next chunk's regf on those GPUs
     * overwrites what was copied) */
    char *d_peer; size_t peer_cap;
    cudaEvent_t peer_copied;
    int peer_pending;
    int *res_mark;
    /* gpunb_regf_begin queued the first chunk: its geometry */
    int rf_launched;
    Geom rf_gm;
} GpunbCuda;

static GpunbCuda *as_cuda(gpunb *g) { return (GpunbCuda *)g; }

/* ---------------------------------------------------------- small helpers */

static int cdiv(long a, long b) { return (int)((a + b - 1) / b); }
static int roundup(int a, int b) { return cdiv(a, b) * b; }
static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

static void grow_dev(void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    if (*p) CK(cudaFree(*p));
    size_t n = need + need / 4;
    CK(cudaMalloc(p, n));
    *cap = n;
}

static void grow_host(void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    if (*p) CK(cudaFreeHost(*p));
    size_t n = need + need / 4;
    CK(cudaHostAlloc(p, n, cudaHostAllocPortable));
    *cap = n;
}

static Geom make_geom(int ni, int nj, int target_blocks)
{
    Geom g;
    g.ni = ni;
    g.bs = ni <= 32 ? 32 : ni <= 64 ? 64 : 128;
    g.iblocks = imax(cdiv(ni, g.bs), 1);
    g.ni_pad = g.iblocks * g.bs;
    g.nj = nj;
    g.Ng = imax(roundup(cdiv(nj, NGROUP), 128), 128);
    int nsg = cdiv(target_blocks, (long)g.iblocks * NGROUP);
    nsg = imin(nsg, cdiv(g.Ng, SLICE_MIN));
    nsg = imax(nsg, cdiv(g.Ng, SLICE_MAX));
    nsg = imax(nsg, 1);
    g.S = imin(roundup(cdiv(g.Ng, nsg), 128), SLICE_MAX);
    g.nsg = cdiv(g.Ng, g.S);
    return g;
}

/* j-range [lo, hi) of the GPU owning groups [g0, g1) */
static void dev_jrange(const Dev *d, const Geom *gm, int *lo, int *hi)
{
    *lo = imin(d->g0 * gm->Ng, gm->nj);
    *hi = imin(d->g1 * gm->Ng, gm->nj);
}

/* ---------------------------------------------------------------- kernels */

__device__ __forceinline__ void store_predicted(int j, const double x[3], const double v[3], double m,
                                                float4 *jxh, float4 *jxl, float4 *jv,
                                                dbl4 *jxd, dbl4 *jvd, int store_double)
{
    float hx = (float)x[0], hy = (float)x[1], hz = (float)x[2];
    jxh[j] = make_float4(hx, hy, hz, (float)m);
    jxl[j] = make_float4((float)(x[0] - (double)hx), (float)(x[1] - (double)hy),
                         (float)(x[2] - (double)hz), 0.f);
    jv[j] = make_float4((float)v[0], (float)v[1], (float)v[2], 0.f);
    if (store_double) {
        jxd[j] = mkd4(x[0], x[1], x[2], m);
        jvd[j] = mkd4(v[0], v[1], v[2], 0.0);
    }
}

/* Third-order prediction with the operation order of src/common/predict.h
 * and no fused multiply-adds, so the GPU's predicted state is
 * bit-identical to the host's (x86-64 builds do not contract either). */
__device__ __forceinline__ void predict_poly(const JPoly *p, double t, double x[3], double v[3])
{
    double s = __dsub_rn(t, p->t0);
    for (int k = 0; k < 3; k++) {
        double sj = __dmul_rn(s, p->j[k]);
        double in = __dadd_rn(__ddiv_rn(p->a[k], 2.0), __ddiv_rn(sj, 6.0));
        x[k] = __dadd_rn(p->x[k], __dmul_rn(s, __dadd_rn(p->v[k], __dmul_rn(s, in))));
        v[k] = __dadd_rn(p->v[k], __dmul_rn(s, __dadd_rn(p->a[k], __ddiv_rn(sj, 2.0))));
    }
}

__global__ void k_predict(const JPoly *poly, int jbeg, int lo, int hi, double t,
                          float4 *jxh, float4 *jxl, float4 *jv, dbl4 *jxd, dbl4 *jvd, int store_double)
{
    int j = lo + blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= hi) return;
    const JPoly *p = &poly[jbeg + j];
    double x[3], v[3];
    predict_poly(p, t, x, v);
    store_predicted(j, x, v, p->m, jxh, jxl, jv, jxd, jvd, store_double);
}

__global__ void k_scatter(const JPoly *up, const int *idx, int n, JPoly *poly)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) poly[idx[k]] = up[k];
}

__device__ __forceinline__ void kahan_add(float &s, float &c, float x)
{
    float y = x - c;
    float t = s + y;
    c = (t - s) - y;
    s = t;
}

/* rsqrt without the denormal fix-up (r^2 is never denormal but for self, 0) */
__device__ __forceinline__ float rsqrt_ftz(float x)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* The i-body of one thread, in registers. */
struct IReg {
    float4 h, l, v;   /* x hi + h2, x lo + dtr, v */
    dbl4 d;           /* x in double (FP64 path) */
};

/* One pair's terms for the i-body I (j from shared-memory entry k): its
 * contribution to acc[6] unless j is a neighbour (or i itself, SELF); the
 * neighbour test's result is returned. */
template <bool FP64, bool SELF>
__device__ __forceinline__ bool pair_term(const float4 &xh, const float4 &xl, const float4 &v, const dbl4 &xd,
                                          const IReg &I, bool self, float acc[6])
{
    float dx, dy, dz;
    if (FP64) {
        dx = (float)(xd.x - I.d.x);
        dy = (float)(xd.y - I.d.y);
        dz = (float)(xd.z - I.d.z);
    } else {
        dx = (xh.x - I.h.x) + (xl.x - I.l.x);
        dy = (xh.y - I.h.y) + (xl.y - I.l.y);
        dz = (xh.z - I.h.z) + (xl.z - I.l.z);
    }
    const float h2 = I.h.w, dtr = I.l.w;
    const float dvx = v.x - I.v.x, dvy = v.y - I.v.y, dvz = v.z - I.v.z;
    const float r2 = dx * dx + dy * dy + dz * dz;
    const float px = dx + dtr * dvx, py = dy + dtr * dvy, pz = dz + dtr * dvz;
    const float r2p = px * px + py * py + pz * pz;
    const float rv = dx * dvx + dy * dvy + dz * dvz;
    const bool nb = fminf(r2, r2p) < xh.w * h2;
    const bool skip = SELF ? (nb || self) : nb;
    float rinv = rsqrt_ftz(r2);
    rinv = skip ? 0.f : rinv;
    const float rinv2 = rinv * rinv;
    const float mr3 = xh.w * rinv * rinv2;
    const float al = -3.f * rv * rinv2;
    acc[0] += mr3 * dx;
    acc[1] += mr3 * dy;
    acc[2] += mr3 * dz;
    acc[3] += mr3 * (dvx + al * dx);
    acc[4] += mr3 * (dvy + al * dy);
    acc[5] += mr3 * (dvz + al * dz);
    return SELF ? (nb && !self) : nb;
}

/* 32 pairs (shared-memory entries k0 .. k0+31, slice-local j = jb ..) for
 * the two i-bodies of a thread.  SELF: an i's own j-index may be among them
 * (checked per pair); otherwise not, and the pair loop is shorter.  A
 * neighbour's term is zeroed by a select and its bit set in the mask (bit
 * kk: entry k0 + kk); the lists are written from the masks after the 32
 * pairs, so that the pair loop has no branch. */
template <bool FP64, bool SELF, bool TWO>
__device__ __forceinline__ void pairs32(const float4 *sxh, const float4 *sxl, const float4 *sv, const dbl4 *sxd,
                                        int k0, int jb, const IReg &I0, const IReg &I1, int self0, int self1,
                                        unsigned &m0, unsigned &m1, float acc0[6], float acc1[6])
{
    for (int c = 0; c < 6; c++) acc0[c] = acc1[c] = 0.f;
    unsigned b0 = 0, b1 = 0;
#pragma unroll 8
    for (int kk = 0; kk < 32; kk++) {
        const int k = k0 + kk;
        const float4 xh = sxh[k], xl = sxl[k], v = sv[k];
        const dbl4 xd = FP64 ? sxd[k] : mkd4(0, 0, 0, 0);
        if (pair_term<FP64, SELF>(xh, xl, v, xd, I0, jb + kk == self0, acc0)) b0 |= 1u << kk;
        if (TWO && pair_term<FP64, SELF>(xh, xl, v, xd, I1, jb + kk == self1, acc1)) b1 |= 1u << kk;
    }
    m0 = b0;
    m1 = b1;
}

/* Appends the neighbours of a 32-pair mask to a (slice, i) list, ascending. */
__device__ __forceinline__ void list_append(unsigned m, int jb, int start, int L, unsigned short *mylist, int &cnt)
{
    while (m) {
        const int kk = __ffs(m) - 1;
        m &= m - 1;
        if (cnt < L) mylist[cnt] = (unsigned short)(jb + kk - start);
        cnt++;
    }
}

/* The sums of one thread over its slice [start, end): i-body a, and with
 * TWO i-body b too (same shared-memory loads); SA, CA, CNT: their Kahan
 * sums and list counts. */
template <bool FP64, bool TWO>
__device__ __forceinline__ void regf_slice(const RegfArgs &A, float4 *sxh, float4 *sxl, float4 *sv, dbl4 *sxd,
                                           int start, int end, const IReg &I0, const IReg &I1, int self0,
                                           int self1, unsigned short *list0, unsigned short *list1,
                                           float sa0[6], float ca0[6], float sa1[6], float ca1[6], int &cnt0,
                                           int &cnt1)
{
    const int bs = blockDim.x, tid = threadIdx.x, L = A.L;
    for (int jt = start; jt < end; jt += bs) {
        int jj = jt + tid;
        if (jj < end) {
            sxh[tid] = A.jxh[jj];
            sxl[tid] = A.jxl[jj];
            sv[tid] = A.jv[jj];
            if (FP64) sxd[tid] = A.jxd[jj];
        } else {   /* padding: massless and far away, never a neighbour */
            sxh[tid] = make_float4(FAR, FAR, FAR, 0.f);
            sxl[tid] = make_float4(0.f, 0.f, 0.f, 0.f);
            sv[tid] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (FP64) sxd[tid] = mkd4(FAR, FAR, FAR, 0.0);
        }
        __syncthreads();
        const int nt = min(bs, end - jt);
        for (int c0 = 0; c0 < nt; c0 += 32) {
            float acc0[6], acc1[6];
            unsigned m0, m1;
            const int jb = jt + c0;
            const bool mine = (unsigned)(self0 - jb) < 32u || (TWO && (unsigned)(self1 - jb) < 32u);
            if (__any_sync(0xffffffffu, mine))
                pairs32<FP64, true, TWO>(sxh, sxl, sv, sxd, c0, jb, I0, I1, self0, self1, m0, m1, acc0, acc1);
            else
                pairs32<FP64, false, TWO>(sxh, sxl, sv, sxd, c0, jb, I0, I1, self0, self1, m0, m1, acc0, acc1);
            for (int c = 0; c < 6; c++) {
                kahan_add(sa0[c], ca0[c], acc0[c]);
                if (TWO) kahan_add(sa1[c], ca1[c], acc1[c]);
            }
            list_append(m0, jb, start, L, list0, cnt0);
            if (TWO) list_append(m1, jb, start, L, list1, cnt1);
        }
        __syncthreads();
    }
}

/* (i-block 2x, slice) and (i-block 2x + 1, slice) of the regular force:
 * thread t takes i-body t of each (two i-bodies per thread share every
 * shared-memory load; their sums, their order and so their bits are those
 * of one i-body per thread); the last i-block of an odd count alone.
 * grid = (ceil(iblocks / 2), local slices). */
template <bool FP64>
__global__ void __launch_bounds__(128) k_regf(RegfArgs A)
{
    __shared__ float4 sxh[128], sxl[128], sv[128];
    __shared__ dbl4 sxd[FP64 ? 128 : 1];
    const int bs = blockDim.x, tid = threadIdx.x;
    const int ia = 2 * blockIdx.x * bs + tid, ib = ia + bs;
    const bool two = (2 * blockIdx.x + 1) * bs < A.ni_pad;   /* uniform over the block */
    const int ib_r = two ? ib : ia;
    const int y = blockIdx.y, s = A.s0 + y;
    const int grp = s / A.nsg, q = s - grp * A.nsg;
    const int start = grp * A.Ng + q * A.S;
    const int end = max(start, min(min(start + A.S, (grp + 1) * A.Ng), A.nj));

    if (blockIdx.x == 0 && y == 0 && tid == 0) A.misc[0] = 0;
    IReg I0, I1;
    I0.h = A.ixh[ia]; I0.l = A.ixl[ia]; I0.v = A.iv[ia];
    I1.h = A.ixh[ib_r]; I1.l = A.ixl[ib_r]; I1.v = A.iv[ib_r];
    I0.d = FP64 ? A.ixd[ia] : mkd4(0, 0, 0, 0);
    I1.d = FP64 ? A.ixd[ib_r] : mkd4(0, 0, 0, 0);
    const int self0 = A.iself[ia], self1 = A.iself[ib_r];

    float sa0[6] = {0, 0, 0, 0, 0, 0}, ca0[6] = {0, 0, 0, 0, 0, 0};
    float sa1[6] = {0, 0, 0, 0, 0, 0}, ca1[6] = {0, 0, 0, 0, 0, 0};
    int cnt0 = 0, cnt1 = 0;
    unsigned short *list0 = A.plist + ((size_t)y * A.ni_pad + ia) * A.L;
    unsigned short *list1 = A.plist + ((size_t)y * A.ni_pad + ib_r) * A.L;
    if (two)
        regf_slice<FP64, true>(A, sxh, sxl, sv, sxd, start, end, I0, I1, self0, self1, list0, list1, sa0, ca0, sa1,
                               ca1, cnt0, cnt1);
    else
        regf_slice<FP64, false>(A, sxh, sxl, sv, sxd, start, end, I0, I1, self0, self1, list0, list1, sa0, ca0,
                                sa1, ca1, cnt0, cnt1);
    for (int c = 0; c < 6; c++)
        A.pacc[((size_t)y * 6 + c) * A.ni_pad + ia] = (double)sa0[c] - (double)ca0[c];
    A.pcnt[(size_t)y * A.ni_pad + ia] = cnt0;
    if (two) {
        for (int c = 0; c < 6; c++)
            A.pacc[((size_t)y * 6 + c) * A.ni_pad + ib] = (double)sa1[c] - (double)ca1[c];
        A.pcnt[(size_t)y * A.ni_pad + ib] = cnt1;
    }
}

/* One warp per (i, local group): lane l sums the group's slices l, l+32, ...
 * in order, then a fixed butterfly adds the lanes (deterministic: the same
 * slices, the same order, whatever the GPU count).  Also the group's
 * neighbour count, and a flag when a slice's list buffer filled. */
__global__ void k_reduce(const double *pacc, const int *pcnt, int ni, int ni_pad, int ngl, int nsg,
                         int L, int nbmax, double *gacc, int *gcnt, int *misc)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= ni * ngl) return;   /* uniform over the warp */
    const int i = w % ni, gl = w / ni;
    double d[6] = {0, 0, 0, 0, 0, 0};
    int n = 0, mx = 0;
    for (int q = lane; q < nsg; q += 32) {
        const int y = gl * nsg + q;
        for (int c = 0; c < 6; c++) d[c] += pacc[((size_t)y * 6 + c) * ni_pad + i];
        const int m = pcnt[(size_t)y * ni_pad + i];
        n += m;
        mx = max(mx, m);
    }
    for (int o = 16; o > 0; o >>= 1) {
        for (int c = 0; c < 6; c++) d[c] += __shfl_xor_sync(0xffffffffu, d[c], o);
        n += __shfl_xor_sync(0xffffffffu, n, o);
        mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    }
    if (lane == 0) {
        for (int c = 0; c < 6; c++) gacc[((size_t)gl * 6 + c) * ni + i] = d[c];
        gcnt[(size_t)gl * ni + i] = n;
        /* a filled slice list matters unless i overflows nbmax anyway */
        if (mx > L && n <= nbmax) atomicMax(&misc[0], mx);
    }
}

/* Per i: the neighbour count on this GPU; exclusive scan of the kept list
 * lengths (one block of 1024 threads). */
__global__ void k_scan(const int *gcnt, int ni, int ngl, int nbmax, int *cnt, int *off, int *misc)
{
    __shared__ int ws[32];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int per = (ni + 1023) / 1024;
    const int b = min(tid * per, ni), e = min(b + per, ni);
    int s = 0;
    for (int i = b; i < e; i++) {
        int c = 0;
        for (int g = 0; g < ngl; g++) c += gcnt[(size_t)g * ni + i];
        cnt[i] = c;
        s += c <= nbmax ? c : 0;
    }
    int x = s;
    for (int o = 1; o < 32; o <<= 1) { int t = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += t; }
    if (lane == 31) ws[w] = x;
    __syncthreads();
    if (w == 0) {
        int v = ws[lane];
        for (int o = 1; o < 32; o <<= 1) { int t = __shfl_up_sync(0xffffffffu, v, o); if (lane >= o) v += t; }
        ws[lane] = v;
    }
    __syncthreads();
    int excl = x - s + (w > 0 ? ws[w - 1] : 0);
    for (int i = b; i < e; i++) { off[i] = excl; int c = cnt[i]; excl += c <= nbmax ? c : 0; }
    if (tid == 0) misc[1] = ws[31];
}

/* One warp per (i, local group): serialises the group's partial lists, slice
 * by slice, into ascending global body indices. */
__global__ void k_gather(const int *cnt, const int *gcnt, const int *off, const int *pcnt,
                         const unsigned short *plist, int ni, int ni_pad, int ngl, int nbmax, int L, int s0,
                         int nsg, int Ng, int S, int jbeg, int *out)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= ni * ngl) return;
    const int i = w % ni, gl = w / ni;
    if (cnt[i] > nbmax) return;   /* uniform over the warp */
    int o = off[i];
    for (int g = 0; g < gl; g++) o += gcnt[(size_t)g * ni + i];
    for (int qb = 0; qb < nsg; qb += 32) {
        const int q = qb + lane, y = gl * nsg + q;
        const int c = q < nsg ? min(pcnt[(size_t)y * ni_pad + i], L) : 0;
        int x = c;
        for (int d = 1; d < 32; d <<= 1) { int t = __shfl_up_sync(0xffffffffu, x, d); if (lane >= d) x += t; }
        const int tot = __shfl_sync(0xffffffffu, x, 31);
        if (c) {
            const int s = s0 + y, grp = s / nsg, start = grp * Ng + (s - grp * nsg) * S;
            const unsigned short *src = plist + ((size_t)y * ni_pad + i) * L;
            int *dst = out + o + x - c;
            for (int k = 0; k < c; k++) dst[k] = jbeg + start + src[k];
        }
        o += tot;
    }
}

template <typename T>
__device__ __forceinline__ T dot3t(T ax, T ay, T az, T bx, T by, T bz)
{
    return ax * bx + ay * by + az * bz;
}

/* One pair's share of the start-up second and third derivatives (docs/
 * ALGORITHMS.md §7), in the precision T of both kernels below: r, v, A, J
 * the differences j - i of position, velocity, acceleration and jerk,
 * rinv = 1/|r| (0 for a pair left out), m the j-body's mass; added to o[0..5]
 * (d2, d3 of the neighbours, nb) or o[6..11] (the rest). */
template <typename T>
__device__ __forceinline__ void fpoly_pair(T rx, T ry, T rz, T vx, T vy, T vz, T Ax, T Ay, T Az, T Jx, T Jy,
                                           T Jz, T rinv, T m, bool nb, T o[12])
{
    const T rinv2 = rinv * rinv, mr3 = m * rinv * rinv2;
    const T al = dot3t(rx, ry, rz, vx, vy, vz) * rinv2;
    const T be = (dot3t(vx, vy, vz, vx, vy, vz) + dot3t(rx, ry, rz, Ax, Ay, Az)) * rinv2 + al * al;
    const T ga = (T(3) * dot3t(vx, vy, vz, Ax, Ay, Az) + dot3t(rx, ry, rz, Jx, Jy, Jz)) * rinv2 +
                 al * (T(3) * be - T(4) * al * al);
    const T tx = vx - T(3) * al * rx, ty = vy - T(3) * al * ry, tz = vz - T(3) * al * rz;
    const T d2x = mr3 * (Ax - T(6) * al * tx - T(3) * be * rx);
    const T d2y = mr3 * (Ay - T(6) * al * ty - T(3) * be * ry);
    const T d2z = mr3 * (Az - T(6) * al * tz - T(3) * be * rz);
    const T d3x = mr3 * (Jx - T(9) * be * tx - T(3) * ga * rx) - T(9) * al * d2x;
    const T d3y = mr3 * (Jy - T(9) * be * ty - T(3) * ga * ry) - T(9) * al * d2y;
    const T d3z = mr3 * (Jz - T(9) * be * tz - T(3) * ga * rz) - T(9) * al * d2z;
    if (nb) {   /* constant indices: o stays in registers */
        o[0] += d2x; o[1] += d2y; o[2] += d2z; o[3] += d3x; o[4] += d3y; o[5] += d3z;
    } else {
        o[6] += d2x; o[7] += d2y; o[8] += d2z; o[9] += d3x; o[10] += d3y; o[11] += d3z;
    }
}

/* Start-up derivatives (docs/ALGORITHMS.md §7) in double.  grid = (iblocks, j-slices).
 * i data: ix (x, h2), iv (v, dtr), ia (a, self), ij (jerk, 0). */
__global__ void k_fpoly(const dbl4 *ix, const dbl4 *iv, const dbl4 *ia, const dbl4 *ij,
                        int ni_pad, const dbl4 *jxd, const dbl4 *jvd, const JPoly *poly,
                        int jbeg, int nj, int Sj, double *part)
{
    __shared__ dbl4 sx[128], sv[128], sa[128], sj[128];
    const int tid = threadIdx.x, bs = blockDim.x;
    const int i = blockIdx.x * bs + tid, y = blockIdx.y;
    const int start = y * Sj, end = min(start + Sj, nj);
    const dbl4 xi = ix[i], vi = iv[i], ai = ia[i], ji = ij[i];
    const int self = (int)ai.w;
    double o[12];
    for (int c = 0; c < 12; c++) o[c] = 0.0;
    for (int jt = start; jt < end; jt += bs) {
        int jj = jt + tid;
        if (jj < end) {
            sx[tid] = jxd[jj];
            sv[tid] = jvd[jj];
            const JPoly *p = &poly[jbeg + jj];
            sa[tid] = mkd4(p->a[0], p->a[1], p->a[2], 0.0);
            sj[tid] = mkd4(p->j[0], p->j[1], p->j[2], 0.0);
        }
        __syncthreads();
        const int nt = min(bs, end - jt);
        for (int k = 0; k < nt; k++) {
            if (jt + k == self) continue;
            const dbl4 xj = sx[k], vj = sv[k], aj = sa[k], jk = sj[k];
            const double rx = xj.x - xi.x, ry = xj.y - xi.y, rz = xj.z - xi.z;
            const double vx = vj.x - vi.x, vy = vj.y - vi.y, vz = vj.z - vi.z;
            const double Ax = aj.x - ai.x, Ay = aj.y - ai.y, Az = aj.z - ai.z;
            const double Jx = jk.x - ji.x, Jy = jk.y - ji.y, Jz = jk.z - ji.z;
            const double r2 = rx * rx + ry * ry + rz * rz;
            const double px = rx + vi.w * vx, py = ry + vi.w * vy, pz = rz + vi.w * vz;
            const double r2p = px * px + py * py + pz * pz;
            const bool nb = fmin(r2, r2p) < xj.w * xi.w;
            fpoly_pair<double>(rx, ry, rz, vx, vy, vz, Ax, Ay, Az, Jx, Jy, Jz, rsqrt(r2), xj.w, nb, o);
        }
        __syncthreads();
    }
    for (int c = 0; c < 12; c++) part[((size_t)y * 12 + c) * ni_pad + i] = o[c];
}

/* The same derivatives in single precision (the default; k_fpoly with
 * NBODY6C_GPU_FP64=1).  Positions as two floats (hi + lo, as the regular
 * force), so r = x_j - x_i keeps ~1e-14 absolute; v, a and jerk in float;
 * each pair term in float, summed in float over 32 pairs, then in double.
 * The neighbour split is the regular force's float test.  These values set
 * the first steps and the first prediction only (the corrector replaces
 * them after one step), where 1e-6 of the terms is far below what matters.
 * i data: ih (x hi, h2), il (x lo, dtr), iv (v, self as int bits), ia (a),
 * ij (jerk).  grid = (iblocks, j-slices). */

__global__ void __launch_bounds__(128) k_fpoly_f(const float4 *ih, const float4 *il, const float4 *iv,
                                                 const float4 *ia, const float4 *ij, int ni_pad,
                                                 const float4 *jxh, const float4 *jxl, const float4 *jv,
                                                 const JPoly *poly, int jbeg, int nj, int Sj, double *part)
{
    __shared__ float4 sxh[128], sxl[128], sv[128], sa[128], sj[128];
    const int tid = threadIdx.x, bs = blockDim.x;
    const int i = blockIdx.x * bs + tid, y = blockIdx.y;
    const int start = y * Sj, end = min(start + Sj, nj);
    const float4 xh = ih[i], xl = il[i], vi = iv[i], ai = ia[i], ji = ij[i];
    const int self = __float_as_int(vi.w);
    const float h2 = xh.w, dtr = xl.w;
    double o[12];
    for (int c = 0; c < 12; c++) o[c] = 0.0;
    for (int jt = start; jt < end; jt += bs) {
        const int jj = jt + tid;
        if (jj < end) {
            sxh[tid] = jxh[jj];
            sxl[tid] = jxl[jj];
            sv[tid] = jv[jj];
            const JPoly *p = &poly[jbeg + jj];
            sa[tid] = make_float4((float)p->a[0], (float)p->a[1], (float)p->a[2], 0.f);
            sj[tid] = make_float4((float)p->j[0], (float)p->j[1], (float)p->j[2], 0.f);
        } else {   /* padding: massless and far away */
            sxh[tid] = make_float4(FAR, FAR, FAR, 0.f);
            sxl[tid] = sv[tid] = sa[tid] = sj[tid] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
        __syncthreads();
        const int nt = min(bs, end - jt);
        for (int c0 = 0; c0 < nt; c0 += 32) {
            float f[12];
            for (int c = 0; c < 12; c++) f[c] = 0.f;
#pragma unroll 4
            for (int kk = 0; kk < 32; kk++) {
                const int k = c0 + kk;
                const float4 jh = sxh[k], jl = sxl[k], vj = sv[k], aj = sa[k], jk = sj[k];
                const float rx = (jh.x - xh.x) + (jl.x - xl.x);
                const float ry = (jh.y - xh.y) + (jl.y - xl.y);
                const float rz = (jh.z - xh.z) + (jl.z - xl.z);
                const float vx = vj.x - vi.x, vy = vj.y - vi.y, vz = vj.z - vi.z;
                const float Ax = aj.x - ai.x, Ay = aj.y - ai.y, Az = aj.z - ai.z;
                const float Jx = jk.x - ji.x, Jy = jk.y - ji.y, Jz = jk.z - ji.z;
                const float r2 = dot3t(rx, ry, rz, rx, ry, rz);
                const float px = rx + dtr * vx, py = ry + dtr * vy, pz = rz + dtr * vz;
                const bool nb = fminf(r2, dot3t(px, py, pz, px, py, pz)) < jh.w * h2;
                const float rinv = (jt + k == self) ? 0.f : rsqrt_ftz(r2);
                fpoly_pair<float>(rx, ry, rz, vx, vy, vz, Ax, Ay, Az, Jx, Jy, Jz, rinv, jh.w, nb, f);
            }
            for (int c = 0; c < 12; c++) o[c] += (double)f[c];
        }
        __syncthreads();
    }
    for (int c = 0; c < 12; c++) part[((size_t)y * 12 + c) * ni_pad + i] = o[c];
}

/* Potential of body i0 + i from the bodies in pos (x + m), double.  grid = (iblocks, j-slices). */
__global__ void k_pot(const dbl4 *pos, int n, int i0, int ni_pad, int Sj, double *part)
{
    __shared__ dbl4 sx[128];
    const int tid = threadIdx.x, bs = blockDim.x;
    const int i = blockIdx.x * bs + tid, y = blockIdx.y;
    const int gi = i0 + i;
    const int start = y * Sj, end = min(start + Sj, n);
    const dbl4 xi = pos[min(gi, n - 1)];
    double p = 0.0;
    for (int jt = start; jt < end; jt += bs) {
        int jj = jt + tid;
        if (jj < end) sx[tid] = pos[jj];
        __syncthreads();
        const int nt = min(bs, end - jt);
        for (int k = 0; k < nt; k++) {
            const dbl4 xj = sx[k];
            const double dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (jt + k != gi) p += xj.w * rsqrt(r2);
        }
        __syncthreads();
    }
    part[(size_t)y * ni_pad + i] = p;
}

/* The triangle's rows (gpunb_pot_rows): row i = sum_{j > i} m_j/r_ij, one
 * thread a row, j ascending, every operation an explicit round-to-nearest
 * intrinsic (never contracted into an FMA; sqrt and division IEEE), so the
 * bits are the host loop's.  Row blocks of blockDim.x bodies: this launch
 * does blocks b = blockIdx.x * nsplit + part (the GPUs of a call take every
 * nsplit-th, so each gets the same share of the triangle); b = 0 (the
 * longest rows) first. */
__global__ void k_pot_rows(const dbl4 *pos, int n, int part, int nsplit, double *row)
{
    __shared__ dbl4 sx[POT_ROWS_BS];
    const int tid = threadIdx.x, bs = blockDim.x;
    const int i0 = (blockIdx.x * nsplit + part) * bs, i = i0 + tid;
    if (i0 >= n) return;   /* the whole block: no barrier is left waiting */
    const dbl4 xi = pos[min(i, n - 1)];
    double s = 0.0;
    for (int jt = i0 + 1; jt < n; jt += bs) {
        const int jj = jt + tid;
        if (jj < n) sx[tid] = pos[jj];
        __syncthreads();
        const int nt = min(bs, n - jt);
        for (int k = 0; k < nt; k++) {
            const dbl4 xj = sx[k];
            const double dx = __dsub_rn(xj.x, xi.x), dy = __dsub_rn(xj.y, xi.y), dz = __dsub_rn(xj.z, xi.z);
            const double r2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
            const double term = __ddiv_rn(xj.w, __dsqrt_rn(r2));
            if (jt + k > i) s = __dadd_rn(s, term);
        }
        __syncthreads();
    }
    if (i < n) row[i] = s;
}

/* Sums ncomp-component partials over the j-slices in slice order. */
__global__ void k_reduce_d(const double *part, int ni, int ni_pad, int nsj, int ncomp, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ni) return;
    for (int c = 0; c < ncomp; c++) {
        double s = 0.0;
        for (int y = 0; y < nsj; y++) s += part[((size_t)y * ncomp + c) * ni_pad + i];
        out[(size_t)c * ni + i] = s;
    }
}

/* Irregular force over given lists (gpunb_irrf).  One i-record per body:
 * two-float position (hi, lo), float velocity with r2min in v.w, and where
 * its list starts: given lists, at entry off of the uploaded entries (j -
 * jbeg, nnb of them); resident lists, in row off (the body's slot) of the
 * resident table, whose count is read there (nnb unused). */
typedef struct __align__(16) IrrI {
    float4 xh, xl, v;
    int off, nnb, pad0, pad1;
} IrrI;

/* Where k_irrf and k_irrf_d find a body's list: entry (size_t)off * stride
 * + q of list, holding j + jsub; nnb from resn[off] when resn is set (the
 * resident table: stride nbmax, jsub = jbeg, range checked on the GPU), else
 * from the record (given lists: stride 1, jsub 0, checked on the host). */
typedef struct IrrL {
    const int *list, *resn;
    int stride, jsub, nj;
} IrrL;

/* A body whose list names a slot outside the j-range: flag bit 1, force zero. */
#define IRR_NEAR 1
#define IRR_BAD 2

/* The i-records of bodies at their own slots' predicted state (gpunb_irrf_
 * members), built where the polynomials are: the record irr_pack_one makes
 * from the host's predict3 of the same polynomial, bit for bit (the same
 * prediction, the same splits, r_min^2 with the host's operation order and
 * no contraction), with the slot's resident list. */
__global__ void k_irr_members(const JPoly *poly, const int *slot, int n, double t, IrrI *rec)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int i = slot[k];
    double x[3], v[3];
    predict_poly(&poly[i], t, x, v);
    const float hx = (float)x[0], hy = (float)x[1], hz = (float)x[2];
    const double x2 = __dadd_rn(__dadd_rn(__dmul_rn(x[0], x[0]), __dmul_rn(x[1], x[1])), __dmul_rn(x[2], x[2]));
    IrrI r;
    r.xh = make_float4(hx, hy, hz, 0.f);
    r.xl = make_float4((float)(x[0] - (double)hx), (float)(x[1] - (double)hy), (float)(x[2] - (double)hz), 0.f);
    r.v = make_float4((float)v[0], (float)v[1], (float)v[2], (float)__dadd_rn(__dmul_rn(1e-14, x2), 1e-20));
    r.off = i;
    r.nnb = r.pad0 = r.pad1 = 0;
    rec[k] = r;
}

/* One warp per i-body: lane l sums the list entries l, l+32, ... in float,
 * flushing to double every IRR_FLUSH terms, then a fixed butterfly adds
 * the lanes in double: the order depends only on the list, so the result
 * is the same for any GPU count (irrf runs on GPU 0) and any launch.
 *
 * Error bound on docs/ALGORITHMS.md's normalised metric, as GPUIRR's SIMD backend
 * (gpuirr_simd.c), term by term: dx = (xj_hi - xi_hi) + (xj_lo - xi_lo)
 * carries 2^-24 |dx| plus 2^-47 |x| from the lo roundings; rsqrtf is good
 * to 2 ulp (2.4e-7), so r^-3 to ~7.2e-7 plus three roundings, and each
 * term m r/r^3 to <= 1.2e-6 relative; float sums of <= IRR_FLUSH terms add
 * <= 16 * 2^-24 = 9.5e-7 of the summed magnitudes, the double sums nothing
 * that counts.  So
 *     |dF_i| / sum_j m_j/r_ij^2 <= 1.2e-6 + 9.5e-7 + 2^-46 |x_i|/r_min <= 2.3e-6
 * worst case (r_min below), ~1e-7 RMS as the errors are random in sign; the
 * jerk the same relative to sum_j |its terms|, plus GPUIRR's velocity
 * caveat (float velocities: co-moving pairs, |v_ij| << |v|, lose relative
 * precision in their jerk term).  A neighbour closer than r_min (r^2 <
 * r2min = 1e-14 |x_i|^2 + 1e-20, GPUIRR's threshold) flags the body, which
 * is then summed again in double (k_irrf_d) so that the bound holds at any
 * separation. */
__global__ void __launch_bounds__(128) k_irrf(const IrrI *ii, IrrL L, int ni, const float4 *jxh,
                                              const float4 *jxl, const float4 *jv, double *out, int *flag)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= ni) return;   /* uniform over the warp */
    const IrrI I = ii[w];
    const float r2min = I.v.w;
    const int nnb = L.resn ? L.resn[I.off] : I.nnb;
    const int *list = L.list + (size_t)I.off * L.stride;
    float s[6] = {0, 0, 0, 0, 0, 0};
    double d[6] = {0, 0, 0, 0, 0, 0};
    int near = 0, bad = 0, inblk = 0;
    for (int q = lane; q < nnb; q += 32) {
        const int j = list[q] - L.jsub;
        if ((unsigned)j >= (unsigned)L.nj) { bad = 1; continue; }   /* its sums are dropped */
        const float4 xh = jxh[j], xl = jxl[j], vj = jv[j];
        const float dx = (xh.x - I.xh.x) + (xl.x - I.xl.x);
        const float dy = (xh.y - I.xh.y) + (xl.y - I.xl.y);
        const float dz = (xh.z - I.xh.z) + (xl.z - I.xl.z);
        const float dvx = vj.x - I.v.x, dvy = vj.y - I.v.y, dvz = vj.z - I.v.z;
        const float r2 = dx * dx + dy * dy + dz * dz;
        const float rv = dx * dvx + dy * dvy + dz * dvz;
        const bool nr = !(r2 >= r2min);   /* NaN too */
        near |= nr;
        const float rinv = nr ? 0.f : rsqrtf(r2);
        const float rinv2 = rinv * rinv, mr3 = xh.w * rinv * rinv2, al = 3.f * rv * rinv2;
        s[0] += mr3 * dx;
        s[1] += mr3 * dy;
        s[2] += mr3 * dz;
        s[3] += mr3 * (dvx - al * dx);
        s[4] += mr3 * (dvy - al * dy);
        s[5] += mr3 * (dvz - al * dz);
        if (++inblk == IRR_FLUSH) {
            for (int c = 0; c < 6; c++) { d[c] += (double)s[c]; s[c] = 0.f; }
            inblk = 0;
        }
    }
    for (int c = 0; c < 6; c++) d[c] += (double)s[c];
    for (int o = 16; o > 0; o >>= 1)
        for (int c = 0; c < 6; c++) d[c] += __shfl_xor_sync(0xffffffffu, d[c], o);
    near = __any_sync(0xffffffffu, near);
    bad = __any_sync(0xffffffffu, bad);
    if (lane == 0) {
        for (int c = 0; c < 6; c++) out[(size_t)w * 6 + c] = bad ? 0.0 : d[c];
        flag[w] = bad ? IRR_BAD : near ? IRR_NEAR : 0;
    }
}

/* The flagged bodies again, in double, one thread each in list order (the
 * arithmetic of src/pairterm.h) from the double predicted state (x + m, v);
 * fx holds each one's x and v.  fl[f] = 1 when a neighbour sits at r = 0
 * (or r < 1e-100, whose r^-3 would overflow). */
__global__ void k_irrf_d(const int *fk, int nf, const dbl4 *fx, const IrrI *ii, IrrL L,
                         const dbl4 *jxd, const dbl4 *jvd, double *out, int *fl)
{
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nf) return;
    const IrrI I = ii[fk[f]];
    const int nnb = L.resn ? L.resn[I.off] : I.nnb;
    const int *list = L.list + (size_t)I.off * L.stride;
    const dbl4 xi = fx[2 * f], vi = fx[2 * f + 1];
    double sa[6] = {0, 0, 0, 0, 0, 0};
    int bad = 0;
    for (int q = 0; q < nnb; q++) {
        const int j = list[q] - L.jsub;   /* in range: k_irrf checked it */
        const dbl4 xj = jxd[j], vj = jvd[j];
        const double r[3] = {xj.x - xi.x, xj.y - xi.y, xj.z - xi.z};
        const double v[3] = {vj.x - vi.x, vj.y - vi.y, vj.z - vi.z};
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (!(r2 > 1e-200)) { bad = 1; break; }
        const double rinv2 = 1.0 / r2, mr3 = xj.w * rinv2 * sqrt(rinv2);
        const double rv3 = 3.0 * (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]) * rinv2;
        for (int k = 0; k < 3; k++) {
            sa[k] += mr3 * r[k];
            sa[3 + k] += mr3 * (v[k] - rv3 * r[k]);
        }
    }
    for (int c = 0; c < 6; c++) out[(size_t)f * 6 + c] = bad ? 0.0 : sa[c];
    fl[f] = bad;
}

/* The resident table's rows of n bodies: one warp per body copies its
 * count and entries.  set_list: entries src + off[k], slot slot[k] (distinct
 * in one launch); regf's keep: the chunk's serialised lists (cnt, off as
 * k_gather left them, lists over nbmax not kept), slot from the i-buffer. */
/* One warp per row b in [lo, hi) of the resident table: bit q of out[b -
 * lo] when the row holds lab[q]. */
__global__ void k_naming(const int *res, const int *resn, int nbmax, int lo, int hi, int4 lab, unsigned char *out)
{
    const int w = (int)((blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
    const int b = lo + w;
    if (b >= hi) return;   /* the whole warp */
    const int n = resn[b];
    const int *r = res + (size_t)b * nbmax;
    unsigned bits = 0;
    for (int q = lane; q < n; q += 32) {
        const int e = r[q];
        bits |= (unsigned)(e == lab.x) | (unsigned)(e == lab.y) << 1 | (unsigned)(e == lab.z) << 2 |
                (unsigned)(e == lab.w) << 3;
    }
    for (int o = 16; o > 0; o >>= 1) bits |= __shfl_xor_sync(0xffffffffu, bits, o);
    if (lane == 0) out[w] = (unsigned char)bits;
}

__global__ void k_res_put(const int *slot, const int *cnt, const int *off, const int *src, int n, int nbmax,
                          int *res, int *resn)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= n) return;
    const int c = cnt[w], i = slot[w];
    if (c > nbmax || i < 0) return;   /* uniform over the warp */
    int *dst = res + (size_t)i * nbmax;
    const int *s = src + off[w];
    for (int q = lane; q < c; q += 32) dst[q] = s[q];
    if (lane == 0) resn[i] = c;
}

/* Several GPUs: the resident rows of one regf chunk from each GPU's part of
 * the lists (its counts, offsets and serialised entries, the other GPUs'
 * copied to GPU 0 beforehand), concatenated in GPU order, which is
 * ascending j and the order of the host's combined lists; a row whose
 * total is over nbmax is not kept, as k_res_put. */
typedef struct ResParts {
    const int *cnt[NGROUP], *off[NGROUP], *list[NGROUP];
    int np;
} ResParts;

__global__ void k_res_put_parts(const int *slot, ResParts P, int n, int nbmax, int *res, int *resn)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= n) return;
    const int i = slot[w];
    int tot = 0;
    for (int p = 0; p < P.np; p++) tot += P.cnt[p][w];
    if (tot > nbmax || i < 0) return;   /* uniform over the warp */
    int *dst = res + (size_t)i * nbmax;
    for (int p = 0; p < P.np; p++) {
        const int c = P.cnt[p][w];
        const int *src = P.list[p] + P.off[p][w];
        for (int q = lane; q < c; q += 32) dst[q] = src[q];
        dst += c;
    }
    if (lane == 0) resn[i] = tot;
}

/* ------------------------------------------------------ device management */

static void dev_set(const Dev *d) { CK(cudaSetDevice(d->id)); }

/* Brings the predicted j-bodies [lo, hi) of this GPU to the library's time;
 * the double copies (x, v) only where asked (FP64 path, fpoly). */
static void dev_ensure_predicted(GpunbCuda *c, Dev *d, int lo, int hi, int need_double)
{
    if (hi <= lo) return;
    const int nb = cdiv(hi - lo, 256);
    if (d->pred_ok && d->pred_t == c->t && lo >= d->pred_lo && hi <= d->pred_hi &&
        (d->pred_double || !need_double))
        return;
    k_predict<<<nb, 256, 0, d->st>>>(d->poly, c->jbeg, lo, hi, c->t, d->jxh, d->jxl, d->jv,
                                     d->jxd, d->jvd, need_double);
    CKL("k_predict");
    d->pred_t = c->t;
    d->pred_double = need_double;
    d->pred_ok = 1;
    d->pred_lo = lo;
    d->pred_hi = hi;
}

/* Byte layout of the pinned/device i-buffer of the regular force. */
typedef struct ILayout { size_t xh, xl, v, self, xd, slot, total; } ILayout;
static ILayout i_layout(int ni_pad)
{
    ILayout l;
    size_t f4 = (size_t)ni_pad * sizeof(float4);
    l.xh = 0; l.xl = f4; l.v = 2 * f4; l.self = 3 * f4;
    l.xd = roundup((int)(l.self + (size_t)ni_pad * sizeof(int)), 256);
    l.slot = l.xd + (size_t)ni_pad * sizeof(dbl4);   /* the bodies' slots: where regf's lists are kept */
    l.total = l.slot + (size_t)ni_pad * sizeof(int);
    return l;
}

/* Header copied back after a regular-force call: group sums, counts, flags. */
typedef struct HLayout { size_t gacc, cnt, misc, total; } HLayout;
static HLayout h_layout(int ngl, int ni)
{
    HLayout h;
    h.gacc = 0;
    h.cnt = (size_t)ngl * 6 * ni * sizeof(double);
    h.misc = h.cnt + (size_t)ni * sizeof(int);
    h.total = h.misc + 4 * sizeof(int);
    return h;
}

/* One pass of the regular-force kernels over the packed i-bodies: the
 * force, the slice reduction, the lists' scan and gather, and the copy of
 * the header with as many list entries as the last call had (+25 %) into
 * d->h_hdr: one copy, one round trip.  Queued only: dev_regf_finish waits. */
static void dev_regf_pass(GpunbCuda *c, Dev *d, const Geom *gm, int nbmax)
{
    const int ngl = d->g1 - d->g0, nsl = ngl * gm->nsg, ni = gm->ni, ni_pad = gm->ni_pad;
    const ILayout il = i_layout(ni_pad);
    const HLayout hl = h_layout(ngl, ni);
    grow_dev((void **)&d->plist, &d->plist_cap, (size_t)nsl * ni_pad * d->L * sizeof(unsigned short) + 8);
    RegfArgs A;
    A.jxh = d->jxh; A.jxl = d->jxl; A.jv = d->jv; A.jxd = d->jxd;
    A.ixh = (const float4 *)(d->d_i + il.xh);
    A.ixl = (const float4 *)(d->d_i + il.xl);
    A.iv = (const float4 *)(d->d_i + il.v);
    A.iself = (const int *)(d->d_i + il.self);
    A.ixd = (const dbl4 *)(d->d_i + il.xd);
    A.ni_pad = ni_pad; A.nj = gm->nj; A.Ng = gm->Ng; A.nsg = gm->nsg; A.S = gm->S;
    A.s0 = d->g0 * gm->nsg;
    A.pacc = d->pacc; A.pcnt = d->pcnt;
    A.plist = d->plist;
    A.L = d->L;
    double *gacc = (double *)(d->d_hdr + hl.gacc);
    int *d_list = (int *)(d->d_hdr + hl.total);   /* the lists follow the header: one copy back */
    int *cnt = (int *)(d->d_hdr + hl.cnt), *misc = (int *)(d->d_hdr + hl.misc);
    A.misc = misc;
    if (nsl > 0) {
        dim3 grid(cdiv(gm->iblocks, 2), nsl);   /* two i-blocks a thread block */
        if (c->fp64) k_regf<true><<<grid, gm->bs, 0, d->st>>>(A);
        else k_regf<false><<<grid, gm->bs, 0, d->st>>>(A);
        CKL("k_regf");
    } else {
        CK(cudaMemsetAsync(misc, 0, 4 * sizeof(int), d->st));
        CK(cudaMemsetAsync(d->pcnt, 0, (size_t)ni_pad * sizeof(int), d->st));
    }
    if (c->trace) CK(cudaEventRecord(d->ev[3], d->st));
    const int nw = cdiv((long)ni * ngl * 32, 128);
    k_reduce<<<nw, 128, 0, d->st>>>(d->pacc, d->pcnt, ni, ni_pad, ngl, gm->nsg, d->L, nbmax, gacc,
                                    d->d_gcnt, misc);
    CKL("k_reduce");
    k_scan<<<1, 1024, 0, d->st>>>(d->d_gcnt, ni, ngl, nbmax, cnt, d->d_off, misc);
    CKL("k_scan");
    k_gather<<<nw, 128, 0, d->st>>>(cnt, d->d_gcnt, d->d_off, d->pcnt, d->plist, ni, ni_pad, ngl, nbmax,
                                    d->L, A.s0, gm->nsg, gm->Ng, gm->S, c->jbeg, d_list);
    CKL("k_gather");
    if (c->trace) CK(cudaEventRecord(d->ev[4], d->st));
    const int guess = imin(d->list_guess, ni * nbmax);
    CK(cudaMemcpyAsync(d->h_hdr, d->d_hdr, hl.total + (size_t)guess * sizeof(int), cudaMemcpyDeviceToHost,
                       d->st));
    if (c->trace) CK(cudaEventRecord(d->ev[5], d->st));
}

/* Queues one chunk of the regular force on one GPU, its groups only: the
 * prediction its j-range needs, the i-bodies' upload (packed in c->h_i)
 * and the first pass. */
static void dev_regf_launch(GpunbCuda *c, Dev *d, const Geom *gm, int nbmax)
{
    /* GPU 0 may still be copying this GPU's last lists (res_keep_parts) */
    if (d != &c->dev[0] && c->peer_pending) CK(cudaEventSynchronize(c->peer_copied));
    dev_set(d);
    int lo, hi;
    dev_jrange(d, gm, &lo, &hi);
    if (c->trace) CK(cudaEventRecord(d->ev[0], d->st));
    dev_ensure_predicted(c, d, lo, hi, c->fp64);
    if (c->trace) CK(cudaEventRecord(d->ev[1], d->st));
    const int ngl = d->g1 - d->g0, nsl = ngl * gm->nsg, ni_pad = gm->ni_pad;
    const ILayout il = i_layout(ni_pad);
    grow_dev((void **)&d->d_i, &d->i_cap, il.total);
    grow_dev((void **)&d->pacc, &d->pacc_cap, (size_t)nsl * 6 * ni_pad * sizeof(double) + 8);
    grow_dev((void **)&d->pcnt, &d->pcnt_cap, (size_t)nsl * ni_pad * sizeof(int) + 8);
    CK(cudaMemcpyAsync(d->d_i, c->h_i, il.total, cudaMemcpyHostToDevice, d->st));
    if (c->trace) CK(cudaEventRecord(d->ev[2], d->st));
    dev_regf_pass(c, d, gm, nbmax);
}

/* Waits for a launched chunk; redoes it while a slice's list buffer was
 * too small (not an nbmax overflow), keeps the lists resident, and
 * fetches the list entries the first copy did not bring.  Leaves the
 * header and, right after it, the serialised lists in d->h_hdr. */
static void dev_regf_finish(GpunbCuda *c, Dev *d, const Geom *gm, int nbmax)
{
    dev_set(d);
    const int ngl = d->g1 - d->g0, ni = gm->ni;
    const ILayout il = i_layout(gm->ni_pad);
    const HLayout hl = h_layout(ngl, ni);
    int *d_list = (int *)(d->d_hdr + hl.total);
    const int *h_list = (const int *)(d->h_hdr + hl.total);
    int *cnt = (int *)(d->d_hdr + hl.cnt);
    const int *hmisc = (const int *)(d->h_hdr + hl.misc);
    const int big = gm->ni > 4096;
    if (c->trace && c->rf_launched) {   /* how far the GPU got while the host worked */
        d->rf_waits[big]++;
        d->rf_unstarted[big] += cudaEventQuery(d->ev[1]) == cudaErrorNotReady;
        d->rf_forced[big] += cudaEventQuery(d->ev[3]) == cudaSuccess;
    }
    for (;;) {
        CK(cudaStreamSynchronize(d->st));
        if (c->trace)
            for (int q = 0; q < 5; q++) {
                float ms = 0.f;
                CK(cudaEventElapsedTime(&ms, d->ev[q], d->ev[q + 1]));
                d->k_sum[q] += 1e-3 * ms;
                if (q == 2 && c->rf_launched) d->rf_kforce[big] += 1e-3 * ms;
            }
        if (hmisc[0] <= d->L) break;
        /* a slice's list buffer filled (not an nbmax overflow): redo with room for it */
        d->L = roundup(hmisc[0], 16);
        d->retries++;
        dev_regf_pass(c, d, gm, nbmax);
    }
    /* one GPU holds the whole lists: they become the resident ones there */
    if (c->d_resn && c->ngpu == 1)
        k_res_put<<<cdiv((long)ni * 32, 128), 128, 0, d->st>>>((const int *)(d->d_i + il.slot), cnt, d->d_off,
                                                                d_list, ni, nbmax, c->d_res, c->d_resn);
    const int total = hmisc[1], got = imin(d->list_guess, ni * nbmax);
    if (total > got) {
        CK(cudaMemcpyAsync((int *)h_list + got, d_list + got, (size_t)(total - got) * sizeof(int),
                           cudaMemcpyDeviceToHost, d->st));
        CK(cudaStreamSynchronize(d->st));
    }
    d->list_guess = total + total / 4 + 256;
}

static void dev_regf(GpunbCuda *c, Dev *d, const Geom *gm, int nbmax)
{
    dev_regf_launch(c, d, gm, nbmax);
    dev_regf_finish(c, d, gm, nbmax);
}

/* ------------------------------------------- one host thread per GPU
 *
 * GPU 0 is driven by the caller, GPUs 1.. by threads of their own that live
 * as long as the library.  (An OpenMP team of ngpu threads per call was
 * measured slow: switching between it and the full OpenMP team of the
 * block step's loops cost ~1 ms a call on the GPU machine.)  A job is
 * posted with a generation number; workers spin briefly before sleeping,
 * since calls come in bursts. */

typedef void (*dev_fn)(GpunbCuda *c, Dev *d, void *arg);
typedef struct SendArg { int b, n; } SendArg;   /* staging buffer b's n entries */
static void dev_set_jp(GpunbCuda *c, Dev *d, void *arg);

/* How long a worker or the caller spins before it sleeps: a wake-up from
 * sleep costs tens of microseconds on the GPU machine, while regular forces
 * come every few hundred microseconds in busy phases (with no spin, 512k
 * bodies on two H200s took 36.2 s against 26.8 s to t = 1/4). */
#define POOL_SPIN_S 2e-3

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

struct DevPool {
    GpunbCuda *c;
    pthread_t th[NGROUP];
    int nth;                          /* workers started (GPUs 1 .. nth) */
    pthread_mutex_t mu;
    pthread_cond_t go, done_cv;
    dev_fn f;
    void *arg;
    unsigned long gen;                /* job number, read without the lock while spinning */
    int done;                         /* workers finished with job gen */
    int quit;
    /* set_jp uploads outside a regular force, posted for GPU k's thread to
     * queue (GPU 0's the caller queues itself): a ring of two, since a
     * staging buffer is posted again only after its last upload is over */
    struct { SendArg q[2]; unsigned long posted, issued; } up[NGROUP];
};

typedef struct WorkerArg { DevPool *p; int k; } WorkerArg;

static int uploads_posted(DevPool *p, int k)
{
    return __atomic_load_n(&p->up[k].posted, __ATOMIC_ACQUIRE) != p->up[k].issued;
}

/* GPU k's thread queues the uploads posted for it, in order. */
static void issue_uploads(DevPool *p, int k)
{
    for (unsigned long q = p->up[k].issued; q != __atomic_load_n(&p->up[k].posted, __ATOMIC_ACQUIRE); q++) {
        dev_set_jp(p->c, &p->c->dev[k], &p->up[k].q[q % 2]);
        __atomic_store_n(&p->up[k].issued, q + 1, __ATOMIC_RELEASE);
    }
}

/* The caller's side: GPU k's thread is to queue the upload of a. */
static unsigned long post_upload(DevPool *p, int k, SendArg a)
{
    const unsigned long q = p->up[k].posted;
    p->up[k].q[q % 2] = a;
    __atomic_store_n(&p->up[k].posted, q + 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    return q + 1;
}

/* Waits until GPU k's thread has queued its uploads up to number q (the
 * caller may then use that GPU's stream itself). */
static void uploads_wait(DevPool *p, int k, unsigned long q)
{
    while ((long)(__atomic_load_n(&p->up[k].issued, __ATOMIC_ACQUIRE) - q) < 0) cpu_relax();
}

static void *pool_worker(void *v)
{
    WorkerArg w = *(WorkerArg *)v;
    free(v);
    DevPool *p = w.p;
    unsigned long seen = 0;
    for (;;) {
        double until = omp_get_wtime() + POOL_SPIN_S;
        for (int n = 1; __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE) == seen && !uploads_posted(p, w.k) &&
                        !__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE); n++) {
            cpu_relax();
            if (n % 256 == 0 && omp_get_wtime() > until) break;
        }
        issue_uploads(p, w.k);
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !uploads_posted(p, w.k) && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) { pthread_mutex_unlock(&p->mu); return NULL; }
        if (p->gen == seen) {   /* woken for uploads only */
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        seen = p->gen;
        dev_fn f = p->f;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        issue_uploads(p, w.k);   /* the job's work goes after them on the stream */
        f(p->c, &p->c->dev[w.k], arg);
        pthread_mutex_lock(&p->mu);
        if (++p->done == p->nth) pthread_cond_signal(&p->done_cv);
        pthread_mutex_unlock(&p->mu);
    }
}

static void pool_stop(DevPool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    __atomic_store_n(&p->quit, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < p->nth; k++) pthread_join(p->th[k], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done_cv);
    free(p);
}

/* Workers for GPUs 1 .. ngpu-1; NULL (with nothing started) on failure. */
static DevPool *pool_start(GpunbCuda *c)
{
    DevPool *p = (DevPool *)calloc(1, sizeof *p);
    if (!p) return NULL;
    p->c = c;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    for (int k = 1; k < c->ngpu; k++) {
        WorkerArg *w = (WorkerArg *)malloc(sizeof *w);
        if (!w) break;
        w->p = p;
        w->k = k;
        if (pthread_create(&p->th[p->nth], NULL, pool_worker, w) != 0) { free(w); break; }
        p->nth++;
    }
    if (p->nth != c->ngpu - 1) { pool_stop(p); return NULL; }
    return p;
}

/* Runs f(c, d, arg) on every GPU, one host thread each, and waits for all. */
static void on_all_devices(GpunbCuda *c, dev_fn f, void *arg)
{
    DevPool *p = c->pool;
    if (c->ngpu == 1 || !p) {
        for (int k = 0; k < c->ngpu; k++) f(c, &c->dev[k], arg);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->f = f;
    p->arg = arg;
    p->done = 0;
    __atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    f(c, &c->dev[0], arg);
    double until = omp_get_wtime() + POOL_SPIN_S;
    for (int n = 1; __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) < p->nth; n++) {
        cpu_relax();
        if (n % 256 == 0 && omp_get_wtime() > until) break;
    }
    pthread_mutex_lock(&p->mu);
    while (p->done < p->nth) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* ------------------------------------------------------------ API: set-up */

static void cuda_close(gpunb *g)
{
    GpunbCuda *c = as_cuda(g);
    pool_stop(c->pool);
    c->pool = NULL;
    for (int k = 0; k < c->ngpu; k++) {
        Dev *d = &c->dev[k];
        cudaSetDevice(d->id);
        void *dp[] = {d->poly, d->jxh, d->jxl, d->jv, d->jxd, d->jvd, d->d_up, d->d_i,
                      d->pacc, d->pcnt, d->plist, d->d_hdr, d->d_off, d->d_gcnt, d->d_part, d->d_out,
                      d->d_pos, d->d_irr, d->d_irro};
        for (size_t m = 0; m < sizeof dp / sizeof dp[0]; m++) if (dp[m]) cudaFree(dp[m]);
        if (k == 0) {
            if (c->d_res) cudaFree(c->d_res);
            if (c->d_resn) cudaFree(c->d_resn);
            if (c->d_sl) cudaFree(c->d_sl);
            if (c->d_nm) cudaFree(c->d_nm);
            if (c->d_peer) cudaFree(c->d_peer);
            if (c->peer_copied) cudaEventDestroy(c->peer_copied);
        }
        if (d->h_hdr) cudaFreeHost(d->h_hdr);
        if (d->h_out) cudaFreeHost(d->h_out);
        if (d->st) cudaStreamDestroy(d->st);
        for (int b = 0; b < 2; b++)
            if (d->up_done[b]) cudaEventDestroy(d->up_done[b]);
        for (int q = 0; q < 6; q++)
            if (d->ev[q]) cudaEventDestroy(d->ev[q]);
        for (int q = 0; q < 6; q++)
            if (d->iev[q]) cudaEventDestroy(d->iev[q]);
    }
    void *hp[] = {c->stage[0].poly, c->stage[0].slot, c->stage[1].poly, c->stage[1].slot,
                  c->h_i, c->h_pos, c->h_irr, c->h_irro, c->h_sl, c->h_nm};
    for (size_t m = 0; m < sizeof hp / sizeof hp[0]; m++) if (hp[m]) cudaFreeHost(hp[m]);
    free(c->h_offs);
    free(c->irr_off);
    free(c->res_mark);
    free(c->pend_pos);
    free(c->pend_gen);
    free(c);
}

static void cuda_set_range(gpunb *g, int jbeg, int jend)
{
    GpunbCuda *c = as_cuda(g);
    if (jbeg < 0) jbeg = 0;
    if (jend > g->nmax) jend = g->nmax;
    if (jend < jbeg) jend = jbeg;
    c->jbeg = jbeg;
    c->jend = jend;
    for (int k = 0; k < c->ngpu; k++) c->dev[k].pred_ok = 0;
}

static void dev_set_jp(GpunbCuda *c, Dev *d, void *arg)
{
    const SendArg *a = (const SendArg *)arg;
    const int n = a->n;
    dev_set(d);
    grow_dev((void **)&d->d_up, &d->up_cap, (size_t)n * (sizeof(JPoly) + sizeof(int)));
    CK(cudaMemcpyAsync(d->d_up, c->stage[a->b].poly, (size_t)n * sizeof(JPoly), cudaMemcpyHostToDevice, d->st));
    CK(cudaMemcpyAsync(d->d_up + n, c->stage[a->b].slot, (size_t)n * sizeof(int), cudaMemcpyHostToDevice,
                       d->st));
    k_scatter<<<cdiv(n, 256), 256, 0, d->st>>>(d->d_up, (const int *)(d->d_up + n), n, d->poly);
    CKL("k_scatter");
    CK(cudaEventRecord(d->up_done[a->b], d->st));   /* before set_jp writes into this buffer again */
    d->pred_ok = 0;
}

/* The pending polynomials (each slot once, its latest) have been queued on
 * every GPU: set_jp goes on in the other buffer. */
static void flush_sent(GpunbCuda *c)
{
    c->npend = 0;
    if (++c->gen == 0) {   /* after 2^32 flushes: every stamp is old again */
        memset(c->pend_gen, 0, sizeof(unsigned) * (size_t)c->base.nmax);
        c->gen = 1;
    }
    c->stage[c->fill].busy = 1;
    c->fill ^= 1;
}

/* Outside a regular force (irrf, fpoly, pot) the caller queues GPU 0's
 * copies itself and posts the other GPUs' to their host threads without
 * waiting: queuing costs the caller ~10 us a GPU (two copies and a
 * kernel), and these flushes come with every irregular force of a block
 * (a round trip to those threads for each would cost more). */
static void flush_set_jp(GpunbCuda *c)
{
    if (c->npend <= 0 || c->hold) return;
    const double w0 = omp_get_wtime();
    SendArg a = {c->fill, c->npend};
    dev_set_jp(c, &c->dev[0], &a);
    for (int k = 1; k < c->ngpu; k++) {
        if (c->pool) c->stage[a.b].post[k] = post_upload(c->pool, k, a);
        else dev_set_jp(c, &c->dev[k], &a);
    }
    flush_sent(c);
    c->t_flush += omp_get_wtime() - w0;
}

/* Before the caller queues work on GPU k >= 1 itself: that GPU's thread
 * has queued every upload posted to it. */
static void uploads_queued(GpunbCuda *c)
{
    for (int k = 1; c->pool && k < c->ngpu; k++) uploads_wait(c->pool, k, c->pool->up[k].posted);
}

/* set_jp queues the pending update at once when it holds this many
 * entries (0: never), so that its copy runs while the host works on
 * instead of at the start of the next GPU call (traced at N = 128k:
 * ~86 us of GPU time per irregular-force call of <= 4096 bodies went to
 * the flush there).  NBODY6C_SETJP_EAGER overrides it. */
static void eager_flush(GpunbCuda *c)
{
    if (c->eager > 0 && c->npend >= c->eager && !c->hold) flush_set_jp(c);
}

/* The staging buffer set_jp fills, ready for `need` entries: its last upload
 * waited for, grown (keeping its entries) if short. */
static void stage_ready(GpunbCuda *c, size_t need)
{
    int b = c->fill;
    if (c->stage[b].busy) {
        for (int k = 1; c->pool && k < c->ngpu; k++) uploads_wait(c->pool, k, c->stage[b].post[k]);
        for (int k = 0; k < c->ngpu; k++) {
            dev_set(&c->dev[k]);
            CK(cudaEventSynchronize(c->dev[k].up_done[b]));
        }
        c->stage[b].busy = 0;
    }
    if (need <= c->stage[b].cap) return;
    size_t cap = need + need / 2 + 1024;
    JPoly *poly = NULL;
    int *slot = NULL;
    CK(cudaHostAlloc((void **)&poly, cap * sizeof(JPoly), cudaHostAllocPortable));
    CK(cudaHostAlloc((void **)&slot, cap * sizeof(int), cudaHostAllocPortable));
    if (c->npend > 0) {
        memcpy(poly, c->stage[b].poly, (size_t)c->npend * sizeof(JPoly));
        memcpy(slot, c->stage[b].slot, (size_t)c->npend * sizeof(int));
    }
    if (c->stage[b].poly) CK(cudaFreeHost(c->stage[b].poly));
    if (c->stage[b].slot) CK(cudaFreeHost(c->stage[b].slot));
    c->stage[b].poly = poly;
    c->stage[b].slot = slot;
    c->stage[b].cap = cap;
}

static void put_poly(JPoly *p, double t0, const double x[3], const double v[3], const double a[3],
                     const double jerk[3], double m)
{
    for (int e = 0; e < 3; e++) {
        p->x[e] = x[e]; p->v[e] = v[e]; p->a[e] = a[e]; p->j[e] = jerk[e];
    }
    p->t0 = t0;
    p->m = m;
}

/* set_jp only records the bodies: most blocks have no regular member, and the
 * GPU needs the polynomials only at the next regular force, so the updates of
 * many blocks travel together (a body corrected twice goes once). */
static void cuda_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                        const double (*x)[3], const double (*v)[3],
                        const double (*a)[3], const double (*jerk)[3], const double *m)
{
    GpunbCuda *c = as_cuda(g);
    if (n <= 0) return;
    stage_ready(c, (size_t)c->npend + n);
    JPoly *P = c->stage[c->fill].poly;
    int *S = c->stage[c->fill].slot;
    if (n <= 2048) {
        for (int k = 0; k < n; k++) {   /* the entries, in order */
            int i = idx[k];
            if (c->pend_gen[i] != c->gen) {
                c->pend_gen[i] = c->gen;
                c->pend_pos[i] = c->npend++;
            }
            put_poly(&P[c->pend_pos[i]], t0[k], x[k], v[k], a[k], jerk[k], m[k]);
            S[c->pend_pos[i]] = i;
        }
        eager_flush(c);
        return;
    }
    /* distinct slots (a block's members): each thread counts the slots of
     * its share not yet staged, takes its place after the shares before it
     * (the same order as one thread's) and copies (a serial pass over a
     * block of 82k cost ~0.3 ms at N = 128k) */
    enum { MAXT = 256 };
    int base[MAXT + 1] = {0}, used = 0;
    const int nth = omp_get_max_threads() < MAXT ? omp_get_max_threads() : MAXT;
    const int npend = c->npend;
#pragma omp parallel num_threads(nth)
    {
        const int T = omp_get_num_threads(), me = omp_get_thread_num();
        const int lo = (int)((long)n * me / T), hi = (int)((long)n * (me + 1) / T);
        int fresh = 0;
        for (int k = lo; k < hi; k++) fresh += c->pend_gen[idx[k]] != c->gen;
        base[me + 1] = fresh;
#pragma omp barrier
#pragma omp single
        {
            for (int r = 0; r < T; r++) base[r + 1] += base[r];
            used = T;
        }
        int w = npend + base[me];
        for (int k = lo; k < hi; k++) {
            int i = idx[k];
            if (c->pend_gen[i] != c->gen) {
                c->pend_gen[i] = c->gen;
                c->pend_pos[i] = w++;
            }
            put_poly(&P[c->pend_pos[i]], t0[k], x[k], v[k], a[k], jerk[k], m[k]);
            S[c->pend_pos[i]] = i;
        }
    }
    c->npend = npend + base[used];
    eager_flush(c);
}

/* gpunb_hold_jp: what was pending before goes now (it is not held); what
 * set_jp stages from here on waits in the staging buffer, which no flush
 * sends until the release. */
static int cuda_hold(gpunb *g, int on)
{
    GpunbCuda *c = as_cuda(g);
    if (on) {
        flush_set_jp(c);
        c->hold = 1;
    } else {
        c->hold = 0;
        eager_flush(c);
    }
    return 1;
}

static void cuda_predict(gpunb *g, double t)
{
    GpunbCuda *c = as_cuda(g);
    c->t = t;   /* predicted lazily on the GPU, for the range a call needs */
}

/* --------------------------------------------------- API: regular force */

static void pack_i(GpunbCuda *c, const Geom *gm, const int *idx, const double *h2, const double *dtr,
                   const double (*x)[3], const double (*v)[3])
{
    const ILayout il = i_layout(gm->ni_pad);
    grow_host((void **)&c->h_i, &c->hi_cap, il.total);
    float4 *xh = (float4 *)(c->h_i + il.xh), *xl = (float4 *)(c->h_i + il.xl), *vv = (float4 *)(c->h_i + il.v);
    int *self = (int *)(c->h_i + il.self);
    dbl4 *xd = (dbl4 *)(c->h_i + il.xd);
    int *slot = (int *)(c->h_i + il.slot);
#pragma omp parallel for schedule(static) if (gm->ni_pad > 1024)
    for (int k = 0; k < gm->ni_pad; k++) {
        if (k < gm->ni) {
            float hx = (float)x[k][0], hy = (float)x[k][1], hz = (float)x[k][2];
            xh[k] = make_float4(hx, hy, hz, (float)h2[k]);
            xl[k] = make_float4((float)(x[k][0] - hx), (float)(x[k][1] - hy), (float)(x[k][2] - hz),
                                (float)dtr[k]);
            vv[k] = make_float4((float)v[k][0], (float)v[k][1], (float)v[k][2], 0.f);
            self[k] = (idx[k] >= c->jbeg && idx[k] < c->jend) ? idx[k] - c->jbeg : -1;
            xd[k] = mkd4(x[k][0], x[k][1], x[k][2], 0.0);
            slot[k] = idx[k];
        } else {   /* padding threads: computed, never stored */
            xh[k] = make_float4(0.f, 0.f, 0.f, 0.f);
            xl[k] = make_float4(0.f, 0.f, 0.f, 0.f);
            vv[k] = make_float4(0.f, 0.f, 0.f, 0.f);
            self[k] = -1;
            xd[k] = mkd4(0, 0, 0, 0);
            slot[k] = -1;
        }
    }
}

/* Where each i's list starts in each GPU's serialised lists (lists over
 * nbmax are not serialised): a prefix sum of the counts, so that the copy
 * below can run in parallel. */
static int *list_offsets(GpunbCuda *c, int n, int nbmax)
{
    size_t need = (size_t)c->ngpu * n * sizeof(int);
    if (need > c->offs_cap) {
        free(c->h_offs);
        c->h_offs = (int *)malloc(need);
        if (!c->h_offs) { fprintf(stderr, "gpunb cuda: out of host memory\n"); exit(1); }
        c->offs_cap = need;
    }
    for (int dd = 0; dd < c->ngpu; dd++) {
        const Dev *d = &c->dev[dd];
        const int *cnt = (const int *)(d->h_hdr + h_layout(d->g1 - d->g0, n).cnt);
        int *off = c->h_offs + (size_t)dd * n, o = 0;
        for (int k = 0; k < n; k++) {
            off[k] = o;
            if (cnt[k] <= nbmax) o += cnt[k];
        }
    }
    return c->h_offs;
}

/* Adds up one chunk's results: group sums in group order, lists in GPU
 * (= ascending j) order; a list of n > nbmax gives nnb = -n.  Returns the
 * number of those. */
static int combine_chunk(GpunbCuda *c, int n, int i0, int nbmax, double (*a)[3], double (*jerk)[3],
                         int *nnb, int *list)
{
    const int *offs = list_offsets(c, n, nbmax);
    int over = 0;
#pragma omp parallel for schedule(static) reduction(+ : over) if (n > 256)
    for (int k = 0; k < n; k++) {
        const int i = i0 + k;
        double sum[6] = {0, 0, 0, 0, 0, 0};
        int tot = 0;
        for (int dd = 0; dd < c->ngpu; dd++) {
            const Dev *d = &c->dev[dd];
            const int ngl = d->g1 - d->g0;
            const HLayout hl = h_layout(ngl, n);
            const double *ga = (const double *)(d->h_hdr + hl.gacc);
            for (int gl = 0; gl < ngl; gl++)
                for (int e = 0; e < 6; e++) sum[e] += ga[((size_t)gl * 6 + e) * n + k];
            tot += ((const int *)(d->h_hdr + hl.cnt))[k];
        }
        for (int e = 0; e < 3; e++) { a[i][e] = sum[e]; jerk[i][e] = sum[3 + e]; }
        if (tot > nbmax) {
            nnb[i] = -tot;
            over++;
            continue;
        }
        int *dst = list + (size_t)i * nbmax, m = 0;
        for (int dd = 0; dd < c->ngpu; dd++) {
            const Dev *d = &c->dev[dd];
            const HLayout hl = h_layout(d->g1 - d->g0, n);
            const int cd = ((const int *)(d->h_hdr + hl.cnt))[k];
            const int *hlist = (const int *)(d->h_hdr + hl.total);
            memcpy(dst + m, hlist + offs[(size_t)dd * n + k], (size_t)cd * sizeof(int));
            m += cd;
        }
        nnb[i] = tot;
    }
    return over;
}

/* Several GPUs: each built its groups' part of each list; the other GPUs'
 * parts go to GPU 0 device to device and k_res_put_parts joins them into
 * the resident rows there (the host's combined lists are the same
 * entries, in the same order). */
static void res_keep_parts(GpunbCuda *c, const Geom *gm)
{
    Dev *d0 = &c->dev[0];
    const int n = gm->ni;
    size_t need = 0;
    for (int k = 1; k < c->ngpu; k++) {
        const Dev *d = &c->dev[k];
        const HLayout hl = h_layout(d->g1 - d->g0, n);
        const int total = ((const int *)(d->h_hdr + hl.misc))[1];
        need += roundup((int)(hl.total - hl.cnt + (size_t)total * sizeof(int)), 256) +
                roundup(n * (int)sizeof(int), 256);
    }
    dev_set(d0);
    grow_dev((void **)&c->d_peer, &c->peer_cap, need + 256);
    ResParts P;
    P.np = c->ngpu;
    size_t o = 0;
    for (int k = 0; k < c->ngpu; k++) {
        const Dev *d = &c->dev[k];
        const HLayout hl = h_layout(d->g1 - d->g0, n);
        if (k == 0) {
            P.cnt[0] = (const int *)(d->d_hdr + hl.cnt);
            P.off[0] = d->d_off;
            P.list[0] = (const int *)(d->d_hdr + hl.total);
            continue;
        }
        /* counts, flags and entries are one span of the header */
        const int total = ((const int *)(d->h_hdr + hl.misc))[1];
        const size_t span = hl.total - hl.cnt + (size_t)total * sizeof(int);
        CK(cudaMemcpyPeerAsync(c->d_peer + o, d0->id, d->d_hdr + hl.cnt, d->id, span, d0->st));
        P.cnt[k] = (const int *)(c->d_peer + o);
        P.list[k] = (const int *)(c->d_peer + o + (hl.total - hl.cnt));
        o += roundup((int)span, 256);
        CK(cudaMemcpyPeerAsync(c->d_peer + o, d0->id, d->d_off, d->id, (size_t)n * sizeof(int), d0->st));
        P.off[k] = (const int *)(c->d_peer + o);
        o += roundup(n * (int)sizeof(int), 256);
    }
    CK(cudaEventRecord(c->peer_copied, d0->st));
    c->peer_pending = 1;
    const ILayout il = i_layout(gm->ni_pad);
    k_res_put_parts<<<cdiv((long)n * 32, 128), 128, 0, d0->st>>>((const int *)(d0->d_i + il.slot), P, n,
                                                                   c->base.nbmax, c->d_res, c->d_resn);
    CKL("k_res_put_parts");
}

/* One GPU's share of a regf chunk; the first chunk also sends the pending
 * set_jp updates (one wake-up of the GPUs' host threads instead of two). */
typedef struct RegfJob { const Geom *gm; SendArg send; } RegfJob;

static void dev_regf_fn(GpunbCuda *c, Dev *d, void *arg)
{
    const RegfJob *job = (const RegfJob *)arg;
    if (job->send.n > 0) dev_set_jp(c, d, (void *)&job->send);
    dev_regf(c, d, job->gm, c->base.nbmax);
}

/* One chunk [i0, i0 + n) of a regular force, start to finish, on every GPU. */
static int regf_chunk(GpunbCuda *c, int i0, int n, const int *idx, const double *h2, const double *dtr,
                      const double (*x)[3], const double (*v)[3],
                      double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    const int nbmax = c->base.nbmax, nj = c->jend - c->jbeg;
    double w1 = omp_get_wtime();
    const Geom gm = make_geom(n, nj, c->target_blocks);
    pack_i(c, &gm, idx + i0, h2 + i0, dtr + i0, x + i0, v + i0);
    double w2 = omp_get_wtime();
    RegfJob job = {&gm, {c->fill, i0 == 0 && !c->hold ? c->npend : 0}};
    on_all_devices(c, dev_regf_fn, (void *)&job);
    if (job.send.n > 0) flush_sent(c);
    double w3 = omp_get_wtime();
    int over = combine_chunk(c, n, i0, nbmax, a, jerk, nnb, list);
    if (c->d_resn && c->ngpu > 1) res_keep_parts(c, &gm);
    double w4 = omp_get_wtime();
    c->t_pack += w2 - w1;
    c->t_dev += w3 - w2;
    c->t_combine += w4 - w3;
    return over;
}

static int cuda_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                     const double (*x)[3], const double (*v)[3],
                     double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    GpunbCuda *c = as_cuda(g);
    int over = 0;
    c->regf_calls++;
    for (int i0 = 0; i0 < ni; i0 += NI_CHUNK)
        over += regf_chunk(c, i0, imin(NI_CHUNK, ni - i0), idx, h2, dtr, x, v, a, jerk, nnb, list);
    return over;
}

/* gpunb_regf_begin: the first chunk is queued on every GPU (the pending
 * set_jp updates first, as regf_chunk sends them) and the call returns;
 * the front end keeps the inputs for the end.  Queuing is asynchronous,
 * so the caller's thread does it for every GPU; at the end the GPUs' host
 * threads wait for their own streams and the rest runs as in gpunb_regf.
 * (The whole force at the end instead measured 3-7 % slower end to end
 * with two GPUs at 128k and 512k, and more with one: docs/BENCHMARKS.md.) */
static void cuda_regf_begin(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                            const double (*x)[3], const double (*v)[3])
{
    GpunbCuda *c = as_cuda(g);
    c->rf_launched = 0;
    if (ni <= 0) return;
    double w1 = omp_get_wtime();
    const int n = imin(NI_CHUNK, ni);
    c->rf_gm = make_geom(n, c->jend - c->jbeg, c->target_blocks);
    pack_i(c, &c->rf_gm, idx, h2, dtr, x, v);
    double w2 = omp_get_wtime();
    const SendArg send = {c->fill, c->hold ? 0 : c->npend};
    uploads_queued(c);
    for (int k = 0; k < c->ngpu; k++) {
        Dev *d = &c->dev[k];
        if (send.n > 0) dev_set_jp(c, d, (void *)&send);
        dev_regf_launch(c, d, &c->rf_gm, g->nbmax);
    }
    if (send.n > 0) flush_sent(c);
    c->rf_launched = 1;
    c->t_pack += w2 - w1;
    c->rf_begun = omp_get_wtime();
    c->t_dev += c->rf_begun - w2;
}

static void dev_regf_finish_fn(GpunbCuda *c, Dev *d, void *arg)
{
    dev_regf_finish(c, d, (const Geom *)arg, c->base.nbmax);
}

static int cuda_regf_end(gpunb *g, double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    GpunbCuda *c = as_cuda(g);
    const int ni = g->rf.ni;
    if (!c->rf_launched) return cuda_regf(g, ni, g->rf.idx, g->rf.h2, g->rf.dtr, g->rf.x, g->rf.v, a, jerk, nnb, list);
    c->regf_calls++;
    const int n = c->rf_gm.ni;
    double w2 = omp_get_wtime();
    const int big = n > 4096;
    c->t_inflight[big] += w2 - c->rf_begun;
    on_all_devices(c, dev_regf_finish_fn, (void *)&c->rf_gm);
    c->rf_launched = 0;
    c->t_rfwait[big] += omp_get_wtime() - w2;
    double w3 = omp_get_wtime();
    int over = combine_chunk(c, n, 0, g->nbmax, a, jerk, nnb, list);
    if (c->d_resn && c->ngpu > 1) res_keep_parts(c, &c->rf_gm);
    c->t_dev += w3 - w2;
    c->t_combine += omp_get_wtime() - w3;
    for (int i0 = n; i0 < ni; i0 += NI_CHUNK)
        over += regf_chunk(c, i0, imin(NI_CHUNK, ni - i0), g->rf.idx, g->rf.h2, g->rf.dtr, g->rf.x, g->rf.v,
                           a, jerk, nnb, list);
    return over;
}

/* ------------------------------------------------ API: irregular force */

/* Packs body k's i-record, and for given lists its list (j - jbeg) at its
 * offset; 1 when that list names a slot outside the j-range (then it is
 * sent empty).  Resident lists (list NULL): the record names the slot. */
static int irr_pack_one(const GpunbCuda *c, int k, const double x[3], const double v[3], int nnb,
                        const int *list, int slot, IrrI *rec, int *dst)
{
    const int nj = c->jend - c->jbeg;
    int bad = 0;
    for (int q = 0; list && q < nnb; q++) {
        const int j = list[q] - c->jbeg;
        bad |= (unsigned)j >= (unsigned)nj;
        dst[q] = bad ? 0 : j;
    }
    const float hx = (float)x[0], hy = (float)x[1], hz = (float)x[2];
    const double x2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    rec->xh = make_float4(hx, hy, hz, 0.f);
    rec->xl = make_float4((float)(x[0] - hx), (float)(x[1] - hy), (float)(x[2] - hz), 0.f);
    rec->v = make_float4((float)v[0], (float)v[1], (float)v[2], (float)(1e-14 * x2 + 1e-20));
    rec->off = list ? c->irr_off[k] : slot;
    rec->nnb = bad ? 0 : nnb;
    rec->pad0 = rec->pad1 = 0;
    return bad;
}

/* The resident table on GPU 0, all lists empty, at the first use. */
static void res_alloc(GpunbCuda *c)
{
    if (c->d_resn) return;
    const int nmax = c->base.nmax;
    dev_set(&c->dev[0]);
    CK(cudaMalloc((void **)&c->d_res, (size_t)nmax * c->base.nbmax * sizeof(int)));
    CK(cudaMalloc((void **)&c->d_resn, (size_t)nmax * sizeof(int)));
    CK(cudaMemsetAsync(c->d_resn, 0, (size_t)nmax * sizeof(int), c->dev[0].st));
    c->res_mark = (int *)malloc(sizeof(int) * (size_t)nmax);
    if (!c->res_mark) { fprintf(stderr, "gpunb cuda: out of host memory\n"); exit(1); }
    for (int i = 0; i < nmax; i++) c->res_mark[i] = -1;
}

/* Host lists into the resident table: slots, counts, offsets and entries
 * packed in one pinned buffer, one copy, one scatter.  A slot named twice
 * keeps its last list (the order of the calls' semantics; the scatter's
 * warps run in any order, so only the last goes up).  Waited for, so the
 * staging buffer is free again at return (calls are rare: start-up and
 * KS events; the regular steps' lists are kept on the GPU). */
static void res_upload(GpunbCuda *c, int n, const int *idx, const int *nnb, const int *const *lists)
{
    res_alloc(c);
    if (n <= 0) return;
    Dev *d = &c->dev[0];
    for (int k = 0; k < n; k++) c->res_mark[idx[k]] = k;
    long tot = 0;
    int m = 0;
    for (int k = 0; k < n; k++)
        if (c->res_mark[idx[k]] == k) { m++; tot += nnb[k]; }
    const size_t head = roundup((int)((size_t)3 * m * sizeof(int)), 256);
    const size_t need = head + (size_t)tot * sizeof(int) + 16;
    grow_host((void **)&c->h_sl, &c->h_sl_cap, need);
    dev_set(d);
    grow_dev((void **)&c->d_sl, &c->d_sl_cap, need);
    int *hs = (int *)c->h_sl, *hc = hs + m, *ho = hs + 2 * m, *he = (int *)(c->h_sl + head);
    int *from = (int *)malloc(sizeof(int) * (size_t)(m + 1));
    if (!from) { fprintf(stderr, "gpunb cuda: out of host memory\n"); exit(1); }
    long o = 0;
    for (int k = 0, q = 0; k < n; k++) {
        if (c->res_mark[idx[k]] != k) continue;
        hs[q] = idx[k];
        hc[q] = nnb[k];
        ho[q] = (int)o;
        from[q] = k;
        o += nnb[k];
        q++;
    }
    /* the lists by the team when many (every body's at a restart) */
#pragma omp parallel for schedule(static) if (m >= 4096)
    for (int q = 0; q < m; q++) memcpy(he + ho[q], lists[from[q]], sizeof(int) * (size_t)hc[q]);
    free(from);
    for (int k = 0; k < n; k++) c->res_mark[idx[k]] = -1;
    CK(cudaMemcpyAsync(c->d_sl, c->h_sl, head + (size_t)tot * sizeof(int), cudaMemcpyHostToDevice, d->st));
    const int *ds = (const int *)c->d_sl;
    k_res_put<<<cdiv((long)m * 32, 128), 128, 0, d->st>>>(ds, ds + m, ds + 2 * m, (const int *)(c->d_sl + head), m,
                                                           c->base.nbmax, c->d_res, c->d_resn);
    CKL("k_res_put");
    CK(cudaStreamSynchronize(d->st));
}

static void cuda_set_list(gpunb *g, int n, const int *idx, const int *nnb, const int *const *lists)
{
    res_upload(as_cuda(g), n, idx, nnb, lists);
}

/* gpunb_lists_naming on GPU 0, which holds the resident table: after every
 * update queued there (set_list, a regular force's lists), one byte a row
 * back. */
static void cuda_lists_naming(gpunb *g, int lo, int hi, const int lab[4], unsigned char *mark)
{
    GpunbCuda *c = as_cuda(g);
    res_alloc(c);
    Dev *d = &c->dev[0];
    const size_t n = (size_t)(hi - lo);
    grow_host((void **)&c->h_nm, &c->h_nm_cap, n);
    dev_set(d);
    grow_dev((void **)&c->d_nm, &c->d_nm_cap, n);
    k_naming<<<cdiv((long)n * 32, 256), 256, 0, d->st>>>(c->d_res, c->d_resn, g->nbmax, lo, hi,
                                                          make_int4(lab[0], lab[1], lab[2], lab[3]), c->d_nm);
    CKL("k_naming");
    CK(cudaMemcpyAsync(c->h_nm, c->d_nm, n, cudaMemcpyDeviceToHost, d->st));
    CK(cudaStreamSynchronize(d->st));
    memcpy(mark, c->h_nm, n);
}

/* irrf_run's queue for bodies at their own slots' prediction: the slots up
 * (after the records' place, lbase, in the call's buffers), the records
 * built by k_irr_members, one force launch, the sums and flags back. */
static void irr_queue_members(GpunbCuda *c, Dev *d, int ni, const int *slots, size_t lbase, const IrrL &L, int tr)
{
    IrrI *drec = (IrrI *)d->d_irr;
    int *hs = (int *)(c->h_irr + lbase), *ds = (int *)(d->d_irr + lbase);
    const size_t fbase = (size_t)ni * 6 * sizeof(double);
    double *dout = (double *)d->d_irro;
    memcpy(hs, slots, sizeof(int) * (size_t)ni);
    CK(cudaMemcpyAsync(ds, hs, sizeof(int) * (size_t)ni, cudaMemcpyHostToDevice, d->st));
    k_irr_members<<<cdiv(ni, 128), 128, 0, d->st>>>(d->poly, ds, ni, c->t, drec);
    CKL("k_irr_members");
    if (tr) CK(cudaEventRecord(d->iev[3], d->st));
    k_irrf<<<cdiv((long)ni * 32, 128), 128, 0, d->st>>>(drec, L, ni, d->jxh, d->jxl, d->jv, dout,
                                                         (int *)(d->d_irro + fbase));
    CKL("k_irrf");
    if (tr) CK(cudaEventRecord(d->iev[4], d->st));
    CK(cudaMemcpyAsync(c->h_irro, d->d_irro, fbase + (size_t)ni * sizeof(int), cudaMemcpyDeviceToHost, d->st));
    if (tr) CK(cudaEventRecord(d->iev[5], d->st));
}

/* The whole call on GPU 0: the i-records (and given lists) go up in chunks
 * of IRR_CHUNK bodies, each chunk's copy and kernel queued while the host
 * packs the next; with `members` (resident lists, every slot a j-body) only
 * the slots go up and GPU 0 builds the records (irr_queue_members).  The
 * sums come back in one pinned buffer.  Bodies with a neighbour closer than
 * r_min are summed again in double.  Given lists: lists and nnb; resident
 * lists: slots (lists NULL). */
static int irrf_run(GpunbCuda *c, int ni, const double (*x)[3], const double (*v)[3], const int *nnb,
                    const int *const *lists, const int *slots, int members, double (*a)[3], double (*jerk)[3])
{
    Dev *d = &c->dev[0];
    const int nj = c->jend - c->jbeg;
    /* NBODY6C_GPUNB_TRACE, a small call: GPU 0's phases between events
     * (set_jp flush, prediction, upload, kernel, copy back) and the host's
     * (queuing incl. packing, the wait, the sums handed out) */
    const int tr = c->trace && ni <= IRR_TRACE_MAX;
    double hw[4];
    if (tr) {
        hw[0] = omp_get_wtime();
        dev_set(d);
        CK(cudaEventRecord(d->iev[0], d->st));
    }
    c->irrf_calls++;
    flush_set_jp(c);
    dev_set(d);
    if (tr) CK(cudaEventRecord(d->iev[1], d->st));
    dev_ensure_predicted(c, d, 0, nj, 0);
    if (tr) CK(cudaEventRecord(d->iev[2], d->st));
    if (!lists) res_alloc(c);

    if ((size_t)(ni + 1) * sizeof(int) > c->irr_off_cap) {
        free(c->irr_off);
        c->irr_off_cap = (size_t)(ni + 1) * sizeof(int) * 5 / 4;
        c->irr_off = (int *)malloc(c->irr_off_cap);
        if (!c->irr_off) { fprintf(stderr, "gpunb cuda: out of host memory\n"); exit(1); }
    }
    long tot = 0;
    for (int k = 0; lists && k < ni; k++) {
        c->irr_off[k] = (int)tot;
        tot += nnb[k] > 0 ? nnb[k] : 0;
    }
    c->irr_off[ni] = (int)tot;
    const size_t lbase = roundup((int)((size_t)ni * sizeof(IrrI)), 256);
    const size_t in_bytes = lbase + (size_t)(members ? ni : tot) * sizeof(int) + 16;
    const size_t fbase = (size_t)ni * 6 * sizeof(double);
    const size_t out_bytes = fbase + (size_t)ni * sizeof(int) + 16;
    grow_host((void **)&c->h_irr, &c->h_irr_cap, in_bytes);
    grow_dev((void **)&d->d_irr, &d->irr_cap, in_bytes);
    grow_host((void **)&c->h_irro, &c->h_irro_cap, out_bytes);
    grow_dev((void **)&d->d_irro, &d->irro_cap, out_bytes);
    IrrI *hrec = (IrrI *)c->h_irr, *drec = (IrrI *)d->d_irr;
    int *hl = (int *)(c->h_irr + lbase), *dl = (int *)(d->d_irr + lbase);
    double *hout = (double *)c->h_irro, *dout = (double *)d->d_irro;
    int *hflag = (int *)(c->h_irro + fbase), *dflag = (int *)(d->d_irro + fbase);
    IrrL L;
    if (lists) { L.list = dl; L.resn = NULL; L.stride = 1; L.jsub = 0; }
    else { L.list = c->d_res; L.resn = c->d_resn; L.stride = c->base.nbmax; L.jsub = c->jbeg; }
    L.nj = nj;

    int first_bad = ni;
    if (members) irr_queue_members(c, d, ni, slots, lbase, L, tr);
    for (int i0 = 0; !members && i0 < ni; i0 += IRR_CHUNK) {
        const int n = imin(IRR_CHUNK, ni - i0);
        int fb = ni;
#pragma omp parallel for schedule(static) reduction(min : fb) if (n > 1024)
        for (int k = i0; k < i0 + n; k++) {
            const int m = lists && nnb[k] > 0 ? nnb[k] : 0;
            if (irr_pack_one(c, k, x[k], v[k], m, lists ? lists[k] : NULL, slots ? slots[k] : 0, &hrec[k],
                             lists ? hl + c->irr_off[k] : NULL) &&
                k < fb)
                fb = k;
        }
        if (fb < first_bad) first_bad = fb;
        CK(cudaMemcpyAsync(drec + i0, hrec + i0, (size_t)n * sizeof(IrrI), cudaMemcpyHostToDevice, d->st));
        if (lists) {
            const int l0 = c->irr_off[i0], l1 = c->irr_off[i0 + n];
            if (l1 > l0)
                CK(cudaMemcpyAsync(dl + l0, hl + l0, (size_t)(l1 - l0) * sizeof(int), cudaMemcpyHostToDevice,
                                   d->st));
        }
        if (tr) CK(cudaEventRecord(d->iev[3], d->st));
        k_irrf<<<cdiv((long)n * 32, 128), 128, 0, d->st>>>(drec + i0, L, n, d->jxh, d->jxl, d->jv,
                                                             dout + (size_t)i0 * 6, dflag + i0);
        CKL("k_irrf");
        if (tr) CK(cudaEventRecord(d->iev[4], d->st));
        if (n == ni) {   /* one chunk: sums and flags are one span (fbase = the sums' bytes) */
            CK(cudaMemcpyAsync(hout, dout, fbase + (size_t)ni * sizeof(int), cudaMemcpyDeviceToHost, d->st));
            if (tr) CK(cudaEventRecord(d->iev[5], d->st));
            continue;
        }
        CK(cudaMemcpyAsync(hout + (size_t)i0 * 6, dout + (size_t)i0 * 6, (size_t)n * 6 * sizeof(double),
                           cudaMemcpyDeviceToHost, d->st));
        CK(cudaMemcpyAsync(hflag + i0, dflag + i0, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, d->st));
    }
    if (tr) hw[1] = omp_get_wtime();
    CK(cudaStreamSynchronize(d->st));
    if (tr) {
        hw[2] = omp_get_wtime();
        c->irr_small++;
        for (int q = 0; q < 5; q++) {
            float ms = 0.f;
            CK(cudaEventElapsedTime(&ms, d->iev[q], d->iev[q + 1]));
            c->irr_k[q] += 1e-3 * ms;
        }
    }

    /* a resident list naming a slot outside the j-range: reported, force zero */
    int nf = 0, fb = first_bad;
#pragma omp parallel for schedule(static) reduction(+ : nf) reduction(min : fb) if (ni > 16384)
    for (int k = 0; k < ni; k++) {
        if (hflag[k] & IRR_BAD && k < fb) fb = k;
        nf += hflag[k] == IRR_NEAR;
    }
    first_bad = fb;
    /* bodies with a neighbour within r_min: double sums on the GPU */
    if (nf > 0) {
        c->irrf_double += nf;
        dev_ensure_predicted(c, d, 0, nj, 1);
        const size_t fx_off = roundup(nf * (int)sizeof(int), 256), res_off = fx_off + (size_t)nf * 2 * sizeof(dbl4);
        const size_t fl_off = res_off + (size_t)nf * 6 * sizeof(double), need = fl_off + (size_t)nf * sizeof(int);
        grow_host((void **)&d->h_out, &d->hout_cap, need);
        grow_dev((void **)&d->d_out, &d->out_cap, need);
        char *hb = (char *)d->h_out, *db = (char *)d->d_out;
        int *fk = (int *)hb;
        dbl4 *fx = (dbl4 *)(hb + fx_off);
        for (int k = 0, f = 0; k < ni; k++) {
            if (hflag[k] != IRR_NEAR) continue;
            fk[f] = k;
            fx[2 * f] = mkd4(x[k][0], x[k][1], x[k][2], 0.0);
            fx[2 * f + 1] = mkd4(v[k][0], v[k][1], v[k][2], 0.0);
            f++;
        }
        CK(cudaMemcpyAsync(db, hb, res_off, cudaMemcpyHostToDevice, d->st));
        k_irrf_d<<<cdiv(nf, 64), 64, 0, d->st>>>((const int *)db, nf, (const dbl4 *)(db + fx_off), drec, L,
                                                  d->jxd, d->jvd, (double *)(db + res_off), (int *)(db + fl_off));
        CKL("k_irrf_d");
        CK(cudaMemcpyAsync(hb + res_off, db + res_off, need - res_off, cudaMemcpyDeviceToHost, d->st));
        CK(cudaStreamSynchronize(d->st));
        const double *res = (const double *)(hb + res_off);
        const int *fl = (const int *)(hb + fl_off);
        for (int f = 0; f < nf; f++) {
            const int k = fk[f];
            memcpy(hout + (size_t)k * 6, res + (size_t)f * 6, 6 * sizeof(double));
            if (fl[f] && k < first_bad) first_bad = k;
        }
    }
#pragma omp parallel for schedule(static) if (ni > 4096)
    for (int k = 0; k < ni; k++) {
        const double *o = hout + (size_t)k * 6;
        for (int e = 0; e < 3; e++) { a[k][e] = o[e]; jerk[k][e] = o[3 + e]; }
    }
    if (tr) {
        hw[3] = omp_get_wtime();
        for (int q = 0; q < 3; q++) c->irr_h[q] += hw[q + 1] - hw[q];
    }
    return first_bad < ni ? first_bad + 1 : 0;
}

static int cuda_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
                     const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3])
{
    GpunbCuda *c = as_cuda(g);
    const double w0 = omp_get_wtime();
    const int rc = irrf_run(c, ni, x, v, nnb, lists, NULL, 0, a, jerk);
    c->t_irrf += omp_get_wtime() - w0;
    return rc;
}

static int cuda_irrf_res(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                         double (*a)[3], double (*jerk)[3])
{
    GpunbCuda *c = as_cuda(g);
    const double w0 = omp_get_wtime();
    const int rc = irrf_run(c, ni, x, v, NULL, NULL, idx, 0, a, jerk);
    c->t_irrf += omp_get_wtime() - w0;
    return rc;
}

/* gpunb_irrf_members: the records built on GPU 0 from its polynomials when
 * every slot is a j-body (GPU 0 holds them all); else as irrf_res. */
static int cuda_irrf_members(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                             double (*a)[3], double (*jerk)[3])
{
    GpunbCuda *c = as_cuda(g);
    const double w0 = omp_get_wtime();
    int out = 0;
#pragma omp parallel for schedule(static) reduction(| : out) if (ni > 16384)
    for (int k = 0; k < ni; k++) out |= idx[k] < c->jbeg || idx[k] >= c->jend;
    const int rc = irrf_run(c, ni, x, v, NULL, NULL, idx, !out, a, jerk);
    c->t_irrf += omp_get_wtime() - w0;
    c->irrf_members += !out;
    return rc;
}

/* ------------------------------------------------ API: start-up and potential */

typedef struct DGeom { int ni, bs, iblocks, ni_pad, nsj; } DGeom;

static int d_chunk(int nj)
{
    int nsj = imax(cdiv(nj, JSLICE_D), 1);
    return imax(128, imin(NI_CHUNK, (D_PARTIALS / nsj) / 128 * 128));
}

static DGeom make_dgeom(int ni, int nj)
{
    DGeom g;
    g.ni = ni;
    g.bs = ni <= 32 ? 32 : ni <= 64 ? 64 : 128;
    g.iblocks = imax(cdiv(ni, g.bs), 1);
    g.ni_pad = g.iblocks * g.bs;
    g.nsj = imax(cdiv(nj, JSLICE_D), 1);
    return g;
}

typedef struct FpolyArg {
    int ni;
    const int *idx;
    const double *h2, *dtr;
    const double (*x)[3], (*v)[3], (*a)[3], (*jerk)[3];
    double (*d2irr)[3], (*d3irr)[3], (*d2reg)[3], (*d3reg)[3];
} FpolyArg;

static float int_bits_as_float(int k)
{
    float f;
    memcpy(&f, &k, sizeof f);
    return f;
}

/* Reduces one chunk's slices and hands the derivatives to the caller. */
static void fpoly_results(Dev *d, const FpolyArg *F, int i0, const DGeom *gm, int nsj)
{
    k_reduce_d<<<cdiv(gm->ni, 128), 128, 0, d->st>>>(d->d_part, gm->ni, gm->ni_pad, nsj, 12, d->d_out);
    CKL("k_reduce_d");
    CK(cudaMemcpyAsync(d->h_out, d->d_out, (size_t)12 * gm->ni * sizeof(double), cudaMemcpyDeviceToHost,
                       d->st));
    CK(cudaStreamSynchronize(d->st));
    const double *o = d->h_out;
    for (int q = 0; q < gm->ni; q++) {
        const int i = i0 + q;
        for (int e = 0; e < 3; e++) {
            F->d2irr[i][e] = o[(size_t)(0 + e) * gm->ni + q];
            F->d3irr[i][e] = o[(size_t)(3 + e) * gm->ni + q];
            F->d2reg[i][e] = o[(size_t)(6 + e) * gm->ni + q];
            F->d3reg[i][e] = o[(size_t)(9 + e) * gm->ni + q];
        }
    }
}

/* One chunk of i-bodies [i0, i0 + gm->ni) by k_fpoly_f (nj > 0). */
static void fpoly_f_chunk(GpunbCuda *c, Dev *d, const FpolyArg *F, int i0, const DGeom *gm, int nj)
{
    const int np = gm->ni_pad;
    float4 *h = (float4 *)d->h_out;   /* ih, il, iv, ia, ij: 5 np float4 (the buffer holds 4 np dbl4) */
    for (int q = 0; q < np; q++) {
        float4 *e[5] = {h + q, h + np + q, h + 2 * np + q, h + 3 * np + q, h + 4 * np + q};
        if (q >= gm->ni) {   /* padding threads: computed, never stored */
            for (int b = 0; b < 5; b++) *e[b] = make_float4(0.f, 0.f, 0.f, 0.f);
            *e[2] = make_float4(0.f, 0.f, 0.f, int_bits_as_float(-1));
            continue;
        }
        const int i = i0 + q;
        const int s = (F->idx[i] >= c->jbeg && F->idx[i] < c->jend) ? F->idx[i] - c->jbeg : -1;
        const double *x = F->x[i], *v = F->v[i], *a = F->a[i], *j = F->jerk[i];
        const float hx = (float)x[0], hy = (float)x[1], hz = (float)x[2];
        *e[0] = make_float4(hx, hy, hz, (float)F->h2[i]);
        *e[1] = make_float4((float)(x[0] - hx), (float)(x[1] - hy), (float)(x[2] - hz), (float)F->dtr[i]);
        *e[2] = make_float4((float)v[0], (float)v[1], (float)v[2], int_bits_as_float(s));
        *e[3] = make_float4((float)a[0], (float)a[1], (float)a[2], 0.f);
        *e[4] = make_float4((float)j[0], (float)j[1], (float)j[2], 0.f);
    }
    const float4 *di = (const float4 *)d->d_i;
    CK(cudaMemcpyAsync(d->d_i, d->h_out, 5 * (size_t)np * sizeof(float4), cudaMemcpyHostToDevice, d->st));
    k_fpoly_f<<<dim3(gm->iblocks, gm->nsj), gm->bs, 0, d->st>>>(di, di + np, di + 2 * np, di + 3 * np,
                                                                di + 4 * np, np, d->jxh, d->jxl, d->jv,
                                                                d->poly, c->jbeg, nj, JSLICE_D, d->d_part);
    CKL("k_fpoly_f");
    fpoly_results(d, F, i0, gm, gm->nsj);
}

static void dev_fpoly(GpunbCuda *c, Dev *d, void *arg)
{
    const FpolyArg *F = (const FpolyArg *)arg;
    const int nj = c->jend - c->jbeg;
    const int k = (int)(d - c->dev);
    const int ib = (int)((long)F->ni * k / c->ngpu), ie = (int)((long)F->ni * (k + 1) / c->ngpu);
    dev_set(d);
    dev_ensure_predicted(c, d, 0, nj, c->fp64);
    const int chunk = d_chunk(nj);
    for (int i0 = ib; i0 < ie; i0 += chunk) {
        const DGeom gm = make_dgeom(imin(chunk, ie - i0), nj);
        const size_t nb = (size_t)gm.ni_pad * sizeof(dbl4);
        grow_dev((void **)&d->d_i, &d->i_cap, 4 * nb);
        grow_host((void **)&d->h_out, &d->hout_cap, 4 * nb);
        grow_dev((void **)&d->d_out, &d->out_cap, 4 * nb);
        grow_dev((void **)&d->d_part, &d->part_cap, (size_t)gm.nsj * 12 * gm.ni_pad * sizeof(double));
        if (!c->fp64 && nj > 0) {
            fpoly_f_chunk(c, d, F, i0, &gm, nj);
            continue;
        }
        dbl4 *hx = (dbl4 *)d->h_out, *hv = hx + gm.ni_pad, *ha = hv + gm.ni_pad, *hj = ha + gm.ni_pad;
        for (int q = 0; q < gm.ni_pad; q++) {
            if (q < gm.ni) {
                const int i = i0 + q;
                const int s = (F->idx[i] >= c->jbeg && F->idx[i] < c->jend) ? F->idx[i] - c->jbeg : -1;
                hx[q] = mkd4(F->x[i][0], F->x[i][1], F->x[i][2], F->h2[i]);
                hv[q] = mkd4(F->v[i][0], F->v[i][1], F->v[i][2], F->dtr[i]);
                ha[q] = mkd4(F->a[i][0], F->a[i][1], F->a[i][2], (double)s);
                hj[q] = mkd4(F->jerk[i][0], F->jerk[i][1], F->jerk[i][2], 0.0);
            } else {
                hx[q] = hv[q] = ha[q] = hj[q] = mkd4(0, 0, 0, -1.0);
                hx[q].w = 0.0;
                hv[q].w = 0.0;
            }
        }
        const dbl4 *dx = (const dbl4 *)d->d_i;
        CK(cudaMemcpyAsync(d->d_i, d->h_out, 4 * nb, cudaMemcpyHostToDevice, d->st));
        if (nj > 0) {
            k_fpoly<<<dim3(gm.iblocks, gm.nsj), gm.bs, 0, d->st>>>(dx, dx + gm.ni_pad, dx + 2 * gm.ni_pad,
                                                                   dx + 3 * gm.ni_pad, gm.ni_pad, d->jxd,
                                                                   d->jvd, d->poly, c->jbeg, nj, JSLICE_D,
                                                                   d->d_part);
            CKL("k_fpoly");
        } else {
            CK(cudaMemsetAsync(d->d_part, 0, (size_t)12 * gm.ni_pad * sizeof(double), d->st));
        }
        fpoly_results(d, F, i0, &gm, nj > 0 ? gm.nsj : 1);
    }
}

static void cuda_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                       const double (*x)[3], const double (*v)[3],
                       const double (*a)[3], const double (*jerk)[3],
                       double (*d2irr)[3], double (*d3irr)[3],
                       double (*d2reg)[3], double (*d3reg)[3])
{
    GpunbCuda *c = as_cuda(g);
    if (ni <= 0) return;
    flush_set_jp(c);
    FpolyArg F = {ni, idx, h2, dtr, x, v, a, jerk, d2irr, d3irr, d2reg, d3reg};
    on_all_devices(c, dev_fpoly, &F);
}

typedef struct PotArg { int n; double *pot; } PotArg;

static void dev_pot(GpunbCuda *c, Dev *d, void *arg)
{
    const PotArg *P = (const PotArg *)arg;
    const int n = P->n, k = (int)(d - c->dev);
    const int ib = (int)((long)n * k / c->ngpu), ie = (int)((long)n * (k + 1) / c->ngpu);
    dev_set(d);
    grow_dev((void **)&d->d_pos, &d->pos_cap, (size_t)n * sizeof(dbl4));
    CK(cudaMemcpyAsync(d->d_pos, c->h_pos, (size_t)n * sizeof(dbl4), cudaMemcpyHostToDevice, d->st));
    const int chunk = d_chunk(n);
    for (int i0 = ib; i0 < ie; i0 += chunk) {
        const DGeom gm = make_dgeom(imin(chunk, ie - i0), n);
        grow_dev((void **)&d->d_part, &d->part_cap, (size_t)gm.nsj * gm.ni_pad * sizeof(double));
        grow_dev((void **)&d->d_out, &d->out_cap, (size_t)gm.ni_pad * sizeof(double));
        k_pot<<<dim3(gm.iblocks, gm.nsj), gm.bs, 0, d->st>>>(d->d_pos, n, i0, gm.ni_pad, JSLICE_D, d->d_part);
        CKL("k_pot");
        k_reduce_d<<<cdiv(gm.ni, 128), 128, 0, d->st>>>(d->d_part, gm.ni, gm.ni_pad, gm.nsj, 1, d->d_out);
        CKL("k_reduce_d");
        CK(cudaMemcpyAsync(P->pot + i0, d->d_out, (size_t)gm.ni * sizeof(double), cudaMemcpyDeviceToHost,
                           d->st));
        CK(cudaStreamSynchronize(d->st));
    }
}

static void cuda_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    GpunbCuda *c = as_cuda(g);
    if (n <= 0) return;
    grow_host((void **)&c->h_pos, &c->hpos_cap, (size_t)n * sizeof(dbl4));
    for (int i = 0; i < n; i++) c->h_pos[i] = mkd4(x[i][0], x[i][1], x[i][2], m[i]);
    PotArg P = {n, pot};
    on_all_devices(c, dev_pot, &P);
}

typedef struct PotRowsArg { int n; double *row; } PotRowsArg;

/* GPU k's rows: row blocks k, k + ngpu, ...; the whole row array comes back
 * into its own host buffer, the caller takes its blocks from it. */
static void dev_pot_rows(GpunbCuda *c, Dev *d, void *arg)
{
    const PotRowsArg *P = (const PotRowsArg *)arg;
    const int n = P->n, k = (int)(d - c->dev), nblk = cdiv(n, POT_ROWS_BS);
    dev_set(d);
    grow_dev((void **)&d->d_pos, &d->pos_cap, (size_t)n * sizeof(dbl4));
    grow_dev((void **)&d->d_out, &d->out_cap, (size_t)n * sizeof(double));
    grow_host((void **)&d->h_out, &d->hout_cap, (size_t)n * sizeof(double));
    CK(cudaMemcpyAsync(d->d_pos, c->h_pos, (size_t)n * sizeof(dbl4), cudaMemcpyHostToDevice, d->st));
    const int grid = cdiv(nblk - k, c->ngpu);
    if (grid > 0) {
        k_pot_rows<<<grid, POT_ROWS_BS, 0, d->st>>>(d->d_pos, n, k, c->ngpu, d->d_out);
        CKL("k_pot_rows");
    }
    CK(cudaMemcpyAsync(d->h_out, d->d_out, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, d->st));
    CK(cudaStreamSynchronize(d->st));
    for (int b = k; b < nblk; b += c->ngpu) {
        const int lo = b * POT_ROWS_BS, hi = imin(lo + POT_ROWS_BS, n);
        memcpy(P->row + lo, d->h_out + lo, (size_t)(hi - lo) * sizeof(double));
    }
}

static void cuda_pot_rows(gpunb *g, int n, const double *m, const double (*x)[3], double *row)
{
    GpunbCuda *c = as_cuda(g);
    if (n <= 0) return;
    grow_host((void **)&c->h_pos, &c->hpos_cap, (size_t)n * sizeof(dbl4));
    for (int i = 0; i < n; i++) c->h_pos[i] = mkd4(x[i][0], x[i][1], x[i][2], m[i]);
    PotRowsArg P = {n, row};
    on_all_devices(c, dev_pot_rows, &P);
}

/* ------------------------------------------------------------------- open */

static const gpunb_ops cuda_ops = {
    "cuda", cuda_close, cuda_set_range, cuda_set_jp, cuda_predict, cuda_regf, cuda_fpoly, cuda_pot, cuda_pot_rows, cuda_irrf,
    cuda_set_list, cuda_irrf_res, cuda_regf_begin, cuda_regf_end, cuda_hold, cuda_lists_naming,
    1, /* keeps_poly */
    cuda_irrf_members,
};

extern "C" int gpunb_cuda_get_stats(const gpunb *g, gpunb_cuda_stats *s)
{
    if (!g || g->ops != &cuda_ops) return 0;
    const GpunbCuda *c = (const GpunbCuda *)g;
    memset(s, 0, sizeof *s);
    s->ngpu = c->ngpu;
    s->fp64 = c->fp64;
    s->regf_calls = c->regf_calls;
    s->slice_capacity = c->dev[0].L;
    s->t_flush = c->t_flush;
    s->t_pack = c->t_pack;
    s->t_dev = c->t_dev;
    s->t_combine = c->t_combine;
    s->irrf_calls = c->irrf_calls;
    s->irrf_double = c->irrf_double;
    s->irrf_members = c->irrf_members;
    s->t_irrf = c->t_irrf;
    double *k[5] = {&s->k_predict, &s->k_upload, &s->k_force, &s->k_lists, &s->k_down};
    for (int q = 0; q < 5; q++) *k[q] = c->dev[0].k_sum[q];
    for (int q = 0; q < 2; q++) {
        s->rf_waits[q] = c->dev[0].rf_waits[q];
        s->rf_unstarted[q] = c->dev[0].rf_unstarted[q];
        s->rf_forced[q] = c->dev[0].rf_forced[q];
        s->rf_kforce[q] = c->dev[0].rf_kforce[q];
        s->t_inflight[q] = c->t_inflight[q];
        s->t_rfwait[q] = c->t_rfwait[q];
    }
    s->irr_small = c->irr_small;
    for (int q = 0; q < 3; q++) s->irr_host[q] = c->irr_h[q];
    for (int q = 0; q < 5; q++) s->irr_gpu[q] = c->irr_k[q];
    for (int k = 0; k < c->ngpu; k++) {
        s->slice_retries += c->dev[k].retries;
        s->slice_capacity = imax(s->slice_capacity, c->dev[k].L);
    }
    return 1;
}

#define OPEN_CK(call)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));            \
            cuda_close(&c->base);                                                      \
            return NULL;                                                               \
        }                                                                              \
    } while (0)

/* a switch of common/tuning.h, or def when it is not set */
static int or_default(int v, int def)
{
    return v != TUNING_UNSET ? v : def;
}

extern "C" gpunb *gpunb_cuda_open(int nmax, int nbmax, const gpunb_config *cfg, char *err, size_t errlen)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
        /* a machine without a GPU, or without NVIDIA's driver */
        snprintf(err, errlen, "no GPU on this machine");
        cudaGetLastError();
        return NULL;
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "no CUDA device (%s)", cudaGetErrorString(e));
        cudaGetLastError();   /* clear the sticky-free error state */
        return NULL;
    }
    if (count <= 0) {
        snprintf(err, errlen, "no CUDA device");
        return NULL;
    }
    if (nmax <= 0 || nbmax <= 0) {
        snprintf(err, errlen, "gpunb cuda: bad sizes nmax=%d nbmax=%d", nmax, nbmax);
        return NULL;
    }
    const tuning tn = tuning_read();
    int want = (cfg && cfg->ngpu > 0) ? cfg->ngpu : or_default(tn.ngpu, 0);
    int ngpu = want > 0 ? imin(want, count) : count;
    ngpu = imin(ngpu, NGROUP);

    GpunbCuda *c = (GpunbCuda *)calloc(1, sizeof *c);
    if (!c) { snprintf(err, errlen, "out of memory"); return NULL; }
    c->base.ops = &cuda_ops;
    c->base.nmax = nmax;
    c->base.nbmax = nbmax;
    c->ngpu = ngpu;
    c->fp64 = or_default(tn.gpu_fp64, 0) != 0;
    c->target_blocks = imax(or_default(tn.gpu_blocks, TARGET_BLOCKS), 1);
    c->trace = or_default(tn.gpunb_trace, 0) != 0;
    c->jbeg = 0;
    c->jend = nmax;
    c->pend_pos = (int *)malloc(sizeof(int) * (size_t)nmax);
    c->pend_gen = (unsigned *)calloc((size_t)nmax, sizeof(unsigned));
    c->gen = 1;
    c->npend = 0;
    c->eager = or_default(tn.setjp_eager, SETJP_EAGER);
    if (!c->pend_pos || !c->pend_gen) {
        snprintf(err, errlen, "out of memory");
        free(c->pend_pos); free(c->pend_gen); free(c);
        return NULL;
    }
    for (int k = 0; k < ngpu; k++) {
        Dev *d = &c->dev[k];
        d->id = k;
        d->g0 = k * NGROUP / ngpu;
        d->g1 = (k + 1) * NGROUP / ngpu;
        d->L = imin(LIST_CAP0, roundup(nbmax + 1, 16));
        OPEN_CK(cudaSetDevice(k));
        OPEN_CK(cudaStreamCreateWithFlags(&d->st, cudaStreamNonBlocking));
        for (int b = 0; b < 2; b++) OPEN_CK(cudaEventCreateWithFlags(&d->up_done[b], cudaEventDisableTiming));
        for (int q = 0; q < 6; q++) OPEN_CK(cudaEventCreate(&d->ev[q]));
        for (int q = 0; q < 6; q++) OPEN_CK(cudaEventCreate(&d->iev[q]));
        OPEN_CK(cudaMalloc((void **)&d->poly, (size_t)nmax * sizeof(JPoly)));
        OPEN_CK(cudaMemset(d->poly, 0, (size_t)nmax * sizeof(JPoly)));
        OPEN_CK(cudaMalloc((void **)&d->jxh, (size_t)nmax * sizeof(float4)));
        OPEN_CK(cudaMalloc((void **)&d->jxl, (size_t)nmax * sizeof(float4)));
        OPEN_CK(cudaMalloc((void **)&d->jv, (size_t)nmax * sizeof(float4)));
        OPEN_CK(cudaMalloc((void **)&d->jxd, (size_t)nmax * sizeof(dbl4)));
        OPEN_CK(cudaMalloc((void **)&d->jvd, (size_t)nmax * sizeof(dbl4)));
        OPEN_CK(cudaMalloc((void **)&d->d_off, (size_t)NI_CHUNK * sizeof(int)));
        OPEN_CK(cudaMalloc((void **)&d->d_gcnt, (size_t)NGROUP * NI_CHUNK * sizeof(int)));
        size_t hdr = h_layout(NGROUP, NI_CHUNK).total + (size_t)NI_CHUNK * nbmax * sizeof(int);
        OPEN_CK(cudaMalloc((void **)&d->d_hdr, hdr));
        OPEN_CK(cudaHostAlloc((void **)&d->h_hdr, hdr, cudaHostAllocPortable));
        d->hdr_cap = hdr;
    }
    OPEN_CK(cudaSetDevice(0));
    OPEN_CK(cudaEventCreateWithFlags(&c->peer_copied, cudaEventDisableTiming));
    /* direct copies from the other GPUs to GPU 0 where the link allows
     * (cudaMemcpyPeerAsync goes through the host otherwise) */
    for (int k = 1; k < ngpu; k++) {
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, 0, k) == cudaSuccess && can &&
            cudaDeviceEnablePeerAccess(k, 0) != cudaSuccess)
            (void)cudaGetLastError();   /* already enabled: fine */
    }
    c->base.host_threads = ngpu - 1;
    if (ngpu > 1 && !(c->pool = pool_start(c))) {
        snprintf(err, errlen, "gpunb cuda: cannot start the host threads of %d GPUs", ngpu);
        cuda_close(&c->base);
        return NULL;
    }
    return &c->base;
}
