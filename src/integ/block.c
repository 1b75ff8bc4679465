/* block.c — one block step of the Ahmad–Cohen Hermite scheme (docs/ALGORITHMS.md,
 * docs/ALGORITHMS.md §2–§6), numbered in block_step as in docs/ARCHITECTURE.md:
 *   0. the bodies due at the next block time; KS pairs and chain to it
 *   1. predict, irregular forces with the current lists
 *   2. irregular corrector for every member
 *   3. for those due a regular step: regular forces, new lists, irregular
 *      forces with them, regular corrector, new steps and radii
 *   4. the corrected bodies to both force libraries
 *   5. KS, chain and merger events (ks_block_end), the schedule refiled
 *
 * Owns the per-block scratch arrays, the schedule object (core/schedule.c)
 * and the per-block-size profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "integ/block.h"
#include "core/forces.h"
#include "core/hermite.h"
#include "reg/ks.h"
#include "core/nbradius.h"
#include "common/parallel.h"
#include "common/predict.h"
#include "common/tuning.h"
#include "core/schedule.h"
#include "core/steps.h"

struct block_scratch {
    schedule *sq;      /* who is due when */
    int *act, nact;    /* this block, ascending slots */
    int *reg, nreg;    /* the subset due a regular step */
    int *irr_only, nirr; /* the other members' slots, ascending */
    vec3 *ai, *ji;     /* irregular force with the old lists */
    vec3 *ar, *jr;     /* regular force (new lists) */
    vec3 *ai2, *ji2;   /* irregular force with the new lists */
    vec3 *vpred;       /* predicted velocity (for the convergence tests) */
    vec3 *jprev;       /* irregular jerk of the member's previous step */
    double *dtprev;    /* the irregular step just completed */
    double *dt0;       /* irregular criterion value */
    int *nnbn, *lists, *ovf, *nnb0;
    double *tj;        /* t0 for set_jp */
    const int **lp;    /* KS: the list each force call used, per member */
    int *ri;           /* slots of the regular members */
    vec3 *xg, *vg;     /* the members' predicted x, v for the GPU irregular force */
    regf_in rin;       /* the regular force's inputs while it runs (regular_force_begin) */
    int regf_on;       /* a regular force started and not yet ended */
    unsigned char *irr_sent; /* member k went to GPUIRR right after its irregular corrector */
    vec3 *ha, *hj;     /* the members' a, jerk for the held send (x, v go in ai, ji) */
    double *hm;
    int hold_every;    /* NBODY6C_HOLD_SEND=2 (tests): the held hand-over in every
                        * block with a regular member */
    int reverse;       /* NBODY6C_REVERSE_MEMBERS=1 (tests): the correctors' loops
                        * backwards; a team runs them in any order, so no member's
                        * step may read what another member's step writes */
    block_profile prof; /* where the time goes, by block size */
    double wend;       /* wall clock at the end of the last block step (0: none
                        * to count "between" from) */
    double refill;     /* seconds of schedule rebuild since the last block step */
    step_tally *tally; /* steps by |name| since the last block_tally_clear */
    int tally_names;   /* names it covers: 0 .. tally_names - 1 */
};

block_scratch *block_create(const sim *s)
{
    block_scratch *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    int c = s->cap;
    b->sq = schedule_create(c);
    b->act = malloc(sizeof(int) * c);
    b->reg = malloc(sizeof(int) * c);
    b->irr_only = malloc(sizeof(int) * c);
    b->ha = malloc(sizeof(vec3) * c);
    b->hj = malloc(sizeof(vec3) * c);
    b->hm = malloc(sizeof(double) * c);
    const tuning tn = tuning_read();
    b->hold_every = tn.hold_send == 2;
    b->reverse = tn.reverse_members == 1;
    b->ai = malloc(sizeof(vec3) * c);
    b->ji = malloc(sizeof(vec3) * c);
    b->ar = malloc(sizeof(vec3) * c);
    b->jr = malloc(sizeof(vec3) * c);
    b->ai2 = malloc(sizeof(vec3) * c);
    b->ji2 = malloc(sizeof(vec3) * c);
    b->vpred = malloc(sizeof(vec3) * c);
    b->jprev = malloc(sizeof(vec3) * c);
    b->dtprev = malloc(sizeof(double) * c);
    b->dt0 = malloc(sizeof(double) * c);
    b->nnbn = malloc(sizeof(int) * c);
    b->ovf = malloc(sizeof(int) * c);
    b->nnb0 = malloc(sizeof(int) * c);
    b->tj = malloc(sizeof(double) * c);
    b->lists = malloc(sizeof(int) * (size_t)c * s->nbmax);
    b->lp = malloc(sizeof(int *) * c);
    b->ri = malloc(sizeof(int) * c);
    b->xg = malloc(sizeof(vec3) * c);
    b->vg = malloc(sizeof(vec3) * c);
    b->irr_sent = malloc((size_t)c);
    /* names run to 2 NZERO (a c.m. is NZERO + its first component's name) */
    b->tally_names = 2 * s->nzero + 2;
    b->tally = calloc((size_t)b->tally_names, sizeof(step_tally));
    if (regf_in_alloc(&b->rin, c)) {
        block_free(b);
        return NULL;
    }
    if (!b->irr_only || !b->ha || !b->hj || !b->hm || !b->irr_sent || !b->lp || !b->ri || !b->xg || !b->vg || !b->sq || !b->act || !b->reg || !b->ai || !b->ji || !b->ar || !b->jr || !b->ai2 ||
        !b->ji2 || !b->vpred || !b->jprev || !b->dtprev || !b->dt0 || !b->nnbn || !b->ovf || !b->nnb0 || !b->tj || !b->lists || !b->tally) {
        block_free(b);
        return NULL;
    }
    return b;
}

