/* evol.c — stellar evolution coupled to the dynamics (evol.h): the stars'
 * states, the updates due at a block time, the changes applied to the
 * bodies through reg/ (ks_star.c) with their energy booked, the kicks,
 * the events file, the checkpoint section. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "evol/evol.h"
#include "reg/ks.h"

/* A change smaller than this fraction of the star's mass waits in the
 * star's state until it has grown.  Each applied change costs O(N) (every
 * body's polynomial corrected, the libraries sent every body; a KS
 * component's pair is ended and formed again), and the dynamics sees only
 * the mass: in the roche-kroupa-4096 run to 203 Myr the 2120 changes below
 * 1e-4 carried 0.33 Msun together, and at most 1e-4 of each star's mass
 * waits at any time. */
#define APPLY_FRAC 1.0e-4
/* A change of more than this fraction of the star's mass in one update
 * restarts also the bodies that list it (the pull they feel drops by it). */
#define SUDDEN_FRAC 0.1
/* mix.f's enforced mass loss: this fraction of the lighter star */
#define FORCED_FRAC 0.3
#define TWOPI 6.283185307179586
/* Checkpoint section SEVO's layout: 2 added the collisions, 3 the common
 * envelopes; 1 and 2 still read. */
#define SEVO_VERSION 3u

/* ---- random numbers for the kicks (splitmix64: small, checkpointable) ---- */

static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double uniform(uint64_t *x) { return ((next_u64(x) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

/* An isotropic direction times speed v. */
static void isotropic(uint64_t *x, double v, double out[3])
{
    double cth = 2.0 * uniform(x) - 1.0, sth = sqrt(fmax(0.0, 1.0 - cth * cth));
    double ph = TWOPI * uniform(x);
    out[0] = v * sth * cos(ph);
    out[1] = v * sth * sin(ph);
    out[2] = v * cth;
}

/* Three Gaussian components of dispersion sig (Box–Muller). */
static void maxwellian(uint64_t *x, double sig, double out[3])
{
    for (int c = 0; c < 3; c += 2) {
        double r = sig * sqrt(-2.0 * log(uniform(x))), ph = TWOPI * uniform(x);
        out[c] = r * cos(ph);
        if (c + 1 < 3) out[c + 1] = r * sin(ph);
    }
}

/* A draw from the distribution of speed v (km/s, evol_kicks' sign rule). */
static void draw(uint64_t *x, double v, double out[3])
{
    if (v < 0.0) isotropic(x, -v * uniform(x), out);
    else if (v > 0.0) maxwellian(x, v, out);
    else out[0] = out[1] = out[2] = 0.0;
}

evol_kicks evol_kicks_default(int kz25)
{
    return (evol_kicks){.ns = -100.0, .ec = -0.25, .bh = 2, .wd = 2.0, .wd_max = 6.0, .wd_on = kz25 > 0};
}

int evol_kicks_parse(const char *spec, evol_kicks *k, char *err, size_t errlen)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '='), *end;
        if (!eq) goto bad;
        *eq = '\0';
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end || !isfinite(v)) goto bad;
        if (!strcmp(it, "ns")) k->ns = v;
        else if (!strcmp(it, "ec")) k->ec = v;
        else if (!strcmp(it, "bh") && (v == 0 || v == 1 || v == 2)) k->bh = (int)v;
        else if (!strcmp(it, "wd") && v >= 0) k->wd = v;
        else if (!strcmp(it, "wdmax") && v >= 0) k->wd_max = v;
        else goto bad;
        continue;
    bad:
        snprintf(err, errlen, "--kicks: \"%s\": expected ns=V, ec=V, bh=0|1|2, wd=V >= 0 or wdmax=V >= 0 "
                 "(km/s; V < 0 flat in [0, |V|], V > 0 Maxwellian dispersion, 0 none)", it);
        return -1;
    }
    return 0;
}

/* The kick (km/s) of a remnant just formed: type kw, mass m (Msun) after
 * losing dm at its formation; zero vector when none. */
static void remnant_kick(evol_state *e, int kw, double m, double dm, double out[3])
{
    const evol_kicks *k = &e->o.kicks;
    out[0] = out[1] = out[2] = 0.0;
    if (kw == SSE_NS) {
        double v = k->ns;
        if (m < 1.28) v = k->ec < 0.0 ? k->ns * -k->ec : k->ec; /* electron capture */
        draw(&e->rng, v, out);
    } else if (kw == SSE_BH && k->bh > 0) {
        draw(&e->rng, k->ns, out);
        if (k->bh == 2) /* fall-back: only the ejected fraction pushes */
            for (int c = 0; c < 3; c++) out[c] *= dm / (m + dm);
    } else if (kw >= SSE_HEWD && kw <= SSE_ONEWD && k->wd_on && k->wd > 0.0) {
        maxwellian(&e->rng, k->wd, out);
        double v = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
        if (v > k->wd_max)
            for (int c = 0; c < 3; c++) out[c] *= k->wd_max / v;
    }
}

