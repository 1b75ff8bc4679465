/* gpunb.c — GPUNB front end: picks the backend (--gpu=auto|off|ref|required) and
 * forwards every call to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpunb/gpunb_impl.h"

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
    gpunb_config def = {GPUNB_AUTO, 0};
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

static void held_free(gpunb *g);

/* ---- the j-body store ---- */

static void jstore_free(gpunb_jstore *js)
{
    if (!js) return;
    free(js->t0); free(js->m); free(js->x); free(js->v); free(js->a); free(js->j);
    free(js);
}

int gpunb_base_init(gpunb *g, const gpunb_ops *ops, int nmax, int nbmax)
{
    g->ops = ops;
    g->nmax = nmax;
    g->nbmax = nbmax;
    g->jp = NULL;
    g->jp_borrowed = 0;
    if (ops->keeps_poly) return 0;
    gpunb_jstore *js = calloc(1, sizeof *js);
    if (!js) return -1;
    size_t n = (size_t)nmax;
    js->t0 = calloc(n, sizeof *js->t0);
    js->m = calloc(n, sizeof *js->m);
    js->x = calloc(n, sizeof *js->x);
    js->v = calloc(n, sizeof *js->v);
    js->a = calloc(n, sizeof *js->a);
    js->j = calloc(n, sizeof *js->j);
    if (!js->t0 || !js->m || !js->x || !js->v || !js->a || !js->j) {
        jstore_free(js);
        return -1;
    }
    g->jp = js;
    return 0;
}

void gpunb_base_free(gpunb *g)
{
    if (!g->jp_borrowed) jstore_free(g->jp);
    g->jp = NULL;
}

void gpunb_share_store(gpunb *to, gpunb *from)
{
    gpunb_base_free(to);
    to->jp = from->jp;
    to->jp_borrowed = 1;
}

/* The store gets the bodies (in parallel for a big block: distinct slots
 * within one call), then the backend is told. */
static void jp_apply(gpunb *g, int n, const int *idx, const double *t0, const double (*x)[3],
                     const double (*v)[3], const double (*a)[3], const double (*jerk)[3], const double *m)
{
    gpunb_jstore *js = g->jp;
    if (js) {
#pragma omp parallel for schedule(static) if (n > 4096)
        for (int k = 0; k < n; k++) {
            const int i = idx[k];
            js->t0[i] = t0[k];
            js->m[i] = m[k];
            memcpy(js->x[i], x[k], sizeof js->x[i]);
            memcpy(js->v[i], v[k], sizeof js->v[i]);
            memcpy(js->a[i], a[k], sizeof js->a[i]);
            memcpy(js->j[i], jerk[k], sizeof js->j[i]);
        }
    }
    g->ops->set_jp(g, n, idx, t0, x, v, a, jerk, m);
}

static void res_free(gpunb *g)
{
    free(g->res_list);
    free(g->res_nnb);
    free((void *)g->res_lp);
    free(g->res_kn);
    g->res_list = g->res_nnb = g->res_kn = NULL;
    g->res_lp = NULL;
}

/* Between gpunb_regf_begin and gpunb_regf_end the backend's buffers and
 * streams belong to the regular force in flight: any other call then is a
 * caller's bug, named here rather than left to give wrong forces. */
static void check_idle(const gpunb *g, const char *call)
{
    if (!g->rf.on) return;
    fprintf(stderr, "gpunb: %s called while a regular force is in flight (gpunb_regf_begin without "
            "gpunb_regf_end)\n", call);
    exit(1);
}

void gpunb_close(gpunb *g)
{
    if (!g) return;
    check_idle(g, "gpunb_close");
    res_free(g);
    held_free(g);
    gpunb_base_free(g);
    g->ops->close(g);
}
const char *gpunb_backend(const gpunb *g) { return g->ops->name; }
int gpunb_host_threads(const gpunb *g) { return g->host_threads; }
void gpunb_set_range(gpunb *g, int jbeg, int jend)
{
    check_idle(g, "gpunb_set_range");
    g->ops->set_range(g, jbeg, jend);
}

/* ---- held set_jp updates (gpunb_hold_jp) ---- */

