/* escape.c — escaper removal (KZ(23)): the candidates, the force
 * corrections of the bodies that stay, the compaction of the slots and the
 * energy booked (escape.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "escape.h"
#include "ks.h"
#include "ks_state.h"

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double escape_radius(const sim *s)
{
    double rtide = tide_on(&s->tide) ? tide_radius(&s->tide, s->mtot) : 10.0 * s->rscale;
    return 2.0 * rtide;
}

/* Bodies that are not escape candidates of their own: ghosts, the chain's
 * c.m. and merged hierarchies. */
static int excluded(const sim *s, int i)
{
    if (!(s->m[i] > 0.0)) return 1;
    if (s->ks && s->ks->ch.active && i == s->ks->ch.icm) return 1;
    if (i >= s->n && ks_pair_merged(s, i - s->n)) return 1;
    return 0;
}

/* The candidate's energy against the rest (per its mass times m), the
 * nearest other body's distance; x, v: every body predicted to s->time. */
static double body_energy(const sim *s, int i, const vec3 *x, const vec3 *v, double *nearest)
{
    double phi = 0.0, dmin = INFINITY;
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || !(s->m[j] > 0.0)) continue;
        double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
        double r = sqrt(dot3(d, d));
        phi += s->m[j] / r;
        dmin = fmin(dmin, r);
    }
    *nearest = dmin;
    double e = s->m[i] * (0.5 * dot3(v[i], v[i]) - phi);
    if (tide_on(&s->tide)) e += tide_potential_energy(&s->tide, s->m[i], x[i]);
    return e;
}

/* The escaper at slot i leaves the force polynomials of the others: its
 * force and jerk at the current time come off the part (irregular when it
 * is on the list, else regular) and the predictor's total. */
static void remove_force_of(sim *s, int i, const vec3 *x, const vec3 *v)
{
#pragma omp parallel for schedule(static)
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || !(s->m[j] > 0.0)) continue;
        double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
        double w[3] = {v[i][0] - v[j][0], v[i][1] - v[j][1], v[i][2] - v[j][2]};
        double r2 = dot3(d, d), rv = dot3(d, w), mr3 = s->m[i] / (r2 * sqrt(r2));
        double f[3], fd[3];
        for (int c = 0; c < 3; c++) {
            f[c] = mr3 * d[c];
            fd[c] = mr3 * (w[c] - 3.0 * rv / r2 * d[c]);
        }
        int listed = ks_sorted_has(sim_list(s, j), s->nnb[j], i);
        for (int c = 0; c < 3; c++) {
            if (listed) {
                s->fi[j][c] -= f[c];
                s->fid[j][c] -= fd[c];
            } else {
                s->fr[j][c] -= f[c];
                s->frd[j][c] -= fd[c];
            }
            s->a[j][c] -= f[c];
            s->j[j][c] -= fd[c];
        }
    }
}

/* A single at slot i leaves: moved to the last slot past the c.m. bodies
 * (each c.m. moves down one, as N does), dropped from every list. */
static void compact_out(sim *s, int i)
{
    ks_state *ks = s->ks;
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    for (int a = i; a < s->ntot - 1; a++) ks_swap_slots(s, a, a + 1, map, inv);
    map[i] = -1; /* label i (the escaper) is named by no list any more */
    s->mtot -= s->m[s->ntot - 1];
    s->n--;
    s->ntot--;
    ks_relabel_all(s, map, -1, -1, -1, NULL);
}

static int remove_single(sim *s, int i, char *err, size_t errlen)
{
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    if (!x || !v) {
        free(x);
        free(v);
        snprintf(err, errlen, "out of memory removing an escaper");
        return -1;
    }
    sim_predict_all(s, x, v);
    remove_force_of(s, i, (const vec3 *)x, (const vec3 *)v);
    free(x);
    free(v);
    s->n_escaped++;
    s->m_escaped += s->m[i];
    compact_out(s, i);
    return 0;
}

/* The slot of a single or c.m. body by name (-1: none). */
static int slot_of(const sim *s, int name)
{
    for (int i = s->ifirst; i < s->ntot; i++)
        if (s->name[i] == name) return i;
    return -1;
}

/* A KS pair leaves as a whole: it ends (its components become singles at
 * the same time, their binding energy theirs) and both go. */
static int remove_pair(sim *s, int k, char *err, size_t errlen)
{
    int n1 = s->name[2 * k], n2 = s->name[2 * k + 1];
    if (ks_terminate(s, k, s->time, err, errlen)) return -1;
    int i1 = slot_of(s, n1);
    if (i1 < 0 || remove_single(s, i1, err, errlen)) return -1;
    int i2 = slot_of(s, n2);
    if (i2 < 0 || remove_single(s, i2, err, errlen)) return -1;
    return 0;
}

/* Names of the escapers at the current state (collected before any
 * removal moves slots). */
static int find_escapers(sim *s, int *names, escape_record *rec, int maxrec)
{
    double resc = escape_radius(s), rmin10 = 10.0 * s->p.rmin;
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    if (!x || !v) {
        free(x);
        free(v);
        return -1;
    }
    sim_predict_all(s, x, v);
    int ne = 0;
    for (int i = s->ifirst; i < s->ntot; i++) {
        double d[3] = {x[i][0] - s->xd[0], x[i][1] - s->xd[1], x[i][2] - s->xd[2]};
        double r = sqrt(dot3(d, d));
        if (!(r > resc) || excluded(s, i)) continue;
        double nearest, e = body_energy(s, i, (const vec3 *)x, (const vec3 *)v, &nearest);
        /* an isolated cluster keeps bound bodies however far; a tidal field
         * takes whatever is beyond 2 RTIDE (escape.f) */
        if (!tide_on(&s->tide) && !(e > 0.0)) continue;
        if (nearest < rmin10) continue;
        names[ne] = s->name[i];
        if (ne < maxrec)
            rec[ne] = (escape_record){s->time, s->name[i], i >= s->n ? 2 : 1, s->m[i], e, r};
        ne++;
    }
    free(x);
    free(v);
    return ne;
}

int escape_remove(sim *s, escape_record *rec, int maxrec, char *err, size_t errlen)
{
    if (!s->ks) {
        snprintf(err, errlen, "escaper removal needs the KS state");
        return -1;
    }
    int *names = malloc(sizeof(int) * (size_t)s->ntot);
    if (!names) {
        snprintf(err, errlen, "out of memory looking for escapers");
        return -1;
    }
    int ne = find_escapers(s, names, rec, maxrec);
    if (ne <= 0) {
        free(names);
        if (ne < 0) snprintf(err, errlen, "out of memory looking for escapers");
        return ne;
    }
    double e_before = checks_energy(s);
    for (int q = 0; q < ne; q++) {
        int i = slot_of(s, names[q]);
        if (i < 0) continue; /* gone with an earlier one (cannot happen: pairs leave whole) */
        int rc = i >= s->n ? remove_pair(s, i - s->n, err, errlen) : remove_single(s, i, err, errlen);
        if (rc) {
            free(names);
            return -1;
        }
    }
    free(names);
    s->mmean = s->mtot / s->n;
    /* what is left measures e_before - e_removed: the difference is booked */
    s->e_escaped += e_before - checks_energy(s);
    memset(s->ks->dirty, 0, (size_t)s->cap);
    return ne;
}
