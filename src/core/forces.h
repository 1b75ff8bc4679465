/* forces.h — the irregular and regular forces of given bodies (forces.c). */
#ifndef NBODY6C_FORCES_H
#define NBODY6C_FORCES_H

#include "core/sim.h"

/* The irregular force on ni bodies from their lists at the predicted state,
 * with NBODY6's fictitious central mass for empty lists.  x, v: the bodies'
 * predicted states (slots).  Returns 0 or -1 (err set). */
int irregular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, char *err, size_t errlen);

/* 1 when a block step's irregular force of ni bodies goes to the GPU
 * (irregular_force_gpu): the regular-force backend is "cuda" and ni is at
 * least the switch point (NBODY6C_IRR_GPU_MIN, default IRR_GPU_MIN_DEFAULT
 * in forces.c, measured; 0 or less turns the GPU path off).
 * NBODY6C_IRR_GPU_ANY=1 takes the path on any GPUNB backend: the CPU
 * backends keep the same resident lists, so CPU-only tests check the
 * bookkeeping (a run that way is bit-identical to one with GPUIRR's scalar
 * backend when GPUNB is cpu-ref). */
int irr_on_gpu(sim *s, int ni);

/* 1 when GPUNB must hold every body's list (gpunb_set_list, gpunb.h's
 * resident lists): whenever some block may take the GPU path. */
int gpunb_lists_kept(sim *s);

/* The host lists of the n slots idx to GPUNB's resident lists (when kept):
 * after every list a caller edits or renames outside a regular step (KS
 * events, start-up, restart), as gpuirr_set_list. */
void gpunb_lists_send(sim *s, int n, const int *idx);

/* The same force as irregular_force, for a block step (s->block_forces set,
 * t = s->time), summed on the GPU by gpunb_irrf_members from GPUNB's
 * predicted j-state (after gpunb_predict(t)) over the lists GPUNB holds for
 * those slots (the same as GPUIRR's: both get every list), at the bodies'
 * predicted x, v, which must be predict3 of the polynomials GPUNB holds for
 * them (the block's members: predicted from the state last sent, before
 * any held update).  xs, vs: scratch of ni entries.  A coincident pair (or a
 * list entry outside the j-range) sends the call to GPUIRR, which names
 * it. */
int irregular_force_gpu(sim *s, int ni, const int *ilist, vec3 *xs, vec3 *vs, vec3 *a, vec3 *j, char *err,
                        size_t errlen);

/* Regular force, jerk and new lists for ni bodies at their predicted x, v;
 * radii of overflowed lists shrink by 0.9 until every list fits
 * (overflowed[k] = 1 for those).  Lists go to lists + k*nbmax. */
void regular_force(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb,
                   int *lists, int *overflowed);

/* The same force in two halves, so that the block step's own work (the
 * irregular force and corrector) runs while the GPU computes it: begin
 * gathers the bodies' inputs (radius, regular step, predicted x, v) into r
 * (capacity ni or more) and starts GPUNB (gpunb_regf_begin, after
 * gpunb_predict(t)); end waits, retries the overflowed lists and adds the
 * tide, with the same results as regular_force.  In between: no GPUNB call,
 * and r, ilist and the bodies' radii and regular steps stay as they were. */
typedef struct regf_in {
    int *idx;
    double *h2, *dtr;
    vec3 *x, *v;
} regf_in;
int regf_in_alloc(regf_in *r, int n);
void regf_in_free(regf_in *r);
void regular_force_begin(sim *s, int ni, const int *ilist, regf_in *r);
void regular_force_end(sim *s, int ni, const int *ilist, vec3 *a, vec3 *j, int *nnb, int *lists,
                       int *overflowed);

/* The force and jerk on body i at time t from the bodies its new list
 * gained (in lnew, not in lold) minus those it lost: F_I,new - F_I,old of
 * paper eq. 12, summed directly in double from the predicted states.  Both
 * lists ascending.  Every body is a point mass here, as in the regular force
 * the term turns into. */
void list_change_force(const sim *s, int i, double t, const int *lold, int nold,
                       const int *lnew, int nnew, double df[3], double dj[3]);

#endif
