/* test_snapshot.c — HDF5 snapshots: the layout docs/SNAPSHOTS.md promises
 * (group, dataset names, shapes, types, units, attributes), an exact round
 * trip through the C reader, the time unit, h5py reading the same file when
 * it is installed, --ic from a snapshot, and a failed write that leaves the
 * earlier snapshots intact. */
#include <math.h>
#include <hdf5.h>
#include "check.h"
#include "reg/ks.h"
#include "iotest.h"
#include "simutil.h"
#include "io/snapshot.h"

/* ---- round trip in memory ------------------------------------------------ */

/* The same state written again more than a second later (HDF5's time stamps
 * count seconds) gives the same bytes: runs that should agree can be
 * compared with cmp. */
static void same_bytes_when_rewritten(const char *path, sim *s, const deck *d, diag *dg)
{
    char again[600], err[1024];
    snprintf(again, sizeof again, "%s.again", path);
    sleep(1);
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    if (snapshot_write(again, s, d, dg, 7, err, sizeof err)) {
        CHECK(0, "snapshot_write again: %s", err);
        return;
    }
    size_t la = 0, lb = 0;
    char *a = io_read(path, &la), *b = io_read(again, &lb);
    CHECK(a && b && la == lb && !memcmp(a, b, la), "the same state written 1.1 s later: the same %zu bytes (%zu)", la,
          lb);
    free(a);
    free(b);
    unlink(again);
}

