/* chain.h — algorithmic-regularisation chain (AR-chain) for the close
 * interaction of 2..CHAIN_NMAX bodies (docs/ALGORITHMS.md, chain §2.8; Mikkola &
 * Tanikawa 1999, Mikkola & Merritt 2008), G = 1.
 *
 * The module owns one small subsystem's internal motion: its members in
 * chain order, the link vectors X_k = x_{k+1} - x_k and V_k = v_{k+1} - v_k
 * in the subsystem's c.m. frame, the physical time, and the integrated
 * binding energy B (= -E_internal, changed by the work of the external
 * perturbation and by membership changes, nothing else).  The caller owns
 * the c.m. motion, the perturbers and every decision about starting,
 * growing, shrinking or ending the chain; this module only integrates and
 * answers questions about the state.  It depends on nothing else in
 * nbody6c (no sim.h), so it is tested on its own (tests/test_chain.c).
 *
 * Integration: the logH leapfrog D(h/2) K(h) D(h/2) in the fictitious time s
 * (drift dt = ds/(T + B), kick dt = ds/U), which follows a Kepler orbit
 * exactly up to a phase error and regularises close approaches without a
 * change of variables, made accurate to a relative tolerance by Gragg-
 * Bulirsch-Stoer extrapolation over n = 1, 2, 3, ... leapfrog substeps with
 * an adaptive step and order in s.  The last step of chain_advance is
 * iterated in s so that the physical time lands on the requested end time.
 *
 * What a caller does (the block step):
 *   chain_init          from the members' x, v in any frame; gives the c.m.
 *   chain_advance       to each block time, with the perturbation callback;
 *                       the caller moves the c.m. itself (chain->acm is the
 *                       mean external acceleration of the last kick)
 *   chain_get_state     members' c.m.-frame x, v at the chain time
 *   chain_add_member / chain_remove_member   absorption / escape, with the
 *                       internal energy change returned for the caller's books
 *   chain_find_escaper, chain_group_info, chain_dominant_pair,
 *   chain_member_info   diagnostics for the caller's termination and escape
 *                       tests
 *   chain_energy, chain->B, chain_sync_energy   the energy books. */
#ifndef NBODY6C_CHAIN_H
#define NBODY6C_CHAIN_H

#define CHAIN_NMAX 10   /* most members (NBODY6's NMX) */
#define CHAIN_KMAX 12   /* most extrapolation stages (leapfrogs of 1..12 substeps) */

/* External perturbation: the acceleration acc[i] on each member i (caller's
 * member order) at absolute time t, given the members' positions x and
 * velocities v relative to the chain's c.m.  It must depend on x and t
 * only (v is given for the caller's convenience, e.g. to predict; a
 * velocity-dependent force breaks the time symmetry that the extrapolation
 * relies on).  The module removes the mass-weighted mean itself, so only
 * the tidal part drives the internal motion.  It is called at every kick of
 * every attempt (rejected ones too), at times inside the step, and near the
 * end of a call at times up to about 1 % of a chain step beyond t_end
 * (the landing then steps back): the caller's predictions must be valid
 * there.  It may read c->n, c->m, c->id (fixed during a call), nothing else. */
typedef void (*chain_perturb_fn)(void *ctx, double t, int n, const double (*x)[3],
                                 const double (*v)[3], double (*acc)[3]);

struct chain;
/* Called after every accepted step that does not end the call; nonzero
 * makes chain_advance return 1 at that step (e.g. a member escapes). */
typedef int (*chain_stop_fn)(void *ctx, const struct chain *c);

typedef struct chain_params {
    double tol;              /* relative error per step of the extrapolated state (each
                              * link and its velocity against its length, the time
                              * increment, B, the energy balance E + B against |B|);
                              * default 1e-12, kept in [1e-14, 1e-3] */
    int kmax;                /* most extrapolation stages, 4..CHAIN_KMAX (default 10) */
    long long max_steps;     /* step attempts (accepted, rejected, landing) allowed in one
                              * call, default 1e8 (0: no limit) */
    int one_step;            /* 1: return 1 after the first accepted step short of t_end */
    chain_stop_fn stop;      /* optional predicate after every accepted step */
    void *stop_ctx;
} chain_params;

