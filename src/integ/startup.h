/* startup.h — force polynomials, lists and steps of every body at the start. */
#ifndef NBODY6C_STARTUP_H
#define NBODY6C_STARTUP_H

#include "core/sim.h"

/* Needs s->nb, s->irr open and the bodies' x0, v0, m set; s->time the start. */
int startup_polynomials(sim *s, char *err, size_t errlen);

/* First irregular and regular steps from the polynomials (steps.f) for
 * every body at s->time (steps_first for one body). */
void startup_steps(sim *s);

/* Sends every body's polynomial to both libraries. */
void startup_send_all(sim *s);

#endif
