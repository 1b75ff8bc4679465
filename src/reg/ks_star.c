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

/* The potential per unit mass at point y from every body but slots i and
 * i2 (-1: none) at the current time as the energy check measures it:
 * perturbed pairs by their two components, the rest as points (x:
 * sim_predict_all). */
static double potential_point(const sim *s, const double y[3], int i, int i2, const vec3 *x)
{
    double phi = 0.0;
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == i || j == i2 || !(s->m[j] > 0.0)) continue;
        if (j >= s->n && ks_pair_perturbed(&s->ks->pair[j - s->n])) {
            /* the components about the c.m. from the orbit, as the measure */
            const int k = j - s->n;
            const double m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2;
            double q[3], qd[3];
            ks_orbit_predict_h(&s->ks->pair[k].o, s->time, q, qd);
            double d1[3], d2[3];
            for (int c = 0; c < 3; c++) {
                d1[c] = x[j][c] + m2 / M * q[c] - y[c];
                d2[c] = x[j][c] - m1 / M * q[c] - y[c];
            }
            phi += m1 / sqrt(dot3(d1, d1)) + m2 / sqrt(dot3(d2, d2));
            continue;
        }
        double d[3] = {x[j][0] - y[0], x[j][1] - y[1], x[j][2] - y[2]};
        phi += s->m[j] / sqrt(dot3(d, d));
    }
    return phi;
}

/* Body i's potential from every other body. */
static double potential_at(const sim *s, int i, const vec3 *x) { return potential_point(s, x[i], i, -1, x); }

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

/* Body j's polynomial carries a change f, fd of the force on it from the
 * current time on: in the part that holds its source (irregular or
 * regular) and in the predictor's terms. */
static void carry_change(sim *s, int j, int irregular, const double f[3], const double fd[3])
{
    const double t = s->time;
    if (irregular)
        shift_in(NULL, NULL, s->fi[j], s->fid[j], f, fd, t - s->t0[j]);
    else
        shift_in(NULL, NULL, s->fr[j], s->frd[j], f, fd, t - s->t0r[j]);
    shift_in(s->x0[j], s->v0[j], s->a[j], s->j[j], f, fd, t - s->t0[j]);
}

/* Every other body's polynomial loses body i's old pull (mass m, velocity
 * v) and gains its new one (mass mn, velocity vn) from the current time on:
 * in the part that holds it (irregular when i is on the list) and in the
 * predictor's terms, as an escaper's is removed (integ/escape.c). */
static void correct_others(sim *s, int i, double m, const double v[3], double mn, const double vn[3],
                           const vec3 *x, const vec3 *vp)
{
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
        carry_change(s, j, ks_listed(s, j, i), f, fd);
    }
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

/* Every body's polynomial carries the change from now on (correct_others,
 * exact in the force and its derivative, the part of the bodies that list
 * i in their irregular force).  That is all a wind step needs, however
 * large: a star's own acceleration does not depend on its mass, and the
 * correctors refit the higher derivatives at each body's next step (a 2 %
 * wind step of the heavy star in test_evol drifts 7.6e-7 against its
 * twin's 5.9e-7; restarting its own list as NBODY6's mdot.f does,
 * whose corrections are not exact, drifted 1.05e-6 and cost a tenth of a
 * 4k run).  After a sudden change or a kick (KS_STAR_ALL: a supernova)
 * star i, the bodies of its list and every body that lists it start again
 * at the current time: their irregular force loses much of a heavy star's
 * pull, and three supernovae of 10 Msun cost 3e-6 of E in a 4k cluster
 * without the restarts. */