void block_free(block_scratch *b)
{
    if (!b) return;
    schedule_free(b->sq);
    regf_in_free(&b->rin);
    void *p[] = {b->act, b->reg, b->ai, b->ji, b->ar, b->jr, b->ai2, b->ji2,
                 b->vpred, b->jprev, b->dtprev, b->dt0, b->nnbn, b->ovf, b->nnb0, b->tj, b->lists, (void *)b->lp, b->ri,
                 b->xg, b->vg, b->irr_sent, b->irr_only, b->ha, b->hj, b->hm, b->tally};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
    free(b);
}

/* ---- steps by body ------------------------------------------------------ */

/* The tally's slot of a name (a chain's c.m. has 0, a merged inner c.m. a
 * negative name: counted by its absolute value; anything else out of
 * range in slot 0). */
static int tally_slot(const block_scratch *b, int name)
{
    int k = name < 0 ? -name : name;
    return k < b->tally_names ? k : 0;
}

const step_tally *block_tally(const block_scratch *b, int *nnames)
{
    *nnames = b->tally_names;
    return b->tally;
}

void block_tally_clear(block_scratch *b)
{
    memset(b->tally, 0, sizeof(step_tally) * (size_t)b->tally_names);
}

/* ---- profile by block size --------------------------------------------- */

/* The phases of a block step, in profile order: one list for the enum and
 * the names. */
#define BLOCK_PHASES(X) X(BETWEEN, "between") X(SCHED, "schedule") X(KSADV, "ks_advance") \
    X(PRED, "predict") X(FIRR, "firr") X(CORR, "corr") X(REGF, "regf") X(FIRR_NEW, "firr_new") \
    X(CORR_REG, "corr_reg") X(SEND, "send") X(KSEND, "ks_end")
#define PHASE_ENUM(id, name) PH_##id,
#define PHASE_NAME(id, name) name,
enum { BLOCK_PHASES(PHASE_ENUM) PH_COUNT };
_Static_assert((int)PH_COUNT == (int)BLOCK_PROF_PHASES, "block.h's BLOCK_PROF_PHASES counts the phases");
static const char *const phase_names[BLOCK_PROF_PHASES] = {BLOCK_PHASES(PHASE_NAME)};

/* bucket of a block of n members: 1, 2-8, 9-64, ..., and the rest */
static int prof_bucket(int n)
{
    int k = 0;
    for (long lim = 1; k < BLOCK_PROF_BUCKETS - 1 && n > lim; lim *= 8) k++;
    return k;
}

static double prof_lap(double *w)
{
    double now = omp_get_wtime(), d = now - *w;
    *w = now;
    return d;
}

const block_profile *block_get_profile(const block_scratch *b) { return &b->prof; }

void block_profile_idle(block_scratch *b) { b->wend = 0.0; }

void block_profile_print(const block_profile *p, FILE *f)
{
    fprintf(f, "# wall time (s) by block size: members, blocks, irregular steps, regular steps, then phases\n");
    fprintf(f, "%-12s %9s %11s %10s", "members", "blocks", "irr_steps", "reg_steps");
    for (int q = 0; q < BLOCK_PROF_PHASES; q++) fprintf(f, " %10s", phase_names[q]);
    fprintf(f, " %10s %9s\n", "total", "us/block");
    for (int k = 0; k < BLOCK_PROF_BUCKETS; k++) {
        const block_profile_row *r = &p->row[k];
        if (r->blocks == 0) continue;
        char lab[32];
        long hi = 1;
        for (int q = 0; q < k; q++) hi *= 8;
        long lo = k == 0 ? 1 : hi / 8 + 1;
        if (k == BLOCK_PROF_BUCKETS - 1) snprintf(lab, sizeof lab, "%ld+", lo);
        else snprintf(lab, sizeof lab, "%ld-%ld", lo, hi);
        double tot = 0.0;
        for (int q = 0; q < BLOCK_PROF_PHASES; q++) tot += r->t[q];
        fprintf(f, "%-12s %9lld %11lld %10lld", lab, (long long)r->blocks, (long long)r->steps_irr,
                (long long)r->steps_reg);
        for (int q = 0; q < BLOCK_PROF_PHASES; q++) fprintf(f, " %10.4f", r->t[q]);
        fprintf(f, " %10.4f %9.2f\n", tot, 1e6 * tot / (double)r->blocks);
    }
}

