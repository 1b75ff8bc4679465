/* test_tide.c — the galactic tidal field (KZ(14), tide.c):
 *   - its constants against NBODY6's formulas evaluated here from the
 *     physical constants (solar neighbourhood and point-mass galaxy);
 *   - a test particle orbiting a point-mass cluster in the field (Hill's
 *     problem) integrated by the whole program: its trajectory against an
 *     independent RK4 integration of Hill's equations written here, its
 *     Jacobi integral over 10 orbits, and its escape through the Lagrange
 *     points;
 *   - a 256-body cluster in the field: the energy check's Jacobi energy
 *     against an independent direct sum with the tidal potential, and its
 *     conservation at the level of the same cluster without the field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "simutil.h"
#include "core/tide.h"
#include "io/setup.h"

/* ---- constants -------------------------------------------------------------- */

/* the field of a deck, as the run makes it */
static int tide_from_deck(tide *td, const deck *d, char *err, size_t errlen)
{
    const tide_spec ts = setup_tide(d);
    return tide_init(td, &ts, d->n, err, errlen);
}

static void test_constants(void)
{
    deck d;
    deck_defaults(&d, 1000);
    d.rbar = 3.0;
    d.zmbar = 0.6;
    d.kz[14] = 1;
    tide td;
    char err[256];
    CHECK(tide_from_deck(&td, &d, err, sizeof err) == 0, "KZ(14) = 1 accepted");
    /* the N-body time unit in s: sqrt(R^3 / (G M)), R = 3 pc, M = 600 Msun */
    double G = 6.67428e-8, msun = 1.989e33, pc = 3.0856776e18, kpc = 1000.0 * pc;
    double R = 3.0 * pc, M = 600.0 * msun, tu = sqrt(R * R * R / (G * M));
    double A = 14.4e5 / kpc, B = -12.0e5 / kpc, rho = 0.11 * msun / (pc * pc * pc);
    double t1 = 4.0 * A * (A - B) * tu * tu;
    double t3 = -(4.0 * M_PI * G * rho + 2.0 * (A * A - B * B)) * tu * tu;
    double t4 = 2.0 * (A - B) * tu;
    printf("# solar neighbourhood, RBAR 3 pc, 600 Msun: TIDAL(1) %.6e (formula %.6e), TIDAL(3) %.6e (%.6e), "
           "TIDAL(4) %.6e (%.6e), RTIDE %.4f\n",
           td.t1, t1, td.t3, t3, td.t4, t4, tide_radius(&td, 1.0));
    CHECK(fabs(td.t1 / t1 - 1) < 1e-12 && fabs(td.t3 / t3 - 1) < 1e-12 && fabs(td.t4 / t4 - 1) < 1e-12,
          "KZ(14) = 1: TIDAL(1), (3), (4) as NBODY6's xtrnl0.f gives them (to 1e-12)");
    /* Roche lobe of 600 Msun in the solar neighbourhood: r_J = (G M / 4A(A-B))^(1/3) in pc */
    double rj_pc = cbrt(G * M / (4.0 * A * (A - B))) / pc;
    CHECK(fabs(tide_radius(&td, 1.0) * 3.0 / rj_pc - 1) < 1e-12, "RTIDE = %.4f pc, the Jacobi radius (%.4f pc)",
          tide_radius(&td, 1.0) * 3.0, rj_pc);

    d.kz[14] = 2;
    d.gmg = 1.0e11;
    d.rg0 = 8.5;
    CHECK(tide_from_deck(&td, &d, err, sizeof err) == 0, "KZ(14) = 2 accepted");
    double Rg = 8.5 * kpc, w = sqrt(G * 1.0e11 * msun / (Rg * Rg * Rg)) * tu;
    CHECK(fabs(td.t1 / (3 * w * w) - 1) < 1e-12 && fabs(td.t3 / (-w * w) - 1) < 1e-12 &&
              fabs(td.t4 / (2 * w) - 1) < 1e-12,
          "KZ(14) = 2: 3 W^2, -W^2, 2 W for W^2 = G M_gal / R_G^3 (W = %.6e)", w);
    d.kz[14] = 3;
    CHECK(tide_from_deck(&td, &d, err, sizeof err) != 0, "KZ(14) = 3 refused: %s", err);
}

