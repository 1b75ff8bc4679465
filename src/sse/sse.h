/* sse.h — single-star evolution (SSE: Hurley, Pols & Tout 2000, MNRAS 315,
 * 543, "HPT00" below) as NBODY6 runs it under KZ(19) = 3: the analytic
 * fits of every phase with their metallicity-dependent coefficients, winds,
 * remnants, and the update scheme (the next update time, mass lost over a
 * step).  A leaf layer: it includes nothing else of the project.
 *
 * Units everywhere: Msun, Rsun, Lsun, Myr (ages, times); wind rates in
 * Msun/yr; spin angular momentum in Msun Rsun^2 / yr.
 *
 * Types KW (HPT00 section 1): 0 MS M < ~0.7 (deeply convective), 1 MS,
 * 2 Hertzsprung gap, 3 first giant branch, 4 core He burning, 5 early AGB,
 * 6 thermally pulsing AGB, 7 naked He MS, 8 He Hertzsprung gap, 9 He giant
 * branch, 10 He WD, 11 CO WD, 12 ONe WD, 13 NS, 14 BH, 15 massless remnant.
 * docs/SSE.md states the choices NBODY6 makes and which this code makes. */
#ifndef NBODY6C_SSE_H
#define NBODY6C_SSE_H

/* NBODY6's data.f range for ZMET, the range of HPT00's fits. */
#define SSE_ZMIN 1.0e-4
#define SSE_ZMAX 0.03
#define SSE_MFIT_MAX 100.0  /* the fits' upper mass (Msun); they are used beyond it as NBODY6 does */

enum {
    SSE_LMMS = 0, SSE_MS = 1, SSE_HG = 2, SSE_GB = 3, SSE_CHEB = 4,
    SSE_EAGB = 5, SSE_TPAGB = 6, SSE_HEMS = 7, SSE_HEHG = 8, SSE_HEGB = 9,
    SSE_HEWD = 10, SSE_COWD = 11, SSE_ONEWD = 12, SSE_NS = 13, SSE_BH = 14,
    SSE_MASSLESS = 15
};

/* The metallicity-dependent constants (NBODY6's zcnsts: ZPARS and the
 * /MSCFF/, /GBCFF/ coefficient blocks), 1-based as HPT00's lists. */
typedef struct sse_consts {
    double z;           /* the metallicity in use (after clamping) */
    double zpars[21];   /* [1] Mhook [2] MHeF [3] MFGB [4] Mup [5] Mec ... */
    double msp[201];    /* main-sequence fit coefficients */
    double gbp[201];    /* giant-branch / He-burning fit coefficients */
} sse_consts;

/* Time scales and characteristic luminosities of a star of a given type
 * and mass (NBODY6's star.f: TM, TN, TSCLS, LUMS, GB), 1-based. */
typedef struct sse_tscales {
    double tm, tn;      /* MS lifetime, nuclear time (Mc = M) */
    double t[21];       /* [1] tBGB [2] tHeI [3] tHe [4..12] GB/AGB t_inf, t_x
                           [13] tTP [14] t(Mc,max) */
    double l[11];       /* [1] LZAMS [2] LTMS [3] LBGB [4] LHeI [5] LHe ... */
    double gb[11];      /* giant-branch core-mass-luminosity parameters */
} sse_tscales;

/* What the star is at an age: the output of one HR-diagram evaluation. */
typedef struct sse_hr {
    int kw;
    double m0, mt;      /* effective initial mass, current mass */
    double age;         /* age (may be reset, e.g. to 0 at WD formation) */
    double mc, lum, rad, rc;
    double menv, renv, k2;  /* convective envelope mass, radius; gyration k^2 */
} sse_hr;

/* The evolution state one star carries (per body in the coupling; a later
 * binary-evolution layer reads spin, core and envelope). */
typedef struct sse_star {
    int kw;             /* type 0..15 */
    double m0;          /* effective initial mass (rejuvenated by winds on MS/HG/HeMS) */
    double mzams;       /* initial mass as set at start (never changes) */
    double mass, mc;    /* current mass, core mass */
    double lum, rad, rc;
    double menv, renv, k2;
    double epoch;       /* Myr: age = t - epoch */
    double tlast;       /* time of the last update (NBODY6's TEV0), Myr */
    double tnext;       /* time of the next update (NBODY6's TEV), Myr */
    double jspin;       /* spin angular momentum */
} sse_star;

/* What one update did. */
typedef struct sse_change {
    int kw_old, kw_new;
    double dm;          /* mass lost (Msun, >= 0 for winds and remnant formation) */
    double t;           /* the time reached */
} sse_change;

/* (a) Metallicity: clamp to [SSE_ZMIN, SSE_ZMAX] as NBODY6's data.f does
 * (a Z <= 0 becomes SSE_ZMIN); *clamped says whether it changed. */
double sse_clamp_z(double z, int *clamped);
/* Fill the constants for metallicity z (clamped first). */
void sse_zcnsts(sse_consts *c, double z);

/* Time scales of a star of type kw, effective initial mass m0, mass mt. */
void sse_tscales_of(const sse_consts *c, int kw, double m0, double mt, sse_tscales *ts);
/* The HR-diagram state at an age (NBODY6's hrdiag): hr->kw, m0, mt, age are
 * input and are updated (a type change may reset them); ts must be the time
 * scales of (kw, m0, mt) and is updated when the type changes. */
