/* checkpoint.h — the whole state of a run in one binary file, so that
 * `nbody6c --restart FILE` continues it bit-identically (same binary,
 * backends and thread count).
 *
 * File layout (all numbers in the writer's byte order, which must be the
 * reader's: a file from a machine of the other byte order is refused):
 *
 *     header   "NB6CCKPT" (8 bytes), u32 format version, u32 byte-order mark
 *              0x01020304, u32 header size (32), u32 section count,
 *              u64 file length
 *     sections each: tag (4 chars), u32 flags (bit 0: required — a reader
 *              that does not know the tag refuses the file), u64 payload
 *              length, payload
 *     trailer  "NB6C-END" (8 bytes), u64 FNV-1a 64 of every byte before it
 *
 * Sections of format 1 (checkpoint.c says what each holds): DECK the deck
 * values, PARM the run parameters, SIMS the scalars, counters and timers of
 * struct sim, BODY every per-slot array over [0, ntot), LIST the neighbour
 * lists, RUNS the run's schedule and log state (struct run_state), KSST the
 * KS pairs (ks_state.h: counters, each pair's orbit, perturber list and
 * resolved state).  All are required; a reader refuses a file with a
 * required tag it does not know, and a later format can add optional ones.
 * State added to struct sim or ks_state must be added here (and the format
 * version raised): tests/test_checkpoint.c compares every field it knows.
 *
 * The reader takes the whole file into memory and checks length, magic,
 * version, byte order, trailer and checksum before it parses anything, then
 * checks every count and index against the sizes; a truncated, corrupted or
 * foreign file is refused with a message, never half-read.  The writer goes
 * through durable.h (temporary name, fsync, rename, folder fsync), so the
 * previous checkpoint stays until the new one is complete. */
#ifndef NBODY6C_CHECKPOINT_H
#define NBODY6C_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include "io/deck.h"
#include "io/runstate.h"
#include "core/sim.h"

#define CHECKPOINT_MAGIC "NB6CCKPT"
#define CHECKPOINT_TRAILER "NB6C-END"
#define CHECKPOINT_VERSION 1

/* DIR/checkpoint.bin */
void checkpoint_path(char *buf, size_t len, const char *dir);

/* Writes the state durably; seq numbers the checkpoints of the run (for the
 * NBODY6C_FAULT switch).  Returns 0, or -1 with a message in err (the
 * previous file untouched). */
int checkpoint_write(const char *path, const sim *s, const deck *dk, const run_state *rs,
                     int64_t seq, char *err, size_t errlen);

/* Serialises into a new malloc'ed buffer (*len bytes); NULL when out of
 * memory.  checkpoint_write writes this buffer. */
unsigned char *checkpoint_encode(const sim *s, const deck *dk, const run_state *rs, size_t *len);

/* Reads and verifies a checkpoint.  Returns a new sim with every array and
 * scalar restored (force libraries not open, s->bs NULL: the caller rebuilds
 * them; the KS state is open and restored), the deck in *dk and the run
 * state in *rs; or NULL with a message in
 * err.  An NBODY6 fort.1 dump is recognised and refused as such. */
sim *checkpoint_read(const char *path, deck *dk, run_state *rs, char *err, size_t errlen);
sim *checkpoint_decode(const unsigned char *buf, size_t len, const char *name, deck *dk,
                       run_state *rs, char *err, size_t errlen);

#endif
