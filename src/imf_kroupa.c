/* imf_kroupa.c — the Kroupa (2001) initial mass function of NBODY6's
 * KZ(20) = 6 and 7 (imf2.f drawing through imfbd.f), as random draws.
 *
 * The number of stars per unit mass is a continuous broken power law
 *     xi(m) = c_j m^-alpha_j  on segment j,
 *     0.01 - 0.08 Msun: alpha 0.3,  0.08 - 0.5: 1.3,  0.5 - 100: 2.3,
 * with c_j chosen so that xi is continuous at 0.08 and 0.5.  (imfbd.f lists
 * five segments, with further breaks at 1 and 8 Msun, but gives the last three
 * the same slope 2.3, so they are one segment here.)
 *
 * The deck's limits are clamped to the function's own, as imfbd.f does with a
 * warning: the masses lie in [lo, hi] = [max(BODYN, 0.01), min(BODY1, 100)].
 * BODYN > BODY1, or limits that leave nothing of [0.01, 100], are refused by
 * imf_kroupa_range (imfbd.f stops there).
 *
 * Drawing (reproducible): body i = 1..N takes the i-th uniform u of the
 * generator and the mass whose cumulative number fraction in [lo, hi] is u
 * (the inverse of the segment's closed-form integral).  Exactly one uniform
 * per body: imf2.f redraws a mass outside [BODYN, BODY1], which with the
 * clamped limits only rounding can produce, so a rounded value is clamped
 * into [lo, hi] instead and the generator's position after the masses does
 * not depend on rounding (the positions are drawn next from the same stream,
 * as NBODY6's SETUP continues imf2.f's random sequence).
 *
 * Then, as imf2.f does for single stars, the masses are sorted heaviest
 * first; they are scaled to mean 1 and the mean in Msun is returned: imf2.f
 * makes it ZMBAR.
 *
 * KZ(20) = 6 and 7 draw the same masses; they differ only in how imf2.f
 * pairs the masses of primordial binaries (NBIN0 > 0): 7 replaces each
 * pair's ratio q = m1/m2 by q^0.4 at the same total (Eggleton's correlation),
 * 6 keeps the random pairing, and binpop.f takes those components instead of
 * splitting bodies by RATIO.  Not done here: ic.c refuses 6 and 7 with
 * NBIN0 > 0. */
#include <math.h>
#include <stdlib.h>
#include "ic.h"

#define KROUPA_NSEG 3

static const double KROUPA_EDGE[KROUPA_NSEG + 1] = {0.01, 0.08, 0.5, 100.0};
static const double KROUPA_ALPHA[KROUPA_NSEG] = {0.3, 1.3, 2.3};

/* The function restricted to [lo, hi]: per segment its part of [lo, hi]
 * (empty when a > b), its coefficient and its number weight. */
typedef struct kroupa {
    double a[KROUPA_NSEG], b[KROUPA_NSEG], c[KROUPA_NSEG], w[KROUPA_NSEG];
    double total, lo, hi;
} kroupa;

int imf_kroupa_range(double body1, double bodyn, double *lo, double *hi)
{
    *lo = fmax(bodyn, KROUPA_EDGE[0]);
    *hi = fmin(body1, KROUPA_EDGE[KROUPA_NSEG]);
    return (bodyn <= body1 && *lo < *hi) ? 0 : 1;
}

/* Integral of c m^-alpha from a to b (alpha != 1 for all three slopes). */
static double segment_number(double c, double alpha, double a, double b)
{
    const double e = 1.0 - alpha;
    return c * (pow(b, e) - pow(a, e)) / e;
}

static void kroupa_setup(kroupa *k, double lo, double hi)
{
    double c = 1.0;
    k->total = 0.0;
    k->lo = lo;
    k->hi = hi;
    for (int j = 0; j < KROUPA_NSEG; j++) {
        if (j > 0) /* continuity at the break: c_j e^-alpha_j = c_{j-1} e^-alpha_{j-1} */
            c *= pow(KROUPA_EDGE[j], KROUPA_ALPHA[j] - KROUPA_ALPHA[j - 1]);
        k->c[j] = c;
        k->a[j] = fmax(KROUPA_EDGE[j], lo);
        k->b[j] = fmin(KROUPA_EDGE[j + 1], hi);
        k->w[j] = k->a[j] < k->b[j] ? segment_number(c, KROUPA_ALPHA[j], k->a[j], k->b[j]) : 0.0;
        k->total += k->w[j];
    }
}

/* The mass whose cumulative number fraction is u in [0, 1). */
static double kroupa_mass(const kroupa *k, double u)
{
    double t = u * k->total;
    int last = KROUPA_NSEG - 1;
    while (k->w[last] == 0.0)
        last--; /* kroupa_setup had lo < hi: some segment is non-empty */
    int j = 0;
    /* empty segments (w = 0) are passed over since t >= 0; the last
     * non-empty one takes whatever rounding leaves of t */
    while (j < last && t >= k->w[j]) {
        t -= k->w[j];
        j++;
    }
    const double e = 1.0 - KROUPA_ALPHA[j];
    const double m = pow(pow(k->a[j], e) + e * t / k->c[j], 1.0 / e);
    return fmin(fmax(m, k->lo), k->hi); /* rounding only */
}

void imf_kroupa_draw(int n, double lo, double hi, rng *r, double *m_msun)
{
    kroupa k;
    kroupa_setup(&k, lo, hi);
    for (int i = 0; i < n; i++)
        m_msun[i] = kroupa_mass(&k, rng_uniform(r));
}

static int heavier_first(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a < b) - (a > b);
}

double imf_kroupa(int n, double body1, double bodyn, rng *r, double *m)
{
    double lo, hi;
    if (n <= 0 || imf_kroupa_range(body1, bodyn, &lo, &hi))
        return -1.0;
    imf_kroupa_draw(n, lo, hi, r, m);
    qsort(m, (size_t)n, sizeof *m, heavier_first);
    return imf_scale_to_mean_one(n, m);
}
