/* ks_integrate.h — the relative motion of one KS pair in fictitious time:
 * NBODY6's Hermite scheme with Stumpff functions (docs/ALGORITHMS.md §10.3–§10.7,
 * §10.12, §10.13), independent of the rest of the code.  The perturbation
 * comes from a callback, so the tests drive the same code with an external
 * field and the run with its perturber list.
 *
 *     u'' = h u / 2 + R L^T(u) P / 2,   h' = 2 u'.L^T(u) P,   t' = R
 *
 * with P the relative perturbing acceleration a_pert(comp 1) - a_pert(comp 2)
 * and q = x1 - x2.  An unperturbed bound orbit ("frozen") keeps u, u', h and
 * advances its time by whole Kepler periods; positions inside a period come
 * from the exact Stumpff series (§10.12). */
#ifndef NBODY6C_KS_INTEGRATE_H
#define NBODY6C_KS_INTEGRATE_H

/* P and dP/dt at physical time t for the relative state q, qdot. */
typedef void (*ks_pert_fn)(void *ctx, double t, const double q[3], const double qdot[3],
                           double p[3], double pdot[3]);

typedef struct ks_pert {
    ks_pert_fn fn;   /* NULL: no perturbation */
    void *ctx;
} ks_pert;

typedef struct ks_ctl {
    double etau, eclose;
    double dtmax;    /* cap on the physical step for bound orbits (the c.m. step); <= 0: none */
} ks_ctl;

typedef struct ks_orbit {
    double m;                  /* M = m1 + m2 */
    double t0;                 /* physical time of the state below */
    double u[4], up[4];        /* u, u' at t0 */
    double h;                  /* integrated energy per unit reduced mass */
    double r;                  /* R = u.u */
    double fu[4], fud[4];      /* u''/2, u'''/6 at t0 */
    double fu2[4], fu3[4];     /* u^(4), u^(5) (from the last interval) */
    double fp0[4], fd0[4];     /* G and G' at t0 (§10.3) */
    double hd[4];              /* h', h'', h''', h'''' */
    double p[3], pdot[3];      /* the last perturbation evaluated */
    double gamma;              /* |P| R^2 / M */
    double dtau;               /* next step in tau */
    double step;               /* its physical length */
    double r0;                 /* termination radius (§10.10) */
    double tk;                 /* Kepler period while frozen */
    int frozen;                /* unperturbed: whole periods, u, u', h fixed */
    int first;                 /* the next step is the first after (re)start */
} ks_orbit;

/* Initialises from the relative state at time t and builds the polynomials
 * (kspoly.f) with the perturbation at t; sets dtau and step. */
void ks_orbit_init(ks_orbit *o, double m, const double q[3], const double qdot[3], double t,
                   const ks_pert *pf, const ks_ctl *c);

/* Rebuilds the polynomials at the current state (after the perturbers
 * changed, or to leave the frozen mode). */
void ks_orbit_poly(ks_orbit *o, const ks_pert *pf, const ks_ctl *c);

/* One step of dtau (o->dtau, physical length o->step) with the corrector;
 * then the new dtau and step.  Returns the new time. */
double ks_orbit_step(ks_orbit *o, const ks_pert *pf, const ks_ctl *c);

/* Steps exactly to time t (t0 < t <= t0 + step): the last step before a
 * termination (Newton iteration on dtau, as ksterm.f). */
void ks_orbit_step_to(ks_orbit *o, double t, const ks_pert *pf, const ks_ctl *c);

/* The relative state at time t >= t0 (t - t0 <= step unless frozen) from the
 * Stumpff series, without changing the orbit. */
void ks_orbit_predict(const ks_orbit *o, double t, double q[3], double qdot[3]);
/* The same, returning the integrated energy h at t from its series in tau
 * (the derivatives of the last step): the EBIN an energy check between two
 * KS steps must add. */
double ks_orbit_predict_h(const ks_orbit *o, double t, double q[3], double qdot[3]);

/* The physical time of tau = dtau after t0 from the series (relative to t0),
 * and its derivative dt/dtau. */
double ks_orbit_tseries(const ks_orbit *o, double dtau, double *dtdtau);

/* Frozen mode: u, u', h held, polynomials of the pure Kepler orbit, steps of
 * k whole periods (k >= 1).  Only for h < 0. */
void ks_orbit_freeze(ks_orbit *o, int k);

/* Scales u, u' so that (2|u'|^2 - M)/R equals the integrated h (ksrect.f). */
void ks_orbit_rectify(ks_orbit *o);

/* Semi-major axis, eccentricity, Kepler period (from the integrated h). */
double ks_orbit_semi(const ks_orbit *o);
double ks_orbit_ecc(const ks_orbit *o);
double ks_orbit_period(const ks_orbit *o);

#endif
