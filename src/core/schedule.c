/* schedule.c — the block schedule: bodies grouped by their next step time.
 *
 * Block steps keep every t0 a multiple of its dt, so all bodies of one step
 * level share one next time and the groups number about as many as the
 * levels in use.  A block takes the earliest group whole and puts its
 * members back at their new times, so a block costs O(members) plus a scan
 * of the few group times; nothing scans all N except a rebuild after
 * schedule_reset; after a KS event schedule_refresh compares each slot's
 * filed time with its t0 + dt (one sequential sweep) and moves only the
 * few that differ.  (A body whose t0 is not a multiple of its step only
 * makes one group more: the order of blocks is the same.)  Owns the
 * groups. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <omp.h>
#include "common/parallel.h"
#include "core/schedule.h"

typedef struct group {
    double t;     /* t0 + dt of every member */
    int n, cap;
    int *ids;
} group;

struct schedule {
    int cap;          /* slots */
    int valid;        /* 0: rebuild at the next schedule_time */
    int ng, gcap;     /* groups in use (ascending t) and allocated; those past
                       * ng keep their buffers for reuse */
    group *g;
    uint64_t *bits;   /* scratch of schedule_take's ordering: one bit a slot */
    /* per slot: whether it is in a group and that group's time, so that
     * schedule_refresh finds the few slots an event changed without
     * refiling all N; lo, hi: the slot range filed at the last rebuild or
     * refresh */
    unsigned char *filed;
    double *tput;
    int lo, hi;
    /* recent times and their group positions, valid while gen is unchanged
     * (any insertion or removal of a group moves positions) */
    struct { double t; int pos; uint64_t gen; } hint[64];
    uint64_t gen;     /* 64 bits: never wraps within a run */
};

schedule *schedule_create(int cap)
{
    schedule *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->cap = cap;
    q->gen = 1; /* the zeroed hints are not valid */
    q->bits = calloc((size_t)cap / 64 + 1, sizeof(uint64_t));
    q->filed = calloc((size_t)cap + 1, 1);
    q->tput = malloc(sizeof(double) * ((size_t)cap + 1));
    if (!q->bits || !q->filed || !q->tput) {
        schedule_free(q);
        return NULL;
    }
    return q;
}

void schedule_free(schedule *q)
{
    if (!q) return;
    for (int k = 0; k < q->gcap; k++) free(q->g[k].ids);
    free(q->g);
    free(q->bits);
    free(q->filed);
    free(q->tput);
    free(q);
}

void schedule_reset(schedule *q) { q->valid = 0; }

int schedule_stale(const schedule *q) { return !q->valid; }

static void die_oom(void)
{
    fprintf(stderr, "nbody6c: out of memory in the block schedule\n");
    exit(1);
}

/* A new empty group of time t at position pos (groups stay ascending). */
static group *insert_group(schedule *q, int pos, double t)
{
    if (q->ng == q->gcap) {
        int nc = q->gcap ? 2 * q->gcap : 64;
        group *g = realloc(q->g, sizeof *g * (size_t)nc);
        if (!g) die_oom();
        memset(g + q->gcap, 0, sizeof *g * (size_t)(nc - q->gcap));
        q->g = g;
        q->gcap = nc;
    }
    q->gen++;
    group spare = q->g[q->ng];
    memmove(q->g + pos + 1, q->g + pos, sizeof(group) * (size_t)(q->ng - pos));
    q->g[pos] = spare;
    q->g[pos].t = t;
    q->g[pos].n = 0;
    q->ng++;
    return &q->g[pos];
}

/* The first group with time >= t (binary search: a big block puts back
 * thousands of bodies, mostly on the far levels). */
