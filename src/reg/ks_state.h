/* ks_state.h — the KS pairs of a run, shared by the ks_*.c modules only.
 *
 * Pair k (0 <= k < s->npairs) lives in the body layout of sim.h: components
 * in slots 2k (component 1) and 2k+1, its c.m. body in slot n + k.  Only
 * ks_pairs.c forms and ends pairs and moves bodies between slots; when it
 * does, every neighbour list and perturber list is relabelled. */
#ifndef NBODY6C_KS_STATE_H
#define NBODY6C_KS_STATE_H

#include <math.h>
#include <stdint.h>
#include "reg/chain.h"
#include "reg/ks.h"
#include "reg/ks_integrate.h"
#include "core/sim.h"

typedef struct ks_pair {
    ks_orbit o;          /* relative motion of component 1 - component 2 */
    int np;              /* perturbers (slots) in plist */
    int *plist;          /* s->nbmax entries */
    int terminate;       /* flagged by the termination tests (§10.11) */
    int renew;           /* perturber list due for renewal (c.m. regular step) */
    int merge_check;     /* test for a stable hierarchy at the block end (ks_merge.c) */
    /* no body of the c.m.'s list can come within 5 RMIN of it before
     * quiet_until, as found by the chain's intruder scan (ks_chain.c) with
     * this RMIN and event count (ks_state.quiet_epoch); a cache meant
     * never to change a result (its bound has a wide margin: the
     * core-collapse run's 797 chains came out the same): not saved, -inf
     * after a load */
    double quiet_until, quiet_rmin;
    uint64_t quiet_epoch;
    /* resolved state at tres (the current block time, for a perturbed pair;
     * an unperturbed pair's is left at its last resolution, unread):
     * c.m. predicted by the integration's predictor, components from the KS
     * prediction */
    double tres;
    double xcm[3], vcm[3], x1[3], v1[3], x2[3], v2[3];
} ks_pair;

/* The one chain of the run (ks_chain.c): members in the AR-chain of
 * chain.h, their c.m. a body of the cluster at slot icm (name 0, mass the
 * sum), the other members parked in their slots as ghosts (mass 0, far
 * away, never due) until the chain ends.  Bodies that have icm on their
 * lists feel the members resolved; the members feel the perturbers' tidal
 * field (NBODY6's chlist.f / fchain.f / chfirr.f roles). */
typedef struct ks_chain {
    int active;
    chain c;                     /* internal motion; c.id = member names */
    int icm;                     /* the c.m. body's slot */
    int slot[CHAIN_NMAX];        /* member -> slot (slot[0] = icm, the rest ghosts) */
    int np;                      /* perturbers (slots) in plist */
    int *plist;                  /* s->nbmax entries */
    int renew;                   /* perturbers due for renewal (c.m. regular step) */
    double gpert;                /* the largest perturber's tidal gamma at the last renewal */
    double tres;                 /* members resolved at this time: */
    double x[CHAIN_NMAX][3], v[CHAIN_NMAX][3];
    int64_t started, ended, steps; /* steps: this chain's */
    int64_t steps_total;         /* the ended chains' steps */
    int64_t absorbed;            /* bodies taken into a running chain */
    double next_start;           /* no new chain before this time (NBODY6's TIME_CH) */
    const char *last_end;        /* why the last chain ended (diagnostics) */
} ks_chain;

/* A stable hierarchy merged into one KS pair (ks_merge.c; NBODY6's merge.f
 * and reset.f): the inner pair's c.m. is a body of the cluster (the slot of
 * its first component, name -name1) and a component of the outer KS pair
 * with the outer body; its second component's slot is a ghost (name -name2).
 * The inner orbit is carried frozen (its relative state at the merge) and
 * its energy mu h is booked in ks_state.emerge until the split.  A merged
 * quadruple is two entries whose c.m. bodies are the outer pair's two
 * components (each one's outer: the other's name1, negated). */
typedef struct ks_merger {
    int name1, name2;   /* inner components */
    int outer;          /* the outer body's name */
    double m1, m2;
    double q[3], qd[3]; /* inner relative state (component 1 - component 2) at the merge */
    double ein;         /* its internal energy m1 m2 / M h (in emerge) */
    double ain, ein_e;  /* its semi-major axis and eccentricity */
    double apo0;        /* the outer apocentre at the merge */
    double t;           /* when merged */
} ks_merger;

