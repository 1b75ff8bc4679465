/* ic.c — the initial bodies from a deck (NBODY6's data/setup/scaling steps):
 * masses, then the model or the KZ(22) file, then the standard scaling.
 *
 *   KZ(22) = 0 or 1: masses from ALPHAS/BODY1/BODYN (equal, or KZ(20) = 0
 *            power law, 1 Scalo, 6/7 Kroupa 2001), then KZ(5) = 0 uniform
 *            sphere or 1 Plummer, then scale_standard with Q.  One generator
 *            seeded by NRAND serves both: the Kroupa masses take its first N
 *            uniforms (N + NBIN0 with primordial binaries, whose components
 *            imf2.f pairs from the first 2 NBIN0 draws), the model the rest
 *            (NBODY6's SETUP likewise continues imf2.f's random sequence);
 *            the other mass functions draw none.
 *            (KZ(22) = 1 also writes dat.10: the caller's job.)
 *   KZ(22) = 2: N bodies from the file, then scale_standard with Q.  With
 *            KZ(20) = 1, 6, 7 (and unequal BODY1, BODYN) NBODY6's data.f
 *            would replace the file's masses by new ones from the mass
 *            function: refused rather than run with other masses.
 *   KZ(22) = 3: N bodies from the file used exactly as given (masses too).
 *   The file is an nbody6c HDF5 snapshot when it starts with the HDF5
 *   signature (snapread.c: exactly N bodies, in the order of their names),
 *   else the text format of bodyfile.c.
 *
 * Q must lie in [0, 1) whenever the bodies are scaled: Q >= 1 would make
 * E = (Q - 1)|W| non-negative, and no length scale gives E = -1/4; the run is
 * refused with a message rather than started in other units. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/setup.h"
#include "ic/ic.h"
#include "core/tide.h"
#include "io/snapshot.h"

#define DEFAULT_IC_FILE "fort.10"

static int check_virial_ratio(const deck *d, char *err, size_t errlen)
{
    if (d->q >= 0.0 && d->q < 1.0)
        return 0;
    char at[320];
    snprintf(err, errlen,
             "%sQ = %g: the virial ratio must be in [0, 1) for the standard scaling "
             "(Q >= 1 gives E = T + W >= 0, which cannot be scaled to E = -1/4)",
             deck_at(d, "Q", at, sizeof at), d->q);
    return 1;
}

/* Equal masses (ALPHAS = 1 or BODY1 = BODYN) take precedence over KZ(20), as
 * in NBODY6's data.f, even for mass functions that do not use ALPHAS. */
static int equal_mass_deck(const deck *d)
{
    return d->alphas == 1.0 || d->body1 == d->bodyn;
}

static int is_kroupa(int kz20) { return kz20 == 6 || kz20 == 7; }

static int check_mass_limits(const deck *d, char *err, size_t errlen)
{
    char at[320];
    if (!(d->body1 > 0.0 && d->bodyn > 0.0 && isfinite(d->body1) && isfinite(d->bodyn) &&
          isfinite(d->alphas))) {
        snprintf(err, errlen, "%sALPHAS = %g, BODY1 = %g, BODYN = %g: the mass function "
                 "needs finite ALPHAS and positive finite BODY1, BODYN",
                 deck_at(d, "BODY1", at, sizeof at), d->alphas, d->body1, d->bodyn);
        return 1;
    }
    double lo, hi;
    if (is_kroupa(d->kz[20]) && imf_kroupa_range(d->body1, d->bodyn, &lo, &hi)) {
        snprintf(err, errlen, "%sKZ(20) = %d: BODY1 = %g, BODYN = %g: the Kroupa (2001) masses "
                 "need BODYN < BODY1 and a range that meets its 0.01 to 100 Msun "
                 "(NBODY6's imfbd.f stops too)", deck_at(d, "BODY1", at, sizeof at), d->kz[20],
                 d->body1, d->bodyn);
        return 1;
    }
    return 0;
}

/* The masses come from a mass function in Msun (not equal, not a file). */
static int imf_masses(const deck *d)
{
    return d->kz[22] <= 1 && !equal_mass_deck(d) && d->n > 1;
}

int ic_masses_from_imf(const deck *d)
{
    return imf_masses(d);
}

/* With NBIN0 > 0 and KZ(20) >= 2 NBODY6's imf2.f draws the binaries'
 * components and binpop.f takes them (BODY0) instead of RATIO and NSKIP.
 * Only Kroupa's 6, 7 drawn for a model get here with such components: with
 * equal masses or a file imf2.f never runs and binpop.f would take masses
 * nobody drew, and with KZ(8) = 0, 2 imf2.f would draw N + NBIN0 stars that
 * binpop.f never splits (deck.c refuses those decks first). */
