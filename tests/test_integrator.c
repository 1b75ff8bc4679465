/* test_integrator.c — the block-step integrator against physics: the order
 * of the Hermite corrector, the error's scaling with ETA under Aarseth's
 * criterion, Ahmad–Cohen against plain Hermite, a flyby at its peak when a
 * long regular step ends, thread-count independence, and the 1k sample
 * deck against NBODY6's own figures. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "integ/block.h"
#include "check.h"
#include "core/hermite.h"
#include "core/newpoly.h"
#include "common/predict.h"
#include "simutil.h"

/* ---- Hermite order with a fixed shared step (two-body, e = 0.5) -------- */

static void pair_force(const double x[2][3], const double v[2][3], const double *m,
                       double a[2][3], double j[2][3])
{
    double r[3], w[3];
    for (int c = 0; c < 3; c++) {
        r[c] = x[1][c] - x[0][c];
        w[c] = v[1][c] - v[0][c];
    }
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rv = r[0] * w[0] + r[1] * w[1] + r[2] * w[2];
    double r3 = r2 * sqrt(r2);
    for (int c = 0; c < 3; c++) {
        double ac = r[c] / r3, jc = (w[c] - 3.0 * rv / r2 * r[c]) / r3;
        a[0][c] = m[1] * ac;
        j[0][c] = m[1] * jc;
        a[1][c] = -m[0] * ac;
        j[1][c] = -m[0] * jc;
    }
}

/* Largest |dE/E| over 4 orbits with nstep steps per orbit, using the block
 * step's own predictor and irregular corrector. */
static double hermite_fixed_step_error(int nstep)
{
    double m[2], x[2][3], v[2][3], a[2][3], j[2][3], a1[2][3], j1[2][3];
    kepler_pair(0.5, m, x, v);
    pair_force((const double(*)[3])x, (const double(*)[3])v, m, a, j);
    double e0 = direct_energy(2, m, (const double(*)[3])x, (const double(*)[3])v), emax = 0.0;
    double dt = 2.0 * M_PI / nstep;
    for (int s = 0; s < 4 * nstep; s++) {
        double xp[2][3], vp[2][3], a2[3], a3[3];
        for (int i = 0; i < 2; i++) predict3(dt, x[i], v[i], a[i], j[i], xp[i], vp[i]);
        pair_force((const double(*)[3])xp, (const double(*)[3])vp, m, a1, j1);
        for (int i = 0; i < 2; i++)
            hermite_irregular(dt, xp[i], vp[i], a[i], j[i], a1[i], j1[i], x[i], v[i], a2, a3);
        pair_force((const double(*)[3])x, (const double(*)[3])v, m, a, j);
        double e = direct_energy(2, m, (const double(*)[3])x, (const double(*)[3])v);
        emax = fmax(emax, fabs((e - e0) / e0));
    }
    return emax;
}

static void test_hermite_order(void)
{
    double e1 = hermite_fixed_step_error(400), e2 = hermite_fixed_step_error(800),
           e3 = hermite_fixed_step_error(1600);
    printf("# fixed step: max |dE/E| %.3e (P/400), %.3e (P/800), %.3e (P/1600); ratios %.2f %.2f\n",
           e1, e2, e3, e1 / e2, e2 / e3);
    /* fourth order: halving the step divides the error by 2^4 = 16.
     * Measured 16.55 and 16.28 (the next order's share fading).  The 30 %
     * band keeps the order apart from its neighbours (8, 32) and no more:
     * a wrong coefficient that keeps the scheme fourth order (0.6 -> 0.5 in
     * the position corrector: ratios unchanged) is test_hermite.c's to see. */
    CHECK(fabs(e1 / e2 / 16.0 - 1.0) < 0.3, "Hermite: P/400 -> P/800 divides the energy error by %.2f (16 +- 30%%)", e1 / e2);
    CHECK(fabs(e2 / e3 / 16.0 - 1.0) < 0.3, "Hermite: P/800 -> P/1600 divides the energy error by %.2f (16 +- 30%%)", e2 / e3);
}

