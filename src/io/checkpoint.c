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
#include "core/bytes.h"
#include "integ/escape.h"
#include "reg/ks.h"

#define HEADER_SIZE 32u
#define TRAILER_SIZE 16u
#define BOM 0x01020304u
#define SEC_REQUIRED 1u

void checkpoint_path(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "%s/checkpoint.bin", dir);
}

/* ---- writing ------------------------------------------------------------- */

/* Starts a section; returns where its length goes. */
static size_t sec_begin(wbuf *w, const char tag[4], uint32_t flags)
{
    wb_put(w, tag, 4);
    wb_u32(w, flags);
    size_t at = w->len;
    wb_i64(w, 0);
    return at;
}
/* Marks the section begun at `at` as one a reader must understand. */
static void sec_required(wbuf *w, size_t at)
{
    if (w->oom) return;
    const uint32_t flags = SEC_REQUIRED;
    memcpy(w->p + at - 4, &flags, 4);
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

static void encode_deck(wbuf *w, const deck *dk)
{
    size_t at = sec_begin(w, "DECK", SEC_REQUIRED);
#define W_REAL(f) wb_f64(w, dk->f);
#define W_INT(f) wb_i64(w, dk->f);
    DECK_REALS(W_REAL)
    DECK_INTS(W_INT)
    wb_u32(w, DECK_NKZ);
    for (int k = 1; k <= DECK_NKZ; k++) wb_i64(w, dk->kz[k]);
    uint32_t nl = (uint32_t)strnlen(dk->notes, sizeof dk->notes);
    wb_u32(w, nl);
    wb_put(w, dk->notes, nl);
    sec_end(w, at);
}

static void encode_sim(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "PARM", SEC_REQUIRED);
#define W_PREAL(f) wb_f64(w, s->p.f);
#define W_PINT(f) wb_i64(w, s->p.f);
    PARAM_REALS(W_PREAL)
    PARAM_INTS(W_PINT)
    sec_end(w, at);

    at = sec_begin(w, "SIMS", SEC_REQUIRED);
#define W_SINT(f) wb_i64(w, s->f);
#define W_SREAL(f) wb_f64(w, s->f);
#define W_CNT(f) wb_i64(w, s->cnt.f);
#define W_TM(f) wb_f64(w, s->tm.f);
    SIM_INTS(W_SINT)
    SIM_REALS(W_SREAL)
    SIM_COUNTERS(W_CNT)
    SIM_TIMERS(W_TM)
    sec_end(w, at);

    size_t nt = (size_t)s->ntot;
    at = sec_begin(w, "BODY", SEC_REQUIRED);
    wb_put(w, s->name, sizeof(int) * nt);
    wb_put(w, s->nnb, sizeof(int) * nt);
#define W_BREAL(f) wb_put(w, s->f, sizeof(double) * nt);
#define W_BVEC(f) wb_put(w, s->f, sizeof(vec3) * nt);
    BODY_REALS(W_BREAL)
    BODY_VECS(W_BVEC)
    sec_end(w, at);

    at = sec_begin(w, "LIST", SEC_REQUIRED);
    for (int i = 0; i < s->ntot; i++) wb_put(w, sim_list(s, i), sizeof(int) * (size_t)s->nnb[i]);
    sec_end(w, at);
}

/* A section of reg/ (reg/ks_save.c): its body and whether it is required
 * are reg/'s. */
static void reg_section(wbuf *w, const char tag[4], int (*save)(wbuf *, const sim *), const sim *s)
{
    size_t at = sec_begin(w, tag, 0);
    if (save(w, s)) sec_required(w, at);
    sec_end(w, at);
}

/* The energy ledger (ledger.h), optional: a file without it, or from a build
 * with another ledger layout, starts the ledger afresh. */
static void encode_ledger(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "LEDG", 0);
    ledger_save(w, &s->led);
    sec_end(w, at);
}

/* The external field and the escapers removed so far (tide.h, escape.h);
 * files without it come from runs with neither. */
static void encode_external(wbuf *w, const sim *s)
{
    size_t at = sec_begin(w, "XTRN", 0);
    int need = tide_save(w, &s->tide);
    need |= escape_save(w, s);
    if (need) sec_required(w, at);
    sec_end(w, at);
}