static void round_trip(const char *dir)
{
    int n = 256;
    deck d;
    deck_defaults(&d, n);
    d.rbar = 2.5;
    d.zmbar = 0.7;
    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    char err[1024];
    if (ic_make(&d, NULL, m, x, v, err, sizeof err)) {
        CHECK(0, "initial model: %s", err);
        return;
    }
    run_options o = quiet_cpu_options();
    diag dg;
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &o, &dg, err, sizeof err);
    if (!s || run_advance(s, 0.25, err, sizeof err)) {
        CHECK(0, "run: %s", err);
        return;
    }
    checks_measure(s, &dg, 0);
    /* shuffle the names so that the writer's sort by name is exercised */
    for (int i = 0; i < n; i++) s->name[i] = n - i;
    char path[512];
    snapshot_path(path, sizeof path, dir, 7);
    CHECK(strstr(path, "snap.000007.h5") != NULL, "snapshot file name %s", path);
    int rc = snapshot_write(path, s, &d, &dg, 7, err, sizeof err);
    CHECK(rc == 0, "snapshot_write: %s", rc ? err : "ok");
    same_bytes_when_rewritten(path, s, &d, &dg);

    snapshot_data sd;
    rc = snapshot_read(path, &sd, err, sizeof err);
    CHECK(rc == 0, "snapshot_read: %s", rc ? err : "ok");
    if (rc == 0) {
        vec3 *xp = malloc(sizeof(vec3) * s->cap), *vp = malloc(sizeof(vec3) * s->cap);
        sim_predict_all(s, xp, vp);
        /* slot i has name n - i, so row k (name k + 1) is slot n - 1 - k */
        int bad = 0, sorted = 1;
        for (int k = 0; k < n; k++) {
            int i = n - 1 - k;
            sorted &= sd.name[k] == k + 1;
            for (int c = 0; c < 3; c++) bad += sd.x[k][c] != xp[i][c] || sd.v[k][c] != vp[i][c];
            bad += sd.m[k] != s->m[i];
        }
        CHECK(sd.n == n && sd.npairs == 0 && sd.index == 7, "N %d, NPAIRS %d, Step %lld", sd.n,
              sd.npairs, (long long)sd.index);
        CHECK(sorted, "bodies sorted by name 1..N");
        CHECK(bad == 0, "positions, velocities, masses bit-identical to the state predicted to t "
              "(%d values differ)", bad);
        CHECK(sd.time == 0.25 && sd.rc == dg.rc && sd.rh == dg.rlagr[LAGR_HALF] &&
              sd.rdens[0] == dg.xd[0] && sd.rdens[2] == dg.xd[2],
              "time, core radius, half-mass radius, density centre as measured");
        /* independent unit: G = 4.4985e-3 pc^3/(Msun Myr^2) (IAU) gives
         * 14.91; NBODY6's constants (a 3.15e7 s year) 14.935: within 0.5 % */
        double tstar_iau = 14.91 * sqrt(pow(d.rbar, 3) / (n * d.zmbar));
        CHECK(fabs(sd.tstar / tstar_iau - 1.0) < 5e-3 && fabs(sd.time_myr - sd.time * sd.tstar) < 1e-12 * sd.time_myr,
              "T* = %.6f Myr (IAU value %.6f), Time_Myr = Time T*", sd.tstar, tstar_iau);
        free(xp);
        free(vp);
        snapshot_data_free(&sd);
    }
    /* a KS pair (formed by the KS module): components resolved, the table */
    int i = s->ifirst, j = s->nnb[i] > 0 ? sim_list(s, i)[0] : -1;
    if (j >= 0 && j < s->n && ks_form(s, i, j, s->time, err, sizeof err) == 0) {
        int na = s->name[0], nb = s->name[1];
        checks_measure(s, &dg, 0);
        rc = snapshot_write(path, s, &d, &dg, 8, err, sizeof err);
        if (rc == 0 && snapshot_read(path, &sd, err, sizeof err) == 0) {
            int ia = -1, ib = -1;
            for (int k = 0; k < sd.n; k++) {
                if (sd.name[k] == na) ia = k;
                if (sd.name[k] == nb) ib = k;
            }
            double M = sd.m[ia] + sd.m[ib], worst = 0.0;
            for (int c = 0; c < 3 && ia >= 0 && ib >= 0; c++) /* c.m. of the resolved components */
                worst = fmax(worst, fabs((sd.m[ia] * sd.x[ia][c] + sd.m[ib] * sd.x[ib][c]) / M - sd.ks_xcm[0][c]));
            /* independent orbit elements: a from the energy, e from the
             * Laplace-Runge-Lenz vector (v x h)/M - r/|r| */
            double rv[3], w[3], h[3], ev[3], r = 0.0, w2 = 0.0;
            for (int c = 0; c < 3; c++) {
                rv[c] = sd.x[ia][c] - sd.x[ib][c];
                w[c] = sd.v[ia][c] - sd.v[ib][c];
                r += rv[c] * rv[c];
                w2 += w[c] * w[c];
            }
            r = sqrt(r);
            h[0] = rv[1] * w[2] - rv[2] * w[1];
            h[1] = rv[2] * w[0] - rv[0] * w[2];
            h[2] = rv[0] * w[1] - rv[1] * w[0];
            ev[0] = (w[1] * h[2] - w[2] * h[1]) / M - rv[0] / r;
            ev[1] = (w[2] * h[0] - w[0] * h[2]) / M - rv[1] / r;
            ev[2] = (w[0] * h[1] - w[1] * h[0]) / M - rv[2] / r;
            double a = -M / (2.0 * (0.5 * w2 - M / r)), e = sqrt(ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2]);
            CHECK(sd.n == n && sd.npairs == 1 && sd.ks_name1[0] == na && sd.ks_name2[0] == nb && ia >= 0 && ib >= 0,
                  "with a KS pair: N = %d bodies, NPAIRS = %d, the table names its components", sd.n, sd.npairs);
            /* round-off of the c.m. sum of two terms of size |x| ~ 1: 1e-14;
             * the two routes to a and e agree to round-off (1e-10 relative) */
            CHECK(worst < 1e-14 && fabs(sd.ks_a[0] / a - 1.0) < 1e-10 && fabs(sd.ks_ecc[0] / e - 1.0) < 1e-10,
                  "components resolved about the c.m. (worst %.1e); KS_A %.6g, KS_ECC %.6g as from the "
                  "energy and the Runge-Lenz vector (%.6g, %.6g)", worst, sd.ks_a[0], sd.ks_ecc[0], a, e);
            snapshot_data_free(&sd);
        } else {
            CHECK(0, "snapshot with a KS pair: %s", err);
        }
    } else {
        SKIP("KS snapshot: no pair could be formed (%s)", j < 0 ? "empty list" : err);
    }

    /* not a snapshot */
    char bogus[512];
    snprintf(bogus, sizeof bogus, "%s/bogus.h5", dir);
    io_write(bogus, "m x y z\n");
    CHECK(snapshot_read(bogus, &sd, err, sizeof err) != 0 && strstr(err, "not an HDF5"),
          "a text file is refused: %s", err);
    run_end(s);
    free(m); free(x); free(v);
}

