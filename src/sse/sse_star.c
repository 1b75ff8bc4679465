/* sse_star.c — the time scales and characteristic luminosities of a star
 * (NBODY6's star.f): MS lifetime, t_BGB, He ignition and burning times, the
 * giant-branch and AGB core-growth clocks (HPT00 eqs 31-40, 68-71), the
 * thermal-pulse and maximum-core times, and the nuclear time tn (when the
 * core would reach the whole mass) that bounds the update steps. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

/* The asymptotic time t_inf1 of a core-growth phase starting at time t0
 * with luminosity l0 on the low-L branch of the L-Mc relation (eq 40). */
static double tinf1_from(double t0, double a, const double *gb, double l0)
{
    return t0 + (1.0 / ((gb[5] - 1.0) * a * gb[4])) * pow(gb[4] / l0, (gb[5] - 1.0) / gb[5]);
}

/* The crossover time t_x and the high-L branch's t_inf2 (eqs 39-40). */
static void tx_tinf2(double t0, double tinf1, double a, const double *gb, double l0, double lx,
                     double *tx, double *tinf2)
{
    *tx = tinf1 - (tinf1 - t0) * pow(l0 / lx, (gb[5] - 1.0) / gb[5]);
    *tinf2 = *tx + (1.0 / ((gb[6] - 1.0) * a * gb[3])) * pow(gb[3] / lx, (gb[6] - 1.0) / gb[6]);
}

/* The GB parameters of a hydrogen star of mass m (eqs 31-38). */
static void giant_params(const sse_consts *c, double m, double *gb)
{
    const double lgd = c->zpars[6];
    gb[1] = pow(10.0, fmax(-4.8, fmin(-5.7 + 0.8 * m, -4.1 + 0.14 * m)));   /* A_H */
    gb[2] = 1.27e-5;                                                       /* A_H,He */
    gb[8] = 8.0e-5;                                                        /* A_He */
    gb[3] = fmax(3.0e4, 500.0 + 1.75e4 * pow(m, 0.6));                     /* B */
    double logd;
    if (m <= 2.0) {
        logd = lgd;
        gb[5] = 6.0;
        gb[6] = 3.0;
    } else if (m < 2.5) {
        const double dx = lgd - (0.975 * lgd - 0.18 * 2.5);
        logd = lgd - dx * (m - 2.0) / 0.5;
        gb[5] = 6.0 - (m - 2.0) / 0.5;
        gb[6] = 3.0 - (m - 2.0) / 0.5;
    } else {
        logd = fmax(fmax(-1.0, 0.5 * lgd - 0.06 * m), 0.975 * lgd - 0.18 * m);
        gb[5] = 5.0;
        gb[6] = 2.0;
    }
    gb[4] = pow(10.0, logd);
    gb[7] = pow(gb[3] / gb[4], 1.0 / (gb[5] - gb[6]));     /* Mx */
}

/* First giant branch and He burning for M <= MFGB; for heavier stars He
 * ignites in the gap and there is no GB (t[1] is then He ignition). */
static void gb_and_cheb(const sse_consts *c, double m, sse_tscales *ts)
{
    const double *zp = c->zpars;
    double *t = ts->t, *l = ts->l, *gb = ts->gb;
    if (m <= zp[3]) {
        l[3] = sse_lbgb(c, m);
        t[4] = tinf1_from(t[1], gb[1], gb, l[3]);
        tx_tinf2(t[1], t[4], gb[1], gb, l[3], l[6], &t[6], &t[5]);
        if (l[4] <= l[6])
            t[2] = t[4] - (1.0 / ((gb[5] - 1.0) * gb[1] * gb[4])) * pow(gb[4] / l[4], (gb[5] - 1.0) / gb[5]);
        else
            t[2] = t[5] - (1.0 / ((gb[6] - 1.0) * gb[1] * gb[3])) * pow(gb[3] / l[4], (gb[6] - 1.0) / gb[6]);
        if (m <= zp[2]) {
            const double mc1 = sse_mc_of_l(l[4], gb, l[6]);
            l[5] = sse_lzahb(c, m, mc1, zp[2]);
            t[3] = sse_the(c, m, mc1, zp[2]);
        } else {
            l[5] = sse_lhe(c, m) * l[4];
            t[3] = sse_the(c, m, 1.0, zp[2]) * t[1];
        }
    } else {
        t[2] = t[1];
        t[3] = sse_the(c, m, 1.0, zp[2]) * t[1];
        l[5] = l[7];                /* end of CHeB = BAGB */
        l[3] = l[4];                /* end of the HG = He ignition */
    }
}