static void *grow(void *p, size_t size)
{
    void *q = realloc(p, size);
    if (!q) {
        fprintf(stderr, "gpunb: out of memory for held set_jp updates\n");
        exit(1);
    }
    return q;
}

/* the front end's copy of one held set_jp call */
static void held_keep(gpunb *g, int n, const int *idx, const double *t0, const double (*x)[3],
                      const double (*v)[3], const double (*a)[3], const double (*jerk)[3], const double *m)
{
    struct gpunb_held *h = &g->held;
    if (h->n + n > h->cap) {
        int cap = h->n + n + (h->n + n) / 2 + 256;
        h->idx = grow(h->idx, sizeof(int) * (size_t)cap);
        h->t0 = grow(h->t0, sizeof(double) * (size_t)cap);
        h->m = grow(h->m, sizeof(double) * (size_t)cap);
        h->x = grow(h->x, sizeof *h->x * (size_t)cap);
        h->v = grow(h->v, sizeof *h->v * (size_t)cap);
        h->a = grow(h->a, sizeof *h->a * (size_t)cap);
        h->j = grow(h->j, sizeof *h->j * (size_t)cap);
        h->cap = cap;
    }
    if (h->ncall == h->call_cap) {
        h->call_cap = 2 * h->call_cap + 16;
        h->calls = grow(h->calls, sizeof(int) * (size_t)h->call_cap);
    }
    const size_t o = (size_t)h->n;
    memcpy(h->idx + o, idx, sizeof(int) * (size_t)n);
    memcpy(h->t0 + o, t0, sizeof(double) * (size_t)n);
    memcpy(h->m + o, m, sizeof(double) * (size_t)n);
    memcpy(h->x + o, x, sizeof *x * (size_t)n);
    memcpy(h->v + o, v, sizeof *v * (size_t)n);
    memcpy(h->a + o, a, sizeof *a * (size_t)n);
    memcpy(h->j + o, jerk, sizeof *jerk * (size_t)n);
    h->n += n;
    h->calls[h->ncall++] = h->n;
}

static void held_free(gpunb *g)
{
    struct gpunb_held *h = &g->held;
    void *p[] = {h->idx, h->calls, h->t0, h->m, h->x, h->v, h->a, h->j};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
    memset(h, 0, sizeof *h);
}

void gpunb_hold_jp(gpunb *g)
{
    if (g->held.on) {
        fprintf(stderr, "gpunb_hold_jp: updates are held already (holds do not nest)\n");
        exit(1);
    }
    g->held.on = 1;
    g->held.native = g->ops->hold ? g->ops->hold(g, 1) : 0;
    g->held.n = g->held.ncall = 0;
}

void gpunb_release_jp(gpunb *g)
{
    struct gpunb_held *h = &g->held;
    if (!h->on) {
        fprintf(stderr, "gpunb_release_jp without gpunb_hold_jp\n");
        exit(1);
    }
    h->on = 0;
    if (h->native) {
        g->ops->hold(g, 0);
        return;
    }
    /* call by call: the idx of one call are distinct, of two need not be */
    for (int c = 0, o = 0; c < h->ncall; o = h->calls[c++])
        jp_apply(g, h->calls[c] - o, h->idx + o, h->t0 + o, (const double(*)[3])(h->x + o),
                       (const double(*)[3])(h->v + o), (const double(*)[3])(h->a + o),
                       (const double(*)[3])(h->j + o), h->m + o);
    h->n = h->ncall = 0;
}

void gpunb_set_jp(gpunb *g, int n, const int *idx, const double *t0,
                  const double (*x)[3], const double (*v)[3],
                  const double (*a)[3], const double (*jerk)[3], const double *m)
{
    if (g->held.on) {
        if (n <= 0) return;
        if (g->held.native) jp_apply(g, n, idx, t0, x, v, a, jerk, m);
        else held_keep(g, n, idx, t0, x, v, a, jerk, m);
        return;
    }
    check_idle(g, "gpunb_set_jp");
    jp_apply(g, n, idx, t0, x, v, a, jerk, m);
}

void gpunb_predict(gpunb *g, double t)
{
    check_idle(g, "gpunb_predict");
    g->ops->predict(g, t);
}

