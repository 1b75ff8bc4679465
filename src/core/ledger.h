/* ledger.h — where the energy goes: every energy check's ΔE split by cause.
 *
 * The measured total E (checks.c, ks_measure.c) changes between two checks
 * by what the integration loses.  Some of that change happens at discrete
 * events, which the code that makes them measures and records here:
 *
 *   ks_form    a KS pair formed: the measure goes over from two singles to a
 *              c.m. point + EBIN (exactly zero in exact arithmetic: the same
 *              state written two ways; what is left is rounding)
 *   ks_term    a KS pair ended: EBIN = mu h_int (the integrated h) gives way
 *              to the components' kinetic and mutual energy, mu h_state.  The
 *              difference is the inconsistency the KS steps built up over
 *              the pair's life (rectification at apocentres removes part)
 *
 * and some is booked, so that E stays continuous through a change of model:
 *
 *   tide       a pair changed between the resolved and the point model (or
 *              formed or ended unperturbed): the tidal energy of the rest of
 *              the cluster on it that the model gained or dropped (ks->etide)
 *
 *   chain_start / chain_end   a chain formed from KS pairs and singles, or
 *              ended into them: again the same state written two ways; at
 *              the end, the chain integration's inconsistency E_int + B
 *
 *   merge / split   a stable hierarchy became one KS pair with a frozen
 *              inner pair (its energy booked in ks->emerge, its tidal energy
 *              with the cluster in ks->etide), or came apart again: the same
 *              state written two ways, rounding only
 *
 *   star       stellar evolution (evol/): a star lost mass, got a kick or
 *              left as a massless remnant; the energy it took or gave,
 *              booked (E_before - E_after) like an escaper's
 *
 * The rest of ΔE is the Hermite steps of singles and c.m. bodies and the
 * work integrated into h by the KS steps ("rest").  A separate gauge of the
 * KS steps: "ks_pending" is Σ mu (h_state − h_int) over the live pairs,
 * the inconsistency a termination would turn into a jump; its change over
 * an interval is what the KS steps of that interval did to it.
 *
 * Each event's ΔE is local by default (O(1) per event, from the pair's own
 * state); --energy-audit measures the whole energy before and after every
 * event instead (O(N^2) each: for diagnosis at small N).  The largest events
 * of the run (and of each interval) are kept with time, names and kind. */
#ifndef NBODY6C_LEDGER_H
#define NBODY6C_LEDGER_H

#include <stdint.h>
#include <stdio.h>
#include "core/bytes.h"

typedef enum ledger_kind {
    LED_KS_FORM,
    LED_KS_TERM,
    LED_TIDE,   /* booked, not a loss */
    LED_CHAIN_START,
    LED_CHAIN_END,
    LED_MERGE,  /* a stable hierarchy merged / split (ks_merge.c) */
    LED_SPLIT,
    LED_STAR,   /* booked, not a loss (evol/) */
    LED_NKIND
} ledger_kind;

const char *ledger_kind_name(int kind);
/* Bookings keep E continuous (tide, star): not losses, not in the lists of
 * largest events, not subtracted from the measured change. */
int ledger_kind_booked(int kind);

typedef struct ledger_event {
    double t, de;          /* de: absolute energy change at the event */
    int kind, name1, name2;
    double a, ecc, gamma;  /* the pair's orbit at the event */
} ledger_event;

#define LEDGER_TOP 12      /* largest events of the run */
#define LEDGER_TOP_INTERVAL 3

typedef struct ledger {
    int exact;                          /* --energy-audit */
    double sum[LED_NKIND];              /* this interval */
    int64_t count[LED_NKIND];
    double total[LED_NKIND];            /* the run */
    int64_t total_count[LED_NKIND];
    double pending;                     /* Σ mu (h_state − h_int) at the last check */
    double pending_change_total;        /* its changes summed over the run's checks */
    double rest_total;                  /* ΔE − events summed over the run's checks */
    ledger_event top[LEDGER_TOP];       /* by |de|, largest first */
    int ntop;
    ledger_event itop[LEDGER_TOP_INTERVAL]; /* this interval's largest */
    int nitop;
} ledger;

/* One interval's split, closed at a check (absolute energies). */
typedef struct ledger_interval {
    double de;                  /* the measured ΔE */
    double ev[LED_NKIND];       /* by event kind (tide: booked) */
    double rest;                /* de − the events' jumps (all but tide) */
    double pending_change;      /* change of Σ mu (h_state − h_int) */
} ledger_interval;

/* Records an event (losses and bookings alike). */
void ledger_record(ledger *l, int kind, double t, int name1, int name2, double de, double a,
                   double ecc, double gamma);

/* Closes the interval ending at a check: de the measured ΔE, pending the
 * current Σ mu (h_state − h_int).  Fills *out and starts the next interval
 * (the interval's top events stay readable until the next record). */
void ledger_close(ledger *l, double de, double pending, ledger_interval *out);

/* Sets the pending gauge without an interval (the first check). */
void ledger_start(ledger *l, double pending);

/* Prints events as "t kind names de/|E| a e gamma" lines with a prefix. */
/* Its checkpoint section (LEDG, optional): the ledger as it is in memory,
 * with its size first, so that a file from a build with another layout is
 * skipped (the ledger then starts afresh) rather than misread.  load leaves
 * l as it was when the section does not fit; the audit option (exact) is
 * the process's, not the run's: a loaded ledger has it off. */
void ledger_save(wbuf *w, const ledger *l);
void ledger_load(rbuf *r, ledger *l);

void ledger_print_events(FILE *f, const char *prefix, const ledger_event *ev, int n, double escale);

#endif
