/* binlist.h — binaries.txt: the binary list at every output (DELTAT), the
 * role of NBODY6's bdat.9 (OUT9), with every bound pair of stars, KS or not
 * (reg/ks_binaries.c), in physical units: one row per binary per output,
 * each row with its time, so that the file loads as one table. */
#ifndef NBODY6C_BINLIST_H
#define NBODY6C_BINLIST_H

#include <stddef.h>
#include "core/sim.h"

/* The run's physical units: Myr per time unit, Msun per mass unit, pc per
 * length unit (RBAR). */
typedef struct binlist_units {
    double tstar, munit, rbar;
} binlist_units;

/* Appends the binaries of s at s->time to path (its header first when the
 * file is new); xd: the density centre (each binary's distance from it).
 * Returns 0, or -1 with a message in err. */
int binlist_append(const char *path, sim *s, const binlist_units *u, const double xd[3], char *err,
                   size_t errlen);

#endif