/* A remnant of type kw formed (NS, BH or WD): counted. */
static void count_remnant(evol_state *e, int kw)
{
    if (kw == SSE_NS) e->cnt.sn_ns++;
    else if (kw == SSE_BH) e->cnt.sn_bh++;
    else e->cnt.wd++;
}

/* ---- the state ------------------------------------------------------------ */

static void free_state(evol_state *e)
{
    if (!e) return;
    free(e->st);
    free(e->mdyn);
    free(e->gone);
    free(e->radius);
    free(e);
}

/* Every star of s on the ZAMS (instar.f); -1 with err for a mass SSE
 * cannot take or a star that is no body of its own. */
static int first_states(evol_state *e, const sim *s, char *err, size_t errlen)
{
    const double t = s->time * e->o.tstar;
    int nheavy = 0;
    double mheavy = 0.0;
    for (int i = 0; i < s->ntot; i++) {
        int name = s->name[i];
        if (name < 1 || name > e->nstar || !(s->m[i] > 0.0)) continue;
        double m = s->m[i] * e->o.munit;
        if (!(m >= 0.01)) {
            snprintf(err, errlen, "stellar evolution: star %d has %.3g Msun, below SSE's 0.01 Msun "
                     "(check ZMBAR and the masses)", name, m);
            return -1;
        }
        sse_init(&e->c, &e->st[name - 1], m, t, e->o.epoch0);
        e->mdyn[name - 1] = m;
        e->radius[name - 1] = e->st[name - 1].rad / e->o.rstar;
        if (m > SSE_MFIT_MAX) {
            nheavy++;
            if (m > mheavy) mheavy = m;
        }
    }
    if (nheavy > 0)
        fprintf(stderr, "nbody6c: note: %d star(s) above %g Msun (the heaviest %.4g Msun): the stellar "
                "evolution fits (Hurley, Pols & Tout 2000) are made for 0.1-%g Msun; they are used "
                "beyond, as NBODY6 does\n", nheavy, SSE_MFIT_MAX, mheavy, SSE_MFIT_MAX);
    for (int k = 0; k < e->nstar; k++)
        if (!(e->mdyn[k] > 0.0)) {
            snprintf(err, errlen, "stellar evolution: star %d is not a body of its own at the start",
                     k + 1);
            return -1;
        }
    return 0;
}

int evol_create(sim *s, const evol_options *o, char *err, size_t errlen)
{
    evol_state *e = calloc(1, sizeof *e);
    if (e) {
        e->o = *o;
        e->nstar = s->nzero;
        e->st = calloc((size_t)e->nstar, sizeof *e->st);
        e->mdyn = calloc((size_t)e->nstar, sizeof *e->mdyn);
        e->gone = calloc((size_t)e->nstar, 1);
        e->radius = calloc((size_t)e->nstar, sizeof *e->radius);
    }
    if (!e || !e->st || !e->mdyn || !e->gone || !e->radius) {
        free_state(e);
        snprintf(err, errlen, "out of memory for the stellar evolution state");
        return -1;
    }
    sse_zcnsts(&e->c, o->z);
    e->rng = o->seed ^ 0x5eed5eed5eedULL;
    e->tmin = INFINITY;
    s->evol = e;
    s->star_radius = e->radius;
    return 0;
}

int evol_open(sim *s, const evol_options *o, char *err, size_t errlen)
{
    if (evol_create(s, o, err, errlen)) return -1;
    evol_state *e = s->evol;
    if (first_states(e, s, err, errlen)) {
        evol_close(s);
        return -1;
    }
    for (int k = 0; k < e->nstar; k++) e->tmin = fmin(e->tmin, e->st[k].tnext);
    return 0;
}

void evol_close(sim *s)
{
    free_state(s->evol);
    s->evol = NULL;
    s->star_radius = NULL;
}

double evol_booked(const sim *s) { return s->evol ? s->evol->booked : 0.0; }

const sse_star *evol_star(const sim *s, int name)
{
    if (!s->evol || name < 1 || name > s->evol->nstar) return NULL;
    return &s->evol->st[name - 1];
}

void evol_star_gone(sim *s, int name)
{
    if (s->evol && name >= 1 && name <= s->evol->nstar) {
        s->evol->gone[name - 1] = 1;
        s->evol->radius[name - 1] = 0.0;
    }
}

