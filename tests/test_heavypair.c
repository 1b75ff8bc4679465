/* test_heavypair.c — a hard binary of two heavy stars wider than RMIN
 * (a Kroupa cluster's two heaviest stars, bound far above the close-
 * encounter distance and with steps above DTMIN): KS regularises it, and
 * the energy checks stay at the integrator's level.  With KS off the same
 * pair is left to the Hermite steps, and a check whose error the ledger's
 * events do not explain names the bodies whose steps carried it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iotest.h"

#define NLIGHT 254
#define MHEAVY 0.03 /* each, about eight times the mean mass */

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

/* A point at distance r in a random direction. */
static void sphere(uint64_t *s, double r, double out[3])
{
    double z = 2.0 * uniform(s) - 1.0, ph = 2.0 * M_PI * uniform(s), q = sqrt(1.0 - z * z);
    out[0] = r * q * cos(ph);
    out[1] = r * q * sin(ph);
    out[2] = r * z;
}

/* The bodies file: the heavy pair (names 1, 2) at the centre, a = 0.01
 * (10 RMIN of the deck), e = 0.3, at apocentre; the light stars a Plummer
 * model of their own mass (scale 3 pi / 16, Aarseth, Henon & Wielen 1974),
 * cut at 10 scale radii, from a fixed generator. */
static void write_bodies(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    const double a = 0.01, e = 0.3, M = 2.0 * MHEAVY, ra = a * (1.0 + e);
    const double va = sqrt(M / a * (1.0 - e) / (1.0 + e));
    fprintf(f, "%.17g %.17g 0 0 0 %.17g 0\n", MHEAVY, 0.5 * ra, 0.5 * va);
    fprintf(f, "%.17g %.17g 0 0 0 %.17g 0\n", MHEAVY, -0.5 * ra, -0.5 * va);
    const double ml = 1.0 - M, b = 3.0 * M_PI / 16.0, m = ml / NLIGHT;
    uint64_t s = 20261128;
    for (int k = 0; k < NLIGHT; k++) {
        double r;
        do r = 1.0 / sqrt(pow(uniform(&s), -2.0 / 3.0) - 1.0);
        while (r > 10.0);
        double x[3], v[3], q, g;
        sphere(&s, r * b, x);
        do {
            q = uniform(&s);
            g = 0.1 * uniform(&s);
        } while (g > q * q * pow(1.0 - q * q, 3.5));
        double ve = sqrt(2.0 * ml / b) * pow(1.0 + r * r, -0.25);
        sphere(&s, q * ve, v);
        fprintf(f, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", m, x[0], x[1], x[2], v[0], v[1], v[2]);
    }
    fclose(f);
}

/* Runs the deck on the bodies (extra: options); exit status. */
static int run(const char *dir, const char *name, const char *extra, const char *bodies, const char *deck)
{
    return io_sh("%s --quiet --gpu=ref --simd=scalar --threads 1 --snapshots off --force %s --out %s/%s --ic %s %s",
                 NBODY6C_BIN, extra, dir, name, bodies, deck);
}

/* The largest |dE| of the log's checks. */
static double worst_check(const char *dir, const char *name, int *n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/log.txt", dir, name);
    double de[64], worst = 0.0;
    *n = io_log_column(path, "dE", de, 64);
    for (int k = 0; k < *n; k++) worst = fmax(worst, fabs(de[k]));
    return worst;
}

int main(void)
{
    char dir[] = "/tmp/nbody6c-heavy-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    char bodies[600], deck[600], path[700];
    snprintf(bodies, sizeof bodies, "%s/bodies.txt", dir);
    snprintf(deck, sizeof deck, "%s/heavy.deck", dir);
    write_bodies(bodies);
    /* KZ(22) = 3, RMIN 0.001 and DTMIN 1e-5 fixed (KZ(16) = 0), checks and
     * outputs every 0.25 to t = 0.5; QE 1e-5, so that a check above 1e-6
     * has its report */
    io_write(deck, "1 100.0\n256 1 10 5 30 1\n0.02 0.03 0.2 0.25 0.25 0.5 1.0D-05 1.0 0.5\n"
                   "0 0 0 0 1 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 3 0 0 0 0 0 0 0 0\n"
                   "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n1.0E-05 0.001 0.2 1.0 1.0E-06 0.001\n"
                   "1.0 1.0 1.0 0 0 0.002 0.0 1.0\n0.5 0.0 0.0 0.0 1.0\n");

    int rc = run(dir, "ks", "", bodies, deck);
    snprintf(path, sizeof path, "%s/ks/binaries.txt", dir);
    char *bl = io_read(path, NULL);
    int ks[2] = {0, 0};
    for (const char *p = bl; p && (p = strstr(p, "       1       2 ")); p++) {
        const char *eol = strchr(p, '\n'), *bol = p;
        while (bol > bl && bol[-1] != '\n') bol--;
        double t = atof(bol);
        if (eol && eol - p > 6 && !strncmp(eol - 6, "    ks", 6) && (t == 0.25 || t == 0.5)) ks[t == 0.5]++;
    }
    CHECK(rc == 0 && ks[0] == 1 && ks[1] == 1,
          "a hard pair of two heavy stars at 10 RMIN, stepped above DTMIN, is a KS pair at the outputs t = 0.25 "
          "and 0.5 (binaries.txt: %d, %d; exit %d)", ks[0], ks[1], rc);
    free(bl);
    int n = 0;
    double worst = worst_check(dir, "ks", &n);

    /* KS off: the pair's Hermite steps lose energy, and the log says whose */
    rc = run(dir, "hermite", "--ks=off", bodies, deck);
    double worst_off = worst_check(dir, "hermite", &n);
    snprintf(path, sizeof path, "%s/hermite/log.txt", dir);
    char *log = io_read(path, NULL);
    const char *rep = log ? strstr(log, "not from the ledger's events") : NULL;
    const char *n1 = rep ? strstr(rep, "#   name 1 (") : NULL, *n2 = rep ? strstr(rep, "#   name 2 (") : NULL;
    const char *end = rep ? strstr(rep, "\n   ") : NULL; /* the next data row */
    int named = n1 && n2 && (!end || (n1 < end && n2 < end)) && strstr(n1, "nearest 2 (") &&
                strstr(n2, "nearest 1 (") && strstr(n1, "bound,");
    CHECK(rc == 0 && n == 3 && worst_off > 3.0 * worst && rep && named,
          "with --ks=off the same pair loses %.3g in a check (against %.3g with KS), and that check's report names "
          "both heavy stars, each the other's nearest, bound (report %s, named %d)", worst_off, worst,
          rep ? "found" : "missing", named);
    if (rep && !named) printf("# %.600s\n", rep);
    free(log);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)!system(cmd);
    return check_done();
}