/* The defaults above. */
void chain_params_default(chain_params *p);

/* One chain.  Plain data (no allocation); read the fields, change them only
 * through the functions below. */
typedef struct chain {
    int n;                              /* members */
    double m[CHAIN_NMAX];               /* masses, caller's member order */
    long id[CHAIN_NMAX];                /* caller's names of the members */
    int ord[CHAIN_NMAX];                /* chain position -> member index */
    double X[CHAIN_NMAX - 1][3];        /* links x_{ord[k+1]} - x_{ord[k]} */
    double V[CHAIN_NMAX - 1][3];        /* their velocities */
    double mtot;                        /* total mass */
    double t0;                          /* absolute time of tau = 0 (the last landing) */
    double tau;                         /* time since t0: chain time = t0 + tau */
    double B;                           /* integrated binding energy, -E_internal */
    double hs;                          /* next step in s (magnitude) */
    double rate;                        /* dt/ds over the last accepted step (landing guesses) */
    int kopt;                           /* next target stage of the extrapolation */
    double acm[3];                      /* mass-weighted mean external acceleration, last kick */
    double land_resid;                  /* time mismatch removed at the last landing */
    long long steps, rejects, switches; /* accepted / rejected steps, re-orderings */
    long long landings, land_iters;     /* landings and the extra steps they took */
    long long kicks;                    /* force evaluations (leapfrog kicks) */
    char err[96];                       /* why the last call failed */
} chain;

/* Starts a chain of n (2..CHAIN_NMAX) members with masses m > 0, positions
 * and velocities in any common frame, names id (NULL: 0..n-1), at absolute
 * time t.  The links are differences of the given vectors, so give them
 * relative to a nearby point (e.g. a KS pair's c.m., its components at
 * -+ m_j/M R), not in cluster coordinates: there a pair at separation a
 * would lose eps |x| / a of its relative accuracy.  The members keep this
 * order (member index = array index); B = -(T + W) of the given state.  xcm, vcm (may be NULL) get the c.m.
 * position and velocity in the caller's frame.  Returns 0, or -1 with
 * c->err (bad n, non-positive mass, coincident members). */
int chain_init(chain *c, int n, const double *m, const double (*x)[3], const double (*v)[3],
               const long *id, double t, double xcm[3], double vcm[3]);

/* Integrates to absolute time t_end (either direction), with the external
 * acceleration from perturb(ctx, ...) (NULL: isolated).  On return 0 the
 * chain time is t_end exactly (c->t0 = t_end, c->tau = 0); the state is
 * that of t_end to 8 eps of the call's interval (the mismatch removed is
 * c->land_resid).  Every accepted step short of t_end is followed by the
 * switching test, par->stop and par->one_step.  Returns 1 when par->stop fired or par->one_step asked
 * (chain time t0 + tau short of t_end), -1 on failure with c->err (step
 * underflow, non-finite state, max_steps).  par NULL: defaults. */
int chain_advance(chain *c, double t_end, const chain_params *par, chain_perturb_fn perturb,
                  void *ctx);

/* Absolute chain time. */
double chain_time(const chain *c);

/* Members' positions and velocities relative to the c.m., member order. */
void chain_get_state(const chain *c, double (*x)[3], double (*v)[3]);

/* E = T + W (kinetic plus potential, W < 0) of the current state.  E + B
 * is 0 at chain_init and afterwards the integration error delta (the work
 * of the perturbation is in both).  The logH drift uses B, so the motion
 * is that of forces scaled by 1 + delta/U: delta must stay small, which
 * the error norm sees to (at most about tol |E| per step, systematic in
 * sign, so it can add up over many steps). */
double chain_energy(const chain *c);

/* Sets B = -E of the current state and returns the delta it removes, for a
 * caller that books integration errors itself (membership changes keep
 * delta; this is the only way to clear it). */
double chain_sync_energy(chain *c);

/* Member index of name id, or -1. */
int chain_find(const chain *c, long id);

/* Sum of the link lengths (NBODY6's RSUM): the chain's size. */
double chain_rsum(const chain *c);