/* A single body (holder) that listed exactly one component of a pair formed
 * since its last regular step: its list names the pair's c.m., but its
 * irregular force takes only that component (comp 0: slot 2k, 1: slot 2k+1)
 * and its regular polynomial still holds the other one, as before the
 * formation.  Its next regular step (a new list) ends the entry
 * (ks_partial.c). */
typedef struct ks_partial {
    int holder, cm, comp;
} ks_partial;

/* Phases of a KS event's wall time: ks_form's one-component scan, the
 * relabelling of every list, sending the changed bodies to the libraries,
 * the new bodies' polynomials (newpoly_bodies, timed at ks_newpoly.c's
 * hooks): their regular force and lists, their irregular force, their
 * derivatives (GPUNB's fpoly) and steps. */
enum { KS_EVT_SCAN, KS_EVT_RELABEL, KS_EVT_SEND, KS_EVT_REGF, KS_EVT_IRRF, KS_EVT_FPOLY,
       KS_EVT_PHASES };

typedef struct ks_state {
    uint64_t quiet_epoch; /* events that moved or restarted bodies (ks_pair.quiet_until) */
    ks_pair *pair;       /* capacity n/2 */
    int cap;
    int kz16;            /* automatic RMIN, DTMIN */
    double ebh;          /* hard-binary energy threshold -<m>/2 ECLOSE */
    int64_t formed, terminated, steps;
    int check_jumps;     /* tests: measure the energy before and after every event */
    int check_relabel;   /* tests: a termination also scans every list, counting
                          * rows its filter missed (relabel_missed) */
    int64_t relabel_checked, relabel_missed;
    /* ... and a formation whose marks came from GPUNB's resident lists
     * (gpunb_lists_naming) also scans the host's lists, counting the rows
     * whose mark differs */
    int64_t naming_checked, naming_differ;
    double jump_max;     /* the largest |dE/E| over one event so far */
    double etide;        /* tidal energy booked at changes of model (ks_measure.c) */
    double last_jump;    /* the local energy change of the last ks_form / ks_terminate */
    double last_a, last_ecc, last_gamma; /* that pair's orbit (the ledger's event record) */
    int *map;            /* relabelling scratch, s->cap entries */
    int *tmp;            /* list scratch, 2 s->nbmax entries */
    unsigned char *dirty; /* slots whose polynomial or list the libraries must get again */
    unsigned char *mark;  /* scratch of the whole-list scans at an event, s->cap entries */
    /* ---- chain regularisation (ks_chain.c) ---- */
    int chain_on;        /* KZ(15) >= 1 and KZ(30) != 0 */
    ks_chain ch;
    /* ---- stable hierarchies (ks_merge.c) ---- */
    int merge_on;        /* KZ(15) >= 1 */
    int merge_log;       /* KZ(18) >= 1: each merger and split on stderr */
    ks_merger *mg;       /* capacity cap (an entry holds two stars: n/2 at most) */
    int nmerge;
    double emerge;       /* the merged inner pairs' energy (+ rounding of ended ones) */
    int64_t merged, splits;
    /* ---- one-component list entries after a formation (ks_partial.c) ---- */
    ks_partial *part;    /* sorted by holder after ks_partial_index; cm < 0: dropped */
    int npart, partcap;
    int *pfirst;         /* slot -> its first entry in part, or -1 (s->cap entries) */
    int64_t partial_made, partial_flushed; /* entries made; holders restarted by a flush */
    /* ---- where KS events spend their wall time (profile.txt; ks_pairs.c) ---- */
    double evt[KS_EVT_PHASES];
    double poly_w0;      /* the start of newpoly_bodies' current phase (ks_newpoly.c) */
    int newcm;           /* the c.m. slot of the pair ks_form is making, else -1
                          * (its change of model is booked: ks_newpoly.c) */
    /* ---- primordial binaries (ks_primordial.c) ---- */
    int nprim;           /* candidate pairs (2k, 2k+1) at the start (ic_primordial_pairs) */
    int nprim_started;   /* of those, started as KS pairs (closer than RMIN) */
    /* ---- stars found touching, not merged yet (ks_collide.c) ---- */
    ks_coll coll[KS_COLL_MAX];
    int ncoll;
} ks_state;

