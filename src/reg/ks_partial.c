/* ks_partial.c — the one-component list entries a KS formation leaves
 * behind (ks_state.h, ks_partial), instead of new polynomials by full sums.
 *
 * After a formation, a body that listed exactly one component of the new
 * pair has a list that names the c.m., whose point mass holds the other
 * component too, while its regular polynomial still extrapolates that other
 * component's force.  Restarting such a body costs O(N) sums, and with
 * primordial binaries that come and go once an orbit, and a mass-scaled
 * list criterion, such bodies are 97 per formation on average (up to 3985
 * of 4506): their restarts would be most of a run's time.
 *
 * Instead the body keeps its split as it was: its irregular force takes the
 * listed component alone (resolved from the pair at the block time), its
 * regular polynomial keeps the other one, so nothing about its force
 * changes at the formation.  Its next regular step sees the c.m. whole in a
 * new list, and eq. 12 moves the other component between the two series
 * with the usual list-change terms (list_change_force gets the entry's
 * part from ks_partial_shift).  A termination of the pair gives the body
 * back its one component (ks_partial_relabel_*).  Any other event that
 * could move the pair or the body (chains, mergers, escapers) first ends
 * every entry by restarting its holder (ks_partial_flush), as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

int ks_partial_open(sim *s)
{
    ks_state *ks = s->ks;
    ks->pfirst = malloc(sizeof(int) * (size_t)s->cap);
    if (!ks->pfirst) return -1;
    for (int i = 0; i < s->cap; i++) ks->pfirst[i] = -1;
    return 0;
}

void ks_partial_close(ks_state *ks)
{
    free(ks->part);
    free(ks->pfirst);
    ks->part = NULL;
    ks->pfirst = NULL;
    ks->npart = ks->partcap = 0;
}

int ks_partial_add(ks_state *ks, int holder, int cm, int comp)
{
    if (ks->npart == ks->partcap) {
        int cap = ks->partcap ? 2 * ks->partcap : 256;
        ks_partial *p = realloc(ks->part, sizeof(ks_partial) * (size_t)cap);
        if (!p) return -1;
        ks->part = p;
        ks->partcap = cap;
    }
    ks->part[ks->npart++] = (ks_partial){holder, cm, comp};
    ks->partial_made++;
    return 0;
}

static int cmp_holder(const void *a, const void *b)
{
    const ks_partial *x = a, *y = b;
    if (x->holder != y->holder) return (x->holder > y->holder) - (x->holder < y->holder);
    return (x->cm > y->cm) - (x->cm < y->cm);
}

/* Drops the ended entries, sorts the rest by holder and rebuilds pfirst. */
void ks_partial_index(const sim *s)
{
    ks_state *ks = s->ks;
    for (int e = 0; e < ks->npart; e++)
        if (ks->part[e].holder >= 0) ks->pfirst[ks->part[e].holder] = -1;
    int w = 0;
    for (int e = 0; e < ks->npart; e++)
        if (ks->part[e].cm >= 0 && ks->part[e].holder >= 0) ks->part[w++] = ks->part[e];
    ks->npart = w;
    qsort(ks->part, (size_t)w, sizeof(ks_partial), cmp_holder);
    for (int e = w - 1; e >= 0; e--) ks->pfirst[ks->part[e].holder] = e;
}

int ks_partial_comp(const sim *s, int holder, int cm)
{
    const ks_state *ks = s->ks;
    int e = ks->pfirst[holder];
    if (e < 0) return -1;
    for (; e < ks->npart && ks->part[e].holder == holder; e++)
        if (ks->part[e].cm == cm) return ks->part[e].comp;
    return -1;
}

void ks_partial_drop(sim *s, int holder)
{
    ks_state *ks = s->ks;
    if (!ks || ks->npart == 0) return;
    int e = ks->pfirst[holder];
    if (e < 0) return;
    for (; e < ks->npart && ks->part[e].holder == holder; e++) ks->part[e].cm = -1;
}

/* Component comp of the pair at c.m. slot C and the c.m. point as the
 * force corrections see them at t (ks_correct.c: the pair resolved at the
 * block time if perturbed, else predicted here).  A c.m. in the block
 * keeps its predicted state (ks_block_state), the one the list-change sum
 * of eq. 12 takes for it: its own corrector, run beside the holder's in
 * the regular correctors' loop, must not move it. */
static void component_at(const sim *s, int C, int comp, double t, double xc[3], double vc[3],
                         double xcm[3], double vcm[3])
{
    const ks_pair *kp = &s->ks->pair[C - s->n];
    int k = C - s->n;
    if (ks_pair_perturbed(kp) && kp->tres == t) {
        memcpy(xcm, kp->xcm, sizeof(double) * 3);
        memcpy(vcm, kp->vcm, sizeof(double) * 3);
        memcpy(xc, comp ? kp->x2 : kp->x1, sizeof(double) * 3);
        memcpy(vc, comp ? kp->v2 : kp->v1, sizeof(double) * 3);
        return;
    }
    double q[3], qd[3], m1 = s->m[2 * k], m2 = s->m[2 * k + 1], M = m1 + m2;
    ks_block_state(s, C, t, xcm, vcm);
    ks_orbit_predict(&kp->o, t, q, qd);
    double f = comp ? -m1 / M : m2 / M;
    for (int c = 0; c < 3; c++) {
        xc[c] = xcm[c] + f * q[c];
        vc[c] = vcm[c] + f * qd[c];
    }
}

