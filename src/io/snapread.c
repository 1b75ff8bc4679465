/* snapread.c — reads an HDF5 snapshot back (the tests' reader and the
 * --ic FILE.h5 initial conditions).  Every dataset's shape is checked
 * against N before it is read; on any error nothing stays allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "io/snapshot.h"

int snapshot_is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char buf[8];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, 8, f);
    fclose(f);
    return n == 8 && memcmp(buf, sig, 8) == 0;
}

void snapshot_data_free(snapshot_data *sd)
{
    free(sd->x); free(sd->v); free(sd->m); free(sd->name);
    free(sd->ks_name1); free(sd->ks_name2); free(sd->ks_xcm); free(sd->ks_vcm);
    free(sd->ks_a); free(sd->ks_ecc);
    free(sd->bin_name1); free(sd->bin_name2); free(sd->bin_kind); free(sd->bin_m1); free(sd->bin_m2);
    free(sd->bin_a); free(sd->bin_ecc); free(sd->bin_eb);
    memset(sd, 0, sizeof *sd);
}

static int read_attr(hid_t loc, const char *name, hid_t type, void *val)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = H5Aread(a, type, val) < 0 ? -1 : 0;
    H5Aclose(a);
    return rc;
}

/* Reads dataset name of shape (n) or (n, cols) into buf. */
static int read_dset(hid_t g, const char *name, hid_t type, int n, int cols, void *buf,
                     char *err, size_t errlen)
{
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0) {
        snprintf(err, errlen, "dataset %s missing", name);
        return -1;
    }
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) {
        snprintf(err, errlen, "dataset %s cannot be opened", name);
        return -1;
    }
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_ndims(sp);
    if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    int ok = rank == (cols > 1 ? 2 : 1) && dims[0] == (hsize_t)n && (cols == 1 || dims[1] == (hsize_t)cols);
    if (!ok) {
        snprintf(err, errlen, "dataset %s has the wrong shape for N = %d", name, n);
        H5Dclose(d);
        return -1;
    }
    int rc = n > 0 && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
    if (rc) snprintf(err, errlen, "dataset %s cannot be read", name);
    H5Dclose(d);
    return rc;
}

/* The first group named Step#... */
static hid_t open_step(hid_t f, char *name, size_t len)
{
    H5G_info_t info;
    if (H5Gget_info(f, &info) < 0) return -1;
    for (hsize_t k = 0; k < info.nlinks; k++) {
        ssize_t l = H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, len, H5P_DEFAULT);
        if (l > 0 && strncmp(name, "Step#", 5) == 0) return H5Gopen2(f, name, H5P_DEFAULT);
    }
    return -1;
}

static int read_bodies(hid_t g, snapshot_data *sd, char *err, size_t errlen)
{
    int n = sd->n;
    size_t nn = n > 0 ? (size_t)n : 1;
    sd->x = malloc(sizeof(double[3]) * nn);
    sd->v = malloc(sizeof(double[3]) * nn);
    sd->m = malloc(sizeof(double) * nn);
    sd->name = malloc(sizeof(int) * nn);
    double *col = malloc(sizeof(double) * nn);
    if (!sd->x || !sd->v || !sd->m || !sd->name || !col) {
        free(col);
        snprintf(err, errlen, "out of memory for %d bodies", n);
        return -1;
    }
    static const char *xn[3] = {"X1", "X2", "X3"}, *vn[3] = {"V1", "V2", "V3"};
    for (int c = 0; c < 3; c++) {
        if (read_dset(g, xn[c], H5T_NATIVE_DOUBLE, n, 1, col, err, errlen)) goto fail;
        for (int i = 0; i < n; i++) sd->x[i][c] = col[i];
        if (read_dset(g, vn[c], H5T_NATIVE_DOUBLE, n, 1, col, err, errlen)) goto fail;
        for (int i = 0; i < n; i++) sd->v[i][c] = col[i];
    }
    free(col);
    if (read_dset(g, "M", H5T_NATIVE_DOUBLE, n, 1, sd->m, err, errlen) ||
        read_dset(g, "NAM", H5T_NATIVE_INT, n, 1, sd->name, err, errlen))
        return -1;
    return 0;
fail:
    free(col);
    return -1;
}

