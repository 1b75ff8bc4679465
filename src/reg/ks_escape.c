/* ks_escape.c — reg/'s part of escaper removal (integ/escape.c decides who
 * escapes and books the energy): what stars a body is, taking a system
 * apart into single stars by the ordinary events, and a single's slot
 * removed from the layout and every list. */
#include <stdio.h>
#include <string.h>
#include "reg/ks.h"
#include "reg/ks_state.h"

int ks_slot_of_star(const sim *s, int name)
{
    for (int i = 0; i < s->ntot; i++)
        if (s->name[i] == name && s->m[i] > 0.0) return i;
    return -1;
}

static void add_star(int *n, int *names, double *m, int max, int name, double mass)
{
    if (*n < max) {
        names[*n] = name;
        m[(*n)++] = mass;
    }
}

/* Pair k's component at slot c: a star, or a merged inner pair's two. */
static void add_component(const sim *s, int c, int *n, int *names, double *m, int max)
{
    int g = s->name[c] < 0 ? ks_merger_at(s->ks, s, c) : -1;
    if (g >= 0) {
        add_star(n, names, m, max, s->ks->mg[g].name1, s->ks->mg[g].m1);
        add_star(n, names, m, max, s->ks->mg[g].name2, s->ks->mg[g].m2);
    } else {
        add_star(n, names, m, max, s->name[c], s->m[c]);
    }
}

int ks_system_of(const sim *s, int i, int *kind, int *names, double *m, int max)
{
    const ks_chain *ch = &s->ks->ch;
    int n = 0;
    if (ch->active && i == ch->icm) {
        *kind = KS_SYS_CHAIN;
        for (int k = 0; k < ch->c.n; k++) add_star(&n, names, m, max, (int)ch->c.id[k], ch->c.m[k]);
    } else if (i >= s->n) {
        int k = i - s->n;
        *kind = ks_pair_merged(s, k) ? KS_SYS_MERGED : KS_SYS_PAIR;
        add_component(s, 2 * k, &n, names, m, max);
        add_component(s, 2 * k + 1, &n, names, m, max);
    } else {
        *kind = KS_SYS_SINGLE;
        add_star(&n, names, m, max, s->name[i], s->m[i]);
    }
    return n;
}

/* KS pair k ends at the current time as at any termination (its jump, the
 * pair's pending inconsistency, into the ledger). */
static int end_pair(sim *s, int k, char *err, size_t errlen)
{
    int n1 = s->name[2 * k], n2 = s->name[2 * k + 1];
    int exact = s->ks->check_jumps || s->led.exact;
    double e0 = exact ? ks_total_energy(s) : 0.0;
    if (ks_terminate(s, k, s->time, err, errlen)) return -1;
    ks_note_event(s, LED_KS_TERM, s->time, n1, n2, s->ks->last_jump, e0, s->ks->last_a, s->ks->last_ecc,
                  s->ks->last_gamma);
    return 0;
}

int ks_dissolve(sim *s, int kind, int name, const int *stars, int nstar, char *err, size_t errlen)
{
    if (kind == KS_SYS_CHAIN) {
        if (ks_chain_end_escaper(s, s->time, err, errlen)) return -1;
    } else if (kind == KS_SYS_MERGED) {
        int i = ks_slot_of_star(s, name);
        if (i < s->n) {
            snprintf(err, errlen, "escaper: merged pair %d not found at t = %g", name, s->time);
            return -1;
        }
        if (ks_split(s, i - s->n, s->time, err, errlen)) return -1;
    }
    /* what is still in a KS pair (the pair itself; a split's inner pair) */
    for (int k = 0; k < nstar; k++) {
        int i = ks_slot_of_star(s, stars[k]);
        if (i < 0) {
            snprintf(err, errlen, "escaper: star %d not found at t = %g", stars[k], s->time);
            return -1;
        }
        if (i < 2 * s->npairs && end_pair(s, i / 2, err, errlen)) return -1;
    }
    return 0;
}

void ks_remove_single(sim *s, int i) { ks_remove_singles(s, 1, &i); }

void ks_remove_singles(sim *s, int nrem, const int *slots)
{
    s->ks->quiet_epoch++; /* slots move: the intruder scans start again */
    if (nrem <= 0) return;
    ks_state *ks = s->ks;
    int *map = ks->map, *inv = ks->map + s->cap;
    /* scratch rows [lo, ntot) of the marks, which the relabelling below
     * writes anew (the tail cleared) */
    unsigned char *gone = ks->mark;
    const int ntot0 = s->ntot;
    int lo = s->ntot;
    for (int k = 0; k < nrem; k++) lo = slots[k] < lo ? slots[k] : lo;
    memset(gone + lo, 0, (size_t)(ntot0 - lo));
    for (int k = 0; k < nrem; k++) {
        gone[slots[k]] = 1;
        s->mtot -= s->m[slots[k]];
    }
    ks_labels_reset(s, map, inv);
    /* the survivors above the first leaver move down in order ([lo, w):
     * the survivors placed, [w, a): the leavers passed over), so that one
     * leaver goes as it went alone: moved past the c.m. bodies */
    for (int a = lo, w = lo; a < s->ntot; a++)
        if (!gone[a]) ks_swap_slots(s, a, w++, map, inv);
    for (int k = 0; k < nrem; k++) map[slots[k]] = -1;   /* named by no list any more */
    s->n -= nrem;
    s->ntot -= nrem;
    memset(gone + s->ntot, 0, (size_t)(ntot0 - s->ntot));
    ks_relabel_all(s, map, -1, -1, -1, NULL);
}

int ks_listed(const sim *s, int j, int i) { return ks_sorted_has(sim_list(s, j), s->nnb[j], i); }

void ks_clear_dirty(sim *s) { memset(s->ks->dirty, 0, (size_t)s->cap); }
