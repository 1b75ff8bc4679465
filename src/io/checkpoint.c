/* checkpoint.c — encodes and decodes the whole run state (checkpoint.h has
 * the file layout).  Encoding builds the file in memory, so the checksum
 * covers exactly what is written; decoding verifies the whole file before it
 * reads a single field, then checks every size and index it reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/setup.h"
#include "io/checkpoint.h"
#include "io/durable.h"
#include "reg/ks.h"
#include "reg/ks_state.h"

#define HEADER_SIZE 32u
#define TRAILER_SIZE 16u
#define BOM 0x01020304u
#define SEC_REQUIRED 1u

void checkpoint_path(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "%s/checkpoint.bin", dir);
}

/* ---- writing ------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} wbuf;

static void put(wbuf *w, const void *d, size_t n)
{
    if (w->oom) return;
    if (w->len + n > w->cap) {
        size_t c = w->cap ? w->cap : 1 << 16;
        while (c < w->len + n) c *= 2;
        unsigned char *q = realloc(w->p, c);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q;
        w->cap = c;
    }
    if (n) memcpy(w->p + w->len, d, n);
    w->len += n;
}
static void put_u32(wbuf *w, uint32_t v) { put(w, &v, 4); }
static void put_i64(wbuf *w, int64_t v) { put(w, &v, 8); }
static void put_f64(wbuf *w, double v) { put(w, &v, 8); }

/* Starts a section; returns where its length goes. */
static size_t sec_begin(wbuf *w, const char tag[4], uint32_t flags)
{
    put(w, tag, 4);
    put_u32(w, flags);
    size_t at = w->len;
    put_i64(w, 0);
    return at;
}
static void sec_end(wbuf *w, size_t at)
{
    if (w->oom) return;
    uint64_t len = w->len - (at + 8);
    memcpy(w->p + at, &len, 8);
}

/* The deck's values, in one fixed order for both directions. */
#define DECK_REALS(X) X(tcomp) X(etai) X(etar) X(rs0) X(dtadj) X(deltat) X(tcrit) X(qe) \
    X(rbar) X(zmbar) X(dtmin) X(rmin) X(etau) X(eclose) X(gmin) X(gmax) X(alphas) X(body1) \
    X(bodyn) X(zmet) X(epoch0) X(dtplot) X(q) X(vxrot) X(vzrot) X(rtide) X(smax)
#define DECK_INTS(X) X(kstart) X(n) X(nfix) X(ncrit) X(nrand) X(nnbmax) X(nrun) X(nbin0) X(nhi0)
#define PARAM_REALS(X) X(etai) X(etar) X(rs0) X(dtadj) X(deltat) X(tcrit) X(qe) X(smax) \
    X(dtmin) X(rmin) X(etau) X(eclose) X(gmin) X(gmax)
#define PARAM_INTS(X) X(nnbmax0) X(kz40) X(nbmax) X(fixed_radius) X(ks_off)
#define SIM_INTS(X) X(n) X(npairs) X(ifirst) X(ntot) X(cap) X(nbmax) X(nc)
#define SIM_REALS(X) X(time) X(mtot) X(mmean) X(nnbmax) X(znbmin) X(znbmax) X(alpha) \
    X(rscale) X(tcr) X(rsmin) X(xd[0]) X(xd[1]) X(xd[2]) X(rc) X(rc2) X(vc) X(smin) X(rhod)
#define SIM_COUNTERS(X) X(steps_irr) X(steps_reg) X(blocks) X(nb_overflow_retries) X(blocks_regular) \
    X(schedule_fills)
#define SIM_TIMERS(X) X(regular) X(irregular) X(total) X(startup) X(p_predict) X(p_firr) X(p_corr) \
    X(p_regf) X(p_firr_new) X(p_corr_reg) X(p_send) X(p_sched) X(p_ks)
#define BODY_REALS(X) X(m) X(tpred) X(t0) X(t0r) X(dt) X(dtr) X(rs)
#define BODY_VECS(X) X(x0) X(v0) X(x) X(v) X(a) X(j) X(fi) X(fid) X(d2) X(d3) X(fr) X(frd) \
    X(d2r) X(d3r)
