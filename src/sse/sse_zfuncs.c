/* sse_zfuncs.c — the fitting functions of HPT00 (section 5 for hydrogen
 * stars, section 6 for naked helium stars and the small-envelope
 * perturbations), each evaluated with the coefficients of sse_zcnsts.c.
 * Pure functions of mass (and L, core mass) at a fixed metallicity. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

/* ---- main sequence ------------------------------------------------------ */

double sse_lzams(const sse_consts *c, double m)     /* Tout et al. 1996 eq 1 */
{
    const double *a = c->msp;
    const double sm = sqrt(m);
    return (a[1] * sse_ipow(m, 5) * sm + a[2] * sse_ipow(m, 11)) /
           (a[3] + sse_ipow(m, 3) + a[4] * sse_ipow(m, 5) + a[5] * sse_ipow(m, 7) +
            a[6] * sse_ipow(m, 8) + a[7] * sse_ipow(m, 9) * sm);
}

double sse_rzams(const sse_consts *c, double m)     /* Tout et al. 1996 eq 2 */
{
    const double *a = c->msp;
    const double sm = sqrt(m), m2 = sse_ipow(m, 2);
    return ((a[8] * m2 + a[9] * sse_ipow(m, 6)) * sm + a[10] * sse_ipow(m, 11) +
            (a[11] + a[12] * sm) * sse_ipow(m, 19)) /
           (a[13] + a[14] * m2 + (a[15] * sse_ipow(m, 8) + sse_ipow(m, 18) + a[16] * sse_ipow(m, 19)) * sm);
}

/* Time to the base of the giant branch (eq 4), floored so that stars above
 * 100 Msun keep a finite MS (NBODY6's README_SSE note 1). */
double sse_tbgb(const sse_consts *c, double m)
{
    const double *a = c->msp;
    const double t = (a[17] + a[18] * sse_ipow(m, 4) + a[19] * pow(m, 5.5) + sse_ipow(m, 7)) /
                     (a[20] * sse_ipow(m, 2) + a[21] * sse_ipow(m, 7));
    return fmax(t, 3.35);
}

double sse_thook(const sse_consts *c, double m)     /* eq 7: t_hook / t_BGB */
{
    const double *a = c->msp;
    const double x = 1.0 - 0.01 * fmax(a[22] / pow(m, a[23]), a[24] + a[25] / pow(m, a[26]));
    return fmax(x, 0.5);
}

double sse_ltms(const sse_consts *c, double m)      /* eq 8 */
{
    const double *a = c->msp;
    return (a[27] * sse_ipow(m, 3) + a[28] * sse_ipow(m, 4) + a[29] * pow(m, a[32] + 1.8)) /
           (a[30] + a[31] * sse_ipow(m, 5) + pow(m, a[32]));
}

double sse_lalpha(const sse_consts *c, double m)    /* eq 19 */
{
    const double *a = c->msp;
    const double mcut = 2.0;
    if (m >= mcut)
        return (a[33] + a[34] * pow(m, a[36])) / (pow(m, 0.4) + a[35] * pow(m, 1.9));
    if (m <= 0.5)
        return a[39];
    if (m <= 0.7)
        return a[39] + ((0.3 - a[39]) / 0.2) * (m - 0.5);
    if (m <= a[37])
        return 0.3 + ((a[40] - 0.3) / (a[37] - 0.7)) * (m - 0.7);
    if (m <= a[38])
        return a[40] + ((a[41] - a[40]) / (a[38] - a[37])) * (m - a[37]);
    return a[41] + ((a[42] - a[41]) / (mcut - a[38])) * (m - a[38]);
}

double sse_lbeta(const sse_consts *c, double m)     /* eq 20 */
{
    const double *a = c->msp;
    double b = fmax(a[43] - a[44] * pow(m, a[45]), 0.0);
    if (m > a[46] && b > 0.0) {
        const double b1 = a[43] - a[44] * pow(a[46], a[45]);
        b = fmax(b1 - 10.0 * b1 * (m - a[46]), 0.0);
    }
    return b;
}

