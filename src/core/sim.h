/* sim.h — the state of one run: parameters, bodies, force polynomials,
 * steps, neighbour lists, counters and timers.
 *
 * Body layout (fixed here so that KS regularisation does not have to move
 * everything later; NBODY6's own layout):
 *
 *     slots [0, 2*npairs)          KS components, pairwise (2k, 2k+1) = pair k;
 *                                  not integrated by the block step
 *     slots [2*npairs, n)          single bodies
 *     slots [n, n + npairs)        c.m. body of pair k at slot n + k
 *
 * so the block step integrates the slots [ifirst, ntot) with ifirst =
 * 2*npairs and ntot = n + npairs, and the force libraries see exactly that
 * range as j-bodies.  Only ks_pairs.c forms and ends pairs, swapping
 * bodies into the first slots and relabelling every list; every body keeps
 * its `name` (1..N, NBODY6's NAME; a c.m. is N + the name of its first
 * component), which is what users see in output.  The pairs' orbits and
 * perturbers are in s->ks (ks_state.h).
 *
 * Force polynomials are physical (acceleration, jerk, 2nd and 3rd
 * derivatives), split into irregular (neighbours, at t0) and regular (the
 * rest, at t0r) parts as in docs/ALGORITHMS.md §0; a/j hold the total
 * acceleration and jerk at t0 used by the predictor (NBODY6's 2F, 6FDOT).
 *
 * Which module writes what (docs/ARCHITECTURE.md, "State and who may
 * change it"):
 *   integ/startup.c   rs, dtr at the start, then every polynomial (newpoly)
 *   integ/block.c     one block step: the correctors (hermite.c), steps
 *                     (steps.c) and radii (nbradius.c) of the active bodies
 *   core/newpoly.c    new polynomials of given bodies: every body at the
 *                     start (startup.c), the bodies a KS, chain or merger
 *                     event touches (reg/)
 *   reg/              slots moved at KS, chain and merger events
 *   integ/escape.c    escapers removed, slots compacted
 *   reg/ks_star.c     a star's mass or velocity changed (evol/, KZ(19) = 3):
 *                     every body's polynomial corrected, its neighbours
 *                     renewed, a massless remnant's slot compacted
 *   integ/checks.c    energies and diagnostics at DTADJ/DELTAT, alpha, rsmin
 *   io/checkpoint.c   everything, at a restart
 */
#ifndef NBODY6C_SIM_H
#define NBODY6C_SIM_H

#include <stdint.h>
#include "gpunb/gpunb.h"
#include "gpuirr/gpuirr.h"
#include "core/ledger.h"
#include "core/tide.h"

typedef double vec3[3];

typedef struct params {
    double etai, etar, rs0, dtadj, deltat, tcrit, qe, smax;
    double dtmin, rmin, etau, eclose, gmin, gmax;
    int nnbmax0;       /* deck value (NBZERO) */
    int kz40;
    int nbmax;         /* hard cap of a list */
    int fixed_radius;  /* keep every neighbour radius as set (tests: all bodies neighbours) */
    /* ---- KS (ks.h) ---- */
    int ks_off;        /* 1: no KS regularisation (benchmarks, comparisons); default 0 */
} params;

typedef struct timers {
    double regular, irregular, total, startup;
    /* where a block step's time goes (block.c), for tuning */
    double p_predict, p_firr, p_corr, p_regf, p_firr_new, p_corr_reg, p_send, p_sched, p_ks;
} timers;

/* This process's set-up (app/run.c, integ/startup.c: the start-up's lists
 * with the regular force, irregular force, second and third derivatives)
 * and its measurements (integ/checks.c: every checks_measure, the
 * potential sums in it).  Not in checkpoints: a restart's process starts
 * them from zero. */
typedef struct process_timers {
    double state, libraries, lists, irregular, derivatives, first_check;
    /* inside the start-up's parts: its sends to the libraries, its lists'
     * overflow retries, the derivatives' sums (gpunb_fpoly) */
    double sends, retries, sums;
    double retry_all;   /* every overflow retry's time (forces.c), start-up or block step */
    double checks, checks_pot;
    double stars;   /* KZ(19) = 3: stellar evolution's updates and collisions between blocks */
    long long nchecks;
} process_timers;

typedef struct counters {
    int64_t steps_irr, steps_reg, blocks;
    int64_t nb_overflow_retries;
    int64_t blocks_regular, schedule_fills; /* schedule_fills: rebuilds of the schedule (full, or refreshed after a KS event) */
} counters;