static int read_pairs(hid_t g, snapshot_data *sd, char *err, size_t errlen)
{
    int np = sd->npairs;
    if (np == 0) return 0;
    sd->ks_name1 = malloc(sizeof(int) * np);
    sd->ks_name2 = malloc(sizeof(int) * np);
    sd->ks_xcm = malloc(sizeof(double[3]) * np);
    sd->ks_vcm = malloc(sizeof(double[3]) * np);
    sd->ks_a = malloc(sizeof(double) * np);
    sd->ks_ecc = malloc(sizeof(double) * np);
    if (!sd->ks_name1 || !sd->ks_name2 || !sd->ks_xcm || !sd->ks_vcm || !sd->ks_a || !sd->ks_ecc) {
        snprintf(err, errlen, "out of memory for %d pairs", np);
        return -1;
    }
    return read_dset(g, "KS_NAM1", H5T_NATIVE_INT, np, 1, sd->ks_name1, err, errlen) ||
           read_dset(g, "KS_NAM2", H5T_NATIVE_INT, np, 1, sd->ks_name2, err, errlen) ||
           read_dset(g, "KS_XCM", H5T_NATIVE_DOUBLE, np, 3, sd->ks_xcm, err, errlen) ||
           read_dset(g, "KS_VCM", H5T_NATIVE_DOUBLE, np, 3, sd->ks_vcm, err, errlen) ||
           read_dset(g, "KS_A", H5T_NATIVE_DOUBLE, np, 1, sd->ks_a, err, errlen) ||
           read_dset(g, "KS_ECC", H5T_NATIVE_DOUBLE, np, 1, sd->ks_ecc, err, errlen)
               ? -1 : 0;
}

/* The binary list; a file written before it had none (NBIN absent). */
static int read_binaries(hid_t g, snapshot_data *sd, char *err, size_t errlen)
{
    long long nb = 0;
    if (read_attr(g, "NBIN", H5T_NATIVE_LLONG, &nb) || nb <= 0) return 0;
    if (nb > sd->n) {
        snprintf(err, errlen, "NBIN %lld is more than the N = %d bodies allow", nb, sd->n);
        return -1;
    }
    int n = (int)nb;
    sd->nbin = n;
    sd->bin_name1 = malloc(sizeof(int) * n);
    sd->bin_name2 = malloc(sizeof(int) * n);
    sd->bin_kind = malloc(sizeof(int) * n);
    sd->bin_m1 = malloc(sizeof(double) * n);
    sd->bin_m2 = malloc(sizeof(double) * n);
    sd->bin_a = malloc(sizeof(double) * n);
    sd->bin_ecc = malloc(sizeof(double) * n);
    sd->bin_eb = malloc(sizeof(double) * n);
    if (!sd->bin_name1 || !sd->bin_name2 || !sd->bin_kind || !sd->bin_m1 || !sd->bin_m2 || !sd->bin_a ||
        !sd->bin_ecc || !sd->bin_eb) {
        snprintf(err, errlen, "out of memory for %d binaries", n);
        return -1;
    }
    return read_dset(g, "BIN_NAM1", H5T_NATIVE_INT, n, 1, sd->bin_name1, err, errlen) ||
           read_dset(g, "BIN_NAM2", H5T_NATIVE_INT, n, 1, sd->bin_name2, err, errlen) ||
           read_dset(g, "BIN_KIND", H5T_NATIVE_INT, n, 1, sd->bin_kind, err, errlen) ||
           read_dset(g, "BIN_M1", H5T_NATIVE_DOUBLE, n, 1, sd->bin_m1, err, errlen) ||
           read_dset(g, "BIN_M2", H5T_NATIVE_DOUBLE, n, 1, sd->bin_m2, err, errlen) ||
           read_dset(g, "BIN_A", H5T_NATIVE_DOUBLE, n, 1, sd->bin_a, err, errlen) ||
           read_dset(g, "BIN_ECC", H5T_NATIVE_DOUBLE, n, 1, sd->bin_ecc, err, errlen) ||
           read_dset(g, "BIN_EB", H5T_NATIVE_DOUBLE, n, 1, sd->bin_eb, err, errlen)
               ? -1 : 0;
}

