/* test_imf.c — the mass functions beyond the power law (test_ic.c has that):
 * the Kroupa (2001) draws of KZ(20) = 6, 7 against the broken power law
 * written out again here (KS test of the whole sample, a maximum-likelihood
 * slope and the number fraction of each segment, the mean against the
 * analytic mean), limits, order, reproducibility and the order of draws in
 * ic_make; imf2.f's primordial binaries (KZ(20) = 6, 7 with NBIN0): the
 * pairing of draws, its bookkeeping, the components against the CDF and the
 * mass ratios against those of independent pairs (7 after undoing q^0.4); Scalo's function (KZ(20) = 1) against its formula; the physical
 * units (ZMBAR = mean mass, TSTAR, VSTAR) of such decks; the refusals.
 *
 * Significance: every statistical check is set so that a correct code fails
 * it with probability about 1e-6 per run (KS at p = 1e-6, the others at
 * 5 sigma, two-sided 5.7e-7), so the dozen of them together fail a correct
 * code about once in 10^5 runs of CI with fresh seeds; the seed is printed
 * for replay. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ic/ic.h"
#include "io/snapshot.h"

/* ------------------------------------------------ the reference Kroupa IMF
 * Kroupa (2001), as NBODY6's imfbd.f: xi(m) proportional to m^-0.3 on
 * [0.01, 0.08], m^-1.3 on [0.08, 0.5], m^-2.3 on [0.5, 100] Msun, continuous.
 * Written here with each segment normalised to its value at its lower edge,
 * k_j (m / e_j)^-alpha_j, k_0 = 1 and k_j = the previous segment's value at
 * e_j; moments in closed form, checked below against Simpson's rule. */

#define NSEG 3
static const double EDGE[NSEG + 1] = {0.01, 0.08, 0.5, 100.0};
static const double SLOPE[NSEG] = {0.3, 1.3, 2.3};

static double seg_k(int j)
{
    double k = 1.0;
    for (int i = 1; i <= j; i++)
        k *= pow(EDGE[i] / EDGE[i - 1], -SLOPE[i - 1]);
    return k;
}

static double xi_ref(double m)
{
    int j = 0;
    while (j < NSEG - 1 && m > EDGE[j + 1])
        j++;
    return seg_k(j) * pow(m / EDGE[j], -SLOPE[j]);
}

/* integral of m^p xi(m) over [a, b] within segment j */
static double seg_moment(int j, int p, double a, double b)
{
    const double e = p + 1.0 - SLOPE[j];
    const double s = seg_k(j) * pow(EDGE[j], SLOPE[j]);
    return s * (pow(b, e) - pow(a, e)) / e;
}

/* integral of m^p xi over [lo, x] */
static double moment_to(int p, double lo, double x)
{
    double sum = 0.0;
    for (int j = 0; j < NSEG; j++) {
        const double a = fmax(EDGE[j], lo), b = fmin(EDGE[j + 1], x);
        if (a < b)
            sum += seg_moment(j, p, a, b);
    }
    return sum;
}

static double cdf_ref(double lo, double hi, double x)
{
    return moment_to(0, lo, x) / moment_to(0, lo, hi);
}

/* Simpson's rule in ln m, to check the closed forms of the test itself. */
static double simpson_moment(int p, double lo, double hi)
{
    const int ns = 200000;
    const double h = (log(hi) - log(lo)) / ns;
    double s = 0.0;
    for (int k = 0; k <= ns; k++) {
        const double m = exp(log(lo) + k * h);
        const double w = (k == 0 || k == ns) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        s += w * pow(m, p + 1.0) * xi_ref(m);
    }
    return s * h / 3.0;
}

static void test_reference_itself(void)
{
    double worst = 0.0;
    for (int p = 0; p <= 2; p++)
        worst = fmax(worst, fabs(simpson_moment(p, 0.01, 100.0) / moment_to(p, 0.01, 100.0) - 1.0));
    /* the kinks at 0.08 and 0.5 limit Simpson to ~1e-9 at this step */
    CHECK(worst < 1e-7, "test's Kroupa moments: closed form = Simpson to %.1e", worst);
}