double sse_leta(const sse_consts *c, double m)      /* eq 18 */
{
    double e = m <= 1.0 ? 10.0 : m >= 1.1 ? 20.0 : 10.0 + 100.0 * (m - 1.0);
    return fmin(e, c->msp[97]);
}

double sse_lhook(const sse_consts *c, double m, double mhook)   /* eq 16 */
{
    const double *a = c->msp;
    if (m <= mhook)
        return 0.0;
    if (m >= a[51])
        return fmin(a[47] / pow(m, a[48]), a[49] / pow(m, a[50]));
    const double b2 = fmin(a[47] / pow(a[51], a[48]), a[49] / pow(a[51], a[50]));
    return b2 * pow((m - mhook) / (a[51] - mhook), 0.4);
}

/* R_TMS (eq 9), with the low-mass end kept above 1.5 R_ZAMS and a linear
 * join between the two branches. */
double sse_rtms(const sse_consts *c, double m)
{
    const double *a = c->msp;
    const double m2 = a[62] + 0.1;
    if (m <= a[62])
        return fmax(1.5 * sse_rzams(c, m), (a[52] + a[53] * pow(m, a[55])) / (a[54] + pow(m, a[56])));
    if (m >= m2)
        return (a[57] * sse_ipow(m, 3) + a[58] * pow(m, a[61]) + a[59] * pow(m, a[61] + 1.5)) /
               (a[60] + sse_ipow(m, 5));
    return a[63] + ((a[64] - a[63]) / 0.1) * (m - a[62]);
}

double sse_ralpha(const sse_consts *c, double m)    /* eq 21 */
{
    const double *a = c->msp;
    if (m <= 0.5)
        return a[73];
    if (m <= 0.65)
        return a[73] + ((a[74] - a[73]) / 0.15) * (m - 0.5);
    if (m <= a[70])
        return a[74] + ((a[75] - a[74]) / (a[70] - 0.65)) * (m - 0.65);
    if (m <= a[71])
        return a[75] + ((a[76] - a[75]) / (a[71] - a[70])) * (m - a[70]);
    if (m <= a[72])
        return (a[65] * pow(m, a[67])) / (a[66] + pow(m, a[68]));
    const double a5 = (a[65] * pow(a[72], a[67])) / (a[66] + pow(a[72], a[68]));
    return a5 + a[69] * (m - a[72]);
}

double sse_rbeta(const sse_consts *c, double m)     /* eq 22 (returns beta - 1) */
{
    const double *a = c->msp;
    const double m2 = 2.0, m3 = 16.0;
    double b;
    if (m <= 1.0)
        b = 1.06;
    else if (m <= a[82])
        b = 1.06 + ((a[81] - 1.06) / (a[82] - 1.0)) * (m - 1.0);
    else if (m <= m2) {
        const double b2 = (a[77] * pow(m2, 3.5)) / (a[78] + pow(m2, a[79]));
        b = a[81] + ((b2 - a[81]) / (m2 - a[82])) * (m - a[82]);
    } else if (m <= m3)
        b = (a[77] * pow(m, 3.5)) / (a[78] + pow(m, a[79]));
    else {
        const double b3 = (a[77] * pow(m3, 3.5)) / (a[78] + pow(m3, a[79]));
        b = b3 + a[80] * (m - m3);
    }
    return b - 1.0;
}

double sse_rgamma(const sse_consts *c, double m)    /* eq 23 */
{
    const double *a = c->msp;
    const double m1 = 1.0;
    if (m > a[88] + 0.1)
        return 0.0;
    double b1 = fmax(0.0, a[83] + a[84] * pow(m1 - a[85], a[86]));
    double g;
    if (m <= m1)
        g = a[83] + a[84] * pow(fabs(m - a[85]), a[86]);
    else if (m <= a[88])
        g = b1 + (a[89] - b1) * pow((m - m1) / (a[88] - m1), a[87]);
    else {
        if (a[88] > m1)
            b1 = a[89];
        g = b1 - 10.0 * b1 * (m - a[88]);
    }
    return fmax(g, 0.0);
}

