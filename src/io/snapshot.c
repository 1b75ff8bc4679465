/* snapshot.c — writes one HDF5 snapshot (layout in docs/SNAPSHOTS.md):
 * every body predicted to the snapshot time, sorted by name, KS pairs
 * resolved into their components, the KS pair table, units and deck
 * parameters.  The file is built under a temporary name and renamed only
 * when HDF5 has closed it without error (durable.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hdf5.h>
#include "io/durable.h"
#include "reg/ks.h"
#include "io/snapshot.h"
#include "io/snapshot_h5.h"
#include "evol/evol.h"
#include "common/version.h"

double snapshot_tstar_myr(double rbar, double zmbar, int n)
{
    const double gm = 6.67428e-8 * 1.989e33, pc = 3.0856776e18;
    double zmass = zmbar * n;
    return sqrt(pc / gm) * pc / (3.15e7 * 1.0e6) * sqrt(rbar * rbar * rbar / zmass);
}

double snapshot_vstar_kms(double rbar, double zmbar, int n)
{
    const double gm = 6.67428e-8 * 1.989e33, pc = 3.0856776e18;
    return 1.0e-5 * sqrt(gm / pc) * sqrt(zmbar * n / rbar);
}

void snapshot_path(char *buf, size_t len, const char *dir, int64_t index)
{
    snprintf(buf, len, "%s/snap.%06lld.h5", dir, (long long)index);
}

/* ---- small HDF5 helpers: each returns 0 or -1 ---------------------------- */

int sh5_attr(hid_t loc, const char *name, hid_t type, int rank, hsize_t n, const void *val)
{
    hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    if (sp < 0) return -1;
    hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, type, val) < 0 ? -1 : 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

int sh5_attr_d(hid_t loc, const char *name, double v)
{
    return sh5_attr(loc, name, H5T_NATIVE_DOUBLE, 0, 1, &v);
}

int sh5_attr_i(hid_t loc, const char *name, long long v)
{
    return sh5_attr(loc, name, H5T_NATIVE_LLONG, 0, 1, &v);
}

int sh5_attr_str(hid_t loc, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return -1;
    H5Tset_size(t, strlen(text) + 1);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    int rc = sh5_attr(loc, name, t, 0, 1, text);
    H5Tclose(t);
    return rc;
}

/* HDF5 stamps every object with its creation time unless told not to; a
 * snapshot without the stamps is a function of the state alone, so two runs
 * that should agree (thread or GPU counts, a restart) can be compared byte
 * for byte with cmp.  H5P_DEFAULT where the list cannot be made. */
hid_t sh5_untimed_plist(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    if (p < 0) return H5P_DEFAULT;
    if (H5Pset_obj_track_times(p, 0) < 0) {
        H5Pclose(p);
        return H5P_DEFAULT;
    }
    return p;
}

void sh5_plist_close(hid_t p)
{
    if (p != H5P_DEFAULT) H5Pclose(p);
}

