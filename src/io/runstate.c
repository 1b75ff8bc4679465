/* runstate.c — the run state's checkpoint section (runstate.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "io/runstate.h"

/* The fields in one fixed order for both directions. */
#define RUN_REALS(X) X(tcheck) X(tout) X(e0) X(eprev) X(de_sum_abs) X(de_last)
#define RUN_INTS(X) X(nout) X(nsnap) X(nckpt) X(log_bytes)
#define DIAG_REALS(X) X(t) X(kin) X(pot) X(etot) X(qvir) X(xd[0]) X(xd[1]) X(xd[2]) X(rc) \
    X(vc) X(nbmean)

void runstate_save(wbuf *w, const run_state *rs)
{
#define W_RREAL(f) wb_f64(w, rs->f);
#define W_RINT(f) wb_i64(w, rs->f);
#define W_DREAL(f) wb_f64(w, rs->last.f);
    RUN_REALS(W_RREAL)
    RUN_INTS(W_RINT)
    DIAG_REALS(W_DREAL)
    wb_i64(w, rs->last.nc);
    wb_u32(w, NLAGR);
    for (int k = 0; k < NLAGR; k++) wb_f64(w, rs->last.rlagr[k]);
    /* error control, last: files without it read as "no check yet" */
    wb_f64(w, rs->echeck);
    wb_i64(w, rs->qe_repeats);
    wb_f64(w, rs->etai0);
    wb_f64(w, rs->etar0);
    /* the bound mass, its dispersion and the binaries: files without them
     * read as NaN and none */
    wb_f64(w, rs->last.mbound);
    wb_f64(w, rs->last.sigma);
    wb_i64(w, rs->last.nbin);
    wb_i64(w, rs->last.nbin_hard);
}

int runstate_load(rbuf *r, run_state *rs)
{
    memset(rs, 0, sizeof *rs);
#define R_RREAL(f) rs->f = rb_f64(r);
#define R_RINT(f) rs->f = rb_i64(r);
#define R_DREAL(f) rs->last.f = rb_f64(r);
    RUN_REALS(R_RREAL)
    RUN_INTS(R_RINT)
    DIAG_REALS(R_DREAL)
    rs->last.nc = (int)rb_i64(r);
    const uint32_t nlagr = rb_u32(r);
    /* files of the four fractions 1, 10, 50, 90 % before NBODY6's eleven */
    static const int old_at[4] = {0, 3, LAGR_HALF, 10};
    if (nlagr != NLAGR && nlagr != 4) return -1;
    for (int k = 0; k < NLAGR; k++) rs->last.rlagr[k] = NAN;
    for (uint32_t k = 0; k < nlagr; k++) rs->last.rlagr[nlagr == NLAGR ? (int)k : old_at[k]] = rb_f64(r);
    if (!r->bad && r->len - r->pos >= 32) {
        rs->echeck = rb_f64(r);
        rs->qe_repeats = rb_i64(r);
        rs->etai0 = rb_f64(r);
        rs->etar0 = rb_f64(r);
    } else {
        rs->echeck = rs->last.etot;
    }
    rs->last.mbound = rs->last.sigma = NAN;
    if (!r->bad && r->len - r->pos >= 32) {
        rs->last.mbound = rb_f64(r);
        rs->last.sigma = rb_f64(r);
        rs->last.nbin = (int)rb_i64(r);
        rs->last.nbin_hard = (int)rb_i64(r);
    }
    return r->bad ? -1 : 0;
}