/* ---- Aarseth's criterion: the error scales as ETA^2 ------------------- */

static double kepler_run_error(double eta)
{
    deck d;
    deck_defaults(&d, 2);
    d.etai = eta;
    d.etar = 2.0 * eta;
    d.rs0 = 100.0; /* each body is the other's neighbour: one irregular force */
    d.smax = 4.0; /* above every step of the orbit: no cap to spoil the scaling */
    double m[2], x[2][3], v[2][3];
    kepler_pair(0.5, m, x, v);
    run_options o = quiet_cpu_options();
    char err[512];
    sim *s = run_start(&d, 2, m, (const double(*)[3])x, (const double(*)[3])v, &o, NULL, err, sizeof err);
    if (!s) {
        printf("# run_start: %s\n", err);
        return NAN;
    }
    s->p.ks_off = 1; /* the Hermite scheme itself */
    double e0 = direct_energy(2, s->m, (const double(*)[3])s->x0, (const double(*)[3])s->v0);
    double emax = 0.0;
    for (int k = 1; k <= 32; k++) { /* 4 orbits, checked every 1/8 period-ish */
        if (run_advance(s, k * 0.78125, err, sizeof err)) break;
        vec3 xs[2], vs[2];
        sim_predict_all(s, xs, vs);
        double e = direct_energy(2, s->m, (const double(*)[3])xs, (const double(*)[3])vs);
        emax = fmax(emax, fabs((e - e0) / e0));
    }
    run_end(s);
    return emax;
}

static void test_eta_scaling(void)
{
    /* Measured: from ETA = 0.02 the ratios are 25.8, 20.8, 19.1, 17.7, 16.4
     * per factor 4: the higher-order terms fade only below ETA ~ 1e-3 for
     * e = 0.5 (a circular orbit gives 32, its 4th-order energy term
     * cancelling).  Start in the asymptotic range. */
    double eta = 0.02 / 64;
    double e1 = kepler_run_error(eta), e2 = kepler_run_error(eta / 4), e3 = kepler_run_error(eta / 16);
    printf("# Aarseth criterion, e = 0.5: max |dE/E| %.3e (ETA %.4g), %.3e (/4), %.3e (/16); ratios %.2f %.2f\n",
           e1, eta, e2, e3, e1 / e2, e2 / e3);
    /* steps ~ sqrt(ETA): ETA/4 halves every step, the 4th-order error falls
     * 16x.  Measured 17.69, 16.43; the 30 % band as above (the order, not
     * the constant). */
    CHECK(e1 / e2 > 16.0 * 0.7 && e1 / e2 < 16.0 * 1.3, "ETA -> ETA/4 divides the error by %.2f (16 +- 30%%)", e1 / e2);
    CHECK(e2 / e3 > 16.0 * 0.7 && e2 / e3 < 16.0 * 1.3, "ETA/4 -> ETA/16 divides the error by %.2f (16 +- 30%%)", e2 / e3);
}

/* ---- Ahmad–Cohen against plain Hermite on 512 bodies -------------------- */