/* A dataset of shape (n) or (n, 3) with a "units" attribute. */
int sh5_dset(hid_t loc, const char *name, hid_t mem, hid_t file, int cols, hsize_t n,
                const void *data, const char *units)
{
    hsize_t dims[2] = {n, (hsize_t)cols};
    hid_t sp = H5Screate_simple(cols > 1 ? 2 : 1, dims, NULL);
    if (sp < 0) return -1;
    hid_t dcpl = sh5_untimed_plist(H5P_DATASET_CREATE);
    hid_t d = H5Dcreate2(loc, name, file, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    sh5_plist_close(dcpl);
    int rc = d < 0 || (n > 0 && H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) ? -1 : 0;
    if (rc == 0 && units) rc = sh5_attr_str(d, "units", units);
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    return rc;
}

/* ---- the bodies ------------------------------------------------------------ */

typedef struct { int name, slot; } by_name;
static int cmp_name(const void *a, const void *b)
{
    int x = ((const by_name *)a)->name, y = ((const by_name *)b)->name;
    return (x > y) - (x < y);
}


void sh5_bodies_free(sh5_bodies *b)
{
    for (int c = 0; c < 3; c++) {
        free(b->x[c]);
        free(b->v[c]);
    }
    free(b->m);
    free(b->name);
    free(b->xs);
    free(b->vs);
}

int sh5_bodies_gather(const sim *s, sh5_bodies *b)
{
    memset(b, 0, sizeof *b);
    int n = s->n; /* components [0, 2 npairs) and singles [2 npairs, n) */
    b->xs = malloc(sizeof(vec3) * s->cap);
    b->vs = malloc(sizeof(vec3) * s->cap);
    vec3 *xo = malloc(sizeof(vec3) * (n > 0 ? n : 1)), *vo = malloc(sizeof(vec3) * (n > 0 ? n : 1));
    double *mo = malloc(sizeof(double) * (n > 0 ? n : 1));
    by_name *order = malloc(sizeof(by_name) * (n > 0 ? n : 1));
    b->n = n;
    for (int c = 0; c < 3; c++) {
        b->x[c] = malloc(sizeof(double) * n);
        b->v[c] = malloc(sizeof(double) * n);
    }
    b->m = malloc(sizeof(double) * n);
    b->name = malloc(sizeof(int) * n);
    int ok = b->xs && b->vs && xo && vo && mo && order && b->m && b->name;
    for (int c = 0; c < 3; c++) ok = ok && b->x[c] && b->v[c];
    if (ok) {
        sim_predict_all(s, b->xs, b->vs);
        if (s->ks) {
            double mutual;
            /* reads the pairs only; its prototype is not const */
            ks_physical_state((sim *)s, (const double(*)[3])b->xs, (const double(*)[3])b->vs, mo, xo, vo, &mutual);
            /* components and chain members resolved, singles as they were */
            memcpy(b->xs, xo, sizeof(vec3) * n);
            memcpy(b->vs, vo, sizeof(vec3) * n);
        } else {
            memcpy(mo, s->m, sizeof(double) * n);
        }
        for (int i = 0; i < n; i++) order[i] = (by_name){ks_body_name(s, i), i};
        qsort(order, n, sizeof *order, cmp_name);
        for (int k = 0; k < n; k++) {
            int i = order[k].slot;
            for (int c = 0; c < 3; c++) {
                b->x[c][k] = b->xs[i][c];
                b->v[c][k] = b->vs[i][c];
            }
            b->m[k] = mo[i];
            b->name[k] = order[k].name;
        }
    }
    free(xo);
    free(vo);
    free(mo);
    free(order);
    if (!ok) sh5_bodies_free(b);
    return ok ? 0 : -1;
}

/* KS pair k: components in slots 2k, 2k+1, c.m. in slot n + k (sim.h);
 * semi-major axis and eccentricity of the resolved relative orbit. */
static int write_pairs(hid_t g, const sim *s, const sh5_bodies *b)
{
    int np = s->npairs;
    int *n1 = malloc(sizeof(int) * np), *n2 = malloc(sizeof(int) * np);
    double(*xc)[3] = malloc(sizeof(double[3]) * np), (*vc)[3] = malloc(sizeof(double[3]) * np);
    double *a = malloc(sizeof(double) * np), *e = malloc(sizeof(double) * np);
    double *m1 = malloc(sizeof(double) * np), *m2 = malloc(sizeof(double) * np);
    int rc = -1;
    if (!n1 || !n2 || !xc || !vc || !a || !e || !m1 || !m2) goto out;
    for (int k = 0; k < np; k++) {
        int i1 = 2 * k, i2 = 2 * k + 1, ic = s->n + k;
        n1[k] = s->name[i1];
        n2[k] = s->name[i2];
        m1[k] = s->m[i1];
        m2[k] = s->m[i2];
        double mb = m1[k] + m2[k], r[3], w[3], r2 = 0, w2 = 0, rw = 0;
        for (int c = 0; c < 3; c++) {
            xc[k][c] = b->xs[ic][c];
            vc[k][c] = b->vs[ic][c];
            r[c] = b->xs[i1][c] - b->xs[i2][c];
            w[c] = b->vs[i1][c] - b->vs[i2][c];
            r2 += r[c] * r[c];
            w2 += w[c] * w[c];
            rw += r[c] * w[c];
        }
        double rr = sqrt(r2);
        a[k] = 1.0 / (2.0 / rr - w2 / mb);
        double e2 = (1.0 - rr / a[k]) * (1.0 - rr / a[k]) + rw * rw / (a[k] * mb);
        e[k] = sqrt(fmax(e2, 0.0));
    }
    rc = sh5_dset(g, "KS_NAM1", H5T_NATIVE_INT, H5T_STD_I32LE, 1, np, n1, "name") ||
         sh5_dset(g, "KS_NAM2", H5T_NATIVE_INT, H5T_STD_I32LE, 1, np, n2, "name") ||
         sh5_dset(g, "KS_M1", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, np, m1, "N-body mass") ||
         sh5_dset(g, "KS_M2", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, np, m2, "N-body mass") ||
         sh5_dset(g, "KS_XCM", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, np, xc, "N-body length") ||
         sh5_dset(g, "KS_VCM", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, np, vc, "N-body velocity") ||
         sh5_dset(g, "KS_A", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, np, a, "N-body length") ||
         sh5_dset(g, "KS_ECC", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, np, e, "1")
             ? -1 : 0;
out:
    free(n1); free(n2); free(xc); free(vc); free(a); free(e); free(m1); free(m2);
    return rc;
}

static int write_attributes(hid_t g, const sim *s, const deck *dk, const diag *d, int64_t index)
{
    double tstar = snapshot_tstar_myr(dk->rbar, dk->zmbar, s->nzero);
    double vstar = snapshot_vstar_kms(dk->rbar, dk->zmbar, s->nzero);
    const double *xd = d ? d->xd : s->xd;
    int rc = 0;
    rc |= sh5_attr_d(g, "Time", s->time);
    rc |= sh5_attr_d(g, "Time_Myr", s->time * tstar);
    rc |= sh5_attr_i(g, "Step", index);
    rc |= sh5_attr_i(g, "N", s->n);
    /* escapers (KZ(23)) leave N below NZERO while the mass unit stays
     * NZERO ZMBAR Msun (NBODY6's), so M alone no longer gives Msun with N */
    rc |= sh5_attr_i(g, "NZERO", s->nzero);
    rc |= sh5_attr_i(g, "NPAIRS", s->npairs);
    rc |= sh5_attr_d(g, "TSTAR", tstar);
    rc |= sh5_attr_d(g, "VSTAR", vstar);
    rc |= sh5_attr_d(g, "RBAR", dk->rbar);
    rc |= sh5_attr_d(g, "ZMBAR", dk->zmbar);
    rc |= sh5_attr(g, "RDENS", H5T_NATIVE_DOUBLE, 1, 3, xd);
    rc |= sh5_attr_d(g, "RC", d ? d->rc : s->rc);
    rc |= sh5_attr_d(g, "RH", d ? d->rlagr[LAGR_HALF] : NAN);
    rc |= sh5_attr_d(g, "ETOT", d ? d->etot : NAN);
    rc |= sh5_attr_d(g, "EKIN", d ? d->kin : NAN);
    rc |= sh5_attr_d(g, "EPOT", d ? d->pot : NAN);
    rc |= sh5_attr_d(g, "QVIR", d ? d->qvir : NAN);
    rc |= sh5_attr_d(g, "MBOUND", d ? d->mbound : NAN);
    rc |= sh5_attr_d(g, "SIGMA", d ? d->sigma : NAN);
    double none[NLAGR];
    for (int k = 0; k < NLAGR; k++) none[k] = NAN;
    rc |= sh5_attr(g, "RLAGR", H5T_NATIVE_DOUBLE, 1, NLAGR, d ? d->rlagr : none);
    rc |= sh5_attr(g, "RLAGR_FRACTIONS", H5T_NATIVE_DOUBLE, 1, NLAGR, lagr_fractions);
    /* deck parameters (the values the run uses now: restarts may change some) */
    rc |= sh5_attr_d(g, "ETAI", s->p.etai);
    rc |= sh5_attr_d(g, "ETAR", s->p.etar);
    rc |= sh5_attr_d(g, "RS0", s->p.rs0);
    rc |= sh5_attr_d(g, "DTADJ", s->p.dtadj);
    rc |= sh5_attr_d(g, "DELTAT", s->p.deltat);
    rc |= sh5_attr_d(g, "TCRIT", s->p.tcrit);
    rc |= sh5_attr_d(g, "QE", s->p.qe);
    rc |= sh5_attr_d(g, "SMAX", s->p.smax);
    rc |= sh5_attr_d(g, "DTMIN", s->p.dtmin);
    rc |= sh5_attr_d(g, "RMIN", s->p.rmin);
    rc |= sh5_attr_d(g, "ETAU", s->p.etau);
    rc |= sh5_attr_d(g, "ECLOSE", s->p.eclose);
    rc |= sh5_attr_d(g, "GMIN", s->p.gmin);
    rc |= sh5_attr_d(g, "GMAX", s->p.gmax);
    rc |= sh5_attr_d(g, "Q", dk->q);
    rc |= sh5_attr_i(g, "NNBMAX", s->p.nnbmax0);
    rc |= sh5_attr_i(g, "NBMAX", s->nbmax);
    rc |= sh5_attr_i(g, "NFIX", dk->nfix);
    rc |= sh5_attr_i(g, "NCRIT", dk->ncrit);
    rc |= sh5_attr_i(g, "NRAND", dk->nrand);
    rc |= sh5_attr_i(g, "NRUN", dk->nrun);
    rc |= sh5_attr(g, "KZ", H5T_NATIVE_INT, 1, DECK_NKZ, dk->kz + 1);
    return rc ? -1 : 0;
}

static int write_bodies(hid_t g, const sh5_bodies *b)
{
    static const char *xn[3] = {"X1", "X2", "X3"}, *vn[3] = {"V1", "V2", "V3"};
    for (int c = 0; c < 3; c++) {
        if (sh5_dset(g, xn[c], H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, b->n, b->x[c], "N-body length (RBAR pc)") ||
            sh5_dset(g, vn[c], H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, b->n, b->v[c], "N-body velocity (VSTAR km/s)"))
            return -1;
    }
    if (sh5_dset(g, "M", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, b->n, b->m, "N-body mass (total 1 at the start; NZERO*ZMBAR Msun)") ||
        sh5_dset(g, "NAM", H5T_NATIVE_INT, H5T_STD_I32LE, 1, b->n, b->name, "name (1..NZERO)"))
        return -1;
    return 0;
}

/* KZ(19) = 3: each row's star (evol.h): type, luminosity, radius,
 * effective temperature, core mass, initial mass. */
static int write_stars(hid_t g, const sim *s, const sh5_bodies *b)
{
    int n = b->n, *kw = malloc(sizeof(int) * (n + 1));
    double *q = malloc(sizeof(double) * 5 * (n + 1));
    int rc = kw && q ? 0 : -1;
    for (int k = 0; rc == 0 && k < n; k++) {
        const sse_star *st = evol_star(s, b->name[k]);
        kw[k] = st ? st->kw : -1;
        q[k] = st ? st->lum : NAN;
        q[n + k] = st ? st->rad : NAN;
        q[2 * n + k] = st ? sse_teff(st->lum, st->rad) : NAN;
        q[3 * n + k] = st ? st->mc : NAN;
        q[4 * n + k] = st ? st->mzams : NAN;
    }
    if (rc == 0)
        rc = sh5_dset(g, "KW", H5T_NATIVE_INT, H5T_STD_I32LE, 1, n, kw, "stellar type 0..15 (docs/SSE.md)") ||
             sh5_dset(g, "L", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, q, "Lsun") ||
             sh5_dset(g, "RS", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, q + n, "Rsun") ||
             sh5_dset(g, "TE", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, q + 2 * n, "K") ||
             sh5_dset(g, "MC", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, q + 3 * n, "Msun (core mass)") ||
             sh5_dset(g, "M0", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n, q + 4 * n, "Msun (initial mass)")
                 ? -1 : 0;
    free(kw);
    free(q);
    return rc;
}

/* The binary list (reg/ks_binaries.c): every bound pair of stars, N-body
 * units; NBIN (attribute) rows, none when there are no binaries. */
static int write_binaries(hid_t g, const sim *s)
{
    ks_binary *b;
    const int nb = ks_binaries((sim *)s, &b); /* predicts; reads the pairs only */
    if (nb < 0) return -1;
    const size_t n = (size_t)(nb > 0 ? nb : 1);
    int *n1 = malloc(sizeof(int) * n), *n2 = malloc(sizeof(int) * n), *kind = malloc(sizeof(int) * n);
    double *m1 = malloc(sizeof(double) * n), *m2 = malloc(sizeof(double) * n);
    double *a = malloc(sizeof(double) * n), *e = malloc(sizeof(double) * n);
    double *eb = malloc(sizeof(double) * n), *per = malloc(sizeof(double) * n);
    double(*xc)[3] = malloc(sizeof(double[3]) * n);
    int rc = -1;
    if (!n1 || !n2 || !kind || !m1 || !m2 || !a || !e || !eb || !per || !xc) goto out;
    for (int k = 0; k < nb; k++) {
        n1[k] = b[k].name1;
        n2[k] = b[k].name2;
        kind[k] = b[k].kind;
        m1[k] = b[k].m1;
        m2[k] = b[k].m2;
        a[k] = b[k].a;
        e[k] = b[k].e;
        eb[k] = b[k].eb;
        per[k] = 2.0 * M_PI * sqrt(b[k].a * b[k].a * b[k].a / (b[k].m1 + b[k].m2));
        memcpy(xc[k], b[k].xcm, sizeof xc[k]);
    }
    rc = sh5_attr_i(g, "NBIN", nb) ||
         sh5_dset(g, "BIN_NAM1", H5T_NATIVE_INT, H5T_STD_I32LE, 1, nb, n1, "name") ||
         sh5_dset(g, "BIN_NAM2", H5T_NATIVE_INT, H5T_STD_I32LE, 1, nb, n2, "name") ||
         sh5_dset(g, "BIN_M1", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, m1, "N-body mass") ||
         sh5_dset(g, "BIN_M2", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, m2, "N-body mass") ||
         sh5_dset(g, "BIN_A", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, a, "N-body length") ||
         sh5_dset(g, "BIN_ECC", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, e, "1") ||
         sh5_dset(g, "BIN_P", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, per, "N-body time") ||
         sh5_dset(g, "BIN_EB", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, nb, eb, "N-body energy (-m1 m2 / 2a)") ||
         sh5_dset(g, "BIN_XCM", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, nb, xc, "N-body length") ||
         sh5_dset(g, "BIN_KIND", H5T_NATIVE_INT, H5T_STD_I32LE, 1, nb, kind,
              "0 KS pair, 1 not regularised, 2 merged hierarchy's inner pair, 3 chain members")
             ? -1 : 0;
out:
    free(b); free(n1); free(n2); free(kind); free(m1); free(m2); free(a); free(e); free(eb); free(per);
    free(xc);
    return rc;
}

hid_t sh5_create(const char *tmp)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own message instead of HDF5's stack */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    if (fapl >= 0) H5Pset_file_locking(fapl, 0, 1); /* one writer, and NFS-safe */
#endif
    hid_t fcpl = sh5_untimed_plist(H5P_FILE_CREATE); /* the root group's stamp */
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0) H5Pclose(fapl);
    sh5_plist_close(fcpl);
    return f;
}

