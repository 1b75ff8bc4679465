/* sse_gntage.c — a giant built around a given core (sse.h: sse_gntage):
 * the initial mass and age at which a star of the given type has that
 * core, so that a merger product or a star left by a common envelope
 * continues on the tracks of HPT00 from its actual core (Hurley, Tout &
 * Pols 2002, MNRAS 329, 897, section 2.7: the product's age is found from
 * its core mass and type).  Also the inverses of HPT00's core-mass fits
 * that it needs. */
#include <math.h>
#include "sse/sse_internal.h"

#define GNT_MACC 1.0e-5   /* bisection's tolerance in the initial mass */
#define GNT_LACC 1.0e-4   /* Newton's relative tolerance in L at the BGB */
#define GNT_ITER 30       /* bisection halvings */
#define GNT_NEWTON 100    /* Newton steps (converges in a few) */

/* The mass at the base of the AGB whose core there is mc (eq 66
 * inverted); 0 below the smallest such core. */
double sse_mbagb(const sse_consts *c, double mc)
{
    const double *b = c->gbp, mc4 = sse_ipow(mc, 4);
    return mc4 > b[37] ? pow((mc4 - b[37]) / b[35], 1.0 / b[36]) : 0.0;
}

/* The mass whose core at the BGB or at He ignition (mchef selects which,
 * as for sse_mchei) is mc (eq 44 inverted, with its 0.95 Mc,BAGB cap). */
double sse_mhei(const sse_consts *c, double mc, double mhef, double mchef)
{
    const double *b = c->gbp;
    const double a3 = sse_ipow(mchef, 4) - b[33] * pow(mhef, b[34]);
    const double m1 = sse_mbagb(c, mc / 0.95), m2 = pow((sse_ipow(mc, 4) - a3) / b[33], 1.0 / b[34]);
    return fmax(m1, m2);
}

/* dL_BGB/dM (eq 10 differentiated). */
static double lbgb_slope(const sse_consts *c, double m)
{
    const double *b = c->gbp;
    const double f = b[1] * pow(m, b[5]) + b[2] * pow(m, b[8]);
    const double df = b[5] * b[1] * pow(m, b[5] - 1.0) + b[8] * b[2] * pow(m, b[8] - 1.0);
    const double g = b[3] + b[4] * pow(m, b[7]) + pow(m, b[6]);
    const double dg = b[7] * b[4] * pow(m, b[7] - 1.0) + b[6] * pow(m, b[6] - 1.0);
    return (df * g - f * dg) / (g * g);
}

/* Type 4 of fractional age f (0 at He ignition, 1 at the BAGB): the
 * initial mass whose core, interpolated between the two ends by f, is mc
 * (bisection between the masses that have mc at either end); -1 when mc
 * is outside that range (the star is a giant-branch star instead). */
static double cheb_mass(const sse_consts *c, double mc, double f)
{
    const double *z = c->zpars;
    const double mmin = mc >= sse_mcagb(c, z[2]) ? sse_mbagb(c, mc) : z[2];
    const double mmax = sse_mhei(c, mc, z[2], z[10]);
    if (f < SSE_TINY) return mmax;
    if (f >= 1.0) return mmin;
#define CORE_AT(m) ((1.0 - f) * sse_mchei(c, (m), z[2], z[10]) + f * sse_mcagb(c, (m)) - mc)
    if (CORE_AT(mmin) * CORE_AT(mmax) >= 0.0) return -1.0;
    double m0 = mmin, dm = mmax - mmin;
    for (int j = 0; j < GNT_ITER; j++) {
        dm *= 0.5;
        const double mid = m0 + dm, fmid = CORE_AT(mid);
        if (fmid < 0.0) m0 = mid;
        if (fabs(dm) < GNT_MACC || fabs(fmid) < SSE_TINY) break;
    }
#undef CORE_AT
    return m0;
}

/* Type 3: the initial mass that puts a core mc at the base of the giant
 * branch (from the core fit above the He-flash mass, from L_BGB below it
 * by Newton's method). */
static double gb_mass(const sse_consts *c, double mc, double mt)
{
    const double *z = c->zpars;
    if (mc > sse_mchei(c, z[2], z[2], z[9])) return sse_mhei(c, mc, z[2], z[9]);
    double m0 = z[2];
    sse_tscales ts;
    sse_tscales_of(c, SSE_GB, m0, mt, &ts);
    const double lum = sse_l_of_mc(mc, ts.gb);
    for (int j = 0; j < GNT_NEWTON; j++) {
        const double dl = sse_lbgb(c, m0) - lum;
        if (fabs(dl / lum) <= GNT_LACC) break;
        m0 -= dl / lbgb_slope(c, m0);
    }
    return m0;
}