/* ------------------------------------------------ statistics */

/* Kolmogorov-Smirnov distance of n masses (sorted heaviest first, Msun)
 * from the reference CDF on [lo, hi]. */
static double ks_distance(int n, const double *m_desc, double lo, double hi)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) {
        const double f = cdf_ref(lo, hi, m_desc[n - 1 - i]); /* i-th lightest */
        d = fmax(d, fmax(fabs(f - (double)i / n), fabs(f - (double)(i + 1) / n)));
    }
    return d;
}

/* Asymptotic KS critical value at significance p: P(sqrt(n) D > lambda) is
 * 2 exp(-2 lambda^2) to leading order (the next term is 1e-24 here). */
static double ks_critical(int n, double p)
{
    return sqrt(-0.5 * log(p / 2.0)) / sqrt((double)n);
}

/* For a density proportional to m^-alpha on [a, b]: mean and variance of
 * ln m (Simpson in L = ln m, density e^((1 - alpha) L)). */
static void lnm_moments(double alpha, double a, double b, double *mean, double *var)
{
    const int ns = 4000;
    const double la = log(a), h = (log(b) - la) / ns;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int k = 0; k <= ns; k++) {
        const double l = la + k * h, w = (k == 0 || k == ns) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        const double f = w * exp((1.0 - alpha) * (l - la));
        s0 += f, s1 += f * l, s2 += f * l * l;
    }
    *mean = s1 / s0;
    *var = s2 / s0 - *mean * *mean;
}

/* Maximum-likelihood slope of the masses in [a, b]: the alpha whose mean
 * ln m equals the sample's (the score equation of this exponential family;
 * the mean falls as alpha grows), and its standard error 1/sqrt(n Var ln m). */
static void fit_slope(int n, const double *m, double a, double b, double *alpha, double *err,
                      int *count)
{
    double sum = 0.0;
    int c = 0;
    for (int i = 0; i < n; i++)
        if (m[i] >= a && m[i] < b)
            sum += log(m[i]), c++;
    const double target = sum / c;
    double lo = -5.0, hi = 8.0, mean, var;
    for (int it = 0; it < 60; it++) {
        const double mid = 0.5 * (lo + hi);
        lnm_moments(mid, a, b, &mean, &var);
        if (mean > target)
            lo = mid;
        else
            hi = mid;
    }
    *alpha = 0.5 * (lo + hi);
    lnm_moments(*alpha, a, b, &mean, &var);
    *err = 1.0 / sqrt(c * var);
    *count = c;
}

/* ------------------------------------------------ Kroupa draws */

static int heavier_first_ref(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a < b) - (a > b);
}

/* n Kroupa masses in Msun from seed, heaviest first; returns the mean. */
static double draw_msun(int n, double body1, double bodyn, uint64_t seed, double *m)
{
    rng r;
    rng_seed(&r, seed);
    const double mean = imf_kroupa(n, body1, bodyn, &r, m);
    for (int i = 0; i < n; i++)
        m[i] *= mean;
    return mean;
}

static void check_mean(int n, double mean, double lo, double hi, const char *what)
{
    const double n0 = moment_to(0, lo, hi), mu = moment_to(1, lo, hi) / n0;
    const double sd = sqrt(moment_to(2, lo, hi) / n0 - mu * mu);
    const double se = sd / sqrt((double)n);
    CHECK(fabs(mean - mu) < 5.0 * se,
          "%s: mean mass %.5f Msun, distribution %.5f +- %.5f (5 sigma = %.5f)", what, mean, mu,
          se, 5.0 * se);
}

static void check_range_and_order(int n, const double *m, double lo, double hi, const char *what)
{
    int inside = 1, sorted = 1;
    for (int i = 0; i < n; i++) {
        inside &= m[i] >= lo * (1.0 - 1e-14) && m[i] <= hi * (1.0 + 1e-14);
        if (i > 0)
            sorted &= m[i] <= m[i - 1];
    }
    CHECK(inside && sorted, "%s: all in [%g, %g] Msun (%.6g to %.6g), heaviest first", what, lo,
          hi, m[n - 1], m[0]);
}

