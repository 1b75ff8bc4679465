/* escape.c — escaper removal (KZ(23)): the candidates, the force
 * corrections of the bodies that stay, the compaction of the slots and the
 * energy booked (escape.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "integ/checks.h"
#include "integ/escape.h"
#include "reg/ks.h"

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double escape_radius(const sim *s)
{
    double rtide = tide_on(&s->tide) ? tide_radius(&s->tide, s->mtot) : 10.0 * s->rscale;
    return 2.0 * rtide;
}

/* Ghosts (chain members but the first, merged inner pairs' second
 * components) are no candidates: their system is, through its c.m. */
static int excluded(const sim *s, int i) { return !(s->m[i] > 0.0); }

/* The candidate's energy against the rest (per its mass times m), the
 * nearest other body's distance and slot; x, v: every body predicted to
 * s->time. */
static double body_energy(const sim *s, int i, const vec3 *x, const vec3 *v, double *nearest,
                          int *jnear)
{
    double phi = 0.0, dmin = INFINITY;
    *jnear = -1;
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || !(s->m[j] > 0.0)) continue;
        double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
        double r = sqrt(dot3(d, d));
        phi += s->m[j] / r;
        if (r < dmin) {
            dmin = r;
            *jnear = j;
        }
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
        int listed = ks_listed(s, j, i);
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

/* The singles at the slots leave: each one's force off the others (in the
 * order given, from the state predicted before any of them left), then
 * all at once out of the slots and lists. */
static int remove_singles(sim *s, int nrem, const int *slots, char *err, size_t errlen)
{
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    if (!x || !v) {
        free(x);
        free(v);
        snprintf(err, errlen, "out of memory removing escapers");
        return -1;
    }
    sim_predict_all(s, x, v);
    for (int k = 0; k < nrem; k++) {
        remove_force_of(s, slots[k], (const vec3 *)x, (const vec3 *)v);
        s->n_escaped++;
        s->m_escaped += s->m[slots[k]];
    }
    free(x);
    free(v);
    ks_remove_singles(s, nrem, slots);
    return 0;
}

/* What an escaper is: the system leaves whole, each of its stars named. */
typedef struct esc_system {
    int kind, name;       /* KS_SYS_*; its body's name at the test (the chain's c.m.: 0) */
    int nstar, star[KS_SYS_MAX];
    double mstar[KS_SYS_MAX];
    double m, e, r;       /* mass, energy against the rest, distance */
} esc_system;

/* Body j's distance from the density centre (x: predicted positions). */
static double dist_from_centre(const sim *s, const vec3 *x, int j)
{
    double d[3] = {x[j][0] - s->xd[0], x[j][1] - s->xd[1], x[j][2] - s->xd[2]};
    return sqrt(dot3(d, d));
}

/* The escaping systems at the current state (collected before any event
 * moves slots). */
static int find_escapers(sim *s, esc_system *sys)
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
        double r = dist_from_centre(s, x, i);
        if (!(r > resc) || excluded(s, i)) continue;
        int jn;
        double nearest, e = body_energy(s, i, (const vec3 *)x, (const vec3 *)v, &nearest, &jn);
        /* an isolated cluster keeps bound bodies however far; a tidal field
         * takes whatever is beyond 2 RTIDE (escape.f) */
        if (!tide_on(&s->tide) && !(e > 0.0)) continue;
        /* a close neighbour keeps a body (an encounter is not broken off),
         * unless it is beyond the escape radius too: two stars too light
         * for KS (a mass-weighted neighbour sphere can leave one off the
         * other's list) drifted out together to 40 RTIDE, where one's
         * empty list put the other's pull in its regular force, a step of
         * 1/32 (roche-kroupa-4096-bin10, t = 332: 1.4e-3 of E) */
        if (nearest < rmin10 && !(dist_from_centre(s, x, jn) > resc)) continue;
        esc_system *q = &sys[ne++];
        *q = (esc_system){.name = s->name[i], .m = s->m[i], .e = e, .r = r};
        q->nstar = ks_system_of(s, i, &q->kind, q->star, q->mstar, KS_SYS_MAX);
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
    esc_system *sys = malloc(sizeof(esc_system) * (size_t)s->ntot);
    if (!sys) {
        snprintf(err, errlen, "out of memory looking for escapers");
        return -1;
    }
    int ne = find_escapers(s, sys);
    if (ne <= 0) {
        free(sys);
        if (ne < 0) snprintf(err, errlen, "out of memory looking for escapers");
        return ne;
    }
    /* one-component list entries end before slots move (ks_partial.c) */
    if (ks_partial_flush(s, s->time, err, errlen)) {
        free(sys);
        return -1;
    }
    int nrec = 0;
    for (int q = 0; q < ne; q++) {
        /* one record per star, with its share of the system's energy (so
         * that each line's v_inf is the system's) */
        for (int k = 0; k < sys[q].nstar; k++, nrec++)
            if (nrec < maxrec)
                rec[nrec] = (escape_record){s->time, sys[q].star[k], sys[q].nstar, sys[q].mstar[k],
                                            sys[q].e * sys[q].mstar[k] / sys[q].m, sys[q].r};
        if (sys[q].kind != KS_SYS_SINGLE &&
            ks_dissolve(s, sys[q].kind, sys[q].name, sys[q].star, sys[q].nstar, err, errlen)) {
            free(sys);
            return -1;
        }
    }
    /* every escaper is single stars now: the energy of the whole before
     * and after their removal, the difference booked (their kinetic,
     * mutual, tidal and binding energy with the rest, nothing else) */
    double e_before = checks_energy(s);
    int nrem = 0, *slots = malloc(sizeof(int) * (size_t)(nrec + 1));
    if (!slots) {
        snprintf(err, errlen, "out of memory removing escapers");
        free(sys);
        return -1;
    }
    for (int q = 0; q < ne; q++)
        for (int k = 0; k < sys[q].nstar; k++) {
            int i = ks_slot_of_star(s, sys[q].star[k]);
            if (i < s->ifirst || i >= s->n) {
                snprintf(err, errlen, "escaper: star %d is no single at t = %g", sys[q].star[k], s->time);
                free(sys);
                free(slots);
                return -1;
            }
            slots[nrem++] = i;
        }
    free(sys);
    int rc = remove_singles(s, nrem, slots, err, errlen);
    free(slots);
    if (rc) return -1;
    s->mmean = s->mtot / s->n;
    s->e_escaped += e_before - checks_energy(s);
    ks_clear_dirty(s);
    return nrec;
}

int escape_save(wbuf *w, const sim *s)
{
    wb_i64(w, s->n_escaped);
    wb_f64(w, s->m_escaped);
    wb_f64(w, s->e_escaped);
    wb_i64(w, s->nzero);
    return s->nzero != s->n;
}

int escape_load(rbuf *r, sim *s)
{
    s->n_escaped = (int)rb_i64(r);
    s->m_escaped = rb_f64(r);
    s->e_escaped = rb_f64(r);
    s->nzero = (int)rb_i64(r);
    return r->bad || s->nzero < s->n || s->n_escaped < 0 ? -1 : 0;
}