int snapshot_read(const char *path, snapshot_data *sd, char *err, size_t errlen)
{
    memset(sd, 0, sizeof *sd);
    char why[512] = "";
    if (!snapshot_is_hdf5(path)) {
        snprintf(err, errlen, "%s: not an HDF5 file", path);
        return -1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        snprintf(err, errlen, "%s: HDF5 cannot open it", path);
        return -1;
    }
    char gname[256];
    hid_t g = open_step(f, gname, sizeof gname);
    long long n = -1, np = 0, step = 0;
    int rc = -1;
    if (g < 0) {
        snprintf(why, sizeof why, "no Step# group");
        goto out;
    }
    if (read_attr(g, "N", H5T_NATIVE_LLONG, &n) || n < 0 || n > (1LL << 30) ||
        read_attr(g, "Time", H5T_NATIVE_DOUBLE, &sd->time)) {
        snprintf(why, sizeof why, "%s: attributes N and Time missing or invalid", gname);
        goto out;
    }
    if (read_attr(g, "NPAIRS", H5T_NATIVE_LLONG, &np) || np < 0 || 2 * np > n) np = 0;
    read_attr(g, "Step", H5T_NATIVE_LLONG, &step);
    sd->index = step;
    sd->n = (int)n;
    sd->npairs = (int)np;
    long long nz = n; /* snapshots before escapers existed: N was NZERO */
    if (read_attr(g, "NZERO", H5T_NATIVE_LLONG, &nz) || nz < n || nz > (1LL << 30)) nz = n;
    sd->nzero = (int)nz;
    sd->time_myr = sd->tstar = sd->vstar = sd->rbar = sd->zmbar = sd->rc = sd->rh = 0.0;
    read_attr(g, "Time_Myr", H5T_NATIVE_DOUBLE, &sd->time_myr);
    read_attr(g, "TSTAR", H5T_NATIVE_DOUBLE, &sd->tstar);
    read_attr(g, "VSTAR", H5T_NATIVE_DOUBLE, &sd->vstar);
    read_attr(g, "RBAR", H5T_NATIVE_DOUBLE, &sd->rbar);
    read_attr(g, "ZMBAR", H5T_NATIVE_DOUBLE, &sd->zmbar);
    read_attr(g, "RDENS", H5T_NATIVE_DOUBLE, sd->rdens);
    read_attr(g, "RC", H5T_NATIVE_DOUBLE, &sd->rc);
    read_attr(g, "RH", H5T_NATIVE_DOUBLE, &sd->rh);
    if (read_bodies(g, sd, why, sizeof why) || read_pairs(g, sd, why, sizeof why) ||
        read_binaries(g, sd, why, sizeof why))
        goto out;
    rc = 0;
out:
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    if (rc) {
        snprintf(err, errlen, "%s: not a readable nbody6c snapshot: %s", path, why);
        snapshot_data_free(sd);
    }
    return rc;
}

typedef struct { int name, k; } nk;
static int cmp_nk(const void *a, const void *b)
{
    int x = ((const nk *)a)->name, y = ((const nk *)b)->name;
    return (x > y) - (x < y);
}

int snapshot_read_bodies(const char *path, int n, double *m, double (*x)[3], double (*v)[3],
                         char *err, size_t errlen)
{
    snapshot_data sd;
    if (snapshot_read(path, &sd, err, errlen)) return -1;
    if (sd.n != n) {
        snprintf(err, errlen, "%s: holds %d bodies, the deck asks for N = %d", path, sd.n, n);
        snapshot_data_free(&sd);
        return -1;
    }
    nk *o = malloc(sizeof(nk) * (n > 0 ? n : 1));
    if (!o) {
        snprintf(err, errlen, "out of memory");
        snapshot_data_free(&sd);
        return -1;
    }
    for (int k = 0; k < n; k++) o[k] = (nk){sd.name[k], k};
    qsort(o, n, sizeof *o, cmp_nk);
    for (int i = 0; i < n; i++) {
        int k = o[i].k;
        m[i] = sd.m[k];
        memcpy(x[i], sd.x[k], sizeof(double[3]));
        memcpy(v[i], sd.v[k], sizeof(double[3]));
    }
    free(o);
    snapshot_data_free(&sd);
    return 0;
}
