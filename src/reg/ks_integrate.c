/* ks_integrate.c — one KS orbit advanced in fictitious time with NBODY6's
 * Hermite–Stumpff scheme (docs/ALGORITHMS.md §10.3–§10.7), the Stumpff series for
 * the physical time, the unperturbed (frozen) mode and rectification.
 *
 * Splitting u'' = h0 u/2 + G with G = ((h - h0) u + R L^T P)/2 leaves the
 * harmonic part to the Stumpff functions, which are exact for it: with no
 * perturbation the scheme reproduces the Kepler orbit to rounding error, and
 * the Hermite interpolation only carries G, which is small for a weakly
 * perturbed pair. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "reg/ks_integrate.h"
#include "reg/ks_stumpff.h"
#include "reg/ks_transform.h"

static double dot4(const double a[4], const double b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static void evaluate_pert(const ks_pert *pf, double t, const double u[4], const double up[4],
                          double p[3], double pd[3])
{
    if (!pf || !pf->fn) {
        memset(p, 0, sizeof(double) * 3);
        memset(pd, 0, sizeof(double) * 3);
        return;
    }
    double q[3], qd[3];
    ks_to_rel(u, up, q, qd);
    pf->fn(pf->ctx, t, q, qd, p, pd);
}

/* Q = L^T(u) P and Q' = dQ/dtau = L^T(u') P + R L^T(u) dP/dt. */
static void lt_terms(const double u[4], const double up[4], const double p[3], const double pd[3],
                     double q4[4], double q4d[4])
{
    double r = dot4(u, u), a[4], b[4];
    ks_ltp(u, p, q4);
    ks_ltp(up, p, a);
    ks_ltp(u, pd, b);
    for (int k = 0; k < 4; k++) q4d[k] = a[k] + r * b[k];
}

/* The polynomials at the current u, u', h from P, Pdot (kspoly.f).  The
 * second and third derivatives of G need d2P/dt2, which is not known: they
 * are approximated without it (they only enter the first predictor; the
 * corrector replaces them by its interpolation). */
static void build_poly(ks_orbit *o, const double p[3], const double pd[3])
{
    double *u = o->u, *up = o->up, h = o->h;
    double q4[4], q4d[4];
    lt_terms(u, up, p, pd, q4, q4d);
    double r = dot4(u, u), rd = 2.0 * dot4(u, up);
    double hd = 2.0 * dot4(up, q4);
    double u2[4], u3[4], u4[4], u5[4];
    for (int k = 0; k < 4; k++) {
        o->fp0[k] = 0.5 * r * q4[k];
        o->fd0[k] = 0.5 * hd * u[k] + 0.5 * rd * q4[k] + 0.5 * r * q4d[k];
        u2[k] = 0.5 * h * u[k] + o->fp0[k];
        u3[k] = 0.5 * h * up[k] + o->fd0[k];
    }
    double hdd = 0.0;
    for (int k = 0; k < 4; k++) hdd += (h * u[k] + 2.0 * o->fp0[k]) * q4[k] + 2.0 * up[k] * q4d[k];
    double rdd = 2.0 * dot4(u, u2) + 2.0 * dot4(up, up);
    /* Q'' without the d2P/dt2 term */
    double a[4], b[4], c[4];
    ks_ltp(u2, p, a);
    ks_ltp(up, pd, b);
    ks_ltp(u, pd, c);
    double q4dd[4];
    for (int k = 0; k < 4; k++) q4dd[k] = a[k] + 2.0 * r * b[k] + rd * c[k];
    for (int k = 0; k < 4; k++) {
        double g2 = 0.5 * hdd * u[k] + hd * up[k] + 0.5 * rdd * q4[k] + rd * q4d[k] + 0.5 * r * q4dd[k];
        u4[k] = 0.5 * h * u2[k] + g2;
        u5[k] = 0.5 * h * u3[k];
    }
    double hddd = 0.0;
    for (int k = 0; k < 4; k++) hddd += 2.0 * u3[k] * q4[k] + 4.0 * u2[k] * q4d[k] + 2.0 * up[k] * q4dd[k];
    for (int k = 0; k < 4; k++) {
        o->fu[k] = 0.5 * u2[k];
        o->fud[k] = u3[k] / 6.0;
        o->fu2[k] = u4[k];
        o->fu3[k] = u5[k];
    }
    o->hd[0] = hd;
    o->hd[1] = hdd;
    o->hd[2] = hddd;
    o->hd[3] = 0.0;
    o->r = r;
    memcpy(o->p, p, sizeof o->p);
    memcpy(o->pdot, pd, sizeof o->pdot);
    double pn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    o->gamma = pn * r * r / o->m;
}