#define RUN_REALS(X) X(tcheck) X(tout) X(e0) X(eprev) X(de_sum_abs) X(de_last)
#define RUN_INTS(X) X(nout) X(nsnap) X(nckpt) X(log_bytes)
#define DIAG_REALS(X) X(t) X(kin) X(pot) X(etot) X(qvir) X(xd[0]) X(xd[1]) X(xd[2]) X(rc) \
    X(vc) X(nbmean)

static void encode_deck(wbuf *w, const deck *dk)
{
    size_t at = sec_begin(w, "DECK", SEC_REQUIRED);
#define W_REAL(f) put_f64(w, dk->f);
#define W_INT(f) put_i64(w, dk->f);
    DECK_REALS(W_REAL)
    DECK_INTS(W_INT)
    put_u32(w, DECK_NKZ);
    for (int k = 1; k <= DECK_NKZ; k++) put_i64(w, dk->kz[k]);
    uint32_t nl = (uint32_t)strnlen(dk->notes, sizeof dk->notes);
    put_u32(w, nl);
    put(w, dk->notes, nl);
    sec_end(w, at);
}

static void encode_sim(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "PARM", SEC_REQUIRED);
#define W_PREAL(f) put_f64(w, s->p.f);
#define W_PINT(f) put_i64(w, s->p.f);
    PARAM_REALS(W_PREAL)
    PARAM_INTS(W_PINT)
    sec_end(w, at);

    at = sec_begin(w, "SIMS", SEC_REQUIRED);
#define W_SINT(f) put_i64(w, s->f);
#define W_SREAL(f) put_f64(w, s->f);
#define W_CNT(f) put_i64(w, s->cnt.f);
#define W_TM(f) put_f64(w, s->tm.f);
    SIM_INTS(W_SINT)
    SIM_REALS(W_SREAL)
    SIM_COUNTERS(W_CNT)
    SIM_TIMERS(W_TM)
    sec_end(w, at);

    size_t nt = (size_t)s->ntot;
    at = sec_begin(w, "BODY", SEC_REQUIRED);
    put(w, s->name, sizeof(int) * nt);
    put(w, s->nnb, sizeof(int) * nt);
#define W_BREAL(f) put(w, s->f, sizeof(double) * nt);
#define W_BVEC(f) put(w, s->f, sizeof(vec3) * nt);
    BODY_REALS(W_BREAL)
    BODY_VECS(W_BVEC)
    sec_end(w, at);

    at = sec_begin(w, "LIST", SEC_REQUIRED);
    for (int i = 0; i < s->ntot; i++) put(w, sim_list(s, i), sizeof(int) * (size_t)s->nnb[i]);
    sec_end(w, at);
}

static void encode_run(wbuf *w, const run_state *rs)
{
    size_t at = sec_begin(w, "RUNS", SEC_REQUIRED);
#define W_RREAL(f) put_f64(w, rs->f);
#define W_RINT(f) put_i64(w, rs->f);
#define W_DREAL(f) put_f64(w, rs->last.f);
    RUN_REALS(W_RREAL)
    RUN_INTS(W_RINT)
    DIAG_REALS(W_DREAL)
    put_i64(w, rs->last.nc);
    put_u32(w, NLAGR);
    for (int k = 0; k < NLAGR; k++) put_f64(w, rs->last.rlagr[k]);
    /* error control, last: files without it read as "no check yet" */
    put_f64(w, rs->echeck);
    put_i64(w, rs->qe_repeats);
    put_f64(w, rs->etai0);
    put_f64(w, rs->etar0);
    sec_end(w, at);
}

/* KS pairs (ks_state.h): counters, then per pair its orbit (the struct's
 * bytes: its size is recorded, and a build with another layout refuses the
 * file), perturber list, flags and resolved state. */
#define KSPAIR_REALS(X) X(tres) X(xcm[0]) X(xcm[1]) X(xcm[2]) X(vcm[0]) X(vcm[1]) X(vcm[2]) \
    X(x1[0]) X(x1[1]) X(x1[2]) X(v1[0]) X(v1[1]) X(v1[2]) X(x2[0]) X(x2[1]) X(x2[2]) \
    X(v2[0]) X(v2[1]) X(v2[2])