void ks_partial_correct(const sim *s, int C, int comp, double t, const double x[3],
                        const double v[3], double a[3], double j[3])
{
    double xc[3], vc[3], xcm[3], vcm[3];
    component_at(s, C, comp, t, xc, vc, xcm, vcm);
    int k = C - s->n;
    ks_add_term(s->m[2 * k + comp], xc, vc, x, v, 1.0, a, j);
    ks_add_term(s->m[C], xcm, vcm, x, v, -1.0, a, j);
}

void ks_partial_shift(const sim *s, int i, double t, double df[3], double dj[3])
{
    const ks_state *ks = s->ks;
    if (!ks || ks->npart == 0 || ks->pfirst[i] < 0) return;
    double x[3], v[3];
    ks_block_state(s, i, t, x, v);
    for (int e = ks->pfirst[i]; e < ks->npart && ks->part[e].holder == i; e++) {
        if (ks->part[e].cm < 0) continue;
        /* list_change_force took the c.m. point as the old list's term */
        double a[3] = {0, 0, 0}, jk[3] = {0, 0, 0};
        ks_partial_correct(s, ks->part[e].cm, ks->part[e].comp, t, x, v, a, jk);
        for (int c = 0; c < 3; c++) {
            df[c] -= a[c];
            dj[c] -= jk[c];
        }
    }
}

/* Removes label x from the sorted list l of n entries; returns the new n. */
static int list_remove(int *l, int n, int x)
{
    int w = 0;
    for (int q = 0; q < n; q++)
        if (l[q] != x) l[w++] = l[q];
    return w;
}

/* Inserts x into the sorted list l of n entries; returns the new n. */
static int list_insert(int *l, int n, int x)
{
    int q = n;
    while (q > 0 && l[q - 1] > x) {
        l[q] = l[q - 1];
        q--;
    }
    if (q > 0 && l[q - 1] == x) { /* already there: undo the shift */
        memmove(l + q, l + q + 1, sizeof(int) * (size_t)(n - q));
        return n;
    }
    l[q] = x;
    return n + 1;
}

void ks_partial_relabel_pre(sim *s, const int *map, int split)
{
    ks_state *ks = s->ks;
    if (split < 0) return;
    for (int e = 0; e < ks->npart; e++) {
        ks_partial *p = &ks->part[e];
        if (p->cm != split || p->holder < 0) continue;
        int h = map[p->holder];
        s->nnb[h] = list_remove(sim_list(s, h), s->nnb[h], split);
    }
}

void ks_partial_relabel_post(sim *s, const int *map, int split, int sa, int sb)
{
    ks_state *ks = s->ks;
    if (ks->npart == 0) return;
    /* the marks sit at the old slots: cleared before the holders move */
    for (int e = 0; e < ks->npart; e++)
        if (ks->part[e].holder >= 0) ks->pfirst[ks->part[e].holder] = -1;
    for (int e = 0; e < ks->npart; e++) {
        ks_partial *p = &ks->part[e];
        if (p->cm < 0 || p->holder < 0) continue;
        int h = map[p->holder];
        if (split >= 0 && p->cm == split) {
            /* the pair ended: the holder lists its one component again */
            s->nnb[h] = list_insert(sim_list(s, h), s->nnb[h], p->comp ? sb : sa);
            s->ks->dirty[h] = 1;
            p->cm = -1;
            continue;
        }
        p->holder = h;
        p->cm = map[p->cm];
        if (h < s->ifirst || h >= s->n) { /* it became a KS component: its list is gone */
            p->cm = -1;
            continue;
        }
        if (p->cm < s->n || p->cm >= s->ntot || ks_chain_owns(ks, h) ||
            !ks_sorted_has(sim_list(s, h), s->nnb[h], p->cm)) {
            /* the events that could do this flush the entries first */
            fprintf(stderr, "nbody6c: internal error: a one-component list entry (body %d, "
                    "pair slot %d) outlived its pair\n", s->name[h], p->cm);
            abort();
        }
    }
    ks_partial_index(s);
}

int ks_partial_flush(sim *s, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (!ks || ks->npart == 0) return 0;
    int *idx = malloc(sizeof(int) * (size_t)ks->npart), nh = 0;
    if (!idx) {
        snprintf(err, errlen, "out of memory at a KS event");
        return -1;
    }
    ks_partial_index(s);
    for (int e = 0; e < ks->npart; e++)
        if (nh == 0 || idx[nh - 1] != ks->part[e].holder) idx[nh++] = ks->part[e].holder;
    for (int e = 0; e < ks->npart; e++) ks->part[e].cm = -1;
    ks_partial_index(s);
    ks->partial_flushed += nh;
    ks_restart_state(s, nh, idx, t);
    int rc = newpoly_bodies(s, nh, idx, t, 0, err, errlen);
    free(idx);
    return rc;
}