/* RMIN for a system of mass M.  RMIN is the close-encounter distance of two
 * mean-mass stars (adjust.f sizes it so, and DTMIN from it); a pair M times
 * heavier has the same dynamical time sqrt(r^3/M) at RMIN (M/2<m>)^(1/3).
 * KS formation (r < RMIN), the chain's size limits of a pair (a < 3 RMIN)
 * and of an escape scale so (DTMIN needs no scaling; R0 and the termination
 * distances do not scale: ks_pairs.c).  Unscaled, a massive pair (30 and 23 times the
 * mean mass, a = 3.2 RMIN, binding 36 % of |E|) met by a third massive star
 * was ended by the gamma > 0.05 test instead of becoming a chain, and the
 * three were left to Hermite steps and short-lived KS pairs, losing 1.5e-4
 * of E in one check (plummer-imf-1024, t = 35.7-36.8).  The intruder's
 * distance limits stay unscaled: scaled, they started chains among a light
 * field's bodies in which a test_ks_chain encounter lost 1.5e-7 of E,
 * against 1.8e-8.  Equal masses: exactly RMIN.  ks_mass_scale is the
 * factor, (M/2<m>)^(1/3) or 1; a pair's compactness next to its neighbour
 * sphere (a hard pair's apocentre below 0.05 RS, ks_advance.c) scales by
 * it too: a light star at RS perturbs a pair M times heavier as one at
 * RS / that factor perturbs a pair of two mean masses. */
static inline double ks_mass_scale(const sim *s, double M)
{
    double q = M / (2.0 * s->mmean);
    return q > 1.0 ? cbrt(q) : 1.0;
}

static inline double ks_rmin_of_mass(const sim *s, double M)
{
    double f = ks_mass_scale(s, M);
    return f > 1.0 ? s->p.rmin * f : s->p.rmin;
}

/* a += sign m (xs - x)/|xs - x|^3 and j its time derivative (v, vs the
 * velocities): one term of the KS and chain force corrections. */
static inline void ks_add_term(double m, const double xs[3], const double vs[3], const double x[3],
                               const double v[3], double sign, double a[3], double j[3])
{
    double r[3] = {xs[0] - x[0], xs[1] - x[1], xs[2] - x[2]};
    double w[3] = {vs[0] - v[0], vs[1] - v[1], vs[2] - v[2]};
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rv = r[0] * w[0] + r[1] * w[1] + r[2] * w[2];
    double mr3 = sign * m / (r2 * sqrt(r2));
    for (int c = 0; c < 3; c++) {
        a[c] += mr3 * r[c];
        j[c] += mr3 * (w[c] - 3.0 * rv / r2 * r[c]);
    }
}

/* Is pair k perturbed (its components resolved in the forces)? */
static inline int ks_pair_perturbed(const ks_pair *p) { return p->np > 0 && !p->o.frozen; }

/* ks_pairs.c: the machinery of events, shared with ks_chain.c */
void ks_swap_slots(sim *s, int a, int b, int *map, int *inv);
void ks_labels_reset(const sim *s, int *map, int *inv);
int ks_relabel_all(sim *s, const int *map, int split, int sa, int sb, int *full);
int ks_relabel_marked(sim *s, const int *map, int split, int sa, int sb, int *full);
/* ks->mark bits of an event's whole-list pass: KS_MARK_ONE holds ks_form's
 * "lists exactly one component" (1: the first, 2: the second) */
enum { KS_MARK_ONE = 3, KS_MARK_RELABEL = 4 };
void ks_send_dirty(sim *s);
/* regularisation's part of newpoly_bodies (ks_newpoly.c), installed by ks_open */
extern const struct newpoly_reg ks_newpoly;
/* the primordial pairs' perturbers, modes and resolved components after
 * the start-up lists (ks_primordial.c) */
void ks_primordial_perturbers(sim *s, double t);
int ks_slot_of_name(const sim *s, int name);
/* Pair k from the bodies in slots 2k, 2k+1 at time t (their x0, v0 at t):
 * its c.m. body (name, mass, x0, v0, an empty list) and its KS orbit with
 * ksinit.f's R0.  Shared by ks_form and the primordial pairs. */
int ks_pair_init(sim *s, int k, double t, char *err, size_t errlen);
/* An event's energy change into the ledger: the whole measure before and
 * after (--energy-audit, tests; e0 is the energy before) or the event's own
 * local value (ks_pairs.c). */
void ks_note_event(sim *s, int kind, double t, int name1, int name2, double local, double e0,
                   double a, double e, double g);

