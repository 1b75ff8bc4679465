/* binlist.c — binaries.txt (binlist.h).  Periods come from Kepler's third
 * law in AU, Msun and years, so they do not depend on the time unit's
 * year. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/binlist.h"
#include "reg/ks.h"

#define AU_PER_PC 206264.806
#define DAYS_PER_YEAR 365.25

static const char *const kind_name[] = {"ks", "field", "merged", "chain"};

static void header(FILE *f)
{
    fprintf(f, "# binaries.txt: every bound pair of stars at each output (reg/ks_binaries.c; README,"
               " \"Binaries\")\n"
               "# kind: ks = a KS pair, field = not regularised (each other's nearest neighbour),"
               " merged = inner pair of a merged hierarchy, chain = two chain members\n"
               "# hard: binding energy below -<m>/2 ECLOSE; E_b = -m1 m2/(2a) in N-body units;"
               " r: distance of the c.m. from the density centre (N-body)\n");
    fprintf(f, "#%9s %11s %7s %7s %10s %10s %12s %8s %12s %12s %9s %4s %6s\n", "t", "t_myr", "name1",
            "name2", "m1_msun", "m2_msun", "a_au", "e", "p_days", "E_b", "r", "hard", "kind");
}

int binlist_append(const char *path, sim *s, const binlist_units *u, const double xd[3], char *err,
                   size_t errlen)
{
    ks_binary *b;
    const int nb = ks_binaries(s, &b);
    if (nb < 0) {
        snprintf(err, errlen, "out of memory for the binary list");
        return -1;
    }
    const int fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");
    if (!f) {
        snprintf(err, errlen, "%.900s: cannot write the binary list: %s", path, strerror(errno));
        free(b);
        return -1;
    }
    if (fresh) header(f);
    const double ebh = ks_hard_energy(s);
    for (int k = 0; k < nb; k++) {
        const ks_binary *p = &b[k];
        const double m1 = p->m1 * u->munit, m2 = p->m2 * u->munit, a_au = p->a * u->rbar * AU_PER_PC;
        const double p_days = sqrt(a_au * a_au * a_au / (m1 + m2)) * DAYS_PER_YEAR;
        const double d[3] = {p->xcm[0] - xd[0], p->xcm[1] - xd[1], p->xcm[2] - xd[2]};
        fprintf(f, "%10.4f %11.4f %7d %7d %10.5g %10.5g %12.5g %8.5f %12.5g %12.5e %9.4f %4d %6s\n",
                s->time, s->time * u->tstar, p->name1, p->name2, m1, m2, a_au, p->e, p_days, p->eb,
                sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), p->eb < ebh,
                kind_name[p->kind >= 0 && p->kind < 4 ? p->kind : 1]);
    }
    free(b);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%.900s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