static int restart_near(sim *s, int i, int kicked, int near, const double dv[3], char *err, size_t errlen)
{
    const double t = s->time;
    if (near != KS_STAR_ALL && !kicked) {
        newpoly_send_polynomials(s);
        return 0;
    }
    const int nl = s->nnb[i], *li = sim_list(s, i);
    int nb = 0, *idx = malloc(sizeof(int) * (s->ntot - s->ifirst + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a stellar mass change");
        return -1;
    }
    for (int j = s->ifirst, q = 0; j < s->ntot; j++) {   /* ascending */
        while (q < nl && li[q] < j) q++;
        const int own = q < nl && li[q] == j;
        if (j == i || (s->m[j] > 0.0 && (own || ks_listed(s, j, i))))
            idx[nb++] = j;
    }
    ks_restart_state(s, nb, idx, t);
    if (kicked)
        for (int c = 0; c < 3; c++) s->v0[i][c] += dv[c];
    newpoly_send_polynomials(s);
    int rc = nb > 0 ? newpoly_bodies(s, nb, idx, t, 0, err, errlen) : 0;
    free(idx);
    return rc;
}

int ks_star_change(sim *s, int i, double mnew, const double dv[3], int near, double *de, char *err,
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
    return restart_near(s, i, kicked, near, dv, err, errlen);
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

/* The pull on a body at (xk, vk) of mass m at (y, w): acceleration f and
 * jerk fd, added with weight sgn. */
static void add_pull(const double xk[3], const double vk[3], double m, const double y[3],
                     const double w[3], double sgn, double f[3], double fd[3])
{
    double d[3] = {y[0] - xk[0], y[1] - xk[1], y[2] - xk[2]};
    double u[3] = {w[0] - vk[0], w[1] - vk[1], w[2] - vk[2]};
    double r2 = dot3(d, d), r3 = r2 * sqrt(r2), rv = dot3(d, u);
    for (int c = 0; c < 3; c++) {
        f[c] += sgn * m / r3 * d[c];
        fd[c] += sgn * m * (u[c] - 3.0 * rv / r2 * d[c]) / r3;
    }
}

/* The energy check's part of KS pair k with component masses m1, m2 (sum
 * M), c.m. at X, V, internal energy per unit reduced mass h, the
 * components at x1, x2: the c.m.'s kinetic energy, EBIN, the potential
 * with every other body (the components' when the pair is resolved, the
 * c.m. point's otherwise) and the galactic tide's (at the c.m.). */
static double pair_part(const sim *s, int C, double m1, double m2, const double X[3], const double V[3],
                        double h, const double x1[3], const double x2[3], int resolved, const vec3 *x)
{
    const double M = m1 + m2;
    double e = 0.5 * M * dot3(V, V) + m1 * m2 / M * h;
    if (resolved)
        e -= m1 * potential_point(s, x1, C, -1, x) + m2 * potential_point(s, x2, C, -1, x);
    else
        e -= M * potential_point(s, X, C, -1, x);
    if (tide_on(&s->tide)) e += tide_potential_energy(&s->tide, M, X);
    return e;
}

/* Every other body's polynomial carries the change of pair k's pull from
 * now on, in the part that holds it: a body that lists the c.m. feels the
 * changed component (c at xc, vc: mc -> mcn) where the pair is resolved or
 * where it holds that component alone (a one-component entry), the c.m.
 * point (M at X, V -> Mn at Xn, Vn) otherwise; a body that does not list it
 * feels the point in its regular force, and one that holds the other
 * component alone has the changed one in its regular polynomial. */
typedef struct pair_change {
    int C, comp, resolved;
    double mc, mcn, xc[3], vc[3];
    double M, X[3], V[3], Mn, Xn[3], Vn[3];
} pair_change;

static void correct_for_pair(sim *s, const pair_change *pc, const vec3 *x, const vec3 *vp)
{
#pragma omp parallel for schedule(static)
    for (int j = s->ifirst; j < s->ntot; j++) {
        if (j == pc->C || !(s->m[j] > 0.0)) continue;
        const int listed = ks_listed(s, j, pc->C);
        const int alone = listed ? ks_partial_comp(s, j, pc->C) : -1;
        double f[3] = {0, 0, 0}, fd[3] = {0, 0, 0};
        if (alone >= 0 || (listed && pc->resolved)) {
            add_pull(x[j], vp[j], pc->mcn, pc->xc, pc->vc, 1.0, f, fd);
            add_pull(x[j], vp[j], pc->mc, pc->xc, pc->vc, -1.0, f, fd);
        } else {
            add_pull(x[j], vp[j], pc->Mn, pc->Xn, pc->Vn, 1.0, f, fd);
            add_pull(x[j], vp[j], pc->M, pc->X, pc->V, -1.0, f, fd);
        }
        carry_change(s, j, listed && (alone < 0 || alone == pc->comp), f, fd);
    }
}

int ks_star_change_paired(sim *s, int k, int comp, double mnew, double *de, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || k < 0 || k >= s->npairs || ks_pair_merged(s, k) || (comp != 0 && comp != 1) || !(mnew > 0.0)) {
        snprintf(err, errlen, "stellar evolution: pair %d is no plain KS pair or mass %g is not positive", k,
                 mnew);
        return -1;
    }
    ks_pair *kp = &ks->pair[k];
    const double t = s->time;
    const int A = 2 * k, B = 2 * k + 1, C = s->n + k;
    vec3 *v, *x = predicted(s, &v);
    if (!x) {
        snprintf(err, errlen, "out of memory at a stellar mass change");
        return -1;
    }
    /* the relative state at t as the energy check sees it, the components
     * about the c.m.; they keep their places and velocities */
    double q[3], qd[3], x1[3], x2[3], v1[3], v2[3];
    const double h0 = ks_orbit_predict_h(&kp->o, t, q, qd);
    const double m1 = s->m[A], m2 = s->m[B], M = m1 + m2;
    const double n1 = comp ? m1 : mnew, n2 = comp ? mnew : m2, Mn = n1 + n2;
    pair_change pc = {.C = C, .comp = comp, .resolved = ks_pair_perturbed(kp), .M = M, .Mn = Mn};
    pc.mc = comp ? m2 : m1;
    pc.mcn = mnew;
    for (int c = 0; c < 3; c++) {
        x1[c] = x[C][c] + m2 / M * q[c];
        x2[c] = x[C][c] - m1 / M * q[c];
        v1[c] = v[C][c] + m2 / M * qd[c];
        v2[c] = v[C][c] - m1 / M * qd[c];
        pc.X[c] = x[C][c];
        pc.V[c] = v[C][c];
        pc.Xn[c] = (n1 * x1[c] + n2 * x2[c]) / Mn;
        pc.Vn[c] = (n1 * v1[c] + n2 * v2[c]) / Mn;
        pc.xc[c] = comp ? x2[c] : x1[c];
        pc.vc[c] = comp ? v2[c] : v1[c];
    }
    const double e0 = pair_part(s, C, m1, m2, pc.X, pc.V, h0, x1, x2, pc.resolved, (const vec3 *)x);
    correct_for_pair(s, &pc, (const vec3 *)x, (const vec3 *)v);
    /* the orbit starts again from the same relative state with the new
     * mass (its termination radius kept) */
    s->m[A] = n1;
    s->m[B] = n2;
    s->m[C] = Mn;
    s->mtot += Mn - M;
    s->mmean = s->mtot / s->n;
    const double r0 = kp->o.r0;
    ks_ctl c0 = {s->p.etau, s->p.eclose, 0.0};
    ks_orbit_init(&kp->o, Mn, q, qd, t, NULL, &c0);
    kp->o.r0 = r0;
    /* measured in the model the pair had; a change of model at the new
     * polynomials below is booked there (ks_book_mode) */
    *de = pair_part(s, C, n1, n2, pc.Xn, pc.Vn, kp->o.h, x1, x2, pc.resolved, (const vec3 *)x) - e0;
    free(x);
    free(v);
    /* the c.m. body at the new c.m.: new polynomials, perturbers and mode */
    ks_restart_state(s, 1, &C, t);
    memcpy(s->x0[C], pc.Xn, sizeof pc.Xn);
    memcpy(s->v0[C], pc.Vn, sizeof pc.Vn);
    if (pc.resolved) ks->newcm = C;
    else kp->np = 0; /* was a point in the energy check */
    newpoly_send_polynomials(s);
    int rc = newpoly_bodies(s, 1, &C, t, 0, err, errlen);
    ks->newcm = -1;
    return rc;
}

/* Two singles' new state: masses, positions, velocities at the current
 * time (a mass of 0: the body leaves). */
typedef struct two_state {
    double m[2], x[2][3], v[2][3];
} two_state;

/* Every other body's polynomial loses the pulls of singles i and j and
 * gains their new ones (n) from the current time on, each in the part
 * that holds it: i's old and new pull where i is listed, j's where j is. */
static void correct_two(sim *s, int i, int j, const two_state *n, const vec3 *x, const vec3 *vp)
{
    const double mi = s->m[i], mj = s->m[j];
#pragma omp parallel for schedule(static)
    for (int k = s->ifirst; k < s->ntot; k++) {
        if (k == i || k == j || !(s->m[k] > 0.0)) continue;
        double fi[3] = {0, 0, 0}, fdi[3] = {0, 0, 0}, fj[3] = {0, 0, 0}, fdj[3] = {0, 0, 0};
        add_pull(x[k], vp[k], n->m[0], n->x[0], n->v[0], 1.0, fi, fdi);
        add_pull(x[k], vp[k], mi, x[i], vp[i], -1.0, fi, fdi);
        if (n->m[1] > 0.0) add_pull(x[k], vp[k], n->m[1], n->x[1], n->v[1], 1.0, fj, fdj);
        add_pull(x[k], vp[k], mj, x[j], vp[j], -1.0, fj, fdj);
        carry_change(s, k, ks_listed(s, k, i), fi, fdi);
        carry_change(s, k, ks_listed(s, k, j), fj, fdj);
    }
}

/* The total energy's change when singles i and j take state n: kinetic,
 * their potential with the rest and with each other, the tidal field's. */
static double two_energy(const sim *s, int i, int j, const two_state *n, const vec3 *x, const vec3 *v)
{
    const double mi = s->m[i], mj = s->m[j];
    double d[3] = {x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]};
    double de = -0.5 * (mi * dot3(v[i], v[i]) + mj * dot3(v[j], v[j])) +
                mi * potential_point(s, x[i], i, j, x) + mj * potential_point(s, x[j], i, j, x) +
                mi * mj / sqrt(dot3(d, d));
    if (tide_on(&s->tide))
        de -= tide_potential_energy(&s->tide, mi, x[i]) + tide_potential_energy(&s->tide, mj, x[j]);
    for (int q = 0; q < 2; q++) {
        if (!(n->m[q] > 0.0)) continue;
        de += 0.5 * n->m[q] * dot3(n->v[q], n->v[q]) - n->m[q] * potential_point(s, n->x[q], i, j, x);
        if (tide_on(&s->tide)) de += tide_potential_energy(&s->tide, n->m[q], n->x[q]);
    }
    if (n->m[1] > 0.0) {
        double dn[3] = {n->x[0][0] - n->x[1][0], n->x[0][1] - n->x[1][1], n->x[0][2] - n->x[1][2]};
        de -= n->m[0] * n->m[1] / sqrt(dot3(dn, dn));
    }
    return de;
}