double ks_orbit_tseries(const ks_orbit *o, double dtau, double *dtdtau)
{
    double c[7];
    ks_stumpff(-2.0 * o->h * dtau * dtau, c); /* 4z, z = -h dtau^2 / 2 */
    const double *u = o->u, *up = o->up;
    double u2[4], u3[4];
    for (int k = 0; k < 4; k++) {
        u2[k] = 2.0 * o->fu[k];
        u3[k] = 6.0 * o->fud[k];
    }
    double r = dot4(u, u);
    double t2 = 2.0 * dot4(u, up);
    double t3 = 2.0 * dot4(u, u2) + 2.0 * dot4(up, up);
    double t4 = 2.0 * dot4(u, u3) + 6.0 * dot4(up, u2);
    double t5 = 2.0 * dot4(u, o->fu2) + 8.0 * dot4(up, u3) + 6.0 * dot4(u2, u2);
    double t6 = 2.0 * dot4(u, o->fu3) + 10.0 * dot4(up, o->fu2) + 20.0 * dot4(u2, u3);
    double s = dtau;
    if (dtdtau)
        *dtdtau = r + s * (t2 + s * (t3 / 2.0 + s * (t4 / 6.0 + s * (c[4] * t5 / 24.0 + s * c[5] * t6 / 120.0))));
    return s * (r + s * (t2 / 2.0 + s * (t3 / 6.0 + s * (t4 / 24.0 + s * (c[5] * t5 / 120.0 + s * c[6] * t6 / 720.0)))));
}

/* u, u' at dtau from the stored polynomials (kspred.f). */
static void predict_u(const ks_orbit *o, double dtau, double u[4], double up[4])
{
    double c[7], s = dtau;
    ks_stumpff(-0.5 * o->h * s * s, c);
    for (int k = 0; k < 4; k++) {
        u[k] = o->u[k] + s * (o->up[k] + s * (o->fu[k] + s * (o->fud[k] + s * (c[4] * o->fu2[k] / 24.0 + s * c[5] * o->fu3[k] / 120.0))));
        up[k] = o->up[k] + s * (2.0 * o->fu[k] + s * (3.0 * o->fud[k] + s * (c[3] * o->fu2[k] / 6.0 + s * c[4] * o->fu3[k] / 24.0)));
    }
}

/* A first tau for solve_tau.  Within a perturbed step the series is
 * nearly linear in tau.  An unperturbed orbit is exact Kepler motion, on
 * which 2 Omega tau (Omega^2 = -h/2) is the eccentric anomaly's advance:
 * Kepler's equation from the state at t0 gives it to rounding (dt / R,
 * with R at t0, started eccentric orbits far from the root). */
static double tau_guess(const ks_orbit *o, double dt)
{
    if (!o->frozen) return o->step > 0.0 ? o->dtau * dt / o->step : dt / o->r;
    if (!(o->h < 0.0)) return dt / o->r;
    double a = -0.5 * o->m / o->h, n = sqrt(o->m / (a * a * a)), om = sqrt(-0.5 * o->h);
    double ec = 1.0 - dot4(o->u, o->u) / a, es = 2.0 * dot4(o->u, o->up) / sqrt(o->m * a);
    double e = sqrt(ec * ec + es * es), e0 = atan2(es, ec);
    double mt = e0 - es + n * dt, E = mt + (sin(mt) >= 0.0 ? 0.85 : -0.85) * e;
    for (int it = 0; it < 30; it++) {
        double d = (E - e * sin(E) - mt) / (1.0 - e * cos(E));
        E -= d;
        if (fabs(d) <= 1e-15 * (1.0 + fabs(E))) break;
    }
    return (E - e0) / (2.0 * om);
}

/* The tau at which the series reaches dt after t0, in [0, hi]: Newton with a
 * bisection safeguard (the series increases monotonically in tau).  Done
 * when a Newton step is within a few ulps, wherever it lands, not only
 * inside the bracket: restarting the bisection from [0, hi] whenever a step
 * falls on an end of the bracket by rounding takes 22 iterations a call on
 * average and a tenth of the calls to the limit of 60; this test takes 3.4,
 * and 0.006 % reach 60 (roots the rounding of the series hides, or past
 * hi). */
