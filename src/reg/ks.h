/* ks.h — KS regularisation of close encounters and hard binaries
 * (docs/ALGORITHMS.md §10): what the rest of the program calls.
 *
 * The block step calls ks_advance at the start of each block (the pairs are
 * integrated up to the block time before the field bodies, as subint.f),
 * ks_irr_correct after each irregular force (the differential corrections of
 * §10.9), and ks_block_end at the end (terminations, then new pairs).  The
 * energy check takes the potential energy as the forces see the pairs
 * (ks_measure_potential) and adds EBIN and the booked tidal energy.
 * Layout and bookkeeping: ks_state.h and ks_pairs.c. */
#ifndef NBODY6C_KS_H
#define NBODY6C_KS_H

#include <stdio.h>
#include "core/bytes.h"
#include "reg/chain.h"
#include "core/sim.h"

/* What KS does in this run (io/setup.c makes them from the deck). */
typedef struct ks_options {
    int kz16;       /* KZ(16): RMIN and DTMIN follow the core density */
    int chain;      /* chain regularisation of compact subsystems (KZ(15) >= 1, KZ(30) != 0) */
    int merge;      /* stable hierarchies merged (KZ(15) >= 1) */
    int merge_log;  /* merger events on stderr (KZ(18) >= 1) */
    int nprim;      /* primordial pairs (2k, 2k+1), k < nprim, made KS pairs at the start */
} ks_options;

/* Allocates the KS state of s (s->ks); o NULL: every option off.  Returns
 * 0 or -1 (err). */
int ks_open(sim *s, const ks_options *o, char *err, size_t errlen);
void ks_close(sim *s);

/* Integrates every pair up to time t (KS steps ending at or before t) and
 * resolves them at t for the force corrections.  Returns 0, or -1 when a
 * pair's step fell below the resolution of t (message on stderr). */
int ks_advance(sim *s, double t);

/* Brings the chain (if any) to time t when this block needs its members:
 * its c.m. is active, or an active body lists it or may list it after a
 * regular step (act[0..nact)); nact < 0: always (checks, snapshots, exact
 * audits).  NBODY6 advances its chain in chunks the same way (subint.f).
 * Returns 0, or -1 when the chain integration failed (message on stderr). */
int ks_chain_sync(sim *s, double t, const int *act, int nact);

/* The name of the physical body at slot i < N (a chain's c.m. slot holds
 * its first member). */
int ks_body_name(const sim *s, int i);

/* Do the irregular forces need the corrections of ks_irr_correct? */
int ks_needs_correction(const sim *s);

/* Adds to the irregular force and jerk of the ni bodies ilist[k] (predicted
 * at the block time) the corrections of §10.9, using for body k the list
 * lists[k] of nnb[k] entries. */
void ks_irr_correct(const sim *s, int ni, const int *ilist, const int *const *lists,
                    const int *nnb, int current_lists, double (*a)[3], double (*j)[3]);

/* A body may list one component of a pair formed since its last regular
 * step (ks_partial.c): current_lists above says whether lists[] are the
 * bodies' current lists, to which that applies (1), or new ones (0).  At
 * its regular step, ks_partial_shift adds to the list-change force of eq. 12
 * (forces.h, list_change_force, which takes listed c.m. bodies as points)
 * what the one-component entries change, and ks_partial_drop then ends them
 * (the new list holds every c.m. whole). */
void ks_partial_shift(const sim *s, int i, double t, double df[3], double dj[3]);
void ks_partial_drop(sim *s, int holder);

/* A c.m. body (slot i) took a regular step: its perturbers get renewed. */
void ks_note_regular(sim *s, int i);

/* Terminations flagged during this block, then new pairs among the block's
 * members (act[0..nact)) whose step fell below DTMIN.  Returns the number of
 * changes (the caller reschedules when > 0), or -1 with err. */
int ks_block_end(sim *s, const int *act, int nact, double t, char *err, size_t errlen);

/* Forms pair (i, j) (two singles) at time t / ends pair k at time t.  Used by
 * ks_block_end; exposed for tests. */
