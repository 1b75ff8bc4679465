/* sse_remnant.c — what a star leaves: white-dwarf cooling luminosity and
 * radius (HPT00 section 6.2.1), neutron-star and black-hole masses from the
 * core mass (NBODY6's default nsflag = 2: the FeNi core and fall-back of
 * Belczynski et al. 2008, then baryonic -> gravitational mass, the
 * largest NS being 2.5 Msun).  The types themselves are decided in
 * sse_hrdiag.c. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

/* Radius of a degenerate core (Tout et al. 1997 eq 17) without the
 * small-mass cases: the cores of giants and the WD they become. */
double sse_degenerate_core_radius(double mc)
{
    const double x = pow(SSE_MCH / mc, 2.0 / 3.0) - pow(mc / SSE_MCH, 2.0 / 3.0);
    return 0.0115 * sqrt(fmax(1.48204e-6, x));
}

/* A white dwarf's radius, capped at 0.1 Rsun; planet-mass objects that a
 * binary code can strip to get fixed radii. */
double sse_wd_radius(double m)
{
    if (m < 0.000005)
        return 0.009;
    if (m < 0.0005)
        return 0.09;
    return fmin(0.1, sse_degenerate_core_radius(m));
}

/* Modified Mestel cooling (NBODY6's wdflag = 1, HPT00 eq 93 and its
 * steeper late-time branch): A = 4 for He, 16 for CO/ONe. */
double sse_wd_lum(const sse_consts *c, int kw, double m, double age)
{
    const double a = kw == SSE_HEWD ? 4.0 : 16.0;
    const double zf = c->zpars[14];
    if (age < 9000.0)
        return 300.0 * m * zf / pow(a * (age + 0.1), 1.18);
    const double fac = pow(9000.1 * a, 5.3);
    return 300.0 * fac * m * zf / pow(a * (age + 0.1), 6.48);
}

/* The FeNi core of Belczynski et al. (2008) for a CO core mc. */
static double feni_core(double mc)
{
    if (mc < 4.82)
        return 1.5;
    if (mc < 6.31)
        return 2.11;
    if (mc < 6.75)
        return 0.69255 * mc - 2.26;
    return 0.37 * mc - 0.0828;
}

double sse_ns_bh_mass(double mc, double mt, int *kw)
{
    const double mfeni = feni_core(mc);
    /* fall-back: none below mc = 5, all of the star from 7.6 up */
    double m = mt;
    if (mc <= 5.0)
        m = mfeni;
    else if (mc < 7.6)
        m = mfeni + (mc - 5.0) * (mt - mfeni) / 2.6;
    /* baryonic -> gravitational mass (Lattimer & Yahil 1989), joined to a
     * 10 % loss for black holes */
    const double mg = (-1.0 + sqrt(1.0 + 0.3 * m)) / 0.15;
    if (mg <= SSE_MXNS) {
        m = mg;
    } else if (mg <= SSE_MXNS + 1.0) {
        const double f = 1.0 / (0.075 * SSE_MXNS + 1.0);
        m = (0.9 - (SSE_MXNS + 1.0 - mg) * (0.9 - f)) * m;
    } else {
        m = 0.9 * m;
    }
    *kw = m <= SSE_MXNS ? SSE_NS : SSE_BH;
    return m;
}