static void check_segments(int n, const double *m, double lo, double hi, const char *what)
{
    for (int j = 0; j < NSEG; j++) {
        const double a = fmax(EDGE[j], lo), b = fmin(EDGE[j + 1], hi);
        if (!(a < b))
            continue;
        double alpha, err;
        int c;
        fit_slope(n, m, a, b, &alpha, &err, &c);
        const double f = moment_to(0, lo, b) / moment_to(0, lo, hi) -
                         moment_to(0, lo, a) / moment_to(0, lo, hi);
        const double fse = sqrt(f * (1.0 - f) / n);
        CHECK(fabs(alpha - SLOPE[j]) < 5.0 * err && fabs((double)c / n - f) < 5.0 * fse,
              "%s: %g-%g Msun: slope %.4f +- %.4f (Kroupa %.1f), fraction %.5f (expected "
              "%.5f +- %.5f)",
              what, a, b, alpha, err, SLOPE[j], (double)c / n, f, fse);
    }
}

static void test_kroupa_sample(uint64_t seed, int n, double body1, double bodyn, const char *what)
{
    double *m = malloc(sizeof(double) * (size_t)n);
    const double lo = fmax(bodyn, 0.01), hi = fmin(body1, 100.0);
    const double mean = draw_msun(n, body1, bodyn, seed, m);
    check_range_and_order(n, m, lo, hi, what);
    const double d = ks_distance(n, m, lo, hi), dc = ks_critical(n, 1e-6);
    CHECK(d < dc, "%s: KS distance %.5f from the Kroupa CDF on [%g, %g] (critical %.5f at p = "
          "1e-6, N = %d)", what, d, lo, hi, dc, n);
    check_segments(n, m, lo, hi, what);
    check_mean(n, mean, lo, hi, what);
    free(m);
}

static void test_kroupa_clamp_and_seed(uint64_t seed)
{
    const int n = 20000;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    const double ma = draw_msun(n, 100.0, 0.01, seed, a);
    double mb = draw_msun(n, 100.0, 0.01, seed, b);
    CHECK(ma == mb && memcmp(a, b, sizeof(double) * n) == 0,
          "same seed, same masses (bit for bit), mean %.6f", ma);
    /* limits beyond the function's are clamped to them, as imfbd.f does:
     * the very same masses as 0.01 to 100 */
    mb = draw_msun(n, 150.0, 0.001, seed, b);
    CHECK(ma == mb && memcmp(a, b, sizeof(double) * n) == 0,
          "BODY1 150, BODYN 0.001 clamped to 100 and 0.01: the same masses");
    mb = draw_msun(n, 100.0, 0.01, seed + 1, b);
    CHECK(memcmp(a, b, sizeof(double) * n) != 0, "seed + 1: other masses (mean %.6f)", mb);

    double lo, hi;
    rng r;
    rng_seed(&r, seed);
    CHECK(imf_kroupa_range(1.0, 2.0, &lo, &hi) != 0 && imf_kroupa_range(0.005, 0.001, &lo, &hi) &&
              imf_kroupa_range(300.0, 120.0, &lo, &hi) && imf_kroupa(n, 1.0, 2.0, &r, a) == -1.0 &&
              imf_kroupa_range(0.5, 0.5, &lo, &hi) != 0,
          "refused ranges: BODYN > BODY1, both below 0.01, both above 100, empty");
    free(a);
    free(b);
}


/* ------------------------------------------------ binaries paired from draws
 * imf2.f with NBIN0 > 0 (imf_kroupa_binaries): N + NBIN0 draws, the first
 * 2 NBIN0 paired in draw order, KZ(20) = 7 with m2/m1 -> (m2/m1)^0.4. */