/* Adds a body of mass m, name id, at x, v in the caller's frame, given the
 * chain c.m. xcm, vcm in that frame at the chain time (both updated to the
 * new c.m.).  It becomes member n-1.  *de gets E_new - E_old, the change of
 * the internal energy (the new body's kinetic energy relative to the old
 * c.m., reduced mass, plus its potential with the members); B changes by
 * exactly -*de, so E + B (the integration error) is unchanged.  The caller
 * books the rest: its c.m. body now carries the new total mass and
 * momentum, and the body's interaction with the members is internal.
 * Returns 0, or -1 (full, bad mass). */
int chain_add_member(chain *c, double m, const double x[3], const double v[3], long id,
                     double xcm[3], double vcm[3], double *de);

/* Removes member i (the chain must keep >= 2): x, v (may be NULL) get its
 * position and velocity in the caller's frame (xcm, vcm given, may be NULL
 * for the c.m. frame), xcm, vcm are moved to the remaining members' c.m.
 * Members after i move down by one.  *de = E_new - E_old as for adding;
 * B changes by exactly -*de.  A leaving pair is two calls; take its
 * relative vectors from chain_pair first (x, v here carry eps |xcm|).
 * Returns 0 or -1. */
int chain_remove_member(chain *c, int i, double x[3], double v[3], double xcm[3], double vcm[3],
                        double *de);

/* Re-orders the chain if a non-chained pair has come closer than the links
 * next to it (done after every accepted step and membership change; new
 * links are sums of old ones).  Returns 1 if the order changed. */
int chain_reorder(chain *c);

/* ---- diagnostics for the caller's termination and escape tests ---------- */

/* Two-body quantities of members i and j. */
typedef struct chain_pair_info {
    int i, j;          /* member indices */
    double dx[3], dv[3]; /* x_j - x_i, v_j - v_i from link sums (full relative
                          * accuracy: what a KS pair should start from) */
    double r, rdot;    /* separation and its rate */
    double energy;     /* m_i m_j (v^2/2/(m_i + m_j) - 1/r): < 0 bound */
    double a, e;       /* semi-major axis (< 0 unbound) and eccentricity */
} chain_pair_info;
void chain_pair(const chain *c, int i, int j, chain_pair_info *out);

/* The most bound pair (lowest two-body energy; with n = 2 the only pair). */
void chain_dominant_pair(const chain *c, chain_pair_info *out);

/* One member against the rest of the chain. */
typedef struct chain_member_stat {
    int nearest;       /* nearest other member */
    double rnear;      /* its distance */
    double rrest;      /* distance to the c.m. of the other members */
    double rdot;       /* its rate (> 0 receding) */
    double energy;     /* two-body energy with the rest as one point mass */
} chain_member_stat;
void chain_member_info(const chain *c, int i, chain_member_stat *out);

/* An escape candidate: the end member or the end pair cut off by the
 * largest link, against the c.m. of the remaining members. */
typedef struct chain_escape {
    int nesc;          /* members in the candidate: 1 or 2 (0: none, n = 2) */
    int mem[2];        /* their member indices */
    double r, rdot;    /* c.m. distance to the rest and its rate */
    double energy;     /* two-body energy of candidate c.m. and rest c.m. (> 0 unbound) */
    double e_int;      /* internal two-body energy of a candidate pair (< 0), 0 for a single */
    int escaping;      /* r > rmin, rdot > 0 and energy > 0 */
} chain_escape;
/* One member or a pair (ng = 1, 2; mem: member indices) against the c.m.
 * of the others (n > ng): distance, rate, two-body energy, the pair's
 * internal energy; escaping as below (a pair must also be bound).  Returns
 * out->escaping, or -1 for a bad group. */
int chain_group_info(const chain *c, int ng, const int *mem, double rmin, chain_escape *out);

/* Looks at the largest link: each side of it with one member, or two members
 * that are bound to each other, is a candidate (with n >= 3).  Both sides
 * of one link have the same r, rdot and energy, so the smaller group is
 * reported (a single before a pair, then the lighter); rmin is the
 * caller's distance threshold.  Returns out->escaping. */
int chain_find_escaper(const chain *c, double rmin, chain_escape *out);

#endif
