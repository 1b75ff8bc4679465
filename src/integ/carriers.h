/* carriers.h — which bodies' steps carried an energy check's unexplained
 * error: the bodies that took the most irregular steps since the last
 * check and those whose regular corrections did the most work (block_tally),
 * each with its mass, steps and the nearest body
 * with their two-body orbit, so that a close pair left to the Hermite
 * steps (a hard binary not regularised) is named in the log.  Built only
 * when a check asks for it (O(N) then). */
#ifndef NBODY6C_CARRIERS_H
#define NBODY6C_CARRIERS_H

#include <stdint.h>
#include "core/sim.h"
#include "integ/block.h"

typedef struct step_carrier {
    int name, slot;     /* slot -1: gone since (escaped or merged away) */
    int ks;             /* 1: a KS component now (its steps were taken as a single) */
    int nirr, nreg;     /* steps since the last check */
    double wreg;        /* the work of its regular corrections since (block.h) */
    double m, dt, dtr;  /* dt, dtr: the current steps (0 for a KS component) */
    double rs;          /* its neighbour radius */
    int nb_name;        /* the nearest listed body now (0: none) */
    double nb_m, nb_r;  /* its mass and distance */
    double nb_a, nb_e;  /* the two-body orbit of the two (a < 0: unbound) */
} step_carrier;

/* Up to max bodies at s->time: half with the largest work of the regular
 * corrections since the last block_tally_clear, the rest with the most
 * irregular steps.  Returns how many; *nirr, *nreg and *wreg get the sums
 * over every body. */
int carriers_top(const sim *s, const block_scratch *b, step_carrier *out, int max, int64_t *nirr,
                 int64_t *nreg, double *wreg);

#endif
