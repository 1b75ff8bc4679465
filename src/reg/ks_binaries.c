/* ks_binaries.c — every bound pair of stars at s->time, regularised or not
 * (the binary list of outputs and the log's counts; NBODY6's bdat.9 lists
 * its KS pairs only, which leaves out the wide primordial binaries that
 * never come closer than RMIN).
 *
 * A pair is: a KS pair of two stars with negative two-body energy; the
 * inner pair of a merged hierarchy (its frozen orbit); two chain members,
 * most bound first, each in one pair; or two single bodies each other's
 * nearest neighbour on their neighbour lists, with negative two-body energy
 * and an apocentre within half the distance to the next body (field_pairs).
 * A list holds every body within the neighbour radius, so a companion
 * closer than that is always seen; a single whose nearest neighbour is a
 * pair's c.m. (a triple) is left out, as is the outer orbit of a merged
 * hierarchy (a star about a binary, not a pair of stars). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The orbit of two bodies from their relative state; 0 when bound. */
static int two_body(double m1, double m2, const double x1[3], const double v1[3],
                    const double x2[3], const double v2[3], ks_binary *b)
{
    const double M = m1 + m2;
    double r[3], w[3];
    for (int c = 0; c < 3; c++) {
        r[c] = x1[c] - x2[c];
        w[c] = v1[c] - v2[c];
        b->xcm[c] = (m1 * x1[c] + m2 * x2[c]) / M;
    }
    const double rr = sqrt(dot3(r, r)), w2 = dot3(w, w), rw = dot3(r, w);
    const double inv_a = 2.0 / rr - w2 / M;
    if (!(rr > 0.0) || !(inv_a > 0.0)) return -1;
    b->m1 = m1;
    b->m2 = m2;
    b->r = rr;
    b->a = 1.0 / inv_a;
    const double e2 = (1.0 - rr * inv_a) * (1.0 - rr * inv_a) + rw * rw * inv_a / M;
    b->e = sqrt(fmax(e2, 0.0));
    b->eb = -0.5 * m1 * m2 * inv_a;
    return 0;
}

typedef struct blist {
    ks_binary *b;
    int n, cap;
} blist;

static ks_binary *next_slot(blist *L)
{
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 64;
        ks_binary *nb = realloc(L->b, sizeof(ks_binary) * (size_t)cap);
        if (!nb) return NULL;
        L->b = nb;
        L->cap = cap;
    }
    ks_binary *b = &L->b[L->n];
    memset(b, 0, sizeof *b);
    return b;
}

/* A single star at slot i: a body of the cluster that is one star (not a
 * pair's c.m., the chain's c.m. or a ghost, not a merged inner pair). */
static int is_single(const sim *s, int i)
{
    return i >= s->ifirst && i < s->n && s->name[i] > 0 && s->m[i] > 0.0 &&
           !(s->ks && s->ks->ch.active && i == s->ks->ch.icm);
}

/* Each single's nearest body on its list (any kind), or -1, and the
 * distance to its second nearest (INFINITY when it lists one body). */
static void nearest_listed(const sim *s, const vec3 *x, int *nn, double *d2nd)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (int i = s->ifirst; i < s->ntot; i++) {
        nn[i] = -1;
        d2nd[i] = INFINITY;
        if (!is_single(s, i)) continue;
        const int *L = sim_list(s, i);
        double best = INFINITY, second = INFINITY;
        for (int q = 0; q < s->nnb[i]; q++) {
            const int j = L[q];
            if (j == i || s->m[j] <= 0.0) continue;
            const double d[3] = {x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]};
            const double d2 = dot3(d, d);
            if (d2 < best) {
                second = best;
                best = d2;
                nn[i] = j;
            } else if (d2 < second) {
                second = d2;
            }
        }
        d2nd[i] = sqrt(second);
    }
}

/* Two singles, each the other's nearest listed body, bound, and apart from
 * the rest: the orbit's apocentre within half the distance from either to
 * its next body (a chance pair of a dense region, whose orbit a third body
 * crosses, is not a binary). */
static int field_pairs(const sim *s, const vec3 *x, const vec3 *v, blist *L)
{
    int *nn = malloc(sizeof(int) * (size_t)s->cap);
    double *d2nd = malloc(sizeof(double) * (size_t)s->cap);
    int rc = -1;
    if (!nn || !d2nd) goto done;
    nearest_listed(s, x, nn, d2nd);
    for (int i = s->ifirst; i < s->n; i++) {
        const int j = nn[i];
        if (j <= i || !is_single(s, j) || nn[j] != i) continue;
        ks_binary b;
        if (two_body(s->m[i], s->m[j], x[i], v[i], x[j], v[j], &b)) continue;
        if (b.a * (1.0 + b.e) >= 0.5 * fmin(d2nd[i], d2nd[j])) continue;
        ks_binary *o = next_slot(L);
        if (!o) goto done;
        *o = b;
        o->name1 = s->name[i];
        o->name2 = s->name[j];
        o->kind = KS_BIN_FIELD;
        L->n++;
    }
    rc = 0;
done:
    free(nn);
    free(d2nd);
    return rc;
}