/* Lagrangian radii (10, 50, 90 % of the mass) about the centre of mass,
 * straight from the positions: unlike the run's own radii (checks.c), they
 * do not depend on a density centre found from each run's neighbour lists.
 * Each is the mean radius of the bodies between 5 % of the mass below and
 * above its fraction: the radius of the one body at the fraction would
 * follow that body's own history (one close encounter integrated a little
 * differently moves it by 1e-5), the mean over ~50 bodies follows the
 * cluster. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void lagr_cm(int n, const double *m, const double (*x)[3], double out[3])
{
    double c[3] = {0, 0, 0}, mt = 0;
    for (int i = 0; i < n; i++) {
        mt += m[i];
        for (int k = 0; k < 3; k++) c[k] += m[i] * x[i][k];
    }
    double(*rm)[2] = malloc(sizeof(double[2]) * n);
    for (int i = 0; i < n; i++) {
        double dx = x[i][0] - c[0] / mt, dy = x[i][1] - c[1] / mt, dz = x[i][2] - c[2] / mt;
        rm[i][0] = sqrt(dx * dx + dy * dy + dz * dz);
        rm[i][1] = m[i];
    }
    qsort(rm, n, sizeof rm[0], cmp_double);
    const double f[3] = {0.1, 0.5, 0.9};
    for (int k = 0; k < 3; k++) {
        double acc = 0, sm = 0, sr = 0;
        for (int q = 0; q < n; q++) {
            double mid = (acc + 0.5 * rm[q][1]) / mt; /* the body's place in the mass profile */
            acc += rm[q][1];
            if (fabs(mid - f[k]) > 0.05) continue;
            sm += rm[q][1];
            sr += rm[q][1] * rm[q][0];
        }
        out[k] = sr / sm;
    }
    free(rm);
}

typedef struct {
    double de, r0[3], r[3]; /* run's own radii (about the density centre) at 0 and tend */
    double c0[3], c[3];     /* about the centre of mass */
    int64_t nreg;
    double nb;
} run_result;

static run_result plummer_run(int n, int all_neighbours, double tend)
{
    deck d;
    deck_defaults(&d, n);
    d.nnbmax = 60;
    /* The plain run integrates every force at ETAI = 0.02.  With the decks'
     * ETAR = 0.01 the AC run's error is dominated by the regular steps (it
     * falls 16x for ETAR/4, measured); ETAR = ETAI/4 makes the two schemes
     * comparable in cost per force and in error. */
    d.etar = 0.005;
    d.nrand = 4242;
    if (all_neighbours) d.rs0 = 1e6;
    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    char err[512];
    run_result r = {.de = NAN};
    if (ic_make(&d, NULL, m, x, v, err, sizeof err)) {
        printf("# ic_make: %s\n", err);
        return r;
    }
    lagr_cm(n, m, (const double(*)[3])x, r.c0);
    run_options o = quiet_cpu_options();
    o.nbmax = all_neighbours ? n : 0;
    diag d0, d1;
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &o, &d0, err, sizeof err);
    free(x); free(v);
    if (!s) {
        printf("# run_start: %s\n", err);
        free(m);
        return r;
    }
    s->p.fixed_radius = all_neighbours;
    s->p.ks_off = 1; /* the two integration schemes, without regularisation */
    if (run_advance(s, tend, err, sizeof err) == 0) {
        checks_measure(s, &d1, 0);
        r.de = (d1.etot - d0.etot) / fabs(d0.etot);
        static const int at[3] = {3, LAGR_HALF, 10}; /* 10, 50, 90 % */
        for (int k = 0; k < 3; k++) {
            r.r0[k] = d0.rlagr[at[k]];
            r.r[k] = d1.rlagr[at[k]];
        }
        vec3 *xs = malloc(sizeof(vec3) * s->ntot), *vs = malloc(sizeof(vec3) * s->ntot);
        sim_predict_all(s, xs, vs);
        lagr_cm(n, m, (const double(*)[3])xs, r.c);
        free(xs); free(vs);
        r.nreg = s->cnt.steps_reg;
        r.nb = d1.nbmean;
    }
    free(m);
    run_end(s);
    return r;
}