hid_t sh5_group(hid_t f, const char *name)
{
    hid_t gcpl = sh5_untimed_plist(H5P_GROUP_CREATE);
    hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    sh5_plist_close(gcpl);
    return g;
}

int sh5_finish(hid_t f, hid_t g, int rc, int injected, const char *tmp, const char *path, char *err,
               size_t errlen)
{
    if (g >= 0 && H5Gclose(g) < 0) rc = -1;
    if (f >= 0 && H5Fclose(f) < 0) rc = -1;
    int e = errno;
    if (injected && rc == 0) {
        rc = -1;
        e = ENOSPC;
        snprintf(err, errlen, "%s: write (NBODY6C_FAULT) failed: %s (the earlier snapshots are kept)",
                 path, strerror(e));
    } else if (rc) {
        snprintf(err, errlen, "%s: HDF5 write failed%s%s (the earlier snapshots are kept)", path,
                 e ? ": " : "", e ? strerror(e) : "");
    }
    if (rc) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    return durable_commit(tmp, path, err, errlen);
}

int snapshot_write(const char *path, const sim *s, const deck *dk, const diag *d, int64_t index,
                   char *err, size_t errlen)
{
    char tmp[4200], gname[64];
    durable_tmp_name(path, tmp, sizeof tmp);
    snprintf(gname, sizeof gname, "Step#%06lld", (long long)index);
    sh5_bodies b;
    if (sh5_bodies_gather(s, &b)) {
        snprintf(err, errlen, "%s: out of memory for the snapshot", path);
        return -1;
    }
    errno = 0;
    int injected = durable_fault("snapshot", index);
    hid_t f = sh5_create(tmp);
    int rc = f < 0 ? -1 : 0;
    hid_t g = -1;
    if (rc == 0) {
        rc = sh5_attr_str(f, "format", SNAPSHOT_FORMAT) || sh5_attr_i(f, "format_version", SNAPSHOT_FORMAT_VERSION) ||
             sh5_attr_str(f, "code", "nbody6c " NBODY6C_VERSION) || sh5_attr_str(f, "step_group", gname) ? -1 : 0;
    }
    if (rc == 0) {
        g = sh5_group(f, gname);
        rc = g < 0 ? -1 : 0;
    }
    if (rc == 0) rc = write_attributes(g, s, dk, d, index);
    if (rc == 0 && !injected) rc = write_bodies(g, &b);
    if (rc == 0 && !injected && s->npairs > 0) rc = write_pairs(g, s, &b);
    if (rc == 0 && !injected && s->evol) rc = write_stars(g, s, &b);
    if (rc == 0 && !injected) rc = write_binaries(g, s);
    sh5_bodies_free(&b);
    return sh5_finish(f, g, rc, injected, tmp, path, err, errlen);
}
