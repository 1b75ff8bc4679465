/* newpoly.h — new force polynomials for a given set of bodies (NBODY6's
 * FPOLY1 + FPOLY2 + STEPS for bodies that start again), and how a caller
 * tells the force libraries that bodies changed.  The one place that
 * makes polynomials outside the block step's correctors: the start-up
 * (every body), the regularisation events (KS formation and termination,
 * chain start and end, merge and split, one-component entries ended), and
 * any later module that changes a body's mass, position or velocity.
 *
 * newpoly_bodies(s, nb, idx, t, flags, err, errlen)
 *
 * Bodies: idx[0..nb) are distinct slots of the integrated range
 * [s->ifirst, s->ntot) (singles and KS c.m. bodies; never a KS component
 * or a chain ghost), in any order.
 *
 * What the caller must have done first:
 *   - written each body's m, x0, v0 at time t (t = s->time: the block time
 *     or the start), its neighbour radius rs and a regular step dtr: the
 *     two define its neighbour set (gpunb.h's contract, h2 = rs^2/mmean),
 *     so the split of every sum into irregular and regular parts;
 *   - kept a c.m. body's mass and state equal to its pair's (reg/ does this
 *     for its own events);
 *   - told the libraries about every OTHER body whose slot, polynomial,
 *     mass or list changed (newpoly_send, below): the forces of these
 *     bodies are summed over the libraries' j-bodies predicted to t, and a
 *     body the libraries hold stale gives a stale force.  The bodies idx
 *     themselves are sent by newpoly_bodies.
 *   - s->mmean, s->mtot current (h2 uses mmean).
 *
 * What it writes, for each body of idx:
 *   t0 = t0r = tpred = t, x = x0, v = v0 (x0, v0, m unchanged);
 *   nnb and the list (radius rs, grown by 1.5 while a list has fewer than
 *   two members, shrunk by 0.9 while one overflows NBMAX: rs may change);
 *   fi, fid (irregular part, with regularisation's corrections), fr, frd
 *   (regular part, with the tidal field's force), a = fi + fr, j = fid + frd;
 *   d2, d3, d2r, d3r (fpoly, every other body from its polynomial at t);
 *   dt and dtr (steps_first: Aarseth's criterion, capped where the block
 *   step's convergence tests begin, commensurate with t);
 *   both libraries get the new polynomial and list (newpoly_send).
 * With regularisation on (s->newpoly_reg, installed by reg/ at ks_open):
 *   a one-component list entry held by one of the bodies ends (its new list
 *   names every c.m. whole); a c.m. among them gets its perturbers, its
 *   pair's mode (perturbed or not, with the change of model booked), its
 *   pair's orbit polynomial; the chain's perturbers are renewed when its
 *   c.m. is among them; perturbed pairs are resolved at t.
 * Not written: other bodies' polynomials (a neighbour of a body whose mass
 * changed keeps the force it had: renew it too, or correct it, as the
 * caller decides), and the schedule: the caller refiles the bodies' new
 * t0 + dt (schedule_refresh after events, a rebuild at the start).
 * Returns 0, or -1 with err (out of memory, a coincident pair in the
 * irregular force).
 *
 * flags: NEWPOLY_START for the run's first polynomials (idx = the whole
 * range): the tidal field's terms that the pairwise sums cannot see while
 * every body's acceleration is still zero in the predictor (Coriolis jerk,
 * the field's part of d2, d3, d2r, d3r) are added, and the primordial pairs
 * take their perturbers as at the start.  Bodies renewed later (flags 0)
 * get no such terms, as before: NBODY6's fpoly2.f adds them at KS events
 * too (a known difference, kept here so that results do not change).
 *
 * Telling the libraries that bodies changed: newpoly_send(s, nb, idx) sends
 * each body's t0, x0, v0, a, j and m to GPUNB and GPUIRR, its list to
 * GPUIRR and to GPUNB's resident lists (when kept), and GPUNB's j-range
 * [ifirst, ntot).  After changing m, x0 or v0 of a body, either give it new
 * polynomials (newpoly_bodies, which sends it) or, keeping its polynomials,
 * send it; never in the middle of a block step (between regular_force_begin
 * and _end GPUNB refuses every call). */
#ifndef NBODY6C_NEWPOLY_H
#define NBODY6C_NEWPOLY_H

#include "core/sim.h"

enum { NEWPOLY_START = 1 };

int newpoly_bodies(sim *s, int nb, const int *idx, double t, unsigned flags, char *err, size_t errlen);

/* The n slots idx to both force libraries: polynomial, mass and list (see
 * above); every body of [ifirst, ntot) with idx NULL. */
void newpoly_send(sim *s, int n, const int *idx);
/* Every body's polynomial and mass to both libraries, the lists as they
 * are: after a change that corrected every body's polynomial in place (a
 * star's new mass, reg/ks_star.c). */
void newpoly_send_polynomials(sim *s);

/* Regularisation's part of newpoly_bodies, installed in s->newpoly_reg by
 * the layer that owns it (reg/), so that a caller of newpoly_bodies from
 * any layer gets it without knowing it.  Each is called once per call, in
 * this order, for the bodies idx; flags as given. */
typedef struct newpoly_reg {
    /* after t0, x, v, a, j were reset and the bodies sent: its own state
     * of those bodies dropped, its other changed bodies sent */
    void (*begin)(sim *s, int nb, const int *idx, double t, unsigned flags);
    /* after the new lists, before the irregular force: what the force's
     * corrections read (perturbers, modes, resolved pairs) */
    void (*lists_made)(sim *s, int nb, const int *idx, double t, unsigned flags);
    /* its corrections added to the irregular force and jerk (lists: the
     * bodies' new lists) */
    void (*irr_correct)(const sim *s, int nb, const int *idx, const int *const *lists,
                        const int *nnb, vec3 *fi, vec3 *fid);
    /* after the first steps, before the bodies are sent again */
    void (*end)(sim *s, int nb, const int *idx, double t, unsigned flags);
} newpoly_reg;

#endif