/* the front end's resident lists: each whole list returned is kept */
static void res_keep_returned(gpunb *g, int ni, const int *idx, const int *nnb, const int *list)
{
    if (g->ops->set_list || !g->res_nnb) return;
    for (int k = 0; k < ni; k++) {
        if (nnb[k] < 0 || idx[k] < 0 || idx[k] >= g->nmax) continue;
        g->res_nnb[idx[k]] = nnb[k];
        memcpy(g->res_list + (size_t)idx[k] * g->nbmax, list + (size_t)k * g->nbmax,
               sizeof(int) * (size_t)nnb[k]);
    }
}

void gpunb_regf_begin(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                      const double (*x)[3], const double (*v)[3])
{
    check_idle(g, "gpunb_regf_begin");
    g->rf.ni = ni;
    g->rf.idx = idx;
    g->rf.h2 = h2;
    g->rf.dtr = dtr;
    g->rf.x = x;
    g->rf.v = v;
    if (g->ops->regf_begin) g->ops->regf_begin(g, ni, idx, h2, dtr, x, v);
    g->rf.on = 1;
}

int gpunb_regf_end(gpunb *g, double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    if (!g->rf.on) {
        fprintf(stderr, "gpunb: gpunb_regf_end without gpunb_regf_begin\n");
        exit(1);
    }
    g->rf.on = 0;
    int over = g->ops->regf_end ? g->ops->regf_end(g, a, jerk, nnb, list)
                                : g->ops->regf(g, g->rf.ni, g->rf.idx, g->rf.h2, g->rf.dtr, g->rf.x, g->rf.v,
                                               a, jerk, nnb, list);
    res_keep_returned(g, g->rf.ni, g->rf.idx, nnb, list);
    return over;
}

int gpunb_regf(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
               const double (*x)[3], const double (*v)[3],
               double (*a)[3], double (*jerk)[3], int *nnb, int *list)
{
    gpunb_regf_begin(g, ni, idx, h2, dtr, x, v);
    return gpunb_regf_end(g, a, jerk, nnb, list);
}

void gpunb_fpoly(gpunb *g, int ni, const int *idx, const double *h2, const double *dtr,
                 const double (*x)[3], const double (*v)[3],
                 const double (*a)[3], const double (*jerk)[3],
                 double (*d2irr)[3], double (*d3irr)[3],
                 double (*d2reg)[3], double (*d3reg)[3])
{
    check_idle(g, "gpunb_fpoly");
    g->ops->fpoly(g, ni, idx, h2, dtr, x, v, a, jerk, d2irr, d3irr, d2reg, d3reg);
}

void gpunb_pot(gpunb *g, int n, const double *m, const double (*x)[3], double *pot)
{
    check_idle(g, "gpunb_pot");
    g->ops->pot(g, n, m, x, pot);
}

void gpunb_pot_rows(gpunb *g, int n, const double *m, const double (*x)[3], double *row)
{
    check_idle(g, "gpunb_pot_rows");
    if (n > 0) g->ops->pot_rows(g, n, m, x, row);
}

int gpunb_irrf(gpunb *g, int ni, const double (*x)[3], const double (*v)[3],
               const int *nnb, const int *const *lists, double (*a)[3], double (*jerk)[3])
{
    check_idle(g, "gpunb_irrf");
    if (ni <= 0) return 0;
    return g->ops->irrf(g, ni, x, v, nnb, lists, a, jerk);
}

/* ---- resident lists kept by the front end (backends without set_list) ---- */

static void res_oom(void)
{
    fprintf(stderr, "gpunb: out of memory for the resident neighbour lists\n");
    exit(1);
}

static void res_alloc(gpunb *g)
{
    if (g->res_nnb) return;
    g->res_list = malloc(sizeof(int) * (size_t)g->nmax * g->nbmax);
    g->res_nnb = calloc((size_t)g->nmax, sizeof(int));   /* every list empty */
    if (!g->res_list || !g->res_nnb) res_oom();
}