/* ---- the layout, read with the HDF5 library itself ---------------------- */

static int dset_ok(hid_t g, const char *name, hid_t type, hsize_t n)
{
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return 0;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
    int ok = rank == 1 && dims[0] == n && H5Tequal(t, type) > 0 && H5Aexists(d, "units") > 0;
    H5Tclose(t);
    H5Sclose(sp);
    H5Dclose(d);
    return ok;
}

static void layout(const char *path, int n)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "%s opens with the HDF5 library", path);
    if (f < 0) return;
    char fmt[64] = "";
    hid_t a = H5Aopen(f, "format", H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    if (a >= 0 && H5Tget_size(t) < sizeof fmt) H5Aread(a, t, fmt);
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    CHECK(!strcmp(fmt, SNAPSHOT_FORMAT), "root attribute format = \"%s\"", fmt);
    hid_t g = H5Gopen2(f, "Step#000001", H5P_DEFAULT);
    CHECK(g >= 0, "group Step#000001 in snap.000001.h5");
    if (g >= 0) {
        const char *f64[] = {"X1", "X2", "X3", "V1", "V2", "V3", "M"};
        int ok = 1;
        for (int k = 0; k < 7; k++) ok &= dset_ok(g, f64[k], H5T_IEEE_F64LE, n);
        CHECK(ok, "X1..X3, V1..V3, M: float64, shape (N), with units");
        CHECK(dset_ok(g, "NAM", H5T_STD_I32LE, n), "NAM: int32, shape (N), with units");
        const char *attrs[] = {"Time", "Time_Myr", "N", "NZERO", "NPAIRS", "TSTAR", "VSTAR", "RBAR", "ZMBAR",
                               "RDENS", "RC", "RH", "ETOT", "RLAGR", "ETAI", "ETAR", "DTADJ",
                               "DELTAT", "TCRIT", "QE", "NNBMAX", "NFIX", "KZ"};
        int missing = 0;
        for (size_t k = 0; k < sizeof attrs / sizeof *attrs; k++) missing += H5Aexists(g, attrs[k]) <= 0;
        CHECK(missing == 0, "Step# attributes (time, units, radii, deck): %d missing", missing);
        CHECK(H5Lexists(g, "KS_NAM1", H5P_DEFAULT) <= 0, "no KS table without pairs");
        H5Gclose(g);
    }
    H5Fclose(f);
}

/* ---- h5py: the users' reader -------------------------------------------- */

static const char *python_with_h5py(void)
{
    static const char *cands[] = {"python3", "/usr/bin/python3"};
    for (int k = 0; k < 2; k++)
        if (io_sh("%s -c 'import h5py, numpy'", cands[k]) == 0) return cands[k];
    return NULL;
}

static void with_h5py(const char *path, int n)
{
    const char *py = python_with_h5py();
    if (!py) {
        SKIP("h5py reader: no python3 with h5py and numpy (Debian: python3-h5py)");
        return;
    }
    int rc = io_sh("%s -c \"\nimport h5py, numpy as np\nf = h5py.File('%s', 'r')\n"
                   "g = f['Step#000001']\nx = np.stack([g['X%%d' %% k][()] for k in (1, 2, 3)], axis=1)\n"
                   "assert x.shape == (%d, 3)\nassert sorted(g['NAM'][()]) == list(range(1, %d + 1))\n"
                   "assert abs(g['M'][()].sum() - 1) < 1e-12\nprint('time', g.attrs['Time'], g.attrs['Time_Myr'])\n\"",
                   py, path, n, n);
    CHECK(rc == 0, "h5py reads the snapshot (shapes, names, total mass 1): %s", io_out);
}