/* Singles i and j take state n (a zero mass for j: it leaves, slots above
 * it move down one); the bodies that list either start again with them
 * (their irregular force jumps), as do i and j.  Returns i's slot after,
 * or -1 (err). */
static int two_change(sim *s, int i, int j, const two_state *n, double *de, char *err, size_t errlen)
{
    vec3 *v, *x = predicted(s, &v);
    int *idx = malloc(sizeof(int) * (s->ntot - s->ifirst + 1));
    if (!x || !idx) {
        free(x);
        free(v);
        free(idx);
        snprintf(err, errlen, "out of memory at a stellar collision");
        return -1;
    }
    *de = two_energy(s, i, j, n, (const vec3 *)x, (const vec3 *)v);
    correct_two(s, i, j, n, (const vec3 *)x, (const vec3 *)v);
    free(x);
    free(v);
    int nb = 0;
    for (int k = s->ifirst; k < s->ntot; k++)
        if (k == i || (k == j && n->m[1] > 0.0) ||
            (k != j && s->m[k] > 0.0 && (ks_listed(s, k, i) || ks_listed(s, k, j))))
            idx[nb++] = k;
    s->mtot += n->m[0] - s->m[i];
    s->m[i] = n->m[0];
    int inew = i, jnew = j;
    if (n->m[1] > 0.0) {
        s->mtot += n->m[1] - s->m[j];
        s->m[j] = n->m[1];
    } else {
        ks_remove_single(s, j); /* slots above j move down one (and its mass leaves mtot) */
        for (int q = 0; q < nb; q++)
            if (idx[q] > j) idx[q]--;
        inew = i > j ? i - 1 : i;
        jnew = -1;
        newpoly_send(s, 0, NULL);
        ks_clear_dirty(s);
    }
    s->mmean = s->mtot / s->n;
    ks_restart_state(s, nb, idx, s->time);
    memcpy(s->x0[inew], n->x[0], sizeof n->x[0]);
    memcpy(s->v0[inew], n->v[0], sizeof n->v[0]);
    if (jnew >= 0) {
        memcpy(s->x0[jnew], n->x[1], sizeof n->x[1]);
        memcpy(s->v0[jnew], n->v[1], sizeof n->v[1]);
        newpoly_send_polynomials(s);
    }
    int rc = newpoly_bodies(s, nb, idx, s->time, 0, err, errlen);
    free(idx);
    return rc ? -1 : inew;
}

