/* test_binaries.c — the binary list (binaries.txt, the snapshots' BIN_*
 * table, log.txt's n_bin and n_bin_hard) on a hand-made model of two known
 * binaries, one a KS pair and one wider than RMIN, among stars on a lattice,
 * and on a deck of primordial binaries (KZ(8) = 1): every pair found at
 * t = 0 with the names, a and e it was made with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iotest.h"
#include "io/snapshot.h"

#define AU_PER_PC 206264.806

typedef struct row {
    double t, m1, m2, a_au, e, p_days, eb;
    int name1, name2, hard;
    char kind[16];
} row;

/* binaries.txt's rows at time t (at most max). */
static int read_rows(const char *path, double t, row *r, int max)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        row x;
        double tm, rr;
        if (sscanf(line, "%lf %lf %d %d %lf %lf %lf %lf %lf %lf %lf %d %15s", &x.t, &tm, &x.name1, &x.name2,
                   &x.m1, &x.m2, &x.a_au, &x.e, &x.p_days, &x.eb, &rr, &x.hard, x.kind) == 13 &&
            x.t == t && n < max)
            r[n++] = x;
    }
    if (f) fclose(f);
    return n;
}

static const row *find(const row *r, int n, int name1, int name2)
{
    for (int k = 0; k < n; k++)
        if ((r[k].name1 == name1 && r[k].name2 == name2) || (r[k].name1 == name2 && r[k].name2 == name1))
            return &r[k];
    return NULL;
}

static int near(double x, double want, double rel)
{
    return fabs(x - want) <= rel * fabs(want);
}

/* Two components of mass m each at apocentre of an orbit (a, e) about xc. */
static void binary(FILE *f, double m, double a, double e, const double xc[3])
{
    const double ra = a * (1.0 + e), va = sqrt(2.0 * m / a * (1.0 - e) / (1.0 + e));
    fprintf(f, "%.17g %.17g %.17g %.17g 0 %.17g 0\n", m, xc[0] + 0.5 * ra, xc[1], xc[2], 0.5 * va);
    fprintf(f, "%.17g %.17g %.17g %.17g 0 %.17g 0\n", m, xc[0] - 0.5 * ra, xc[1], xc[2], -0.5 * va);
}

static void hand_made(const char *dir)
{
    char bodies[600], deck[600];
    snprintf(bodies, sizeof bodies, "%s/bodies.txt", dir);
    snprintf(deck, sizeof deck, "%s/two.deck", dir);
    FILE *f = fopen(bodies, "w");
    if (!f) {
        CHECK(0, "cannot write %s", bodies);
        return;
    }
    /* a 4 x 4 x 4 lattice 0.3 apart: the binaries at its first two points,
     * a star of (1 - 0.04)/62 at rest at each of the others */
    double p[64][3];
    for (int k = 0; k < 64; k++) {
        p[k][0] = 0.3 * (k % 4) - 0.45;
        p[k][1] = 0.3 * (k / 4 % 4) - 0.45;
        p[k][2] = 0.3 * (k / 16) - 0.45;
    }
    binary(f, 0.01, 0.001, 0.3, p[0]); /* closer than RMIN 0.005: a KS pair */
    binary(f, 0.01, 0.02, 0.6, p[1]);  /* wider: two singles */
    for (int k = 2; k < 64; k++) fprintf(f, "%.17g %.17g %.17g %.17g 0 0 0\n", 0.96 / 62, p[k][0], p[k][1], p[k][2]);
    fclose(f);
    io_write(deck, "1 100.0\n66 1 10 5 30 1\n0.02 0.01 0.3 0.125 0.125 0.125 2.0D-04 2.0 0.5\n"
                   "0 0 0 0 1 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 3 0 0 0 0 0 0 0 0\n"
                   "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n2.0E-05 0.005 0.2 1.0 1.0E-06 0.001\n"
                   "1.0 1.0 1.0 2 0 0.002 0.0 5.0\n0.5 0.0 0.0 0.0 0.125\n");
    int rc = io_sh("%s --quiet --gpu=off --out %s/two --ic %s %s", NBODY6C_BIN, dir, bodies, deck);
    CHECK(rc == 0, "two binaries among 62 stars, KZ(22) = 3 (exit %d) %s", rc, io_out);
    char path[700];
    snprintf(path, sizeof path, "%s/two/binaries.txt", dir);
    row r[16];
    int n = read_rows(path, 0.0, r, 16);
    const row *a = find(r, n, 1, 2), *b = find(r, n, 3, 4);
    /* RBAR 2 pc; ZMBAR 0.5 Msun of N = 66: 33 Msun per mass unit */
    const double au = 2.0 * AU_PER_PC, msun = 33.0;
    const double pa = sqrt(pow(0.001 * au, 3) / (0.02 * msun)) * 365.25;
    CHECK(n == 2 && a && b && !strcmp(a->kind, "ks") && !strcmp(b->kind, "field") && near(a->a_au, 0.001 * au, 1e-4) &&
              near(a->e, 0.3, 1e-4) && near(b->a_au, 0.02 * au, 1e-4) && near(b->e, 0.6, 1e-4) &&
              near(a->m1, 0.01 * msun, 1e-4) && near(a->p_days, pa, 1e-3) && a->hard == 1 && b->hard == 0 &&
              near(a->eb, -0.5 * 1e-4 / 0.001, 1e-4),
          "binaries.txt at t = 0: exactly the two binaries, (1, 2) a KS pair, hard, a = %.5g AU, e = %.4g, "
          "P = %.5g d; (3, 4) not regularised, a = %.5g AU, e = %.4g (%d rows)",
          a ? a->a_au : NAN, a ? a->e : NAN, a ? a->p_days : NAN, b ? b->a_au : NAN, b ? b->e : NAN, n);
    n = read_rows(path, 0.125, r, 16);
    CHECK(n >= 1 && find(r, n, 1, 2), "binaries.txt at the next output (t = 0.125) lists the KS pair again (%d rows)",
          n);
    snprintf(path, sizeof path, "%s/two/snap.000000.h5", dir);
    snapshot_data sd;
    char err[512];
    int ok = snapshot_read(path, &sd, err, sizeof err) == 0;
    int found = 0;
    for (int k = 0; ok && k < sd.nbin; k++) {
        if (sd.bin_name1[k] == 1 && sd.bin_name2[k] == 2 && sd.bin_kind[k] == 0 && near(sd.bin_a[k], 0.001, 1e-9) &&
            near(sd.bin_ecc[k], 0.3, 1e-7))
            found++;
        if (sd.bin_name1[k] == 3 && sd.bin_name2[k] == 4 && sd.bin_kind[k] == 1 && near(sd.bin_a[k], 0.02, 1e-9) &&
            near(sd.bin_ecc[k], 0.6, 1e-7) && near(sd.bin_eb[k], -0.5 * 1e-4 / 0.02, 1e-9))
            found++;
    }
    CHECK(ok && sd.nbin == 2 && found == 2, "the t = 0 snapshot's BIN_* table: the same two, N-body a and e to "
          "1e-9 (NBIN %d, %d matched) %s", ok ? sd.nbin : -1, found, ok ? "" : err);
    if (ok) snapshot_data_free(&sd);
    snprintf(path, sizeof path, "%s/two/log.txt", dir);
    double nb[4] = {0}, nh[4] = {0};
    CHECK(io_log_column(path, "n_bin", nb, 4) >= 1 && io_log_column(path, "n_bin_hard", nh, 4) >= 1 && nb[0] == 2 &&
              nh[0] == 1,
          "log.txt at t = 0: n_bin %g, n_bin_hard %g", nb[0], nh[0]);
}