/* ---- Hill's problem ------------------------------------------------------------ */

/* KZ(14) = 2 with RBAR 1 pc, RG0 1 pc and a mass unit of 1 Msun, so that
 * W^2 = GMG: the field's constants are chosen directly. */
static void hill_deck(deck *d, double w2, double smax)
{
    deck_defaults(d, 2);
    d->zmbar = 0.5; /* mass unit 2 x 0.5 = 1 Msun */
    d->rbar = 1.0;
    d->kz[14] = 2;
    d->gmg = w2;
    d->rg0 = 0.001;
    d->rs0 = 100.0; /* each body is the other's neighbour */
    /* The field is all of the regular force here, and it changes on the
     * orbital time of the particle, while the irregular corrector carries the
     * regular force linearly between regular steps (the Ahmad-Cohen scheme):
     * the regular steps, capped by SMAX, set the accuracy */
    d->smax = smax;
}

typedef struct hill { double t1, t3, t4, M; } hill;

static void hill_rhs(const hill *h, const double y[6], double f[6])
{
    double r2 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2], r3 = r2 * sqrt(r2);
    f[0] = y[3];
    f[1] = y[4];
    f[2] = y[5];
    f[3] = h->t1 * y[0] + h->t4 * y[4] - h->M * y[0] / r3;
    f[4] = -h->t4 * y[3] - h->M * y[1] / r3;
    f[5] = h->t3 * y[2] - h->M * y[2] / r3;
}

/* Hill's equations by classical RK4 with nsub steps per unit time. */
static void hill_rk4(const hill *h, double y[6], double t, int nsub)
{
    int n = (int)lround(t * nsub);
    double dt = t / n, k1[6], k2[6], k3[6], k4[6], z[6];
    for (int s = 0; s < n; s++) {
        hill_rhs(h, y, k1);
        for (int q = 0; q < 6; q++) z[q] = y[q] + 0.5 * dt * k1[q];
        hill_rhs(h, z, k2);
        for (int q = 0; q < 6; q++) z[q] = y[q] + 0.5 * dt * k2[q];
        hill_rhs(h, z, k3);
        for (int q = 0; q < 6; q++) z[q] = y[q] + dt * k3[q];
        hill_rhs(h, z, k4);
        for (int q = 0; q < 6; q++) y[q] += dt / 6 * (k1[q] + 2 * k2[q] + 2 * k3[q] + k4[q]);
    }
}

static double jacobi(const hill *h, const double y[6])
{
    double r = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    return 0.5 * (y[3] * y[3] + y[4] * y[4] + y[5] * y[5]) - h->M / r - 0.5 * (h->t1 * y[0] * y[0] + h->t3 * y[2] * y[2]);
}

/* The particle (slot 1) relative to the cluster mass (slot 0). */
static void particle_state(sim *s, double y[6])
{
    vec3 x[2], v[2];
    sim_predict_all(s, x, v);
    for (int k = 0; k < 3; k++) {
        y[k] = x[1][k] - x[0][k];
        y[3 + k] = v[1][k] - v[0][k];
    }
}

static sim *hill_sim(double w2, double eta, double smax, const double y0[6], hill *h)
{
    deck d;
    hill_deck(&d, w2, smax);
    d.etai = eta;
    d.etar = 2 * eta;
    /* a cluster of mass 1 and a particle of 1e-12: the particle does not move the cluster */
    double m[2] = {1.0, 1e-12}, x[2][3] = {{0}}, v[2][3] = {{0}};
    for (int k = 0; k < 3; k++) {
        x[1][k] = y0[k];
        v[1][k] = y0[3 + k];
    }
    run_options o = quiet_cpu_options();
    o.ks_off = 1;
    char err[512];
    sim *s = run_start(&d, 2, m, (const double(*)[3])x, (const double(*)[3])v, &o, NULL, err, sizeof err);
    if (!s) printf("# run_start: %s\n", err);
    else *h = (hill){s->tide.t1, s->tide.t3, s->tide.t4, 1.0};
    return s;
}

