/* ks_pairs.c — the only module that forms and ends KS pairs and moves bodies
 * between slots (layout in sim.h, ks_state.h): formation (ksinit.f), termination
 * at the block time (ksterm.f), the relabelling of every neighbour and
 * perturber list, new force polynomials for the bodies that appear, the
 * KS state's allocation and KZ(16)'s automatic RMIN and DTMIN.
 *
 * Relabelling: an event first permutes body slots (swaps, so that pair k
 * keeps slots 2k, 2k+1 and n + k), recording old label -> new label; then
 * every list of the integrated range is rewritten: the components of a new
 * pair become its c.m. (once), the c.m. of an ended pair becomes its two
 * components, lists are sorted ascending again; and both force libraries get
 * every body and list anew (an event is rare; O(N nnb) is nothing next to
 * the force evaluations it saves). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/forces.h"
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "reg/ks_transform.h"
#include "core/steps.h"

#define GHOST_DT 1e30       /* a ghost's step: never due */
#define GHOST_X 1e12        /* a ghost's distance: on no list, no force */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int ks_open(sim *s, const ks_options *o, char *err, size_t errlen)
{
    ks_state *k = calloc(1, sizeof *k);
    if (!k) goto nomem;
    k->cap = s->n / 2 + 1;
    k->pair = calloc(k->cap, sizeof *k->pair);
    k->map = malloc(sizeof(int) * 2 * s->cap);
    k->tmp = malloc(sizeof(int) * 2 * (s->nbmax + 2));
    k->dirty = calloc((size_t)s->cap, 1);
    k->mark = calloc((size_t)s->cap, 1);
    if (!k->pair || !k->map || !k->tmp || !k->dirty || !k->mark) goto nomem;
    if (o) {
        k->kz16 = o->kz16;
        k->chain_on = o->chain;
        k->merge_on = o->merge;
        k->merge_log = o->merge_log;
        k->nprim = o->nprim; /* started by ks_primordial_layout */
    }
    k->mg = calloc(k->cap, sizeof *k->mg);
    if (!k->mg) goto nomem;
    k->ebh = -0.5 * s->mmean * s->p.eclose;
    k->newcm = -1;
    s->ks = k;
    s->newpoly_reg = &ks_newpoly;
    if (ks_partial_open(s)) {
        s->ks = NULL;
        goto nomem;
    }
    return 0;
nomem:
    if (k) {
        free(k->pair);
        free(k->mg);
        free(k->map);
        free(k->tmp);
        free(k);
    }
    snprintf(err, errlen, "out of memory for the KS state");
    return -1;
}

void ks_close(sim *s)
{
    if (!s || !s->ks) return;
    s->newpoly_reg = NULL;
    for (int k = 0; k < s->ks->cap; k++) free(s->ks->pair[k].plist);
    free(s->ks->pair);
    free(s->ks->mg);
    free(s->ks->ch.plist);
    free(s->ks->map);
    free(s->ks->tmp);
    free(s->ks->dirty);
    free(s->ks->mark);
    ks_partial_close(s->ks);
    free(s->ks);
    s->ks = NULL;
}

/* ---- slots and labels --------------------------------------------------- */

#define SWAPV(arr, T) do { T t_ = (arr)[a]; (arr)[a] = (arr)[b]; (arr)[b] = t_; } while (0)
#define SWAP3(arr) do { vec3 t_; memcpy(t_, (arr)[a], sizeof t_); memcpy((arr)[a], (arr)[b], sizeof t_); memcpy((arr)[b], t_, sizeof t_); } while (0)

/* Exchanges everything stored for slots a and b, lists included; map/inv
 * follow the labels (map: label at the event's start -> slot now). */
void ks_swap_slots(sim *s, int a, int b, int *map, int *inv)
{
    if (a == b) return;
    SWAPV(s->name, int); SWAPV(s->m, double);
    SWAP3(s->x0); SWAP3(s->v0); SWAP3(s->x); SWAP3(s->v); SWAPV(s->tpred, double);
    SWAP3(s->a); SWAP3(s->j);
    SWAP3(s->fi); SWAP3(s->fid); SWAP3(s->d2); SWAP3(s->d3);
    SWAP3(s->fr); SWAP3(s->frd); SWAP3(s->d2r); SWAP3(s->d3r);
    SWAPV(s->t0, double); SWAPV(s->t0r, double); SWAPV(s->dt, double); SWAPV(s->dtr, double);
    SWAPV(s->rs, double); SWAPV(s->nnb, int);
    int *la = sim_list(s, a), *lb = sim_list(s, b);
    for (int q = 0; q < s->nbmax; q++) {
        int t_ = la[q];
        la[q] = lb[q];
        lb[q] = t_;
    }
    s->ks->dirty[a] = s->ks->dirty[b] = 1;
    int oa = inv[a], ob = inv[b];
    map[oa] = b;
    map[ob] = a;
    inv[a] = ob;
    inv[b] = oa;
}