/* ---- physical units: NBODY6's ZMBAR, TSTAR, VSTAR ------------
 * NBODY6 draws the power-law masses in Msun and then makes ZMBAR their mean
 * (imf.f: ZMBAR = ZMASS/N), whatever the deck said; units.f then gives
 * TSTAR = sqrt(pc/GM) pc / 3.15e13 sqrt(RBAR^3/ZMASS) Myr and VSTAR =
 * 1e-5 sqrt(GM/pc) sqrt(ZMASS/RBAR) km/s with GM = 6.67428e-8 * 1.989e33 and
 * pc = 3.0856776e18 (cgs).  With equal masses the deck's ZMBAR stays, and a
 * ZMBAR <= 0 means <m> = 1 Msun.  Everything here is computed again from
 * those formulas, not from the program's functions. */

typedef struct units_ref { double zmbar, tstar, vstar, mmin, mmax; } units_ref;

static units_ref nbody6_units(int n, double alphas, double body1, double bodyn, double rbar,
                              double deck_zmbar)
{
    units_ref u;
    double zmass = 0.0, mmin = INFINITY, mmax = 0.0;
    if (alphas == 1.0 || body1 == bodyn) {
        u.zmbar = deck_zmbar > 0.0 ? deck_zmbar : 1.0;
        mmin = mmax = u.zmbar;
    } else {
        double a1 = alphas - 1.0, fm1 = pow(body1, -a1), fmn = (fm1 - pow(bodyn, -a1)) / (n - 1);
        for (int i = 1; i <= n; i++) {
            double mi = pow(fm1 - (i - 1) * fmn, -1.0 / a1);
            zmass += mi;
            mmin = fmin(mmin, mi);
            mmax = fmax(mmax, mi);
        }
        u.zmbar = zmass / n;
    }
    zmass = u.zmbar * n;
    const double gm = 6.67428e-8 * 1.989e33, pc = 3.0856776e18;
    u.tstar = sqrt(pc / gm) * pc / 3.15e13 * sqrt(rbar * rbar * rbar / zmass);
    u.vstar = 1e-5 * sqrt(gm / pc) * sqrt(zmass / rbar);
    u.mmin = mmin;
    u.mmax = mmax;
    return u;
}