static int check_imf_binaries(const deck *d, char *err, size_t errlen)
{
    if (d->nbin0 <= 0 || d->kz[20] < 2)
        return 0;
    if (binpop_imf_pairs(d) && !(is_kroupa(d->kz[20]) && imf_masses(d))) {
        snprintf(err, errlen, "KZ(20) = %d with NBIN0 = %d: binpop.f takes the binaries' "
                 "masses from imf2.f's Kroupa draws, which %s (refused): use KZ(20) = 0 with "
                 "RATIO", d->kz[20], d->nbin0,
                 !is_kroupa(d->kz[20]) ? "exist only for KZ(20) = 6, 7"
                 : d->kz[22] >= 2      ? "a KZ(22) >= 2 file does not have"
                                       : "equal masses (ALPHAS = 1 or BODY1 = BODYN) never make");
        return 1;
    }
    if (!binpop_on(d) && imf_masses(d)) {
        snprintf(err, errlen, "KZ(20) = %d with NBIN0 = %d and KZ(8) = %d: imf2.f's pairs "
                 "become binaries only through binpop.f, KZ(8) = 1 or >= 3 (refused)",
                 d->kz[20], d->nbin0, d->kz[8]);
        return 1;
    }
    if (binpop_imf_pairs(d) && d->nbin0 > d->n) {
        snprintf(err, errlen, "NBIN0 = %d binaries from the IMF's draws: more than the N = %d "
                 "bodies (N counts a binary once)", d->nbin0, d->n);
        return 1;
    }
    return 0;
}

/* Kroupa masses: with imf2.f's binaries the first NBIN0 are their c.m.
 * masses and primary (not NULL) gets each one's heavier share; the Msun mean
 * over N, or -1. */
static double kroupa_masses(const deck *d, rng *r, double *m, double *primary)
{
    if (binpop_imf_pairs(d))
        return imf_kroupa_binaries(d->n, d->nbin0, d->kz[20] == 7, d->body1, d->bodyn, r, m,
                                   primary);
    return imf_kroupa(d->n, d->body1, d->bodyn, r, m);
}

/* The masses, scaled to mean 1, and their mean in Msun (1 for equal
 * masses).  Only the Kroupa function draws from r: one uniform per star.
 * primary: binary k's heavier component over its c.m. mass m[k] where
 * imf2.f pairs the draws (binpop_imf_pairs), else untouched; may be NULL. */
static int make_masses(const deck *d, rng *r, double *m, double *primary, double *mean_msun,
                       char *err, size_t errlen)
{
    *mean_msun = 1.0;
    if (equal_mass_deck(d)) {
        imf_power_law(d->n, d->alphas, d->body1, d->bodyn, m); /* all 1 */
        return 0;
    }
    if (check_mass_limits(d, err, errlen))
        return 1;
    switch (d->kz[20]) {
    case 0:
        *mean_msun = imf_power_law(d->n, d->alphas, d->body1, d->bodyn, m);
        return 0;
    case 1:
        *mean_msun = imf_scalo(d->n, d->body1, d->bodyn, m);
        return 0;
    case 6:
    case 7:
        *mean_msun = kroupa_masses(d, r, m, primary);
        if (*mean_msun > 0.0)
            return 0;
        snprintf(err, errlen, "out of memory for the %d Kroupa masses", d->n + d->nbin0);
        return 1;
    default:
        snprintf(err, errlen, "KZ(20) = %d: mass function not available (0 power law, "
                 "1 Scalo, 6 and 7 Kroupa 2001)", d->kz[20]);
        return 1;
    }
}

static int make_model(const deck *d, double *m, double *primary, double (*x)[3],
                      double (*v)[3], char *err, size_t errlen)
{
    rng r;
    /* A negative NRAND still names one seed: its two's-complement bits. */
    rng_seed(&r, (uint64_t)(int64_t)d->nrand);
    double mean_msun;
    if (make_masses(d, &r, m, primary, &mean_msun, err, errlen))
        return 1;
    switch (d->kz[5]) {
    case 0:
        model_uniform(d->n, m, &r, x, v);
        return 0;
    case 1:
        model_plummer(d->n, m, &r, x, v);
        return 0;
    default:
        snprintf(err, errlen, "KZ(5) = %d: initial model not available "
                 "(0 uniform sphere, 1 Plummer)", d->kz[5]);
        return 1;
    }
}

/* KZ(14) > 0: NBODY6's one rescaling that puts the tidal potential energy
 * into E = -1/4 (xtrnl0.f), after the standard scaling. */
static int scale_with_tide(const deck *d, gpunb *nb, double *m, double (*x)[3], double (*v)[3],
                           char *err, size_t errlen)
{
    tide td;
    /* the mass unit is ZMBAR times the run's N, which binpop.c may change */
    const tide_spec ts = setup_tide(d);
    if (tide_init(&td, &ts, ic_body_count(d), err, errlen))
        return 1;
    tide_scale_start(&td, d->n, m, x, v, ic_potential_nb(nb, d->n, m, (const double(*)[3])x));
    return 0;
}