void evol_census(const sim *s, int64_t by_type[16], double *mass)
{
    memset(by_type, 0, sizeof(int64_t) * 16);
    *mass = 0.0;
    const evol_state *e = s->evol;
    if (!e) return;
    for (int k = 0; k < e->nstar; k++) {
        if (e->gone[k]) continue;
        by_type[e->st[k].kw & 15]++;
        *mass += e->st[k].mass;
    }
}

/* ---- the updates ---------------------------------------------------------- */

/* The whole energy as the checks measure it (--energy-audit): reg/'s total
 * and the tidal field's potential energy. */
static double audit_energy(sim *s)
{
    double e = ks_total_energy(s);
    if (!tide_on(&s->tide)) return e;
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    if (!x || !v) {
        free(x);
        free(v);
        return NAN;
    }
    sim_predict_all(s, x, v);
    for (int i = s->ifirst; i < s->ntot; i++) e += tide_potential_energy(&s->tide, s->m[i], x[i]);
    free(x);
    free(v);
    return e;
}

static const char *type_name(int kw)
{
    static const char *const n[16] = {"LMMS", "MS", "HG", "GB", "CHeB", "EAGB", "TPAGB", "HeMS",
                                      "HeHG", "HeGB", "HeWD", "COWD", "ONeWD", "NS", "BH", "massless"};
    return n[kw & 15];
}

static void event_line(evol_state *e, const sim *s, const char *what, int name, int kw0, int kw1,
                       double m0, double m1, const double vk[3])
{
    if (!e->events) return;
    double v = vk ? sqrt(vk[0] * vk[0] + vk[1] * vk[1] + vk[2] * vk[2]) : 0.0;
    fprintf(e->events, "%12.6f %12.4f %-8s %7d %-6s %-8s %10.5f %10.5f %8.2f\n", s->time,
            s->time * e->o.tstar, what, name, type_name(kw0), type_name(kw1), m0, m1, v);
}

/* What one star's updates up to the time T (Myr) did. */
typedef struct star_news {
    int kw0, kw1;
    double m0;          /* Msun before */
    int remnant;        /* a NS or BH formed (1), a WD (2) */
    double dm_remnant;  /* mass lost at the remnant's formation */
} star_news;

static void advance_star(evol_state *e, sse_star *st, double T, star_news *nw)
{
    nw->kw0 = st->kw;
    nw->m0 = st->mass;
    nw->remnant = 0;
    nw->dm_remnant = 0.0;
    while (st->tnext <= T && st->kw != SSE_MASSLESS) {
        sse_change ch;
        sse_update(&e->c, st, &ch);
        e->cnt.updates++;
        if (ch.kw_old < SSE_NS && (ch.kw_new == SSE_NS || ch.kw_new == SSE_BH)) {
            nw->remnant = 1;
            nw->dm_remnant = ch.dm;
        } else if (ch.kw_old < SSE_HEWD && ch.kw_new >= SSE_HEWD && ch.kw_new <= SSE_ONEWD) {
            nw->remnant = 2;
        }
    }
    nw->kw1 = st->kw;
}

/* Applies star `name`'s new mass (and kick) to the dynamics. */
static int apply(sim *s, evol_state *e, int name, const star_news *nw, const double vk[3],
                 int *resend_all, char *err, size_t errlen)
{
    sse_star *st = &e->st[name - 1];
    int kind, slot, partner;
    if (ks_star_where(s, name, &kind, &slot)) {
        /* not in the cluster any more (escaped between checks): recorded */
        e->gone[name - 1] = 1;
        e->radius[name - 1] = 0.0;
        return 0;
    }
    const double dm = e->mdyn[name - 1] - st->mass;
    const int kicked = vk[0] != 0.0 || vk[1] != 0.0 || vk[2] != 0.0;
    if (!kicked && st->kw != SSE_MASSLESS && fabs(dm) < APPLY_FRAC * e->mdyn[name - 1]) return 0;
    const int sudden = kicked || fabs(dm) > SUDDEN_FRAC * e->mdyn[name - 1];
    const int massless = st->kw == SSE_MASSLESS || !(st->mass > 0.0);
    /* a component of a plain KS pair changes inside it (ks_star.c) unless
     * the change is sudden: the pair keeps its orbit, as NBODY6's HCORR
     * keeps it, instead of ending and forming again at each wind step */
    const int in_pair = kind == KS_SYS_PAIR && !sudden && !massless;
    int i = -1;
    partner = 0;
    if (!in_pair) {
        i = ks_star_isolate(s, name, &partner, err, errlen);
        if (i < 0) return -1;
    }
    const int audit = s->led.exact;
    const double e1 = audit ? audit_energy(s) : 0.0;
    double de;
    if (in_pair) {
        const int k = slot - s->n, comp = s->name[2 * k] == name ? 0 : 1;
        partner = s->name[2 * k + 1 - comp];
        if (ks_star_change_paired(s, k, comp, st->mass / e->o.munit, &de, err, errlen)) return -1;
    } else if (massless) {
        if (ks_star_remove(s, i, &de, err, errlen)) return -1;
        e->gone[name - 1] = 1;
        e->radius[name - 1] = 0.0;
        e->cnt.removed++;
        *resend_all = 1;
        event_line(e, s, "removed", name, nw->kw0, nw->kw1, nw->m0, 0.0, NULL);
    } else {
        double dv[3];
        for (int c = 0; c < 3; c++) dv[c] = vk[c] / e->o.vstar;
        /* only a sudden change (a supernova, an envelope lost as a white
         * dwarf forms, a kick) restarts bodies (ks_star.c); a wind step of
         * any size is carried by the corrected polynomials */
        if (ks_star_change(s, i, st->mass / e->o.munit, kicked ? dv : NULL, sudden ? KS_STAR_ALL : KS_STAR_KEEP,
                           &de, err, errlen))
            return -1;
        if (kicked) e->cnt.kicks++;
        /* a kicked star leaves its companion to the ordinary search */
        if (partner && !kicked) {
            int rc = ks_star_pair(s, name, partner, err, errlen);
            if (rc < 0) return -1;
            e->cnt.pairs_reformed += rc;
        }
    }
    if (audit) {
        const double de_exact = audit_energy(s) - e1;
        if (fabs(de_exact - de) > e->audit_max) e->audit_max = fabs(de_exact - de);
        de = de_exact;
    }
    e->booked -= de;
    ledger_record(&s->led, LED_STAR, s->time, name, partner, -de, 0.0, 0.0, 0.0);
    e->cnt.dm += dm;
    e->cnt.applied++;
    e->mdyn[name - 1] = st->mass;
    return 1;
}