/* The nuclear time tn: when the core mass would reach mt without further
 * mass loss (bounds the update steps; NBODY6's star.f). mc1 is the core at
 * the first thermal pulse (after second dredge-up). */
static double nuclear_time(const sse_consts *c, int kw, double m, double mt, double mcbagb,
                           double mc1, const sse_tscales *ts)
{
    const double *zp = c->zpars, *t = ts->t, *gb = ts->gb, *l = ts->l;
    const double tbagb = t[2] + t[3];
    if (fabs(mt - mcbagb) < 1.0e-14 && kw < 5)
        return tbagb;
    if (mt > mcbagb || (mt >= mc1 && kw > 4)) {
        double mcx = mt;
        if (kw == 6) {
            const double lambda = fmin(0.9, 0.3 + 0.001 * sse_ipow(m, 5));
            mcx = (mt - lambda * mc1) / (1.0 - lambda);
        }
        return sse_t_of_mc(mcx, gb[2], gb, t[10], t[11]);
    }
    if (m > zp[3]) {
        const double mca = sse_mchei(c, m, zp[2], zp[10]);
        return mt <= mca ? t[2] : t[2] + t[3] * ((mt - mca) / (mcbagb - mca));
    }
    if (m <= zp[2]) {
        const double mca = sse_mc_of_l(l[3], gb, l[6]);
        const double mcb = sse_mc_of_l(l[4], gb, l[6]);
        if (mt <= mca)
            return t[1];
        if (mt <= mcb)
            return sse_t_of_mc(mt, gb[1], gb, t[4], t[5]);
        return t[2] + t[3] * ((mt - mcb) / (mcbagb - mcb));
    }
    const double mca = sse_mchei(c, m, zp[2], zp[9]);
    const double mcb = sse_mchei(c, m, zp[2], zp[10]);
    if (mt <= mca)
        return t[1];
    if (mt <= mcb)
        return t[1] + (t[2] - t[1]) * ((mt - mca) / (mcb - mca));
    return t[2] + t[3] * ((mt - mcb) / (mcbagb - mcb));
}

/* AGB: the early-AGB clock, the first thermal pulse (with second dredge-up
 * reducing the He core, eq 69), the TP-AGB clock and the time at which the
 * CO core reaches its maximum (eq 75, third dredge-up lambda, eq 73). */
static double agb_times(const sse_consts *c, double m, sse_tscales *ts)
{
    double *t = ts->t, *l = ts->l, *gb = ts->gb;
    const double tbagb = t[2] + t[3];
    t[7] = tinf1_from(tbagb, gb[8], gb, l[7]);
    tx_tinf2(tbagb, t[7], gb[8], gb, l[7], l[6], &t[9], &t[8]);
    const double mcbagb = sse_mcagb(c, m);
    double mc1 = mcbagb;
    if (mc1 >= 0.8 && mc1 < 2.25)
        mc1 = 0.44 * mc1 + 0.448;
    l[8] = sse_l_of_mc(mc1, gb);
    t[13] = sse_t_of_mc(mc1, gb[8], gb, t[7], t[8]);
    if (mc1 <= gb[7]) {
        t[10] = tinf1_from(t[13], gb[2], gb, l[8]);
        tx_tinf2(t[13], t[10], gb[2], gb, l[8], l[6], &t[12], &t[11]);
    } else {
        t[10] = t[7];
        t[12] = t[9];
        t[11] = t[13] + (1.0 / ((gb[6] - 1.0) * gb[2] * gb[3])) * pow(gb[3] / l[8], (gb[6] - 1.0) / gb[6]);
    }
    const double mc2 = sse_mc_of_t(tbagb, gb[8], gb, t[7], t[8], t[9]);
    double mcmax = fmax(fmax(SSE_MCH, 0.773 * mcbagb - 0.35), 1.02 * mc2);
    if (mcbagb >= 1.6 && mcbagb <= 2.25)        /* electron-capture range */
        mcmax = fmax(fmax(1.372, 0.773 * mcbagb - 0.35), 1.02 * mc2);
    if (mcmax <= mc1) {
        t[14] = sse_t_of_mc(mcmax, gb[8], gb, t[7], t[8]);
    } else {
        const double lambda = fmin(0.9, 0.3 + 0.001 * sse_ipow(m, 5));
        mcmax = (mcmax - lambda * mc1) / (1.0 - lambda);
        t[14] = sse_t_of_mc(mcmax, gb[2], gb, t[10], t[11]);
    }
    t[14] = fmax(tbagb, t[14]);
    return mc1;
}

