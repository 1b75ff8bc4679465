/* ks_star.c — reg/'s part of stellar evolution (evol/ decides what happens
 * to a star and books the energy): where a star is (a single, a KS
 * component, a chain member, a star of a merged hierarchy), its system
 * taken apart so that it is a single, a change of a single's mass and
 * velocity carried into every body's force polynomials with the energy
 * it changes, a pair formed again, a massless single removed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "core/newpoly.h"

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

int ks_star_where(const sim *s, int name, int *kind, int *sys_slot)
{
    /* the common case first: a single that no chain owns */
    int i = ks_slot_of_star(s, name);
    if (i >= s->ifirst && i < s->n && !(s->ks && ks_chain_owns(s->ks, i)) &&
        !(s->ks && s->ks->ch.active && i == s->ks->ch.icm)) {
        *kind = KS_SYS_SINGLE;
        *sys_slot = i;
        return 0;
    }
    int names[KS_SYS_MAX];
    double m[KS_SYS_MAX];
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (!(s->m[j] > 0.0)) continue;
        int k, ns = ks_system_of(s, j, &k, names, m, KS_SYS_MAX);
        for (int q = 0; q < ns; q++)
            if (names[q] == name) {
                *kind = k;
                *sys_slot = j;
                return 0;
            }
    }
    return -1;
}

int ks_star_isolate(sim *s, int name, int *partner, char *err, size_t errlen)
{
    int kind, j;
    *partner = 0;
    if (ks_star_where(s, name, &kind, &j)) {
        snprintf(err, errlen, "stellar evolution: star %d not found at t = %g", name, s->time);
        return -1;
    }
    if (kind == KS_SYS_SINGLE) return j;
    int names[KS_SYS_MAX];
    double m[KS_SYS_MAX];
    int k, ns = ks_system_of(s, j, &k, names, m, KS_SYS_MAX);
    if (kind == KS_SYS_PAIR && ns == 2) *partner = names[0] == name ? names[1] : names[0];
    /* a chain's end or a split moves bodies that hold one-component list
     * entries (ks_partial.c): those end first, as before an escaper leaves */
    if (kind != KS_SYS_PAIR && ks_partial_flush(s, s->time, err, errlen)) return -1;
    if (ks_dissolve(s, kind, s->name[j], names, ns, err, errlen)) return -1;
    int i = ks_slot_of_star(s, name);
    if (i < s->ifirst || i >= s->n) {
        snprintf(err, errlen, "stellar evolution: star %d is no single after its system ended at "
                 "t = %g", name, s->time);
        return -1;
    }
    return i;
}

/* Body i's potential per unit mass from every other body at the current
 * time as the energy check measures it: perturbed pairs by their two
 * components, the rest as points (x: sim_predict_all). */
static double potential_at(const sim *s, int i, const vec3 *x)
{
    double phi = 0.0;
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || !(s->m[j] > 0.0)) continue;
        if (j >= s->n && ks_pair_perturbed(&s->ks->pair[j - s->n])) {
            /* the components about the c.m. from the orbit, as the measure */
            const int k = j - s->n;
            const double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2;
            double q[3], qd[3];
            ks_orbit_predict_h(&s->ks->pair[k].o, s->time, q, qd);
            double d1[3], d2[3];
            for (int c = 0; c < 3; c++) {
                d1[c] = x[j][c] + m2 / M * q[c] - x[i][c];
                d2[c] = x[j][c] - m1 / M * q[c] - x[i][c];
            }
            phi += m1 / sqrt(dot3(d1, d1)) + m2 / sqrt(dot3(d2, d2));
            continue;
        }
        double d[3] = {x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]};
        phi += s->m[j] / sqrt(dot3(d, d));
    }
    return phi;
}

/* Adds to a polynomial about t0 (value x, slope v, acceleration a, jerk j)
 * a force change that starts at t0 + del: da + dj (tau - t0 - del) for
 * tau >= t0 + del.  The Taylor terms are shifted so that the state at t0 +
 * del is unchanged and the change acts from then on only (applied from t0,
 * the bodies would have felt it over the part of their step already made,
 * 0.3 % of a supernova's mass-loss energy in the roche-kroupa-4096 model). */