static void test_ac_vs_hermite(void)
{
    run_result ac = plummer_run(512, 0, 1.0), h = plummer_run(512, 1, 1.0);
    printf("# AC: dE/E %.3e  <nnb> %.1f\n", ac.de, ac.nb);
    printf("# plain Hermite: dE/E %.3e  <nnb> %.1f\n", h.de, h.nb);
    CHECK(h.nb == 511.0, "plain-Hermite run: every body is every other's neighbour (<nnb> = %.1f)", h.nb);
    /* Measured (fixed model, reference backends; GPUIRR's SIMD kernels
     * instead of the scalar one change these by 10 %): AC 6.1e-9, plain
     * -2.2e-8.  Bounds 3x those; a twice too large step raises both ~50x. */
    CHECK(fabs(ac.de) < 2e-8, "AC run: |dE/E| = %.2e < 2e-8 (measured 6.1e-9)", fabs(ac.de));
    CHECK(fabs(h.de) < 7e-8, "plain-Hermite run: |dE/E| = %.2e < 7e-8 (measured 2.2e-8)", fabs(h.de));
    /* Over t = 0 -> 1 the radii move by 1 to 6.5 %, so their values agree
     * whatever the integration does: compare how much each one moves.
     *  - about the centre of mass (here): the two runs' radii differ by
     *    1.2e-4 (10 %), 3e-6 (50 %), 1.5e-5 (90 %) of how much they moved,
     *    within 10 % of that with any GPUIRR kernel (the schemes' own
     *    errors, ~1e-8 in energy, not rounding); bound 5e-4, 4x the
     *    largest;
     *  - the run's own radii (about the density centre, which each run finds
     *    from its own neighbour lists: 6 nearest of ~13 listed against all
     *    511) already differ at t = 0; their changes agree to 1.4e-3 -
     *    3e-3; bound 1e-2. */
    static const char *pct[3] = {"10", "50", "90"};
    for (int k = 0; k < 3; k++) {
        double dac = ac.c[k] - ac.c0[k], dh = h.c[k] - h.c0[k];
        double q = fabs(dac - dh) / fabs(dh);
        printf("# %s%% radius about the c.m.: %.6f -> %.8f (AC), %.8f (plain)\n", pct[k], h.c0[k], ac.c[k], h.c[k]);
        CHECK(q < 5e-4 && fabs(dh) > 0.005 * h.c0[k],
              "%s%% Lagrangian radius (c.m.): AC moves it by %.6e, plain Hermite by %.6e: agree to %.1e < 5e-4",
              pct[k], dac, dh, q);
    }
    for (int k = 0; k < 3; k++) {
        double dac = ac.r[k] - ac.r0[k], dh = h.r[k] - h.r0[k];
        double q = fabs(dac - dh) / fabs(dh);
        CHECK(q < 1e-2, "%s%% Lagrangian radius (density centre): changes %.5e (AC), %.5e (plain) agree to %.1e < 1e-2",
              pct[k], dac, dh, q);
    }
}

/* ---- a flyby at its peak when a long regular step ends ------------------- */

/* A light pair in the halo of the 256-body model, KS off: a hyperbolic
 * flyby (masses 1e-3, pericentre 2e-4, speed at infinity 1; pericentre
 * speed 4.6) whose pericentre falls at t = 1, where every regular step
 * ends.  The cluster's model, neighbour target and ETAR are plummer_run's. */
enum { FLYBY_N = 256 };
#define FLYBY_M 1e-3
#define FLYBY_PERI 2e-4
#define FLYBY_VINF 1.0
#define FLYBY_R 3.0 /* c.m. radius: the members' regular steps are 1/16, 1/8 */

static void flyby_deck(deck *d)
{
    deck_defaults(d, FLYBY_N);
    d->nnbmax = 60;
    d->etar = 0.005;
    d->nrand = 4242;
}

static sim *flyby_start(const double *m, const double (*x)[3], const double (*v)[3], diag *d0)
{
    deck d;
    flyby_deck(&d);
    run_options o = quiet_cpu_options();
    o.ks_off = 1; /* from the start-up on: the backward run begins at pericentre, below RMIN */
    char err[512];
    sim *s = run_start(&d, FLYBY_N, m, x, v, &o, d0, err, sizeof err);
    if (!s) printf("# run_start: %s\n", err);
    return s;
}

static int flyby_slot(const sim *s, int name)
{
    for (int i = s->ifirst; i < s->ntot; i++)
        if (s->name[i] == name) return i;
    return -1;
}

