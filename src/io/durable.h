/* durable.h — files that are whole or absent: write to a temporary name in
 * the same folder, fsync it, rename it over the final name, fsync the folder.
 * Until the rename the previous file of that name stays as it was, so a
 * crash, a full disk or a kill at any moment leaves either the old or the new
 * file, never a torn one.
 *
 * Fault injection for tests (no root-only tricks needed): the environment
 * variable NBODY6C_FAULT="KIND@K" (e.g. "snapshot@3", "checkpoint@1") makes
 * the K-th and later writes of that kind fail as a full disk would (ENOSPC),
 * after the temporary file was partly written.  Several KIND@K may be given,
 * separated by commas. */
#ifndef NBODY6C_DURABLE_H
#define NBODY6C_DURABLE_H

#include <stddef.h>
#include <stdint.h>

/* The temporary name used for path: "DIR/.NAME.tmp" (hidden, same folder so
 * that rename is atomic). */
void durable_tmp_name(const char *path, char *tmp, size_t len);

/* Writes len bytes to path durably.  Returns 0, or -1 with errno set and a
 * message in err (the temporary file removed, the old path untouched). */
int durable_write(const char *path, const void *data, size_t len, const char *kind,
                  int64_t seq, char *err, size_t errlen);

/* For writers that produce the temporary file themselves (HDF5): fsyncs tmp,
 * renames it to path and fsyncs the folder.  Returns 0 or -1 (err set, tmp
 * removed). */
int durable_commit(const char *tmp, const char *path, char *err, size_t errlen);

/* 1 when NBODY6C_FAULT asks the seq-th (1-based) write of this kind to fail. */
int durable_fault(const char *kind, int64_t seq);

/* fsync of the folder holding path (after a rename). */
int durable_sync_dir(const char *path);

/* FNV-1a 64-bit hash, continued from h (start with DURABLE_FNV_INIT). */
#define DURABLE_FNV_INIT 0xcbf29ce484222325ULL
uint64_t durable_fnv64(uint64_t h, const void *data, size_t len);

#endif