/* KZ(22) >= 2 without its file: where the file is looked for and how to
 * give another, or to generate the bodies instead. */
static int missing_file(const deck *d, const char *ic_file, int e, char *err, size_t errlen)
{
    char at[320];
    if (ic_file)
        snprintf(err, errlen, "%sKZ(22) = %d: cannot open %s, the file given with --ic (%s)",
                 deck_at(d, "KZ(22)", at, sizeof at), d->kz[22], ic_file, strerror(e));
    else
        snprintf(err, errlen, "%sKZ(22) = %d: cannot open %s (%s): KZ(22) = 2 and 3 read the "
                 "bodies from %s in the current folder, as NBODY6 does; put it there, give "
                 "another file with --ic FILE (text lines \"m x y z vx vy vz\" or an nbody6c "
                 "snapshot), or set KZ(22) = 0 or 1 to generate the model",
                 deck_at(d, "KZ(22)", at, sizeof at), d->kz[22], DEFAULT_IC_FILE, strerror(e),
                 DEFAULT_IC_FILE);
    return 1;
}

/* A snapshot's bodies come in the order of their names: body k (1-based)
 * is the k-th name, and the new run names it k. */
static int snapshot_coincident(const char *path, int n, const double (*x)[3], char *err,
                               size_t errlen)
{
    int a, b;
    const int found = ic_find_coincident(n, x, &a, &b);
    if (found < 0)
        snprintf(err, errlen, "%s: out of memory for %d bodies", path, n);
    else if (found)
        snprintf(err, errlen, "%s: bodies %d and %d (in the order of the snapshot's names) are "
                 "at one position (%.17g, %.17g, %.17g): two bodies at one point have no finite "
                 "potential energy", path, a + 1, b + 1, x[a][0], x[a][1], x[a][2]);
    return found != 0;
}

/* The model or the file, scaled: the deck's N bodies before any binary is
 * split (ic_make below adds the binaries; primary as make_masses). */
static int make_unsplit(const deck *d, const char *ic_file, gpunb *nb, double *m, double *primary,
                        double (*x)[3], double (*v)[3], char *err, size_t errlen)
{
    const int kz22 = d->kz[22];
    const char *path = ic_file ? ic_file : DEFAULT_IC_FILE;
    if (d->n < 1) {
        snprintf(err, errlen, "N = %d: at least one body is needed", d->n);
        return 1;
    }
    if (kz22 < 0 || kz22 > 3) {
        snprintf(err, errlen, "KZ(22) = %d: initial conditions option not available "
                 "(0, 1 model; 2, 3 from file)", kz22);
        return 1;
    }
    if (kz22 != 3 && check_virial_ratio(d, err, errlen))
        return 1;
    if (kz22 == 2 && d->kz[20] != 0 && !equal_mass_deck(d)) {
        snprintf(err, errlen, "KZ(22) = 2 with KZ(20) = %d: NBODY6 would replace the file's "
                 "masses by new ones from the mass function; not implemented (refused): use "
                 "KZ(20) = 0 to keep the file's masses", d->kz[20]);
        return 1;
    }
    int status;
    if (kz22 <= 1)
        status = make_model(d, m, primary, x, v, err, errlen);
    else if (access(path, R_OK) != 0)
        status = missing_file(d, ic_file, errno, err, errlen);
    else if (snapshot_is_hdf5(path))
        status = snapshot_read_bodies(path, d->n, m, x, v, err, errlen) ||
                 snapshot_coincident(path, d->n, (const double(*)[3])x, err, errlen);
    else
        status = bodyfile_read(path, d->n, m, x, v, err, errlen);
    if (status)
        return status;
    if (kz22 == 3)
        return 0;
    char why[256];
    status = scale_standard_nb(nb, d->n, m, x, v, d->q, why, sizeof why);
    if (status)
        snprintf(err, errlen, "%s: %s", kz22 == 2 ? path : "initial model", why);
    else if (d->kz[14] > 0)
        status = scale_with_tide(d, nb, m, x, v, err, errlen);
    return status;
}

/* The mean mass in Msun of the deck's N bodies before binpop.c. */
static double model_mean_msun(const deck *d)
{
    const double fallback = d->zmbar > 0.0 && isfinite(d->zmbar) ? d->zmbar : 1.0;
    if (!imf_masses(d))
        return fallback;
    double *m = malloc(sizeof(double) * (size_t)d->n);
    if (!m)
        return fallback; /* ic_make fails on memory first in a real run */
    rng r;
    rng_seed(&r, (uint64_t)(int64_t)d->nrand); /* as make_model: the same draws */
    double mean;
    char err[256];
    const int bad = make_masses(d, &r, m, NULL, &mean, err, sizeof err);
    free(m);
    return !bad && mean > 0.0 && isfinite(mean) ? mean : fallback;
}