double sse_rhook(const sse_consts *c, double m, double mhook)   /* eq 24 */
{
    const double *a = c->msp;
    if (m <= mhook)
        return 0.0;
    if (m <= a[94])
        return a[95] * sqrt((m - mhook) / (a[94] - mhook));
    if (m <= 2.0) {
        const double m2 = 2.0;
        const double b2 = (a[90] + a[91] * pow(m2, 3.5)) / (a[92] * sse_ipow(m2, 3) + pow(m2, a[93])) - 1.0;
        return a[95] + (b2 - a[95]) * pow((m - a[94]) / (m2 - a[94]), a[96]);
    }
    return (a[90] + a[91] * pow(m, 3.5)) / (a[92] * sse_ipow(m, 3) + pow(m, a[93])) - 1.0;
}

/* ---- giants and core helium burning ------------------------------------- */

double sse_lbgb(const sse_consts *c, double m)      /* eq 10 */
{
    const double *b = c->gbp;
    return (b[1] * pow(m, b[5]) + b[2] * pow(m, b[8])) / (b[3] + b[4] * pow(m, b[7]) + pow(m, b[6]));
}

double sse_lbagb(const sse_consts *c, double m, double mhef)    /* eq 56 */
{
    const double *b = c->gbp;
    if (m < mhef) {
        const double a4 = (b[9] * pow(mhef, b[10]) - b[16]) / (exp(mhef * b[11]) * b[16]);
        return b[9] * pow(m, b[10]) / (1.0 + a4 * exp(m * b[11]));
    }
    return (b[12] + b[13] * pow(m, b[15] + 1.8)) / (b[14] + pow(m, b[15]));
}

double sse_rgb(const sse_consts *c, double m, double lum)       /* eq 46 */
{
    const double *b = c->gbp;
    const double a1 = fmin(b[20] / pow(m, b[21]), b[22] / pow(m, b[23]));
    return a1 * (pow(lum, b[18]) + b[17] * pow(lum, b[19]));
}

double sse_ragb(const sse_consts *c, double m, double lum, double mhef)  /* eq 74 */
{
    const double *b = c->gbp;
    const double m1 = mhef - 0.2;
    double xx = m >= mhef ? b[24] : m >= m1 ? 1.0 + 5.0 * (b[24] - 1.0) * (m - m1) : 1.0;
    const double a4 = xx * b[19];
    double a1;
    if (m <= m1)
        a1 = b[29] + b[30] * m;
    else if (m >= mhef)
        a1 = fmin(b[25] / pow(m, b[26]), b[27] / pow(m, b[28]));
    else
        a1 = b[31] + 5.0 * (b[32] - b[31]) * (m - m1);
    return a1 * (pow(lum, b[18]) + b[17] * pow(lum, a4));
}

double sse_mctms(double m)      /* Mc at the end of the MS / Mc,BGB (eq 29) */
{
    const double m525 = pow(m, 21.0 / 4.0);
    return (1.586 + m525) / (2.434 + 1.02 * m525);
}

double sse_mcagb(const sse_consts *c, double m)     /* eq 66 */
{
    const double *b = c->gbp;
    return pow(b[37] + b[35] * pow(m, b[36]), 0.25);
}

double sse_mchei(const sse_consts *c, double m, double mhef, double mchef)  /* eq 44 */
{
    const double *b = c->gbp;
    const double a3 = sse_ipow(mchef, 4) - b[33] * pow(mhef, b[34]);
    return fmin(0.95 * sse_mcagb(c, m), pow(a3 + b[33] * pow(m, b[34]), 0.25));
}

