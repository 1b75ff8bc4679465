/* sse_mrenv.c — mass and radius of the convective envelope and the
 * envelope's gyration radius k^2 (NBODY6's mrenv.f; Hurley, Tout & Pols
 * 2002 section 2.3, fitted at Z = 0.02 and used at every Z as NBODY6
 * does).  Binary evolution (tides, magnetic braking) reads them. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

/* k^2 of the envelope of a giant-like star (GB and AGB, also CHeB), joined
 * continuously to its BGB value. */
static double k2_giant(int kw, double mt, double lum, double lbgb, double k2bgb)
{
    if (kw >= SSE_GB && kw <= SSE_TPAGB) {
        const double lmt = log10(mt);
        const double f = 0.208 + 0.125 * lmt - 0.035 * sse_ipow(lmt, 2);
        const double b = 1.0e4 * pow(mt, 1.5) / (1.0 + 0.1 * pow(mt, 1.5));
        const double x = sse_ipow((lum - lbgb) / b, 2);
        const double y = (f - 0.033 * log10(lbgb)) / k2bgb - 1.0;
        return (f - 0.033 * log10(lum) + 0.4 * x) / (1.0 + y * (lbgb / lum) + x);
    }
    if (kw == SSE_HEGB) {
        const double b = 3.0e4 * pow(mt, 1.5);
        const double x = sse_ipow(fmax(0.0, lum / b - 0.5), 2);
        return (k2bgb + 0.4 * x) / (1.0 + 0.4 * x);
    }
    return k2bgb;
}

/* The largest envelope mass and radius fractions the phase allows: FGB
 * stars near the BGB have not yet a full convective envelope. */
static void envelope_caps(int kw, double lum, double lbgb, double lhei, double *mg, double *rg)
{
    if (kw <= SSE_HG) {
        *mg = 0.5;
        *rg = 0.65;
    } else if (kw == SSE_GB && lum < 3.0 * lbgb) {
        const double x = fmin(3.0, lhei / lbgb);
        const double tau = fmax(0.0, fmin(1.0, (x - lum / lbgb) / (x - 1.0)));
        *mg = 1.0 - 0.5 * sse_ipow(tau, 2);
        *rg = 1.0 - 0.35 * sse_ipow(tau, 2);
    } else {
        *mg = 1.0;
        *rg = 1.0;
    }
}

void sse_mrenv(int kw, double mass, double mt, double mc, double lum, double rad,
               double rc, double aj, double tm, double ltms, double lbgb, double lhei,
               double rzams, double rtms, double rg, double *menv, double *renv, double *k2e)
{
    const double logm = log10(mass);
    const double a = fmin(0.81, fmax(0.68, 0.68 + 0.4 * logm));
    const double cexp = fmax(-2.5, fmin(-1.5, -2.5 + 5.0 * logm));
    const double d = -0.1, e = 0.025;
    double k2z = fmin(0.21, fmax(0.09 - 0.27 * logm, 0.037 + 0.033 * logm));
    if (logm > 1.3)
        k2z -= 0.055 * sse_ipow(logm - 1.3, 2);
    const double k2bgb = fmin(0.15, fmin(0.147 + 0.03 * logm, 0.162 - 0.04 * logm));
    const double k2g = k2_giant(kw, mt, lum, lbgb, k2bgb);
    double menvg, renvg;
    envelope_caps(kw, lum, lbgb, lhei, &menvg, &renvg);
    double me, re, k2 = 0.0;
    if (rad < rg) {
        /* not on the Hayashi track: MS, HG, blue CHeB, He stars, giants
         * with a tiny envelope */
        if (kw <= SSE_TPAGB) {
            const double rzr = fmax(1.0, rad / rzams);
            k2 = (k2z - e) * pow(rzr, cexp) + e * pow(rzr, d);
        } else if (kw == SSE_HEMS) {
            k2 = 0.08 - 0.03 * (aj / tm);
        } else if (kw <= SSE_HEGB) {
            k2 = 0.08 * rzams / rad;
        }
        /* tauenv: how close to the Hayashi track (in Teff) */
        double tebgb = 0.0, tauenv;
        if (kw <= SSE_HG) {
            const double teff = sqrt(sqrt(lum) / rad);
            tebgb = sqrt(sqrt(lbgb) / rg);
            tauenv = fmax(0.0, fmin(1.0, (tebgb / teff - a) / (1.0 - a)));
        } else {
            tauenv = fmax(0.0, fmin(1.0, (sqrt(rad / rg) - a) / (1.0 - a)));
        }
        if (tauenv > 0.0) {
            me = menvg * sse_ipow(tauenv, 5);
            re = renvg * pow(tauenv, 5.0 / 4.0);
            if (kw <= SSE_MS) {
                /* on the MS: from the ZAMS envelope to that at the TMS */
                const double x = fmax(0.0, fmin(1.0, (0.1 - logm) / 0.55));
                const double menvz = 0.18 * x + 0.82 * sse_ipow(x, 5);
                const double renvz = 0.4 * pow(x, 0.25) + 0.6 * sse_ipow(x, 10);
                const double y = 2.0 + 8.0 * x;
                const double tetms = sqrt(sqrt(ltms) / rtms);
                const double tautms = fmax(0.0, fmin(1.0, (tebgb / tetms - a) / (1.0 - a)));
                const double menvt = menvg * sse_ipow(tautms, 5);
                const double renvt = renvg * pow(tautms, 5.0 / 4.0);
                const double tau = aj / tm;
                if (tautms > 0.0) {
                    me = menvz + pow(tau, y) * me * (menvt - menvz) / menvt;
                    re = renvz + pow(tau, y) * re * (renvt - renvz) / renvt;
                } else {
                    me = 0.0;
                    re = 0.0;
                }
                k2 += pow(tau, y) * sse_ipow(tauenv, 3) * (k2g - k2);
            } else {
                k2 += sse_ipow(tauenv, 3) * (k2g - k2);
            }
        } else {
            me = 0.0;
            re = 0.0;
        }
    } else {
        me = menvg;             /* a true giant */
        re = renvg;
        k2 = k2g;
    }
    *menv = fmax(me * (mt - mc), 1.0e-10);
    *renv = fmax(re * (rad - rc), 1.0e-10);
    *k2e = k2;
}
