/* startup.h — force polynomials, lists and steps of every body at the start. */
#ifndef NBODY6C_STARTUP_H
#define NBODY6C_STARTUP_H

#include "core/sim.h"

/* Needs s->nb, s->irr open and the bodies' x0, v0, m set; s->time the start.
 * Primordial pairs become KS pairs, then every body gets its neighbour
 * radius, first regular step and polynomials (core/newpoly.h). */
int startup_polynomials(sim *s, char *err, size_t errlen);

#endif