/* The transform on known pairs, exactly as imf2.f writes it. */
static void test_pair_transform(void)
{
    double m1, m2, c1, c2, e1, e2;
    imf_pair_components(0.2, 1.0, 0, &m1, &m2);
    imf_pair_components(1.0, 0.2, 1, &c1, &c2);
    imf_pair_components(0.7, 0.7, 1, &e1, &e2);
    const double want2 = 1.2 / (1.0 + pow(5.0, 0.4)), want_q = pow(0.2, 0.4);
    CHECK(m1 == 1.0 && m2 == 0.2 && c2 == want2 && c1 == 1.2 - want2 &&
              fabs(c2 / c1 / want_q - 1.0) < 1e-14 && fabs(c1 + c2 - 1.2) < 1e-15 && e1 == 0.7 &&
              e2 == 0.7,
          "pair (1, 0.2): KZ(20) = 6 keeps it (heavier first), 7 gives %.12f + %.12f: ratio "
          "%.12f = 0.2^0.4, total 1.2; an equal pair stays equal", c1, c2, c2 / c1);
}

/* Expected CDF of q = min/max of two independent draws on [lo, hi]:
 * G(q) = 2 P(Y <= q X) = 2 int xi(x) F(q x) dx / int xi, Simpson in ln x on
 * ns intervals, tabulated on nq + 1 evenly spaced q for interpolation. */
typedef struct qtable {
    int nq;
    double *g;
} qtable;

static double g_of_q(double q, double lo, double hi)
{
    const int ns = 2000;
    const double la = log(lo), h = (log(hi) - la) / ns;
    double s = 0.0;
    for (int k = 0; k <= ns; k++) {
        const double x = exp(la + k * h), w = (k == 0 || k == ns) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        const double f = q * x > lo ? cdf_ref(lo, hi, q * x) : 0.0;
        s += w * xi_ref(x) * x * f;
    }
    return 2.0 * s * h / 3.0 / moment_to(0, lo, hi);
}

static qtable q_table(double lo, double hi)
{
    qtable t = {1000, NULL};
    t.g = malloc(sizeof(double) * (t.nq + 1));
    for (int i = 0; i <= t.nq; i++)
        t.g[i] = g_of_q((double)i / t.nq, lo, hi);
    return t;
}

static double q_cdf(const qtable *t, double q)
{
    const double u = fmin(fmax(q, 0.0), 1.0) * t->nq;
    const int i = (int)fmin(u, t->nq - 1);
    return t->g[i] + (u - i) * (t->g[i + 1] - t->g[i]);
}

/* KS distance of the sample u[i] = G(q_i) from uniform. */
static int by_value(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double ks_uniform(int n, double *u)
{
    qsort(u, (size_t)n, sizeof *u, by_value);
    double d = 0.0;
    for (int i = 0; i < n; i++)
        d = fmax(d, fmax((i + 1.0) / n - u[i], u[i] - (double)i / n));
    return d;
}

/* The binaries' q = m2/m1 (after undoing KZ(20) = 7's power 0.4: q^2.5)
 * against G, the ratio of two independent Kroupa draws. */
static void check_q_distribution(const qtable *t, int nbin, const double *primary, int kz20)
{
    double *u = malloc(sizeof(double) * nbin);
    for (int k = 0; k < nbin; k++) {
        const double q = (1.0 - primary[k]) / primary[k];
        u[k] = q_cdf(t, kz20 == 7 ? pow(q, 2.5) : q);
    }
    const double d = ks_uniform(nbin, u), dc = ks_critical(nbin, 1e-6);
    CHECK(d < dc, "KZ(20) = %d: %s of %d binaries against two independent Kroupa draws' "
          "min/max: KS %.5f (critical %.5f at p = 1e-6)", kz20,
          kz20 == 7 ? "(m2/m1)^2.5" : "m2/m1", nbin, d, dc);
    free(u);
}

/* The component and single masses in Msun, heaviest first. */
static void stars_msun(int n, int nbin, double mean, const double *m, const double *primary,
                       double *star)
{
    for (int k = 0; k < nbin; k++) {
        star[2 * k] = primary[k] * m[k] * mean;
        star[2 * k + 1] = (1.0 - primary[k]) * m[k] * mean;
    }
    for (int i = nbin; i < n; i++)
        star[nbin + i] = m[i] * mean;
    qsort(star, (size_t)(n + nbin), sizeof *star, heavier_first_ref);
}

/* Exactly imf2.f's bookkeeping, from the same seed's raw draws: the
 * binaries' c.m. masses are the sums of draws 2k, 2k+1 sorted, the singles
 * the remaining N - NBIN0 draws sorted, the mean is all N + NBIN0 draws'
 * total over N, and the generator stands after N + NBIN0 uniforms. */
static void check_bookkeeping(uint64_t seed, int n, int nbin, const double *m, double mean,
                              rng *after)
{
    double *raw = malloc(sizeof(double) * (n + nbin));
    double lo, hi, total = 0.0, worst = 0.0;
    rng r;
    rng_seed(&r, seed);
    imf_kroupa_range(100.0, 0.01, &lo, &hi);
    imf_kroupa_draw(n + nbin, lo, hi, &r, raw);
    for (int i = 0; i < n + nbin; i++)
        total += raw[i];
    for (int k = 0; k < nbin; k++)
        raw[k] = raw[2 * k] + raw[2 * k + 1]; /* k <= 2k: read before written */
    for (int i = nbin; i < n; i++)
        raw[i] = raw[nbin + i];
    qsort(raw, (size_t)nbin, sizeof *raw, heavier_first_ref);
    qsort(raw + nbin, (size_t)(n - nbin), sizeof *raw, heavier_first_ref);
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(m[i] * mean / raw[i] - 1.0));
    const double next = rng_uniform(&r);
    CHECK(worst < 1e-13 && fabs(mean / (total / n) - 1.0) < 1e-14 && rng_uniform(after) == next,
          "N %d, NBIN0 %d: c.m. masses = sums of draws (2k, 2k+1) sorted, singles = draws "
          "2 NBIN0 + 1 .. N + NBIN0 sorted (to %.0e); ZMBAR %.6f = all N + NBIN0 draws over "
          "N; the stream continues after N + NBIN0 uniforms", n, nbin, worst, mean);
    free(raw);
}

