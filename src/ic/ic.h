/* ic.h — initial models: the random generator, Plummer and uniform spheres,
 * the power-law mass function, bodies from a file, and the scaling to
 * standard N-body units (G = 1, M = 1, E = -1/4 at virial ratio Q, centre of
 * mass at rest at the origin).
 *
 * rng.c owns the generator, imf.c the deterministic masses (power law,
 * Scalo), imf_kroupa.c the random Kroupa masses, models.c the spheres,
 * bodyfile.c the KZ(22) file, scale.c the scaling, ic.c the dispatch on the
 * deck.  Bodies are plain arrays (m[n], x[n][3], v[n][3]) so that tests and
 * the integrator share them without copying. */
#ifndef NBODY6C_IC_H
#define NBODY6C_IC_H

#include <stddef.h>
#include <stdint.h>
#include "io/deck.h"
#include "gpunb/gpunb.h"

/* xoshiro256** seeded through splitmix64 (the algorithm is written out in
 * rng.c, so a deck gives the same bodies on every machine). */
typedef struct rng { uint64_t s[4]; } rng;
void rng_seed(rng *r, uint64_t seed);
double rng_uniform(rng *r); /* in [0, 1), 53 random bits */

/* Power-law masses as NBODY6 (README, "The input deck"): i = 1..n from BODY1 down to BODYN,
 * then scaled to mean 1 (the caller's scaling then makes the total 1).
 * Returns the mean before that scaling (in the units of BODY1, BODYN: Msun);
 * 1 for equal masses. */
double imf_power_law(int n, double alphas, double body1, double bodyn, double *m);
/* Scalo's function as NBODY6's imf.f (KZ(20) = 1): evenly spaced cumulative
 * fractions from BODY1 down to BODYN, then as imf_power_law (mean 1, the
 * Msun mean returned; BODY1 == BODYN or n == 1 gives equal masses). */
double imf_scalo(int n, double body1, double bodyn, double *m);
/* Scales m[0..n-1] to mean 1; returns the mean before (its units). */
double imf_scale_to_mean_one(int n, double *m);

/* Kroupa (2001) as NBODY6's imf2.f/imfbd.f (KZ(20) = 6, 7), imf_kroupa.c.
 * imf_kroupa_range: the masses' limits [lo, hi] = [max(BODYN, 0.01),
 * min(BODY1, 100)] Msun; nonzero when BODYN > BODY1 or lo >= hi (refused).
 * imf_kroupa_draw: n masses in Msun in [lo, hi], one uniform each, in draw
 * order (for a caller that pairs them, e.g. primordial binaries).
 * imf_kroupa: n draws from r, sorted heaviest first, scaled to mean 1; returns
 * the Msun mean (NBODY6's ZMBAR), or -1 for a refused range or n <= 0. */
int imf_kroupa_range(double body1, double bodyn, double *lo, double *hi);
void imf_kroupa_draw(int n, double lo, double hi, rng *r, double *m_msun);
double imf_kroupa(int n, double body1, double bodyn, rng *r, double *m);
/* imf2.f with NBIN0 = nbin > 0 primordial binaries: n + nbin draws from r,
 * draws 2k, 2k+1 (0-based, k < nbin) paired as binary k's components, the
 * rest singles.  m[0..nbin-1] the binaries' c.m. masses, heaviest first,
 * m[nbin..n-1] the singles, heaviest first, all scaled to mean 1 over n;
 * primary[k] (when not NULL) binary k's heavier component over its c.m.
 * mass.  correlated (KZ(20) = 7): each pair's m2/m1 -> (m2/m1)^0.4 at the
 * same total.  Returns the Msun total of the n + nbin draws over n (imf2.f's
 * ZMBAR), or -1 for a refused range, nbin outside [0, n], or no memory.
 * imf_pair_components: one pair of draws a, b as imf2.f makes it, the
 * heavier m1 first. */
double imf_kroupa_binaries(int n, int nbin, int correlated, double body1, double bodyn, rng *r,
                           double *m, double *primary);
void imf_pair_components(double a, double b, int correlated, double *m1, double *m2);

/* Positions and velocities in the model's own units, centre of mass removed. */
void model_plummer(int n, const double *m, rng *r, double (*x)[3], double (*v)[3]);
void model_uniform(int n, const double *m, rng *r, double (*x)[3], double (*v)[3]);

/* Reads n bodies "m x y z vx vy vz" (one per line) from path.  Returns 0, or
 * nonzero with "PATH:LINE: FIELD: reason" in err (two bodies at one position
 * are refused too, naming both lines). */
int bodyfile_read(const char *path, int n, double *m, double (*x)[3], double (*v)[3],
                  char *err, size_t errlen);
int bodyfile_write(const char *path, int n, const double *m, const double (*x)[3],
                   const double (*v)[3]);

/* Two bodies at exactly one position (no finite potential energy): returns
 * 1 with their indices a < b (the first such pair in position order), 0 if
 * there is none, -1 out of memory. */