/* The model at t = 0 whose pair is at pericentre at t = 1: the last two
 * bodies are put at pericentre (c.m. at FLYBY_R on the smooth Plummer
 * model's circular speed), every velocity is reversed, the code runs the
 * whole cluster for 1 time unit and the final state, velocities reversed
 * again, is the model.  Aimed by the two-body problem alone, the cluster's
 * tide over the approach (the members start 1.0 apart) moved the
 * pericentre to 1.0e-3 at t = 0.989 (measured): no peak at t = 1.  Aimed
 * this way the forward run meets 2.0e-4 at t = 1.  Returns 0 or -1. */
static int flyby_model(double *m, double (*x)[3], double (*v)[3])
{
    deck d;
    flyby_deck(&d);
    char err[512];
    if (ic_make(&d, NULL, m, x, v, err, sizeof err)) {
        printf("# ic_make: %s\n", err);
        return -1;
    }
    const double a = 3.0 * M_PI / 16.0, R = FLYBY_R; /* Plummer scale radius in N-body units */
    double vc = sqrt(R * R / pow(R * R + a * a, 1.5));
    double vp = sqrt(FLYBY_VINF * FLYBY_VINF + 4.0 * FLYBY_M / FLYBY_PERI);
    double X[3] = {R, 0, 0}, V[3] = {0, vc, 0}, r[3] = {0, FLYBY_PERI, 0}, w[3] = {0, 0, vp};
    for (int k = FLYBY_N - 2; k < FLYBY_N; k++) {
        double sg = k == FLYBY_N - 2 ? 0.5 : -0.5;
        m[k] = FLYBY_M;
        for (int c = 0; c < 3; c++) {
            x[k][c] = X[c] + sg * r[c];
            v[k][c] = V[c] + sg * w[c];
        }
    }
    for (int i = 0; i < FLYBY_N; i++)
        for (int c = 0; c < 3; c++) v[i][c] = -v[i][c];
    sim *s = flyby_start(m, (const double(*)[3])x, (const double(*)[3])v, NULL);
    int rc = s && run_advance(s, 1.0, err, sizeof err) == 0 ? 0 : -1;
    if (rc == 0) {
        vec3 *xs = malloc(sizeof(vec3) * s->ntot), *vs = malloc(sizeof(vec3) * s->ntot);
        sim_predict_all(s, xs, vs);
        for (int i = s->ifirst; i < s->ntot; i++)
            for (int c = 0; c < 3; c++) {
                x[s->name[i] - 1][c] = xs[i][c];
                v[s->name[i] - 1][c] = -vs[i][c];
            }
        free(xs); free(vs);
    } else if (s) {
        printf("# backward run: %s\n", err);
    }
    run_end(s);
    return rc;
}

typedef struct {
    double de, sep;           /* dE/E at t = 1.5; the pair's separation at t = 1 */
    double DTR[2], dt[2];     /* the members' regular steps that end at t = 1 and irregular steps there */
    int due;                  /* both regular steps end at t = 1 */
} flyby_result;

static flyby_result flyby_run(void)
{
    flyby_result r = {.de = NAN, .sep = NAN};
    double *m = malloc(sizeof(double) * FLYBY_N);
    double(*x)[3] = malloc(sizeof(double[3]) * FLYBY_N), (*v)[3] = malloc(sizeof(double[3]) * FLYBY_N);
    diag d0, d1;
    sim *s = flyby_model(m, x, v) ? NULL : flyby_start(m, (const double(*)[3])x, (const double(*)[3])v, &d0);
    free(m); free(x); free(v);
    if (!s) return r;
    char err[512];
    int ia = flyby_slot(s, FLYBY_N - 1), ib = flyby_slot(s, FLYBY_N), ok = ia >= 0 && ib >= 0;
    ok = ok && run_advance(s, 1.0 - 1.0 / 1024, err, sizeof err) == 0;
    if (ok) {
        r.due = s->t0r[ia] + s->dtr[ia] == 1.0 && s->t0r[ib] + s->dtr[ib] == 1.0;
        r.DTR[0] = s->dtr[ia];
        r.DTR[1] = s->dtr[ib];
    }
    ok = ok && run_advance(s, 1.0, err, sizeof err) == 0;
    if (ok) {
        double dx[3] = {s->x0[ia][0] - s->x0[ib][0], s->x0[ia][1] - s->x0[ib][1], s->x0[ia][2] - s->x0[ib][2]};
        r.sep = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
        r.dt[0] = s->dt[ia];
        r.dt[1] = s->dt[ib];
    }
    ok = ok && run_advance(s, 1.5, err, sizeof err) == 0;
    if (ok) {
        checks_measure(s, &d1, 0);
        r.de = (d1.etot - d0.etot) / fabs(d0.etot);
    } else {
        printf("# flyby run: %s\n", err);
    }
    run_end(s);
    return r;
}

