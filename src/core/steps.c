/* steps.c — time-step criterion and the block-level rules of NBODY6
 * (tstep.f, stepk.f, steps.f, nbint.f, gpucor.f; docs/ALGORITHMS.md §4).  Every
 * step is a power of two times SMAX and commensurate with the time, so that
 * the block times are exact binary fractions and `fmod` below is exact. */
#include <math.h>
#include "core/steps.h"

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

double step_aarseth(const double a[3], const double j[3], const double a2[3],
                    const double a3[3], double eta)
{
    double fa = norm3(a), fj = norm3(j), f2 = norm3(a2), f3 = norm3(a3);
    double num = fa * f2 + fj * fj, den = fj * f3 + f2 * f2;
    if (!(den > 0.0)) return INFINITY; /* no variation at all: no limit from here */
    return sqrt(eta * num / den);
}

double step_irregular_checked(int n)
{
    return 0.01 * cbrt(60000.0 / n);
}

double step_level(double dt, double smax)
{
    if (!(dt < smax)) return smax;
    double s = smax;
    /* 60 halvings reach 1e-18 SMAX: far below any step a run can take */
    for (int k = 0; k < 60 && !(s < dt); k++) s *= 0.5;
    return s;
}

double step_commensurate(double step, double t)
{
    while (fmod(t, step) != 0.0) step *= 0.5;
    return step;
}

/* Growth by 2 (by 4 when the criterion is far above it, as GPU2 does) only
 * at times that are multiples of the new step; shrink by 2, or by 4 when
 * half the step is still above the criterion. */
static double quantise(double step, double dt0, double t, double smax)
{
    if (dt0 > 2.0 * step) {
        if (fmod(t, 2.0 * step) != 0.0 || step >= smax) return step;
        double s = fmin(2.0 * step, smax);
        if (dt0 > 10.0 * s && fmod(t, 2.0 * s) == 0.0) s = fmin(2.0 * s, smax);
        return s;
    }
    if (dt0 < step) {
        double s = 0.5 * step;
        return s > dt0 ? 0.5 * s : s;
    }
    return step;
}

double step_irregular_update(double step, double dt0, double t, double smax)
{
    return quantise(step, dt0, t, smax);
}

double step_regular_update(double dtr, double dt0, double t, double smax)
{
    return quantise(dtr, dt0, t, smax);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void steps_first(sim *s, int i, double t)
{
    double atot[3] = {s->fi[i][0] + s->fr[i][0], s->fi[i][1] + s->fr[i][1], s->fi[i][2] + s->fr[i][2]};
    double ti = step_aarseth(atot, s->fid[i], s->d2[i], s->d3[i], s->p.etai);
    double tr;
    if (s->nnb[i] == 0) {
        double f2 = sqrt(dot3(s->d2r[i], s->d2r[i]));
        tr = f2 > 0.0 ? sqrt(s->p.etar * sqrt(dot3(s->fr[i], s->fr[i])) / f2) : s->p.smax;
    } else {
        tr = step_aarseth(s->fr[i], s->frd[i], s->d2r[i], s->d3r[i], s->p.etar);
    }
    /* The block step lets an irregular step above STEPJ, or a regular step
     * above STEP_REG_CHECKED, only through a convergence test on the last
     * step's predictor-corrector velocity difference.  A first step has no
     * last step, so it starts where the tests begin to apply and grows by
     * the doubling rules as they pass.  Unchecked, the criterion alone gave
     * many bodies of a 512k Plummer model SMAX = 0.125 at t = 0 and the
     * run lost 2.5e-7 of E by t = 0.125 (4e-11 with the caps). */
    if (s->n > 1000) ti = fmin(ti, step_irregular_checked(s->n));
    tr = fmin(tr, STEP_REG_CHECKED);
    double step = step_commensurate(step_level(ti, s->p.smax), t);
    double stepr = step_commensurate(step_level(tr, s->p.smax), t);
    while (step > stepr) step *= 0.5;
    s->dt[i] = step;
    s->dtr[i] = stepr;
}