int ic_find_coincident(int n, const double (*x)[3], int *a, int *b);

/* Energies by direct double-precision summation (G = 1).  The potential
 * (negative) from the rows of gpunb_pot_rows added in i order: on the
 * library nb, or with nb NULL on the host (ic_potential); the same bits
 * either way. */
double ic_kinetic(int n, const double *m, const double (*v)[3]);
double ic_potential(int n, const double *m, const double (*x)[3]);
double ic_potential_nb(gpunb *nb, int n, const double *m, const double (*x)[3]);

/* Standard N-body units: total mass 1, c.m. at rest at the origin, then
 * velocities scaled to virial ratio q (T/|W| = q) and lengths/velocities so
 * that E = -1/4.  q = 0 leaves the bodies at rest (E = W = -1/4). */
void scale_standard(int n, double *m, double (*x)[3], double (*v)[3], double q);
/* The same, returning nonzero with a message in err (when err is not NULL)
 * where the bodies cannot be scaled: total mass not positive, coincident
 * bodies (W not finite), q outside [0, 1) (E >= 0). */
int scale_standard_checked(int n, double *m, double (*x)[3], double (*v)[3], double q,
                           char *err, size_t errlen);
/* The same with the potential summed on nb (NULL: on the host). */
int scale_standard_nb(gpunb *nb, int n, double *m, double (*x)[3], double (*v)[3], double q,
                      char *err, size_t errlen);

/* The whole setup from a deck: masses, model or file, scaling.  ic_file is
 * the KZ(22) file (NULL: "fort.10" in the current directory).  Returns 0, or
 * nonzero with a message in err. */
int ic_make(const deck *d, const char *ic_file, double *m, double (*x)[3], double (*v)[3],
            char *err, size_t errlen);
/* The same with the scaling's potential summed on nb (ic_potential_nb):
 * the same bodies, bit for bit; ic_make is ic_make_nb with nb NULL. */
int ic_make_nb(const deck *d, const char *ic_file, gpunb *nb, double *m, double (*x)[3],
               double (*v)[3], char *err, size_t errlen);

/* The mean mass in Msun that the run's physical units use (NBODY6's ZMBAR
 * after its set-up): with KZ(22) <= 1 and unequal masses the mean of the
 * mass function's masses (KZ(20) = 0, 1, 6, 7: imf.f and imf2.f replace the
 * deck's ZMBAR by it: BODY1, BODYN are solar masses; the Kroupa draws are
 * made again from NRAND, so they are the masses ic_make gives); otherwise
 * the deck's ZMBAR, or 1 when that is not positive (units.f's default:
 * <m> = 1 Msun).  Returns a value > 0. */
double ic_mean_mass_msun(const deck *d);

/* Whether the masses come from a mass function in Msun (KZ(22) <= 1 and not
 * equal masses): then ZMBAR is their mean, as NBODY6's imf.f sets it. */
int ic_masses_from_imf(const deck *d);
/* Which initial conditions a deck gives, in words for the log: the model and
 * masses, or the file (ic_file NULL: fort.10) and whether it is scaled. */
void ic_describe(const deck *d, const char *ic_file, char *buf, size_t len);

/* ---- primordial binaries (binpop.c, NBODY6's binpop.f) ----
 * binpop_on: KZ(8) = 1 or >= 3 with NBIN0 > 0.
 * binpop_imf_pairs: binpop_on with KZ(20) >= 2: the components are imf2.f's
 *   pairs of draws (imf_kroupa_binaries), RATIO and NSKIP unused.
 * ic_body_count: the bodies ic_make gives, NBODY6's N after binpop.f: the
 *   deck's N, + NBIN0 with RATIO < 1 or imf2.f's pairs (N counted each
 *   binary once), - NBIN0 with IDORM > 0 and RATIO = 1; the arrays given to
 *   ic_make have this size.
 * The pairs the start-up regularises: setup_primordial_pairs (io/setup.h).
 * binpop_make: from the scaled model (mm, mx, mv: the deck's N bodies, mm
 *   reordered in place by NSKIP) to the ic_body_count(d) bodies m, x, v:
 *   binaries first (components 2k, 2k+1), then the singles, c.m. at rest;
 *   munit is the Msun per N-body mass unit (KZ(8) = 4's periods); primary
 *   (exactly when binpop_imf_pairs) binary k's heavier component over mm[k],
 *   else NULL; *ebin0 the binaries' binding energy sum -m1 m2/(2a).  Returns
 *   0, -1 out of memory, -2 for primary given against binpop_imf_pairs.
 * binpop_describe: ", NBIN0 primordial binaries (...)" for the log, or "". */
int binpop_on(const deck *d);
int binpop_imf_pairs(const deck *d);
int ic_body_count(const deck *d);
int binpop_make(const deck *d, double munit, const double *primary, double *mm,
                const double (*mx)[3], const double (*mv)[3], double *m, double (*x)[3],
                double (*v)[3], double *ebin0);
void binpop_describe(const deck *d, char *buf, size_t len);

#endif
