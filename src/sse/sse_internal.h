/* sse_internal.h — what the files of src/sse share but callers do not
 * need: the fitting functions of HPT00 (sse_zfuncs.c), the remnant rules
 * (sse_remnant.c) and the envelope fits (sse_mrenv.c). */
#ifndef NBODY6C_SSE_INTERNAL_H
#define NBODY6C_SSE_INTERNAL_H

#include "sse/sse.h"

#define SSE_MCH 1.44        /* Chandrasekhar mass (NBODY6's mch) */
#define SSE_TINY 1.0e-14

/* x^n for a small integer n.  NBODY6's Fortran writes these powers as
 * x**n, which gfortran evaluates by a fixed chain of multiplications; GCC's
 * __builtin_powi is that same chain, so C and the reference round alike
 * (pow would differ in the last bit, enough to flip a star that an update
 * lands exactly on a phase boundary to the other side). */
#if defined(__GNUC__)
#define sse_ipow(x, n) __builtin_powi((x), (n))
#else
#define sse_ipow(x, n) pow((x), (double)(n))
#endif

/* Main sequence (HPT00 section 5.1, eqs 1-40) */
double sse_lzams(const sse_consts *c, double m);
double sse_rzams(const sse_consts *c, double m);
double sse_tbgb(const sse_consts *c, double m);
double sse_thook(const sse_consts *c, double m);
double sse_ltms(const sse_consts *c, double m);
double sse_lalpha(const sse_consts *c, double m);
double sse_lbeta(const sse_consts *c, double m);
double sse_leta(const sse_consts *c, double m);
double sse_lhook(const sse_consts *c, double m, double mhook);
double sse_rtms(const sse_consts *c, double m);
double sse_ralpha(const sse_consts *c, double m);
double sse_rbeta(const sse_consts *c, double m);
double sse_rgamma(const sse_consts *c, double m);
double sse_rhook(const sse_consts *c, double m, double mhook);
/* Giants and He burning (sections 5.2-5.4) */
double sse_lbgb(const sse_consts *c, double m);
double sse_lbagb(const sse_consts *c, double m, double mhef);
double sse_rgb(const sse_consts *c, double m, double lum);
double sse_ragb(const sse_consts *c, double m, double lum, double mhef);
double sse_mctms(double m);
double sse_mchei(const sse_consts *c, double m, double mhef, double mchef);
double sse_mcagb(const sse_consts *c, double m);
double sse_lhei(const sse_consts *c, double m, double mhef);
double sse_lhe(const sse_consts *c, double m);
double sse_rmin(const sse_consts *c, double m);
double sse_the(const sse_consts *c, double m, double mc, double mhef);
double sse_tbl(const sse_consts *c, double m, double mhef, double mfgb);
double sse_lzahb(const sse_consts *c, double m, double mc, double mhef);
double sse_rzahb(const sse_consts *c, double m, double mc, double mhef);
/* Core-mass--luminosity relation on the GB, AGB and He GB (section 5.2) */
double sse_mc_of_t(double t, double a, const double *gb, double tinf1, double tinf2, double tx);
double sse_l_of_t(double t, double a, const double *gb, double tinf1, double tinf2, double tx);
double sse_mc_of_l(double lum, const double *gb, double lx);
double sse_l_of_mc(double mc, const double *gb);
double sse_t_of_mc(double mc, double a, const double *gb, double tinf1, double tinf2);
/* Naked helium stars (section 6.1) */
double sse_lzhe(double m);
double sse_rzhe(double m);
double sse_thems(double m);
double sse_rhehg(double m, double lum, double rx, double lx);
double sse_rhegb(double lum);
/* Small-envelope perturbations (section 6.3) */
double sse_lpert(double m, double mu);
double sse_rpert(double m, double mu, double r, double rc);
double sse_vrot(double m);

/* White-dwarf radius and luminosity (section 6.2.1, NBODY6's wdflag = 1) */
double sse_wd_radius(double m);
double sse_degenerate_core_radius(double mc);
#define SSE_MXNS 2.5       /* largest NS mass (nsflag >= 1: mxns1) */
double sse_wd_lum(const sse_consts *c, int kw, double m, double age);
/* The remnant of a core of mass mc in a star of mass mt (section 6.2.3 with
 * NBODY6's nsflag = 2, mxns = 2.5): sets *kw (13/14) and returns its mass. */
double sse_ns_bh_mass(double mc, double mt, int *kw);

/* Convective envelope mass, radius and k^2 (NBODY6's mrenv; Hurley et al.
 * 2002 section 2.3). */
void sse_mrenv(int kw, double mass, double mt, double mc, double lum, double rad,
               double rc, double aj, double tm, double ltms, double lbgb, double lhei,
               double rzams, double rtms, double rg, double *menv, double *renv, double *k2);

#endif