void sse_hrdiag(const sse_consts *c, sse_tscales *ts, sse_hr *hr);
/* Both in one: the state at age for (kw, m0, mt). */
void sse_state(const sse_consts *c, int kw, double m0, double mt, double age, sse_hr *hr);

/* (e) Wind mass-loss rate, Msun/yr (NBODY6's mlwind with its default
 * mdflag = 1: HPT00 section 7.1); rl: Roche-lobe radius, 0 for a single star. */
double sse_mlwind(const sse_consts *c, int kw, double lum, double rad, double mt,
                  double mc, double rl);
/* Magnetic braking spin-down rate (Msun Rsun^2 / yr^2), NBODY6's magbrk. */
double sse_magbrk(int kw, double mt, double menv, double rad, double ospin);

/* (b) A ZAMS star of mass m at time t (Myr) with the given epoch (NBODY6's
 * EPOCH0: age = t - epoch), its spin and first update time set (instar.f). */
void sse_init(const sse_consts *c, sse_star *s, double m, double t, double epoch);
/* (d) The interval to the next update (Myr) from the star's state at
 * s->tlast (NBODY6's trdot): mass and radius change by a bounded fraction. */
double sse_trdot(const sse_consts *c, const sse_star *s);
/* (c) One update at s->tnext (NBODY6's mdot.f for a single star): winds over
 * the step (limited to 2 % of the mass and the envelope), rejuvenation,
 * the new state and remnant formation, the next update time. */
void sse_update(const sse_consts *c, sse_star *s, sse_change *ch);
/* (c) All updates due up to time t; returns the mass lost. */
double sse_evolve(const sse_consts *c, sse_star *s, double t);

/* Giant-like: a star with a core and an envelope (types 2-6, 8, 9), the
 * ones whose collisions are common envelopes (sse_merge.c). */
int sse_giant_like(int kw);
/* Collisions (sse_merge.c): the product's type for colliding stars of
 * types k1, k2 (BSE's table, symmetric; > 100: a common-envelope case, the
 * type left being the value less 100; -1 for a type outside 0..14). */
int sse_collision_type(int k1, int k2);
/* The star that stars a and b make when they collide at time t (Myr):
 * type from the table, mass the sum (less what a Thorne-Zytkow object or
 * a disruption throws off, and what the HR evolution takes at once, e.g.
 * a white dwarf above the Chandrasekhar mass), initial mass, age and core
 * as docs/STELLAR_EVOLUTION.md says, its next update time.  *dm the mass
 * lost (Msun).  Returns 1 when the product continues star a (the more
 * evolved one), 0 when it continues b. */
int sse_merge(const sse_consts *c, const sse_star *a, const sse_star *b, double t, sse_star *out,
              double *dm);

/* A giant around a given core (sse_gntage.c, NBODY6's gntage): for type
 * *kw (3, 4, 5, 6, 8 or 9) and core mass *mc in a star of mass mt, the
 * initial mass *m0 and age *aj (Myr) at which the star has that core; for
 * type 4, *aj is on input the fraction of its helium burning done.  The
 * type may move (a core too small for helium burning is a GB star's, one
 * too large for the GB burns helium; a CO core too small for the AGB
 * becomes a CHeB star, whose core *mc is then placed by the fraction). */
void sse_gntage(const sse_consts *c, double *mc, double mt, int *kw, double *m0, double *aj);
/* The inverses of HPT00's core-mass fits (sse_gntage.c): the mass at the
 * BAGB whose core there is mc (eq 66; 0 below the smallest), and the mass
 * whose core at the BGB or He ignition is mc (eq 44, mchef as for it). */
double sse_mbagb(const sse_consts *c, double mc);
double sse_mhei(const sse_consts *c, double mc, double mhef, double mchef);

/* Common envelope (sse_comenv.c; Hurley, Tout & Pols 2002 section 2.7.1
 * with NBODY6's choices, docs/STELLAR_EVOLUTION.md).  Roche-lobe radius
 * over separation for mass ratio q (Eggleton 1983). */
double sse_roche_lobe(double q);
/* One common-envelope event of giant-like star a (types 2-6, 8, 9) and
 * star b at time t (Myr) on an orbit of eccentricity *ecc and semi-major
 * axis *sep (Rsun; < 0 unbound): an eccentric orbit (e > 0.01) is a
 * grazing passage that strips part of a's envelope and shrinks the orbit,
 * a circular one spirals in.  a and b become the stars after, *ecc, *sep
 * the orbit after.  Returns 1 when they coalesced (a is the product, b
 * massless), 0 when two stars are left. */
int sse_comenv(const sse_consts *c, sse_star *a, sse_star *b, double t, double *ecc, double *sep);
/* A giant's collision as NBODY6's common-envelope routine makes it: one
 * sse_comenv; when what is left touches (the semi-major axis below
 * either radius, an orbit left unbound included) a collision of the two;
 * when the orbit has circularised with a star filling its Roche lobe, the
 * spiral-in at once.  Returns SSE_CE_*; with SSE_CE_NONE (no mass changed)
 * a and b are as they were. */
enum { SSE_CE_NONE = 0, SSE_CE_BINARY = 1, SSE_CE_COALESCED = 2, SSE_CE_TOUCH = 3 };
int sse_ce_collision(const sse_consts *c, sse_star *a, sse_star *b, double t, double *ecc, double *sep);

/* Effective temperature (K) from L and R. */
double sse_teff(double lum, double rad);

#endif
