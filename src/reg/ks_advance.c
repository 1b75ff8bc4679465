/* ks_advance.c — every KS pair brought up to the block time (subint.f,
 * ksint.f): perturbed pairs by KS steps, unperturbed ones by whole Kepler
 * periods; the perturber list renewed at apocentre, after a c.m. regular
 * step and at every unperturbed step (a change between the perturbed and
 * unperturbed models books its tidal energy, ks_measure.c); the tests of
 * docs/ALGORITHMS.md §10.11 flag a pair, which ks_block_end ends at the block
 * time. */
#include <math.h>
#include <stdio.h>
#include "reg/ks.h"
#include "reg/ks_state.h"

static double udotup(const ks_orbit *o)
{
    return o->u[0] * o->up[0] + o->u[1] * o->up[1] + o->u[2] * o->up[2] + o->u[3] * o->up[3];
}

/* §10.11 without chain regularisation: a hard pair in a strong interaction
 * stays regularised (NBODY6 would try a chain). */
static int wants_termination(sim *s, int k)
{
    ks_pair *kp = &s->ks->pair[k];
    ks_orbit *o = &kp->o;
    int icm = s->n + k;
    double R = o->r, g = o->gamma, rmin = s->p.rmin, a = ks_orbit_semi(o);
    double td = udotup(o); /* > 0: receding */
    if (R > o->r0 && R > 2.0 * rmin) {
        /* NBODY6 ends a pair beyond 0.008 RS with gamma > 1e-3, since its
         * perturbers come from the c.m. neighbour sphere.  A hard binary
         * whose whole orbit is small next to that sphere (apocentre below
         * 0.05 RS, ksinit.f's condition for a hard pair; scaled by the
         * pair's mass, ks_mass_scale, for a heavy pair) has a complete
         * perturber list: it stays regularised through such moderate
         * perturbations (the gamma > 0.05 tests below end it in a strong
         * encounter); ending it would hand its outer half-orbit to the
         * Hermite steps of the field, once per orbit. */
        double m1 = s->m[2 * k], m2 = s->m[2 * k + 1];
        int hard = o->h < 0.0 && m1 * m2 * o->h / o->m < s->ks->ebh &&
                   a * (1.0 + ks_orbit_ecc(o)) < 0.05 * ks_mass_scale(s, o->m) * s->rs[icm];
        if (!hard && g > 1e-3 && R > 0.008 * s->rs[icm]) return 1;
        if (!(kp->np < 0.8 * s->nnb[icm] && g < 0.1)) {
            if (o->h < -s->p.eclose) {
                o->r0 = fmin(fmax(2.0 * a, rmin), 5.0 * rmin);
            } else if (kp->np > 2 && s->nnb[icm] > 2) {
                return 1;
            }
        }
    }
    if (o->h > 0.0 && ((R > o->r0 && g > s->p.gmax) || R > 2.0 * rmin || g > 0.5) && td > 0.0)
        return 1;
    if (g > 0.05) {
        /* a chain attempt (ks_chain.c) for a < 3 RMIN, scaled by mass */
        if (a > 3.0 * ks_rmin_of_mass(s, o->m)) return 1;
        if (a < 0.0 && td > 0.0) return 1;
        /* while a chain runs no other can start: ksint.f's termination
         * when the chain attempt fails, outside R = a and receding */
        if (s->ks->chain_on && s->ks->ch.active && a > 0.0 && R > a && td > 0.0) return 1;
    }
    return 0;
}

int ks_advance(sim *s, double t)
{
    if (!s->ks) return 0;
    for (int k = 0; k < s->npairs; k++) {
        ks_pair *kp = &s->ks->pair[k];
        ks_pert_ctx ctx = {s, k};
        ks_pert pf = {ks_pert_eval, &ctx};
        while (kp->o.t0 + kp->o.step <= t) {
            ks_ctl c = ks_ctl_of(s, k);
            s->ks->steps++;
            if (kp->o.frozen) {
                kp->o.t0 += kp->o.step;
                if (s->star_radius) ks_collide_pair(s, k); /* whole periods: pericentres passed */
                ks_select_perturbers(s, k, kp->o.t0);
                if (kp->np > 0) {
                    ks_orbit_poly(&kp->o, &pf, &c);
                    ks_book_mode(s, k, 0, ks_pair_perturbed(kp), kp->o.t0);
                } else {
                    int kk = ks_unperturbed_periods(s, k, kp->o.t0);
                    kp->o.step = (kk < 1 ? 1 : kk) * kp->o.tk;
                }
                continue;
            }
            double td0 = udotup(&kp->o), t0 = kp->o.t0;
            ks_orbit_step(&kp->o, &pf, &c);
            if (!(kp->o.t0 > t0) && isfinite(kp->o.h)) {
                /* a step below the resolution of t: the loop would never end */
                fprintf(stderr, "nbody6c: KS pair of bodies %d, %d at t = %.17g: step %.3e below "
                        "the time resolution (R = %.3e, h = %.4g, gamma = %.3e); stopping\n",
                        s->name[2 * k], s->name[2 * k + 1], t0, kp->o.step, kp->o.r, kp->o.h,
                        kp->o.gamma);
                return -1;
            }
            if (!isfinite(kp->o.h) || !isfinite(kp->o.t0)) {
                kp->terminate = 1;
                break;
            }
            double td1 = udotup(&kp->o);
            if (s->star_radius && td0 < 0.0 && td1 >= 0.0) ks_collide_pair(s, k);
            if ((td0 > 0.0 && td1 <= 0.0) || kp->renew) {
                int was = ks_pair_perturbed(kp);
                ks_select_perturbers(s, k, kp->o.t0);
                ks_set_mode(s, k);
                ks_book_mode(s, k, was, ks_pair_perturbed(kp), kp->o.t0);
            }
            /* a merged hierarchy has its own end: the split tests */
            if (!kp->terminate &&
                (ks_pair_merged(s, k) ? ks_merge_unstable(s, k) : wants_termination(s, k)))
                kp->terminate = 1;
        }
        /* a pair to end at this block time gets there exactly now, so that
         * the forces of this block, an energy check and the components
         * after the termination all see the same state */
        if (kp->terminate && kp->o.t0 < t) {
            ks_ctl c = ks_ctl_of(s, k);
            ks_orbit_step_to(&kp->o, t, &pf, &c);
            s->ks->steps++;
        }
        /* only a perturbed pair's components are read in a block (the
         * irregular-force corrections, ks_correct.c); an unperturbed one is a
         * point to every force, and the energy measure resolves it itself.
         * Resolving every pair at every block (a Kepler solve each) was
         * half the time of a run with 410 primordial binaries */
        if (ks_pair_perturbed(kp)) ks_resolve_pair(s, k, t);
    }
    return 0;
}

void ks_note_regular(sim *s, int i)
{
    if (s->ks && i >= s->n && i < s->ntot) {
        ks_pair *kp = &s->ks->pair[i - s->n];
        kp->renew = kp->merge_check = 1;
        kp->quiet_until = -INFINITY; /* a new list */
    }
    if (s->ks && s->ks->ch.active && i == s->ks->ch.icm) s->ks->ch.renew = 1;
}
