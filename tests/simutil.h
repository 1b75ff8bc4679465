/* simutil.h — what the integrator tests share: a deck with the sample decks'
 * parameters filled in by hand, Kepler binaries, in-memory runs. */
#ifndef NBODY6C_SIMUTIL_H
#define NBODY6C_SIMUTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "integ/checks.h"
#include "io/deck.h"
#include "ic/ic.h"
#include "app/run.h"
#include "core/sim.h"

/* The 1k sample deck's parameters (input/plummer-eq-1024-t2.deck). */
static inline void deck_defaults(deck *d, int n)
{
    memset(d, 0, sizeof *d);
    d->kstart = 1;
    d->n = n;
    d->nfix = 1;
    d->nrand = 199;
    d->nnbmax = 80;
    d->etai = 0.02;
    d->etar = 0.01;
    d->rs0 = 0.3;
    d->dtadj = 2.0;
    d->deltat = 2.0;
    d->tcrit = 2.0;
    d->qe = 2e-4;
    d->rbar = 1.0;
    d->zmbar = 0.5;
    d->kz[5] = 1;
    d->kz[40] = 1;
    d->dtmin = 2e-5;
    d->rmin = 1e-3;
    d->etau = 0.2;
    d->eclose = 1.0;
    d->gmin = 1e-6;
    d->gmax = 1e-3;
    d->alphas = 1.0;
    d->body1 = d->bodyn = 1.0;
    d->q = 0.5;
    d->smax = 1.0;
}

static inline run_options quiet_cpu_options(void)
{
    run_options o;
    memset(&o, 0, sizeof o);
    o.quiet = 1;
    o.gpu.mode = GPUNB_CPU_REF;
    o.simd = GPUIRR_SCALAR;
    return o;
}

/* Two bodies of mass 1/2 on a Kepler orbit (a = 1, eccentricity e), at
 * apocentre, c.m. at rest at the origin.  Period 2 pi. */
static inline void kepler_pair(double e, double *m, double (*x)[3], double (*v)[3])
{
    double M = 1.0, a = 1.0, ra = a * (1.0 + e);
    double va = sqrt(M / a * (1.0 - e) / (1.0 + e));
    memset(x, 0, 2 * sizeof *x);
    memset(v, 0, 2 * sizeof *v);
    m[0] = m[1] = 0.5;
    x[0][0] = 0.5 * ra;
    x[1][0] = -0.5 * ra;
    v[0][1] = 0.5 * va;
    v[1][1] = -0.5 * va;
}

/* A binary of masses m1, m2, semi-major axis a, eccentricity e at
 * apocentre about the c.m. xc moving with vc; separation along x, the
 * orbit's plane tilted by incl about the x axis. */
static inline void kepler_binary(double m1, double m2, double a, double e, double incl,
                                 const double xc[3], const double vc[3], double *m, double (*x)[3],
                                 double (*v)[3])
{
    double M = m1 + m2, ra = a * (1 + e), va = sqrt(M / a * (1 - e) / (1 + e));
    m[0] = m1;
    m[1] = m2;
    double vy = va * cos(incl), vz = va * sin(incl);
    for (int c = 0; c < 3; c++) {
        x[0][c] = x[1][c] = xc[c];
        v[0][c] = v[1][c] = vc[c];
    }
    x[0][0] += m2 / M * ra;
    x[1][0] -= m1 / M * ra;
    v[0][1] += m2 / M * vy;
    v[0][2] += m2 / M * vz;
    v[1][1] -= m1 / M * vy;
    v[1][2] -= m1 / M * vz;
}

