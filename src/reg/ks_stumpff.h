/* ks_stumpff.h — NBODY6's scaled Stumpff functions c~_k(z) = k! c_k(z)
 * (docs/ALGORITHMS.md §10.4), c~_k(0) = 1. */
#ifndef NBODY6C_KS_STUMPFF_H
#define NBODY6C_KS_STUMPFF_H

/* c[k] = c~_k(z) for k = 0..6. */
void ks_stumpff(double z, double c[7]);

#endif
