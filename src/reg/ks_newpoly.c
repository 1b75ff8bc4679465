/* ks_newpoly.c — regularisation's part of new force polynomials
 * (core/newpoly.h): installed in s->newpoly_reg by ks_open, so that every
 * caller of newpoly_bodies (the start-up, reg/'s own events, later
 * modules) gets it.  For the bodies renewed: their one-component entries
 * end, a c.m. among them gets its perturbers and its pair's mode (the
 * change of model booked), the chain's perturbers follow its c.m., the
 * irregular force gets the KS and chain corrections, and each new pair's
 * orbit its first polynomial from its c.m.'s step. */
#include <omp.h>
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

static void begin(sim *s, int nb, const int *idx, double t, unsigned flags)
{
    (void)t;
    s->ks->quiet_epoch++; /* bodies move or restart: the intruder scans' bounds are void */
    for (int k = 0; k < nb; k++) ks_partial_drop(s, idx[k]); /* new lists: every c.m. whole */
    ks_send_dirty(s);
    s->ks->poly_w0 = flags & NEWPOLY_START ? -1.0 : omp_get_wtime(); /* the start-up: not an event */
}

/* profile.txt's phases of an event's new polynomials, each up to now */
static void phase_done(ks_state *ks, int phase)
{
    if (ks->poly_w0 < 0.0) return;
    const double w = omp_get_wtime();
    ks->evt[phase] += w - ks->poly_w0;
    ks->poly_w0 = w;
}

/* A c.m. body renewed at an event: its perturbers from its new list, its
 * mode, and the change of model booked (a pair formed now, ks->newcm, was
 * resolved until then). */
static void event_perturbers(sim *s, int nb, const int *idx, double t)
{
    ks_state *ks = s->ks;
    for (int k = 0; k < nb; k++) {
        int i = idx[k];
        if (ks->ch.active && i == ks->ch.icm) {
            ks_chain_select_perturbers(s, t);
            ks_chain_resolve(s, t);
        }
        if (i < s->n) continue;
        int q = i - s->n, was = i == ks->newcm || ks_pair_perturbed(&ks->pair[q]);
        ks_select_perturbers(s, q, t);
        ks_set_mode(s, q);
        ks_book_mode(s, q, was, ks_pair_perturbed(&ks->pair[q]), t);
    }
    for (int q = 0; q < s->npairs; q++) /* what ks_irr_correct reads (ks_advance.c) */
        if (ks_pair_perturbed(&ks->pair[q])) ks_resolve_pair(s, q, t);
}

static void lists_made(sim *s, int nb, const int *idx, double t, unsigned flags)
{
    if (!(flags & NEWPOLY_START)) event_perturbers(s, nb, idx, t);
    else if (s->npairs > 0) ks_primordial_perturbers(s, t);
    phase_done(s->ks, KS_EVT_REGF);
}

static void irr_correct(const sim *s, int nb, const int *idx, const int *const *lists, const int *nnb,
                        vec3 *fi, vec3 *fid)
{
    ks_irr_correct(s, nb, idx, lists, nnb, 0, fi, fid);
    phase_done(s->ks, KS_EVT_IRRF);
}

/* the pairs' first steps know their c.m. step now */
static void end(sim *s, int nb, const int *idx, double t, unsigned flags)
{
    (void)t;
    (void)flags;
    for (int k = 0; k < nb; k++) {
        int i = idx[k];
        if (i < s->n) continue;
        ks_set_mode(s, i - s->n);
        if (s->ks->pair[i - s->n].o.frozen) continue;
        ks_pert_ctx ctx = {s, i - s->n};
        ks_pert pf = {ks_pert_eval, &ctx};
        ks_ctl c = ks_ctl_of(s, i - s->n);
        ks_orbit_poly(&s->ks->pair[i - s->n].o, &pf, &c);
    }
    phase_done(s->ks, KS_EVT_FPOLY);
    ks_send_dirty(s);
}

const newpoly_reg ks_newpoly = {begin, lists_made, irr_correct, end};
