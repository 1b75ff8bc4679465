/* snapshot_nb6pp.c — one snapshot in NBODY6++GPU's HDF5 layout (its
 * custom_output_facility.F, the current release's numbered dataset names;
 * docs/SNAPSHOTS.md has the table of names): a file DIR/snap.40_TIME.h5part
 * holding one group "Step#0" with the attributes Time and N_STAR, the
 * "000 Scalars" array, one row per star ("001 X1" .. "038 EPOCH") and one
 * per binary ("101 Bin cm X1" .. "163 Bin cm Name"), in the physical units
 * NBODY6++GPU writes (pc, km/s, Msun, AU, days).  Tools written for that
 * code's output read it as they read its own files.
 *
 * What nbody6c does not keep (forces and their derivatives, steps, the
 * potential, merger tables) is left out rather than filled with stand-ins;
 * the values are float64 where NBODY6++GPU writes float32 (HDF5 converts on
 * reading).  The bodies, binary list and stellar data are those of the
 * native snapshot (snapshot.c), at the same time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "io/durable.h"
#include "io/snapshot.h"
#include "io/snapshot_h5.h"
#include "reg/ks.h"
#include "evol/evol.h"
#include "common/version.h"

/* NBODY6++GPU's units.f: the 2008 IAU astronomical unit, the parsec as
 * 648000/pi AU, the solar radius; a Julian year for periods in days. */
#define NB6PP_PC_AU (1296000.0 / (2.0 * M_PI))
#define NB6PP_AU_CM 1.49597870700e13
#define NB6PP_RSUN_CM 6.957e10
#define NB6PP_NSCALARS 100

void snapshot_nb6pp_path(char *buf, size_t len, const char *dir, double time, double deltat)
{
    /* NBODY6++GPU's string_left: as many decimals as DELTAT needs (at most 10) */
    int ip = 0;
    double dt = deltat;
    while (ip < 10 && dt - floor(dt) != 0.0) {
        ip++;
        dt *= 10.0;
    }
    snprintf(buf, len, "%s/snap.40_%.*f.h5part", dir, ip, time);
}

/* Physical units of the run: what one N-body unit is in NBODY6++GPU's output
 * units. */
typedef struct units {
    double pc, kms, msun, au, tstar, rsun;
} units;

static units run_units(const sim *s, const deck *dk)
{
    units u;
    u.pc = dk->rbar;
    u.msun = dk->zmbar * s->nzero; /* NBODY6++GPU's ZMBAR: the mass unit in Msun */
    u.tstar = snapshot_tstar_myr(dk->rbar, dk->zmbar, s->nzero);
    u.kms = snapshot_vstar_kms(dk->rbar, dk->zmbar, s->nzero);
    u.au = dk->rbar * NB6PP_PC_AU;
    u.rsun = dk->rbar * NB6PP_PC_AU * NB6PP_AU_CM / NB6PP_RSUN_CM;
    return u;
}

static int dd(hid_t g, const char *name, hsize_t n, const double *v, const char *units_text)
{
    return sh5_dset(g, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, v, units_text);
}

static int di(hid_t g, const char *name, hsize_t n, const int *v, const char *units_text)
{
    return sh5_dset(g, name, H5T_NATIVE_INT, H5T_STD_I32LE, 1, n, v, units_text);
}

/* The "000 Scalars" array (1-based slots of NBODY6++GPU's S_AS); slots
 * nbody6c has no value for stay 0, as NBODY6++GPU leaves unused ones. */
static void fill_scalars(double *sa, const sim *s, const deck *dk, const diag *d, const units *u,
                         int nstar, int nbin)
{
    memset(sa, 0, sizeof(double) * NB6PP_NSCALARS);
    double *S = sa - 1;
    const double *xd = d ? d->xd : s->xd;
    S[1] = s->time;
    S[2] = s->npairs;
    S[3] = dk->rbar;
    S[4] = u->msun;
    S[5] = s->n;
    S[6] = u->tstar;
    for (int c = 0; c < 3; c++) S[7 + c] = xd[c];
    S[11] = u->tstar; /* TSCALE */
    S[12] = u->kms;
    S[13] = d ? d->rc : s->rc;
    S[14] = d ? d->nc : 0;
    S[15] = d ? d->vc : 0.0;
    S[18] = s->rscale;
    if (tide_on(&s->tide)) {
        S[27] = s->tide.t1;
        S[29] = s->tide.t3;
        S[30] = s->tide.t4;
    }
    S[36] = s->evol ? dk->zmet : 0.0;
    S[57] = s->p.etai;
    S[58] = s->p.etar;
    S[59] = s->p.etau;
    S[60] = s->p.eclose;
    S[61] = s->p.dtmin;
    S[62] = s->p.rmin;
    S[63] = s->p.gmin;
    S[64] = s->p.gmax;
    S[65] = s->p.smax;
    S[66] = s->p.nnbmax0; /* the deck's line 2 item that NBODY6++GPU reads as NNBOPT */
    S[67] = s->evol ? dk->epoch0 : 0.0;
    S[68] = nstar;
    S[69] = nbin;
    S[70] = 0; /* mergers: their inner pairs are rows of the binary list */
}