double sse_lhei(const sse_consts *c, double m, double mhef)     /* eq 49 */
{
    const double *b = c->gbp;
    if (m < mhef)
        return b[38] * pow(m, b[39]) / (1.0 + b[41] * exp(m * b[40]));
    return (b[42] + b[43] * pow(m, 3.8)) / (b[44] + sse_ipow(m, 2));
}

double sse_lhe(const sse_consts *c, double m)       /* L_He,min / L_HeI, eq 51 */
{
    const double *b = c->gbp;
    return (b[45] + b[46] * pow(m, b[48] + 0.1)) / (b[47] + pow(m, b[48]));
}

double sse_rmin(const sse_consts *c, double m)      /* eq 55 */
{
    const double *b = c->gbp;
    const double mx = pow(m, b[53]);
    return (b[49] * m + pow(b[50] * m, b[52]) * mx) / (b[51] + mx);
}

/* He-burning lifetime (eq 57): absolute for M <= MHeF, relative to t_BGB
 * above; tends to the He-MS lifetime as the envelope goes. */
double sse_the(const sse_consts *c, double m, double mc, double mhef)
{
    const double *b = c->gbp;
    if (m <= mhef) {
        const double mm = fmax((mhef - m) / (mhef - mc), 1.0e-12);
        return (b[54] + (sse_thems(mc) - b[54]) * pow(mm, b[55])) * (1.0 + b[57] * exp(m * b[56]));
    }
    const double m5 = sse_ipow(m, 5);
    return (b[58] * pow(m, b[61]) + b[59] * m5) / (b[60] + m5);
}

/* Blue-loop fraction of the He-burning lifetime (eq 58). */
double sse_tbl(const sse_consts *c, double m, double mhef, double mfgb)
{
    const double *b = c->gbp;
    double t;
    if (m <= mfgb) {
        const double m1 = m / mfgb;
        const double m2 = fmax(log10(m1) / log10(mhef / mfgb), 1.0e-12);
        t = b[64] * pow(m1, b[63]) + b[65] * pow(m2, b[62]);
    } else {
        const double r1 = fmax(1.0 - sse_rmin(c, m) / sse_ragb(c, m, sse_lhei(c, m, mhef), mhef), 1.0e-12);
        t = b[66] * pow(m, b[67]) * pow(r1, b[68]);
    }
    t = fmin(1.0, fmax(0.0, t));
    return t < 1.0e-10 ? 0.0 : t;
}

double sse_lzahb(const sse_consts *c, double m, double mc, double mhef)  /* eq 53 */
{
    const double *b = c->gbp;
    const double a5 = sse_lzhe(mc);
    const double a4 = (b[69] + a5 - b[74]) / ((b[74] - a5) * exp(b[71] * mhef));
    const double mm = fmax((m - mc) / (mhef - mc), 1.0e-12);
    return a5 + (1.0 + b[72]) * b[69] * pow(mm, b[70]) /
                ((1.0 + b[72] * pow(mm, b[73])) * (1.0 + a4 * exp(m * b[71])));
}

double sse_rzahb(const sse_consts *c, double m, double mc, double mhef)  /* eq 54 */
{
    const double *b = c->gbp;
    const double rx = sse_rzhe(mc);
    const double ry = sse_rgb(c, m, sse_lzahb(c, m, mc, mhef));
    const double mm = fmax((m - mc) / (mhef - mc), 1.0e-12);
    const double f = (1.0 + b[76]) * pow(mm, b[75]) / (1.0 + b[76] * pow(mm, b[77]));
    return (1.0 - f) * rx + f * ry;
}

/* ---- the core-mass--luminosity relation (eqs 31-39) ---------------------
 * gb[3] B, gb[4] D, gb[5] p, gb[6] q, gb[7] Mx; a the hydrogen (or helium)
 * rate constant; tinf1, tinf2, tx the asymptotic and crossover times. */

