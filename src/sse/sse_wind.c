/* sse_wind.c — stellar-wind mass loss and magnetic braking.  The wind is
 * NBODY6's default (mlwind.f with mdflag = 1, which is HPT00 section 7.1):
 * Nieuwenhuijzen & de Jager over the whole HRD for L > 4000 Lsun scaled by
 * (Z/0.02)^0.5, Reimers (eta = 0.5) on the giant branches, Vassiliadis &
 * Wood on the AGB, Hamann & Koesterke for naked He stars, and the reduced
 * WR-like rate for a thin hydrogen envelope; the LBV term (mdflag >= 2)
 * and the Vink/Belczynski rates (mdflag >= 3) are off, as in NBODY6. */
#include <math.h>
#include "sse/sse.h"
#include "sse/sse_internal.h"

#define NETA 0.5        /* Reimers coefficient */
#define BWIND 0.0       /* companion-enhanced wind factor (Tout & Eggleton 1988) */
#define LUM0 7.0e4
#define KAP (-0.5)

/* Massive stars everywhere in the HRD (Nieuwenhuijzen & de Jager 1990,
 * metallicity factor of Kudritzki et al. 1989), switched on over
 * 4000-4500 Lsun. */
static double massive_rate(double lum, double r, double mt, double z)
{
    if (lum <= 4000.0)
        return 0.0;
    const double x = fmin(1.0, (lum - 4000.0) / 500.0);
    return 9.6e-15 * x * pow(r, 0.81) * pow(lum, 1.24) * pow(mt, 0.16) * pow(z / 0.02, 0.5);
}

/* Giants: Reimers, and on the AGB the superwind of Vassiliadis & Wood
 * (1993) from the Mira pulsation period. */
static double giant_rate(int kw, double lum, double r, double mt, double rl)
{
    double dml = NETA * 4.0e-13 * r * lum / mt;
    if (rl > 0.0)
        dml *= 1.0 + BWIND * sse_ipow(fmin(0.5, r / rl), 6);
    if (kw == SSE_EAGB || kw == SSE_TPAGB) {
        const double p0 = fmin(pow(10.0, -2.07 - 0.9 * log10(mt) + 1.94 * log10(r)), 2000.0);
        double dmt = pow(10.0, -11.4 + 0.0125 * (p0 - 100.0 * fmax(mt - 2.5, 0.0)));
        dmt = fmin(dmt, 1.36e-9 * lum);
        dml = fmax(dml, dmt);
    }
    return dml;
}

double sse_mlwind(const sse_consts *c, int kw, double lum, double r, double mt, double mc,
                  double rl)
{
    double dms = massive_rate(lum, r, mt, c->z);
    if (kw < SSE_HG || kw > SSE_HEGB)
        return dms;
    dms = fmax(giant_rate(kw, lum, r, mt, rl), dms);
    if (kw > SSE_TPAGB) {
        /* naked He (WR) stars: Hamann & Koesterke (1998) */
        return fmax(1.0e-13 * pow(lum, 1.5), dms);
    }
    /* a thin H envelope: the WR rate reduced by the envelope fraction mu */
    const double mu = ((mt - mc) / mt) * fmin(5.0, fmax(1.2, pow(lum / LUM0, KAP)));
    if (mu < 1.0)
        dms = fmax(1.0e-13 * pow(lum, 1.5) * (1.0 - mu), dms);
    return dms;
}

/* Magnetic braking of stars with a convective envelope (Rappaport,
 * Verbunt & Joss 1983 as in BSE: HTP02 eq 50). */
double sse_magbrk(int kw, double mt, double menv, double rad, double ospin)
{
    if (kw >= SSE_HEWD || mt < 0.35)
        return 0.0;
    return 5.83e-16 * (menv / mt) * sse_ipow(rad * ospin, 3);
}