static void primordial(const char *dir)
{
    char deck[600];
    snprintf(deck, sizeof deck, "%s/prim.deck", dir);
    /* 10 binaries a = 0.005, e = 0.5 (RATIO 1: two of the c.m. body's mass) */
    io_write(deck, "1 100.0\n256 1 10 4711 40 1\n0.02 0.01 0.3 0.25 0.25 0.25 2.0D-04 1.0 0.5\n"
                   "0 0 0 0 1 0 0 1 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n"
                   "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n2.0E-05 0.001 0.2 1.0 1.0E-06 0.001\n"
                   "1.0 1.0 1.0 10 0 0.002 0.0 5.0\n0.5 0.0 0.0 0.0 0.25\n0.005 0.5 1.0 0.0 0 0 0\n");
    int rc = io_sh("%s --quiet --gpu=off --out %s/prim %s", NBODY6C_BIN, dir, deck);
    CHECK(rc == 0, "256 stars with 10 primordial binaries (exit %d) %s", rc, io_out);
    char path[700];
    snprintf(path, sizeof path, "%s/prim/binaries.txt", dir);
    row r[64];
    const int n = read_rows(path, 0.0, r, 64);
    int all = 1;
    for (int k = 1; k <= 10; k++) {
        const row *b = find(r, n, 2 * k - 1, 2 * k);
        if (!b || !near(b->a_au, 0.005 * AU_PER_PC, 1e-4) || !near(b->e, 0.5, 1e-4)) {
            printf("# binary %d (%d, %d): %s a %.6g AU e %.5g\n", k, 2 * k - 1, 2 * k, b ? "" : "missing",
                   b ? b->a_au : NAN, b ? b->e : NAN);
            all = 0;
        }
    }
    snprintf(path, sizeof path, "%s/prim/log.txt", dir);
    double nb = -1;
    CHECK(all && io_log_column(path, "n_bin", &nb, 1) >= 1 && nb == n,
          "every primordial binary found at t = 0 with a = SEMI0 (%.4g AU) and e = ECC0 0.5 (%d rows, n_bin %g)",
          0.005 * AU_PER_PC, n, nb);
}

int main(void)
{
    char dir[] = "/tmp/nbody6c-binaries-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    hand_made(dir);
    primordial(dir);
    io_sh("rm -rf %s", dir);
    return check_done();
}