/* The masses in words: which function, between which limits (Msun). */
static void describe_masses(const deck *d, char *buf, size_t len)
{
    double lo, hi;
    if (!imf_masses(d))
        snprintf(buf, len, "equal masses");
    else if (d->kz[20] == 1)
        snprintf(buf, len, "Scalo masses (KZ(20) = 1, Eggleton, Fitchett & Tout 1989) from "
                 "BODY1 %g to BODYN %g Msun", d->body1, d->bodyn);
    else if (is_kroupa(d->kz[20]) && imf_kroupa_range(d->body1, d->bodyn, &lo, &hi) == 0)
        snprintf(buf, len, "Kroupa (2001) masses (KZ(20) = %d) drawn between %g and %g Msun%s",
                 d->kz[20], lo, hi, (lo != d->bodyn || hi != d->body1)
                     ? " (BODY1, BODYN clamped to the function's 0.01 to 100 Msun)" : "");
    else
        snprintf(buf, len, "power-law masses (KZ(20) = %d) ALPHAS %g from BODY1 %g to BODYN "
                 "%g Msun", d->kz[20], d->alphas, d->body1, d->bodyn);
}

static void describe_unsplit(const deck *d, const char *ic_file, char *buf, size_t len)
{
    const char *path = ic_file ? ic_file : DEFAULT_IC_FILE;
    if (d->kz[22] >= 2) {
        snprintf(buf, len, "bodies from %s (KZ(22) = %d: %s)", path, d->kz[22],
                 d->kz[22] == 2 ? "scaled to N-body units" : "used as given");
        return;
    }
    char masses[256];
    describe_masses(d, masses, sizeof masses);
    snprintf(buf, len, "%s (KZ(5) = %d), %s, NRAND %d%s",
             d->kz[5] == 1 ? "Plummer" : d->kz[5] == 0 ? "uniform sphere" : "model", d->kz[5],
             masses, d->nrand, d->kz[22] == 1 ? " (KZ(22) = 1: written to dat.10)" : "");
}

/* ---- primordial binaries on top (binpop.c) ---- */

int ic_make(const deck *d, const char *ic_file, double *m, double (*x)[3], double (*v)[3],
            char *err, size_t errlen)
{
    return ic_make_nb(d, ic_file, NULL, m, x, v, err, errlen);
}

int ic_make_nb(const deck *d, const char *ic_file, gpunb *nb, double *m, double (*x)[3],
               double (*v)[3], char *err, size_t errlen)
{
    if (check_imf_binaries(d, err, errlen))
        return 1;
    if (!binpop_on(d))
        return make_unsplit(d, ic_file, nb, m, NULL, x, v, err, errlen);
    /* the model's N bodies, then the binaries split from its first NBIN0 */
    const size_t n = (size_t)(d->n > 0 ? d->n : 1);
    double *mm = malloc(sizeof(double) * n);
    double(*mx)[3] = malloc(sizeof(double[3]) * n), (*mv)[3] = malloc(sizeof(double[3]) * n);
    /* imf2.f's components: each binary's heavier share of its c.m. mass */
    double *primary = binpop_imf_pairs(d) ? malloc(sizeof(double) * n) : NULL;
    int status = 1;
    double ebin0;
    if (!mm || !mx || !mv || (binpop_imf_pairs(d) && !primary))
        snprintf(err, errlen, "out of memory for %d bodies", d->n);
    else if ((status = make_unsplit(d, ic_file, nb, mm, primary, mx, mv, err, errlen)) == 0 &&
             (status = binpop_make(d, model_mean_msun(d) * d->n, primary, mm,
                                   (const double(*)[3])mx, (const double(*)[3])mv, m, x, v,
                                   &ebin0)) != 0)
        snprintf(err, errlen, "out of memory for the primordial binaries");
    free(mm);
    free(mx);
    free(mv);
    free(primary);
    return status;
}

/* NBODY6's ZMBAR is the Msun per N-body mass unit divided by N; binpop.f
 * keeps the unit and changes N, so the mean per body follows N. */
double ic_mean_mass_msun(const deck *d)
{
    const int n = ic_body_count(d);
    return n > 0 ? model_mean_msun(d) * d->n / n : model_mean_msun(d);
}

void ic_describe(const deck *d, const char *ic_file, char *buf, size_t len)
{
    char unsplit[768], bin[320];
    describe_unsplit(d, ic_file, unsplit, sizeof unsplit);
    binpop_describe(d, bin, sizeof bin);
    snprintf(buf, len, "%s%s", unsplit, bin);
}