static void test_flyby_regular_corrector(void)
{
    flyby_result r = flyby_run();
    printf("# flyby at t = 1: separation %.4e, regular steps %.4g %.4g, irregular %.3e %.3e; dE/E %.3e at t = 1.5\n",
           r.sep, r.DTR[0], r.DTR[1], r.dt[0], r.dt[1], r.de);
    /* The scenario (measured: 2.0002e-4; steps 1/16 and 1/8 against
     * 1.9e-6, 3e4 to 7e4 times shorter): a change elsewhere that moves the
     * peak off t = 1 or shortens the regular steps would leave the energy
     * check below with nothing to see. */
    CHECK(r.due && fmin(r.DTR[0], r.DTR[1]) >= 1.0 / 16 && fabs(r.sep / FLYBY_PERI - 1.0) < 0.1 &&
              fmax(r.dt[0] / r.DTR[0], r.dt[1] / r.DTR[1]) < 1e-4,
          "flyby: both members' regular steps (%.4g, %.4g) end at t = 1 at the pericentre "
          "(separation %.4e, 2e-4 +- 10%%), irregular steps %.2e, %.2e below 1e-4 of them",
          r.DTR[0], r.DTR[1], r.sep, r.dt[0], r.dt[1]);
    /* Measured -2.5e-7 (the same model with the pair's masses at 1e-9:
     * -2.3e-7, the cluster's own error).  With the regular corrector's x, v
     * increments kept at the peak (encounter_in_long_regular_step returning
     * 0): -1.35e-4, the separation at t = 1 1.9858e-4 (0.7 % off) after the
     * one block, the failure block.c's comment describes; every other test
     * here passes without the fix.  Bound 1e-6: 4x the measured error, 130x
     * below the one without the fix. */
    CHECK(fabs(r.de) < 1e-6, "flyby at the end of a long regular step: |dE/E| = %.2e < 1e-6 "
          "(measured 2.5e-7; 1.35e-4 without the regular corrector skipped)", fabs(r.de));
}

/* ---- thread-count independence ------------------------------------------ */

static sim *plummer_sim(int n, double tend)
{
    deck d;
    deck_defaults(&d, n);
    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    char err[512];
    sim *s = NULL;
    if (ic_make(&d, NULL, m, x, v, err, sizeof err) == 0) {
        run_options o = quiet_cpu_options();
        o.simd = GPUIRR_AUTO;
        s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &o, NULL, err, sizeof err);
        if (s && run_advance(s, tend, err, sizeof err)) {
            run_end(s);
            s = NULL;
        }
    }
    if (!s) printf("# %s\n", err);
    free(m); free(x); free(v);
    return s;
}

static void test_threads(void)
{
    omp_set_num_threads(1);
    sim *a = plummer_sim(1024, 0.5);
    omp_set_num_threads(2);
    sim *b = plummer_sim(1024, 0.5);
    CHECK(a && b, "two 1k runs to t = 0.5");
    if (a && b) {
        size_t nb = sizeof(vec3) * a->ntot;
        int same = !memcmp(a->x0, b->x0, nb) && !memcmp(a->v0, b->v0, nb) &&
                   !memcmp(a->rs, b->rs, sizeof(double) * a->ntot) &&
                   a->cnt.steps_irr == b->cnt.steps_irr && a->cnt.steps_reg == b->cnt.steps_reg;
        CHECK(same, "1 and 2 threads give bit-identical bodies, radii and step counts (%lld/%lld irregular steps)",
              (long long)a->cnt.steps_irr, (long long)b->cnt.steps_irr);
    }
    run_end(a);
    run_end(b);
}

