/* test_steps.c — the time-step rules (steps.c; docs/ALGORITHMS.md §4, after
 * NBODY6's tstep.f, stepk.f, nbint.f and gpucor.f) on hand-computed cases:
 * Aarseth's criterion, the block levels, commensurability, and the growth
 * and shrinking of a step from the criterion's value.  Steps are powers of
 * two, so the level rules are compared exactly; the criterion to 1e-15
 * relative (a square root and a handful of products). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "simutil.h"
#include "io/setup.h"
#include "core/steps.h"

static void test_aarseth(void)
{
    /* |a| = 3, |j| = 4, |a2| = 2, |a3| = 1 (along different axes):
     * (3*2 + 4^2)/(4*1 + 2^2) = 22/8, dt = sqrt(0.02 * 22/8) = sqrt(0.055) */
    double a[3] = {3, 0, 0}, j[3] = {0, 4, 0}, a2[3] = {0, 0, 2}, a3[3] = {0.6, 0.8, 0};
    double dt = step_aarseth(a, j, a2, a3, 0.02);
    CHECK(fabs(dt / sqrt(0.055) - 1) < 1e-15,
          "Aarseth: |a| 3, |j| 4, |a2| 2, |a3| 1, ETA 0.02: dt = sqrt(0.055) (%.17g)", dt);
    /* ETA is under the root: ETA x 4 doubles the step */
    double dt4 = step_aarseth(a, j, a2, a3, 0.08);
    CHECK(fabs(dt4 / (2 * sqrt(0.055)) - 1) < 1e-15, "Aarseth: ETA 0.08 gives twice that (%.17g)", dt4);
    /* the terms weigh as written: |a| 1, |j| 2, |a2| 3, |a3| 4:
     * (1*3 + 4)/(2*4 + 9) = 7/17 */
    double b[3] = {0, 1, 0}, k[3] = {2, 0, 0}, b2[3] = {0, 0, -3}, b3[3] = {0, 4, 0};
    double dt2 = step_aarseth(b, k, b2, b3, 0.01);
    CHECK(fabs(dt2 / sqrt(0.01 * 7 / 17) - 1) < 1e-15,
          "Aarseth: |a| 1, |j| 2, |a2| 3, |a3| 4, ETA 0.01: dt = sqrt(0.07/17) (%.17g)", dt2);
    double z[3] = {0, 0, 0};
    CHECK(isinf(step_aarseth(a, z, z, z, 0.02)), "Aarseth: no variation at all: no limit (infinite)");
}

static void test_levels(void)
{
    CHECK(step_level(0.3, 1.0) == 0.25, "level of 0.3 (SMAX 1): 0.25");
    CHECK(step_level(0.25, 1.0) == 0.125, "level of 0.25: 0.125 (strictly below, as STEPK)");
    CHECK(step_level(1.0, 1.0) == 1.0 && step_level(7.0, 1.0) == 1.0, "levels of 1 and 7: SMAX");
    CHECK(step_level(1e-3, 0.5) == 0x1p-10, "level of 1e-3 (SMAX 0.5): 2^-10");
    CHECK(step_commensurate(0.25, 0.375) == 0.125, "0.25 at t = 0.375: halved to 0.125");
    CHECK(step_commensurate(0.25, 0.5) == 0.25, "0.25 at t = 0.5: kept");
    CHECK(step_commensurate(1.0, 0.0078125) == 0.0078125, "1 at t = 2^-7: 2^-7");
}

static void test_updates(void)
{
    /* growth x2 when the criterion exceeds twice the step and t is a
     * multiple of the doubled step */
    CHECK(step_irregular_update(0.125, 0.3, 0.25, 1.0) == 0.25, "irregular: 0.125, criterion 0.3, t = 0.25: 0.25");
    CHECK(step_irregular_update(0.125, 0.3, 0.125, 1.0) == 0.125,
          "irregular: 0.125, criterion 0.3, t = 0.125 (not a multiple of 0.25): kept");
    /* x4 when the criterion exceeds 10 times the doubled step (GPU2) */
    CHECK(step_irregular_update(0.125, 3.0, 0.5, 1.0) == 0.5, "irregular: 0.125, criterion 3, t = 0.5: 0.5 (x4)");
    CHECK(step_irregular_update(0.125, 3.0, 0.25, 1.0) == 0.25,
          "irregular: 0.125, criterion 3, t = 0.25 (not a multiple of 0.5): 0.25");
    CHECK(step_irregular_update(0.125, 2.4, 0.5, 1.0) == 0.25, "irregular: 0.125, criterion 2.4 < 2.5: 0.25 (x2 only)");
    /* SMAX caps */
    CHECK(step_irregular_update(0.5, 100.0, 1.0, 1.0) == 1.0, "irregular: 0.5, criterion 100, SMAX 1: 1");
    CHECK(step_irregular_update(1.0, 100.0, 2.0, 1.0) == 1.0, "irregular: at SMAX: kept");
    /* kept between the step and twice it */
    CHECK(step_irregular_update(0.125, 0.25, 0.25, 1.0) == 0.125, "irregular: criterion = 2 x step: kept");
    CHECK(step_irregular_update(0.125, 0.125, 0.25, 1.0) == 0.125, "irregular: criterion = step: kept");
    /* shrinking: /2, or /4 when half the step is still above the criterion */
    CHECK(step_irregular_update(0.125, 0.1, 0.25, 1.0) == 0.0625, "irregular: 0.125, criterion 0.1: 0.0625");
    CHECK(step_irregular_update(0.125, 0.05, 0.25, 1.0) == 0.03125, "irregular: 0.125, criterion 0.05: 0.03125");
    /* the regular step follows the same rules */
    CHECK(step_regular_update(0.125, 3.0, 0.5, 1.0) == 0.5 && step_regular_update(0.125, 0.05, 0.25, 1.0) == 0.03125 &&
              step_regular_update(0.125, 0.3, 0.125, 1.0) == 0.125,
          "regular: the same growth and shrinking");
}