int evol_step(sim *s, int *resend_all, char *err, size_t errlen)
{
    evol_state *e = s->evol;
    *resend_all = 0;
    if (!e) return 0;
    const double T = s->time * e->o.tstar;
    if (T < e->tmin) return 0;
    int changes = 0;
    for (int k = 0; k < e->nstar; k++) {
        sse_star *st = &e->st[k];
        if (e->gone[k] || st->tnext > T) continue;
        star_news nw;
        advance_star(e, st, T, &nw);
        e->radius[k] = st->rad / e->o.rstar;
        double vk[3] = {0, 0, 0};
        if (nw.remnant) {
            remnant_kick(e, nw.kw1, st->mass, nw.dm_remnant, vk);
            count_remnant(e, nw.kw1);
            event_line(e, s, nw.remnant == 1 ? "sn" : "wd", k + 1, nw.kw0, nw.kw1, nw.m0, st->mass, vk);
        } else if (nw.kw1 != nw.kw0) {
            event_line(e, s, "type", k + 1, nw.kw0, nw.kw1, nw.m0, st->mass, NULL);
        }
        int rc = apply(s, e, k + 1, &nw, vk, resend_all, err, errlen);
        if (rc < 0) return -1;
        changes += rc;
    }
    e->tmin = INFINITY;
    for (int k = 0; k < e->nstar; k++)
        if (!e->gone[k] && e->st[k].kw != SSE_MASSLESS) e->tmin = fmin(e->tmin, e->st[k].tnext);
    if (e->events) fflush(e->events);
    ks_collide_mergers(s); /* the radii grew: a frozen inner orbit may touch now */
    return changes;
}

/* ---- collisions ------------------------------------------------------------ */

/* An event of two stars (a merger, a common envelope): the first star's
 * name, type and mass before and after, its kick (km/s; NULL: none), then
 * the other's name, type and mass. */
static void pair_line(evol_state *e, const sim *s, const char *what, int name, const sse_star *was,
                      const sse_star *now, const double vk[3], int other, const sse_star *o)
{
    if (!e->events) return;
    const double v = vk ? sqrt(vk[0] * vk[0] + vk[1] * vk[1] + vk[2] * vk[2]) : 0.0;
    fprintf(e->events, "%12.6f %12.4f %-8s %7d %-6s %-8s %10.5f %10.5f %8.2f %7d %-6s %10.5f\n", s->time,
            s->time * e->o.tstar, what, name, type_name(was->kw), type_name(now->kw), was->mass, now->mass, v,
            other, type_name(o->kw), o->mass);
}

/* NBODY6's mix.f: two main-sequence stars that meet fast and deep throw
 * off 0.3 of the lighter one's mass (its "enforced mass loss"): when their
 * kinetic energy of approach, mu v^2 / 2, exceeds the lighter one's
 * binding energy G m2^2 / (2 R2) and they come within half the sum of
 * their radii.  mix.f takes the separation and speed at the merger; here
 * they are the pericentre q where the dynamics found the contact and the
 * two-body speed there, from the two bodies' state now.  i: the heavier
 * star's slot, j: the lighter's; returns the mass (N-body units) the
 * lighter star loses, 0 when the rule does not apply. */
