/* setup.h — the deck read as the run's set-up: the integrator's parameters
 * (core/sim.h), the tidal field's inputs (core/tide.h) and the KS options
 * (reg/ks.h).  The layers below io/ take these values, never the deck. */
#ifndef NBODY6C_SETUP_H
#define NBODY6C_SETUP_H

#include <stddef.h>
#include "core/sim.h"
#include "core/tide.h"
#include "io/deck.h"
#include "reg/ks.h"
#include "evol/evol.h"

/* The parameters of line 3, 5 and 8, NNBMAX and KZ(40); nbmax > 0 sets the
 * list capacity, else max(NNBMAX + 50, 400). */
void setup_params(const deck *d, int nbmax, params *p);

/* KZ(14), RBAR, ZMBAR, GMG, RG0. */
tide_spec setup_tide(const deck *d);

/* KZ(15), KZ(16), KZ(18), KZ(30) and the primordial pairs. */
ks_options setup_ks(const deck *d);

/* Pairs (slots 2k, 2k+1, k < this) that the start-up regularises where
 * their separation is below RMIN (start.f): the binpop binaries (none when
 * dormant), or with KZ(8) = 0, 2 the first NBIN0 pairs of a KZ(22) >= 2
 * file. */
int setup_primordial_pairs(const deck *d);

/* sim_create with the deck's parameters and tidal field (nbody: the mass
 * unit's N, as tide_init).  Returns NULL with err on failure. */
sim *setup_sim(const deck *d, int n, const double *m, const double (*x)[3], const double (*v)[3],
               int nbmax, char *err, size_t errlen);

/* KZ(19) = 3: the stellar evolution's options (nzero: N at the start, the
 * units' N; kicks: --kicks, or NULL).  Returns 1 with *o set, 0 when the
 * deck has no stellar evolution, -1 with err for a bad --kicks. */
int setup_evol(const deck *d, int nzero, const char *kicks, evol_options *o, char *err, size_t errlen);

#endif