typedef struct sim {
    params p;
    int n;        /* N now: the start's, less the escapers removed (escape.c) */
    int nzero;    /* N at the start (NZERO): the mass unit and the c.m. names N + name */
    int npairs;   /* KS pairs (0 until KS) */
    int ifirst;   /* 2*npairs */
    int ntot;     /* n + npairs */
    int cap;      /* allocated slots */
    int nbmax;    /* list capacity per body (= p.nbmax) */

    /* bodies */
    int *name;
    double *m;
    vec3 *x0, *v0;          /* corrected at t0 */
    vec3 *x, *v;            /* predicted at tpred */
    double *tpred;
    int block_forces;       /* block.c: the block's forces are being evaluated at the predicted
                             * state (x, v at tpred), its members already corrected in x0 */
    int irr_gpu_min;        /* forces.c: blocks of at least this many bodies take the irregular
                             * force on the GPU (gpunb_irrf); 0 = not decided yet */
    vec3 *a, *j;            /* total acceleration, jerk at t0 (predictor) */
    vec3 *fi, *fid, *d2, *d3;      /* irregular part at t0 */
    vec3 *fr, *frd, *d2r, *d3r;    /* regular part at t0r */
    double *t0, *t0r, *dt, *dtr;
    double *rs;             /* neighbour radius */
    int *nnb;               /* list sizes */
    int *list;              /* list of slot i at list + i*nbmax, ascending */

    /* global state */
    double time;
    double mtot, mmean;
    double nnbmax, znbmin, znbmax;  /* neighbour-number bounds (KZ(40)=3 varies them) */
    double alpha;           /* eq. 1 density factor */
    double rscale;          /* virial radius 1/2 M^2 / |W| */
    double tcr;             /* crossing time */
    double rsmin;           /* smallest radius since last output */
    double xd[3];           /* density centre */
    double rc, rc2;         /* core radius */
    double vc;              /* core rms velocity */
    int nc;                 /* bodies inside rc */
    double smin;            /* 2*DTMIN */

    gpunb *nb;
    gpuirr *irr;

    counters cnt;
    timers tm;
    process_timers ptm;

    /* scratch for the block step (owned by block.c) */
    struct block_scratch *bs;

    /* ---- KS (ks.h, ks_state.h; owned by the ks_*.c modules) ---- */
    struct ks_state *ks;    /* the pairs, their orbits and perturbers, counters */
    /* regularisation's part of new polynomials (core/newpoly.h), installed
     * by ks_open; NULL without KS */
    const struct newpoly_reg *newpoly_reg;
    /* ---- stellar evolution (evol/evol.h; KZ(19) = 3), NULL without ---- */
    struct evol_state *evol;
    /* each star's radius by name (index name - 1), N-body length units:
     * set by evol/ (it owns the array), read by reg/'s collision checks;
     * NULL without stellar evolution (stars are points, nothing collides) */
    const double *star_radius;
    double rhod;            /* core density in units of M/RSCALE^3 (checks.c; KZ(16)) */

    /* the external tidal field (tide.h; KZ(14)), constant in N-body units */
    tide tide;
    /* forces.c's Coriolis cache: the velocity and acceleration of body i at
     * tcor[i], to fourth order, so that both irregular forces of a regular
     * step see the same Coriolis term (NaN: none).  Only with a tidal field
     * (sim_coriolis_cache; NULL without): derived state, never in a
     * checkpoint, refilled at the next block's forces */
    vec3 *vcor, *acor;
    double *tcor;
    /* escapers removed (KZ(23); escape.c): how many bodies (singles and KS
     * components; a pair counts 2), their mass, and the energy they carried
     * away, booked so that the energy check is unaffected (NBODY6's ESESC +
     * EBESC in BE(3)) */
    int n_escaped;
    double m_escaped, e_escaped;

    /* where the energy goes (ledger.h): events recorded by the modules that
     * make them, intervals closed by run.c at every energy check */
    ledger led;

    /* events a user reads about (mergers and splits of hierarchies):
     * sim_event hands each line to the sink the run set (log.txt; echo: on
     * stderr too), or without one prints the echoed lines on stderr.  Not in
     * checkpoints: whoever makes or reloads a sim sets it. */
    void (*event_sink)(void *ctx, const char *line, int echo);
    void *event_ctx;
} sim;

/* One event line (no newline) for the sink, or stderr when echo and no
 * sink is set. */
void sim_event(const sim *s, int echo, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Allocates a run for n bodies (masses, positions, velocities copied) with
 * the parameters p (p->nbmax: the list capacity) and the tidal field td
 * (NULL: none); io/setup.c makes both from a deck.  Returns NULL with err
 * on failure. */
sim *sim_create(const params *p, const tide *td, int n, const double *m, const double (*x)[3],
                const double (*v)[3], char *err, size_t errlen);
void sim_free(sim *s);
/* Allocates the Coriolis cache when the tidal field is on and it is not
 * there yet (sim_create; a checkpoint whose XTRN section sets the field).
 * Returns 0 or -1 (out of memory). */
int sim_coriolis_cache(sim *s);

static inline int *sim_list(const sim *s, int i) { return s->list + (size_t)i * s->nbmax; }

/* Scans over every list (KS events) go from row to row nbmax ints apart,
 * of which a hundred or so are used: the hardware prefetcher stops at each
 * jump, so a scan asks for the rows SIM_LIST_AHEAD ahead itself (a scan of
 * 131k lists 17 -> 8 ms in a micro-benchmark on the development machine). */
enum { SIM_LIST_AHEAD = 8 };
static inline void sim_list_prefetch(const sim *s, int i)
{
    if (i >= s->ntot) return;
    const char *p = (const char *)sim_list(s, i);
    const int bytes = s->nnb[i] * (int)sizeof(int);
    for (int b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

/* Body i predicted to time t to high order (docs/ALGORITHMS.md §8: the regular
 * part carried by its own Taylor series; energy checks, KS, chain and
 * merger events, snapshots); every body of the integrated range to
 * s->time. */
void sim_predict_one(const sim *s, int i, double t, double x[3], double v[3]);
void sim_predict_all(const sim *s, vec3 *x, vec3 *v);

#endif