/* Types 8/9: the He-star mass at whose end of the He MS the core is mc
 * (bracketed by doubling, then bisection). */
static double he_giant_mass(const sse_consts *c, double mc, double mt)
{
    sse_tscales ts;
    double mmax = mt, mcy = 0.0;
    for (int j = 0; j < GNT_ITER; j++) {
        sse_tscales_of(c, SSE_HEHG, mmax, mc, &ts);
        mcy = sse_mc_of_l(ts.l[2], ts.gb, ts.l[6]);
        if (mcy > mc) break;
        mmax *= 2.0;
    }
    double m0 = mc, dm = mmax - mc;
    for (int j = 0; j < GNT_ITER; j++) {
        dm *= 0.5;
        const double mid = m0 + dm;
        sse_tscales_of(c, SSE_HEHG, mid, mc, &ts);
        const double fmid = sse_mc_of_l(ts.l[2], ts.gb, ts.l[6]) - mc;
        if (fmid < 0.0) m0 = mid;
        if (fabs(dm) < GNT_MACC || fabs(fmid) < SSE_TINY) break;
    }
    return m0;
}

void sse_gntage(const sse_consts *c, double *mc, double mt, int *kw, double *m0, double *aj)
{
    const double *z = c->zpars;
    sse_tscales ts;
    int k = *kw, small_co = 0; /* small_co: a CO core too small for the AGB */
    /* a core too small for helium burning is a giant-branch core; one
     * above the largest giant-branch core burns helium */
    if (k == SSE_CHEB && *mc <= sse_mchei(c, z[2], z[2], z[10])) k = SSE_GB;
    if (k == SSE_GB && *mc >= sse_mchei(c, z[3], z[2], z[9])) {
        k = SSE_CHEB;
        *aj = 0.0;
    }
    if (k == SSE_TPAGB) {
        /* the CO core at the first thermal pulse (Mc,TP's relation to
         * Mc,BAGB inverted: 0.44 Mc,BAGB + 0.448, and the SN branch of
         * 0.773 Mc,BAGB - 0.35 above 2.25 Msun) */
        const double mcx = *mc > 0.44 * 2.25 + 0.448 ? (*mc + 0.35) / 0.773
                           : *mc >= 0.8              ? (*mc - 0.448) / 0.44
                                                     : *mc;
        *m0 = sse_mbagb(c, mcx);
        if (*m0 < SSE_TINY) {
            small_co = 1;
        } else {
            sse_tscales_of(c, k, *m0, mt, &ts);
            *aj = ts.t[13];
        }
    }
    if (k == SSE_EAGB) {
        *m0 = sse_mbagb(c, *mc);
        if (*m0 < SSE_TINY) {
            small_co = 1;
        } else {
            sse_tscales_of(c, k, *m0, mt, &ts);
            *aj = ts.t[2] + ts.t[3];
        }
    }
    if (k == SSE_CHEB && !small_co) {
        /* *aj is the fraction of the core-helium-burning life done */
        const double m = cheb_mass(c, *mc, *aj);
        if (m < 0.0) {
            k = SSE_GB;
        } else {
            *m0 = m;
            sse_tscales_of(c, k, *m0, mt, &ts);
            *aj = ts.t[2] + *aj * ts.t[3];
        }
    }
    if (k == SSE_GB) {
        *m0 = gb_mass(c, *mc, mt);
        sse_tscales_of(c, k, *m0, mt, &ts);
        *aj = ts.t[1] + 1.0e-6 * (ts.t[2] - ts.t[1]);
    }
    if (k == SSE_HEHG || k == SSE_HEGB) {
        /* a post-MS helium star, started at the end of its MS */
        k = SSE_HEHG;
        *m0 = he_giant_mass(c, *mc, mt);
        sse_tscales_of(c, k, *m0, mt, &ts);
        *aj = ts.tm * (1.0 + 1.0e-10);
    }
    if (small_co) {
        /* a low-mass CO (or ONe) WD under a small envelope, or a helium
         * star merged with a MS star: a CHeB star of the whole mass whose
         * core is placed by the fraction of the CO core's growth */
        k = SSE_CHEB;
        *m0 = mt;
        const double mcy = sse_mcagb(c, *m0), f = *mc / mcy;
        sse_tscales_of(c, k, *m0, mt, &ts);
        const double mcx = *m0 <= z[2] ? sse_mc_of_l(ts.l[4], ts.gb, ts.l[6]) : sse_mchei(c, *m0, z[2], z[10]);
        *mc = mcx + (mcy - mcx) * f;
        *aj = ts.t[2] + f * ts.t[3];
    }
    *kw = k;
}
