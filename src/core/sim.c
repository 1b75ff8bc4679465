/* sim.c — allocation of a run's state. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "common/predict.h"
#include "core/sim.h"

/* The per-body arrays are read at random (neighbours, block members) and
 * the lists span N x NBMAX ints (350 MB at 128k): on 4 kB pages nearly
 * every access also misses the TLB.  glibc serves arrays this large from
 * fresh mappings, so advising them before the first touch lets the kernel
 * fault them in as 2 MB pages where transparent huge pages are "madvise"
 * only (the GPU machines).  Advice, not a requirement: ignored elsewhere. */
static void advise_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20, page = 4096;
    if (bytes < 2 * huge) return;
    uintptr_t lo = ((uintptr_t)p + page - 1) / page * page, hi = ((uintptr_t)p + bytes) / page * page;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

#define ALLOC(ptr, count)                                                        \
    do {                                                                         \
        (ptr) = calloc((size_t)(count), sizeof *(ptr));                          \
        if (!(ptr)) goto nomem;                                                  \
        advise_huge_pages((ptr), (size_t)(count) * sizeof *(ptr));               \
    } while (0)

sim *sim_create(const params *p, const tide *td, int n, const double *m, const double (*x)[3],
                const double (*v)[3], char *err, size_t errlen)
{
    sim *s = calloc(1, sizeof *s);
    if (!s) goto nomem;
    s->p = *p;
    s->n = n;
    s->nzero = n;
    s->npairs = 0;
    s->ifirst = 0;
    s->ntot = n;
    s->cap = n + n / 2 + 1; /* room for the c.m. bodies of KS pairs */
    s->nbmax = s->p.nbmax;
    int c = s->cap;
    ALLOC(s->name, c);
    ALLOC(s->m, c);
    ALLOC(s->x0, c); ALLOC(s->v0, c); ALLOC(s->x, c); ALLOC(s->v, c);
    ALLOC(s->tpred, c);
    ALLOC(s->a, c); ALLOC(s->j, c);
    ALLOC(s->fi, c); ALLOC(s->fid, c); ALLOC(s->d2, c); ALLOC(s->d3, c);
    ALLOC(s->fr, c); ALLOC(s->frd, c); ALLOC(s->d2r, c); ALLOC(s->d3r, c);
    ALLOC(s->t0, c); ALLOC(s->t0r, c); ALLOC(s->dt, c); ALLOC(s->dtr, c);
    ALLOC(s->rs, c);
    ALLOC(s->nnb, c);
    ALLOC(s->list, (size_t)c * s->nbmax);
    s->mtot = 0.0;
    for (int i = 0; i < n; i++) {
        s->name[i] = i + 1;
        s->m[i] = m[i];
        s->mtot += m[i];
        for (int k = 0; k < 3; k++) {
            s->x0[i][k] = s->x[i][k] = x[i][k];
            s->v0[i][k] = s->v[i][k] = v[i][k];
        }
    }
    s->mmean = s->mtot / n;
    s->nnbmax = s->p.nnbmax0;
    s->znbmax = 0.9 * s->nnbmax;
    s->znbmin = 0.2 * s->nnbmax;
    s->smin = 2.0 * s->p.dtmin;
    if (td) s->tide = *td;
    if (sim_coriolis_cache(s)) goto nomem;
    return s;
nomem:
    snprintf(err, errlen, "out of memory allocating %d bodies with lists of %d", n, p->nbmax);
    sim_free(s);
    return NULL;
}

int sim_coriolis_cache(sim *s)
{
    if (!tide_on(&s->tide) || s->tcor) return 0;
    int c = s->cap;
    ALLOC(s->vcor, c); ALLOC(s->acor, c); ALLOC(s->tcor, c);
    for (int i = 0; i < c; i++) s->tcor[i] = NAN;
    return 0;
nomem:
    free(s->vcor); free(s->acor); free(s->tcor);
    s->vcor = s->acor = NULL;
    s->tcor = NULL;
    return -1;
}

void sim_free(sim *s)
{
    if (!s) return;
    void *p[] = {s->name, s->m, s->x0, s->v0, s->x, s->v, s->tpred, s->a, s->j,
                 s->fi, s->fid, s->d2, s->d3, s->fr, s->frd, s->d2r, s->d3r,
                 s->t0, s->t0r, s->dt, s->dtr, s->rs, s->nnb, s->list,
                 s->vcor, s->acor, s->tcor};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
    free(s);
}

void sim_predict_one(const sim *s, int i, double t, double x[3], double v[3])
{
    double tau = s->t0[i] - s->t0r[i], dt = t - s->t0[i];
    if (dt == 0.0) {
        memcpy(x, s->x0[i], sizeof(vec3));
        memcpy(v, s->v0[i], sizeof(vec3));
        return;
    }
    double a[3], j[3], a2[3], a3[3];
    /* the regular part carried from t0r to t0 by its own Taylor series */
    for (int c = 0; c < 3; c++) {
        double fr = s->fr[i][c] + tau * (s->frd[i][c] + tau * (s->d2r[i][c] / 2 + tau * s->d3r[i][c] / 6));
        double frd = s->frd[i][c] + tau * (s->d2r[i][c] + tau * s->d3r[i][c] / 2);
        double d2r = s->d2r[i][c] + tau * s->d3r[i][c];
        a[c] = s->fi[i][c] + fr;
        j[c] = s->fid[i][c] + frd;
        a2[c] = s->d2[i][c] + d2r;
        a3[c] = s->d3[i][c] + s->d3r[i][c];
    }
    predict5(dt, s->x0[i], s->v0[i], a, j, a2, a3, x, v);
}

void sim_predict_all(const sim *s, vec3 *x, vec3 *v)
{
#pragma omp parallel for schedule(static)
    for (int i = s->ifirst; i < s->ntot; i++) sim_predict_one(s, i, s->time, x[i], v[i]);
}

void sim_event(const sim *s, int echo, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (s->event_sink)
        s->event_sink(s->event_ctx, line, echo);
    else if (echo)
        fprintf(stderr, "nbody6c: %s\n", line);
}
