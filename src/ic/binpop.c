/* binpop.c — primordial binaries (KZ(8) = 1 or >= 3 with NBIN0 > 0), made
 * the way NBODY6's binpop.f makes them: after the model is drawn and scaled
 * to standard units, the first NBIN0 bodies become the binaries' centres of
 * mass and are split into two components each.  So the binaries' binding
 * energy is not part of the E = -1/4 scaling (NBODY6 scales first, then
 * splits); nothing is rescaled afterwards, only the centre of mass of the
 * whole system is put at rest again.
 *
 * What this file owns, with NBODY6's rules (deck line SEMI0 ECC0 RATIO RANGE
 * NSKIP IDORM ICIRC, deck.c):
 *   - which model bodies are the binaries' c.m. bodies and which stay single
 *     (layout_of; N's meaning depends on RATIO, below);
 *   - the component masses: RATIO = 1 gives two components of the c.m.
 *     body's mass each (N counts both components: the model's body i + 1 ..
 *     are dropped to keep N), RATIO < 1 gives M1 = RATIO M and
 *     M2 = (1 - RATIO) M of the c.m. mass M (N counts a binary once; the run
 *     has N + NBIN0 bodies); NSKIP > 0 with RATIO < 1 takes every
 *     (NSKIP+1)-th of the heaviest (NSKIP+1) NBIN0 masses for the binaries;
 *     with KZ(20) >= 2 (only Kroupa's 6, 7 get this far: ic.c) imf2.f has
 *     drawn the components (imf_kroupa_binaries) and binpop.f splits each
 *     c.m. body in their ratio, RATIO and NSKIP unused; N counts a binary
 *     once, as for RATIO < 1;
 *   - the orbits: eccentricity ECC0, or thermal (f(e) = 2e) for ECC0 < 0;
 *     semi-major axis SEMI0, or flat in log a between SEMI0/RANGE and SEMI0
 *     for RANGE > 0, or with KZ(8) = 4 from Kroupa's (1995, MNRAS 277, 1491,
 *     eq. 11b) period distribution, log10(P/days) from 1 up; argument of
 *     pericentre and node uniform in [0, 2 pi) and the inclination uniform in
 *     [0, pi] (binpop.f draws the angle, not its cosine: the orientations
 *     are not isotropic, and nbody6c keeps NBODY6's rule); the components
 *     start at apocentre;
 *   - IDORM > 0: the binaries stay single bodies of the pair's mass
 *     ("dormant"), NBODY6's N - NBIN0 bookkeeping included.
 * The random numbers come from their own generator seeded by NRAND (not the
 * model's stream), so the cluster's positions do not depend on NBIN0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ic/ic.h"
#include "io/setup.h"

#define TWO_PI 6.283185307179586476925287
#define AU_PER_PC 206259.591          /* binpop.f's conversion */
#define DAYS_PER_YEAR 365.25
#define KROUPA_ETA 2.5                /* Kroupa (1995) eq. 11b */
#define KROUPA_DELTA 45.0
#define KROUPA_LOGP_MIN 1.0           /* log10(P / days) */
#define BINPOP_SEED_SALT 0x62696e706f70ULL /* "binpop": a stream apart from the model's */

int binpop_on(const deck *d)
{
    return (d->kz[8] == 1 || d->kz[8] >= 3) && d->nbin0 > 0;
}

/* binpop.f's own test: KZ(20) >= 2 means imf2.f has made the components. */
int binpop_imf_pairs(const deck *d)
{
    return binpop_on(d) && d->kz[20] >= 2;
}

/* Where the binaries and the singles come from in the model's n bodies. */
typedef struct layout {
    int nbin;         /* binaries */
    int first_single; /* model index of the first single */
    int nsing;        /* singles */
    int dormant;      /* IDORM > 0: binaries kept as one body each */
} layout;

/* binpop.f moves the singles up by NBIN0 (making room for the second
 * components) unless NSKIP > 0 with RATIO = 1; with RATIO = 1, N does not
 * grow, so the model bodies that end up beyond N are dropped: the last
 * NBIN0 after the move, bodies NBIN0 + 1 .. 2 NBIN0 without it. */
static layout layout_of(const deck *d)
{
    layout L = {0, 0, d->n, 0};
    if (!binpop_on(d))
        return L;
    L.nbin = d->nbin0;
    L.dormant = d->idorm > 0;
    /* imf2.f's pairs: binpop.f goes straight to moving the singles up and
     * N grows by NBIN0, as with RATIO < 1 */
    const int split = d->ratio < 1.0 || binpop_imf_pairs(d);
    const int moved = d->nskip == 0 || split;
    L.first_single = moved ? L.nbin : 2 * L.nbin;
    L.nsing = split ? d->n - L.nbin : d->n - 2 * L.nbin;
    return L;
}