/* ---- a body whose state turns non-finite stops the run with its name ---- */

static void test_nonfinite_stop(void)
{
    sim *s = plummer_sim(256, 0.125);
    CHECK(s != NULL, "a 256-body run to t = 0.125");
    if (!s) return;
    /* the body due first gets a NaN velocity: its corrected state is NaN */
    double t = block_next_time(s, s->bs);
    int bad = -1;
    for (int i = s->ifirst; i < s->ntot && bad < 0; i++)
        if (s->t0[i] + s->dt[i] == t) bad = i;
    CHECK(bad >= 0, "a body is due at the next block time %.17g", t);
    if (bad < 0) {
        run_end(s);
        return;
    }
    s->v0[bad][0] = NAN;
    char err[1024] = "";
    int rc = run_advance(s, 0.25, err, sizeof err);
    char want[64];
    snprintf(want, sizeof want, "body %d ", s->name[bad]);
    CHECK(rc == -1 && strstr(err, want) && strstr(err, "non-finite"),
          "a NaN state stops the run with a message naming the body (rc %d): %s", rc, err);
    run_end(s);
}

/* ---- new polynomials of a subset (core/newpoly.h) ------------------------ */

/* Every seventh body of the 1k deck renewed at t = 0 right after the
 * start-up (its own state and radius, the start's first regular step
 * restored), beside the others' full polynomials: the subset path
 * (GPUIRR's prediction of the bodies and their neighbours, the list
 * retries of the bodies that need them) must give each body the start-up's
 * polynomial, list and steps bit for bit. */
static void test_newpoly_subset(void)
{
    char err[1024];
    run_options o = quiet_cpu_options();
    diag d0;
    sim *s = start_deck_run("input/plummer-eq-1024-t2.deck", &o, 0, NULL, &d0, err, sizeof err);
    CHECK(s != NULL, "start the 1k deck %s", s ? "" : err);
    if (!s) return;
    const int n = s->ntot, nbmax = s->nbmax;
    vec3 *keep[10];
    vec3 *src[10] = {s->a, s->j, s->fi, s->fid, s->d2, s->d3, s->fr, s->frd, s->d2r, s->d3r};
    for (int q = 0; q < 10; q++) {
        keep[q] = malloc(sizeof(vec3) * n);
        memcpy(keep[q], src[q], sizeof(vec3) * n);
    }
    double *dt = malloc(sizeof(double) * n), *dtr = malloc(sizeof(double) * n);
    int *nnb = malloc(sizeof(int) * n), *list = malloc(sizeof(int) * (size_t)n * nbmax);
    memcpy(dt, s->dt, sizeof(double) * n);
    memcpy(dtr, s->dtr, sizeof(double) * n);
    memcpy(nnb, s->nnb, sizeof(int) * n);
    memcpy(list, s->list, sizeof(int) * (size_t)n * nbmax);
    int idx[200], nb = 0;
    for (int i = s->ifirst; i < n && nb < 200; i += 7) {
        idx[nb++] = i;
        double r2 = s->x0[i][0] * s->x0[i][0] + s->x0[i][1] * s->x0[i][1] + s->x0[i][2] * s->x0[i][2];
        s->dtr[i] = fmin(s->p.smax / 8.0 * sqrt(1.0 + r2), s->p.smax); /* as startup.c */
        for (int q = 0; q < 10; q++) memset(src[q][i], 0x7f, sizeof(vec3));
        s->nnb[i] = 0;
    }
    int rc = newpoly_bodies(s, nb, idx, s->time, 0, err, sizeof err);
    CHECK(rc == 0, "newpoly_bodies of %d bodies %s", nb, rc ? err : "");
    int same = rc == 0;
    for (int k = 0; k < nb && same; k++) {
        const int i = idx[k];
        for (int q = 0; q < 10; q++) same &= !memcmp(src[q][i], keep[q][i], sizeof(vec3));
        same &= s->dt[i] == dt[i] && s->dtr[i] == dtr[i] && s->nnb[i] == nnb[i] &&
                !memcmp(sim_list(s, i), list + (size_t)i * nbmax, sizeof(int) * nnb[i]);
    }
    CHECK(same, "renewed bodies: the start-up's polynomials, lists and steps bit for bit");
    for (int q = 0; q < 10; q++) free(keep[q]);
    free(dt); free(dtr); free(nnb); free(list);
    run_end(s);
}