static double forced_loss(const sim *s, const evol_state *e, int i, int j, double q)
{
    double xi[3], vi[3], xj[3], vj[3];
    sim_predict_one(s, i, s->time, xi, vi);
    sim_predict_one(s, j, s->time, xj, vj);
    double r2 = 0.0, v2 = 0.0;
    for (int c = 0; c < 3; c++) {
        r2 += (xi[c] - xj[c]) * (xi[c] - xj[c]);
        v2 += (vi[c] - vj[c]) * (vi[c] - vj[c]);
    }
    const double m1 = s->m[i], m2 = s->m[j], M = m1 + m2, mu = m1 * m2 / M;
    const double vp2 = v2 + 2.0 * M * (1.0 / q - 1.0 / sqrt(r2)); /* energy kept from here to q */
    const double R1 = e->radius[s->name[i] - 1], R2 = e->radius[s->name[j] - 1];
    if (!(q < 0.5 * (R1 + R2)) || !(mu * vp2 > m2 * m2 / R2)) return 0.0;
    return FORCED_FRAC * m2;
}

/* Books an event's energy change de (the audit's exact one with
 * --energy-audit: e1 the total before). */
static void book(sim *s, evol_state *e, double de, double e1, int name, int other)
{
    if (s->led.exact) {
        const double de_exact = audit_energy(s) - e1;
        if (fabs(de_exact - de) > e->audit_max) e->audit_max = fabs(de_exact - de);
        de = de_exact;
    }
    e->booked -= de;
    ledger_record(&s->led, LED_STAR, s->time, name, other, -de, 0.0, 0.0, 0.0);
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The two-body orbit of relative state (q, w) under mass M: semi-major
 * axis (< 0 unbound), eccentricity, and the unit vectors of its
 * pericentre p and of the motion there u (a circular orbit's p: the
 * present direction; a radial one's u: any normal to p). */
static void orbit_of(double M, const double q[3], const double w[3], double *a, double *ecc, double p[3],
                     double u[3])
{
    const double r = sqrt(dot3(q, q)), v2 = dot3(w, w), rv = dot3(q, w);
    double ev[3], h[3];
    for (int c = 0; c < 3; c++) ev[c] = ((v2 - M / r) * q[c] - rv * w[c]) / M;
    *a = 1.0 / (2.0 / r - v2 / M);
    *ecc = sqrt(dot3(ev, ev));
    for (int c = 0; c < 3; c++) p[c] = *ecc > 1e-8 ? ev[c] / *ecc : q[c] / r;
    cross3(q, w, h);
    double hn = sqrt(dot3(h, h));
    if (!(hn > 0.0)) { /* head-on: any normal */
        const double z[3] = {fabs(p[0]) < 0.9 ? 1.0 : 0.0, fabs(p[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        cross3(p, z, h);
        hn = sqrt(dot3(h, h));
    }
    for (int c = 0; c < 3; c++) h[c] /= hn;
    cross3(h, p, u);
}

/* A remnant made by a common envelope or a merger counts and is kicked as
 * at a star's own evolution (dm: the mass thrown off), as NBODY6's
 * coal.f: a WD when none of the stars it came from was a remnant, a NS or
 * BH when none was a NS or BH (kw_was: the highest of their types). */
static void new_remnant(evol_state *e, int kw_was, const sse_star *now, double dm, double vk[3])
{
    vk[0] = vk[1] = vk[2] = 0.0;
    const int wd = now->kw >= SSE_HEWD && now->kw <= SSE_ONEWD && kw_was < SSE_HEWD;
    const int nsbh = (now->kw == SSE_NS || now->kw == SSE_BH) && kw_was < SSE_NS;
    if (!wd && !nsbh) return;
    count_remnant(e, now->kw);
    remnant_kick(e, now->kw, now->mass, dm, vk);
    if (vk[0] != 0.0 || vk[1] != 0.0 || vk[2] != 0.0) e->cnt.kicks++;
}

/* The stars' bookkeeping after a change of both (a merger: `lost` gone). */
static void settle(evol_state *e, int name, const sse_star *st, int lost)
{
    e->st[name - 1] = *st;
    e->mdyn[name - 1] = st->mass;
    e->radius[name - 1] = st->rad / e->o.rstar;
    if (st->kw == SSE_MASSLESS || !(st->mass > 0.0)) {
        e->gone[name - 1] = 1;
        e->radius[name - 1] = 0.0;
    } else {
        e->tmin = fmin(e->tmin, st->tnext);
    }
    if (lost) {
        e->mdyn[lost - 1] = 0.0;
        e->gone[lost - 1] = 1;
        e->radius[lost - 1] = 0.0;
    }
}

/* Singles i and j become the product prod (keeping `keep`'s slot, i),
 * kicked by vk (km/s) when it is a new remnant; nothing left: both leave.
 * *de the energy change. */
static int merge_bodies(sim *s, const evol_state *e, int i, int j, int keep, const sse_star *prod,
                        const double vk[3], double *de, char *err, size_t errlen)
{
    if (prod->kw == SSE_MASSLESS || !(prod->mass > 0.0)) {
        double de2;
        if (ks_star_remove(s, j, de, err, errlen)) return -1;
        if (ks_star_remove(s, ks_slot_of_star(s, keep), &de2, err, errlen)) return -1;
        *de += de2;
        return 0;
    }
    const double dv[3] = {vk[0] / e->o.vstar, vk[1] / e->o.vstar, vk[2] / e->o.vstar};
    return ks_star_merge(s, i, j, prod->mass / e->o.munit, dv, de, err, errlen) < 0 ? -1 : 0;
}

static void count_merge(evol_state *e, const ks_coll *c, double dm_star)
{
    e->coll.n++;
    e->coll.where[c->where >= 0 && c->where < 3 ? c->where : 0]++;
    e->coll.dm += dm_star;
}

/* Stars c->name1 and c->name2 collide and one of them is giant-like: the
 * common envelope decides what is left (sse_ce_collision). */
static int common_envelope(sim *s, evol_state *e, const ks_coll *c, int *resend_all, char *err, size_t errlen)
{
    const double T = s->time * e->o.tstar;
    /* the giant is star 1 (of two giants, the larger) */
    const sse_star *s1 = &e->st[c->name1 - 1], *s2 = &e->st[c->name2 - 1];
    const int g1 = sse_giant_like(s1->kw) && (!sse_giant_like(s2->kw) || s1->rad >= s2->rad);
    const int gname = g1 ? c->name1 : c->name2, oname = g1 ? c->name2 : c->name1;
    int partner;
    if (ks_star_isolate(s, gname, &partner, err, errlen) < 0) return -1;
    if (ks_star_isolate(s, oname, &partner, err, errlen) < 0) return -1;
    int i = ks_slot_of_star(s, gname), j = ks_slot_of_star(s, oname);
    double xi[3], vi[3], xj[3], vj[3], q[3], w[3], X[3], V[3], a, ecc, p[3], u[3];
    sim_predict_one(s, i, s->time, xi, vi);
    sim_predict_one(s, j, s->time, xj, vj);
    const double mi = s->m[i], mj = s->m[j], M = mi + mj;
    for (int k = 0; k < 3; k++) {
        q[k] = xi[k] - xj[k];
        w[k] = vi[k] - vj[k];
        X[k] = (mi * xi[k] + mj * xj[k]) / M;
        V[k] = (mi * vi[k] + mj * vj[k]) / M;
    }
    orbit_of(M, q, w, &a, &ecc, p, u);
    const sse_star g0 = e->st[gname - 1], o0 = e->st[oname - 1];
    sse_star g = g0, o = o0;
    double sep = a * e->o.rstar;
    const int out = sse_ce_collision(&e->c, &g, &o, T, &ecc, &sep);
    e->ce.n++;
    if (out == SSE_CE_NONE) { /* nothing changed: the pair as it was */
        int rc = ks_star_pair(s, gname, oname, err, errlen);
        return rc < 0 ? -1 : 0;
    }
    const double e1 = s->led.exact ? audit_energy(s) : 0.0;
    const double mlost = e->mdyn[gname - 1] + e->mdyn[oname - 1];
    double de;
    *resend_all = 1;
    if (out == SSE_CE_BINARY) {
        /* two stars at the pericentre of the orbit left, in the old orbit's
         * plane and direction, their c.m. where it was */
        double vk[3], vko[3];
        new_remnant(e, g0.kw, &g, g0.mass - g.mass, vk);
        new_remnant(e, o0.kw, &o, o0.mass - o.mass, vko); /* a giant companion's core too */
        const double m[2] = {g.mass / e->o.munit, o.mass / e->o.munit}, Mn = m[0] + m[1];
        const double rp = sep / e->o.rstar * (1.0 - ecc), vp = sqrt(Mn * (1.0 + ecc) / rp);
        double x[2][3], v[2][3];
        for (int k = 0; k < 3; k++) {
            x[0][k] = X[k] + m[1] / Mn * rp * p[k];
            x[1][k] = X[k] - m[0] / Mn * rp * p[k];
            v[0][k] = V[k] + m[1] / Mn * vp * u[k] + vk[k] / e->o.vstar;
            v[1][k] = V[k] - m[0] / Mn * vp * u[k] + vko[k] / e->o.vstar;
        }
        if (ks_star_reshape(s, i, j, m, (const double(*)[3])x, (const double(*)[3])v, &de, err, errlen)) return -1;
        e->ce.binaries++;
        pair_line(e, s, "ce", gname, &g0, &g, vk, oname, &o);
        settle(e, gname, &g, 0);
        settle(e, oname, &o, 0);
        book(s, e, de, e1, gname, oname); /* before the pair forms: its jump is the ledger's own */
        int rc = ks_star_pair(s, gname, oname, err, errlen);
        if (rc < 0) return -1;
        e->cnt.pairs_reformed += rc;
    } else {
        /* one star left at the c.m.: the coalesced cores, or what a
         * collision of the stars left by the envelope's passage makes */
        sse_star prod = g;
        int keep = gname, lost = oname;
        double dm_star = 0.0;
        if (out == SSE_CE_TOUCH) {
            keep = sse_merge(&e->c, &g, &o, T, &prod, &dm_star) ? gname : oname;
            lost = keep == gname ? oname : gname;
            e->ce.touched++;
        } else {
            e->ce.coalesced++;
        }
        const int ik = keep == gname ? i : j, jl = keep == gname ? j : i;
        double vk[3];
        new_remnant(e, g0.kw > o0.kw ? g0.kw : o0.kw, &prod, g0.mass + o0.mass - prod.mass, vk);
        if (merge_bodies(s, e, ik, jl, keep, &prod, vk, &de, err, errlen)) return -1;
        pair_line(e, s, out == SSE_CE_TOUCH ? "merge" : "ce-merge", keep, keep == gname ? &g0 : &o0, &prod, vk,
                  lost, keep == gname ? &o0 : &g0);
        count_merge(e, c, dm_star);
        settle(e, keep, &prod, lost);
        book(s, e, de, e1, keep, lost);
    }
    const double dm = mlost - e->mdyn[gname - 1] - e->mdyn[oname - 1];
    e->cnt.dm += dm;
    e->ce.dm += g0.mass + o0.mass - g.mass - o.mass;
    return 1;
}

/* Stars c->name1 and c->name2 become one (evol_collisions). */
static int collide(sim *s, evol_state *e, const ks_coll *c, int *resend_all, char *err, size_t errlen)
{
    const int a = c->name1, b = c->name2;
    if (a < 1 || a > e->nstar || b < 1 || b > e->nstar || a == b || e->gone[a - 1] || e->gone[b - 1])
        return 0; /* one of them already merged into a third, or left */
    if (sse_collision_type(e->st[a - 1].kw, e->st[b - 1].kw) > 100)
        return common_envelope(s, e, c, resend_all, err, errlen);
    const double T = s->time * e->o.tstar;
    sse_star prod, sa = e->st[a - 1], sb = e->st[b - 1];
    double dm_star;
    const int keep = sse_merge(&e->c, &sa, &sb, T, &prod, &dm_star) ? a : b, lost = keep == a ? b : a;
    int partner;
    /* both out of their systems (pair, chain, hierarchy; their own jumps
     * are the ledger's), then one body */
    if (ks_star_isolate(s, keep, &partner, err, errlen) < 0) return -1;
    const int j = ks_star_isolate(s, lost, &partner, err, errlen);
    if (j < 0) return -1;
    const int i = ks_slot_of_star(s, keep);
    const double e1 = s->led.exact ? audit_energy(s) : 0.0;
    if (sa.kw <= SSE_MS && sb.kw <= SSE_MS) { /* the lighter (lost) throws off part of itself */
        const double dmf = forced_loss(s, e, i, j, c->q) * e->o.munit;
        if (dmf > 0.0) {
            sse_star *light = lost == a ? &sa : &sb;
            light->mass -= dmf;
            light->m0 -= dmf;
            sse_merge(&e->c, &sa, &sb, T, &prod, &dm_star);
            dm_star += dmf;
        }
    }
    double de, vk[3];
    new_remnant(e, sa.kw > sb.kw ? sa.kw : sb.kw, &prod, sa.mass + sb.mass - prod.mass, vk);
    if (merge_bodies(s, e, i, j, keep, &prod, vk, &de, err, errlen)) return -1;
    *resend_all = 1;
    /* the mass the dynamics loses: what the stars threw off, and what
     * their states had lost and the dynamics not yet (small winds wait) */
    e->cnt.dm += e->mdyn[a - 1] + e->mdyn[b - 1] - prod.mass;
    count_merge(e, c, dm_star);
    pair_line(e, s, "merge", keep, &e->st[keep - 1], &prod, vk, lost, &e->st[lost - 1]); /* as they met */
    settle(e, keep, &prod, lost);
    book(s, e, de, e1, keep, lost);
    return 1;
}

int evol_collisions(sim *s, int *resend_all, char *err, size_t errlen)
{
    evol_state *e = s->evol;
    *resend_all = 0;
    if (!e) return 0;
    ks_coll c[KS_COLL_MAX];
    int n = ks_collisions_take(s, c, KS_COLL_MAX), done = 0, used[2 * KS_COLL_MAX], nused = 0;
    for (int k = 0; k < n; k++) {
        /* a star already merged at this time is another star now, elsewhere:
         * what it touched before is stale (its next approach is checked) */
        int stale = 0;
        for (int q = 0; q < nused; q++) stale |= used[q] == c[k].name1 || used[q] == c[k].name2;
        if (stale) continue;
        int rc = collide(s, e, &c[k], resend_all, err, errlen);
        if (rc < 0) return -1;
        if (rc > 0) {
            used[nused++] = c[k].name1;
            used[nused++] = c[k].name2;
        }
        done += rc;
    }
    if (e->events && done) fflush(e->events);
    return done;
}

/* ---- checkpoint ----------------------------------------------------------- */

void evol_save(wbuf *w, const sim *s)
{
    const evol_state *e = s->evol;
    wb_u32(w, SEVO_VERSION);
    wb_u32(w, (uint32_t)sizeof(sse_star));
    wb_i64(w, e->nstar);
    wb_f64(w, e->o.z);
    wb_f64(w, e->o.epoch0);
    wb_put(w, &e->o.kicks, sizeof e->o.kicks);
    wb_put(w, e->st, sizeof(sse_star) * (size_t)e->nstar);
    wb_put(w, e->mdyn, sizeof(double) * (size_t)e->nstar);
    wb_put(w, e->gone, (size_t)e->nstar);
    wb_f64(w, e->tmin);
    wb_f64(w, e->booked);
    wb_put(w, &e->cnt, sizeof e->cnt);
    wb_put(w, &e->rng, sizeof e->rng);
    long long bytes = e->events_bytes;
    if (e->events && fflush(e->events) == 0) bytes = ftell(e->events);
    wb_i64(w, bytes);
    /* version 2: the collisions, and those found but not merged yet */
    wb_put(w, &e->coll, sizeof e->coll);
    const ks_coll *pend;
    int np = ks_collisions_pending(s, &pend);
    wb_i64(w, np);
    for (int k = 0; k < np; k++) { /* field by field: the struct has padding */
        wb_i64(w, pend[k].name1);
        wb_i64(w, pend[k].name2);
        wb_f64(w, pend[k].q);
        wb_i64(w, pend[k].where);
    }
    wb_put(w, &e->ce, sizeof e->ce); /* version 3 */
}

int evol_load(rbuf *r, sim *s)
{
    evol_state *e = s->evol;
    /* version 1 (no collisions) began with sizeof(sse_star), far above 2 */
    uint32_t first = rb_u32(r), version = first >= 2 && first <= SEVO_VERSION ? first : 1;
    if (version >= 2) first = rb_u32(r);
    if (first != sizeof(sse_star) || rb_i64(r) != e->nstar) return -1;
    double z = rb_f64(r), epoch0 = rb_f64(r);
    if (z != e->o.z || epoch0 != e->o.epoch0) return -1;
    rb_get(r, &e->o.kicks, sizeof e->o.kicks);
    rb_get(r, e->st, sizeof(sse_star) * (size_t)e->nstar);
    rb_get(r, e->mdyn, sizeof(double) * (size_t)e->nstar);
    rb_get(r, e->gone, (size_t)e->nstar);
    e->tmin = rb_f64(r);
    e->booked = rb_f64(r);
    rb_get(r, &e->cnt, sizeof e->cnt);
    rb_get(r, &e->rng, sizeof e->rng);
    e->events_bytes = rb_i64(r);
    if (version >= 2) {
        rb_get(r, &e->coll, sizeof e->coll);
        int64_t np = rb_i64(r);
        ks_coll pend[KS_COLL_MAX];
        if (np < 0 || np > KS_COLL_MAX) return -1;
        for (int k = 0; k < np; k++) {
            pend[k].name1 = (int)rb_i64(r);
            pend[k].name2 = (int)rb_i64(r);
            pend[k].q = rb_f64(r);
            pend[k].where = (int)rb_i64(r);
        }
        ks_collisions_restore(s, pend, (int)np);
    }
    if (version >= 3) rb_get(r, &e->ce, sizeof e->ce);
    for (int k = 0; k < e->nstar; k++) e->radius[k] = e->gone[k] ? 0.0 : e->st[k].rad / e->o.rstar;
    return rb_done(r);
}
