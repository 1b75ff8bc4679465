/* startup.c — the force polynomials of every body at the start of a run
 * (docs/ALGORITHMS.md §7, after NBODY6-GPU's start.f): the initial radii and
 * regular steps, then new polynomials of every body (core/newpoly.c: lists,
 * forces, derivatives by direct summation over every body, first steps).
 * Primordial binaries closer than RMIN become KS pairs first
 * (ks_primordial.c), so their c.m. bodies get their polynomials in the same
 * pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "integ/startup.h"
#include "core/newpoly.h"
#include "reg/ks.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int startup_polynomials(sim *s, char *err, size_t errlen)
{
    double t = s->time;
    /* primordial binaries closer than RMIN start as KS pairs (start.f) */
    if (ks_primordial_layout(s, t, err, errlen) < 0) return -1;
    int nb = s->ntot - s->ifirst;
    int *idx = malloc(sizeof(int) * (nb + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory in the start-up");
        return -1;
    }
    for (int i = s->ifirst; i < s->ntot; i++) {
        double r2 = dot3(s->x0[i], s->x0[i]);
        s->rs[i] = s->p.rs0 * sqrt(1.0 + r2);
        s->dtr[i] = fmin(s->p.smax / 8.0 * sqrt(1.0 + r2), s->p.smax);
        idx[i - s->ifirst] = i;
    }
    int rc = newpoly_bodies(s, nb, idx, t, NEWPOLY_START, err, errlen);
    free(idx);
    return rc;
}