void gpunb_set_list(gpunb *g, int n, const int *idx, const int *nnb, const int *const *lists)
{
    check_idle(g, "gpunb_set_list");
    for (int k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= g->nmax || nnb[k] < 0 || nnb[k] > g->nbmax) {
            /* a caller's bug: a list that cannot be kept would give wrong forces later */
            fprintf(stderr, "gpunb_set_list: slot %d with %d entries (nmax %d, nbmax %d)\n", idx[k], nnb[k],
                    g->nmax, g->nbmax);
            exit(1);
        }
    if (g->ops->set_list) {
        g->ops->set_list(g, n, idx, nnb, lists);   /* n = 0 too: the lists exist from now on */
        return;
    }
    res_alloc(g);
    for (int k = 0; k < n; k++) {
        g->res_nnb[idx[k]] = nnb[k];
        memcpy(g->res_list + (size_t)idx[k] * g->nbmax, lists[k], sizeof(int) * (size_t)nnb[k]);
    }
}

void gpunb_lists_naming(gpunb *g, int lo, int hi, int nlab, const int *labs, unsigned char *mark)
{
    check_idle(g, "gpunb_lists_naming");
    if (lo < 0 || hi > g->nmax || nlab < 0 || nlab > 4) {
        fprintf(stderr, "gpunb_lists_naming: rows [%d, %d) of %d, %d labels (at most 4)\n", lo, hi, g->nmax, nlab);
        exit(1);
    }
    if (hi <= lo) return;
    int lab[4] = {-1, -1, -1, -1};
    for (int q = 0; q < nlab; q++) lab[q] = labs[q] >= 0 ? labs[q] : -1;
    if (g->ops->lists_naming) {
        g->ops->lists_naming(g, lo, hi, lab, mark);
        return;
    }
    res_alloc(g);
#pragma omp parallel for schedule(static) if (hi - lo > 4096)
    for (int b = lo; b < hi; b++) {
        const int *l = g->res_list + (size_t)b * g->nbmax;
        unsigned bits = 0;
        for (int q = 0; q < g->res_nnb[b]; q++)
            bits |= (unsigned)(l[q] == lab[0]) | (unsigned)(l[q] == lab[1]) << 1 | (unsigned)(l[q] == lab[2]) << 2 |
                    (unsigned)(l[q] == lab[3]) << 3;
        mark[b - lo] = (unsigned char)bits;
    }
}

/* A slot outside the library's bodies is a caller's bug: named, exit 1. */
static void check_slots(const gpunb *g, const char *call, int ni, const int *idx)
{
    for (int k = 0; k < ni; k++)
        if (idx[k] < 0 || idx[k] >= g->nmax) {
            fprintf(stderr, "%s: slot %d outside [0, %d)\n", call, idx[k], g->nmax);
            exit(1);
        }
}

int gpunb_irrf_resident(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                        double (*a)[3], double (*jerk)[3])
{
    check_idle(g, "gpunb_irrf_resident");
    if (ni <= 0) return 0;
    check_slots(g, "gpunb_irrf_resident", ni, idx);
    if (g->ops->irrf_res) return g->ops->irrf_res(g, ni, idx, x, v, a, jerk);
    res_alloc(g);
    if (ni > g->res_lp_cap) {
        free((void *)g->res_lp);
        free(g->res_kn);
        g->res_lp = malloc(sizeof(int *) * (size_t)ni);
        g->res_kn = malloc(sizeof(int) * (size_t)ni);
        if (!g->res_lp || !g->res_kn) res_oom();
        g->res_lp_cap = ni;
    }
    for (int k = 0; k < ni; k++) {
        g->res_kn[k] = g->res_nnb[idx[k]];
        g->res_lp[k] = g->res_list + (size_t)idx[k] * g->nbmax;
    }
    return g->ops->irrf(g, ni, x, v, g->res_kn, g->res_lp, a, jerk);
}

int gpunb_irrf_members(gpunb *g, int ni, const int *idx, const double (*x)[3], const double (*v)[3],
                       double (*a)[3], double (*jerk)[3])
{
    if (ni > 0 && g->ops->irrf_members) {
        check_idle(g, "gpunb_irrf_members");
        check_slots(g, "gpunb_irrf_members", ni, idx);
        return g->ops->irrf_members(g, ni, idx, x, v, a, jerk);
    }
    return gpunb_irrf_resident(g, ni, idx, x, v, a, jerk);
}