int ks_form(sim *s, int i, int j, double t, char *err, size_t errlen);
int ks_terminate(sim *s, int k, double t, char *err, size_t errlen);

/* Every physical body at s->time: singles at their slots' predicted x, v
 * (from the arrays x, v of sim_predict_all), KS components resolved
 * (snapshots).  m, xo, vo have s->n entries.  Returns EBIN = sum m1 m2 h/M
 * (h predicted to s->time) and, in *mutual, sum m1 m2/R. */
double ks_physical_state(sim *s, const double (*x)[3], const double (*v)[3], double *m,
                         double (*xo)[3], double (*vo)[3], double *mutual);

/* The potential energy at s->time as the forces model the pairs (x: the
 * slots predicted by sim_predict_all): perturbed pairs as their two
 * components without their mutual term, unperturbed pairs as c.m. points.
 * *ebin gets EBIN = sum m1 m2 h(t)/M.  The total energy is the kinetic
 * energy of singles and c.m. bodies + this + EBIN + ks_energy_booked. */
double ks_measure_potential(sim *s, const double (*x)[3], double *ebin);

/* The tidal energy booked at the pairs' changes between the perturbed
 * (resolved) and unperturbed (point) models so far (0 without KS). */
double ks_energy_booked(const sim *s);

/* The internal energy of the inner pairs of merged hierarchies (ks_merge.c),
 * booked while they are carried frozen; part of the total energy (NBODY6's
 * EMERGE). */
double ks_energy_merged(const sim *s);

/* Sum over the pairs of mu (h_state - h_int) at time t: the KS steps'
 * inconsistency between the orbit and the integrated energy, which a
 * termination turns into a jump of the measured energy (ledger.h). */
double ks_pending_inconsistency(const sim *s, double t);

/* The total energy at s->time as the energy check computes it, without the
 * check's side effects. */
double ks_total_energy(sim *s);

/* Hard binaries (E_b < EBH) and their binding energy (negative). */
int ks_hard_binaries(const sim *s, double *ebin_hard);

/* Every bound pair of stars at s->time (ks_binaries.c): KS pairs of two
 * stars, merged hierarchies' inner pairs, pairs of chain members and pairs
 * of single bodies that are each other's nearest listed neighbour; N-body
 * units.  *out is malloc'ed (the caller frees it); returns the number of
 * pairs, or -1 out of memory.  ks_hard_energy: the binding energy below
 * which a pair is hard (-<m>/2 ECLOSE, n_hard's threshold). */
enum { KS_BIN_KS, KS_BIN_FIELD, KS_BIN_MERGED, KS_BIN_CHAIN };
typedef struct ks_binary {
    int name1, name2;
    double m1, m2;
    double a, e, eb;      /* semi-major axis, eccentricity, -m1 m2/(2a) */
    double r;             /* separation now */
    double xcm[3];        /* c.m. position */
    int kind;             /* KS_BIN_* */
} ks_binary;
int ks_binaries(sim *s, ks_binary **out);
double ks_hard_energy(const sim *s);

/* What the log and summary.json report about KS. */
typedef struct ks_summary {
    long long formed, terminated, steps;
    int pairs, hard;        /* pairs now; hard binaries (E_b < EBH) among them */
    double ebin_hard;       /* their binding energy (negative; 0 if none) */
    long long chains_started, chains_ended, chain_steps; /* chain regularisation */
    int chain_members;      /* members of the chain now (0: none) */
    double chain_energy;    /* its internal energy now (-B) */
    long long merged, splits; /* stable hierarchies merged and split so far */
    int mergers;            /* merged now */
    double emerge;          /* their inner pairs' energy (ks_energy_merged) */
    long long partial_made;    /* one-component list entries made at formations */
    long long partial_flushed; /* holders restarted when such entries were flushed */
} ks_summary;
void ks_summarise(const sim *s, ks_summary *out);

/* profile.txt's KS part: the events' wall time by phase (ks_state.h). */
void ks_profile_print(const sim *s, FILE *f);