void block_reschedule(block_scratch *b)
{
    schedule_reset(b->sq);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- schedule ---------------------------------------------------------- */

/* A rebuild after a KS event happens here, usually from the run loop
 * between two block steps: its time goes to the next block's schedule
 * phase, not to "between". */
double block_next_time(sim *s, block_scratch *b)
{
    if (!schedule_stale(b->sq)) return schedule_time(b->sq, s);
    double w = omp_get_wtime(), t = schedule_time(b->sq, s);
    b->refill += omp_get_wtime() - w;
    return t;
}

/* The bodies due at t, ascending, and those of them due a regular step. */
static int due_regular(const sim *s, int i) { return s->t0r[i] + s->dtr[i] == s->time; }

/* The positions k in act of the members due a regular step, ascending,
 * and the slots of the others (irr), ascending; for a big block each thread
 * compacts its share after a count (a serial scan read two random doubles a
 * member: ~5 ns each, 0.4 ms for 82k). */
static int regular_members(const sim *s, const int *act, int n, int *reg, int *irr)
{
    enum { MAXT = 256 };
    if (!par_worth(n, 1024)) {
        int nr = 0, ni = 0;
        for (int k = 0; k < n; k++) {
            if (due_regular(s, act[k])) reg[nr++] = k;
            else irr[ni++] = act[k];
        }
        return nr;
    }
    int base[MAXT + 1] = {0}, used = 0;
    int nth = omp_get_max_threads() < MAXT ? omp_get_max_threads() : MAXT;
#pragma omp parallel num_threads(nth)
    {
        const int T = omp_get_num_threads(), me = omp_get_thread_num();
        const int lo = (int)((long)n * me / T), hi = (int)((long)n * (me + 1) / T);
        int c = 0;
        for (int k = lo; k < hi; k++) c += due_regular(s, act[k]);
        base[me + 1] = c;
#pragma omp barrier
#pragma omp single
        {
            for (int r = 0; r < T; r++) base[r + 1] += base[r];
            used = T;
        }
        int w = base[me], wi = lo - base[me];
        for (int k = lo; k < hi; k++) {
            if (due_regular(s, act[k])) reg[w++] = k;
            else irr[wi++] = act[k];
        }
    }
    return base[used];
}

static void select_block(sim *s, block_scratch *b)
{
    b->nact = schedule_take(b->sq, s, b->act);
    b->nreg = regular_members(s, b->act, b->nact, b->reg, b->irr_only); /* indices into act */
    b->nirr = b->nact - b->nreg;
}

/* The members back in the schedule at their new times. */
static void schedule_update(const sim *s, block_scratch *b)
{
    schedule_put_block(b->sq, s, b->act, b->nact);
}

/* ---- the step ---------------------------------------------------------- */

/* The regular force of the block's regular members, started on GPUNB
 * (gpunb_regf_begin) at their predicted state, and its results. */
static void regf_start(sim *s, block_scratch *b, double t)
{
    if (b->nreg == 0) return;
    for (int q = 0; q < b->nreg; q++) b->ri[q] = b->act[b->reg[q]];
    gpunb_predict(s->nb, t);
    regular_force_begin(s, b->nreg, b->ri, &b->rin);
    b->regf_on = 1;
}

static void regf_finish(sim *s, block_scratch *b)
{
    b->regf_on = 0;
    regular_force_end(s, b->nreg, b->ri, b->ar, b->jr, b->nnbn, b->lists, b->ovf);
}

/* A block step that fails with the regular force in flight ends it (the
 * results are not used): GPUNB stays usable for what the caller does next. */
static void regf_abandon(sim *s, block_scratch *b)
{
    if (b->regf_on) regf_finish(s, b);
}

static void predict_active(sim *s, const block_scratch *b, double t)
{
#pragma omp parallel for schedule(static) if (par_worth_members(b->nact, 2048))
    for (int k = 0; k < b->nact; k++) {
        int i = b->act[k];
        predict3(t - s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], s->x[i], s->v[i]);
        s->tpred[i] = t;
    }
}

/* Irregular corrector and new irregular step for block member k. */
static void correct_irregular(sim *s, block_scratch *b, int k, double t)
{
    int i = b->act[k];
    double dt = t - s->t0[i];
    double x[3], v[3];
    hermite_irregular(dt, s->x[i], s->v[i], s->fi[i], s->fid[i], b->ai[k], b->ji[k],
                      x, v, s->d2[i], s->d3[i]);
    memcpy(b->vpred[k], s->v[i], sizeof(vec3));
    memcpy(b->jprev[k], s->fid[i], sizeof(vec3));
    b->dtprev[k] = dt;
    memcpy(s->x0[i], x, sizeof x);
    memcpy(s->v0[i], v, sizeof v);
    memcpy(s->fi[i], b->ai[k], sizeof(vec3));
    memcpy(s->fid[i], b->ji[k], sizeof(vec3));
    s->t0[i] = t;

    double atot[3] = {s->fi[i][0] + s->fr[i][0], s->fi[i][1] + s->fr[i][1], s->fi[i][2] + s->fr[i][2]};
    double T = step_aarseth(atot, s->fid[i], s->d2[i], s->d3[i], s->p.etai);
    b->dt0[k] = T;
    double step = s->dt[i];
    /* convergence limit on large N (nbint.f): the velocity correction must
     * stay small compared with the force over the step */
    if (s->n > 1000 && T > step_irregular_checked(s->n)) {
        double dv[3] = {v[0] - b->vpred[k][0], v[1] - b->vpred[k][1], v[2] - b->vpred[k][2]};
        double dv2 = dot3(dv, dv), fi2 = dot3(s->fi[i], s->fi[i]);
        if (dv2 > 0.0) T = fmin(T, step * pow(1e-6 * step * step * fi2 / dv2, 0.1));
    }
    step = step_irregular_update(step, T, t, s->p.smax);
    if (step > s->dtr[i]) step = s->dtr[i];
    s->dt[i] = step;
    /* total force for the predictor: regular part extrapolated linearly */
    double tr = t - s->t0r[i];
    for (int c = 0; c < 3; c++) {
        s->a[i][c] = s->fi[i][c] + s->fr[i][c] + s->frd[i][c] * tr;
        s->j[i][c] = s->fid[i][c] + s->frd[i][c];
    }
}