unsigned char *checkpoint_encode(const sim *s, const deck *dk, const run_state *rs, size_t *len)
{
    wbuf w = {0};
    wb_put(&w, CHECKPOINT_MAGIC, 8);
    wb_u32(&w, CHECKPOINT_VERSION);
    wb_u32(&w, BOM);
    wb_u32(&w, HEADER_SIZE);
    wb_u32(&w, (s->ks ? 12 : 8) + (s->evol ? 1 : 0)); /* sections */
    wb_i64(&w, 0); /* file length, set below */
    encode_deck(&w, dk);
    encode_sim(&w, s);
    size_t at = sec_begin(&w, "RUNS", SEC_REQUIRED);
    runstate_save(&w, rs);
    sec_end(&w, at);
    if (s->ks) reg_section(&w, "KSST", ks_save_pairs, s);
    if (s->ks) reg_section(&w, "CHST", ks_save_chain, s);
    if (s->ks) reg_section(&w, "MGST", ks_save_merge, s);
    if (s->ks) reg_section(&w, "KSPT", ks_save_partial, s);
    encode_ledger(&w, s);
    encode_external(&w, s);
    if (s->evol) { /* stellar evolution: a reader without it must not continue */
        size_t at = sec_begin(&w, "SEVO", SEC_REQUIRED);
        evol_save(&w, s);
        sec_end(&w, at);
    }
    wb_put(&w, CHECKPOINT_TRAILER, 8);
    wb_i64(&w, 0);
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

/* KZ(19) = 3: the stars' states (evol.h), a fresh state from the deck
 * filled from section SEVO; a deck with stellar evolution needs it. */
static int decode_evolution(const section *sec, int ns, const deck *dk, sim *s, const char *name,
                            char *err, size_t errlen)
{
    int at = find_section(sec, ns, "SEVO");
    evol_options eo;
    int ev = setup_evol(dk, s->nzero, NULL, &eo, err, errlen);
    if (ev <= 0 && at < 0) return ev;
    if (ev <= 0 || at < 0) {
        snprintf(err, errlen, "%s: refused: its deck %s stellar evolution but the stars' section is %s",
                 name, ev > 0 ? "has" : "has no", at < 0 ? "missing" : "there");
        return -1;
    }
    if (evol_create(s, &eo, err, errlen)) return -1;
    rbuf r = sec[at].body;
    if (evol_load(&r, s)) {
        snprintf(err, errlen, "%s: refused: the stellar evolution section is malformed", name);
        return -1;
    }
    return 0;
}

static int decode_deck(rbuf *r, deck *dk)
{
    memset(dk, 0, sizeof *dk);
#define R_REAL(f) dk->f = rb_f64(r);
#define R_INT(f) dk->f = (int)rb_i64(r);
    DECK_REALS(R_REAL)
    DECK_INTS(R_INT)
    if (rb_u32(r) != DECK_NKZ) return -1;
    for (int k = 1; k <= DECK_NKZ; k++) dk->kz[k] = (int)rb_i64(r);
    uint32_t nl = rb_u32(r);
    if (nl >= sizeof dk->notes) return -1;
    rb_get(r, dk->notes, nl);
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
#define R_PREAL(f) o->p.f = rb_f64(r);
#define R_PINT(f) o->p.f = (int)rb_i64(r);
    PARAM_REALS(R_PREAL)
    PARAM_INTS(R_PINT)
    if (r->bad) return -1;
    r = rs_;
    sim *s = &o->s;
#define R_SINT(f) s->f = (int)rb_i64(r);
#define R_SREAL(f) s->f = rb_f64(r);
#define R_CNT(f) s->cnt.f = rb_i64(r);
#define R_TM(f) s->tm.f = rb_f64(r);
    SIM_INTS(R_SINT)
    SIM_REALS(R_SREAL)
    SIM_COUNTERS(R_CNT)
    SIM_TIMERS(R_TM)
    return r->bad ? -1 : 0;
}

static int decode_bodies(rbuf *rb, rbuf *rl, sim *s)
{
    size_t nt = (size_t)s->ntot;
    rb_get(rb, s->name, sizeof(int) * nt);
    rb_get(rb, s->nnb, sizeof(int) * nt);
#define R_BREAL(f) rb_get(rb, s->f, sizeof(double) * nt);
#define R_BVEC(f) rb_get(rb, s->f, sizeof(vec3) * nt);
    BODY_REALS(R_BREAL)
    BODY_VECS(R_BVEC)
    if (rb->bad || rb->pos != rb->len) return -1;
    for (int i = 0; i < s->ntot; i++) {
        if (s->nnb[i] < 0 || s->nnb[i] > s->nbmax) return -1;
        int *L = sim_list(s, i);
        rb_get(rl, L, sizeof(int) * (size_t)s->nnb[i]);
        /* a KS component's slot (below ifirst) keeps the list it had as a
         * single, unused and stale after slot swaps: only the integrated
         * range's lists must name other bodies of the range */
        for (int q = 0; q < s->nnb[i] && i >= s->ifirst; q++)
            if (L[q] < 0 || L[q] >= s->ntot || L[q] == i) return -1;
    }
    return rl->bad || rl->pos != rl->len ? -1 : 0;
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
    uint32_t version = rb_u32(&r), bom = rb_u32(&r), hsize = rb_u32(&r), nsec = rb_u32(&r);
    uint64_t flen = (uint64_t)rb_i64(&r);
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
        rb_get(&r, tag, 4);
        uint32_t flags = rb_u32(&r);
        uint64_t sl = (uint64_t)rb_i64(&r);
        if (r.bad || sl > r.len - r.pos) {
            why = "a section runs past the end";
            break;
        }
        int known = 0;
        const char *tags[] = {"DECK", "PARM", "SIMS", "BODY", "LIST", "RUNS", "KSST", "LEDG", "CHST",
                              "MGST", "XTRN", "KSPT", "SEVO"};
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
        runstate_load(&sec[at[5]].body, rs)) {
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
    if (led >= 0) ledger_load(&sec[led].body, &s->led);
    int xt = find_section(sec, ns, "XTRN");
    if (xt >= 0 && (tide_load(&sec[xt].body, &s->tide) || escape_load(&sec[xt].body, s))) {
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
    int krc = ks >= 0 ? ks_load_pairs(&sec[ks].body, s) : (s->npairs ? -1 : 0);
    int chs = find_section(sec, ns, "CHST");
    if (krc == 0 && chs >= 0) krc = ks_load_chain(&sec[chs].body, s);
    int mgs = find_section(sec, ns, "MGST");
    if (krc == 0 && mgs >= 0) krc = ks_load_merge(&sec[mgs].body, s);
    int pts = find_section(sec, ns, "KSPT");
    if (krc == 0 && pts >= 0) krc = ks_load_partial(&sec[pts].body, s);
    if (krc) {
        snprintf(err, errlen, krc == -2 ? "%s: refused: its KS records come from a build with another "
                 "KS layout" : "%s: refused: the KS section is malformed or missing", name);
        ks_close(s);
        sim_free(s);
        return NULL;
    }
    if (decode_evolution(sec, ns, dk, s, name, err, errlen)) {
        evol_close(s);
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