static double solve_tau(const ks_orbit *o, double dt, double hi)
{
    double lo = 0.0, tau = fmin(tau_guess(o, dt), hi);
    for (int it = 0; it < 60; it++) {
        double d, f = ks_orbit_tseries(o, tau, &d) - dt;
        if (f > 0.0) hi = tau; else lo = tau;
        double nt = d > 0.0 ? tau - f / d : -1.0;
        if (fabs(nt - tau) <= 4.0 * DBL_EPSILON * fabs(tau)) {
            if (nt >= lo && nt <= hi) tau = nt;
            break;
        }
        if (!(nt > lo && nt < hi)) nt = 0.5 * (lo + hi);
        tau = nt;
    }
    return tau;
}

static double tau_period(const ks_orbit *o) { return M_PI / sqrt(-0.5 * o->h); }

/* §10.7: the next dtau from the energy, the perturbation and the c.m. step. */
static void new_step(ks_orbit *o, const ks_ctl *c)
{
    double ah = fabs(o->h), w1;
    if (ah > c->eclose) {
        w1 = 0.5 / ah;
    } else {
        w1 = o->r0 / o->m;
        if (ah > 0.0) w1 = fmin(w1, 0.5 / ah);
        if (o->r > o->r0) w1 *= o->r0 / o->r;
        if (o->h < 0.0) w1 = fmin(w1, 0.5 / ah);
    }
    double g = o->gamma, w2;
    if (g < 5e-4)
        w2 = sqrt(w1) / (1.0 + 333.3 * g * (1.0 - 333.3 * g));
    else
        w2 = sqrt(w1) / cbrt(1.0 + 1000.0 * g);
    double dtau = c->etau * w2;
    if (o->first) dtau *= (o->h < 0.0 ? 0.8 : 1.0);
    else dtau = fmin(dtau, 1.2 * o->dtau);
    if (g > 1e-4 && o->hd[1] != 0.0) {
        double d = 1e-3 * fmax(ah, c->eclose), x = o->hd[0] / o->hd[1];
        double lim = sqrt(2.0 * d / fabs(o->hd[1]) + x * x) - fabs(x);
        if (lim > 0.0) dtau = fmin(dtau, lim);
    }
    double step = ks_orbit_tseries(o, dtau, NULL);
    for (int it = 0; it < 60 && o->h < 0.0 && c->dtmax > 0.0 && step > c->dtmax; it++) {
        dtau *= 0.5;
        step = ks_orbit_tseries(o, dtau, NULL);
    }
    o->dtau = dtau;
    o->step = step;
    o->first = 0;
}

void ks_orbit_poly(ks_orbit *o, const ks_pert *pf, const ks_ctl *c)
{
    double p[3], pd[3];
    o->frozen = 0;
    evaluate_pert(pf, o->t0, o->u, o->up, p, pd);
    build_poly(o, p, pd);
    o->first = 1;
    new_step(o, c);
}

void ks_orbit_init(ks_orbit *o, double m, const double q[3], const double qdot[3], double t,
                   const ks_pert *pf, const ks_ctl *c)
{
    memset(o, 0, sizeof *o);
    o->m = m;
    o->t0 = t;
    ks_from_rel(q, qdot, o->u, o->up);
    o->h = ks_energy(o->u, o->up, m);
    o->r = dot4(o->u, o->u);
    o->r0 = o->r;
    ks_orbit_poly(o, pf, c);
}