static void test_hill_orbit(void)
{
    /* W^2 = 1/81: TIDAL(1) = 1/27, RTIDE = 3; a bound, eccentric, inclined
     * orbit at r ~ 0.6-1.1 (period ~ 4) */
    double w2 = 1.0 / 81.0, y0[6] = {0.9, 0.1, 0.25, -0.1, 0.75, 0.2}, y[6], yr[6];
    hill h;
    sim *s = hill_sim(w2, 0.0025, 1.0 / 1024, y0, &h);
    CHECK(s != NULL, "Hill: run started");
    if (!s) return;
    printf("# Hill: TIDAL(1) %.6f, TIDAL(3) %.6f, TIDAL(4) %.6f, RTIDE %.4f\n", h.t1, h.t3, h.t4,
           tide_radius(&s->tide, 1.0));
    double ej0 = jacobi(&h, y0), dj = 0.0, dtraj = 0.0;
    for (int q = 0; q < 6; q++) yr[q] = y0[q];
    char err[512];
    int rc = 0;
    double period = 2 * M_PI / sqrt(1.0 / (0.9 * 0.9 * 0.9)); /* ~ 5.4 */
    for (int k = 1; k <= 40 && rc == 0; k++) { /* 10 orbits, 4 checks each */
        double t = k * period / 4;
        rc = run_advance(s, t, err, sizeof err);
        particle_state(s, y);
        dj = fmax(dj, fabs(jacobi(&h, y) - ej0) / fabs(ej0));
        if (k <= 8) { /* two orbits against RK4, before chaos amplifies differences */
            hill_rk4(&h, yr, period / 4, 20000);
            double d = 0;
            for (int q = 0; q < 3; q++) d = fmax(d, fabs(y[q] - yr[q]));
            dtraj = fmax(dtraj, d);
        }
    }
    printf("# Hill orbit: Jacobi integral to %.2e over 10 orbits; position against RK4 over 2 orbits %.2e\n", dj,
           dtraj);
    CHECK(rc == 0, "Hill: 10 orbits integrated");
    /* Hermite at ETAI 0.005 keeps a Kepler orbit's energy to ~1e-11 per
     * orbit; the field adds no error of its own */
    CHECK(dj < 1e-10, "Hill: Jacobi integral conserved to 1e-10 over 10 orbits (%.2e)", dj);
    /* RK4 at 2e4 steps per unit time is exact to ~1e-12 here; the Hermite
     * orbit's phase error at ETAI 0.005 is ~1e-8 after two orbits; a sign or
     * factor error in any of the three terms moves the orbit by O(0.1) */
    CHECK(dtraj < 1e-6, "Hill: trajectory as Hill's equations give it (%.2e over 2 orbits)", dtraj);
    run_end(s);
}

static void test_hill_escape(void)
{
    /* on the y axis at 0.7 RTIDE moving at 0.3 along -x (prograde): Jacobi
     * energy -M/r + v^2/2 = -1.29 M/RTIDE, above the Lagrange points' -1.5
     * M/RTIDE; a circle of radius RTIDE is then open only where |x|/r >=
     * 0.76 (energy alone), and it is left near the x axis */
    double w2 = 1.0 / 81.0, rt = 3.0, y0[6] = {0.0, 0.7 * rt, 0.0, -0.3, 0.0, 0.0}, y[6];
    hill h;
    sim *s = hill_sim(w2, 0.01, 1.0 / 64, y0, &h);
    CHECK(s != NULL, "Hill escape: run started");
    if (!s) return;
    char err[512];
    double t_out = -1, cos_out = 0, ej0 = jacobi(&h, y0), dj = 0;
    int rc = 0;
    for (int k = 1; k <= 4000 && rc == 0; k++) {
        rc = run_advance(s, k * 0.125, err, sizeof err);
        particle_state(s, y);
        double r = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
        dj = fmax(dj, fabs(jacobi(&h, y) - ej0) / fabs(ej0));
        if (r > rt && t_out < 0) {
            t_out = k * 0.125;
            cos_out = fabs(y[0]) / r;
        }
        if (r > 2 * rt) break;
    }
    printf("# Hill escape: left r = RTIDE at t = %.3f with |x|/r = %.4f; Jacobi integral to %.2e\n", t_out,
           cos_out, dj);
    CHECK(rc == 0 && t_out > 0, "Hill escape: the particle leaves the Roche lobe (t = %.3f)", t_out);
    CHECK(cos_out > 0.9, "Hill escape: through a Lagrange point, near the x axis (|x|/r = %.4f)", cos_out);
    CHECK(dj < 1e-8, "Hill escape: Jacobi integral kept through the escape (%.2e)", dj);
    run_end(s);
}