static void hydrogen_star(const sse_consts *c, int kw, double m, double mt, sse_tscales *ts)
{
    double *t = ts->t, *l = ts->l, *gb = ts->gb;
    t[1] = sse_tbgb(c, m);
    ts->tm = fmax(c->zpars[8], sse_thook(c, m)) * t[1];
    l[1] = sse_lzams(c, m);
    l[2] = sse_ltms(c, m);
    giant_params(c, m, gb);
    l[6] = gb[4] * pow(gb[7], gb[5]);
    l[4] = sse_lhei(c, m, c->zpars[2]);
    l[7] = sse_lbagb(c, m, c->zpars[2]);
    if (m < 0.1 && kw <= 1) {       /* below the fits' range: MS only */
        t[2] = 1.1 * t[1];
        t[3] = 0.1 * t[1];
        l[3] = sse_lbgb(c, m);
        ts->tn = 1.0e10;
        return;
    }
    gb_and_cheb(c, m, ts);
    const double zp2 = c->zpars[2], zp3 = c->zpars[3];
    if (m <= zp2)
        gb[9] = sse_mc_of_l(l[3], gb, l[6]);
    else
        gb[9] = sse_mchei(c, m, zp2, m <= zp3 ? c->zpars[9] : c->zpars[10]);
    const double mc1 = agb_times(c, m, ts);
    ts->tn = fmin(nuclear_time(c, kw, m, mt, sse_mcagb(c, m), mc1, ts), t[14]);
}

/* Naked helium star of mass m (section 6.1, eqs 79-84). */
static void helium_star(double m, double mt, sse_tscales *ts)
{
    double *t = ts->t, *l = ts->l, *gb = ts->gb;
    ts->tm = sse_thems(m);
    t[1] = ts->tm;
    l[1] = sse_lzhe(m);
    l[2] = l[1] * (1.0 + 0.45 + fmax(0.0, 0.85 - 0.08 * m));
    gb[8] = 8.0e-5;
    gb[3] = 4.1e4;
    gb[4] = 5.5e4 / (1.0 + 0.4 * sse_ipow(m, 4));
    gb[5] = 5.0;
    gb[6] = 3.0;
    gb[7] = pow(gb[3] / gb[4], 1.0 / (gb[5] - gb[6]));
    l[6] = gb[4] * pow(gb[7], gb[5]);
    const double mc1 = sse_mc_of_l(l[2], gb, l[6]);
    t[4] = ts->tm + (1.0 / ((gb[5] - 1.0) * gb[8] * gb[4])) * pow(mc1, 1.0 - gb[5]);
    t[6] = t[4] - (t[4] - ts->tm) * pow(gb[7] / mc1, 1.0 - gb[5]);
    t[5] = t[6] + (1.0 / ((gb[6] - 1.0) * gb[8] * gb[3])) * pow(gb[7], 1.0 - gb[6]);
    double mtc = fmin(mt, 1.45 * mt - 0.31);
    if (mtc <= 0.0)
        mtc = mt;
    const double mcmax = fmin(mtc, fmax(SSE_MCH, 0.773 * m - 0.35));
    t[14] = fmax(sse_t_of_mc(mcmax, gb[8], gb, t[4], t[5]), ts->tm);
    ts->tn = t[14];
}

void sse_tscales_of(const sse_consts *c, int kw, double m0, double mt, sse_tscales *ts)
{
    if (kw >= SSE_HEMS && kw <= SSE_HEGB) {
        helium_star(m0, mt, ts);
    } else if (kw >= SSE_HEWD) {
        ts->tm = 1.0e10;            /* remnants: no nuclear clock */
        ts->t[1] = ts->tm;
        ts->tn = 1.0e10;
    } else {
        hydrogen_star(c, kw, m0, mt, ts);
    }
}