/* The corrector of one step of dtau ending at physical time t1 (kscorr.f). */
static void correct(ks_orbit *o, double s, double t1, const ks_pert *pf)
{
    double u[4], up[4], p[3], pd[3];
    predict_u(o, s, u, up);
    double h0 = o->h;
    double dh = s * (o->hd[0] + s * (o->hd[1] / 2.0 + s * (o->hd[2] / 6.0 + s * o->hd[3] / 24.0)));
    evaluate_pert(pf, t1, u, up, p, pd);
    double c[7];
    ks_stumpff(-0.5 * h0 * s * s, c);
    double u2[4], u3[4], u4[4], u5[4], at3v[4], bt2v[4], at3h = 0.0, bt2h = 0.0;
    for (int it = 0; it < 2; it++) {
        double q4[4], q4d[4], g1[4], g1d[4];
        lt_terms(u, up, p, pd, q4, q4d);
        double r = dot4(u, u), uu = dot4(u, up);
        double h1d = 2.0 * dot4(up, q4);
        for (int k = 0; k < 4; k++) {
            g1[k] = 0.5 * (dh * u[k] + r * q4[k]);
            g1d[k] = 0.5 * h1d * u[k] + 0.5 * dh * up[k] + uu * q4[k] + 0.5 * r * q4d[k];
        }
        double h1dd = 0.0;
        for (int k = 0; k < 4; k++) h1dd += (h0 * u[k] + 2.0 * g1[k]) * q4[k] + 2.0 * up[k] * q4d[k];
        for (int k = 0; k < 4; k++) {
            double df = o->fp0[k] - g1[k], sm = o->fd0[k] + g1d[k];
            double at3 = 2.0 * df + sm * s, bt2 = -3.0 * df - (sm + o->fd0[k]) * s;
            at3v[k] = at3;
            bt2v[k] = bt2;
            u2[k] = 0.5 * h0 * o->u[k] + o->fp0[k];
            u3[k] = 0.5 * h0 * o->up[k] + o->fd0[k];
            u4[k] = 0.5 * h0 * u2[k] + 2.0 * bt2 / (s * s);
            u5[k] = 0.5 * h0 * u3[k] + 6.0 * at3 / (s * s * s);
        }
        for (int k = 0; k < 4; k++) {
            u[k] = o->u[k] + s * (o->up[k] + s * (u2[k] / 2.0 + s * (u3[k] / 6.0 + s * (c[4] * u4[k] / 24.0 + s * c[5] * u5[k] / 120.0))));
            up[k] = o->up[k] + s * (u2[k] + s * (u3[k] / 2.0 + s * (c[3] * u4[k] / 6.0 + s * c[4] * u5[k] / 24.0)));
        }
        double dfh = o->hd[0] - h1d, smh = o->hd[1] + h1dd;
        at3h = 2.0 * dfh + smh * s;
        bt2h = -3.0 * dfh - (smh + o->hd[1]) * s;
        dh = (0.5 * o->hd[1] * s + o->hd[0]) * s + (at3h / 4.0 + bt2h / 3.0) * s;
        double gam = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) * r * r / o->m;
        if (it == 0 && gam > 1e-4) evaluate_pert(pf, t1, u, up, p, pd);
    }
    memcpy(o->u, u, sizeof u);
    memcpy(o->up, up, sizeof up);
    o->h = h0 + dh;
    o->t0 = t1;
    /* the polynomials at the new start from the last perturbation */
    double q4[4], q4d[4];
    lt_terms(u, up, p, pd, q4, q4d);
    double r = dot4(u, u), uu = dot4(u, up), hd = 2.0 * dot4(up, q4), hdd = 0.0;
    for (int k = 0; k < 4; k++) {
        o->fp0[k] = 0.5 * r * q4[k];
        o->fd0[k] = 0.5 * hd * u[k] + uu * q4[k] + 0.5 * r * q4d[k];
        hdd += (o->h * u[k] + 2.0 * o->fp0[k]) * q4[k] + 2.0 * up[k] * q4d[k];
        o->fu[k] = 0.5 * (0.5 * o->h * u[k] + o->fp0[k]);
        o->fud[k] = (0.5 * o->h * up[k] + o->fd0[k]) / 6.0;
        /* u4, u5 at the new start: the harmonic part exactly (so that an
         * unperturbed orbit keeps an exact time series), G'' and G''' at
         * the end of the interval from the Hermite interpolation */
        double g2 = 2.0 * (3.0 * at3v[k] + bt2v[k]) / (s * s), g3 = 6.0 * at3v[k] / (s * s * s);
        o->fu2[k] = 0.5 * o->h * (2.0 * o->fu[k]) + g2;
        o->fu3[k] = 0.5 * o->h * (6.0 * o->fud[k]) + g3;
    }
    o->hd[0] = hd;
    o->hd[1] = hdd;
    o->hd[2] = 2.0 * (3.0 * at3h + bt2h) / (s * s);
    o->hd[3] = 6.0 * at3h / (s * s * s);
    o->r = r;
    memcpy(o->p, p, sizeof o->p);
    memcpy(o->pdot, pd, sizeof o->pdot);
    o->gamma = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) * r * r / o->m;
}

double ks_orbit_step(ks_orbit *o, const ks_pert *pf, const ks_ctl *c)
{
    if (o->frozen) {
        o->t0 += o->step;
        return o->t0;
    }
    correct(o, o->dtau, o->t0 + o->step, pf);
    new_step(o, c);
    return o->t0;
}