/* A close encounter inside a long regular step: the regular corrector
 * adds nothing to x and v.  NBODY6's gpucor.f tests that DTR exceeds 100
 * of the member's irregular steps and that its irregular jerk changed over
 * the last one by more than 1e3 times the regular jerk.  The regular jerk
 * at t then holds the member's encounter velocity, and the corrector's
 * polynomial spreads that velocity's swing over the whole of DTR: two
 * singles 2.8e-4 apart, 3.8e-6 steps, both due a 0.125 regular step at
 * the peak of their flyby, had their separation moved by 3 % in one block
 * and lost 2.0e-4 of E (cc-plummer-2048, NRAND 12345, t = 611.875; the
 * same at NRAND 4711, t = 721.6: 4.0e-4).  gpucor.f's test alone also
 * fires at the milder encounters of a 512-body run without KS, where the
 * corrections are sound and dropping them made the run's error 18 times
 * larger (test_integrator): so the corrector is dropped only where its
 * position increment would do work against the irregular force above
 * 1e-3 of the member's kinetic energy (measured: 5e-2 of it at t = 611.875,
 * at most 5e-5 in the 512-body run). */
static int encounter_in_long_regular_step(const sim *s, const block_scratch *b, int q, double DTR,
                                          const double fro[3], const double frdo[3])
{
    int k = b->reg[q], i = b->act[k];
    double djp[3] = {b->ji2[q][0] - b->jprev[k][0], b->ji2[q][1] - b->jprev[k][1],
                     b->ji2[q][2] - b->jprev[k][2]};
    if (!(DTR > 100.0 * b->dtprev[k]) || !(dot3(djp, djp) > 1e6 * dot3(b->jr[q], b->jr[q])))
        return 0;
    double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, a2[3], a3[3];
    hermite_regular(DTR, s->fr[i], s->frd[i], fro, frdo, 0, x, v, a2, a3);
    double work = sqrt(dot3(b->ai2[q], b->ai2[q]) * dot3(x, x));
    return work > 1e-3 * 0.5 * dot3(s->v0[i], s->v0[i]);
}

/* Regular corrector, new regular step and radius for block member k (q-th
 * regular member). */
