/* kz_policy.c — which of NBODY6's 50 KZ options nbody6c accepts.
 *
 * Each option is implemented, diagnostics-only (noted in the log, the run goes
 * on), accepted but not active yet (a planned part of the program; noted), or
 * refused: an option that would change the physics the program does not have
 * stops the run with its index, value, NBODY6 meaning and the deck line, before
 * any deck line the option would need is read.  The README's KZ table documents
 * the same policy; tests/test_deck.c keeps the two in step. */
#include "io/deck.h"

#include <stdio.h>
#include <string.h>

/* How an option's nonzero values are treated; value 0 is always accepted. */
typedef enum {
    CLASS_NOT_ACTIVE, /* any value: accepted, noted, not active yet */
    CLASS_DIAGNOSTIC, /* any value: diagnostics-only, noted */
    CLASS_UNUSED,     /* any value: unused in NBODY6, noted */
    CLASS_REFUSED,    /* any nonzero value (negative included) refused */
    CLASS_VALUES      /* per-value rules in status_by_value() */
} kz_class;

typedef struct kz_info {
    const char *meaning; /* NBODY6's meaning (README, "KZ options") */
    kz_class cls;
    const char *why_not_active; /* for options accepted but not active: the planned part */
    const char *instead; /* diagnostics-only: what nbody6c writes in their place (NULL: nothing) */
} kz_info;

/* The binary list that stands in for NBODY6's binary output (KZ(4), 6, 9). */
#define BINARY_LIST "binaries.txt at every output (every bound pair, KS or not, as NBODY6's " \
                    "bdat.9), the snapshots' BIN_* table, log.txt's n_bin and n_bin_hard"


