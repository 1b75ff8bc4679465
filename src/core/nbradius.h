/* nbradius.h — the neighbour radius after a regular step (paper eq. 1, with
 * NBODY6-GPU's controls; docs/ALGORITHMS.md §5) and the density factor ALPHA
 * steered by KZ(40) at every energy check. */
#ifndef NBODY6C_NBRADIUS_H
#define NBODY6C_NBRADIUS_H

#include "core/sim.h"

/* New radius of body i after its regular step.  nnb0: the old list size,
 * dtr: the regular step just completed, rsfac: the growth limit factor
 * (nbradius_rsfac), overflowed: the list overflowed and the radius was
 * already shrunk for it this step. */
double nbradius_update(const sim *s, int i, int nnb0, double dtr, double rsfac, int overflowed);

/* max(25/TCR, 1.5 VC/RSMIN): how fast a radius may change per unit time. */
double nbradius_rsfac(const sim *s);

/* ALPHA at t = 0 and its KZ(40) control at an energy check (mean list size nbmean). */
double nbradius_alpha0(const sim *s);
void nbradius_control(sim *s, double nbmean);

#endif
