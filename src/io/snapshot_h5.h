/* snapshot_h5.h — what the two snapshot writers share (snapshot.c has them):
 * HDF5 attributes and datasets without creation-time stamps, so that a file
 * is a function of the state alone; every body at the snapshot time; the
 * temporary file made, closed and renamed into place (durable.h).
 * Internal to src/io/snapshot*.c.  Each int function returns 0 or -1. */
#ifndef NBODY6C_SNAPSHOT_H5_H
#define NBODY6C_SNAPSHOT_H5_H

#include <hdf5.h>
#include "core/sim.h"

int sh5_attr(hid_t loc, const char *name, hid_t type, int rank, hsize_t n, const void *val);
int sh5_attr_d(hid_t loc, const char *name, double v);
int sh5_attr_i(hid_t loc, const char *name, long long v);
int sh5_attr_str(hid_t loc, const char *name, const char *text);
hid_t sh5_untimed_plist(hid_t cls);
void sh5_plist_close(hid_t p);

/* A dataset of shape (n) or (n, cols) with a "units" attribute (NULL: none). */
int sh5_dset(hid_t loc, const char *name, hid_t mem, hid_t file, int cols, hsize_t n,
             const void *data, const char *units);

/* Every body at s->time: singles and c.m. bodies predicted to high order
 * (the energy check's predictor), KS components and chain members resolved
 * (ks_physical_state), rows sorted by name.  xs, vs keep the slot order
 * (components resolved, c.m. bodies after the N physical ones). */
typedef struct sh5_bodies {
    int n;
    double *x[3], *v[3], *m;
    int *name;
    vec3 *xs, *vs;
} sh5_bodies;
int sh5_bodies_gather(const sim *s, sh5_bodies *b);
void sh5_bodies_free(sh5_bodies *b);

/* The temporary file tmp, created (HDF5 errors silenced: the caller
 * writes the message); a group in it.  Negative on failure. */
hid_t sh5_create(const char *tmp);
hid_t sh5_group(hid_t f, const char *name);

/* Closes g and f (either may be negative), then renames tmp to path when
 * rc is 0 and no fault was injected, else removes tmp and sets err. */
int sh5_finish(hid_t f, hid_t g, int rc, int injected, const char *tmp, const char *path, char *err,
               size_t errlen);

#endif