/* Does an unsorted list (a perturber list) name x? */
static inline int ks_list_has(const int *l, int n, int x)
{
    for (int q = 0; q < n; q++)
        if (l[q] == x) return 1;
    return 0;
}

/* A perturbed pair resolved at t and the chain's members resolved at t:
 * what the c.m. corrections of the pair and of the chain read by
 * components (ks_correct.c, ks_chain.c).  One test for both sides, so that
 * each takes the other resolved exactly when the other does. */
static inline int ks_pair_resolved_at(const ks_pair *kp, double t)
{
    return ks_pair_perturbed(kp) && kp->tres == t;
}
static inline int ks_chain_resolved_at(const ks_chain *ch, double t)
{
    return ch->active && ch->tres == t;
}

static inline int ks_sorted_has(const int *l, int n, int x)
{
    /* branch-free: the halving compiles to a conditional move, so a
     * search costs its loads and no mispredicted branches (stellar
     * evolution asks this of every body at each applied change) */
    if (n <= 0) return 0;
    const int *base = l;
    while (n > 1) {
        const int half = n / 2;
        base = base[half] <= x ? base + half : base;
        n -= half;
    }
    return *base == x;
}
/* ks_partial.c: the one-component list entries (ks_partial above). */
int ks_partial_open(sim *s);
void ks_partial_close(ks_state *ks);
/* A new entry (labels as the caller's event has them; -1: out of memory). */
int ks_partial_add(ks_state *ks, int holder, int cm, int comp);
/* Compacts and sorts the entries, rebuilds pfirst. */
void ks_partial_index(const sim *s);
/* The component of c.m. slot cm that holder lists alone, or -1. */
int ks_partial_comp(const sim *s, int holder, int cm);
/* Adds to the force a and jerk j at (x, v) that of component comp of the
 * pair at c.m. slot C minus that of the c.m. point, at time t. */
void ks_partial_correct(const sim *s, int C, int comp, double t, const double x[3],
                        const double v[3], double a[3], double j[3]);
/* ks_relabel_all's two halves: before its lists are rewritten (an ended
 * c.m. split leaves the lists of its entries' holders) and after (they get
 * their one component; the other entries follow map). */
void ks_partial_relabel_pre(sim *s, const int *map, int split);
void ks_partial_relabel_post(sim *s, const int *map, int split, int sa, int sb);
/* ks_partial_flush: reg/ks.h. */
/* A ghost: mass 0, far away, never due (chain members, merged inner pairs). */
void ks_make_ghost(sim *s, int g, double t);

/* ks_collide.c: pair k passed its pericentre (pericentre passage of a
 * perturbed pair's step, or a whole-period step of an unperturbed one):
 * notes its two stars when their radii touch there.  The chain's check
 * runs after each of its steps (ks_collide_chain_stop, a chain_stop_fn
 * whose ctx is the sim; it never stops the chain). */
void ks_collide_pair(sim *s, int k);
int ks_collide_chain_stop(void *ctx, const chain *c);

/* ks_merge.c */
/* Merger index of the inner c.m. at slot i (name < 0), or -1. */
int ks_merger_at(const ks_state *ks, const sim *s, int i);
/* Is pair k a merged hierarchy (a component is an inner c.m.)? */
static inline int ks_pair_merged(const sim *s, int k)
{
    return s->name[2 * k] < 0 || s->name[2 * k + 1] < 0;
}
/* Splits flagged mergers and merges new stable hierarchies at the block
 * end; returns the number of events or -1 with err. */
int ks_merge_block_end(sim *s, double t, char *err, size_t errlen);
/* Ends merged pair k at t (its outer KS pair ended, the inner pair back in
 * KS); 0 or -1 with err. */
int ks_split(sim *s, int k, double t, char *err, size_t errlen);
/* Mardling & Aarseth (2001): the critical outer pericentre over the inner
 * semi-major axis for inner mass min, outer mass m3, outer eccentricity e1
 * and mutual inclination incl (radians); infinite for e1 >= 1. */
double ks_stability_ratio(double min, double m3, double e1, double incl);
/* Should merged pair k be split (checked after its KS steps)? */
int ks_merge_unstable(const sim *s, int k);