static void test_kroupa_binaries(uint64_t seed)
{
    const int n = 30000, nbin = 10000; /* 40000 stars, 20000 in binaries */
    double *m6 = malloc(sizeof(double) * n), *m7 = malloc(sizeof(double) * n);
    double *p6 = malloc(sizeof(double) * nbin), *p7 = malloc(sizeof(double) * nbin);
    double *star = malloc(sizeof(double) * (n + nbin));
    rng r6, r7;
    rng_seed(&r6, seed);
    rng_seed(&r7, seed);
    const double mean6 = imf_kroupa_binaries(n, nbin, 0, 100.0, 0.01, &r6, m6, p6);
    const double mean7 = imf_kroupa_binaries(n, nbin, 1, 100.0, 0.01, &r7, m7, p7);
    check_bookkeeping(seed, n, nbin, m6, mean6, &r6);

    /* every star, components and singles, from the Kroupa function */
    stars_msun(n, nbin, mean6, m6, p6, star);
    double d = ks_distance(n + nbin, star, 0.01, 100.0), dc = ks_critical(n + nbin, 1e-6);
    CHECK(d < dc, "KZ(20) = 6 with binaries: all %d stars (components and singles) against "
          "the Kroupa CDF: KS %.5f (critical %.5f at p = 1e-6)", n + nbin, d, dc);
    stars_msun(nbin, nbin, mean6, m6, p6, star); /* the components alone */
    d = ks_distance(2 * nbin, star, 0.01, 100.0), dc = ks_critical(2 * nbin, 1e-6);
    CHECK(d < dc, "the %d binary components alone against the Kroupa CDF: KS %.5f "
          "(critical %.5f)", 2 * nbin, d, dc);

    /* 7: the same draws and c.m. bodies, each ratio to the power 0.4 */
    double worst = 0.0;
    for (int k = 0; k < nbin; k++) {
        const double q6 = (1.0 - p6[k]) / p6[k], q7 = (1.0 - p7[k]) / p7[k];
        worst = fmax(worst, fabs(q7 / pow(q6, 0.4) - 1.0));
    }
    CHECK(mean6 == mean7 && memcmp(m6, m7, sizeof(double) * n) == 0 && worst < 1e-12,
          "KZ(20) = 7: the same c.m. and single masses and ZMBAR as 6 (bit for bit), each "
          "binary's m2/m1 = (6's)^0.4 (to %.0e)", worst);

    const qtable t = q_table(0.01, 100.0);
    CHECK(fabs(t.g[t.nq] - 1.0) < 1e-4 && t.g[0] == 0.0,
          "test's G(q) for independent pairs: G(0) = 0, G(1) = %.6f", t.g[t.nq]);
    check_q_distribution(&t, nbin, p6, 6);
    check_q_distribution(&t, nbin, p7, 7);
    free(t.g);
    free(m6), free(m7), free(p6), free(p7), free(star);
}

