/* ks_save.c — reg/'s checkpoint sections (io/checkpoint.c keeps the file's
 * container, order, checksums and the safe write): KSST the pairs, CHST
 * the chain, MGST the merged hierarchies, KSPT the one-component list
 * entries.  Each ks_save_* writes a section's body and says whether a
 * reader must understand it; each ks_load_* reads one into a fresh KS state
 * (ks_open) and returns 0, -1 (malformed) or -2 (another build's layout). */
#include <stdlib.h>
#include "reg/ks.h"
#include "reg/ks_state.h"

/* KS pairs (ks_state.h): counters, then per pair its orbit (the struct's
 * bytes: its size is recorded, and a build with another layout refuses the
 * file), perturber list, flags and resolved state. */
#define KSPAIR_REALS(X) X(tres) X(xcm[0]) X(xcm[1]) X(xcm[2]) X(vcm[0]) X(vcm[1]) X(vcm[2]) \
    X(x1[0]) X(x1[1]) X(x1[2]) X(v1[0]) X(v1[1]) X(v1[2]) X(x2[0]) X(x2[1]) X(x2[2]) \
    X(v2[0]) X(v2[1]) X(v2[2])

int ks_save_pairs(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    wb_u32(w, (uint32_t)sizeof(ks_orbit));
    wb_i64(w, k->kz16);
    wb_f64(w, k->ebh);
    wb_i64(w, k->formed);
    wb_i64(w, k->terminated);
    wb_i64(w, k->steps);
    wb_i64(w, s->npairs);
    for (int q = 0; q < s->npairs; q++) {
        const ks_pair *p = &k->pair[q];
        wb_put(w, &p->o, sizeof p->o);
        wb_i64(w, p->np);
        wb_put(w, p->plist, sizeof(int) * (size_t)p->np);
        wb_i64(w, p->terminate);
        wb_i64(w, p->renew);
#define W_KREAL(f) wb_f64(w, p->f);
        KSPAIR_REALS(W_KREAL)
    }
    wb_f64(w, k->etide); /* last: files without it read as 0 */
    return 1;
}

/* The chain (ks_state.h): its counters always, its state when one is
 * active (then the section is required: a reader without chains must not
 * continue such a run). */
int ks_save_chain(wbuf *w, const sim *s)
{
    const ks_chain *ch = &s->ks->ch;
    wb_u32(w, (uint32_t)sizeof(chain));
    wb_i64(w, ch->started);
    wb_i64(w, ch->ended);
    wb_i64(w, ch->active);
    wb_i64(w, ch->steps_total);
    wb_i64(w, ch->absorbed);
    wb_f64(w, ch->next_start);
    if (ch->active) {
        wb_put(w, &ch->c, sizeof(chain));
        wb_i64(w, ch->icm);
        for (int k = 0; k < CHAIN_NMAX; k++) wb_i64(w, ch->slot[k]);
        wb_i64(w, ch->np);
        wb_put(w, ch->plist, sizeof(int) * (size_t)ch->np);
        wb_i64(w, ch->renew);
        wb_i64(w, ch->steps);
        wb_f64(w, ch->gpert);
        wb_f64(w, ch->tres);
        wb_put(w, ch->x, sizeof ch->x);
        wb_put(w, ch->v, sizeof ch->v);
    }
    return ch->active;
}

/* Merged hierarchies (ks_state.h): the counters, the booked energy, the
 * pairs due for a merger test and the table (required while a merger is
 * active: a reader without mergers must not continue such a run). */
int ks_save_merge(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    wb_u32(w, (uint32_t)sizeof(ks_merger));
    wb_i64(w, k->merged);
    wb_i64(w, k->splits);
    wb_f64(w, k->emerge);
    int64_t nchk = 0;
    for (int q = 0; q < s->npairs; q++) nchk += k->pair[q].merge_check != 0;
    wb_i64(w, nchk);
    for (int q = 0; q < s->npairs; q++)
        if (k->pair[q].merge_check) wb_i64(w, q);
    wb_i64(w, k->nmerge);
    wb_put(w, k->mg, sizeof(ks_merger) * (size_t)k->nmerge);
    return k->nmerge > 0;
}

/* The one-component list entries (ks_state.h, ks_partial.c), live ones
 * only; required while any exists (a reader without them would take those
 * c.m. bodies whole and count the other component twice). */
int ks_save_partial(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    int64_t live = 0;
    for (int e = 0; e < k->npart; e++) live += k->part[e].cm >= 0;
    wb_i64(w, k->partial_made);
    wb_i64(w, k->partial_flushed);
    wb_i64(w, live);
    for (int e = 0; e < k->npart; e++) {
        if (k->part[e].cm < 0) continue;
        wb_i64(w, k->part[e].holder);
        wb_i64(w, k->part[e].cm);
        wb_i64(w, k->part[e].comp);
    }
    return live > 0;
}

