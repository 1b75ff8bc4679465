/* tide.c — the linearised galactic tidal field (KZ(14) = 1, 2): its
 * constants in N-body units, the force terms the force modules add, the
 * tidal potential energy and NBODY6's start-up rescaling.  See tide.h for
 * the equations of motion. */
#include <math.h>
#include <stdio.h>
#include "core/tide.h"

/* The physical constants of the project's units (snapshot.c): G Msun in
 * cgs and the parsec in cm. */
static const double GM_SUN = 6.67428e-8 * 1.989e33;
static const double PC_CM = 3.0856776e18;

/* Solar neighbourhood (NBODY6's xtrnl0.f): Oort's constants in km/s/kpc
 * and the local density in Msun/pc^3 (Gilmore & Kuijken). */
static const double OORT_A = 14.4, OORT_B = -12.0, RHO_LOCAL = 0.11;

/* km/s/kpc in 1/s */
static double per_second(double kms_per_kpc) { return kms_per_kpc * 1.0e5 / (1000.0 * PC_CM); }

int tide_init(tide *td, const tide_spec *sp, int nbody, char *err, size_t errlen)
{
    td->kind = sp->kind;
    td->t1 = td->t3 = td->t4 = 0.0;
    if (td->kind == 0) return 0;
    if (td->kind != 1 && td->kind != 2) {
        snprintf(err, errlen, "KZ(14) = %d: only the linearised fields 1 and 2 are implemented", td->kind);
        return -1;
    }
    double munit = sp->zmbar * nbody; /* Msun */
    if (!(sp->rbar > 0.0) || !(munit > 0.0)) {
        snprintf(err, errlen,
                 "KZ(14) = %d: the tidal field needs physical units: RBAR = %g pc and ZMBAR = %g Msun "
                 "must be positive",
                 td->kind, sp->rbar, sp->zmbar);
        return -1;
    }
    double runit = sp->rbar * PC_CM;
    double nu2 = GM_SUN * munit / (runit * runit * runit); /* 1 / (N-body time unit)^2 in 1/s^2 */
    if (td->kind == 1) {
        double a = per_second(OORT_A), b = per_second(OORT_B);
        double four_pi_g_rho = 4.0 * M_PI * GM_SUN * RHO_LOCAL / (PC_CM * PC_CM * PC_CM);
        td->t1 = 4.0 * a * (a - b) / nu2;
        td->t3 = -(four_pi_g_rho + 2.0 * (a - b) * (a + b)) / nu2;
        td->t4 = 2.0 * (a - b) / sqrt(nu2);
    } else {
        /* W^2 = G M_gal / R_G^3, in N-body units */
        double r = sp->rbar / (1000.0 * sp->rg0);
        double w2 = sp->gmg / munit * r * r * r;
        td->t1 = 3.0 * w2;
        td->t3 = -w2;
        td->t4 = 2.0 * sqrt(w2);
    }
    return 0;
}

double tide_radius(const tide *td, double mtot)
{
    return td->kind > 0 && td->t1 > 0.0 ? cbrt(mtot / td->t1) : 0.0;
}

void tide_add_regular(const tide *td, const double x[3], const double v[3], double a[3], double j[3])
{
    a[0] += td->t1 * x[0];
    a[2] += td->t3 * x[2];
    j[0] += td->t1 * v[0];
    j[2] += td->t3 * v[2];
}

void tide_add_coriolis(const tide *td, const double v[3], const double acc[3], double a[3],
                       double j[3])
{
    a[0] += td->t4 * v[1];
    a[1] -= td->t4 * v[0];
    j[0] += td->t4 * acc[1];
    j[1] -= td->t4 * acc[0];
}

double tide_potential_energy(const tide *td, double m, const double x[3])
{
    return -0.5 * m * (td->t1 * x[0] * x[0] + td->t3 * x[2] * x[2]);
}

void tide_scale_start(const tide *td, int n, const double *m, double (*x)[3], double (*v)[3],
                      double w)
{
    if (!tide_on(td)) return;
    double kin = 0.0, et = 0.0;
    for (int i = 0; i < n; i++) {
        kin += 0.5 * m[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
        et += tide_potential_energy(td, m[i], x[i]);
    }
    double e = kin + w + et;
    if (!(e < 0.0)) return;
    double sx = -0.25 / e, vs = sqrt(sx);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            x[i][k] /= sx;
            v[i][k] *= vs;
        }
}

void tide_describe(const tide *td, const tide_spec *sp, double mtot, char *buf, size_t len)
{
    if (!tide_on(td)) {
        snprintf(buf, len, "none (isolated cluster)");
        return;
    }
    if (td->kind == 1)
        snprintf(buf, len,
                 "KZ(14) = 1, solar neighbourhood (Oort A = %g, B = %g km/s/kpc, rho0 = %g Msun/pc^3): "
                 "TIDAL(1) %.6g, TIDAL(3) %.6g, TIDAL(4) %.6g, RTIDE %.6g",
                 OORT_A, OORT_B, RHO_LOCAL, td->t1, td->t3, td->t4, tide_radius(td, mtot));
    else
        snprintf(buf, len,
                 "KZ(14) = 2, point-mass galaxy GMG = %g Msun at RG0 = %g kpc: TIDAL(1) %.6g, "
                 "TIDAL(3) %.6g, TIDAL(4) %.6g, RTIDE %.6g",
                 sp->gmg, sp->rg0, td->t1, td->t3, td->t4, tide_radius(td, mtot));
}

int tide_save(wbuf *w, const tide *td)
{
    wb_i64(w, td->kind);
    wb_f64(w, td->t1);
    wb_f64(w, td->t3);
    wb_f64(w, td->t4);
    return td->kind > 0;
}

int tide_load(rbuf *r, tide *td)
{
    td->kind = (int)rb_i64(r);
    td->t1 = rb_f64(r);
    td->t3 = rb_f64(r);
    td->t4 = rb_f64(r);
    return r->bad || td->kind < 0 || td->kind > 2 ? -1 : 0;
}