static const kz_info KZ_INFO[DECK_NKZ + 1] = {
    [0] = {"(none)", CLASS_REFUSED, NULL},
    [1] = {"save the state to unit 1 at the end / on a STOP file", CLASS_VALUES, NULL},
    [2] = {"save at output (2: restart automatically when the energy error exceeds 5 QE)",
           CLASS_VALUES, "automatic restart on a large energy error"},
    [3] = {"basic data file every NFIX outputs", CLASS_VALUES, NULL},
    [4] = {"binary diagnostics", CLASS_DIAGNOSTIC, NULL, BINARY_LIST},
    [5] = {"initial model (0 uniform sphere, 1 Plummer, 2 two Plummers, 3 perturber + disk, "
           "4 massive binary, 5 Jaffe)",
           CLASS_VALUES, NULL},
    [6] = {"binaries/bodies at output", CLASS_DIAGNOSTIC, NULL,
           BINARY_LIST "; every body in the snapshots"},
    [7] = {"Lagrangian radii", CLASS_VALUES, NULL},
    [8] = {"primordial binaries (1, >= 3: binpop.f; 4: Kroupa 1995 periods; 2: pairs from the "
           "input)",
           CLASS_VALUES, NULL},
    [9] = {"binary output files", CLASS_DIAGNOSTIC, NULL, BINARY_LIST},
    [10] = {"KS diagnostics", CLASS_DIAGNOSTIC, NULL},
    [11] = {"chain + post-Newtonian / initial black holes", CLASS_REFUSED, NULL},
    [12] = {"HR diagnostics", CLASS_DIAGNOSTIC, NULL},
    [13] = {"interstellar clouds", CLASS_REFUSED, NULL},
    [14] = {"external tidal field (1 solar-neighbourhood linear field, 2 point-mass galaxy, "
            "3 galaxy model, 4 Plummer potential)",
            CLASS_VALUES, NULL},
    [15] = {"triple/quad/chain search", CLASS_VALUES, NULL},
    [16] = {"automatic RMIN, DTMIN, ECLOSE", CLASS_VALUES, NULL},
    [17] = {"automatic ETAI/ETAR from QE (2: ETAU too at a KZ(2) = 2 repeat)", CLASS_VALUES, NULL},
    [18] = {"hierarchical systems (1: diagnostics; 2, 3: primordial triples)", CLASS_VALUES, NULL},
    [19] = {"mass loss / stellar evolution (1, 2 old mass loss; 3 SSE; 4, 5 SSE with BSE)", CLASS_VALUES, NULL},
    [20] = {"IMF (0 power law, 1 Scalo, 2/4 KTG93, 6/7 Kroupa 2001)", CLASS_VALUES, NULL},
    [21] = {"extra output", CLASS_DIAGNOSTIC, NULL},
    [22] = {"initial conditions from file (1 write them, 2 read and scale, 3 read as given)",
            CLASS_VALUES, NULL},
    [23] = {"escaper removal (2: also the escapers file)", CLASS_VALUES, NULL},
    [24] = {"initial subsystems", CLASS_REFUSED, NULL},
    [25] = {"velocity kicks for white dwarfs", CLASS_VALUES, NULL},
    [26] = {"slow-down of KS / chain", CLASS_REFUSED, NULL},
    [27] = {"tidal interactions", CLASS_REFUSED, NULL},
    [28] = {"GR radiation", CLASS_REFUSED, NULL},
    [29] = {"hot initial system (SIGMA0)", CLASS_REFUSED, NULL},
    [30] = {"multiple regularisation (chain with KZ(15) >= 1)", CLASS_VALUES, NULL},
    [31] = {"centre-of-mass correction after energy check", CLASS_REFUSED, NULL},
    [32] = {"growing output intervals", CLASS_REFUSED, NULL},
    [33] = {"step histograms", CLASS_DIAGNOSTIC, NULL},
    [34] = {"Roche-lobe overflow", CLASS_REFUSED, NULL},
    [35] = {"time offset", CLASS_REFUSED, NULL},
    [36] = {"(unused)", CLASS_UNUSED, NULL},
    [37] = {"neighbour additions", CLASS_REFUSED, NULL},
    [38] = {"force polynomial corrections", CLASS_REFUSED, NULL},
    [39] = {"no unique density centre", CLASS_REFUSED, NULL},
    [40] = {"neighbour-number control", CLASS_VALUES, NULL},
    [41] = {"pre-main-sequence stars", CLASS_REFUSED, NULL},
    [42] = {"Kozai diagnostics", CLASS_DIAGNOSTIC, NULL},
    [43] = {"kicks after mergers", CLASS_REFUSED, NULL},
    [44] = {"plot file", CLASS_DIAGNOSTIC, NULL},
    [45] = {"black-hole diagnostics", CLASS_DIAGNOSTIC, NULL},
    [46] = {"snapshot output (NBODY6++: HDF5/ASCII)", CLASS_VALUES, NULL},
    [47] = {"snapshot interval (NBODY6++)", CLASS_VALUES, NULL},
    [48] = {"stability comparison", CLASS_DIAGNOSTIC, NULL},
    [49] = {"post-Newtonian terms in KS", CLASS_REFUSED, NULL},
    [50] = {"(unused)", CLASS_UNUSED, NULL},
};