/* A body whose polynomials barely vary: the criterion alone gives SMAX for
 * both steps.  A first step has no last step for the convergence tests, so
 * steps_first caps them where the tests begin: irregular at the level below
 * STEPJ = 0.01 (60000/N)^(1/3) for N > 1000, regular below 0.1.  Without
 * the caps a 512k Plummer model lost 2.5e-7 of E in its first 0.125. */
static sim *quiet_body_sim(int n, double smax)
{
    deck d;
    deck_defaults(&d, n);
    d.smax = smax;
    double *m = calloc((size_t)n, sizeof *m);
    double (*x)[3] = calloc((size_t)n, sizeof *x), (*v)[3] = calloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++) { m[i] = 1.0 / n; x[i][0] = i; }
    char err[200];
    sim *s = setup_sim(&d, n, m, (const double (*)[3])x, (const double (*)[3])v, 8, err, sizeof err);
    free(m); free(x); free(v);
    if (!s) { fprintf(stderr, "setup_sim: %s\n", err); return NULL; }
    int i = s->ifirst;
    for (int c = 0; c < 3; c++) {
        s->fi[i][c] = s->fid[i][c] = s->d2[i][c] = s->d3[i][c] = 0.0;
        s->frd[i][c] = s->d2r[i][c] = s->d3r[i][c] = 0.0;
        s->fr[i][c] = c == 0 ? -1.0 : 0.0;
    }
    s->fid[i][1] = 1e-9; s->frd[i][1] = 1e-9;  /* the criterion: ~1e4, far above SMAX */
    s->d2[i][2] = 1e-9; s->d2r[i][2] = 1e-9;
    s->d3[i][0] = 1e-9; s->d3r[i][0] = 1e-9;
    s->nnb[i] = 5;
    return s;
}

static void test_first_steps(void)
{
    sim *s = quiet_body_sim(524288, 0.125);
    if (!s) { CHECK(0, "first steps: sim_create"); return; }
    int i = s->ifirst;
    steps_first(s, i, 0.0);
    double stepj = 0.01 * cbrt(60000.0 / 524288.0); /* 0.0049: level 2^-8 below SMAX 0.125 */
    CHECK(s->dt[i] == step_level(stepj, 0.125) && s->dt[i] == 0x1p-8,
          "first steps, N = 512k, SMAX 0.125, quiet body: irregular 2^-8 below STEPJ %.4g (got %.9g)", stepj, s->dt[i]);
    CHECK(s->dtr[i] == 0.0625, "first steps: regular 0.0625 below the checked 0.1 (got %.9g)", s->dtr[i]);
    /* a criterion below the cap is left alone: |a| 1, |a2| 2222, no jerk or
     * a3: dt = sqrt(0.02/2222) = 0.0030, level 2^-9 */
    s->fid[i][1] = 0.0;
    s->d2[i][2] = 2222.0;
    s->d3[i][0] = 0.0;
    steps_first(s, i, 0.0);
    CHECK(s->dt[i] == 0x1p-9 && s->dtr[i] == 0.0625,
          "first steps: criterion 0.0030 under the cap: irregular 2^-9, regular 0.0625 (got %.9g, %.9g)", s->dt[i],
          s->dtr[i]);
    sim_free(s);

    s = quiet_body_sim(512, 0.125);
    if (!s) { CHECK(0, "first steps: sim_create"); return; }
    i = s->ifirst;
    steps_first(s, i, 0.0);
    CHECK(s->dt[i] == 0.0625 && s->dtr[i] == 0.0625,
          "first steps, N = 512 (no STEPJ): irregular = regular = 0.0625 (got %.9g, %.9g)", s->dt[i], s->dtr[i]);
    sim_free(s);

    s = quiet_body_sim(512, 0.0625);
    i = s ? s->ifirst : 0;
    if (s) steps_first(s, i, 0.0);
    CHECK(s && s->dt[i] == 0.0625 && s->dtr[i] == 0.0625, "first steps, SMAX 0.0625: SMAX (below the cap)");
    sim_free(s);
}

int main(void)
{
    test_aarseth();
    test_levels();
    test_updates();
    test_first_steps();
    return check_done();
}
