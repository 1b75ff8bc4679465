/* evol.h — stellar evolution coupled to the dynamics (KZ(19) = 3): every
 * star's SSE state (sse/), brought up to the cluster's time whenever its
 * next update is due, and what that does to the cluster: mass lost by
 * winds and at remnant formation, supernova and white-dwarf kicks,
 * massless remnants removed.  docs/STELLAR_EVOLUTION.md states the choices.
 *
 * The state is kept by star name (1..NZERO), which no event changes; the
 * bodies' masses in s->m follow the stars' masses whenever a change is
 * applied (reg/ks_star.c moves the star out of its pair, chain or merged
 * hierarchy first and corrects every force polynomial).  The energy that
 * each change takes from or gives to the cluster is booked (evol_booked),
 * so that an energy check's dE stays the integration's error. */
#ifndef NBODY6C_EVOL_H
#define NBODY6C_EVOL_H

#include <stdint.h>
#include <stdio.h>
#include "core/bytes.h"
#include "core/sim.h"
#include "sse/sse.h"

/* Kicks at remnant formation (NBODY6's kick.f as shipped).  Speeds in
 * km/s; a negative speed is a flat distribution of the magnitude in
 * [0, |v|], a positive one a Maxwellian of that one-dimensional
 * dispersion, zero none. */
typedef struct evol_kicks {
    double ns;          /* neutron stars (NBODY6: -100) */
    double ec;          /* electron-capture NS (mass < 1.28 Msun): < 0 the NS
                           distribution scaled by |ec|, > 0 a Maxwellian (-0.25) */
    int bh;             /* 0 none, 1 as NS, 2 as NS times the ejected fraction
                           dm / (m_BH + dm) (NBODY6: 2) */
    double wd;          /* white dwarfs, KZ(25) > 0 only: Maxwellian dispersion (2) */
    double wd_max;      /* the largest WD kick (6) */
    int wd_on;          /* KZ(25) > 0 */
} evol_kicks;

/* NBODY6's defaults. */
evol_kicks evol_kicks_default(int kz25);
/* Parses "ns=-100,ec=-0.25,bh=2,wd=2,wdmax=6" (any subset, in any order)
 * over *k; returns 0, or -1 with a message naming the bad item. */
int evol_kicks_parse(const char *spec, evol_kicks *k, char *err, size_t errlen);

typedef struct evol_options {
    double z;           /* ZMET (clamped to SSE's range by the caller) */
    double epoch0;      /* EPOCH0, Myr: age at t = 0 is -EPOCH0 */
    double tstar;       /* Myr per N-body time unit */
    double munit;       /* Msun per N-body mass unit */
    double vstar;       /* km/s per N-body velocity unit */
    double rstar;       /* Rsun per N-body length unit */
    evol_kicks kicks;
    uint64_t seed;      /* the kicks' random numbers */
} evol_options;

/* What happened so far (the log, summary.json). */
typedef struct evol_counts {
    int64_t updates;        /* SSE updates */
    int64_t applied;        /* mass changes applied to the dynamics */
    int64_t sn_ns, sn_bh;   /* neutron stars and black holes formed */
    int64_t wd;             /* white dwarfs formed */
    int64_t kicks;          /* kicks given */
    int64_t removed;        /* massless remnants removed */
    int64_t pairs_reformed; /* KS pairs formed again after a component's change */
    double dm;              /* Msun lost to the cluster */
} evol_counts;

/* Collisions (evol_collisions), kept apart from evol_counts so that a
 * checkpoint written before they existed still reads. */
typedef struct evol_coll_counts {
    int64_t n;              /* stars merged (each event once) */
    int64_t where[3];       /* found in a KS pair, the chain, a merged hierarchy */
    double dm;              /* Msun thrown off in them (Thorne-Zytkow envelopes, disruptions) */
} evol_coll_counts;

/* Common envelopes (a collision with a giant-like star, evol_collisions):
 * checkpoint version 3 added them. */