static void encode_ks(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    size_t at = sec_begin(w, "KSST", SEC_REQUIRED);
    put_u32(w, (uint32_t)sizeof(ks_orbit));
    put_i64(w, k->kz16);
    put_f64(w, k->ebh);
    put_i64(w, k->formed);
    put_i64(w, k->terminated);
    put_i64(w, k->steps);
    put_i64(w, s->npairs);
    for (int q = 0; q < s->npairs; q++) {
        const ks_pair *p = &k->pair[q];
        put(w, &p->o, sizeof p->o);
        put_i64(w, p->np);
        put(w, p->plist, sizeof(int) * (size_t)p->np);
        put_i64(w, p->terminate);
        put_i64(w, p->renew);
#define W_KREAL(f) put_f64(w, p->f);
        KSPAIR_REALS(W_KREAL)
    }
    put_f64(w, k->etide); /* last: files without it read as 0 */
    sec_end(w, at);
}

/* The chain (ks_state.h): its counters always, its state when one is
 * active (then the section is required: a reader without chains must not
 * continue such a run). */
static void encode_chain(wbuf *w, const sim *s)
{
    const ks_chain *ch = &s->ks->ch;
    size_t at = sec_begin(w, "CHST", ch->active ? SEC_REQUIRED : 0);
    put_u32(w, (uint32_t)sizeof(chain));
    put_i64(w, ch->started);
    put_i64(w, ch->ended);
    put_i64(w, ch->active);
    put_i64(w, ch->steps_total);
    put_i64(w, ch->absorbed);
    put_f64(w, ch->next_start);
    if (ch->active) {
        put(w, &ch->c, sizeof(chain));
        put_i64(w, ch->icm);
        for (int k = 0; k < CHAIN_NMAX; k++) put_i64(w, ch->slot[k]);
        put_i64(w, ch->np);
        put(w, ch->plist, sizeof(int) * (size_t)ch->np);
        put_i64(w, ch->renew);
        put_i64(w, ch->steps);
        put_f64(w, ch->gpert);
        put_f64(w, ch->tres);
        put(w, ch->x, sizeof ch->x);
        put(w, ch->v, sizeof ch->v);
    }
    sec_end(w, at);
}

/* Merged hierarchies (ks_state.h): the counters, the booked energy, the
 * pairs due for a merger test and the table (required while a merger is
 * active: a reader without mergers must not continue such a run). */
static void encode_merge(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    size_t at = sec_begin(w, "MGST", k->nmerge > 0 ? SEC_REQUIRED : 0);
    put_u32(w, (uint32_t)sizeof(ks_merger));
    put_i64(w, k->merged);
    put_i64(w, k->splits);
    put_f64(w, k->emerge);
    int64_t nchk = 0;
    for (int q = 0; q < s->npairs; q++) nchk += k->pair[q].merge_check != 0;
    put_i64(w, nchk);
    for (int q = 0; q < s->npairs; q++)
        if (k->pair[q].merge_check) put_i64(w, q);
    put_i64(w, k->nmerge);
    put(w, k->mg, sizeof(ks_merger) * (size_t)k->nmerge);
    sec_end(w, at);
}

/* The one-component list entries (ks_state.h, ks_partial.c), live ones
 * only; required while any exists (a reader without them would take those
 * c.m. bodies whole and count the other component twice). */
static void encode_partial(wbuf *w, const sim *s)
{
    const ks_state *k = s->ks;
    int64_t live = 0;
    for (int e = 0; e < k->npart; e++) live += k->part[e].cm >= 0;
    size_t at = sec_begin(w, "KSPT", live > 0 ? SEC_REQUIRED : 0);
    put_i64(w, k->partial_made);
    put_i64(w, k->partial_flushed);
    put_i64(w, live);
    for (int e = 0; e < k->npart; e++) {
        if (k->part[e].cm < 0) continue;
        put_i64(w, k->part[e].holder);
        put_i64(w, k->part[e].cm);
        put_i64(w, k->part[e].comp);
    }
    sec_end(w, at);
}

/* The energy ledger (ledger.h), optional: a file without it, or from a build
 * with another ledger layout, starts the ledger afresh. */
static void encode_ledger(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "LEDG", 0);
    put_u32(w, (uint32_t)sizeof(ledger));
    put(w, &s->led, sizeof(ledger));
    sec_end(w, at);
}