/* KS pairs of two stars: their resolved components (ks_physical_state). */
static int ks_pairs(const sim *s, const vec3 *xo, const vec3 *vo, blist *L)
{
    for (int k = 0; k < s->npairs; k++) {
        const int i1 = 2 * k, i2 = 2 * k + 1;
        if (s->name[i1] <= 0 || s->name[i2] <= 0) continue; /* a merged hierarchy's outer orbit */
        ks_binary b;
        if (two_body(s->m[i1], s->m[i2], xo[i1], vo[i1], xo[i2], vo[i2], &b)) continue;
        ks_binary *o = next_slot(L);
        if (!o) return -1;
        *o = b;
        o->name1 = s->name[i1];
        o->name2 = s->name[i2];
        o->kind = KS_BIN_KS;
        L->n++;
    }
    return 0;
}

/* Merged inner pairs: the orbit frozen at the merge, about the c.m. body. */
static int merged_pairs(const sim *s, const vec3 *x, blist *L)
{
    for (int g = 0; g < s->ks->nmerge; g++) {
        const ks_merger *mg = &s->ks->mg[g];
        int icm = -1; /* the inner pair's c.m. body */
        for (int i = 0; i < s->ntot && icm < 0; i++)
            if (s->name[i] == -mg->name1 && s->m[i] > 0.0) icm = i;
        ks_binary *o = next_slot(L);
        if (!o) return -1;
        o->name1 = mg->name1;
        o->name2 = mg->name2;
        o->m1 = mg->m1;
        o->m2 = mg->m2;
        o->a = mg->ain;
        o->e = mg->ein_e;
        o->eb = -0.5 * mg->m1 * mg->m2 / mg->ain;
        o->r = sqrt(dot3(mg->q, mg->q));
        if (icm >= 0) memcpy(o->xcm, x[icm], sizeof o->xcm);
        o->kind = KS_BIN_MERGED;
        L->n++;
    }
    return 0;
}

/* Chain members: the most bound pair first, each member in one pair. */
static int chain_pairs(const sim *s, const vec3 *xo, const vec3 *vo, blist *L)
{
    const ks_chain *ch = &s->ks->ch;
    if (!ch->active) return 0;
    int used[CHAIN_NMAX] = {0};
    for (;;) {
        ks_binary best, b;
        int bi = -1, bj = -1;
        for (int i = 0; i < ch->c.n; i++)
            for (int j = i + 1; j < ch->c.n; j++) {
                if (used[i] || used[j]) continue;
                const int si = ch->slot[i], sj = ch->slot[j];
                if (two_body(ch->c.m[i], ch->c.m[j], xo[si], vo[si], xo[sj], vo[sj], &b)) continue;
                if (bi < 0 || b.eb < best.eb) {
                    best = b;
                    bi = i;
                    bj = j;
                }
            }
        if (bi < 0) return 0;
        used[bi] = used[bj] = 1;
        ks_binary *o = next_slot(L);
        if (!o) return -1;
        *o = best;
        o->name1 = (int)ch->c.id[bi];
        o->name2 = (int)ch->c.id[bj];
        o->kind = KS_BIN_CHAIN;
        L->n++;
    }
}

double ks_hard_energy(const sim *s)
{
    return s->ks ? s->ks->ebh : -0.5 * s->mmean * s->p.eclose;
}

int ks_binaries(sim *s, ks_binary **out)
{
    *out = NULL;
    const size_t cap = (size_t)(s->cap > 0 ? s->cap : 1);
    vec3 *x = malloc(sizeof(vec3) * cap), *v = malloc(sizeof(vec3) * cap);
    vec3 *xo = malloc(sizeof(vec3) * cap), *vo = malloc(sizeof(vec3) * cap);
    double *mo = malloc(sizeof(double) * cap);
    blist L = {0};
    int rc = -1;
    if (!x || !v || !xo || !vo || !mo) goto done;
    sim_predict_all(s, x, v);
    if (s->ks) {
        double mutual;
        ks_physical_state(s, (const double(*)[3])x, (const double(*)[3])v, mo, xo, vo, &mutual);
        if (ks_pairs(s, xo, vo, &L) || merged_pairs(s, x, &L) || chain_pairs(s, xo, vo, &L)) goto done;
    }
    if (field_pairs(s, x, v, &L)) goto done;
    rc = 0;
done:
    free(x);
    free(v);
    free(xo);
    free(vo);
    free(mo);
    if (rc) {
        free(L.b);
        return -1;
    }
    *out = L.b;
    return L.n;
}