/* Total energy by a direct sum at the bodies' corrected or predicted state. */
static inline double direct_energy(int n, const double *m, const double (*x)[3], const double (*v)[3])
{
    long double t = 0, w = 0;
    for (int i = 0; i < n; i++) {
        t += 0.5L * m[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
        for (int j = i + 1; j < n; j++) {
            double dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1], dz = x[i][2] - x[j][2];
            w -= (long double)m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return (double)(t + w);
}

/* Makes the body nearest the half-mass radius (~0.77) and the next one a
 * binary of semi-major axis a and eccentricity e at apocentre, in a tilted
 * plane, keeping their centre of mass and its motion.  Returns the first. */
static inline int plant_binary(int n, const double *m, double (*x)[3], double (*v)[3], double a, double e)
{
    int i0 = 0;
    double best = 1e9;
    for (int i = 0; i < n; i++) {
        double r = sqrt(x[i][0] * x[i][0] + x[i][1] * x[i][1] + x[i][2] * x[i][2]);
        if (fabs(r - 0.77) < best) { best = fabs(r - 0.77); i0 = i; }
    }
    int i1 = (i0 + 1) % n;
    double M = m[i0] + m[i1], ra = a * (1 + e), va = sqrt(M / a * (1 - e) / (1 + e));
    double xc[3], vc[3];
    for (int c = 0; c < 3; c++) {
        xc[c] = (m[i0] * x[i0][c] + m[i1] * x[i1][c]) / M;
        vc[c] = (m[i0] * v[i0][c] + m[i1] * v[i1][c]) / M;
    }
    /* orbit in a tilted plane */
    double ex[3] = {0.6, 0.0, 0.8}, ey[3] = {0.0, 1.0, 0.0};
    for (int c = 0; c < 3; c++) {
        x[i0][c] = xc[c] + m[i1] / M * ra * ex[c];
        x[i1][c] = xc[c] - m[i0] / M * ra * ex[c];
        v[i0][c] = vc[c] + m[i1] / M * va * ey[c];
        v[i1][c] = vc[c] - m[i0] / M * va * ey[c];
    }
    return i0; /* the pair is bodies i0 and (i0 + 1) % n */
}

/* A run of the deck at path, in memory: its model (with a planted binary
 * a = 1e-3, e = 0.7 when planted is nonzero; its first body's slot in *i0),
 * started with options o.  NULL with err on failure. */
static inline sim *start_deck_run(const char *path, const run_options *o, int planted, int *i0,
                                  diag *d0, char *err, size_t errlen)
{
    deck d;
    if (deck_read_path(path, &d, err, errlen)) return NULL;
    int n = d.n + d.nbin0; /* primordial binaries' companions come on top */
    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    sim *s = NULL;
    if (m && x && v && ic_make(&d, NULL, m, x, v, err, errlen) == 0) {
        int first = planted ? plant_binary(n, m, x, v, 1e-3, 0.7) : -1;
        if (i0) *i0 = first;
        s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, o, d0, err, errlen);
    }
    free(m);
    free(x);
    free(v);
    return s;
}

/* nfield light bodies (1e-3 each) on a ring of radius 0.3 about the first n
 * bodies (so that an isolated encounter's c.m. has neighbours: an empty list
 * would get NBODY6's fictitious central mass), then everything in the c.m.
 * frame.  m, x, v have room for n + nfield; returns n + nfield. */
static inline int add_field_ring(int n, int nfield, double *m, double (*x)[3], double (*v)[3])
{
    double mc = 0.0;
    for (int i = 0; i < n; i++) mc += m[i];
    for (int k = 0; k < nfield; k++) {
        double ph = 2.0 * M_PI * k / nfield, r = 0.3, vc = sqrt(mc / r);
        m[n + k] = 1e-3;
        x[n + k][0] = r * cos(ph);
        x[n + k][1] = r * sin(ph);
        x[n + k][2] = 0.02 * (k % 2 ? 1 : -1);
        v[n + k][0] = -vc * sin(ph);
        v[n + k][1] = vc * cos(ph);
        v[n + k][2] = 0.0;
    }
    n += nfield;
    for (int c = 0; c < 3; c++) {
        double M = 0, px = 0, pv = 0;
        for (int i = 0; i < n; i++) {
            M += m[i];
            px += m[i] * x[i][c];
            pv += m[i] * v[i][c];
        }
        for (int i = 0; i < n; i++) {
            x[i][c] -= px / M;
            v[i][c] -= pv / M;
        }
    }
    return n;
}

/* The stellar-evolution tests' 128-body cluster: a Plummer model (NRAND
 * 4321, KZ(14) = 1 with RBAR 2 pc when tidal) scaled to 0.93 of the mass
 * with body 10 made heavy (+0.05), and when pair is given {m1, m2, a, e,
 * inclination} body 20 replaced by that hard pair; started and run to
 * t = 0.25 so that steps and lists are settled.  NULL (said why) on failure. */
static inline sim *cluster128_start(deck *d, int tidal, const double *pair)
{
    enum { N = 128 };
    static double m[N], x[N][3], v[N][3];
    deck_defaults(d, N);
    d->nrand = 4321;
    d->etai = 0.01;
    d->etar = 0.02;
    d->rmin = 0.005;
    d->dtmin = 5e-4;
    if (tidal) {
        d->kz[14] = 1;
        d->rbar = 2.0;
        d->zmbar = 1.0;
    }
    char err[512];
    if (ic_make(d, NULL, m, x, v, err, sizeof err)) return NULL;
    for (int i = 0; i < N; i++) m[i] *= 0.93;
    m[10] += 0.05;
    if (pair) {
        double xc[3] = {x[20][0], x[20][1], x[20][2]}, vc[3] = {v[20][0], v[20][1], v[20][2]};
        kepler_binary(pair[0], pair[1], pair[2], pair[3], pair[4], xc, vc, m + 20, x + 20, v + 20);
    }
    run_options o = quiet_cpu_options();
    sim *s = run_start(d, N, m, (const double(*)[3])x, (const double(*)[3])v, &o, NULL, err, sizeof err);
    if (!s) {
        printf("# run_start: %s\n", err);
        return NULL;
    }
    if (run_advance(s, 0.25, err, sizeof err)) {
        printf("# run: %s\n", err);
        run_end(s);
        return NULL;
    }
    return s;
}

#endif