/* The external field and the escapers removed so far (tide.h, escape.c);
 * files without it come from runs with neither. */
static void encode_external(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "XTRN", s->tide.kind > 0 || s->nzero != s->n ? SEC_REQUIRED : 0);
    put_i64(w, s->tide.kind);
    put_f64(w, s->tide.t1);
    put_f64(w, s->tide.t3);
    put_f64(w, s->tide.t4);
    put_i64(w, s->n_escaped);
    put_f64(w, s->m_escaped);
    put_f64(w, s->e_escaped);
    put_i64(w, s->nzero);
    sec_end(w, at);
}

unsigned char *checkpoint_encode(const sim *s, const deck *dk, const run_state *rs, size_t *len)
{
    wbuf w = {0};
    put(&w, CHECKPOINT_MAGIC, 8);
    put_u32(&w, CHECKPOINT_VERSION);
    put_u32(&w, BOM);
    put_u32(&w, HEADER_SIZE);
    put_u32(&w, s->ks ? 12 : 8); /* sections */
    put_i64(&w, 0); /* file length, set below */
    encode_deck(&w, dk);
    encode_sim(&w, s);
    encode_run(&w, rs);
    if (s->ks) encode_ks(&w, s);
    if (s->ks) encode_chain(&w, s);
    if (s->ks) encode_merge(&w, s);
    if (s->ks) encode_partial(&w, s);
    encode_ledger(&w, s);
    encode_external(&w, s);
    put(&w, CHECKPOINT_TRAILER, 8);
    put_i64(&w, 0);
    if (w.oom) {
        free(w.p);
        return NULL;
    }
    uint64_t total = w.len;
    memcpy(w.p + 24, &total, 8);
    uint64_t h = durable_fnv64(DURABLE_FNV_INIT, w.p, w.len - 8);
    memcpy(w.p + w.len - 8, &h, 8);
    *len = w.len;
    return w.p;
}

int checkpoint_write(const char *path, const sim *s, const deck *dk, const run_state *rs,
                     int64_t seq, char *err, size_t errlen)
{
    size_t len;
    unsigned char *buf = checkpoint_encode(s, dk, rs, &len);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory for the checkpoint", path);
        return -1;
    }
    int rc = durable_write(path, buf, len, "checkpoint", seq, err, errlen);
    free(buf);
    return rc;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct rbuf {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} rbuf;

static void get(rbuf *r, void *d, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = 1;
        memset(d, 0, n);
        return;
    }
    memcpy(d, r->p + r->pos, n);
    r->pos += n;
}
static uint32_t get_u32(rbuf *r) { uint32_t v; get(r, &v, 4); return v; }
static int64_t get_i64(rbuf *r) { int64_t v; get(r, &v, 8); return v; }
static double get_f64(rbuf *r) { double v; get(r, &v, 8); return v; }

static int decode_chain(rbuf *r, sim *s)
{
    ks_chain *ch = &s->ks->ch;
    if (get_u32(r) != sizeof(chain)) return -2;
    ch->started = get_i64(r);
    ch->ended = get_i64(r);
    ch->active = (int)get_i64(r);
    ch->steps_total = get_i64(r);
    ch->absorbed = get_i64(r);
    ch->next_start = get_f64(r);
    if (ch->active) {
        get(r, &ch->c, sizeof(chain));
        if (ch->c.n < 2 || ch->c.n > CHAIN_NMAX) return -1;
        ch->icm = (int)get_i64(r);
        for (int k = 0; k < CHAIN_NMAX; k++) ch->slot[k] = (int)get_i64(r);
        for (int k = 0; k < ch->c.n; k++)
            if (ch->slot[k] < s->ifirst || ch->slot[k] >= s->n) return -1;
        if (ch->slot[0] != ch->icm) return -1;
        int64_t np = get_i64(r);
        if (np < 0 || np > s->nbmax + 2) return -1;
        ch->np = (int)np;
        if (!ch->plist) ch->plist = malloc(sizeof(int) * (size_t)(s->nbmax + 2));
        if (!ch->plist) return -1;
        get(r, ch->plist, sizeof(int) * (size_t)np);
        for (int j = 0; j < ch->np; j++)
            if (ch->plist[j] < 0 || ch->plist[j] >= s->ntot) return -1;
        ch->renew = (int)get_i64(r);
        ch->steps = get_i64(r);
        ch->gpert = get_f64(r);
        ch->tres = get_f64(r);
        get(r, ch->x, sizeof ch->x);
        get(r, ch->v, sizeof ch->v);
    }
    return r->bad || r->pos != r->len ? -1 : 0;
}