void ks_labels_reset(const sim *s, int *map, int *inv)
{
    for (int i = 0; i < s->cap; i++) map[i] = inv[i] = i;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Rewrites a list of old labels: map, the split label -> (sa, sb), self and
 * duplicates dropped, ascending; at most cap entries. */
/* Does a list name a label the event moved (or the split c.m.)? */
static int names_moved(const int *l, int n, const int *map, int split)
{
    for (int q = 0; q < n; q++)
        if (l[q] == split || map[l[q]] != l[q]) return 1;
    return 0;
}

/* The labels an event moved (map[x] != x) and the split c.m., into set
 * (at most MOVED_MAX); -1 when there are more.  An event moves a handful:
 * comparing each list entry with them streams through the lists, where
 * names_moved's map[] lookup per entry cost 12 ms an event at N = 32k on
 * one core (the lists' 6M entries each a dependent load). */
enum { MOVED_MAX = 16 };
static int moved_labels(const sim *s, const int *map, int split, int *set)
{
    int n = 0;
    for (int x = 0; x < s->cap; x++)
        if (map[x] != x || x == split) {
            if (n == MOVED_MAX) return -1;
            set[n++] = x;
        }
    return n;
}

/* one label at a time: the inner loop vectorises (the list stays in L1) */
static int names_any(const int *l, int n, const int *set, int nset)
{
    int hit = 0;
    for (int k = 0; k < nset; k++) {
        const int x = set[k];
        for (int q = 0; q < n; q++) hit |= l[q] == x;
    }
    return hit;
}

/* The new labels of list l into tmp, ascending; m returned.  Lists are kept
 * ascending and an event moves a few labels: the entries it left in place
 * are copied in order and the few moved ones merged in, instead of sorting
 * the whole list (a sort of each of the few hundred lists an event touches
 * was most of the relabelling's time); an unsorted list is sorted whole. */
/* Every entry renamed (split -> sa, sb) into tmp, then sorted: the general
 * case, for a list out of order or one naming many moved labels. */
static int relabelled_by_sort(const int *l, int n, const int *map, int split, int sa, int sb, int *tmp)
{
    int m = 0;
    for (int q = 0; q < n; q++) {
        const int e = l[q];
        if (e == split) {
            tmp[m++] = sa;
            tmp[m++] = sb;
        } else {
            tmp[m++] = map[e];
        }
    }
    qsort(tmp, m, sizeof(int), cmp_int);
    return m;
}

static int relabelled_sorted(const int *l, int n, const int *map, int split, int sa, int sb, int *tmp)
{
    enum { FEW = 32 };
    int moved[FEW], nm = 0, m = 0, sorted = 1;
    for (int q = 0; q < n; q++) {
        const int e = l[q];
        if (e != split && map[e] == e) {
            sorted &= m == 0 || tmp[m - 1] <= e;
            tmp[m++] = e;
        } else if (nm + 2 > FEW) {
            sorted = 0;
            break;
        } else if (e == split) {
            moved[nm++] = sa;
            moved[nm++] = sb;
        } else {
            moved[nm++] = map[e];
        }
    }
    if (!sorted) return relabelled_by_sort(l, n, map, split, sa, sb, tmp);
    qsort(moved, nm, sizeof(int), cmp_int);
    /* merge from the back, in place in tmp (room: n + 1 entries) */
    int a = m - 1, b = nm - 1, w = m + nm;
    while (b >= 0) tmp[--w] = (a >= 0 && tmp[a] > moved[b]) ? tmp[a--] : moved[b--];
    return m + nm;
}

static int relabel_list(int *l, int n, const int *map, int split, int sa, int sb, int self,
                        int cap, int *tmp, int *changed)
{
    /* most lists name none of the few bodies an event moves: leave them */
    *changed = names_moved(l, n, map, split);
    if (!*changed) return n;
    const int m = relabelled_sorted(l, n, map, split, sa, sb, tmp);
    int w = 0;
    for (int q = 0; q < m; q++) {
        if (tmp[q] == self || tmp[q] < 0 || (w > 0 && tmp[q] == l[w - 1])) continue;
        if (w == cap) { /* an ended pair added one entry to a full list */
            *changed = 2;
            break;
        }
        l[w++] = tmp[q];
    }
    return w;
}

/* Does row i's list name a label the event moved?  Against the moved set
 * (moved_labels; nset < 0: too many, then through map). */
static inline int row_names_moved(const sim *s, int i, const int *set, int nset, const int *map, int split)
{
    return nset >= 0 ? names_any(sim_list(s, i), s->nnb[i], set, nset)
                     : names_moved(sim_list(s, i), s->nnb[i], map, split);
}

/* Relabels every list after an event.  A list that the split of an ended
 * c.m. would take past nbmax is cut there, and its body is returned in
 * full[] (count returned): its polynomials must be made anew. */
int ks_relabel_all(sim *s, const int *map, int split, int sa, int sb, int *full)
{
    double w0 = omp_get_wtime();
    unsigned char *mark = s->ks->mark;
    ks_partial_relabel_pre(s, map, split);
    /* every list is read (in parallel); the few that name a moved body are
     * rewritten */
    int set[MOVED_MAX], nset = moved_labels(s, map, split, set);
#pragma omp parallel for schedule(static)
    for (int i = s->ifirst; i < s->ntot; i++) {
        sim_list_prefetch(s, i + SIM_LIST_AHEAD);
        mark[i] = row_names_moved(s, i, set, nset, map, split) ? KS_MARK_RELABEL : 0;
    }
    s->ks->evt[KS_EVT_RELABEL] += omp_get_wtime() - w0;
    return ks_relabel_marked(s, map, split, sa, sb, full);
}

/* ks_relabel_all without its scan: the caller has run
 * ks_partial_relabel_pre (where there is a split) and set KS_MARK_RELABEL
 * in ks->mark for every row [ifirst, ntot) that may name a moved label
 * (more rows may be marked than do; none may be missed). */
int ks_relabel_marked(sim *s, const int *map, int split, int sa, int sb, int *full)
{
    double w0 = omp_get_wtime();
    int nfull = 0;
    int *tmp = s->ks->tmp, changed;
    const unsigned char *mark = s->ks->mark;
    for (int i = s->ifirst; i < s->ntot; i++) {
        if (!(mark[i] & KS_MARK_RELABEL)) continue;
        s->nnb[i] = relabel_list(sim_list(s, i), s->nnb[i], map, split, sa, sb, i, s->nbmax, tmp,
                                 &changed);
        if (changed) s->ks->dirty[i] = 1;
        if (changed == 2 && full) full[nfull++] = i;
    }
    for (int k = 0; k < s->npairs; k++) {
        ks_pair *kp = &s->ks->pair[k];
        kp->np = relabel_list(kp->plist, kp->np, map, split, sa, sb, s->n + k, s->nbmax, tmp,
                              &changed);
    }
    ks_chain *ch = &s->ks->ch;
    if (ch->active) {
        for (int k = 0; k < ch->c.n; k++) ch->slot[k] = map[ch->slot[k]];
        ch->icm = ch->slot[0];
        ch->np = relabel_list(ch->plist, ch->np, map, split, sa, sb, ch->icm, s->nbmax, tmp,
                              &changed);
    }
    ks_partial_relabel_post(s, map, split, sa, sb);
    s->ks->evt[KS_EVT_RELABEL] += omp_get_wtime() - w0;
    return nfull;
}

/* ---- new bodies ---------------------------------------------------------- */

void ks_make_ghost(sim *s, int g, double t)
{
    s->m[g] = 0.0;
    s->x0[g][0] = GHOST_X * (1.0 + (double)g / s->cap);
    s->x0[g][1] = s->x0[g][2] = 0.0;
    memset(s->v0[g], 0, sizeof(vec3));
    memcpy(s->x[g], s->x0[g], sizeof(vec3));
    memset(s->v[g], 0, sizeof(vec3));
    memset(s->a[g], 0, sizeof(vec3)); memset(s->j[g], 0, sizeof(vec3));
    memset(s->fi[g], 0, sizeof(vec3)); memset(s->fid[g], 0, sizeof(vec3));
    memset(s->d2[g], 0, sizeof(vec3)); memset(s->d3[g], 0, sizeof(vec3));
    memset(s->fr[g], 0, sizeof(vec3)); memset(s->frd[g], 0, sizeof(vec3));
    memset(s->d2r[g], 0, sizeof(vec3)); memset(s->d3r[g], 0, sizeof(vec3));
    s->t0[g] = s->t0r[g] = s->tpred[g] = t;
    s->dt[g] = s->dtr[g] = GHOST_DT;
    s->nnb[g] = 0;
    s->ks->dirty[g] = 1;
}


/* ---- formation and termination ------------------------------------------ */

int ks_pair_init(sim *s, int k, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    const int A = 2 * k, B = 2 * k + 1, C = s->n + k;
    const double m1 = s->m[A], m2 = s->m[B], M = m1 + m2;
    double q[3], qd[3];
    s->name[C] = s->nzero + abs(s->name[A]); /* (a merged inner c.m. has a negative name) */
    s->m[C] = M;
    for (int c = 0; c < 3; c++) {
        s->x0[C][c] = (m1 * s->x0[A][c] + m2 * s->x0[B][c]) / M;
        s->v0[C][c] = (m1 * s->v0[A][c] + m2 * s->v0[B][c]) / M;
        q[c] = s->x0[A][c] - s->x0[B][c];
        qd[c] = s->v0[A][c] - s->v0[B][c];
    }
    s->nnb[C] = 0;
    ks_pair *kp = &ks->pair[k];
    if (!kp->plist) kp->plist = malloc(sizeof(int) * (s->nbmax + 2));
    if (!kp->plist) {
        snprintf(err, errlen, "out of memory at a KS formation");
        return -1;
    }
    kp->np = 0;
    kp->terminate = kp->renew = 0;
    kp->quiet_until = -INFINITY;
    kp->merge_check = 1;
    ks_ctl c0 = {s->p.etau, s->p.eclose, 0.0};
    ks_orbit_init(&kp->o, M, q, qd, t, NULL, &c0);
    /* R0 (ksinit.f): a hard pair may grow to clamp(-M/h, RMIN, 5 RMIN) */
    double eb = m1 * m2 * kp->o.h / M;
    const double rmin = s->p.rmin;
    if (eb < ks->ebh) kp->o.r0 = fmin(fmax(-M / kp->o.h, rmin), 5.0 * rmin);
    else kp->o.r0 = kp->o.r;
    return 0;
}

/* The marks of rows a and b follow their lists (ks_swap_slots). */
static void swap_marks(unsigned char *mark, int a, int b)
{
    unsigned char t_ = mark[a];
    mark[a] = mark[b];
    mark[b] = t_;
}

/* A termination's relabelling without reading every list.  The labels it
 * moves are c.m. labels (the ended one, split into its components, and
 * the last pair's, moved into its place) and the swapped components'
 * labels.  Components are on no list (a one-component entry names the
 * c.m. too), and lists are ascending, so a list names a moved label only
 * if its last entry is a c.m. label (>= n).  The rows to rewrite are
 * those, and the one-component holders (ks_partial_relabel_pre has just
 * taken the ended c.m. off theirs): one read of a list's last entry
 * instead of the whole list (~2 ms an event at N = 128k).  With
 * ks->check_relabel the whole-list scan runs too, and every row it finds
 * that the filter did not is counted. */
static int relabel_termination(sim *s, const int *map, int split, int sa, int sb, int *full)
{
    double w0 = omp_get_wtime();
    ks_state *ks = s->ks;
    unsigned char *mark = ks->mark;
    ks_partial_relabel_pre(s, map, split);
    const int n = s->n;
#pragma omp parallel for schedule(static)
    for (int i = s->ifirst; i < s->ntot; i++) {
        const int m = s->nnb[i];
        mark[i] = m > 0 && sim_list(s, i)[m - 1] >= n ? KS_MARK_RELABEL : 0;
    }
    for (int e = 0; e < ks->npart; e++) {
        const int h = ks->part[e].holder;
        if (h >= 0 && ks->part[e].cm >= 0 && map[h] >= s->ifirst && map[h] < s->ntot)
            mark[map[h]] = KS_MARK_RELABEL;
    }
    if (ks->check_relabel) {
        int set[MOVED_MAX], nset = moved_labels(s, map, split, set);
        int64_t missed = 0;
        for (int i = s->ifirst; i < s->ntot; i++) {
            missed += row_names_moved(s, i, set, nset, map, split) && !mark[i];
        }
        ks->relabel_checked++;
        ks->relabel_missed += missed;
    }
    ks->evt[KS_EVT_RELABEL] += omp_get_wtime() - w0;
    return ks_relabel_marked(s, map, split, sa, sb, full);
}

/* A formation's mark of row b from which of i, j, A0, B0 its list names
 * (bit 0: i, 1: j, 2 and 3: A0, B0): KS_MARK_ONE's value for a list that
 * names exactly one component (1: i, 2: j), KS_MARK_RELABEL for one that
 * names any of the four. */
static unsigned char formation_mark(int b, int i, int j, unsigned bits)
{
    const int hi = bits & 1, hj = bits >> 1 & 1;
    const int one = b == i || b == j || hi + hj != 1 ? 0 : hi ? 1 : 2;
    return (unsigned char)(one | (bits ? KS_MARK_RELABEL : 0));
}

static unsigned host_list_names(const sim *s, int b, int i, int j, int A0, int B0)
{
    const int *l = sim_list(s, b);
    unsigned bits = 0;
    for (int q = 0; q < s->nnb[b]; q++)
        bits |= (unsigned)(l[q] == i) | (unsigned)(l[q] == j) << 1 | (unsigned)(l[q] == A0) << 2 |
                (unsigned)(l[q] == B0) << 3;
    return bits;
}

/* Every row's formation mark.  Where GPUNB keeps the lists (the CUDA
 * backend: on the GPU) it reads them there (gpunb_lists_naming; the host's
 * scan of every list was ~2.4 ms an event at N = 128k on the GPU hosts);
 * with ks->check_relabel the host's scan runs too and every row whose mark
 * differs is counted. */
static void formation_marks(sim *s, int i, int j, int A0, int B0, unsigned char *mark)
{
    const int lo = s->ifirst, hi = s->ntot;
    if (gpunb_lists_kept(s)) {
        const int lab[4] = {i, j, A0, B0};
        gpunb_lists_naming(s->nb, lo, hi, 4, lab, mark + lo);
#pragma omp parallel for schedule(static) if (hi - lo > 8192)
        for (int b = lo; b < hi; b++) mark[b] = formation_mark(b, i, j, mark[b]);
        if (s->ks->check_relabel) {
            int64_t differ = 0;
            for (int b = lo; b < hi; b++) differ += mark[b] != formation_mark(b, i, j, host_list_names(s, b, i, j, A0, B0));
            s->ks->naming_checked++;
            s->ks->naming_differ += differ;
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (int b = lo; b < hi; b++) {
        sim_list_prefetch(s, b + SIM_LIST_AHEAD);
        mark[b] = formation_mark(b, i, j, host_list_names(s, b, i, j, A0, B0));
    }
}

int ks_form(sim *s, int i, int j, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    if (i < s->ifirst || i >= s->n || j < s->ifirst || j >= s->n || i == j || s->npairs >= ks->cap) {
        snprintf(err, errlen, "KS formation of slots %d, %d: not two singles", i, j);
        return -1;
    }
    double xi[3], vi[3], xj[3], vj[3];
    ks_predict_slot_high(s, i, t, xi, vi);
    ks_predict_slot_high(s, j, t, xj, vj);
    memcpy(s->x0[i], xi, sizeof xi); memcpy(s->v0[i], vi, sizeof vi);
    memcpy(s->x0[j], xj, sizeof xj); memcpy(s->v0[j], vj, sizeof vj);
    s->t0[i] = s->t0[j] = t;

    /* the bodies with exactly one of i, j on their lists (old labels):
     * singles keep that one component alone (ks_partial.c), the others
     * (c.m. bodies) restart */
    int nsplit = 0, *split = malloc(sizeof(int) * (s->ntot - s->ifirst));
    if (!split) {
        snprintf(err, errlen, "out of memory at a KS formation");
        return -1;
    }
    /* One pass over every list serves the relabelling below too: the
     * labels it moves are among i, j and the two slots the components go
     * to (ifirst, ifirst + 1), so a list naming none of those four needs
     * no relabelling (KS_MARK_RELABEL; the pass's marks follow the slot
     * swaps).  A second whole pass cost ~2 ms an event at N = 128k. */
    unsigned char *mark = ks->mark;
    double w0 = omp_get_wtime();
    formation_marks(s, i, j, s->ifirst, s->ifirst + 1, mark);
    const int C_new = s->n + s->npairs;
    for (int b = s->ifirst; b < s->ntot; b++) {
        const int one = mark[b] & KS_MARK_ONE;
        if (!one) continue;
        if (b < s->n && !ks_chain_owns(ks, b)) {
            if (ks_partial_add(ks, b, C_new, one - 1)) {
                snprintf(err, errlen, "out of memory at a KS formation");
                free(split);
                return -1;
            }
        } else {
            split[nsplit++] = b;
        }
    }
    ks->evt[KS_EVT_SCAN] += omp_get_wtime() - w0;
    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    int A = s->ifirst, B = s->ifirst + 1, k = s->npairs, C = s->n + k;
    swap_marks(mark, map[i], A);
    ks_swap_slots(s, map[i], A, map, inv);
    swap_marks(mark, map[j], B);
    ks_swap_slots(s, map[j], B, map, inv);

    if (ks_pair_init(s, k, t, err, errlen)) {
        free(split);
        return -1;
    }
    double m1 = s->m[A], m2 = s->m[B], M = m1 + m2, mu = m1 * m2 / M;
    s->rs[C] = fmax(s->rs[A], s->rs[B]);
    s->dtr[C] = fmin(s->dtr[A], s->dtr[B]);
    ks_pair *kp = &ks->pair[k];
    /* the same state written two ways: singles before, c.m. + mu h after */
    double q[3] = {s->x0[A][0] - s->x0[B][0], s->x0[A][1] - s->x0[B][1], s->x0[A][2] - s->x0[B][2]};
    double vc2 = dot3(s->v0[C], s->v0[C]);
    double e_before = 0.5 * (m1 * dot3(s->v0[A], s->v0[A]) + m2 * dot3(s->v0[B], s->v0[B])) -
                      m1 * m2 / sqrt(dot3(q, q));
    ks->last_jump = 0.5 * M * vc2 + mu * kp->o.h - e_before;
    ks->last_a = ks_orbit_semi(&kp->o);
    ks->last_ecc = ks_orbit_ecc(&kp->o);
    ks->last_gamma = 0.0;

    /* lists: both components' old labels become the c.m. */
    int oi = inv[A], oj = inv[B];
    map[oi] = C;
    map[oj] = C;
    s->npairs++;
    s->ifirst += 2;
    s->ntot++;
    mark[C] = 0; /* the new c.m.'s list is empty */
    ks_relabel_marked(s, map, -1, -1, -1, NULL); /* merging two labels cannot fill a list */
    /* A body that had only one of the two on its list would now get the
     * other one through the c.m. in its irregular force while its regular
     * polynomial still holds it: it restarts at t (state from its high-order
     * prediction) with new polynomials, like the c.m. */
    int *idx = malloc(sizeof(int) * (nsplit + 1));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a KS formation");
        free(split);
        return -1;
    }
    idx[0] = C;
    for (int q = 0; q < nsplit; q++) idx[q + 1] = map[split[q]];
    ks_restart_state(s, nsplit, idx + 1, t);
    ks->newcm = C; /* resolved until now: its change of model is booked */
    int rc = newpoly_bodies(s, nsplit + 1, idx, t, 0, err, errlen);
    ks->newcm = -1;
    free(idx);
    free(split);
    if (rc) return -1;
    ks->formed++;
    return 0;
}

void ks_pair_step_to(sim *s, int k, double t)
{
    ks_pair *kp = &s->ks->pair[k];
    ks_pert_ctx ctx = {s, k};
    ks_pert pf = {ks_pert_eval, &ctx};
    ks_ctl c = ks_ctl_of(s, k);
    while (!kp->o.frozen && kp->o.t0 + kp->o.step < t) {
        ks_orbit_step(&kp->o, &pf, &c);
        s->ks->steps++;
    }
    ks_orbit_step_to(&kp->o, t, &pf, &c);
}

int ks_terminate(sim *s, int k, double t, char *err, size_t errlen)
{
    ks_state *ks = s->ks;
    ks_pair *kp = &ks->pair[k];
    /* the relative motion exactly to the block time (ksterm.f) */
    ks_pair_step_to(s, k, t);
    ks->last_a = ks_orbit_semi(&kp->o);
    ks->last_ecc = ks_orbit_ecc(&kp->o);
    ks->last_gamma = kp->o.gamma;
    if (kp->o.h < 0.0 && kp->o.gamma < 0.1 && ks_orbit_ecc(&kp->o) > 0.05) ks_orbit_rectify(&kp->o);
    /* EBIN = mu h_int gives way to the components' own energy mu h_state */
    ks->last_jump = s->m[2 * k] * s->m[2 * k + 1] / kp->o.m *
                    (ks_energy(kp->o.u, kp->o.up, kp->o.m) - kp->o.h);
    /* the components become singles, resolved in the energy measure */
    ks_book_mode(s, k, ks_pair_perturbed(kp), 1, t);
    int icm = s->n + k;
    double xcm[3], vcm[3], q[3], qd[3];
    ks_predict_slot_high(s, icm, t, xcm, vcm);
    ks_to_rel(kp->o.u, kp->o.up, q, qd);
    double rs = s->rs[icm], dtr = s->dtr[icm];

    int *map = ks->map, *inv = ks->map + s->cap;
    ks_labels_reset(s, map, inv);
    int L = s->npairs - 1;
    if (k != L) {
        ks_swap_slots(s, 2 * k, 2 * L, map, inv);
        ks_swap_slots(s, 2 * k + 1, 2 * L + 1, map, inv);
        ks_swap_slots(s, s->n + k, s->n + L, map, inv);
        ks_pair tp = ks->pair[k];
        ks->pair[k] = ks->pair[L];
        ks->pair[L] = tp;
    }
    int i1 = 2 * L, i2 = 2 * L + 1;
    double m1 = s->m[i1], m2 = s->m[i2], M = m1 + m2;
    for (int d = 0; d < 3; d++) {
        s->x0[i1][d] = xcm[d] + m2 / M * q[d];
        s->v0[i1][d] = vcm[d] + m2 / M * qd[d];
        s->x0[i2][d] = xcm[d] - m1 / M * q[d];
        s->v0[i2][d] = vcm[d] - m1 / M * qd[d];
    }
    s->rs[i1] = s->rs[i2] = rs;
    s->dtr[i1] = s->dtr[i2] = dtr;
    s->nnb[i1] = s->nnb[i2] = 0;
    ks->pair[L].np = 0;
    ks->pair[L].terminate = 0;
    s->npairs--;
    s->ifirst -= 2;
    s->ntot--;
    /* lists: the ended c.m. (label n + k at the start) becomes both components */
    int *idx = malloc(sizeof(int) * (s->ntot + 2));
    if (!idx) {
        snprintf(err, errlen, "out of memory at a KS termination");
        return -1;
    }
    int nfull = relabel_termination(s, map, s->n + k, i1, i2, idx + 2);
    /* A full list that gained the second component lost an entry: never a
     * silent cut — that body starts again at t with new lists (its radius
     * shrinks until the list fits) and polynomials, like the components. */
    ks_restart_state(s, nfull, idx + 2, t);
    idx[0] = i1;
    idx[1] = i2;
    int rc = newpoly_bodies(s, 2 + nfull, idx, t, 0, err, errlen);
    free(idx);
    if (rc) return -1;
    ks->terminated++;
    return 0;
}

int ks_slot_of_name(const sim *s, int name)
{
    for (int i = s->ifirst; i < s->n; i++)
        if (s->name[i] == name) return i;
    return -1;
}

void ks_note_event(sim *s, int kind, double t, int name1, int name2, double local, double e0,
                   double a, double e, double g)
{
    ks_state *ks = s->ks;
    double de = local;
    if (ks->check_jumps || s->led.exact) {
        de = ks_total_energy(s) - e0;
        double d = fabs(de) / fabs(e0);
        if (d > ks->jump_max) ks->jump_max = d;
    }
    ledger_record(&s->led, kind, t, name1, name2, de, a, e, g);
}

/* ---- KZ(16) ---------------------------------------------------------------- */

void ks_auto_params(sim *s)
{
    if (!s->ks || s->ks->kz16 <= 0 || !(s->rhod > 0.0)) return;
    double rnew = 4.0 * s->rscale / (s->n * cbrt(s->rhod));
    double r = sqrt(s->p.rmin * rnew);
    double cap = s->rsmin * cbrt(s->p.gmin);
    if (cap > 0.0 && r > cap) r = cap;
    s->p.rmin = r;
    s->p.dtmin = 0.04 * sqrt(s->p.etai / 0.02) * sqrt(r * r * r / s->mmean);
    s->smin = 2.0 * s->p.dtmin;
}