int ic_body_count(const deck *d)
{
    const layout L = layout_of(d);
    return L.nbin * (L.dormant ? 1 : 2) + L.nsing;
}

/* NSKIP > 0: the c.m. masses are bodies 1, NSKIP + 2, 2 NSKIP + 3, ... of
 * the mass-ordered list (every (NSKIP+1)-th from the heaviest), the skipped
 * ones follow as singles; positions and velocities stay where they are. */
static int skip_masses(int nbin, int nskip, double *m)
{
    const int ilast = (nskip + 1) * nbin, nskipped = ilast - nbin;
    double *single = malloc(sizeof(double) * (size_t)(nskipped > 0 ? nskipped : 1));
    if (!single)
        return -1;
    int jb = 0, js = 0;
    for (int i = 0; i < ilast; i++) {
        if (i % (nskip + 1) == 0)
            m[jb++] = m[i]; /* jb <= i: a mass is read before its place is written */
        else
            single[js++] = m[i];
    }
    memcpy(m + nbin, single, sizeof(double) * (size_t)nskipped);
    free(single);
    return 0;
}

/* ---- the orbital elements ---- */

typedef struct elements {
    double a, e;
    double omega, node, incl; /* pericentre argument, node, inclination */
} elements;

/* Kroupa (1995) eq. 11b inverted: log10(P/days) = 1 + sqrt(delta (e^(2u/eta) - 1)),
 * then Kepler's law with the pair's mass in Msun (munit: Msun per N-body
 * mass unit) to a semi-major axis in N-body lengths (rbar: pc). */
static double kroupa_semi(double mpair, double munit, double rbar, double u)
{
    const double logp = KROUPA_LOGP_MIN + sqrt(KROUPA_DELTA * (exp(2.0 * u / KROUPA_ETA) - 1.0));
    const double p_yr = pow(10.0, logp) / DAYS_PER_YEAR;
    const double a_au = cbrt(mpair * munit * p_yr * p_yr);
    return a_au / AU_PER_PC / rbar;
}

/* One binary's elements, the random numbers drawn in binpop.f's order
 * (angles, then the eccentricity, then the semi-major axis). */
static elements draw_elements(const deck *d, double mpair, double munit, rng *r)
{
    elements el;
    el.omega = TWO_PI * rng_uniform(r);
    el.node = TWO_PI * rng_uniform(r);
    el.incl = 0.5 * TWO_PI * rng_uniform(r);
    el.e = d->ecc0 < 0.0 ? sqrt(rng_uniform(r)) : d->ecc0;
    const double rbar = d->rbar > 0.0 ? d->rbar : 1.0; /* units.f's default */
    if (d->kz[8] == 4)
        el.a = kroupa_semi(mpair, munit, rbar, rng_uniform(r));
    else if (d->range > 0.0)
        el.a = d->semi0 / pow(10.0, rng_uniform(r) * log10(d->range));
    else
        el.a = d->semi0;
    return el;
}

/* Components of a pair of masses m1, m2 with elements el about the c.m. at
 * (xc, vc): relative motion at apocentre along the orbit's P vector,
 * velocity along Q (Brouwer & Clemence's rotation). */
static void place_pair(double m1, double m2, const elements *el, const double xc[3],
                       const double vc[3], double x1[3], double v1[3], double x2[3], double v2[3])
{
    const double co = cos(el->omega), so = sin(el->omega), cn = cos(el->node),
                 sn = sin(el->node), ci = cos(el->incl), si = sin(el->incl);
    const double P[3] = {co * cn - so * sn * ci, co * sn + so * cn * ci, so * si};
    const double Q[3] = {-so * cn - co * sn * ci, -so * sn + co * cn * ci, co * si};
    const double M = m1 + m2;
    const double rap = el->a * (1.0 + el->e);
    const double vap = sqrt(M * (1.0 - el->e) / rap);
    for (int c = 0; c < 3; c++) {
        const double xr = P[c] * rap, vr = Q[c] * vap;
        x1[c] = xc[c] + m2 / M * xr;
        x2[c] = xc[c] - m1 / M * xr;
        v1[c] = vc[c] + m2 / M * vr;
        v2[c] = vc[c] - m1 / M * vr;
    }
}

