/* snapshot.h — HDF5 snapshots of a run (docs/SNAPSHOTS.md has the layout):
 * one file per snapshot, DIR/snap.NNNNNN.h5, written to a temporary name and
 * renamed (durable.h), holding one group "Step#NNNNNN" with the time, units,
 * deck parameters, density centre, core and half-mass radius as attributes,
 * and X1..X3, V1..V3, M, NAM of every body (KS pairs resolved into their
 * components) plus the KS pair table when there are pairs and the binary
 * list (every bound pair of stars, reg/ks_binaries.c).
 *
 * snapshot.c writes them, snapread.c reads them back (tests, --ic);
 * snapshot_nb6pp.c writes the same bodies in NBODY6++GPU's layout
 * (--snapshot-layout nbody6pp). */
#ifndef NBODY6C_SNAPSHOT_H
#define NBODY6C_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "integ/checks.h"
#include "io/deck.h"
#include "core/sim.h"

#define SNAPSHOT_FORMAT "nbody6c-snapshot"
#define SNAPSHOT_FORMAT_VERSION 1

/* NBODY6's units (units.f), computed as it does so that times compare with
 * its output: GM = 6.67428e-8 * 1.989e33 cgs, pc = 3.0856776e18 cm, a year
 * of 3.15e7 s; T* = sqrt(pc/GM) pc / 3.15e13 * sqrt(rbar^3 / (n zmbar)) Myr
 * = 14.935 sqrt(rbar^3 / (n zmbar)) Myr (the "14.94" of the literature; a
 * Julian year and the IAU 2015 G give 14.91, 0.2 % less), V* = 1e-5
 * sqrt(GM/pc) sqrt(n zmbar / rbar) = 0.06559 sqrt(n zmbar / rbar) km/s.
 * rbar in pc, zmbar the mean mass in Msun. */
double snapshot_tstar_myr(double rbar, double zmbar, int n);
double snapshot_vstar_kms(double rbar, double zmbar, int n);

/* DIR/snap.NNNNNN.h5 (six digits, more when needed). */
void snapshot_path(char *buf, size_t len, const char *dir, int64_t index);

/* Writes snapshot number index of s at s->time; d: the measurement made at
 * this time (density centre, core and half-mass radius, energies), dk: the
 * deck (units, parameters).  Returns 0, or -1 with a message in err, the
 * temporary file removed and any earlier snapshot untouched. */
int snapshot_write(const char *path, const sim *s, const deck *dk, const diag *d, int64_t index,
                   char *err, size_t errlen);

/* NBODY6++GPU's layout (snapshot_nb6pp.c, docs/SNAPSHOTS.md): the file
 * DIR/snap.40_TIME.h5part, TIME with as many decimals as DELTAT needs (that
 * code's file names); written as snapshot_write writes (same time, same
 * failure handling, index counts for NBODY6C_FAULT). */
#define SNAPSHOT_NB6PP_FORMAT "nbody6pp-h5part (nbody6c)"
void snapshot_nb6pp_path(char *buf, size_t len, const char *dir, double time, double deltat);
int snapshot_nb6pp_write(const char *path, const sim *s, const deck *dk, const diag *d, int64_t index,
                         char *err, size_t errlen);

/* A snapshot read back (snapread.c): bodies sorted by name. */
typedef struct snapshot_data {
    int64_t index;
    int n, npairs;
    int nzero; /* N at the start (NZERO; n when the file has none): M NZERO ZMBAR is Msun */
    double time, time_myr, tstar, vstar, rbar, zmbar;
    double rdens[3], rc, rh;
    double (*x)[3], (*v)[3];
    double *m;
    int *name;
    /* KS pair table (npairs rows; NULL when none) */
    int *ks_name1, *ks_name2;
    double (*ks_xcm)[3], (*ks_vcm)[3];
    double *ks_a, *ks_ecc;
    /* the binary list (nbin rows; NULL when none or an older file) */
    int nbin;
    int *bin_name1, *bin_name2, *bin_kind;
    double *bin_m1, *bin_m2, *bin_a, *bin_ecc, *bin_eb;
} snapshot_data;

/* 1 when path starts with the HDF5 signature. */
int snapshot_is_hdf5(const char *path);

/* Reads a whole snapshot.  Returns 0, or -1 with a message in err (nothing
 * allocated left behind). */
int snapshot_read(const char *path, snapshot_data *sd, char *err, size_t errlen);
void snapshot_data_free(snapshot_data *sd);

/* Initial conditions from a snapshot (--ic FILE.h5 with KZ(22) = 2 or 3):
 * exactly n bodies, in the order of their names. */
int snapshot_read_bodies(const char *path, int n, double *m, double (*x)[3], double (*v)[3],
                         char *err, size_t errlen);

#endif