int ks_star_reshape(sim *s, int i, int j, const double m[2], const double x[2][3], const double v[2][3],
                    double *de, char *err, size_t errlen)
{
    if (i < s->ifirst || i >= s->n || j < s->ifirst || j >= s->n || i == j || !(m[0] > 0.0) || !(m[1] > 0.0)) {
        snprintf(err, errlen, "stellar collision: slots %d, %d are not two singles or a mass is not positive",
                 i, j);
        return -1;
    }
    two_state n = {{m[0], m[1]}, {{0}}, {{0}}};
    memcpy(n.x, x, sizeof n.x);
    memcpy(n.v, v, sizeof n.v);
    return two_change(s, i, j, &n, de, err, errlen) < 0 ? -1 : 0;
}

int ks_star_merge(sim *s, int i, int j, double mnew, const double dv[3], double *de, char *err, size_t errlen)
{
    if (i < s->ifirst || i >= s->n || j < s->ifirst || j >= s->n || i == j || !(mnew > 0.0)) {
        snprintf(err, errlen, "stellar collision: slots %d, %d are not two singles or mass %g is "
                 "not positive", i, j, mnew);
        return -1;
    }
    /* the product at the c.m. with the c.m. velocity (momentum kept; mass
     * lost leaves with the c.m. velocity) */
    double xi[3], vi[3], xj[3], vj[3];
    sim_predict_one(s, i, s->time, xi, vi);
    sim_predict_one(s, j, s->time, xj, vj);
    const double mi = s->m[i], mj = s->m[j], m = mi + mj;
    two_state n = {{mnew, 0.0}, {{0}}, {{0}}};
    for (int c = 0; c < 3; c++) {
        n.x[0][c] = (mi * xi[c] + mj * xj[c]) / m;
        n.v[0][c] = (mi * vi[c] + mj * vj[c]) / m + (dv ? dv[c] : 0.0);
    }
    return two_change(s, i, j, &n, de, err, errlen);
}