/* ------------------------------------------------ Scalo */

static double scalo_ref(double x)
{
    return 0.19 * x / (pow(1.0 - x, 0.75) + 0.032 * pow(1.0 - x, 0.25));
}

/* X with scalo_ref(X) = m by Newton's method on a numerical derivative, as
 * NBODY6's imf.f does, but to convergence. */
static double scalo_x_newton(double m)
{
    double x = 0.5;
    for (int it = 0; it < 200; it++) {
        const double h = 1e-7 * fmin(x, 1.0 - x);
        const double d = (scalo_ref(x + h) - scalo_ref(x - h)) / (2.0 * h);
        double xn = x - (scalo_ref(x) - m) / d;
        xn = fmin(fmax(xn, 0.5 * x), x + 0.5 * (1.0 - x)); /* stay in (0, 1) */
        if (fabs(xn - x) < 1e-16)
            break;
        x = xn;
    }
    return x;
}

static void test_scalo(void)
{
    const int n = 1000;
    const double body1 = 10.0, bodyn = 0.1;
    double *m = malloc(sizeof(double) * n);
    const double mean = imf_scalo(n, body1, bodyn, m);
    const double x1 = scalo_x_newton(body1), xn = scalo_x_newton(bodyn);
    double worst = 0.0, sum = 0.0;
    int sorted = 1;
    for (int i = 0; i < n; i++) {
        const double ref = scalo_ref(x1 - i * (x1 - xn) / (n - 1));
        worst = fmax(worst, fabs(m[i] * mean / ref - 1.0));
        sum += ref;
        if (i > 0)
            sorted &= m[i] < m[i - 1];
    }
    CHECK(worst < 1e-9 && sorted && fabs(m[0] * mean / body1 - 1.0) < 1e-12 &&
              fabs(m[n - 1] * mean / bodyn - 1.0) < 1e-12,
          "Scalo: masses = Eggleton-Fitchett-Tout formula at evenly spaced X (worst %.1e), "
          "from %.6g to %.6g Msun, decreasing", worst, m[0] * mean, m[n - 1] * mean);
    CHECK(fabs(mean / (sum / n) - 1.0) < 1e-12, "Scalo: mean %.6f Msun = the formula's %.6f",
          mean, sum / n);
    free(m);
}

/* ------------------------------------------------ through ic_make */

static void kroupa_deck(deck *d, int n, int nrand, int kz20)
{
    memset(d, 0, sizeof *d);
    d->kstart = 1;
    d->n = n;
    d->nrand = nrand;
    d->kz[5] = 1;
    d->kz[20] = kz20;
    d->alphas = 2.3; /* not 1: NBODY6 would make the masses equal */
    d->body1 = 100.0;
    d->bodyn = 0.08;
    d->q = 0.5;
    d->rbar = 2.0;
    d->zmbar = 0.5;
}

/* NBODY6's units.f in cgs, written out as in test_snapshot.c. */
static void units_ref(double rbar, double zmbar, int n, double *tstar, double *vstar)
{
    const double gm = 6.67428e-8 * 1.989e33, pc = 3.0856776e18, zmass = zmbar * n;
    *tstar = sqrt(pc / gm) * pc / 3.15e13 * sqrt(rbar * rbar * rbar / zmass);
    *vstar = 1e-5 * sqrt(gm / pc) * sqrt(zmass / rbar);
}