int ks_load_chain(rbuf *r, sim *s)
{
    ks_chain *ch = &s->ks->ch;
    if (rb_u32(r) != sizeof(chain)) return -2;
    ch->started = rb_i64(r);
    ch->ended = rb_i64(r);
    ch->active = (int)rb_i64(r);
    ch->steps_total = rb_i64(r);
    ch->absorbed = rb_i64(r);
    ch->next_start = rb_f64(r);
    if (ch->active) {
        rb_get(r, &ch->c, sizeof(chain));
        if (ch->c.n < 2 || ch->c.n > CHAIN_NMAX) return -1;
        ch->icm = (int)rb_i64(r);
        for (int k = 0; k < CHAIN_NMAX; k++) ch->slot[k] = (int)rb_i64(r);
        for (int k = 0; k < ch->c.n; k++)
            if (ch->slot[k] < s->ifirst || ch->slot[k] >= s->n) return -1;
        if (ch->slot[0] != ch->icm) return -1;
        int64_t np = rb_i64(r);
        if (np < 0 || np > s->nbmax + 2) return -1;
        ch->np = (int)np;
        if (!ch->plist) ch->plist = malloc(sizeof(int) * (size_t)(s->nbmax + 2));
        if (!ch->plist) return -1;
        rb_get(r, ch->plist, sizeof(int) * (size_t)np);
        for (int j = 0; j < ch->np; j++)
            if (ch->plist[j] < 0 || ch->plist[j] >= s->ntot) return -1;
        ch->renew = (int)rb_i64(r);
        ch->steps = rb_i64(r);
        ch->gpert = rb_f64(r);
        ch->tres = rb_f64(r);
        rb_get(r, ch->x, sizeof ch->x);
        rb_get(r, ch->v, sizeof ch->v);
    }
    return r->bad || r->pos != r->len ? -1 : 0;
}

int ks_load_merge(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    if (rb_u32(r) != sizeof(ks_merger)) return -2;
    k->merged = rb_i64(r);
    k->splits = rb_i64(r);
    k->emerge = rb_f64(r);
    int64_t nchk = rb_i64(r);
    if (nchk < 0 || nchk > s->npairs) return -1;
    for (int64_t q = 0; q < nchk; q++) {
        int64_t p = rb_i64(r);
        if (p < 0 || p >= s->npairs) return -1;
        k->pair[p].merge_check = 1;
    }
    int64_t nm = rb_i64(r);
    if (nm < 0 || nm > k->cap) return -1;
    k->nmerge = (int)nm;
    rb_get(r, k->mg, sizeof(ks_merger) * (size_t)nm);
    return r->bad || r->pos != r->len ? -1 : 0;
}

int ks_load_partial(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    int64_t made = rb_i64(r), flushed = rb_i64(r), n = rb_i64(r);
    if (r->bad || n < 0 || n > (int64_t)s->cap * s->nbmax) return -1;
    for (int64_t e = 0; e < n; e++) {
        int64_t h = rb_i64(r), cm = rb_i64(r), comp = rb_i64(r);
        if (r->bad || h < s->ifirst || h >= s->n || cm < s->n || cm >= s->ntot || (comp != 0 && comp != 1) ||
            !ks_sorted_has(sim_list(s, (int)h), s->nnb[h], (int)cm))
            return -1;
        if (ks_partial_add(k, (int)h, (int)cm, (int)comp)) return -1;
    }
    k->partial_made = made;
    k->partial_flushed = flushed;
    ks_partial_index(s);
    return r->bad || r->pos != r->len ? -1 : 0;
}

int ks_load_pairs(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    if (rb_u32(r) != sizeof(ks_orbit)) return -2;
    k->kz16 = (int)rb_i64(r);
    k->ebh = rb_f64(r);
    k->formed = rb_i64(r);
    k->terminated = rb_i64(r);
    k->steps = rb_i64(r);
    if (rb_i64(r) != s->npairs || s->npairs > k->cap) return -1;
    for (int q = 0; q < s->npairs && !r->bad; q++) {
        ks_pair *p = &k->pair[q];
        rb_get(r, &p->o, sizeof p->o);
        int64_t np = rb_i64(r);
        if (np < 0 || np > s->nbmax + 2) return -1;
        p->np = (int)np;
        if (!p->plist) p->plist = malloc(sizeof(int) * (size_t)(s->nbmax + 2));
        if (!p->plist) return -1;
        rb_get(r, p->plist, sizeof(int) * (size_t)np);
        for (int j = 0; j < p->np; j++)
            if (p->plist[j] < 0 || p->plist[j] >= s->ntot) return -1;
        p->terminate = (int)rb_i64(r);
        p->renew = (int)rb_i64(r);
        p->quiet_until = -INFINITY;
#define R_KREAL(f) p->f = rb_f64(r);
        KSPAIR_REALS(R_KREAL)
    }
    k->etide = r->len - r->pos == 8 ? rb_f64(r) : 0.0;
    return r->bad || r->pos != r->len ? -1 : 0;
}