double sse_mc_of_t(double t, double a, const double *gb, double tinf1, double tinf2, double tx)
{
    if (t <= tx)
        return pow((gb[5] - 1.0) * a * gb[4] * (tinf1 - t), 1.0 / (1.0 - gb[5]));
    return pow((gb[6] - 1.0) * a * gb[3] * (tinf2 - t), 1.0 / (1.0 - gb[6]));
}

double sse_l_of_t(double t, double a, const double *gb, double tinf1, double tinf2, double tx)
{
    if (t <= tx)
        return gb[4] * pow((gb[5] - 1.0) * a * gb[4] * (tinf1 - t), gb[5] / (1.0 - gb[5]));
    return gb[3] * pow((gb[6] - 1.0) * a * gb[3] * (tinf2 - t), gb[6] / (1.0 - gb[6]));
}

double sse_mc_of_l(double lum, const double *gb, double lx)
{
    if (lum <= lx)
        return pow(lum / gb[4], 1.0 / gb[5]);
    return pow(lum / gb[3], 1.0 / gb[6]);
}

double sse_l_of_mc(double mc, const double *gb)
{
    return mc <= gb[7] ? gb[4] * pow(mc, gb[5]) : gb[3] * pow(mc, gb[6]);
}

/* The time at which the core reaches mc (the inverse of sse_mc_of_t). */
double sse_t_of_mc(double mc, double a, const double *gb, double tinf1, double tinf2)
{
    if (mc <= gb[7])
        return tinf1 - (1.0 / ((gb[5] - 1.0) * a * gb[4])) * pow(mc, 1.0 - gb[5]);
    return tinf2 - (1.0 / ((gb[6] - 1.0) * a * gb[3])) * pow(mc, 1.0 - gb[6]);
}

/* ---- naked helium stars (section 6.1) ----------------------------------- */

double sse_lzhe(double m)       /* eq 77 */
{
    const double m15 = m * sqrt(m);
    return 1.5262e4 * pow(m, 41.0 / 4.0) / (0.0469 + sse_ipow(m, 6) * (31.18 + m15 * (29.54 + m15)));
}

double sse_rzhe(double m)       /* eq 78 */
{
    return 0.2391 * pow(m, 4.6) / (0.0065 + (0.162 + m) * sse_ipow(m, 3));
}

double sse_thems(double m)      /* eq 79 */
{
    return (0.4129 + 18.81 * sse_ipow(m, 4) + 1.853 * sse_ipow(m, 6)) / pow(m, 6.5);
}

double sse_rhehg(double m, double lum, double rx, double lx)    /* eq 86 */
{
    const double cm = 2.0e-3 * pow(m, 2.5) / (2.0 + sse_ipow(m, 5));
    return rx * pow(lum / lx, 0.2) + 0.02 * (exp(cm * lum) - exp(cm * lx));
}

double sse_rhegb(double lum)    /* eq 85 */
{
    return 0.08 * pow(lum, 0.75);
}

/* ---- small envelope: exponents that pull L and R towards the core's ---- */

double sse_lpert(double m, double mu)       /* eq 99 */
{
    const double b = 0.002 * fmax(1.0, 2.5 / m);
    const double x = pow(mu / b, 3.0);
    return ((1.0 + pow(b, 3.0)) * x) / (1.0 + x);
}

double sse_rpert(double m, double mu, double r, double rc)  /* eq 100-102 */
{
    if (mu <= 0.0)
        return 0.0;
    const double b = 0.006 * fmax(1.0, 2.5 / m);
    const double fac = fmin(0.1 / log(r / rc), -14.0 / log10(mu));
    const double x = pow(mu / b, 3.0);
    return ((1.0 + pow(b, 3.0)) * x * pow(mu, fac)) / (1.0 + x);
}

/* ZAMS equatorial rotation velocity, km/s (Lang 1992, HTP02 eq 107). */
double sse_vrot(double m)
{
    return 330.0 * pow(m, 3.3) / (15.0 + pow(m, 3.45));
}