static void test_ic_make_kroupa(uint64_t seed)
{
    const int n = 4096;
    deck d;
    kroupa_deck(&d, n, (int)(seed % 1000000007u), 6);
    double *m = malloc(sizeof(double) * n), *mi = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    double(*xi)[3] = malloc(sizeof(double[3]) * n), (*vi)[3] = malloc(sizeof(double[3]) * n);
    char err[512] = "";
    const int rc = ic_make(&d, NULL, m, x, v, err, sizeof err);

    /* the documented order: NRAND seeds one generator, the N masses take
     * its first N uniforms, the Plummer model the rest */
    rng r;
    rng_seed(&r, (uint64_t)(int64_t)d.nrand);
    const double mean = imf_kroupa(n, d.body1, d.bodyn, &r, mi);
    model_plummer(n, mi, &r, xi, vi);
    scale_standard(n, mi, xi, vi, d.q);
    CHECK(rc == 0 && memcmp(m, mi, sizeof(double) * n) == 0 &&
              memcmp(x, xi, sizeof(double[3]) * n) == 0 && memcmp(v, vi, sizeof(double[3]) * n) == 0,
          "ic_make KZ(20) = 6: masses from NRAND's first N uniforms, then the Plummer model "
          "(bit for bit) %s", err);

    /* units: ZMBAR is the Msun mean of exactly these masses */
    const double zmbar = ic_mean_mass_msun(&d);
    double lo = INFINITY, hi = 0.0, total = 0.0;
    for (int i = 0; i < n; i++) {
        const double msun = m[i] * n * zmbar;
        lo = fmin(lo, msun), hi = fmax(hi, msun), total += msun;
    }
    CHECK(zmbar == mean && fabs(total / n / zmbar - 1.0) < 1e-12 && lo >= 0.08 * (1 - 1e-12) &&
              hi <= 100.0 * (1 + 1e-12),
          "ZMBAR %.6f Msun (deck 0.5 replaced) = mean of the masses M N ZMBAR, %.4g to %.4g Msun",
          zmbar, lo, hi);
    check_mean(n, zmbar, 0.08, 100.0, "ic_make N = 4096, 0.08-100 Msun");
    double ts, vs;
    units_ref(d.rbar, zmbar, n, &ts, &vs);
    CHECK(fabs(snapshot_tstar_myr(d.rbar, zmbar, n) / ts - 1.0) < 1e-12 &&
              fabs(snapshot_vstar_kms(d.rbar, zmbar, n) / vs - 1.0) < 1e-12,
          "TSTAR %.6g Myr, VSTAR %.6g km/s from RBAR 2 and N ZMBAR (units.f)", ts, vs);

    /* 7 gives the same masses as 6 without binaries; the log names the IMF */
    kroupa_deck(&d, n, d.nrand, 7);
    const int rc7 = ic_make(&d, NULL, mi, xi, vi, err, sizeof err);
    CHECK(rc7 == 0 && memcmp(m, mi, sizeof(double) * n) == 0 && ic_mean_mass_msun(&d) == zmbar,
          "KZ(20) = 7 without primordial binaries: the same bodies and ZMBAR as 6");
    char desc[512];
    ic_describe(&d, NULL, desc, sizeof desc);
    CHECK(strstr(desc, "Kroupa (2001) masses (KZ(20) = 7) drawn between 0.08 and 100 Msun") != NULL,
          "log header: \"%s\"", desc);
    d.body1 = 150.0;
    ic_describe(&d, NULL, desc, sizeof desc);
    CHECK(strstr(desc, "between 0.08 and 100 Msun (BODY1, BODYN clamped") != NULL,
          "log header with BODY1 150: \"%s\"", desc);
    free(m), free(mi), free(x), free(v), free(xi), free(vi);
}

static void test_ic_make_scalo_units(void)
{
    const int n = 1000;
    deck d;
    kroupa_deck(&d, n, 3, 1);
    d.body1 = 10.0, d.bodyn = 0.1;
    double *m = malloc(sizeof(double) * n), *ms = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    char err[512] = "", desc[512];
    const int rc = ic_make(&d, NULL, m, x, v, err, sizeof err);
    const double mean = imf_scalo(n, d.body1, d.bodyn, ms), zmbar = ic_mean_mass_msun(&d);
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(m[i] * n / ms[i] - 1.0));
    ic_describe(&d, NULL, desc, sizeof desc);
    CHECK(rc == 0 && zmbar == mean && worst < 1e-13 && strstr(desc, "Scalo masses (KZ(20) = 1"),
          "ic_make KZ(20) = 1: Scalo masses (to %.0e), ZMBAR %.6f Msun; \"%s\"", worst, zmbar,
          desc);
    free(m), free(ms), free(x), free(v);
}