static void correct_regular(sim *s, block_scratch *b, int q, double t, double rsfac)
{
    int k = b->reg[q];
    int i = b->act[k];
    double DTR = t - s->t0r[i];
    double fro[3], frdo[3], df[3], dj[3];
    /* eq. 12: the regular force with the OLD list at t, from the new regular
     * force and the irregular difference at one predicted state.  Where the
     * irregular force or jerk is over 1e3 times the regular one, the two
     * single-precision library sums differ by rounding that is no longer
     * small beside the regular terms: the difference is then summed over
     * the gained and lost bodies (forces.c says why).  Elsewhere the
     * libraries' difference (free; the direct sum cost 1.7 us of CPU per
     * regular step at 64k on the H100 host) */
    if (dot3(s->fid[i], s->fid[i]) > 1e6 * dot3(b->jr[q], b->jr[q]) ||
        dot3(s->fi[i], s->fi[i]) > 1e6 * dot3(b->ar[q], b->ar[q])) {
        list_change_force(s, i, t, sim_list(s, i), s->nnb[i], b->lists + (size_t)q * s->nbmax,
                          b->nnbn[q], df, dj);
        ks_partial_shift(s, i, t, df, dj); /* an old list's c.m. that held one component */
    } else {
        for (int c = 0; c < 3; c++) {
            df[c] = b->ai2[q][c] - s->fi[i][c];
            dj[c] = b->ji2[q][c] - s->fid[i][c];
        }
    }
    for (int c = 0; c < 3; c++) {
        fro[c] = b->ar[q][c] + df[c];
        frdo[c] = b->jr[q][c] + dj[c];
    }
    int skip = encounter_in_long_regular_step(s, b, q, DTR, fro, frdo);
    double xprev[3] = {s->x0[i][0], s->x0[i][1], s->x0[i][2]};
    hermite_regular(DTR, s->fr[i], s->frd[i], fro, frdo, skip, s->x0[i], s->v0[i], s->d2r[i], s->d3r[i]);
    int slot = tally_slot(b, s->name[i]); /* names are distinct: no two threads write one */
    if (slot) {
        b->tally[slot].nreg++;
        double w = 0.0;
        for (int c = 0; c < 3; c++) w += (s->x0[i][c] - xprev[c]) * (b->ai2[q][c] + b->ar[q][c]);
        b->tally[slot].wreg += s->m[i] * fabs(w);
    }

    int nnb0 = s->nnb[i];
    memcpy(s->fi[i], b->ai2[q], sizeof(vec3));
    memcpy(s->fid[i], b->ji2[q], sizeof(vec3));
    memcpy(s->fr[i], b->ar[q], sizeof(vec3));
    memcpy(s->frd[i], b->jr[q], sizeof(vec3));
    s->t0r[i] = t;
    ks_partial_drop(s, i); /* the new list holds every c.m. whole */
    s->nnb[i] = b->nnbn[q];
    memcpy(sim_list(s, i), b->lists + (size_t)q * s->nbmax, sizeof(int) * b->nnbn[q]);
    for (int c = 0; c < 3; c++) {
        s->a[i][c] = s->fi[i][c] + s->fr[i][c];
        s->j[i][c] = s->fid[i][c] + s->frd[i][c];
    }

    /* new regular step */
    double T;
    if (s->nnb[i] == 0) {
        double f2 = sqrt(dot3(s->d2r[i], s->d2r[i]));
        T = f2 > 0.0 ? sqrt(s->p.etar * sqrt(dot3(s->fr[i], s->fr[i])) / f2) : s->p.smax;
    } else {
        T = step_aarseth(s->fr[i], s->frd[i], s->d2r[i], s->d3r[i], s->p.etar);
    }
    double dx[3] = {s->x0[i][0] - s->xd[0], s->x0[i][1] - s->xd[1], s->x0[i][2] - s->xd[2]};
    double fr2 = dot3(s->fr[i], s->fr[i]);
    double g = s->mmean / (s->rs[i] * s->rs[i]);
    if (dot3(dx, dx) < 4.0 * s->rc2 || (T < s->smin && fr2 < g * g)) T = fmax(T, 1e-4 * s->rs[i]);
    double dtr = step_regular_update(DTR, T, t, s->p.smax);
    double dv[3] = {s->v0[i][0] - b->vpred[k][0], s->v0[i][1] - b->vpred[k][1], s->v0[i][2] - b->vpred[k][2]};
    double dv2 = dot3(dv, dv);
    if (dtr > DTR && dtr > STEP_REG_CHECKED && fr2 > 0.0 && dv2 > 0.0) {
        /* grow a long regular step only if its velocity correction was small */
        if (DTR * pow(1e-4 * DTR * DTR * fr2 / dv2, 0.1) < dtr) dtr = DTR;
    }
    s->dtr[i] = dtr;
    if (b->dt0[k] < 0.01 * dtr && dv2 > 0.01 * dot3(s->v0[i], s->v0[i]))
        s->dt[i] = step_commensurate(s->dt[i] / 8.0, t);
    while (s->dt[i] > dtr) s->dt[i] *= 0.5;
    if (nnb0 == 0 && s->nnb[i] > 0) s->dt[i] *= 0.25;

    if (!s->p.fixed_radius) s->rs[i] = nbradius_update(s, i, nnb0, DTR, rsfac, b->ovf[q]);
}

/* Every member's new step must be a positive number: a non-finite force
 * would otherwise give a step that no block time ever reaches (or a NaN
 * block time), and the run would go on without moving. */
static int check_steps(const sim *s, const block_scratch *b, double t, char *err, size_t errlen)
{
    for (int k = 0; k < b->nact; k++) {
        int i = b->act[k];
        if (isfinite(s->dt[i]) && s->dt[i] > 0.0 && t + s->dt[i] > t &&
            isfinite(s->x0[i][0] + s->x0[i][1] + s->x0[i][2]))
            continue;
        if (isfinite(s->dt[i]) && s->dt[i] > 0.0 && !(t + s->dt[i] > t)) {
            snprintf(err, errlen, "body %d (slot %d) at t = %.17g: step %.3e below the time "
                     "resolution (the run could not advance)", s->name[i], i, t, s->dt[i]);
            return -1;
        }
        snprintf(err, errlen, "body %d (slot %d) at t = %.17g: non-finite state or step (dt = %g, x = %g %g %g)",
                 s->name[i], i, t, s->dt[i], s->x0[i][0], s->x0[i][1], s->x0[i][2]);
        return -1;
    }
    return 0;
}

/* ---- the hand-over to the libraries ------------------------------------ */

/* A block whose regular force runs on the GPU hands over the members that
 * are final after the irregular corrector (those not due a regular step)
 * while the GPU still computes: GPUNB holds their polynomials back until
 * the block's new-list irregular force, which needs the predicted state,
 * is done (gpunb_hold_jp), and they go back into the schedule.  The host
 * otherwise waits for the regular force with nothing to do (128k deck,
 * H200 host, three runs each: the regular-force phase of the blocks over
 * 32768 members 9.10-9.19 s without, 8.60-8.78 s with; the results are
 * the same bits). */
static int hold_send(const block_scratch *b, int regf_on_gpu)
{
    if (b->nreg == 0) return 0;
    return b->hold_every || regf_on_gpu;
}

/* Polynomials gathered by position for gpunb_set_jp, which takes arrays. */
typedef struct jp_arrays {
    double *t0, *m;
    vec3 *x, *v, *a, *j;
} jp_arrays;

/* step 6's arrays: the regular part's buffers, free again by then */
static jp_arrays late_arrays(const block_scratch *b)
{
    return (jp_arrays){b->tj, b->dt0, b->ar, b->jr, b->ai2, b->ji2};
}