/* Primordial binaries at the start (ks_primordial.c; start.f): the deck's
 * candidate pairs (2k, 2k+1) closer than RMIN become KS pairs before the
 * start-up polynomials (returns the number, or -1 with err); their
 * perturbers, modes and orbits' polynomials come with the start-up's
 * newpoly_bodies (NEWPOLY_START; ks_newpoly.c). */
int ks_primordial_layout(sim *s, double t, char *err, size_t errlen);

/* KZ(16): RMIN, DTMIN (and SMIN) from the core density (§9), at every energy
 * check after checks_measure. */
void ks_auto_params(sim *s);

/* Escaper removal's calls (ks_escape.c; integ/escape.c).
 * ks_system_of: what the body at slot i is (KS_SYS_*) and its stars' names
 *   and masses (at most max; returns how many were listed).
 * ks_dissolve: the system whose body is named `name` comes apart into its
 *   single stars at s->time by the ordinary events (a chain ends, a merged
 *   hierarchy splits, pairs end: their jumps in the ledger).
 * ks_slot_of_star: the slot of a physical body by name (-1: none).
 * ks_listed: whether body i is on the list of body j.
 * ks_remove_single: the single at slot i leaves: moved past the c.m. bodies
 *   (each c.m. moves down one, as N does), dropped from every list.
 * ks_remove_singles: the singles at the nrem distinct slots leave at once,
 *   as ks_remove_single one after the other (the same slots and lists
 *   after, the masses taken off mtot in the order given), with one pass
 *   over the slots and the lists instead of one each.
 * ks_clear_dirty: the events' marks of bodies to re-send forgotten (the
 *   caller sends every body).
 * ks_partial_flush (ks_partial.c): ends every one-component list entry,
 *   its holder restarting at t with new lists and polynomials (before
 *   events other than plain formations and terminations). */
enum { KS_SYS_SINGLE, KS_SYS_PAIR, KS_SYS_MERGED, KS_SYS_CHAIN };
#define KS_SYS_MAX CHAIN_NMAX /* a chain's members; a merged triple has 3, a quadruple 4 */
int ks_system_of(const sim *s, int i, int *kind, int *names, double *m, int max);
int ks_dissolve(sim *s, int kind, int name, const int *stars, int nstar, char *err, size_t errlen);
int ks_slot_of_star(const sim *s, int name);
int ks_listed(const sim *s, int j, int i);
void ks_remove_single(sim *s, int i);
void ks_remove_singles(sim *s, int nrem, const int *slots);
void ks_clear_dirty(sim *s);
int ks_partial_flush(sim *s, double t, char *err, size_t errlen);

/* Stellar evolution's calls (ks_star.c; evol/ decides, books the energy).
 * All act at s->time, which is a block time.
 * ks_star_where: the system (KS_SYS_*) holding the star named `name` and
 *   the slot of its body; -1 when there is none.
 * ks_star_isolate: the star's system comes apart (ks_dissolve) so that the
 *   star is a single; returns its slot, *partner the name of its companion
 *   when it was a plain KS pair (0 otherwise), or -1 with err.
 * ks_star_change: the single at slot i gets mass mnew (> 0) and, when dv
 *   is not NULL and not zero, the velocity kick dv: every other body's
 *   force polynomial is corrected for the change of its pull, the libraries
 *   get the new mass; with near = KS_STAR_ALL (a sudden change: a
 *   supernova, a kick) the body, the bodies of its list and every body that
 *   lists it start again with new polynomials and steps (their irregular
 *   force drops by most of a heavy star's pull); *de: the total energy's
 *   change (kinetic, potential, tidal).
 * ks_star_change_paired: component comp (0: slot 2k, 1: 2k + 1) of plain KS
 *   pair k gets mass mnew (> 0) inside the pair: both components keep their
 *   places and velocities, the c.m. body moves to their new c.m. and starts
 *   again (perturbers, mode), the orbit starts again from the same
 *   relative state; every other body's polynomial is corrected for the
 *   pair's changed pull; *de: the total energy's change.
 * ks_star_remove: the single at slot i leaves (a massless remnant), its
 *   pull taken off the others; *de the energy change; the caller sends
 *   every body again and rebuilds the schedule, as after escapers.
 * ks_star_pair: the two singles named form a KS pair again (after a
 *   component's change); 1 formed, 0 not (no longer two singles), -1 err.
 * ks_star_merge: singles i and j collide: j leaves, i becomes the product
 *   of mass mnew (> 0) at their c.m. position with their c.m. velocity
 *   (momentum conserved; mnew < m_i + m_j: the mass lost leaves with the
 *   c.m. velocity), plus dv when it is not NULL (a new remnant's kick);
 *   the other bodies' polynomials are corrected, those
 *   that listed either start again with the product; *de the total
 *   energy's change.  Returns the product's slot or -1 (err); every body
 *   was sent to the libraries again.
 * ks_star_reshape: singles i and j take masses m[0], m[1] (> 0) and the
 *   states x, v at the current time (a common envelope that leaves two
 *   stars on a new orbit): the other bodies' polynomials are corrected for
 *   both changes, i, j and the bodies that list either start again; *de
 *   the total energy's change.
 * After these the caller rebuilds the schedule (steps and slots moved). */