void ks_orbit_step_to(ks_orbit *o, double t, const ks_pert *pf, const ks_ctl *c)
{
    if (!(t > o->t0)) return;
    if (o->frozen) {
        /* the unperturbed orbit is exact at any time: move within a period */
        double dt = fmod(t - o->t0, o->tk);
        double s = solve_tau(o, dt, tau_period(o));
        double u[4], up[4];
        predict_u(o, s, u, up);
        memcpy(o->u, u, sizeof u);
        memcpy(o->up, up, sizeof up);
        o->t0 = t;
        o->r = dot4(u, u);
        ks_orbit_freeze(o, 1);
        return;
    }
    double s = solve_tau(o, t - o->t0, 2.0 * o->dtau);
    correct(o, s, t, pf);
    o->dtau = s;
    new_step(o, c);
}

double ks_orbit_predict_h(const ks_orbit *o, double t, double q[3], double qdot[3])
{
    double dt = t - o->t0;
    if (o->frozen) dt = fmod(dt, o->tk);
    if (!(dt > 0.0)) {
        ks_to_rel(o->u, o->up, q, qdot);
        return o->h;
    }
    double hi = o->frozen ? tau_period(o) : 2.0 * o->dtau;
    double s = solve_tau(o, dt, hi), u[4], up[4];
    predict_u(o, s, u, up);
    ks_to_rel(u, up, q, qdot);
    /* a frozen orbit keeps h (its hd are zero); a perturbed one changes h
     * within a step by h' = 2 u'.L^T P, which an energy check between two
     * KS steps must see (NBODY6's RESOLV predicts HT the same way) */
    const double *hd = o->hd;
    return o->h + s * (hd[0] + s * (hd[1] / 2.0 + s * (hd[2] / 6.0 + s * hd[3] / 24.0)));
}

void ks_orbit_predict(const ks_orbit *o, double t, double q[3], double qdot[3])
{
    (void)ks_orbit_predict_h(o, t, q, qdot);
}

void ks_orbit_freeze(ks_orbit *o, int k)
{
    double hh = 0.5 * o->h;
    for (int c = 0; c < 4; c++) {
        o->fp0[c] = o->fd0[c] = 0.0;
        o->fu[c] = 0.5 * hh * o->u[c];
        o->fud[c] = hh * o->up[c] / 6.0;
        o->fu2[c] = hh * hh * o->u[c];
        o->fu3[c] = hh * hh * o->up[c];
    }
    memset(o->hd, 0, sizeof o->hd);
    memset(o->p, 0, sizeof o->p);
    memset(o->pdot, 0, sizeof o->pdot);
    o->gamma = 0.0;
    o->r = dot4(o->u, o->u);
    o->tk = ks_orbit_tseries(o, tau_period(o), NULL);
    o->step = (k < 1 ? 1 : k) * o->tk;
    o->frozen = 1;
}

void ks_orbit_rectify(ks_orbit *o)
{
    for (int pass = 0; pass < 2; pass++) {
        double up2 = dot4(o->up, o->up), r = dot4(o->u, o->u);
        if (!(up2 > 0.0)) return;
        double a1 = o->m / (4.0 * up2), a2 = a1 * a1 + o->h * r / (2.0 * up2), c1, c2;
        if (a2 >= 0.0) {
            c1 = sqrt(a1 < 1.0 ? a1 + sqrt(a2) : a1 - sqrt(a2));
            c2 = 1.0 / c1;
        } else {
            c1 = 1.0;
            c2 = o->m / sqrt(-8.0 * o->h * r * up2);
        }
        for (int k = 0; k < 4; k++) {
            o->u[k] *= c2;
            o->up[k] *= c1;
        }
        o->r = dot4(o->u, o->u);
        if (a2 >= 0.0) break;
    }
}

double ks_orbit_semi(const ks_orbit *o) { return -0.5 * o->m / o->h; }

double ks_orbit_ecc(const ks_orbit *o)
{
    double a = ks_orbit_semi(o), r = dot4(o->u, o->u), td = 2.0 * dot4(o->u, o->up);
    double e2 = (1.0 - r / a) * (1.0 - r / a) + td * td / (o->m * a);
    return sqrt(fmax(e2, 0.0));
}

double ks_orbit_period(const ks_orbit *o)
{
    if (o->h >= 0.0) return INFINITY;
    double a = ks_orbit_semi(o);
    return 2.0 * M_PI * a * sqrt(a / o->m);
}