/* the held send's: ai, ji are free once the corrector has read member k's */
static jp_arrays held_arrays(const block_scratch *b)
{
    return (jp_arrays){b->tj, b->hm, b->ai, b->ji, b->ha, b->hj};
}

static void jp_put(const sim *s, int i, const jp_arrays *p, int k)
{
    p->t0[k] = s->t0[i];
    memcpy(p->x[k], s->x0[i], sizeof(vec3));
    memcpy(p->v[k], s->v0[i], sizeof(vec3));
    memcpy(p->a[k], s->a[i], sizeof(vec3));
    memcpy(p->j[k], s->j[i], sizeof(vec3));
    p->m[k] = s->m[i];
}

static void jp_send(sim *s, int n, const int *idx, const jp_arrays *p)
{
    gpunb_set_jp(s->nb, n, idx, p->t0, (const double(*)[3])p->x, (const double(*)[3])p->v,
                 (const double(*)[3])p->a, (const double(*)[3])p->j, p->m);
}

static void gpuirr_send(sim *s, int i)
{
    gpuirr_set_jp(s->irr, i, s->t0[i], s->x0[i], s->v0[i], s->a[i], s->j[i], s->m[i]);
}

/* member k into the held send's arrays, from the corrector's loop (its
 * record is in cache there) */
static void gather_held(const sim *s, const block_scratch *b, int k)
{
    const jp_arrays h = held_arrays(b);
    jp_put(s, b->act[k], &h, k);
}

/* every member held (the regular ones again at the end, corrected), the
 * others back in the schedule */
static void send_held(sim *s, block_scratch *b)
{
    const jp_arrays h = held_arrays(b);
    gpunb_hold_jp(s->nb);
    jp_send(s, b->nact, b->act, &h);
}

/* The held block's end: the regular members to both libraries (and any
 * other member GPUIRR has not had), then the release. */
static void send_regular_release(sim *s, block_scratch *b)
{
    const int n = b->nreg, *ri = b->ri;
    const jp_arrays p = late_arrays(b);
#pragma omp parallel for schedule(static) if (par_worth_members(b->nact, 1024))
    for (int k = 0; k < b->nact; k++)
        if (!b->irr_sent[k]) gpuirr_send(s, b->act[k]);
#pragma omp parallel for schedule(static) if (par_worth_members(n, 1024))
    for (int q = 0; q < n; q++) jp_put(s, ri[q], &p, q);
    jp_send(s, n, ri, &p);
    gpunb_release_jp(s->nb);
}

static void send_corrected(sim *s, block_scratch *b)
{
    const int n = b->nact;
    const jp_arrays p = late_arrays(b);
    /* gathered beside GPUIRR's per-slot calls, in parallel for large blocks
     * (distinct slots) */
#pragma omp parallel for schedule(static) if (par_worth_members(n, 1024))
    for (int k = 0; k < n; k++) {
        const int i = b->act[k];
        if (!b->irr_sent[k]) gpuirr_send(s, i);
        jp_put(s, i, &p, k);
    }
    jp_send(s, n, b->act, &p);
}

/* Adds this block's phase times to the profile and to the run's timers. */
static void account_block(sim *s, block_scratch *b, const double *ph, int nact, int nreg)
{
    block_profile_row *r = &b->prof.row[prof_bucket(nact)];
    r->blocks++;
    r->steps_irr += nact;
    r->steps_reg += nreg;
    for (int q = 0; q < BLOCK_PROF_PHASES; q++) r->t[q] += ph[q];
    timers *tm = &s->tm;
    tm->p_sched += ph[PH_SCHED];
    tm->p_ks += ph[PH_KSADV] + ph[PH_KSEND];
    tm->p_predict += ph[PH_PRED];
    tm->p_firr += ph[PH_FIRR];
    tm->p_corr += ph[PH_CORR];
    tm->p_regf += ph[PH_REGF];
    tm->p_firr_new += ph[PH_FIRR_NEW];
    tm->p_corr_reg += ph[PH_CORR_REG];
    tm->p_send += ph[PH_SEND];
    tm->irregular += ph[PH_PRED] + ph[PH_FIRR];
    tm->regular += ph[PH_REGF] + ph[PH_FIRR_NEW] + ph[PH_CORR_REG];
}

/* ---- the block step ---------------------------------------------------- */

/* How this block's work overlaps, decided once from its sizes after step 0
 * (docs/ARCHITECTURE.md, "One block step"): the same arithmetic in every
 * case, only the order of independent work changes. */
typedef struct block_plan {
    int irr_gpu;     /* step 1's irregular force on the GPU (irr_on_gpu of the block) */
    int irr_gpu_new; /* step 3's new-list irregular force on the GPU (of the regular part) */
    int regf_first;  /* the regular force starts before step 1's irregular force (the GPU
                      * computes it while the host works); after it when that force is
                      * on the GPU too (the GPU would do the two in turn) */
    int send_early;  /* a member not due a regular step goes to GPUIRR in step 2: nothing
                      * in step 3 reads GPUIRR's predicted state any more */
    int hold;        /* every member to GPUNB in step 2, held until step 4 (hold_send) */
    int ks_corr;     /* the irregular forces get the KS and chain corrections */
} block_plan;