/* ---- a cluster in the field ------------------------------------------------- */

static double direct_jacobi(const sim *s, const vec3 *x, const vec3 *v)
{
    long double e = 0;
    for (int i = s->ifirst; i < s->ntot; i++) {
        const double *xi = x[i], *vi = v[i];
        e += 0.5L * s->m[i] * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
        e += -0.5L * s->m[i] * (s->tide.t1 * xi[0] * xi[0] + s->tide.t3 * xi[2] * xi[2]);
        for (int j = i + 1; j < s->ntot; j++) {
            double dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1], dz = x[i][2] - x[j][2];
            e -= (long double)s->m[i] * s->m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return (double)e;
}

static double cluster_run(int kz14, double *ejac_check, double *ejac_direct, double *rtide)
{
    deck d;
    deck_defaults(&d, 256);
    d.kz[14] = kz14;
    d.rbar = 2.0;
    d.zmbar = 2.0; /* 512 Msun at 2 pc: RTIDE ~ 5.7 r_unit in the solar neighbourhood */
    double *m = malloc(sizeof(double) * 256);
    double(*x)[3] = malloc(sizeof(double[3]) * 256), (*v)[3] = malloc(sizeof(double[3]) * 256);
    char err[512];
    if (ic_make(&d, NULL, m, x, v, err, sizeof err)) {
        printf("# ic_make: %s\n", err);
        return NAN;
    }
    run_options o = quiet_cpu_options();
    diag d0, d1;
    sim *s = run_start(&d, 256, m, (const double(*)[3])x, (const double(*)[3])v, &o, &d0, err, sizeof err);
    free(m); free(x); free(v);
    if (!s) {
        printf("# run_start: %s\n", err);
        return NAN;
    }
    double demax = 0, eprev = d0.etot;
    for (int k = 1; k <= 8; k++) {
        if (run_advance(s, k * 0.5, err, sizeof err)) return NAN;
        checks_measure(s, &d1, 0);
        demax = fmax(demax, fabs(d1.etot - eprev) / fabs(d1.etot));
        eprev = d1.etot;
    }
    vec3 *xs = malloc(sizeof(vec3) * s->ntot), *vs = malloc(sizeof(vec3) * s->ntot);
    sim_predict_all(s, xs, vs);
    *ejac_check = d1.etot;
    *ejac_direct = s->npairs == 0 ? direct_jacobi(s, xs, vs) : d1.etot;
    *rtide = d1.rtide;
    free(xs); free(vs);
    /* the Coriolis cache exists with a field only (sim_coriolis_cache) */
    CHECK((s->vcor != NULL && s->acor != NULL && s->tcor != NULL) == (kz14 > 0) &&
              (s->vcor != NULL || (s->acor == NULL && s->tcor == NULL)),
          "cluster: Coriolis cache %s with KZ(14) = %d", s->vcor ? "allocated" : "absent", kz14);
    run_end(s);
    return demax;
}

static void test_cluster(void)
{
    double e1, e2, rt, ei1, ei2, rti;
    double de_tide = cluster_run(1, &e1, &e2, &rt);
    double de_iso = cluster_run(0, &ei1, &ei2, &rti);
    printf("# 256 bodies to t = 4: largest |dE/E| per check %.2e in the field (RTIDE %.3f), %.2e isolated\n",
           de_tide, rt, de_iso);
    CHECK(fabs(e1 - e2) < 1e-12 * fabs(e2), "cluster: the check's Jacobi energy is T + W + ETIDE (%.3e vs %.3e)",
          e1, e2);
    CHECK(rt > 4 && rt < 8, "cluster: RTIDE %.3f in N-body units for 512 Msun at RBAR 2 pc", rt);
    /* the field is smooth: it may not cost more than the cluster's own
     * integration error (a wrong jerk or a missing term shows at once) */
    CHECK(de_tide < 3 * de_iso + 1e-9, "cluster: energy error in the field %.2e against %.2e isolated", de_tide,
          de_iso);
}

int main(void)
{
    (void)check_seed();
    test_constants();
    test_hill_orbit();
    test_hill_escape();
    test_cluster();
    return check_done();
}
