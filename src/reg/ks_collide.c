/* ks_collide.c — stellar collisions found where the dynamics sees the
 * closest approaches (ks.h): a KS pair's pericentre, the chain's steps,
 * the frozen inner orbit of a merged hierarchy.  Two stars collide when
 * they come closer than NBODY6's distance (Kochanek 1992, as its ksint.f:
 * below), from their radii (s->star_radius, set by evol/ under stellar
 * evolution).  This file only finds them; evol/ merges them
 * after the block (ks_star.c's ks_star_merge does the dynamics). */
#include <math.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "reg/ks_transform.h"

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The radius of the star named `name`; 0 for anything that is not a star
 * (c.m. bodies, ghosts). */
static double radius_of(const sim *s, int name)
{
    return s->star_radius && name >= 1 && name <= s->nzero ? s->star_radius[name - 1] : 0.0;
}

/* The distance within which stars a and b (masses ma, mb) merge: 1.7
 * (M / 2 m1)^(1/3) R1, R1 and m1 the radius and mass of the larger star
 * (1.7 R for two equal stars, where the sum of the radii is 2 R); 0 when
 * neither is a star. */
static double collision_distance(const sim *s, int a, double ma, int b, double mb)
{
    const double ra = radius_of(s, a), rb = radius_of(s, b);
    const double r1 = ra >= rb ? ra : rb, m1 = ra >= rb ? ma : mb;
    if (!(r1 > 0.0) || !(m1 > 0.0)) return 0.0;
    return 1.7 * cbrt(0.5 * (ma + mb) / m1) * r1;
}

/* The two-body pericentre distance of relative state (q, v) under total
 * mass M: L^2 / (M (1 + e)), valid for every conic (a(1 - e) loses its
 * digits near the parabola). */
static double pericentre(double M, const double q[3], const double v[3])
{
    double l[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
    double r = sqrt(dot3(q, q)), v2 = dot3(v, v), rv = dot3(q, v), ev[3];
    for (int c = 0; c < 3; c++) ev[c] = ((v2 - M / r) * q[c] - rv * v[c]) / M;
    return dot3(l, l) / (M * (1.0 + sqrt(dot3(ev, ev))));
}

/* Notes stars a and b (once: a pair may pass another pericentre before
 * the block ends). */
static void note(sim *s, int a, int b, double q, int where)
{
    ks_state *ks = s->ks;
    for (int k = 0; k < ks->ncoll; k++)
        if ((ks->coll[k].name1 == a && ks->coll[k].name2 == b) ||
            (ks->coll[k].name1 == b && ks->coll[k].name2 == a))
            return;
    if (ks->ncoll == KS_COLL_MAX) return; /* the rest is found at a later passage */
    ks->coll[ks->ncoll++] = (ks_coll){a, b, q, where};
}

void ks_collide_pair(sim *s, int k)
{
    const int a = s->name[2 * k], b = s->name[2 * k + 1];
    if (ks_pair_merged(s, k)) return;
    const double rc = collision_distance(s, a, s->m[2 * k], b, s->m[2 * k + 1]);
    if (!(rc > 0.0)) return;
    const ks_orbit *o = &s->ks->pair[k].o;
    double q[3], v[3];
    ks_to_rel(o->u, o->up, q, v);
    const double qp = pericentre(o->m, q, v);
    if (qp < rc) note(s, a, b, qp, KS_COLL_PAIR);
}

int ks_collide_chain_stop(void *ctx, const chain *c)
{
    sim *s = ctx;
    double x[CHAIN_NMAX][3], v[CHAIN_NMAX][3];
    chain_get_state(c, x, v);
    for (int i = 0; i < c->n; i++)
        for (int j = i + 1; j < c->n; j++) {
            const int a = (int)c->id[i], b = (int)c->id[j];
            const double rc = collision_distance(s, a, c->m[i], b, c->m[j]);
            if (!(rc > 0.0)) continue;
            double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
            double w[3] = {v[i][0] - v[j][0], v[i][1] - v[j][1], v[i][2] - v[j][2]};
            const double r = sqrt(dot3(d, d));
            /* touching now, or about to touch / just touched at the
             * pericentre of the two-body orbit, which is close enough to
             * hold over the part of the orbit a few radii across (the
             * chain's steps shrink with the distance, so one falls there) */
            if (r < rc) {
                note(s, a, b, r, KS_COLL_CHAIN);
            } else if (r < 3.0 * rc) {
                const double qp = pericentre(c->m[i] + c->m[j], d, w);
                if (qp < rc) note(s, a, b, qp, KS_COLL_CHAIN);
            }
        }
    return 0;
}

void ks_collide_mergers(sim *s)
{
    if (!s->ks || !s->star_radius) return;
    for (int k = 0; k < s->ks->nmerge; k++) {
        const ks_merger *g = &s->ks->mg[k];
        const double rc = collision_distance(s, g->name1, g->m1, g->name2, g->m2);
        if (!(rc > 0.0)) continue;
        const double qp = pericentre(g->m1 + g->m2, g->q, g->qd);
        if (qp < rc) note(s, g->name1, g->name2, qp, KS_COLL_MERGED);
    }
}

int ks_collisions_take(sim *s, ks_coll *out, int max)
{
    if (!s->ks) return 0;
    int n = s->ks->ncoll < max ? s->ks->ncoll : max;
    for (int k = 0; k < n; k++) out[k] = s->ks->coll[k];
    for (int k = n; k < s->ks->ncoll; k++) s->ks->coll[k - n] = s->ks->coll[k];
    s->ks->ncoll -= n;
    return n;
}

int ks_collisions_pending(const sim *s, const ks_coll **out)
{
    *out = s->ks ? s->ks->coll : NULL;
    return s->ks ? s->ks->ncoll : 0;
}

void ks_collisions_restore(sim *s, const ks_coll *c, int n)
{
    if (!s->ks) return;
    s->ks->ncoll = n < KS_COLL_MAX ? n : KS_COLL_MAX;
    for (int k = 0; k < s->ks->ncoll; k++) s->ks->coll[k] = c[k];
}