/* ks_chain.c */
/* Is slot i the chain's c.m. or one of its ghosts? */
static inline int ks_chain_owns(const ks_state *ks, int i)
{
    if (!ks->ch.active) return 0;
    for (int k = 0; k < ks->ch.c.n; k++)
        if (ks->ch.slot[k] == i) return 1;
    return 0;
}
/* Ends the active chain at t, its members singles (escaper removal). */
int ks_chain_end_escaper(sim *s, double t, char *err, size_t errlen);
/* New perturber list of the chain at time t from its c.m. list. */
void ks_chain_select_perturbers(sim *s, double t);
/* Members resolved at t (c.m. by the integration's predictor). */
void ks_chain_resolve(sim *s, double t);
/* The c.m.'s irregular correction (perturbers on the members minus on the
 * point) and a field body's (members minus the point). */
void ks_chain_cm_correction(const sim *s, double t, double a[3], double j[3]);
void ks_chain_source_correction(const sim *s, const double x[3], const double v[3], double a[3],
                                double j[3]);
/* Advances the chain to t (block start, energy checks); -1 on failure. */
int ks_chain_advance(sim *s, double t);
/* Chain starts and ends at the block end; returns the number of events or
 * -1 with err. */
int ks_chain_block_end(sim *s, double t, char *err, size_t errlen);

/* ks_perturbers.c */
/* Control parameters for pair k (c.m. step as the cap). */
ks_ctl ks_ctl_of(const sim *s, int k);
/* The perturbation callback of pair k. */
typedef struct ks_pert_ctx { const sim *s; int k; } ks_pert_ctx;
/* The masses, positions and velocities at t by which perturber p (its
 * point state xp, vp at t) acts on a system at xref: a KS pair within
 * CMSEP2^(1/2) of its size by its components, the chain within CMSEP2^(1/2)
 * RSUM by its members, anything else as the point.  Returns the count
 * (<= CHAIN_NMAX). */
int ks_perturber_sources(const sim *s, int p, double t, const double xp[3], const double vp[3],
                         const double xref[3], double cmsep2, double *ms, double (*xs)[3],
                         double (*vs)[3]);
void ks_pert_eval(void *ctx, double t, const double q[3], const double qdot[3],
                  double p[3], double pdot[3]);
/* New perturber list of pair k at time t from its c.m. neighbour list (§10.8). */
void ks_select_perturbers(sim *s, int k, double t);
/* Whole periods an unperturbed pair can stay unperturbed (tpert.f estimate). */
int ks_unperturbed_periods(const sim *s, int k, double t);

/* After the perturber list of pair k changed: unperturbed (whole periods)
 * or perturbed (restarted polynomials). */
void ks_set_mode(sim *s, int k);

/* ks_resolve.c */
/* The body at slot i predicted to t with the integration's predictor. */
void ks_predict_slot(const sim *s, int i, double t, double x[3], double v[3]);
/* Body i at t as the block's forces see it: while block.c evaluates them
 * (s->block_forces), a block member's predicted state (s->x; its x0 is
 * corrected already after the irregular corrector), else ks_predict_slot.
 * The regular step's new-list irregular force (eq. 12 takes its difference
 * with the old-list one) must see the same state as the old-list force. */
void ks_block_state(const sim *s, int i, double t, double x[3], double v[3]);
/* The same with NBODY6's high-order predictor (energy check, KS events). */
void ks_predict_slot_high(const sim *s, int i, double t, double x[3], double v[3]);
/* Resolves pair k at time t (c.m. by the integration's predictor). */
void ks_resolve_pair(sim *s, int k, double t);
/* Bodies idx[0..nb) start again at t from their high-order predicted state. */
void ks_restart_state(sim *s, int nb, const int *idx, double t);

/* ks_measure.c */
/* Pair k went from the resolved (perturbed) model to the point one or back
 * at time t: books the tidal energy that the model gained or dropped. */
void ks_book_mode(sim *s, int k, int was_resolved, int now_resolved, double t);
/* The potential energy of bodies m1 at x1 and m2 at x2 with every body of
 * the measure at t other than slots i1, i2, minus that of their c.m. point
 * (the tidal energy a merger drops and a split gains). */
double ks_tidal_two(const sim *s, double t, int i1, int i2, double m1, double m2,
                    const double x1[3], const double x2[3]);

/* Pair k's relative motion brought exactly to t by its own KS steps
 * (ksterm.f), before an event that ends or restarts it. */
void ks_pair_step_to(sim *s, int k, double t);

#endif