/* ---- the 1k sample deck against NBODY6 ----------------------------------- */

static void test_sample_deck(void)
{
    char err[1024];
    run_options o = quiet_cpu_options();
    o.simd = GPUIRR_AUTO;
    diag d0, d1;
    sim *s = start_deck_run("input/plummer-eq-1024-t2.deck", &o, 0, NULL, &d0, err, sizeof err);
    CHECK(s != NULL, "start the 1k deck %s", s ? "" : err);
    if (!s) return;
    int ok = run_advance(s, 2.0, err, sizeof err) == 0;
    CHECK(ok, "integrate the 1k deck to t = 2 %s", ok ? "" : err);
    checks_measure(s, &d1, 0);
    double de = (d1.etot - d0.etot) / fabs(d0.etot);
    printf("# 1k deck to t = 2: dE/E %.3e, %lld irregular, %lld regular steps, <nnb> %.2f\n", de,
           (long long)s->cnt.steps_irr, (long long)s->cnt.steps_reg, d1.nbmean);
    /* Measured -2.9e-8 to -3.7e-8 over the force backends (GPUNB cpu-ref and
     * cpu-simd, GPUIRR scalar to AVX-512: different roundings, different
     * trajectories); NBODY6 had 2.9e-7.  Bound 1e-7, 3x the largest: a twice
     * too large step gives ~50x (1.7e-6). */
    CHECK(fabs(de) < 1e-7, "1k deck: |dE/E| = %.2e < 1e-7 (measured 2.9e-8 - 3.7e-8)", fabs(de));
    /* NBODY6 on the same deck (input/README.md): 390,512 irregular and
     * 83,579 regular steps, <nnb> 17 (given to the unit: 16.5 - 17.5; it also
     * had KS, 258 KS steps).  Measured ratios 0.9795-0.9797, 0.9575-0.9586
     * and 17.17-17.18 over the backends above (0.1 % apart).  Bounds: 5 % of
     * NBODY6's figures, as the issue asks; the regular count leaves 0.8 %
     * (8x that spread).  A twice too large step halves the counts, a 10 %
     * larger neighbour target gives <nnb> 18.8. */
    double ri = s->cnt.steps_irr / 390512.0, rr = s->cnt.steps_reg / 83579.0;
    CHECK(ri > 0.95 && ri < 1.05, "irregular steps within 5%% of NBODY6's (ratio %.4f)", ri);
    CHECK(rr > 0.95 && rr < 1.05, "regular steps within 5%% of NBODY6's (ratio %.4f)", rr);
    CHECK(d1.nbmean > 0.95 * 16.5 && d1.nbmean < 1.05 * 17.5,
          "<nnb> = %.2f within 5%% of NBODY6's 17 (16.5 - 17.5): %.2f - %.2f", d1.nbmean, 0.95 * 16.5, 1.05 * 17.5);
    run_end(s);
}

int main(void)
{
    test_hermite_order();
    test_eta_scaling();
    test_ac_vs_hermite();
    test_flyby_regular_corrector();
    test_threads();
    test_nonfinite_stop();
    test_newpoly_subset();
    test_sample_deck();
    return check_done();
}