static void shift_in(double x[3], double v[3], double a[3], double j[3], const double da[3],
                     const double dj[3], double del)
{
    for (int c = 0; c < 3; c++) {
        if (x) x[c] += 0.5 * del * del * da[c] - del * del * del / 6.0 * dj[c];
        if (v) v[c] += -del * da[c] + 0.5 * del * del * dj[c];
        a[c] += da[c] - del * dj[c];
        j[c] += dj[c];
    }
}

/* Every other body's polynomial loses body i's old pull (mass m, velocity
 * v) and gains its new one (mass mn, velocity vn) from the current time on:
 * in the part that holds it (irregular when i is on the list) and in the
 * predictor's terms, as an escaper's is removed (integ/escape.c). */
static void correct_others(sim *s, int i, double m, const double v[3], double mn, const double vn[3],
                           const vec3 *x, const vec3 *vp)
{
    const double t = s->time;
#pragma omp parallel for schedule(static)
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || !(s->m[j] > 0.0)) continue;
        double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
        double w0[3] = {v[0] - vp[j][0], v[1] - vp[j][1], v[2] - vp[j][2]};
        double w1[3] = {vn[0] - vp[j][0], vn[1] - vp[j][1], vn[2] - vp[j][2]};
        double r2 = dot3(d, d), r3 = r2 * sqrt(r2);
        double rv0 = dot3(d, w0), rv1 = dot3(d, w1);
        double f[3], fd[3];
        for (int c = 0; c < 3; c++) {
            f[c] = (mn - m) / r3 * d[c];
            fd[c] = (mn * (w1[c] - 3.0 * rv1 / r2 * d[c]) - m * (w0[c] - 3.0 * rv0 / r2 * d[c])) / r3;
        }
        if (ks_listed(s, j, i))
            shift_in(NULL, NULL, s->fi[j], s->fid[j], f, fd, t - s->t0[j]);
        else
            shift_in(NULL, NULL, s->fr[j], s->frd[j], f, fd, t - s->t0r[j]);
        shift_in(s->x0[j], s->v0[j], s->a[j], s->j[j], f, fd, t - s->t0[j]);
    }
}

/* Both libraries get every body's polynomial again (correct_others changed
 * them all; the lists are as they were). */
static void send_polynomials(sim *s)
{
    const int nb = s->ntot - s->ifirst;
    int *idx = malloc(sizeof(int) * (nb + 1));
    if (!idx) {
        fprintf(stderr, "nbody6c: out of memory at a stellar mass change\n");
        exit(1);
    }
    for (int k = 0; k < nb; k++) idx[k] = s->ifirst + k;
    gpunb_set_jp(s->nb, nb, idx, s->t0 + s->ifirst, (const double(*)[3])(s->x0 + s->ifirst),
                 (const double(*)[3])(s->v0 + s->ifirst), (const double(*)[3])(s->a + s->ifirst),
                 (const double(*)[3])(s->j + s->ifirst), s->m + s->ifirst);
    for (int k = s->ifirst; k < s->ntot; k++)
        gpuirr_set_jp(s->irr, k, s->t0[k], s->x0[k], s->v0[k], s->a[k], s->j[k], s->m[k]);
    free(idx);
}

/* The state of every body at the current time; NULL when out of memory. */
static vec3 *predicted(const sim *s, vec3 **v)
{
    vec3 *x = malloc(sizeof(vec3) * s->cap);
    *v = malloc(sizeof(vec3) * s->cap);
    if (!x || !*v) {
        free(x);
        free(*v);
        return NULL;
    }
    sim_predict_all(s, x, *v);
    return x;
}

/* The energy change of body i going from (m, v) to (mn, vn) where it is:
 * its kinetic energy, its potential energy with the rest, its tidal
 * energy (the total is linear in m_i). */
static double change_energy(const sim *s, int i, double m, const double v[3], double mn,
                            const double vn[3], const vec3 *x)
{
    double de = 0.5 * (mn * dot3(vn, vn) - m * dot3(v, v)) - (mn - m) * potential_at(s, i, x);
    if (tide_on(&s->tide))
        de += tide_potential_energy(&s->tide, mn, x[i]) - tide_potential_energy(&s->tide, m, x[i]);
    return de;
}