static void remove_cm_motion(int n, const double *m, double (*x)[3], double (*v)[3])
{
    double mt = 0.0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        mt += m[i];
        for (int c = 0; c < 3; c++) {
            xc[c] += m[i] * x[i][c];
            vc[c] += m[i] * v[i][c];
        }
    }
    /* the actual total: with RATIO = 1 and unequal masses it is no longer 1 */
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            x[i][c] -= xc[c] / mt;
            v[i][c] -= vc[c] / mt;
        }
}

static void copy_body(double *m, double (*x)[3], double (*v)[3], int to, double mi,
                      const double xi[3], const double vi[3])
{
    m[to] = mi;
    memcpy(x[to], xi, sizeof(double[3]));
    memcpy(v[to], vi, sizeof(double[3]));
}

/* Binary k's component masses from its c.m. body's mass mb: imf2.f's pair
 * (primary[k] the heavier one's share), or by RATIO. */
static void components(const deck *d, const double *primary, int k, double mb, double *m1,
                       double *m2)
{
    if (primary) {
        *m1 = primary[k] * mb;
        *m2 = mb - *m1; /* the c.m. body's mass exactly */
    } else if (d->ratio == 1.0) {
        *m1 = *m2 = mb;
    } else {
        *m1 = d->ratio * mb;
        *m2 = (1.0 - d->ratio) * mb;
    }
}

int binpop_make(const deck *d, double munit, const double *primary, double *mm,
                const double (*mx)[3], const double (*mv)[3], double *m, double (*x)[3],
                double (*v)[3], double *ebin0)
{
    const layout L = layout_of(d);
    *ebin0 = 0.0;
    if ((primary != NULL) != binpop_imf_pairs(d))
        return -2; /* the caller's contract, not the deck's */
    if (!primary && d->ratio < 1.0 && d->nskip > 0 && skip_masses(L.nbin, d->nskip, mm))
        return -1;
    rng r;
    rng_seed(&r, (uint64_t)(int64_t)d->nrand ^ BINPOP_SEED_SALT);
    for (int k = 0; k < L.nbin; k++) {
        double m1, m2;
        components(d, primary, k, mm[k], &m1, &m2);
        const elements el = draw_elements(d, m1 + m2, munit, &r);
        if (L.dormant) {
            copy_body(m, x, v, k, m1 + m2, mx[k], mv[k]);
            continue;
        }
        m[2 * k] = m1;
        m[2 * k + 1] = m2;
        place_pair(m1, m2, &el, mx[k], mv[k], x[2 * k], v[2 * k], x[2 * k + 1], v[2 * k + 1]);
        *ebin0 -= 0.5 * m1 * m2 / el.a;
    }
    const int first = L.nbin * (L.dormant ? 1 : 2);
    for (int i = 0; i < L.nsing; i++)
        copy_body(m, x, v, first + i, mm[L.first_single + i], mx[L.first_single + i],
                  mv[L.first_single + i]);
    remove_cm_motion(first + L.nsing, m, x, v);
    return 0;
}

void binpop_describe(const deck *d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!binpop_on(d)) {
        if (setup_primordial_pairs(d) > 0)
            snprintf(buf, len, ", the first %d pairs of the file as primordial binaries (NBIN0)",
                     d->nbin0);
        return;
    }
    char semi[160];
    if (d->kz[8] == 4)
        snprintf(semi, sizeof semi, "periods from Kroupa (1995)");
    else if (d->range > 0.0)
        snprintf(semi, sizeof semi, "a flat in log a from %g to %g", d->semi0 / d->range, d->semi0);
    else
        snprintf(semi, sizeof semi, "a = %g", d->semi0);
    char ecc[64];
    if (d->ecc0 < 0.0)
        snprintf(ecc, sizeof ecc, "thermal e");
    else
        snprintf(ecc, sizeof ecc, "e = %g", d->ecc0);
    char masses[160];
    if (binpop_imf_pairs(d))
        snprintf(masses, sizeof masses, "components paired from the IMF's draws (imf2.f%s)",
                 d->kz[20] == 7 ? ", m2/m1 -> (m2/m1)^0.4" : "");
    else
        snprintf(masses, sizeof masses, "RATIO %g, NSKIP %d", d->ratio, d->nskip);
    snprintf(buf, len, ", %d primordial binaries (KZ(8) = %d%s): %s, %s, %s", d->nbin0, d->kz[8],
             d->idorm > 0 ? ", dormant (IDORM)" : "", semi, ecc, masses);
}
