/* reorder.c — the single bodies' slots renumbered in space-filling-curve
 * (Morton) order of their positions, at energy checks.
 *
 * Why: the irregular force and the prediction of neighbours read the
 * bodies' records in list order, and with slots in random order of position
 * every neighbour is a cache miss.  With slots in Morton order a body's
 * neighbours, and the neighbours of the next body of a block, sit in nearby
 * memory.  Bodies diffuse, so the order is renewed at every check.
 *
 * What moves: every per-body array of struct sim for the singles
 * [ifirst, n) (KS components and c.m. bodies keep their NBODY6 places),
 * names with them; every neighbour list and KS perturber list is renamed
 * and kept ascending; the force libraries get every body again; the
 * schedule starts afresh.  Nothing physical changes, only the order in
 * which later sums run (so results stay deterministic, and a restart from a
 * checkpoint written after the renumbering continues the same run). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block.h"
#include "ks_state.h"
#include "reorder.h"
#include "startup.h"

/* 21 bits of each coordinate interleaved. */
static uint64_t spread21(uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

typedef struct keyed { uint64_t key; int slot; } keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* new slot of each old slot (identity outside [lo, hi)), from the Morton
 * order of x0 within the singles' bounding box */
static int morton_map(const sim *s, int lo, int hi, int *map)
{
    int n = hi - lo;
    keyed *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
    if (!k) return -1;
    double bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = lo; i < hi; i++)
        for (int c = 0; c < 3; c++) {
            bmin[c] = fmin(bmin[c], s->x0[i][c]);
            bmax[c] = fmax(bmax[c], s->x0[i][c]);
        }
    double span = fmax(fmax(bmax[0] - bmin[0], bmax[1] - bmin[1]), bmax[2] - bmin[2]);
    double scale = span > 0.0 ? 2097151.0 / span : 0.0;
    for (int i = lo; i < hi; i++) {
        uint64_t key = 0;
        for (int c = 0; c < 3; c++) key |= spread21((uint64_t)((s->x0[i][c] - bmin[c]) * scale)) << c;
        k[i - lo] = (keyed){key, i};
    }
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    for (int i = 0; i < s->cap; i++) map[i] = i;
    for (int q = 0; q < n; q++) map[k[q].slot] = lo + q;
    free(k);
    return 0;
}

/* A[new] = A[old] for every slot of [lo, hi); elements of `size` bytes. */
static void permute(void *base, size_t size, int lo, int hi, const int *map, char *tmp)
{
    char *a = base;
    for (int i = lo; i < hi; i++) memcpy(tmp + (size_t)(map[i] - lo) * size, a + (size_t)i * size, size);
    memcpy(a + (size_t)lo * size, tmp, (size_t)(hi - lo) * size);
}

static void rename_list(int *l, int n, const int *map)
{
    for (int q = 0; q < n; q++) l[q] = map[l[q]];
    qsort(l, (size_t)n, sizeof *l, cmp_int);
}

int reorder_singles(sim *s)
{
    const int lo = s->ifirst, hi = s->n;
    if (hi - lo < 2) return 0;
    int *map = malloc(sizeof(int) * (size_t)s->cap);
    char *tmp = malloc((size_t)(hi - lo) * sizeof(int) * (size_t)s->nbmax + (size_t)(hi - lo) * sizeof(vec3));
    if (!map || !tmp || morton_map(s, lo, hi, map)) {
        free(map);
        free(tmp);
        return -1;
    }
    /* every per-body array of struct sim (sim.h) */
    vec3 *v3[] = {s->x0, s->v0, s->x, s->v, s->a, s->j, s->fi, s->fid, s->d2, s->d3,
                  s->fr, s->frd, s->d2r, s->d3r};
    for (size_t q = 0; q < sizeof v3 / sizeof v3[0]; q++) permute(v3[q], sizeof(vec3), lo, hi, map, tmp);
    double *d1[] = {s->m, s->tpred, s->t0, s->t0r, s->dt, s->dtr, s->rs};
    for (size_t q = 0; q < sizeof d1 / sizeof d1[0]; q++) permute(d1[q], sizeof(double), lo, hi, map, tmp);
    permute(s->name, sizeof(int), lo, hi, map, tmp);
    permute(s->nnb, sizeof(int), lo, hi, map, tmp);
    permute(s->list, sizeof(int) * (size_t)s->nbmax, lo, hi, map, tmp);
#pragma omp parallel for schedule(static)
    for (int i = s->ifirst; i < s->ntot; i++) rename_list(sim_list(s, i), s->nnb[i], map);
    if (s->ks)
        for (int k = 0; k < s->npairs; k++) rename_list(s->ks->pair[k].plist, s->ks->pair[k].np, map);
    /* the libraries: every body and list again (as after a restart) */
    startup_send_all(s);
    for (int i = s->ifirst; i < s->ntot; i++) gpuirr_set_list(s->irr, i, s->nnb[i], sim_list(s, i));
    block_reschedule(s->bs);
    free(map);
    free(tmp);
    return 0;
}
