/* tide.h — the external tidal field of KZ(14) = 1 and 2 (tide.c): a cluster
 * on a circular galactic orbit, integrated in the frame that rotates with
 * the orbit (x away from the galactic centre, y along the orbit, z out of
 * the plane), with the galaxy's field expanded to first order about the
 * cluster's centre (NBODY6's linearised field, xtrnl0.f and xtrnlf.f).
 *
 * The acceleration of a body at x with velocity v is
 *     a_tide     = (T1 x, 0, T3 z)            position part: the regular force
 *     a_coriolis = (T4 v_y, -T4 v_x, 0)       velocity part: the irregular force
 * with T1 = 4A(A - B), T3 = -(4 pi G rho0 + 2(A^2 - B^2)), T4 = 2(A - B) for
 * the solar neighbourhood (Oort's A, B and the local density rho0), and T1 =
 * 3 W^2, T3 = -W^2, T4 = 2 W for a point-mass galaxy of angular velocity W.
 * The centrifugal term is inside T1.  Energy: the Jacobi energy, with the
 * tidal potential energy  ETIDE = -1/2 sum m (T1 x^2 + T3 z^2)  over the
 * integrated bodies (singles and c.m. bodies); Coriolis forces do no work.
 * The tidal radius is RTIDE = (M / T1)^(1/3).
 *
 * The constants are fixed in N-body units at the start (from RBAR and the
 * mass unit N ZMBAR) and kept in checkpoints. */
#ifndef NBODY6C_TIDE_H
#define NBODY6C_TIDE_H

#include <stddef.h>
#include "core/bytes.h"

typedef struct tide {
    int kind;           /* KZ(14): 0 none, 1 solar neighbourhood, 2 point-mass galaxy */
    double t1, t3, t4;  /* NBODY6's TIDAL(1), TIDAL(3), TIDAL(4), N-body units */
} tide;

/* What the field is made from: the deck's KZ(14), RBAR (pc), ZMBAR (Msun)
 * and, for KZ(14) = 2, GMG (Msun) and RG0 (kpc) (io/setup.c). */
typedef struct tide_spec {
    int kind;
    double rbar, zmbar, gmg, rg0;
} tide_spec;

/* The field of sp->kind for a cluster of nbody bodies of mean mass
 * sp->zmbar (Msun) at length unit sp->rbar (pc).  Returns 0, or -1 with err
 * for a kind that is not implemented or units that cannot give one. */
int tide_init(tide *td, const tide_spec *sp, int nbody, char *err, size_t errlen);

static inline int tide_on(const tide *td) { return td->kind > 0; }

/* RTIDE for total mass mtot (0 without a field). */
double tide_radius(const tide *td, double mtot);

/* Adds the position part and its time derivative at x, v to a, j. */
void tide_add_regular(const tide *td, const double x[3], const double v[3], double a[3], double j[3]);

/* Adds the Coriolis acceleration at v and its derivative (acc: the body's
 * total acceleration, for d/dt of v) to a, j. */
void tide_add_coriolis(const tide *td, const double v[3], const double acc[3], double a[3],
                       double j[3]);

/* The tidal potential energy m Phi(x) of one body. */
double tide_potential_energy(const tide *td, double m, const double x[3]);

/* NBODY6's start: one rescaling of positions (1/SX) and velocities
 * (sqrt SX) so that T + W + ETIDE = -1/4 (skipped when that sum is not
 * negative).  w: the bodies' potential energy (negative). */
void tide_scale_start(const tide *td, int n, const double *m, double (*x)[3], double (*v)[3],
                      double w);

/* One line describing the field for the log header. */
/* Its part of the checkpoint (section XTRN, with escape.c's part after
 * it): the field's kind and constants.  save returns 1 when a reader must
 * know the section (a field is on); load returns 0, or -1 for a malformed
 * one. */
int tide_save(wbuf *w, const tide *td);
int tide_load(rbuf *r, tide *td);

void tide_describe(const tide *td, const tide_spec *sp, double mtot, char *buf, size_t len);

#endif