static kz_status status_by_value(int k, int v)
{
    switch (k) {
    case 1:  /* a checkpoint is always written at the end and at every stop */
    case 3:  /* HDF5 snapshots every NFIX outputs are always written */
    case 46: /* (NBODY6++'s HDF5 switch: snapshots are always HDF5) */
    case 47: /* (NBODY6++'s snapshot interval: nbody6c uses DELTAT and NFIX) */
        return v >= 0 ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 2: /* 1: checkpoint at every output; 2 adds NBODY6's automatic restart */
        return v >= 0 && v <= 2 ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 5: /* 0 uniform sphere, 1 Plummer */
        return (v == 0 || v == 1) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 7: /* Lagrangian radii are always written */
        return v >= 0 ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 18: /* 1: each merger and split of a stable hierarchy reported (ks_merge.c) */
        return (v == 0 || v == 1) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 15: /* 1, 2: stable hierarchies merged (ks_merge.c); with KZ(30) != 0 chain
              * regularisation of strong KS encounters (ks_chain.c) */
        return (v >= 0 && v <= 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 30: /* with KZ(15) >= 1: chain (1, 2; > 2 would absorb perturbers: ended instead) */
        return (v >= 0 && v <= 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 17: /* ETAI, ETAR steered from QE at every check (run.c, check.f) */
        return (v >= 0 && v <= 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 16: /* RMIN, DTMIN from the core density at every energy check (ks_auto_params) */
        return (v >= 0 && v <= 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 14: /* 1 solar neighbourhood, 2 point-mass galaxy (tide.c); 3, 4 not yet */
        return (v >= 0 && v <= 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 23: /* 1 escapers removed at energy checks (escape.c), 2 and more: escapers.txt too */
        return v >= 0 ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 19: /* 3: single-star evolution (evol/); 1, 2 (NBODY6's old mass-loss
              * formulae) and 4, 5 (binary evolution) not yet */
        return (v == 0 || v == 3) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 25: /* white-dwarf kicks with KZ(19) = 3 (evol.c) */
        return (v == 0 || v == 1 || v == 2) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 20: /* 0 power law, 1 Scalo (imf.c), 6 and 7 Kroupa 2001 (imf_kroupa.c) */
        return (v == 0 || v == 1 || v == 6 || v == 7) ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 8: /* 1, >= 3 binpop.c (4: Kroupa 1995 periods); 2 pairs from a KZ(22) file; the
             * NBIN0 line decides whether there are binaries at all (deck.c) */
        return v >= 0 ? KZ_IMPLEMENTED : KZ_REFUSED;
    case 22: /* 1 write dat.10, 2 read and scale, 3 read as given */
    case 40:
        return (v >= 0 && v <= 3) ? KZ_IMPLEMENTED : KZ_REFUSED;
    default:
        return KZ_REFUSED;
    }
}

kz_status kz_status_of(int k, int value)
{
    if (k < 1 || k > DECK_NKZ)
        return KZ_REFUSED;
    const kz_info *in = &KZ_INFO[k];
    if (in->cls == CLASS_VALUES)
        return status_by_value(k, value);
    if (value == 0)
        return KZ_IMPLEMENTED;
    switch (in->cls) {
    case CLASS_NOT_ACTIVE:
        return KZ_NOT_ACTIVE_YET;
    case CLASS_DIAGNOSTIC:
        return KZ_DIAGNOSTICS_ONLY;
    case CLASS_UNUSED:
        return KZ_IMPLEMENTED; /* nothing to do: NBODY6 ignores it as well */
    default:
        return KZ_REFUSED;
    }
}

/* A short name for messages where the meaning lists every value. */
static const char *brief_name(int k)
{
    return k == 14 ? "external tidal field" : NULL;
}

/* The reason a refused value is refused (text after "KZ(k) = v: "). */
static void refusal_reason(int k, char *buf, size_t len)
{
    const char *meaning = KZ_INFO[k].meaning;
    switch (k) {
    case 5:
        snprintf(buf, len,
                 "this initial model is not implemented (refused); NBODY6: %s; nbody6c has "
                 "only 0 (uniform sphere) and 1 (Plummer)",
                 meaning);
        return;
    case 7:
    case 8:
    case 23:
        snprintf(buf, len, "%s: negative values have no meaning (refused); use 0 or more", meaning);
        return;
    case 2:
    case 15:
    case 16:
    case 17:
    case 30:
        snprintf(buf, len, "%s: only 0..2 are accepted (refused)", meaning);
        return;
    case 19:
        snprintf(buf, len,
                 "this stellar evolution is not implemented (refused); NBODY6: %s; nbody6c has "
                 "0 (none) and 3 (SSE, Hurley, Pols & Tout 2000, with remnant kicks)",
                 meaning);
        return;
    case 25:
        snprintf(buf, len, "%s: only 0, 1 and 2 are accepted (refused)", meaning);
        return;
    case 20:
        snprintf(buf, len,
                 "this initial mass function is not implemented (refused); NBODY6: %s; nbody6c "
                 "has 0 (power law), 1 (Scalo), 6 and 7 (Kroupa 2001), not 2-5 (KTG93, Eggleton)",
                 meaning);
        return;
    case 22:
    case 40:
        snprintf(buf, len, "%s: only 0..3 are implemented (refused)", meaning);
        return;
    case 14:
        snprintf(buf, len,
                 "this external tidal field is not implemented (refused); NBODY6: %s; nbody6c has "
                 "1 (solar neighbourhood) and 2 (point-mass galaxy)",
                 meaning);
        return;
    default:
        if (brief_name(k))
            snprintf(buf, len,
                     "%s is not implemented (refused); NBODY6: %s; nbody6c does not have that "
                     "physics yet, set KZ(%d) = 0",
                     brief_name(k), meaning, k);
        else
            snprintf(buf, len,
                     "%s is not implemented (refused); nbody6c does not have that physics yet, "
                     "set KZ(%d) = 0",
                     meaning, k);
        return;
    }
}

static void append_note(deck *d, const char *text)
{
    size_t used = strlen(d->notes);
    if (used + 1 < sizeof d->notes)
        snprintf(d->notes + used, sizeof d->notes - used, "%s\n", text);
}

static void note_option(deck *d, int k, int v, kz_status st)
{
    const kz_info *in = &KZ_INFO[k];
    char line[512];
    if (st == KZ_DIAGNOSTICS_ONLY && in->instead)
        snprintf(line, sizeof line, "KZ(%d) = %d: %s — NBODY6's own files are not written (run goes "
                 "on); written whatever KZ(%d): %s", k, v, in->meaning, k, in->instead);
    else if (st == KZ_NOT_ACTIVE_YET)
        snprintf(line, sizeof line, "KZ(%d) = %d: %s — accepted, not active yet (%s)", k, v,
                 in->meaning, in->why_not_active);
    else if (st == KZ_DIAGNOSTICS_ONLY)
        snprintf(line, sizeof line, "KZ(%d) = %d: %s — diagnostics only, not produced (run goes on)",
                 k, v, in->meaning);
    else if (in->cls == CLASS_UNUSED)
        snprintf(line, sizeof line, "KZ(%d) = %d: unused in NBODY6 — ignored", k, v);
    else if (k == 8 && v >= 3)
        snprintf(line, sizeof line, "KZ(%d) = %d: NBODY6's extra KS search of wide binaries "
                 "(sweep.f, N >= 5000) not active: they are regularised by the usual search",
                 k, v);
    else
        return;
    append_note(d, line);
}

/* Appends "NAME:LINE: KZ(k) = v: reason" for a refused option to err (one
 * line each, so that a deck with several needs one edit, not one per run). */
static void append_refusal(const deck *d, int k, const char *name, int line, int nth, char *err,
                           size_t errlen)
{
    if (!err || !errlen)
        return;
    char why[512];
    refusal_reason(k, why, sizeof why);
    int at = d->kz_line[k] > 0 ? d->kz_line[k] : line;
    size_t used = strlen(err);
    if (used + 1 < errlen)
        snprintf(err + used, errlen - used, "%s%s:%d: KZ(%d) = %d: %s", nth ? "\n  " : "",
                 name ? name : "-", at, k, d->kz[k], why);
}

int kz_check(deck *d, const char *name, int line, char *err, size_t errlen)
{
    int nrefused = 0;
    for (int k = 1; k <= DECK_NKZ; k++)
        nrefused += kz_status_of(k, d->kz[k]) == KZ_REFUSED;
    if (nrefused > 0) {
        if (err && errlen) {
            err[0] = '\0';
            if (nrefused > 1)
                snprintf(err, errlen, "%s: %d KZ options are refused (README, \"KZ options\"):\n  ",
                         name ? name : "-", nrefused);
        }
        int nth = 0;
        for (int k = 1; k <= DECK_NKZ; k++)
            if (kz_status_of(k, d->kz[k]) == KZ_REFUSED)
                append_refusal(d, k, name, line, nth++, err, errlen);
        return -1;
    }
    for (int k = 1; k <= DECK_NKZ; k++)
        if (d->kz[k] != 0)
            note_option(d, k, d->kz[k], kz_status_of(k, d->kz[k]));
    return 0;
}
