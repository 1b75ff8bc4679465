/* gpunb_impl.h — what a GPUNB backend provides: a table of functions behind
 * the public API of gpunb.h.  Each backend embeds `struct gpunb` as the first
 * member of its own state, so gpunb.c can dispatch without knowing it. */
#ifndef NBODY6C_GPUNB_IMPL_H
#define NBODY6C_GPUNB_IMPL_H

#include "gpunb/gpunb.h"

/* The j-bodies' polynomials as the caller last gave them (gpunb_set_jp),
 * by slot: the host's one copy, written only by the front end (gpunb.c,
 * before it calls the backend's set_jp) and read by the backends.  Held
 * updates (gpunb_hold_jp) reach it at the release. */
typedef struct gpunb_jstore {
    double *t0, *m;
    double (*x)[3], (*v)[3], (*a)[3], (*j)[3];
} gpunb_jstore;

typedef struct gpunb_ops {
    const char *name;
    void (*close)(gpunb *g);
    void (*set_range)(gpunb *g, int jbeg, int jend);
    /* bodies idx changed: g->jp holds them already (unless keeps_poly);
     * the same values are given as arrays */
    void (*set_jp)(gpunb *g, int n, const int *idx, const double *t0,
                   const double (*x)[3], const double (*v)[3],
                   const double (*a)[3], const double (*jerk)[3], const double *m);
    void (*predict)(gpunb *g, double t);
    int (*regf)(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                const double (*x)[3], const double (*v)[3],
                double (*a)[3], double (*jerk)[3], int *nnb, int *list);
    void (*fpoly)(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                  const double (*x)[3], const double (*v)[3],
                  const double (*a)[3], const double (*jerk)[3],
                  double (*d2irr)[3], double (*d3irr)[3],
                  double (*d2reg)[3], double (*d3reg)[3]);
    void (*pot)(gpunb *g, int n, const double *m, const double (*x)[3], double *pot);
    void (*pot_rows)(gpunb *g, int n, const double *m, const double (*x)[3], double *row);
    int (*irrf)(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
                const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3]);
    /* Resident lists (gpunb.h).  A backend that keeps them itself (CUDA:
     * on the GPU, where regf builds them) sets both and keeps regf's lists
     * in its own regf; NULL: the front end keeps them on the host in
     * struct gpunb and hands them to irrf (the CPU backends). */
    void (*set_list)(gpunb *g, int n, const int *idx, const int *nnb, const int *const *lists);
    int (*irrf_res)(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                    double (*a)[3], double (*jerk)[3]);
    /* optional (NULL: the front end calls regf at gpunb_regf_end): start a
     * regular force on the given inputs, and finish it */
    void (*regf_begin)(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                       const double (*x)[3], const double (*v)[3]);
    int (*regf_end)(gpunb *g, double (*a)[3], double (*jerk)[3], int *nnb, int *list);
    /* optional: hold set_jp's updates back (on = 1; returns 1 when the
     * backend does, 0 when the front end must keep them) or let them go
     * (on = 0).  NULL: the front end keeps them. */
    int (*hold)(gpunb *g, int on);
    /* optional (NULL: the front end scans its own resident lists) */
    void (*lists_naming)(gpunb *g, int lo, int hi, const int lab[4], unsigned char *mark);
    /* 1: the backend keeps the polynomials where its kernels read them (the
     * CUDA backend: on each GPU, staged on the host by its set_jp), so the
     * front end keeps no store for it (g->jp NULL) */
    int keeps_poly;
    /* optional (NULL: irrf_res, or the front end's resident lists):
     * gpunb_irrf_members, which may build the i-bodies from its own
     * polynomials (gpunb.h) */
    int (*irrf_members)(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                        double (*a)[3], double (*jerk)[3]);
} gpunb_ops;

struct gpunb {
    const gpunb_ops *ops;
    int nmax, nbmax;
    gpunb_jstore *jp; /* the front end's store (NULL with ops->keeps_poly) */
    int jp_borrowed;  /* jp is another library's (gpunb_share_store) */
    int host_threads; /* threads of its own beside the caller's (0 unless set) */
    /* the front end's resident lists (backends without set_list): nmax rows
     * of nbmax slots and their counts, allocated at the first set_list;
     * lp: irrf_resident's pointers into them */
    int *res_list, *res_nnb;
    const int **res_lp;
    int *res_kn, res_lp_cap;
    /* held set_jp updates (gpunb_hold_jp): on; by the backend itself; else
     * the front end's copies, call by call (calls[c] = end of call c) */
    struct gpunb_held {
        int on, native;
        int n, cap, ncall, call_cap;
        int *idx, *calls;
        double *t0, *m;
        double (*x)[3], (*v)[3], (*a)[3], (*j)[3];
    } held;
    /* a regular force between gpunb_regf_begin and gpunb_regf_end: its inputs */
    struct {
        int on, ni;
        const int *idx;
        const double *h2, *dtr;
        const double (*x)[3], (*v)[3];
    } rf;
};

/* A backend's open sets its ops and sizes here, and the front end's store
 * is made (unless ops->keeps_poly).  Returns 0, or -1 when out of memory
 * (the backend then frees itself: gpunb_close is not called). */
int gpunb_base_init(gpunb *g, const gpunb_ops *ops, int nmax, int nbmax);
void gpunb_base_free(gpunb *g);
/* Library `to` (opened inside `from`'s backend) reads from's store from now
 * on, its own freed: from's set_jp must then call to's ops->set_jp itself. */
void gpunb_share_store(gpunb *to, gpunb *from);

/* Backends.  Each returns NULL with a message in err when it cannot open. */
gpunb *gpunb_cpu_open(int nmax, int nbmax, char *err, size_t errlen);
/* 1 when the CPU has what the AVX-512 builds need (F, DQ, VL, AVX2, FMA):
 * the cpu-simd kernel and cpu-ref's lanes (gpunb_cpu_lanes.h). */
int gpunb_cpu_has_avx512(void);
/* "cpu-simd" (gpunb_cpu_simd.c): AVX-512 or AVX2 kernels, two-float
 * coordinates; NULL with err set when the CPU lacks AVX2 + FMA. */
gpunb *gpunb_cpu_simd_open(int nmax, int nbmax, char *err, size_t errlen);
#ifdef HAVE_CUDA
/* Returns NULL with err set when no usable GPU is present. */
gpunb *gpunb_cuda_open(int nmax, int nbmax, const gpunb_config *cfg, char *err, size_t errlen);
#endif

#endif