/* The bodies that hold i on their lists feel its change as a jump of their
 * irregular force, which a Hermite step across it would smooth into
 * their derivatives: they start again at the current time with new
 * polynomials (and so does i when kicked: its own jerk changed with its
 * velocity).  The others keep theirs, corrected from now on. */
static int restart_near(sim *s, int i, int kicked, const double dv[3], char *err, size_t errlen)
{
    const double t = s->time;
    int nb = 0, *idx = malloc(sizeof(int) * (s->ntot - s->ifirst + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a stellar mass change");
        return -1;
    }
    for (int j = s->ifirst; j < s->ntot; j++)
        if ((j == i && kicked) || (j != i && s->m[j] > 0.0 && ks_listed(s, j, i))) idx[nb++] = j;
    ks_restart_state(s, nb, idx, t);
    if (kicked)
        for (int c = 0; c < 3; c++) s->v0[i][c] += dv[c];
    send_polynomials(s);
    int rc = nb > 0 ? newpoly_bodies(s, nb, idx, t, 0, err, errlen) : 0;
    free(idx);
    return rc;
}

int ks_star_change(sim *s, int i, double mnew, const double dv[3], double *de, char *err,
                   size_t errlen)
{
    if (i < s->ifirst || i >= s->n || !(mnew > 0.0)) {
        snprintf(err, errlen, "stellar evolution: slot %d is no single or mass %g is not positive",
                 i, mnew);
        return -1;
    }
    vec3 *v, *x = predicted(s, &v);
    if (!x) {
        snprintf(err, errlen, "out of memory at a stellar mass change");
        return -1;
    }
    const double m = s->m[i];
    const int kicked = dv && (dv[0] != 0.0 || dv[1] != 0.0 || dv[2] != 0.0);
    double vn[3] = {v[i][0], v[i][1], v[i][2]};
    if (kicked)
        for (int c = 0; c < 3; c++) vn[c] += dv[c];
    *de = change_energy(s, i, m, v[i], mnew, vn, (const vec3 *)x);
    correct_others(s, i, m, v[i], mnew, vn, (const vec3 *)x, (const vec3 *)v);
    free(x);
    free(v);
    s->m[i] = mnew;
    s->mtot += mnew - m;
    s->mmean = s->mtot / s->n;
    return restart_near(s, i, kicked, dv, err, errlen);
}

int ks_star_remove(sim *s, int i, double *de, char *err, size_t errlen)
{
    if (i < s->ifirst || i >= s->n) {
        snprintf(err, errlen, "stellar evolution: slot %d is no single", i);
        return -1;
    }
    vec3 *v, *x = predicted(s, &v);
    if (!x) {
        snprintf(err, errlen, "out of memory removing a massless remnant");
        return -1;
    }
    const double zero[3] = {0, 0, 0}, m = s->m[i];
    *de = change_energy(s, i, m, v[i], 0.0, zero, (const vec3 *)x);
    correct_others(s, i, m, v[i], 0.0, v[i], (const vec3 *)x, (const vec3 *)v);
    free(x);
    free(v);
    ks_remove_single(s, i); /* the caller sends every body again */
    s->mmean = s->mtot / s->n;
    return 0;
}

int ks_star_pair(sim *s, int name1, int name2, char *err, size_t errlen)
{
    int i = ks_slot_of_star(s, name1), j = ks_slot_of_star(s, name2);
    if (i < s->ifirst || i >= s->n || j < s->ifirst || j >= s->n || s->p.ks_off ||
        ks_chain_owns(s->ks, i) || ks_chain_owns(s->ks, j))
        return 0;
    int exact = s->ks->check_jumps || s->led.exact;
    double e0 = exact ? ks_total_energy(s) : 0.0;
    if (ks_form(s, i, j, s->time, err, errlen)) return -1;
    ks_note_event(s, LED_KS_FORM, s->time, name1, name2, s->ks->last_jump, e0, s->ks->last_a,
                  s->ks->last_ecc, s->ks->last_gamma);
    return 1;
}
