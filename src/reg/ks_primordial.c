/* ks_primordial.c — primordial binaries that start as KS pairs (NBODY6's
 * start.f: of the first NBIN0 pairs (2k-1, 2k), each closer than RMIN is
 * regularised by kspreg.f before the first force polynomials; wider ones
 * start as two singles and meet the usual KS search like any close pair).
 *
 * The pairs are laid out all at once, before any list exists: the selected
 * pairs move to the first slots (a permutation of names, masses, positions
 * and velocities: nothing else is set yet), their c.m. bodies take slots
 * n + k (sim.h's layout), and the start-up then computes the polynomials of
 * the singles and c.m. bodies in one pass (newpoly_bodies, NEWPOLY_START).  A pair costs O(1) here and
 * O(its c.m.'s neighbours) for its perturbers — not ks_form's scan and
 * relabelling of every list, which would be O(N) per binary.
 *
 * No tidal energy is booked (ks_book_mode): there is no earlier model of the
 * system to continue; the initial energy is measured after the start-up with
 * the pairs as they start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

#define SWAP_T(arr, T) do { T t_ = (arr)[a]; (arr)[a] = (arr)[b]; (arr)[b] = t_; } while (0)
#define SWAP_V(arr) do { vec3 t_; memcpy(t_, (arr)[a], sizeof t_); memcpy((arr)[a], (arr)[b], sizeof t_); memcpy((arr)[b], t_, sizeof t_); } while (0)

/* Before the start-up only these are set (sim_create). */
static void swap_fresh(sim *s, int a, int b)
{
    if (a == b) return;
    SWAP_T(s->name, int);
    SWAP_T(s->m, double);
    SWAP_V(s->x0); SWAP_V(s->v0); SWAP_V(s->x); SWAP_V(s->v);
}

/* Pair k from the bodies in slots 2k, 2k+1 at time t, as ks_form sets it
 * up; the c.m.'s predicted state is its state (nothing is predicted yet). */
static int start_pair(sim *s, int k, double t, char *err, size_t errlen)
{
    if (ks_pair_init(s, k, t, err, errlen)) return -1;
    const int C = s->n + k;
    memcpy(s->x[C], s->x0[C], sizeof s->x[C]);
    memcpy(s->v[C], s->v0[C], sizeof s->v[C]);
    return 0;
}

int ks_primordial_layout(sim *s, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || s->p.ks_off || ks->nprim <= 0 || s->npairs > 0) return 0;
    const double rmin2 = s->p.rmin * s->p.rmin;
    int np = 0;
    for (int k = 0; k < ks->nprim && 2 * k + 1 < s->n && np < ks->cap; k++) {
        double q[3];
        for (int c = 0; c < 3; c++) q[c] = s->x0[2 * k][c] - s->x0[2 * k + 1][c];
        if (!(dot3(q, q) < rmin2)) continue; /* start.f's criterion */
        /* slots 2np, 2np+1 hold a pair already passed over: it moves to 2k, 2k+1 */
        swap_fresh(s, 2 * k, 2 * np);
        swap_fresh(s, 2 * k + 1, 2 * np + 1);
        if (start_pair(s, np, t, err, errlen)) return -1;
        np++;
    }
    s->npairs = np;
    s->ifirst = 2 * np;
    s->ntot = s->n + np;
    ks->nprim_started = np;
    return np;
}