/* Row k of b whose name is nm (b is sorted by name), or -1. */
static int row_of(const sh5_bodies *b, int nm)
{
    int lo = 0, hi = b->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (b->name[mid] == nm) return mid;
        if (b->name[mid] < nm) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The stars: positions, velocities, masses, names, types and, with
 * KZ(19) = 3, the stellar data. */
static int write_stars(hid_t g, const sim *s, const sh5_bodies *b, const units *u)
{
    const int n = b->n;
    const size_t rows = (size_t)(n > 0 ? n : 1);
    double *q = malloc(sizeof(double) * rows);
    int *iv = malloc(sizeof(int) * rows);
    int rc = q && iv ? 0 : -1;
    static const char *xn[3] = {"001 X1", "002 X2", "003 X3"}, *vn[3] = {"004 V1", "005 V2", "006 V3"};
    for (int c = 0; rc == 0 && c < 3; c++) {
        for (int k = 0; k < n; k++) q[k] = b->x[c][k] * u->pc;
        rc = dd(g, xn[c], n, q, "pc");
        for (int k = 0; rc == 0 && k < n; k++) q[k] = b->v[c][k] * u->kms;
        if (rc == 0) rc = dd(g, vn[c], n, q, "km/s");
    }
    if (rc == 0) {
        for (int k = 0; k < n; k++) q[k] = b->m[k] * u->msun;
        rc = dd(g, "023 M", n, q, "Msun");
    }
    if (rc == 0) rc = di(g, "032 Name", n, b->name, "name (1..NZERO)");
    if (rc == 0) {
        /* NBODY6++GPU's labels: -1 a component of a KS pair, 0 any other star */
        for (int k = 0; k < n; k++) iv[k] = 0;
        for (int i = 0; i < 2 * s->npairs; i++) {
            int r = row_of(b, s->name[i]);
            if (r >= 0) iv[r] = -1;
        }
        rc = di(g, "033 Type", n, iv, "-1 KS component, 0 other star");
    }
    if (rc == 0) {
        /* spin: with KZ(19) = 3 the star's, in NBODY6++GPU's N-body spin
         * unit (ZMBAR SU^2 / (1e6 TSTAR), Msun Rsun^2/yr); 0 without, as
         * NBODY6++GPU writes when stars carry no spin */
        const double spnfac = u->msun * u->rsun * u->rsun / (1.0e6 * u->tstar);
        for (int k = 0; k < n; k++) {
            const sse_star *st = s->evol ? evol_star(s, b->name[k]) : NULL;
            q[k] = st ? st->jspin / spnfac : 0.0;
        }
        rc = dd(g, "035 ASPN", n, q, "N-body spin unit (0 without KZ(19) = 3)");
    }
    if (rc == 0 && s->evol) {
        static const struct { const char *name, *units; } sev[] = {
            {"026 R*", "Rsun"}, {"027 L*", "Lsun"}, {"028 Teff*", "K"}, {"029 RC*", "Rsun (core radius)"},
            {"030 MC*", "Msun (core mass)"}, {"036 TEV", "N-body time (next update)"},
            {"037 TEV0", "N-body time (last update)"}, {"038 EPOCH", "Myr"}};
        for (int f = 0; rc == 0 && f < 8; f++) {
            for (int k = 0; k < n; k++) {
                const sse_star *st = evol_star(s, b->name[k]);
                double v = NAN;
                if (st) {
                    const double col[8] = {st->rad, st->lum, sse_teff(st->lum, st->rad), st->rc, st->mc,
                                           st->tnext / u->tstar, st->tlast / u->tstar, st->epoch};
                    v = col[f];
                }
                q[k] = v;
            }
            rc = dd(g, sev[f].name, n, q, sev[f].units);
        }
        for (int k = 0; rc == 0 && k < n; k++) {
            const sse_star *st = evol_star(s, b->name[k]);
            iv[k] = st ? st->kw : -1;
        }
        if (rc == 0) rc = di(g, "031 KW", n, iv, "stellar type 0..15");
    }
    free(q);
    free(iv);
    return rc;
}

/* The binary list (ks_binaries: every bound pair of stars) as NBODY6++GPU's
 * per-binary rows.  Returns the number of rows, or -1. */
static int write_binaries(hid_t g, const sim *s, const sh5_bodies *b, const units *u)
{
    ks_binary *bl;
    const int nb = ks_binaries((sim *)s, &bl); /* predicts; reads the pairs only */
    if (nb < 0) return -1;
    enum { CMX, CMV = 3, M1 = 6, M2, RX, RV = 11, A = 14, ECC, P, RS1, L1, TE1, RS2, L2, TE2, RC1, MC1,
           RC2, MC2, NCOL };
    static const struct { const char *name, *units; } col[NCOL] = {
        {"101 Bin cm X1", "pc"}, {"102 Bin cm X2", "pc"}, {"103 Bin cm X3", "pc"},
        {"104 Bin cm V1", "km/s"}, {"105 Bin cm V2", "km/s"}, {"106 Bin cm V3", "km/s"},
        {"123 Bin M1*", "Msun"}, {"124 Bin M2*", "Msun"},
        {"125 Bin rel X1", "pc (star 1 - star 2)"}, {"126 Bin rel X2", "pc"}, {"127 Bin rel X3", "pc"},
        {"128 Bin rel V1", "km/s (star 1 - star 2)"}, {"129 Bin rel V2", "km/s"}, {"130 Bin rel V3", "km/s"},
        {"154 Bin A[au]", "AU"}, {"155 Bin ECC", "1"}, {"156 Bin P[d]", "days"},
        {"144 Bin RS1*", "Rsun"}, {"145 Bin L1*", "Lsun"}, {"146 Bin Teff1*", "K"},
        {"147 Bin RS2*", "Rsun"}, {"148 Bin L2*", "Lsun"}, {"149 Bin Teff2*", "K"},
        {"150 Bin RC1*", "Rsun"}, {"151 Bin MC1*", "Msun"}, {"152 Bin RC2*", "Rsun"}, {"153 Bin MC2*", "Msun"}};
    const size_t rows = (size_t)(nb > 0 ? nb : 1);
    double *q = malloc(sizeof(double) * rows * NCOL);
    int *iv = malloc(sizeof(int) * rows * 5);
    int rc = q && iv ? 0 : -1;
    int nfield = 0;
    for (int k = 0; rc == 0 && k < nb; k++) {
        const ks_binary *e = &bl[k];
        int r1 = row_of(b, e->name1), r2 = row_of(b, e->name2);
        if (r1 < 0 || r2 < 0) {
            rc = -1;
            break;
        }
        const double m1 = b->m[r1], m2 = b->m[r2], mb = m1 + m2;
        for (int c = 0; c < 3; c++) {
            q[(CMX + c) * rows + k] = (m1 * b->x[c][r1] + m2 * b->x[c][r2]) / mb * u->pc;
            q[(CMV + c) * rows + k] = (m1 * b->v[c][r1] + m2 * b->v[c][r2]) / mb * u->kms;
            q[(RX + c) * rows + k] = (b->x[c][r1] - b->x[c][r2]) * u->pc;
            q[(RV + c) * rows + k] = (b->v[c][r1] - b->v[c][r2]) * u->kms;
        }
        q[M1 * rows + k] = m1 * u->msun;
        q[M2 * rows + k] = m2 * u->msun;
        const double a_au = e->a * u->au;
        q[A * rows + k] = a_au;
        q[ECC * rows + k] = e->e;
        /* Kepler's law in AU, Msun and Julian years, as NBODY6++GPU's DAYS */
        q[P * rows + k] = 365.25 * a_au * sqrt(fabs(a_au) / (mb * u->msun));
        const sse_star *st[2] = {s->evol ? evol_star(s, e->name1) : NULL, s->evol ? evol_star(s, e->name2) : NULL};
        for (int j = 0; j < 2; j++) {
            q[(j ? RS2 : RS1) * rows + k] = st[j] ? st[j]->rad : NAN;
            q[(j ? L2 : L1) * rows + k] = st[j] ? st[j]->lum : NAN;
            q[(j ? TE2 : TE1) * rows + k] = st[j] ? sse_teff(st[j]->lum, st[j]->rad) : NAN;
            q[(j ? RC2 : RC1) * rows + k] = st[j] ? st[j]->rc : NAN;
            q[(j ? MC2 : MC1) * rows + k] = st[j] ? st[j]->mc : NAN;
            iv[j * rows + k] = st[j] ? st[j]->kw : -1;
        }
        /* c.m.: NBODY6's KS c.m. name NZERO + the first component's and
         * KSTAR 0; a pair not regularised gets NTOT + its count and -1, as
         * NBODY6++GPU's wide binaries */
        const int ks = e->kind == KS_BIN_KS;
        iv[2 * rows + k] = ks ? 0 : -1;
        iv[3 * rows + k] = ks ? s->nzero + e->name1 : s->n + s->npairs + ++nfield;
    }
    if (rc == 0 && nb > 0) {
        const int ncol = s->evol ? NCOL : RS1;
        for (int c = 0; rc == 0 && c < ncol; c++) rc = dd(g, col[c].name, nb, q + c * rows, col[c].units);
        if (rc == 0 && s->evol)
            rc = di(g, "158 Bin KW1", nb, iv, "stellar type") || di(g, "159 Bin KW2", nb, iv + rows, "stellar type");
    }
    if (rc == 0 && nb > 0) {
        for (int k = 0; k < nb; k++) iv[4 * rows + k] = bl[k].name1; /* out of the rows' structs */
        rc = di(g, "160 Bin cm KW", nb, iv + 2 * rows, "0 KS pair, -1 not regularised") ||
             di(g, "161 Bin Name1", nb, iv + 4 * rows, "name") ? -1 : 0;
        for (int k = 0; rc == 0 && k < nb; k++) iv[4 * rows + k] = bl[k].name2;
        if (rc == 0)
            rc = di(g, "162 Bin Name2", nb, iv + 4 * rows, "name") ||
                 di(g, "163 Bin cm Name", nb, iv + 3 * rows, "NZERO + name 1 (KS pair), NTOT + count (other)")
                     ? -1 : 0;
    }
    free(q);
    free(iv);
    free(bl);
    return rc ? -1 : nb;
}

int snapshot_nb6pp_write(const char *path, const sim *s, const deck *dk, const diag *d, int64_t index,
                         char *err, size_t errlen)
{
    char tmp[4200];
    durable_tmp_name(path, tmp, sizeof tmp);
    sh5_bodies b;
    if (sh5_bodies_gather(s, &b)) {
        snprintf(err, errlen, "%s: out of memory for the snapshot", path);
        return -1;
    }
    const units u = run_units(s, dk);
    errno = 0;
    int injected = durable_fault("snapshot", index);
    hid_t f = sh5_create(tmp);
    int rc = f < 0 ? -1 : 0;
    hid_t g = -1;
    /* root attributes only: readers take every root member for a step */
    if (rc == 0)
        rc = sh5_attr_str(f, "format", SNAPSHOT_NB6PP_FORMAT) ||
             sh5_attr_str(f, "code", "nbody6c " NBODY6C_VERSION) ? -1 : 0;
    if (rc == 0) {
        g = sh5_group(f, "Step#0");
        rc = g < 0 ? -1 : 0;
    }
    int nbin = 0;
    if (rc == 0 && !injected) rc = write_stars(g, s, &b, &u);
    if (rc == 0 && !injected) {
        nbin = write_binaries(g, s, &b, &u);
        rc = nbin < 0 ? -1 : 0;
    }
    if (rc == 0) {
        double sa[NB6PP_NSCALARS];
        fill_scalars(sa, s, dk, d, &u, b.n, nbin);
        const int nstar = b.n;
        rc = sh5_dset(g, "000 Scalars", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, NB6PP_NSCALARS, sa, NULL) ||
             sh5_attr(g, "Time", H5T_NATIVE_DOUBLE, 0, 1, &s->time) ||
             sh5_attr(g, "N_STAR", H5T_NATIVE_INT, 0, 1, &nstar) ? -1 : 0;
    }
    sh5_bodies_free(&b);
    return sh5_finish(f, g, rc, injected, tmp, path, err, errlen);
}