typedef struct evol_ce_counts {
    int64_t n;              /* common-envelope events */
    int64_t binaries;       /* two stars left on a tighter orbit */
    int64_t coalesced;      /* one star left (the cores coalesced) */
    int64_t touched;        /* still touching after: merged as a collision */
    double dm;              /* Msun of envelope thrown off */
} evol_ce_counts;

typedef struct evol_state {
    evol_options o;
    sse_consts c;
    int nstar;
    sse_star *st;           /* star name k at st[k - 1] */
    double *mdyn;           /* Msun: the mass the dynamics carries for each star */
    unsigned char *gone;    /* removed from the cluster (escaped, massless, merged into another) */
    double *radius;         /* N-body length: each live star's radius (s->star_radius) */
    double tmin;            /* Myr: the earliest next update */
    double booked;          /* the energy booked: the sum of E_before - E_after */
    double audit_max;       /* --energy-audit: the largest |exact - local| of a change's energy */
    evol_counts cnt;
    evol_coll_counts coll;
    evol_ce_counts ce;
    uint64_t rng;
    FILE *events;           /* events.txt (NULL: none); the caller opens and closes it */
    long long events_bytes; /* its length at the checkpoint this state was read from */
} evol_state;

/* Creates the state for the N stars of s (masses s->m in N-body units,
 * names 1..N at slots as sim_create left them), every star on the ZAMS at
 * age -EPOCH0, and attaches it as s->evol.  Returns 0 or -1 (err). */
int evol_open(sim *s, const evol_options *o, char *err, size_t errlen);
/* The state allocated and attached without stars (a restart: evol_load
 * fills it). */
int evol_create(sim *s, const evol_options *o, char *err, size_t errlen);
void evol_close(sim *s);

/* The stars whose update is due at s->time (a block time) are brought up to
 * it and their changes applied.  Returns the number of changes applied (> 0:
 * the caller rebuilds the schedule), or -1 with err; *resend_all is set
 * when slots were compacted (a removal): the caller sends every body and
 * list to the force libraries again, as after escapers. */
int evol_step(sim *s, int *resend_all, char *err, size_t errlen);

/* The collisions reg/ found (ks_collide.c) merged (after the block in
 * which they were found, at its time): each pair of stars becomes one, its
 * state from sse_merge, the dynamics through ks_star_merge, the energy
 * booked as a star change is (ledger kind star_booked), a line "merge" in
 * events.txt.  When one of them is giant-like (BSE's common-envelope
 * cases) the common envelope decides (sse_ce_collision): an eccentric
 * passage strips the giant's envelope and leaves the two on a tighter
 * orbit (placed at its pericentre in the old orbit's plane and direction,
 * their c.m. kept: ks_star_reshape, then a KS pair formed again), a
 * spiral-in may coalesce them (the product at their c.m.), what still
 * touches merges; lines "ce" / "ce-merge".  Returns the number of events
 * or -1 with err; *resend_all as for evol_step. */
int evol_collisions(sim *s, int *resend_all, char *err, size_t errlen);

/* The energy booked so far (0 without stellar evolution): part of the total
 * energy, as the escapers' is. */
double evol_booked(const sim *s);

/* A star left the cluster (an escaper): its state stays for the record. */
void evol_star_gone(sim *s, int name);

/* The star named `name` (NULL: none, or no stellar evolution). */
const sse_star *evol_star(const sim *s, int name);

/* Counts of the live stars by type, and their total mass (Msun). */
void evol_census(const sim *s, int64_t by_type[16], double *mass);

/* The checkpoint section SEVO (io/checkpoint.c keeps the container):
 * evol_save writes it; evol_load reads it into the state evol_open made
 * (evol_create) from the same deck, returning 0 or -1 (malformed, or
 * another metallicity, age or N). */
void evol_save(wbuf *w, const sim *s);
int evol_load(rbuf *r, sim *s);

/* Whether a star's update is due at s->time (cheap: one comparison). */
static inline int evol_due(const sim *s)
{
    return s->evol && s->time * s->evol->o.tstar >= s->evol->tmin;
}

#endif