static block_plan plan_block(sim *s, const block_scratch *b)
{
    block_plan p;
    p.irr_gpu = irr_on_gpu(s, b->nact);
    p.irr_gpu_new = irr_on_gpu(s, b->nreg);
    p.regf_first = !p.irr_gpu;
    p.send_early = b->nreg == 0 || p.irr_gpu_new;
    p.hold = hold_send(b, p.irr_gpu_new);
    p.ks_corr = ks_needs_correction(s);
    return p;
}

/* Step 1's prediction beside the host's: GPUIRR's of the members and their
 * neighbours, or GPUNB's j-bodies when the irregular force goes there. */
static void predict_for_irregular(sim *s, const block_scratch *b, const block_plan *p, double t)
{
    if (p->irr_gpu) gpunb_predict(s->nb, t);
    else gpuirr_pred_act(s->irr, b->nact, b->act, t);
}

/* Step 1's irregular force of every member from its current list, with
 * the KS corrections. */
static int irregular_old_lists(sim *s, block_scratch *b, const block_plan *p, char *err, size_t errlen)
{
    if (p->ks_corr) { /* the old lists, for KS (the GPU holds its own: gpunb_lists_kept) */
#pragma omp parallel for schedule(static) if (par_worth(b->nact, 4096))
        for (int k = 0; k < b->nact; k++) {
            b->lp[k] = sim_list(s, b->act[k]);
            b->nnb0[k] = s->nnb[b->act[k]];
        }
    }
    int rc = p->irr_gpu ? irregular_force_gpu(s, b->nact, b->act, b->xg, b->vg, b->ai, b->ji, err, errlen)
                        : irregular_force(s, b->nact, b->act, b->ai, b->ji, err, errlen);
    if (rc == 0 && p->ks_corr) /* KS: components of perturbed pairs, old lists */
        ks_irr_correct(s, b->nact, b->act, b->lp, b->nnb0, 1, b->ai, b->ji);
    return rc;
}

/* Step 2: the irregular corrector of every member (each on its own).  A
 * member final after it goes to GPUIRR at once while its record is in
 * cache (send_early), and with a held hand-over it is gathered for GPUNB. */
static void correct_block_irregular(sim *s, block_scratch *b, const block_plan *p, double t)
{
    const int send_early = p->send_early, held = p->hold;
#pragma omp parallel for schedule(static) if (par_worth(b->nact, 256))
    for (int kk = 0; kk < b->nact; kk++) {
        const int k = b->reverse ? b->nact - 1 - kk : kk;
        const int i = b->act[k];
        correct_irregular(s, b, k, t);
        /* the step tally, here in the team's loop: a serial pass over the
         * members after the block was most of the big blocks' ks_end phase
         * (profile.txt); slot 0, never read, is where several may land */
        const int slot = tally_slot(b, s->name[i]);
        if (slot) b->tally[slot].nirr++;
        b->irr_sent[k] = (unsigned char)(send_early && !due_regular(s, i));
        if (b->irr_sent[k]) gpuirr_send(s, i);
        if (held) gather_held(s, b, k);
    }
}

/* Step 3's new lists to GPUIRR and the irregular force with them at the
 * same predicted state, with the KS corrections.  The new lists' members
 * are predicted to t where they were not (bodies predicted already keep
 * their state); on the GPU, GPUNB's j-bodies are at t already (the regular
 * force) and have not been sent the members' corrections yet, so they are
 * the same predicted state. */
static int irregular_new_lists(sim *s, block_scratch *b, const block_plan *p, double t, char *err,
                               size_t errlen)
{
    const int *ri = b->ri;
    /* distinct rows of the library's list table: in parallel for many
     * (GPUNB keeps the lists gpunb_regf returned: nothing to send) */
#pragma omp parallel for schedule(static) if (par_worth(b->nreg, 1024))
    for (int q = 0; q < b->nreg; q++) {
        gpuirr_set_list(s->irr, ri[q], b->nnbn[q], b->lists + (size_t)q * s->nbmax);
        b->nnb0[q] = s->nnb[ri[q]];
        s->nnb[ri[q]] = b->nnbn[q]; /* irregular_force reads the new size */
    }
    if (p->ks_corr)
        for (int q = 0; q < b->nreg; q++) b->lp[q] = b->lists + (size_t)q * s->nbmax;
    int rc;
    if (p->irr_gpu_new) {
        rc = irregular_force_gpu(s, b->nreg, ri, b->xg, b->vg, b->ai2, b->ji2, err, errlen);
    } else {
        gpuirr_pred_act(s->irr, b->nreg, ri, t);
        rc = irregular_force(s, b->nreg, ri, b->ai2, b->ji2, err, errlen);
    }
    if (p->ks_corr) /* KS: the same corrections with the new lists */
        ks_irr_correct(s, b->nreg, ri, b->lp, b->nnbn, 0, b->ai2, b->ji2);
    for (int q = 0; q < b->nreg; q++) s->nnb[ri[q]] = b->nnb0[q];
    return rc;
}

/* Step 3's regular corrector of every regular member, new steps, radii. */
static void correct_block_regular(sim *s, block_scratch *b, double t)
{
    double rsfac = nbradius_rsfac(s);
#pragma omp parallel for schedule(static) if (par_worth(b->nreg, 256))
    for (int qq = 0; qq < b->nreg; qq++) correct_regular(s, b, b->reverse ? b->nreg - 1 - qq : qq, t, rsfac);
    for (int q = 0; q < b->nreg; q++) {
        int i = b->act[b->reg[q]];
        if (s->rs[i] < s->rsmin) s->rsmin = s->rs[i];
    }
}