static void expect_refusal(const deck *d, const char *want, const char *what)
{
    enum { N = 8 };
    double m[N], x[N][3], v[N][3];
    char err[512] = "";
    const int rc = ic_make(d, NULL, m, x, v, err, sizeof err);
    CHECK(rc != 0 && strstr(err, want), "%s refused: \"%s\"", what, err);
}

static void test_refusals(void)
{
    deck d;
    kroupa_deck(&d, 8, 1, 6);
    d.body1 = 0.5, d.bodyn = 1.0;
    expect_refusal(&d, "KZ(20) = 6: BODY1 = 0.5, BODYN = 1", "Kroupa BODYN > BODY1");
    d.body1 = 300.0, d.bodyn = 120.0;
    expect_refusal(&d, "0.01 to 100 Msun", "Kroupa limits above 100 Msun");
    kroupa_deck(&d, 8, 1, 2);
    expect_refusal(&d, "KZ(20) = 2: mass function not available", "KZ(20) = 2 (KTG93)");
    kroupa_deck(&d, 8, 1, 6);
    d.kz[22] = 2;
    expect_refusal(&d, "KZ(22) = 2 with KZ(20) = 6", "new masses for a KZ(22) = 2 file");
    /* imf2.f's pairs need binpop.f (KZ(8) = 1, >= 3) and masses it drew */
    kroupa_deck(&d, 8, 1, 7);
    d.nbin0 = 2;
    expect_refusal(&d, "KZ(20) = 7 with NBIN0 = 2 and KZ(8) = 0: imf2.f's pairs become "
                   "binaries only through binpop.f", "IMF-paired binaries without binpop.f");
    kroupa_deck(&d, 8, 1, 6);
    d.nbin0 = 2;
    d.kz[8] = 1;
    d.alphas = 1.0;
    expect_refusal(&d, "which equal masses (ALPHAS = 1 or BODY1 = BODYN) never make",
                   "IMF-paired binaries with equal masses");
    d.alphas = 2.3;
    d.kz[22] = 3;
    expect_refusal(&d, "which a KZ(22) >= 2 file does not have", "IMF-paired binaries, file");
    d.kz[22] = 0;
    d.nbin0 = 9;
    expect_refusal(&d, "NBIN0 = 9 binaries from the IMF's draws: more than the N = 8",
                   "more IMF-paired binaries than N");
    /* equal masses take precedence, as NBODY6's data.f: ALPHAS = 1 */
    kroupa_deck(&d, 8, 1, 6);
    d.alphas = 1.0;
    double m[8], x[8][3], v[8][3];
    char err[256];
    int equal = ic_make(&d, NULL, m, x, v, err, sizeof err) == 0;
    for (int i = 0; i < 8; i++)
        equal &= m[i] == 0.125;
    CHECK(equal && ic_mean_mass_msun(&d) == 0.5, "KZ(20) = 6 with ALPHAS = 1: equal masses, "
          "the deck's ZMBAR");
}

int main(void)
{
    const uint64_t seed = check_seed();
    test_reference_itself();
    /* N = 1e6: the slope of the 0.5-100 Msun segment (15 % of the stars) to
     * +-0.0035, so 5 sigma catches a slope off by 0.02 */
    test_kroupa_sample(seed, 1000000, 100.0, 0.01, "Kroupa 0.01-100");
    test_kroupa_sample(seed ^ 0x5bd1e995u, 200000, 20.0, 0.1, "Kroupa 0.1-20");
    test_kroupa_clamp_and_seed(seed);
    test_pair_transform();
    test_kroupa_binaries(seed ^ 0x62696e31u);
    test_scalo();
    test_ic_make_kroupa(seed);
    test_ic_make_scalo_units();
    test_refusals();
    return check_done();
}