static int rel_ok(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

/* Runs deck text to its t = 0 snapshot (and t = tcrit) and compares the
 * snapshot's units and Msun masses with ref. */
static void check_units_run(const char *dir, const char *name, const char *deck, units_ref ref,
                            double tcrit)
{
    char dpath[600], p[700];
    snprintf(dpath, sizeof dpath, "%s/%s.deck", dir, name);
    io_write(dpath, deck);
    int rc = io_sh("%s --quiet --gpu=off --out %s/%s %s", NBODY6C_BIN, dir, name, dpath);
    CHECK(rc == 0, "%s: run (exit %d): %s", name, rc, io_out);
    snapshot_data sd;
    char err[1024];
    snprintf(p, sizeof p, "%s/%s/snap.000000.h5", dir, name);
    if (snapshot_read(p, &sd, err, sizeof err)) {
        CHECK(0, "%s: %s", name, err);
        return;
    }
    double lo = INFINITY, hi = 0.0;
    for (int k = 0; k < sd.n; k++) {
        lo = fmin(lo, sd.m[k] * sd.n * sd.zmbar);
        hi = fmax(hi, sd.m[k] * sd.n * sd.zmbar);
    }
    CHECK(rel_ok(sd.zmbar, ref.zmbar, 1e-12) && rel_ok(sd.tstar, ref.tstar, 1e-12) &&
              rel_ok(sd.vstar, ref.vstar, 1e-12),
          "%s: ZMBAR %.6g Msun, TSTAR %.6g Myr, VSTAR %.6g km/s (NBODY6: %.6g, %.6g, %.6g)", name,
          sd.zmbar, sd.tstar, sd.vstar, ref.zmbar, ref.tstar, ref.vstar);
    CHECK(rel_ok(lo, ref.mmin, 1e-10) && rel_ok(hi, ref.mmax, 1e-10),
          "%s: masses M N ZMBAR from %.6g to %.6g Msun (NBODY6: %.6g to %.6g)", name, lo, hi,
          ref.mmin, ref.mmax);
    snapshot_data_free(&sd);
    snprintf(p, sizeof p, "%s/%s/snap.000001.h5", dir, name);
    if (tcrit > 0.0 && snapshot_read(p, &sd, err, sizeof err) == 0) {
        CHECK(isfinite(sd.time_myr) && rel_ok(sd.time_myr, sd.time * ref.tstar, 1e-12),
              "%s: Time_Myr %.6g at t = %g is t TSTAR", name, sd.time_myr, sd.time);
        snapshot_data_free(&sd);
    }
    char tline[64];
    snprintf(tline, sizeof tline, "TSTAR %.6g Myr", ref.tstar);
    snprintf(p, sizeof p, "%s/%s/log.txt", dir, name);
    char *log = io_read(p, NULL);
    CHECK(log && strstr(log, tline) && strstr(log, "# initial conditions: "),
          "%s: the log header names the initial conditions and \"%s\"", name, tline);
    free(log);
}

static void physical_units(const char *dir)
{
    /* the README's default deck (4096 stars, ALPHAS 2.3 from 10 to 0.1 Msun,
     * deck ZMBAR 0.5), stopped at t = 0: NBODY6 gives ZMBAR 0.3265 Msun and
     * TSTAR 0.408 Myr, not the 0.330 Myr the deck's ZMBAR would give */
    char *deck = io_read("input/default-imf-4096-t10.deck", NULL);
    if (!deck) {
        CHECK(0, "input/default-imf-4096-t10.deck");
        return;
    }
    char *t = strstr(deck, "1.0 1.0 10.0 2.0D-04 1.0 0.5");
    if (!t) {
        CHECK(0, "the default deck's line 3 changed");
        free(deck);
        return;
    }
    memcpy(t, "1.0 1.0 0.0 ", 12); /* TCRIT 10.0 -> 0.0, same length */
    units_ref imf = nbody6_units(4096, 2.3, 10.0, 0.1, 1.0, 0.5);
    CHECK(fabs(imf.tstar - 0.408) < 0.001 && fabs(imf.zmbar - 0.3265) < 0.0005,
          "reference: the IMF deck's NBODY6 units TSTAR %.4f Myr, ZMBAR %.4f Msun", imf.tstar, imf.zmbar);
    check_units_run(dir, "imf", deck, imf, 0.0);
    /* ZMBAR = 0 in the deck: the same units (the masses decide) */
    memcpy(strstr(deck, "2.0D-04 1.0 0.5") + 12, "0.0", 3);
    check_units_run(dir, "imf-zmbar0", deck, imf, 0.0);
    free(deck);

    /* equal masses: the deck's ZMBAR, and ZMBAR = 0 means 1 Msun (Time_Myr finite) */
    char eq[4096];
    io_deck(eq, sizeof eq, 1000.0, 64, 1, 0.25, 0.25, 0.25, 0, 0);
    check_units_run(dir, "eq", eq, nbody6_units(64, 1.0, 1.0, 1.0, 1.0, 0.5), 0.25);
    memcpy(strstr(eq, "2.0D-04 1.0 0.5") + 12, "0.0", 3);
    check_units_run(dir, "eq-zmbar0", eq, nbody6_units(64, 1.0, 1.0, 1.0, 1.0, 0.0), 0.25);
}

/* After escapers leave (KZ(23)) N is below NZERO but the mass unit is still
 * NZERO ZMBAR Msun (NBODY6's): a snapshot must say NZERO, so that M NZERO
 * ZMBAR gives the stars that stay in Msun and TSTAR keeps its value.  64
 * Plummer bodies from a file (the deck's ZMBAR 0.5 stays) and one of 5 % of
 * the mass 30 units out, receding at 1 (escape speed there 0.26), which the
 * first check (t = 0.25) removes before the snapshot. */
static void units_after_escapers(const char *dir)
{
    enum { N = 65 };
    deck d;
    deck_defaults(&d, N - 1);
    static double m[N], x[N][3], v[N][3];
    char err[1024], file[600], dpath[600], p[700];
    if (ic_make(&d, NULL, m, x, v, err, sizeof err)) {
        CHECK(0, "escapers: initial model: %s", err);
        return;
    }
    for (int i = 0; i < N - 1; i++) m[i] *= 0.95;
    m[N - 1] = 0.05;
    x[N - 1][0] = 30.0;
    x[N - 1][1] = x[N - 1][2] = v[N - 1][1] = v[N - 1][2] = 0.0;
    v[N - 1][0] = 1.0;
    snprintf(file, sizeof file, "%s/esc-bodies.txt", dir);
    if (bodyfile_write(file, N, m, (const double(*)[3])x, (const double(*)[3])v)) {
        CHECK(0, "escapers: %s", file);
        return;
    }
    char deck[4096];
    io_deck(deck, sizeof deck, 1000.0, N, 1, 0.25, 0.25, 0.25, 0, 3);
    char *kz = strstr(deck, "\n0 3 0 0 0 0 0 0 0 0\n"); /* KZ(21..30): KZ(22) = 3 */
    if (!kz) {
        CHECK(0, "escapers: io_deck's KZ(21..30) line changed");
        return;
    }
    memcpy(kz + 1, "0 3 1", 5); /* KZ(23) = 1 */
    snprintf(dpath, sizeof dpath, "%s/esc.deck", dir);
    io_write(dpath, deck);
    int rc = io_sh("%s --quiet --gpu=off --ic %s --out %s/esc %s", NBODY6C_BIN, file, dir, dpath);
    CHECK(rc == 0, "escapers: run (exit %d): %s", rc, io_out);
    snapshot_data sd;
    snprintf(p, sizeof p, "%s/esc/snap.000001.h5", dir);
    if (snapshot_read(p, &sd, err, sizeof err)) {
        CHECK(0, "escapers: %s", err);
        return;
    }
    double msun = 0.0;
    for (int k = 0; k < sd.n; k++) msun += sd.m[k] * sd.nzero * sd.zmbar;
    const units_ref ref = nbody6_units(N, 1.0, 1.0, 1.0, 1.0, 0.5);
    CHECK(sd.n == N - 1 && sd.nzero == N && rel_ok(msun, 0.95 * N * 0.5, 1e-12) &&
              rel_ok(sd.tstar, ref.tstar, 1e-12),
          "escapers: N %d, NZERO %d (64, 65); M NZERO ZMBAR sums to %.10g Msun (the stars left: "
          "%.10g); TSTAR %.6g Myr (NBODY6: %.6g)", sd.n, sd.nzero, msun, 0.95 * N * 0.5, sd.tstar,
          ref.tstar);
    snapshot_data_free(&sd);
}

/* ---- the program: snapshots of a run, --ic, a failed write -------------- */

int main(void)
{
    char dir[] = "/tmp/nbody6c-snap-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    round_trip(dir);
    physical_units(dir);
    units_after_escapers(dir);

    int n = 128;
    char deck[4096], dpath[600];
    io_deck(deck, sizeof deck, 1000.0, n, 2, 0.25, 0.25, 1.0, 0, 0);
    snprintf(dpath, sizeof dpath, "%s/a.deck", dir);
    io_write(dpath, deck);
    int rc = io_sh("%s --quiet --out %s/run %s", NBODY6C_BIN, dir, dpath);
    CHECK(rc == 0, "a %d-body run to t = 1 (exit %d): %s", n, rc, io_out);
    char p[700];
    /* NFIX = 2: outputs at 0.25, 0.5, 0.75, 1 give snapshots 1 (t = 0.5) and 2 (t = 1) */
    snprintf(p, sizeof p, "%s/run/snap.000002.h5", dir);
    snapshot_data sd;
    char err[1024];
    int ok = snapshot_read(p, &sd, err, sizeof err) == 0;
    CHECK(ok && sd.time == 1.0, "snap.000002.h5 at t = 1 (NFIX = 2): %s", ok ? "ok" : err);
    if (ok) snapshot_data_free(&sd);
    snprintf(p, sizeof p, "%s/run/snap.000003.h5", dir);
    CHECK(!io_exists(p), "no third snapshot");
    snprintf(p, sizeof p, "%s/run/snap.000001.h5", dir);
    layout(p, n);
    with_h5py(p, n);

    /* --ic: KZ(22) = 3 takes the snapshot's bodies as they are; the new
     * run's t = 0 snapshot must hold exactly the same numbers */
    io_deck(deck, sizeof deck, 1000.0, n, 1, 0.25, 0.25, 0.25, 0, 3);
    io_write(dpath, deck);
    rc = io_sh("%s --quiet --out %s/ic --ic %s %s", NBODY6C_BIN, dir, p, dpath);
    CHECK(rc == 0, "--ic snap.000001.h5 with KZ(22) = 3 (exit %d): %s", rc, io_out);
    snapshot_data a, b;
    char q[700];
    snprintf(q, sizeof q, "%s/ic/snap.000000.h5", dir);
    if (snapshot_read(p, &a, err, sizeof err) == 0) {
        if (snapshot_read(q, &b, err, sizeof err) == 0) {
            int diff = a.n != b.n;
            for (int k = 0; !diff && k < a.n; k++)
                diff = memcmp(a.x[k], b.x[k], sizeof a.x[k]) || memcmp(a.v[k], b.v[k], sizeof a.v[k]) ||
                       a.m[k] != b.m[k] || a.name[k] != b.name[k];
            CHECK(!diff, "the new run starts from exactly the snapshot's bodies");
            snapshot_data_free(&b);
        } else {
            CHECK(0, "%s", err);
        }
        snapshot_data_free(&a);
    }
    io_deck(deck, sizeof deck, 1000.0, n + 1, 1, 0.25, 0.25, 0.25, 0, 3);
    io_write(dpath, deck);
    rc = io_sh("%s --quiet --out %s/ic2 --ic %s %s", NBODY6C_BIN, dir, p, dpath);
    CHECK(rc == 2 && strstr(io_out, "holds 128 bodies"), "--ic with another N is refused (exit %d): %s", rc, io_out);

    /* a failed write: the 2nd snapshot after t = 0 fails like a full disk */
    io_deck(deck, sizeof deck, 1000.0, n, 1, 0.25, 0.25, 1.0, 0, 0);
    io_write(dpath, deck);
    rc = io_sh("NBODY6C_FAULT=snapshot@2 %s --quiet --out %s/fail %s", NBODY6C_BIN, dir, dpath);
    CHECK(rc == 1 && strstr(io_out, "snap.000002.h5") && strstr(io_out, "No space"),
          "a failed snapshot stops the run with exit 1 and a message (exit %d): %s", rc, io_out);
    int good = 1;
    for (int k = 0; k <= 1; k++) {
        snprintf(q, sizeof q, "%s/fail/snap.%06d.h5", dir, k);
        if (snapshot_read(q, &a, err, sizeof err) == 0) snapshot_data_free(&a);
        else good = 0;
    }
    snprintf(q, sizeof q, "%s/fail/snap.000002.h5", dir);
    snprintf(p, sizeof p, "%s/fail/.snap.000002.h5.tmp", dir);
    CHECK(good && !io_exists(q) && !io_exists(p),
          "snapshots 0 and 1 intact and readable, neither snap.000002.h5 nor its temporary left");
    io_sh("rm -rf %s", dir);
    return check_done();
}