static int lower_bound(const schedule *q, double t)
{
    int lo = 0, hi = q->ng;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (q->g[mid].t < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static unsigned hint_slot(double t)
{
    uint64_t u;
    memcpy(&u, &t, sizeof u);
    u ^= u >> 33;
    u *= 0xff51afd7ed558ccdull;
    u ^= u >> 33;
    return (unsigned)(u & 63);
}

/* The group of time t, made if new.  A block puts back thousands of bodies
 * onto a few dozen times: a hint table keyed by the time skips the search
 * for nearly all of them. */
static group *group_of(schedule *q, double t)
{
    unsigned h = hint_slot(t);
    if (q->hint[h].gen == q->gen && q->hint[h].t == t) return &q->g[q->hint[h].pos];
    int pos = lower_bound(q, t);
    if (!(pos < q->ng && q->g[pos].t == t)) insert_group(q, pos, t);
    q->hint[h].t = t;
    q->hint[h].pos = pos;
    q->hint[h].gen = q->gen;
    return &q->g[pos];
}

static void put_at(schedule *q, int i, double t)
{
    group *g = group_of(q, t);
    if (g->n == g->cap) {
        int nc = g->cap ? 2 * g->cap : 64;
        int *ids = realloc(g->ids, sizeof(int) * (size_t)nc);
        if (!ids) die_oom();
        g->ids = ids;
        g->cap = nc;
    }
    g->ids[g->n++] = i;
    q->filed[i] = 1;
    q->tput[i] = t;
}

/* Group pos out of the ascending list (its buffer kept for reuse). */
static void remove_group(schedule *q, int pos)
{
    q->gen++;
    group spare = q->g[pos];
    memmove(q->g + pos, q->g + pos + 1, sizeof(group) * (size_t)(q->ng - pos - 1));
    q->ng--;
    q->g[q->ng] = spare;
    q->g[q->ng].n = 0;
}

/* Slot i out of the group it was filed in; an emptied group goes (a block
 * of no members must never come first). */
static void unfile(schedule *q, int i)
{
    int pos = lower_bound(q, q->tput[i]);
    q->filed[i] = 0;
    if (!(pos < q->ng && q->g[pos].t == q->tput[i])) return; /* not filed after all */
    group *g = &q->g[pos];
    for (int k = 0; k < g->n; k++) {
        if (g->ids[k] != i) continue;
        g->ids[k] = g->ids[--g->n]; /* order within a group is free: take sorts */
        break;
    }
    if (g->n == 0) remove_group(q, pos);
}

void schedule_put(schedule *q, const sim *s, int i)
{
    if (q->valid) put_at(q, i, s->t0[i] + s->dt[i]);
}

/* Room for n more ids in group g. */
static void reserve(group *g, int n)
{
    if (g->n + n <= g->cap) return;
    int nc = g->cap ? g->cap : 64;
    while (nc < g->n + n) nc *= 2;
    int *ids = realloc(g->ids, sizeof(int) * (size_t)nc);
    if (!ids) die_oom();
    g->ids = ids;
    g->cap = nc;
}

/* Distinct times one thread may meet in its share of a block (the step
 * levels in use, a few dozen); more sends the block the serial way. */
enum { PUT_TIMES = 64, PUT_GRAIN = 1024, PUT_THREADS = 256 };

typedef struct put_share {
    double t[PUT_TIMES];
    int count[PUT_TIMES], base[PUT_TIMES], group[PUT_TIMES];
    int nt, overflow;
} put_share;

/* Index of t in the share's table, added if new (-1: the table is full). */
static int share_time(put_share *p, double t, int hint)
{
    if (hint < p->nt && p->t[hint] == t) return hint;
    for (int k = 0; k < p->nt; k++)
        if (p->t[k] == t) return k;
    if (p->nt == PUT_TIMES) return -1;
    p->t[p->nt] = t;
    p->count[p->nt] = 0;
    return p->nt++;
}

/* A big block's members back in parallel: each thread tables the times of
 * its share and counts them; one thread makes the groups and gives each
 * share its place in them; each thread then writes its ids there.  The
 * order within a group differs with the thread count, which nothing sees
 * (schedule_take sorts).  Measured serial: ~20 ns a member, 1.7 ms for a
 * block of 82k at N = 128k on the GPU machine. */
static int put_parallel(schedule *q, const sim *s, const int *ids, int n)
{
    int nth = omp_get_max_threads();
    if (nth > PUT_THREADS) nth = PUT_THREADS;
    put_share *sh = malloc(sizeof *sh * (size_t)nth);
    if (!sh) die_oom();
    int overflow = 0;
    #pragma omp parallel num_threads(nth)
    {
        const int T = omp_get_num_threads(), me = omp_get_thread_num();
        const int lo = (int)((long)n * me / T), hi = (int)((long)n * (me + 1) / T);
        put_share *p = &sh[me];
        p->nt = p->overflow = 0;
        int h = 0;
        for (int k = lo; k < hi && !p->overflow; k++) {
            int i = ids[k];
            double t = s->t0[i] + s->dt[i];
            q->tput[i] = t;
            q->filed[i] = 1;
            h = share_time(p, t, h);
            if (h < 0) p->overflow = 1;
            else p->count[h]++;
        }
        #pragma omp barrier
        #pragma omp single
        {
            for (int r = 0; r < T; r++) overflow |= sh[r].overflow;
            if (!overflow) {
                for (int r = 0; r < T; r++) /* every group made first: an insertion moves them */
                    for (int c = 0; c < sh[r].nt; c++) (void)group_of(q, sh[r].t[c]);
                for (int r = 0; r < T; r++)
                    for (int c = 0; c < sh[r].nt; c++) {
                        int pos = lower_bound(q, sh[r].t[c]);
                        group *g = &q->g[pos];
                        reserve(g, sh[r].count[c]);
                        sh[r].group[c] = pos;
                        sh[r].base[c] = g->n;
                        g->n += sh[r].count[c];
                    }
            }
        }
        if (!overflow) {
            h = 0;
            for (int k = lo; k < hi; k++) {
                int i = ids[k];
                h = share_time(p, q->tput[i], h);
                q->g[p->group[h]].ids[p->base[h]++] = i;
            }
        }
    }
    free(sh);
    return !overflow;
}

void schedule_put_block(schedule *q, const sim *s, const int *ids, int n)
{
    if (!q->valid) return;
    if (par_worth(n, PUT_GRAIN) && put_parallel(q, s, ids, n)) return;
    for (int k = 0; k < n; k++) put_at(q, ids[k], s->t0[ids[k]] + s->dt[ids[k]]);
}

static void rebuild(schedule *q, const sim *s)
{
    for (int k = 0; k < q->ng; k++) q->g[k].n = 0;
    q->ng = 0;
    q->gen++;
    q->valid = 1;
    memset(q->filed, 0, (size_t)q->cap + 1);
    for (int i = s->ifirst; i < s->ntot; i++) put_at(q, i, s->t0[i] + s->dt[i]);
    q->lo = s->ifirst;
    q->hi = s->ntot;
}

void schedule_refresh(schedule *q, sim *s)
{
    if (!q->valid) return; /* the next schedule_time rebuilds anyway */
    int lo = q->lo < s->ifirst ? q->lo : s->ifirst, hi = q->hi > s->ntot ? q->hi : s->ntot;
    for (int i = lo; i < hi; i++) {
        int in = i >= s->ifirst && i < s->ntot;
        double t = in ? s->t0[i] + s->dt[i] : 0.0;
        if (q->filed[i] && (!in || q->tput[i] != t)) unfile(q, i);
        if (in && !q->filed[i]) put_at(q, i, t);
    }
    q->lo = s->ifirst;
    q->hi = s->ntot;
    s->cnt.schedule_fills++;
}

double schedule_time(schedule *q, sim *s)
{
    if (!q->valid) {
        rebuild(q, s);
        s->cnt.schedule_fills++;
    }
    return q->ng > 0 ? q->g[0].t : INFINITY;
}

/* ids in ascending order into out: a sweep over a bitmap of their range
 * (a sort with a comparison function cost ~100 ns a member on the GPU
 * machine's cores). */
static void ascending(schedule *q, const int *ids, int n, int *out)
{
    if (n < 16) {
        for (int k = 0; k < n; k++) { /* insertion: a handful */
            int v = ids[k], p = k;
            while (p > 0 && out[p - 1] > v) { out[p] = out[p - 1]; p--; }
            out[p] = v;
        }
        return;
    }
    int lo = q->cap, hi = -1;
    for (int k = 0; k < n; k++) {
        if (ids[k] < lo) lo = ids[k];
        if (ids[k] > hi) hi = ids[k];
    }
    const int w0 = lo >> 6, w1 = hi >> 6;
    for (int k = 0; k < n; k++) q->bits[ids[k] >> 6] |= 1ull << (ids[k] & 63);
    int m = 0;
    for (int w = w0; w <= w1; w++) {
        uint64_t b = q->bits[w];
        q->bits[w] = 0;
        while (b) {
            out[m++] = (w << 6) + __builtin_ctzll(b);
            b &= b - 1;
        }
    }
}

int schedule_take(schedule *q, sim *s, int *act)
{
    if (schedule_time(q, s) == INFINITY) return 0;
    group first = q->g[0];
    ascending(q, first.ids, first.n, act);
    for (int k = 0; k < first.n; k++) q->filed[first.ids[k]] = 0;
    q->gen++;
    memmove(q->g, q->g + 1, sizeof(group) * (size_t)(q->ng - 1));
    q->ng--;
    q->g[q->ng] = first; /* its buffer is reused */
    q->g[q->ng].n = 0;
    return first.n;
}