static int decode_merge(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    if (get_u32(r) != sizeof(ks_merger)) return -2;
    k->merged = get_i64(r);
    k->splits = get_i64(r);
    k->emerge = get_f64(r);
    int64_t nchk = get_i64(r);
    if (nchk < 0 || nchk > s->npairs) return -1;
    for (int64_t q = 0; q < nchk; q++) {
        int64_t p = get_i64(r);
        if (p < 0 || p >= s->npairs) return -1;
        k->pair[p].merge_check = 1;
    }
    int64_t nm = get_i64(r);
    if (nm < 0 || nm > k->cap) return -1;
    k->nmerge = (int)nm;
    get(r, k->mg, sizeof(ks_merger) * (size_t)nm);
    return r->bad || r->pos != r->len ? -1 : 0;
}

static int decode_partial(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    int64_t made = get_i64(r), flushed = get_i64(r), n = get_i64(r);
    if (r->bad || n < 0 || n > (int64_t)s->cap * s->nbmax) return -1;
    for (int64_t e = 0; e < n; e++) {
        int64_t h = get_i64(r), cm = get_i64(r), comp = get_i64(r);
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

static void decode_ledger(rbuf *r, sim *s)
{
    ledger l;
    if (get_u32(r) != sizeof(ledger)) return;
    get(r, &l, sizeof l);
    if (r->bad || r->pos != r->len) return;
    l.exact = 0; /* an option of the process, not of the run */
    s->led = l;
}


typedef struct section {
    char tag[5];
    rbuf body;
} section;

/* An NBODY6 dump is Fortran unformatted: a record length, the record, the
 * same length again. */
static int looks_like_fortran_dump(const unsigned char *b, size_t len)
{
    if (len < 12) return 0;
    uint32_t l1, l2;
    memcpy(&l1, b, 4);
    if (l1 == 0 || (size_t)l1 + 8 > len) return 0;
    memcpy(&l2, b + 4 + l1, 4);
    return l1 == l2;
}

static int find_section(const section *sec, int ns, const char *tag)
{
    for (int k = 0; k < ns; k++)
        if (!strcmp(sec[k].tag, tag)) return k;
    return -1;
}

static int decode_external(rbuf *r, sim *s)
{
    s->tide.kind = (int)get_i64(r);
    s->tide.t1 = get_f64(r);
    s->tide.t3 = get_f64(r);
    s->tide.t4 = get_f64(r);
    s->n_escaped = (int)get_i64(r);
    s->m_escaped = get_f64(r);
    s->e_escaped = get_f64(r);
    s->nzero = (int)get_i64(r);
    return r->bad || s->nzero < s->n || s->tide.kind < 0 || s->tide.kind > 2 || s->n_escaped < 0 ? -1 : 0;
}

static int decode_deck(rbuf *r, deck *dk)
{
    memset(dk, 0, sizeof *dk);
#define R_REAL(f) dk->f = get_f64(r);
#define R_INT(f) dk->f = (int)get_i64(r);
    DECK_REALS(R_REAL)
    DECK_INTS(R_INT)
    if (get_u32(r) != DECK_NKZ) return -1;
    for (int k = 1; k <= DECK_NKZ; k++) dk->kz[k] = (int)get_i64(r);
    uint32_t nl = get_u32(r);
    if (nl >= sizeof dk->notes) return -1;
    get(r, dk->notes, nl);
    dk->notes[nl] = '\0';
    return r->bad ? -1 : 0;
}

typedef struct sim_scalars {
    params p;
    sim s; /* only the scalars are used */
} sim_scalars;

static int decode_scalars(rbuf *rp, rbuf *rs_, sim_scalars *o)
{
    memset(o, 0, sizeof *o);
    rbuf *r = rp;
#define R_PREAL(f) o->p.f = get_f64(r);
#define R_PINT(f) o->p.f = (int)get_i64(r);
    PARAM_REALS(R_PREAL)
    PARAM_INTS(R_PINT)
    if (r->bad) return -1;
    r = rs_;
    sim *s = &o->s;
#define R_SINT(f) s->f = (int)get_i64(r);
#define R_SREAL(f) s->f = get_f64(r);
#define R_CNT(f) s->cnt.f = get_i64(r);
#define R_TM(f) s->tm.f = get_f64(r);
    SIM_INTS(R_SINT)
    SIM_REALS(R_SREAL)
    SIM_COUNTERS(R_CNT)
    SIM_TIMERS(R_TM)
    return r->bad ? -1 : 0;
}

static int decode_run(rbuf *r, run_state *rs)
{
    memset(rs, 0, sizeof *rs);
#define R_RREAL(f) rs->f = get_f64(r);
#define R_RINT(f) rs->f = get_i64(r);
#define R_DREAL(f) rs->last.f = get_f64(r);
    RUN_REALS(R_RREAL)
    RUN_INTS(R_RINT)
    DIAG_REALS(R_DREAL)
    rs->last.nc = (int)get_i64(r);
    if (get_u32(r) != NLAGR) return -1;
    for (int k = 0; k < NLAGR; k++) rs->last.rlagr[k] = get_f64(r);
    if (!r->bad && r->len - r->pos >= 32) {
        rs->echeck = get_f64(r);
        rs->qe_repeats = get_i64(r);
        rs->etai0 = get_f64(r);
        rs->etar0 = get_f64(r);
    } else {
        rs->echeck = rs->last.etot;
    }
    return r->bad ? -1 : 0;
}

static int decode_bodies(rbuf *rb, rbuf *rl, sim *s)
{
    size_t nt = (size_t)s->ntot;
    get(rb, s->name, sizeof(int) * nt);
    get(rb, s->nnb, sizeof(int) * nt);
#define R_BREAL(f) get(rb, s->f, sizeof(double) * nt);
#define R_BVEC(f) get(rb, s->f, sizeof(vec3) * nt);
    BODY_REALS(R_BREAL)
    BODY_VECS(R_BVEC)
    if (rb->bad || rb->pos != rb->len) return -1;
    for (int i = 0; i < s->ntot; i++) {
        if (s->nnb[i] < 0 || s->nnb[i] > s->nbmax) return -1;
        int *L = sim_list(s, i);
        get(rl, L, sizeof(int) * (size_t)s->nnb[i]);
        /* a KS component's slot (below ifirst) keeps the list it had as a
         * single, unused and stale after slot swaps: only the integrated
         * range's lists must name other bodies of the range */
        for (int q = 0; q < s->nnb[i] && i >= s->ifirst; q++)
            if (L[q] < 0 || L[q] >= s->ntot || L[q] == i) return -1;
    }
    return rl->bad || rl->pos != rl->len ? -1 : 0;
}

static int decode_ks(rbuf *r, sim *s)
{
    ks_state *k = s->ks;
    if (get_u32(r) != sizeof(ks_orbit)) return -2;
    k->kz16 = (int)get_i64(r);
    k->ebh = get_f64(r);
    k->formed = get_i64(r);
    k->terminated = get_i64(r);
    k->steps = get_i64(r);
    if (get_i64(r) != s->npairs || s->npairs > k->cap) return -1;
    for (int q = 0; q < s->npairs && !r->bad; q++) {
        ks_pair *p = &k->pair[q];
        get(r, &p->o, sizeof p->o);
        int64_t np = get_i64(r);
        if (np < 0 || np > s->nbmax + 2) return -1;
        p->np = (int)np;
        if (!p->plist) p->plist = malloc(sizeof(int) * (size_t)(s->nbmax + 2));
        if (!p->plist) return -1;
        get(r, p->plist, sizeof(int) * (size_t)np);
        for (int j = 0; j < p->np; j++)
            if (p->plist[j] < 0 || p->plist[j] >= s->ntot) return -1;
        p->terminate = (int)get_i64(r);
        p->renew = (int)get_i64(r);
#define R_KREAL(f) p->f = get_f64(r);
        KSPAIR_REALS(R_KREAL)
    }
    k->etide = r->len - r->pos == 8 ? get_f64(r) : 0.0;
    return r->bad || r->pos != r->len ? -1 : 0;
}

sim *checkpoint_decode(const unsigned char *buf, size_t len, const char *name, deck *dk,
                       run_state *rs, char *err, size_t errlen)
{
    const char *why = NULL;
    if (len < 8 || memcmp(buf, CHECKPOINT_MAGIC, 8) != 0) {
        if (looks_like_fortran_dump(buf, len))
            snprintf(err, errlen, "%s: an NBODY6 restart dump (fort.1, Fortran unformatted): "
                     "nbody6c continues only from its own checkpoints (checkpoint.bin in a run "
                     "folder); start the run with nbody6c from the deck instead", name);
        else
            snprintf(err, errlen, "%s: not an nbody6c checkpoint (no %s signature)", name,
                     CHECKPOINT_MAGIC);
        return NULL;
    }
    rbuf r = {buf, len, 8, 0};
    uint32_t version = get_u32(&r), bom = get_u32(&r), hsize = get_u32(&r), nsec = get_u32(&r);
    uint64_t flen = (uint64_t)get_i64(&r);
    if (r.bad || len < HEADER_SIZE + TRAILER_SIZE) why = "shorter than its header";
    else if (bom != BOM) why = "written on a machine of the other byte order";
    else if (version != CHECKPOINT_VERSION) {
        snprintf(err, errlen, "%s: checkpoint format %u, this nbody6c reads format %u only", name,
                 version, CHECKPOINT_VERSION);
        return NULL;
    } else if (hsize != HEADER_SIZE) why = "unexpected header size";
    else if (flen != len) {
        snprintf(err, errlen, "%s: truncated or extended checkpoint: %zu bytes, its header says %llu",
                 name, len, (unsigned long long)flen);
        return NULL;
    } else if (memcmp(buf + len - TRAILER_SIZE, CHECKPOINT_TRAILER, 8) != 0) why = "trailer missing";
    else {
        uint64_t h, want = durable_fnv64(DURABLE_FNV_INIT, buf, len - 8);
        memcpy(&h, buf + len - 8, 8);
        if (h != want) why = "checksum mismatch (the file is corrupted)";
    }
    if (why) {
        snprintf(err, errlen, "%s: refused: %s", name, why);
        return NULL;
    }

    /* sections */
    section sec[32];
    int ns = 0;
    r.len = len - TRAILER_SIZE;
    for (uint32_t k = 0; k < nsec; k++) {
        char tag[4];
        get(&r, tag, 4);
        uint32_t flags = get_u32(&r);
        uint64_t sl = (uint64_t)get_i64(&r);
        if (r.bad || sl > r.len - r.pos) {
            why = "a section runs past the end";
            break;
        }
        int known = 0;
        const char *tags[] = {"DECK", "PARM", "SIMS", "BODY", "LIST", "RUNS", "KSST", "LEDG", "CHST",
                              "MGST", "XTRN", "KSPT"};
        for (int q = 0; q < (int)(sizeof tags / sizeof tags[0]); q++) known |= !memcmp(tag, tags[q], 4);
        if (known && ns < 32) {
            memcpy(sec[ns].tag, tag, 4);
            sec[ns].tag[4] = '\0';
            sec[ns].body = (rbuf){r.p + r.pos, (size_t)sl, 0, 0};
            ns++;
        } else if (flags & SEC_REQUIRED) {
            snprintf(err, errlen, "%s: refused: it needs section '%.4s', which this nbody6c does "
                     "not know (written by a newer version?)", name, tag);
            return NULL;
        }
        r.pos += sl;
    }
    if (!why && r.pos != r.len) why = "bytes after the last section";
    const char *need[] = {"DECK", "PARM", "SIMS", "BODY", "LIST", "RUNS"};
    int at[6];
    for (int q = 0; q < 6 && !why; q++)
        if ((at[q] = find_section(sec, ns, need[q])) < 0) why = "a section is missing";
    if (why) {
        snprintf(err, errlen, "%s: refused: %s", name, why);
        return NULL;
    }

    sim_scalars sc;
    if (decode_deck(&sec[at[0]].body, dk) || decode_scalars(&sec[at[1]].body, &sec[at[2]].body, &sc) ||
        decode_run(&sec[at[5]].body, rs)) {
        snprintf(err, errlen, "%s: refused: a header section is malformed", name);
        return NULL;
    }
    const sim *h = &sc.s;
    if (h->n < 1 || h->n > (1 << 30) || h->npairs < 0 || 2 * h->npairs > h->n ||
        h->ifirst != 2 * h->npairs || h->ntot != h->n + h->npairs || h->nbmax < 1 ||
        h->nbmax > (1 << 20) || h->nbmax != sc.p.nbmax || dk->n < h->n) {
        snprintf(err, errlen, "%s: refused: inconsistent sizes (N %d, pairs %d, list cap %d)", name,
                 h->n, h->npairs, h->nbmax);
        return NULL;
    }
    /* setup_sim sizes the arrays and takes the deck's parameters; the saved
     * values then replace every field */
    double *m0 = calloc((size_t)h->n, sizeof(double));
    double(*z)[3] = calloc((size_t)h->n, sizeof(double[3]));
    sim *s = m0 && z ? setup_sim(dk, h->n, m0, (const double(*)[3])z, (const double(*)[3])z, h->nbmax,
                                 err, errlen) : NULL;
    free(m0);
    free(z);
    if (!s) {
        if (!m0 || !z) snprintf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    if (s->cap < h->ntot || s->nbmax != h->nbmax) {
        snprintf(err, errlen, "%s: refused: %d slots do not fit this build's layout", name, h->ntot);
        sim_free(s);
        return NULL;
    }
    int cap = s->cap; /* the allocation's own size stays */
    s->p = sc.p;
#define C_SINT(f) s->f = h->f;
    SIM_INTS(C_SINT)
    SIM_REALS(C_SINT)
    s->cap = cap;
    s->cnt = h->cnt;
    s->tm = h->tm;
    if (decode_bodies(&sec[at[3]].body, &sec[at[4]].body, s)) {
        snprintf(err, errlen, "%s: refused: the body or list section is malformed", name);
        sim_free(s);
        return NULL;
    }
    int led = find_section(sec, ns, "LEDG");
    if (led >= 0) decode_ledger(&sec[led].body, s);
    int xt = find_section(sec, ns, "XTRN");
    if (xt >= 0 && decode_external(&sec[xt].body, s)) {
        snprintf(err, errlen, "%s: refused: the external-field section is malformed", name);
        sim_free(s);
        return NULL;
    }
    /* the field is the checkpoint's (XTRN), not only the deck's: its
     * Coriolis cache follows it (derived state, not saved) */
    if (sim_coriolis_cache(s)) {
        snprintf(err, errlen, "%s: out of memory for the tidal field's cache", name);
        sim_free(s);
        return NULL;
    }
    /* KS: a fresh state from the deck, then the saved pairs */
    int ks = find_section(sec, ns, "KSST");
    const ks_options ko = setup_ks(dk);
    if (ks_open(s, &ko, err, errlen)) {
        sim_free(s);
        return NULL;
    }
    int krc = ks >= 0 ? decode_ks(&sec[ks].body, s) : (s->npairs ? -1 : 0);
    int chs = find_section(sec, ns, "CHST");
    if (krc == 0 && chs >= 0) krc = decode_chain(&sec[chs].body, s);
    int mgs = find_section(sec, ns, "MGST");
    if (krc == 0 && mgs >= 0) krc = decode_merge(&sec[mgs].body, s);
    int pts = find_section(sec, ns, "KSPT");
    if (krc == 0 && pts >= 0) krc = decode_partial(&sec[pts].body, s);
    if (krc) {
        snprintf(err, errlen, krc == -2 ? "%s: refused: its KS records come from a build with another "
                 "KS layout" : "%s: refused: the KS section is malformed or missing", name);
        ks_close(s);
        sim_free(s);
        return NULL;
    }
    return s;
}

sim *checkpoint_read(const char *path, deck *dk, run_state *rs, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        fclose(f);
        return NULL;
    }
    size_t len = (size_t)st.st_size;
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory for %zu bytes", path, len);
        fclose(f);
        return NULL;
    }
    size_t got = fread(buf, 1, len, f);
    fclose(f);
    sim *s = NULL;
    if (got != len)
        snprintf(err, errlen, "%s: read %zu of %zu bytes", path, got, len);
    else
        s = checkpoint_decode(buf, len, path, dk, rs, err, errlen);
    free(buf);
    return s;
}
