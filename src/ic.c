/* ic.c — the initial bodies from a deck (NBODY6's data/setup/scaling steps):
 * masses, then the model or the KZ(22) file, then the standard scaling.
 *
 *   KZ(22) = 0 or 1: masses from ALPHAS/BODY1/BODYN (power law, KZ(20) = 0,
 *            or equal), then KZ(5) = 0 uniform sphere or 1 Plummer drawn with
 *            the generator seeded by NRAND, then scale_standard with Q.
 *            (KZ(22) = 1 also writes dat.10: the caller's job.)
 *   KZ(22) = 2: N bodies from the file, then scale_standard with Q.
 *   KZ(22) = 3: N bodies from the file used exactly as given (masses too).
 *   The file is an nbody6c HDF5 snapshot when it starts with the HDF5
 *   signature (snapread.c: exactly N bodies, in the order of their names),
 *   else the text format of bodyfile.c.
 *
 * Q must lie in [0, 1) whenever the bodies are scaled: Q >= 1 would make
 * E = (Q - 1)|W| non-negative, and no length scale gives E = -1/4; the run is
 * refused with a message rather than started in other units. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ic.h"
#include "snapshot.h"

#define DEFAULT_IC_FILE "fort.10"

static int check_virial_ratio(double q, char *err, size_t errlen)
{
    if (q >= 0.0 && q < 1.0)
        return 0;
    snprintf(err, errlen,
             "Q = %g: the virial ratio must be in [0, 1) for the standard scaling "
             "(Q >= 1 gives E = T + W >= 0, which cannot be scaled to E = -1/4)",
             q);
    return 1;
}

/* Equal masses take precedence over KZ(20), as in NBODY6. */
static int make_masses(const deck *d, double *m, char *err, size_t errlen)
{
    const int equal = d->alphas == 1.0 || d->body1 == d->bodyn;
    if (!equal) {
        if (d->kz[20] != 0) {
            snprintf(err, errlen, "KZ(20) = %d: only the power-law mass function "
                     "(KZ(20) = 0) is available", d->kz[20]);
            return 1;
        }
        if (!(d->body1 > 0.0 && d->bodyn > 0.0 && isfinite(d->body1) &&
              isfinite(d->bodyn) && isfinite(d->alphas))) {
            snprintf(err, errlen, "ALPHAS = %g, BODY1 = %g, BODYN = %g: the power-law "
                     "masses need finite ALPHAS and positive finite BODY1, BODYN",
                     d->alphas, d->body1, d->bodyn);
            return 1;
        }
    }
    imf_power_law(d->n, d->alphas, d->body1, d->bodyn, m);
    return 0;
}

static int make_model(const deck *d, double *m, double (*x)[3], double (*v)[3], char *err,
                      size_t errlen)
{
    if (make_masses(d, m, err, errlen))
        return 1;
    rng r;
    /* A negative NRAND still names one seed: its two's-complement bits. */
    rng_seed(&r, (uint64_t)(int64_t)d->nrand);
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

int ic_make(const deck *d, const char *ic_file, double *m, double (*x)[3], double (*v)[3],
            char *err, size_t errlen)
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
    if (kz22 != 3 && check_virial_ratio(d->q, err, errlen))
        return 1;
    int status;
    if (kz22 <= 1)
        status = make_model(d, m, x, v, err, errlen);
    else if (snapshot_is_hdf5(path))
        status = snapshot_read_bodies(path, d->n, m, x, v, err, errlen);
    else
        status = bodyfile_read(path, d->n, m, x, v, err, errlen);
    if (status)
        return status;
    if (kz22 == 3)
        return 0;
    char why[256];
    status = scale_standard_checked(d->n, m, x, v, d->q, why, sizeof why);
    if (status)
        snprintf(err, errlen, "%s: %s", kz22 == 2 ? path : "initial model", why);
    return status;
}

static int power_law_masses(const deck *d)
{
    return d->kz[22] <= 1 && !(d->alphas == 1.0 || d->body1 == d->bodyn) && d->n > 1;
}

double ic_mean_mass_msun(const deck *d)
{
    const double fallback = d->zmbar > 0.0 && isfinite(d->zmbar) ? d->zmbar : 1.0;
    if (!power_law_masses(d) || !(d->body1 > 0.0 && d->bodyn > 0.0))
        return fallback;
    double *m = malloc(sizeof(double) * (size_t)d->n);
    if (!m)
        return fallback; /* ic_make fails on memory first in a real run */
    double mean = imf_power_law(d->n, d->alphas, d->body1, d->bodyn, m);
    free(m);
    return mean > 0.0 && isfinite(mean) ? mean : fallback;
}

void ic_describe(const deck *d, const char *ic_file, char *buf, size_t len)
{
    const char *path = ic_file ? ic_file : DEFAULT_IC_FILE;
    if (d->kz[22] >= 2) {
        snprintf(buf, len, "bodies from %s (KZ(22) = %d: %s)", path, d->kz[22],
                 d->kz[22] == 2 ? "scaled to N-body units" : "used as given");
        return;
    }
    char masses[256];
    if (power_law_masses(d))
        snprintf(masses, sizeof masses, "power-law masses (KZ(20) = %d) ALPHAS %g from BODY1 %g "
                 "to BODYN %g Msun", d->kz[20], d->alphas, d->body1, d->bodyn);
    else
        snprintf(masses, sizeof masses, "equal masses");
    snprintf(buf, len, "%s (KZ(5) = %d), %s, NRAND %d%s",
             d->kz[5] == 1 ? "Plummer" : d->kz[5] == 0 ? "uniform sphere" : "model", d->kz[5],
             masses, d->nrand, d->kz[22] == 1 ? " (KZ(22) = 1: written to dat.10)" : "");
}
