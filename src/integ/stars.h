/* stars.h — stellar evolution between block steps (KZ(19) = 3): the
 * updates due at the block time (evol/), then the force libraries and the
 * schedule brought up to the bodies they changed. */
#ifndef NBODY6C_STARS_H
#define NBODY6C_STARS_H

#include <stddef.h>
#include "core/sim.h"

/* Called after every block step; cheap when no star is due.  Returns 0, or
 * -1 with err. */
int stars_between_blocks(sim *s, char *err, size_t errlen);

#endif