enum { KS_STAR_KEEP = 0, KS_STAR_ALL = 1 };   /* ks_star_change's near */
int ks_star_where(const sim *s, int name, int *kind, int *sys_slot);
int ks_star_isolate(sim *s, int name, int *partner, char *err, size_t errlen);
int ks_star_change(sim *s, int i, double mnew, const double dv[3], int near, double *de, char *err,
                   size_t errlen);
int ks_star_change_paired(sim *s, int k, int comp, double mnew, double *de, char *err, size_t errlen);
int ks_star_remove(sim *s, int i, double *de, char *err, size_t errlen);
int ks_star_pair(sim *s, int name1, int name2, char *err, size_t errlen);
int ks_star_merge(sim *s, int i, int j, double mnew, const double dv[3], double *de, char *err, size_t errlen);
int ks_star_reshape(sim *s, int i, int j, const double m[2], const double x[2][3], const double v[2][3],
                    double *de, char *err, size_t errlen);

/* Stellar collisions (ks_collide.c), only while s->star_radius is set:
 * two stars touch when their closest approach is below the sum of their
 * radii.  The KS pairs are checked at each pericentre passage, the chain's
 * members after each chain step, the frozen inner pairs of merged
 * hierarchies by ks_collide_mergers (their orbit is fixed, only the radii
 * change: evol/ calls it after the stars' updates).  What is found waits
 * until evol/ takes it after the block (ks_collisions_take removes and
 * returns up to max of them); a checkpoint carries what waits
 * (ks_collisions_pending / ks_collisions_restore). */
enum { KS_COLL_PAIR, KS_COLL_CHAIN, KS_COLL_MERGED };
#define KS_COLL_MAX 16
typedef struct ks_coll {
    int name1, name2;
    double q;            /* their closest approach (N-body length) */
    int where;           /* KS_COLL_*: which check found it */
} ks_coll;
void ks_collide_mergers(sim *s);
int ks_collisions_take(sim *s, ks_coll *out, int max);
int ks_collisions_pending(const sim *s, const ks_coll **out);
void ks_collisions_restore(sim *s, const ks_coll *c, int n);

/* The checkpoint's sections of reg/ (ks_save.c; io/checkpoint.c keeps the
 * container): KSST the pairs, CHST the chain, MGST the merged hierarchies,
 * KSPT the one-component list entries.  ks_save_* writes a section's body
 * and returns nonzero when a reader must understand it; ks_load_* reads one
 * into the state ks_open made and returns 0, -1 (malformed) or -2 (written
 * by a build with another layout). */
int ks_save_pairs(wbuf *w, const sim *s);
int ks_save_chain(wbuf *w, const sim *s);
int ks_save_merge(wbuf *w, const sim *s);
int ks_save_partial(wbuf *w, const sim *s);
int ks_load_pairs(rbuf *r, sim *s);
int ks_load_chain(rbuf *r, sim *s);
int ks_load_merge(rbuf *r, sim *s);
int ks_load_partial(rbuf *r, sim *s);

#endif
