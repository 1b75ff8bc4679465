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
 * pairs the masses of primordial binaries (NBIN0 > 0, imf_kroupa_binaries):
 * it draws N + NBIN0 masses (N counts a binary once), draws 2k-1 and 2k
 * (1-based) are binary k's components, the rest the N - NBIN0 singles.  6
 * keeps the random pairing; 7 replaces each pair's ratio m2/m1 <= 1 by its
 * 0.4th power at the same total (Eggleton's correlation: more equal
 * components).  The binaries' c.m. masses come first, heaviest first, then
 * the singles, heaviest first; ZMBAR is the total of all N + NBIN0 draws
 * over N, and binpop.f takes the components instead of splitting by RATIO. */
#include <math.h>
#include <stdlib.h>
#include "ic/ic.h"

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

void imf_pair_components(double a, double b, int correlated, double *m1, double *m2)
{
    *m1 = fmax(a, b);
    *m2 = fmin(a, b);
    if (!correlated)
        return;
    /* imf2.f: with R = m1/m2 >= 1, m2' = M/(1 + R^0.4), m1' = M - m2', so
     * m2'/m1' = (m2/m1)^0.4 and m1' + m2' = M exactly as written */
    const double total = *m1 + *m2;
    *m2 = total / (1.0 + pow(*m1 / *m2, 0.4));
    *m1 = total - *m2;
}

/* A binary while it is sorted: its c.m. mass and its primary's share. */
typedef struct pair_mass {
    double mass, primary;
} pair_mass;

static int pair_heavier_first(const void *pa, const void *pb)
{
    const double a = ((const pair_mass *)pa)->mass, b = ((const pair_mass *)pb)->mass;
    return (a < b) - (a > b);
}

/* The first 2 nbin draws paired in draw order into nbin binaries, sorted by
 * c.m. mass (imf2.f sorts the sums and carries the components along). */
static void pair_draws(int nbin, int correlated, const double *draw, pair_mass *p)
{
    for (int k = 0; k < nbin; k++) {
        double m1, m2;
        imf_pair_components(draw[2 * k], draw[2 * k + 1], correlated, &m1, &m2);
        /* the draws' own sum, not m1 + m2 (equal but for the last bit after
         * the correlation): KZ(20) = 6 and 7 give the very same c.m. bodies */
        p[k].mass = draw[2 * k] + draw[2 * k + 1];
        p[k].primary = m1 / p[k].mass;
    }
    qsort(p, (size_t)nbin, sizeof *p, pair_heavier_first);
}

double imf_kroupa_binaries(int n, int nbin, int correlated, double body1, double bodyn, rng *r,
                           double *m, double *primary)
{
    double lo, hi;
    if (n <= 0 || nbin < 0 || nbin > n || imf_kroupa_range(body1, bodyn, &lo, &hi))
        return -1.0;
    double *draw = malloc(sizeof(double) * (size_t)(n + nbin));
    pair_mass *p = malloc(sizeof(pair_mass) * (size_t)(nbin > 0 ? nbin : 1));
    if (!draw || !p) {
        free(draw);
        free(p);
        return -1.0;
    }
    /* one uniform per star, N + NBIN0 of them, before the model's positions */
    imf_kroupa_draw(n + nbin, lo, hi, r, draw);
    pair_draws(nbin, correlated, draw, p);
    for (int k = 0; k < nbin; k++) {
        m[k] = p[k].mass;
        if (primary)
            primary[k] = p[k].primary;
    }
    /* the singles are the draws after the binaries' 2 NBIN0 */
    for (int i = nbin; i < n; i++)
        m[i] = draw[nbin + i];
    qsort(m + nbin, (size_t)(n - nbin), sizeof *m, heavier_first);
    free(draw);
    free(p);
    /* the pairing keeps every sum, so the mean over N is imf2.f's ZMASS / N */
    return imf_scale_to_mean_one(n, m);
}