/* Step 5: the c.m. bodies' regular steps renew their perturbers, then the
 * block's KS, chain and merger events (ks_block_end): > 0 when one moved
 * slots or restarted bodies, < 0 on failure. */
static int ks_end_of_block(sim *s, const block_scratch *b, double t, char *err, size_t errlen)
{
    for (int q = 0; q < b->nreg; q++) ks_note_regular(s, b->act[b->reg[q]]);
    return ks_block_end(s, b->act, b->nact, t, err, errlen);
}

/* Each phase of the step, timed into ph[] (the profile by block size) from
 * the end of the last one. */
#define PHASE(id, ...)                  \
    do {                                \
        __VA_ARGS__;                    \
        ph[PH_##id] += prof_lap(&w);    \
    } while (0)

int block_step(sim *s, block_scratch *b, char *err, size_t errlen)
{
    double ph[BLOCK_PROF_PHASES] = {0};
    double w = omp_get_wtime();
    if (b->wend > 0.0) ph[PH_BETWEEN] = w - b->wend;
    /* a rebuild timed before this step started (in the run loop's
     * block_next_time) belongs to this step's schedule phase; one made
     * below is in that phase's lap already */
    if (ph[PH_BETWEEN] >= b->refill) ph[PH_BETWEEN] -= b->refill;
    ph[PH_SCHED] = b->refill;
    int rc = 0;

    /* 0. the block: every body due at the next block time; KS pairs and
     * the chain first, up to that time (subint.f) */
    double t;
    PHASE(SCHED, t = block_next_time(s, b); b->refill = 0.0; s->time = t; select_block(s, b));
    const int nact = b->nact, nreg = b->nreg;
    PHASE(KSADV, rc = ks_advance(s, t));
    if (rc) {
        snprintf(err, errlen, "a KS pair could not be advanced to t = %.17g (see above)", t);
        return -1;
    }
    PHASE(KSADV, rc = ks_chain_sync(s, t, b->act, b->nact));
    if (rc) {
        snprintf(err, errlen, "chain integration failed at t = %.10g", t);
        return -1;
    }
    const block_plan plan = plan_block(s, b);

    /* 1. predict; irregular force of every member with its current list.
     * The host predicts the members; GPUIRR the members and their
     * neighbours (the SIMD library itself turns to predicting everyone
     * when those lists cover a good part of N: the paper's NPACT switch).
     * The regular force needs only the members' predicted x, v: it starts
     * here, and runs on the GPU while the host does steps 1 and 2. */
    PHASE(PRED, predict_active(s, b, t); s->block_forces = 1 /* KS corrections see it too */);
    if (plan.regf_first) PHASE(REGF, regf_start(s, b, t));
    PHASE(PRED, predict_for_irregular(s, b, &plan, t));
    PHASE(FIRR, rc = irregular_old_lists(s, b, &plan, err, errlen));
    if (rc) {
        regf_abandon(s, b);
        return -1;
    }
    if (!plan.regf_first) PHASE(REGF, regf_start(s, b, t));

    /* 2. irregular corrector of every member; with a held hand-over the
     * members go to GPUNB now and those not due a regular step back into
     * the schedule */
    PHASE(CORR, correct_block_irregular(s, b, &plan, t));
    if (plan.hold) {
        PHASE(SEND, send_held(s, b));
        PHASE(SCHED, schedule_put_block(b->sq, s, b->irr_only, b->nirr));
    }

    /* 3. regular members: regular force and new lists, irregular force
     * with them, regular corrector (eq. 12), new steps and radii */
    if (b->nreg > 0) {
        PHASE(REGF, regf_finish(s, b); s->cnt.blocks_regular++);
        PHASE(FIRR_NEW, rc = irregular_new_lists(s, b, &plan, t, err, errlen));
        if (rc) {
            if (plan.hold) gpunb_release_jp(s->nb);
            return -1;
        }
        PHASE(CORR_REG, correct_block_regular(s, b, t); s->cnt.steps_reg += b->nreg);
    }

    /* 4. the corrected bodies to both libraries */
    if (check_steps(s, b, t, err, errlen)) {
        if (plan.hold) gpunb_release_jp(s->nb);
        return -1;
    }
    s->block_forces = 0;
    PHASE(SEND, if (plan.hold) send_regular_release(s, b); else send_corrected(s, b));
    s->cnt.steps_irr += b->nact;
    s->cnt.blocks++;

    /* 5. KS: perturber renewal after c.m. regular steps, terminations, new
     * pairs; an event moves slots and restarts bodies, so the schedule
     * refiles the slots whose next time changed (the members too) */
    int ch = 0;
    PHASE(KSEND, if (s->ks) ch = ks_end_of_block(s, b, t, err, errlen));
    PHASE(SCHED, if (ch > 0) schedule_refresh(b->sq, s);
                 else if (ch == 0 && plan.hold) schedule_put_block(b->sq, s, b->ri, b->nreg);
                 else if (ch == 0) schedule_update(s, b));
    account_block(s, b, ph, nact, nreg);
    b->wend = w;
    return ch < 0 ? -1 : 0;
}
