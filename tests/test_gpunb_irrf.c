/* test_gpunb_irrf.c — gpunb_irrf (the irregular force over given lists) on
 * the CPU backends: the "cpu-ref" double sums against a double sum written
 * here and against GPUIRR's scalar backend (the same pair arithmetic,
 * pairterm.h, and predictor: bit-identical), "cpu-simd" (which delegates to
 * the reference) equal to it, one and two threads bit-identical, empty
 * lists, a list naming a body at i's own position and a slot outside the
 * j-range reported as the API says.  The resident lists (gpunb_set_list,
 * gpunb_regf's kept lists, gpunb_irrf_resident): the same sums as the
 * lists given, an edit not sent seen as a difference, set_range leaving
 * them, a slot outside the j-range reported.  The regular force in two
 * halves (gpunb_regf_begin/_end) equal to gpunb_regf bit for bit on both
 * CPU backends, lists kept the same way, and a call between the halves or
 * an end without a begin stopped with a message.  The CUDA backend's check
 * against a double reference is in test_gpunb_cuda.c (GPU machines only). */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gpuirr/gpuirr.h"
#include "gpunb/gpunb.h"
#include "common/predict.h"

#define JBEG 3
#define NJ 5000
#define NI 700
#define NBMAX 160
#define C3(p) ((const double (*)[3])(p))

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double urand(uint64_t *s) { return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

typedef struct {
    int n;
    double t0[NJ + JBEG], m[NJ + JBEG];
    double x[NJ + JBEG][3], v[NJ + JBEG][3], a[NJ + JBEG][3], jk[NJ + JBEG][3];
    double xp[NJ + JBEG][3], vp[NJ + JBEG][3];
} bodies;

typedef struct {
    int idx[NI], nnb[NI];
    int lists[NI][NBMAX];
    const int *lp[NI];
    double x[NI][3], v[NI][3];
} icase;

static void make_bodies(bodies *B, double t, uint64_t *s)
{
    B->n = NJ + JBEG;
    for (int i = 0; i < B->n; i++) {
        for (int k = 0; k < 3; k++) {
            B->x[i][k] = 2 * urand(s) - 1;
            B->v[i][k] = urand(s) - 0.5;
            B->a[i][k] = 2 * urand(s) - 1;
            B->jk[i][k] = 6 * urand(s) - 3;
        }
        B->m[i] = (0.2 + 1.8 * urand(s)) / NJ;
        B->t0[i] = t - urand(s) / 32;
        predict3(t - B->t0[i], B->x[i], B->v[i], B->a[i], B->jk[i], B->xp[i], B->vp[i]);
    }
}

/* i-bodies: a few outside the j-range; lists of 0..NBMAX distinct j-bodies
 * other than i, ascending, every tenth empty. */
static void make_icase(icase *c, const bodies *B, uint64_t *s)
{
    static char used[NJ + JBEG];
    for (int k = 0; k < NI; k++) {
        int i = k < JBEG ? k : JBEG + (int)(urand(s) * NJ);
        c->idx[k] = i;
        memcpy(c->x[k], B->xp[i], sizeof c->x[k]);
        memcpy(c->v[k], B->vp[i], sizeof c->v[k]);
        int want = k % 10 == 9 ? 0 : (int)(urand(s) * NBMAX);
        memset(used, 0, sizeof used);
        int n = 0;
        while (n < want) {
            int j = JBEG + (int)(urand(s) * NJ);
            if (j == i || used[j]) continue;
            used[j] = 1;
            n++;
        }
        n = 0;
        for (int j = JBEG; j < B->n; j++)
            if (used[j]) c->lists[k][n++] = j;
        c->nnb[k] = n;
        c->lp[k] = c->lists[k];
    }
}

static void send(gpunb *g, const bodies *B, double t)
{
    int idx[NJ];
    for (int k = 0; k < NJ; k++) idx[k] = JBEG + k;
    gpunb_set_range(g, JBEG, B->n);
    gpunb_set_jp(g, NJ, idx, B->t0 + JBEG, C3(B->x + JBEG), C3(B->v + JBEG), C3(B->a + JBEG), C3(B->jk + JBEG),
                 B->m + JBEG);
    gpunb_predict(g, t);
}

/* The double sum over a list, written out here: the worst error over the
 * bodies, normalised by the sum of the term magnitudes (docs/ALGORITHMS.md). */
static double worst_vs_direct(const bodies *B, const icase *c, double (*a)[3], double (*jk)[3])
{
    double worst = 0;
    for (int k = 0; k < NI; k++) {
        double fa[3] = {0, 0, 0}, fj[3] = {0, 0, 0}, ma = 0, mj = 0;
        for (int q = 0; q < c->nnb[k]; q++) {
            int j = c->lists[k][q];
            double r[3], v[3], r2 = 0, rv = 0;
            for (int e = 0; e < 3; e++) {
                r[e] = B->xp[j][e] - c->x[k][e];
                v[e] = B->vp[j][e] - c->v[k][e];
                r2 += r[e] * r[e];
                rv += r[e] * v[e];
            }
            double mr3 = B->m[j] / (r2 * sqrt(r2)), al = 3 * rv / r2, t2 = 0;
            for (int e = 0; e < 3; e++) {
                double tj = mr3 * (v[e] - al * r[e]);
                fa[e] += mr3 * r[e];
                fj[e] += tj;
                t2 += tj * tj;
            }
            ma += mr3 * sqrt(r2);
            mj += sqrt(t2);
        }
        double ea = 0, ej = 0;
        for (int e = 0; e < 3; e++) {
            ea += (a[k][e] - fa[e]) * (a[k][e] - fa[e]);
            ej += (jk[k][e] - fj[e]) * (jk[k][e] - fj[e]);
        }
        ea = ma > 0 ? sqrt(ea) / ma : sqrt(ea);
        ej = mj > 0 ? sqrt(ej) / mj : sqrt(ej);
        if (!(ea <= worst)) worst = ea;   /* NaN propagates as a failure */
        if (!(ej <= worst)) worst = ej;
    }
    return worst;
}

static int call(gpunb *g, const icase *c, double (*a)[3], double (*jk)[3])
{
    for (int k = 0; k < NI; k++) a[k][0] = jk[k][0] = NAN;   /* poison */
    return gpunb_irrf(g, NI, C3(c->x), C3(c->v), c->nnb, c->lp, a, jk);
}

/* a[k], jk[k] equal b's for every k whose slot is not named again later in
 * the call (a slot's resident list is its last one) */
static int same_last(const icase *c, double (*a)[3], double (*jk)[3], double (*b)[3], double (*bj)[3])
{
    int same = 1;
    for (int k = 0; k < NI; k++) {
        int last = 1;
        for (int q = k + 1; q < NI; q++) last &= c->idx[q] != c->idx[k];
        if (last) same &= memcmp(a[k], b[k], sizeof a[k]) == 0 && memcmp(jk[k], bj[k], sizeof jk[k]) == 0;
    }
    return same;
}

static int resident(gpunb *g, const icase *c, double (*a)[3], double (*jk)[3])
{
    for (int k = 0; k < NI; k++) a[k][0] = jk[k][0] = NAN;   /* poison */
    return gpunb_irrf_resident(g, NI, c->idx, C3(c->x), C3(c->v), a, jk);
}

/* The resident lists (gpunb.h): what the block step's GPU path relies on.
 * Each check would fail if the update it names were missed. */
static void resident_cases(gpunb *g, const bodies *B, icase *c, double t)
{
    static double a[NI][3], jk[NI][3], ar[NI][3], jr[NI][3];
    /* before any set_list every list is empty */
    int rc = resident(g, c, ar, jr), zero = 1;
    for (int k = 0; k < NI; k++)
        for (int e = 0; e < 3; e++) zero &= ar[k][e] == 0.0 && jr[k][e] == 0.0;
    CHECK(rc == 0 && zero, "resident: no list set, every force zero (rc %d)", rc);

    gpunb_set_list(g, NI, c->idx, c->nnb, c->lp);
    call(g, c, a, jk);
    rc = resident(g, c, ar, jr);
    CHECK(rc == 0 && same_last(c, a, jk, ar, jr),
          "resident: set_list then irrf_resident equals gpunb_irrf over the same lists, bit for bit");

    /* an edit not sent is seen; sent, it is taken */
    int k0 = -1;   /* a body with a few neighbours whose slot is named once */
    for (int k = 0; k < NI && k0 < 0; k++) {
        int once = c->nnb[k] >= 4;
        for (int q = 0; q < NI; q++) once &= q == k || c->idx[q] != c->idx[k];
        if (once) k0 = k;
    }
    if (k0 < 0) { CHECK(0, "resident: a body named once"); return; }
    c->nnb[k0] -= 2;   /* drop the last two neighbours */
    call(g, c, a, jk);
    resident(g, c, ar, jr);
    CHECK(memcmp(a[k0], ar[k0], sizeof a[k0]) != 0, "resident: a list edited but not sent gives another force");
    gpunb_set_list(g, 1, &c->idx[k0], &c->nnb[k0], &c->lp[k0]);
    resident(g, c, ar, jr);
    CHECK(memcmp(a[k0], ar[k0], sizeof a[k0]) == 0 && memcmp(jk[k0], jr[k0], sizeof jk[k0]) == 0,
          "resident: the edited list sent, the forces equal again");

    /* gpunb_regf keeps each list it returns */
    enum { NR = 64 };
    int ridx[NR], rnnb[NR];
    static int rl[NR * NBMAX];
    double h2[NR], dtr[NR], rx[NR][3], rv[NR][3], fa[NR][3], fj[NR][3];
    for (int q = 0; q < NR; q++) {
        int i = JBEG + 37 * q;
        ridx[q] = i;
        h2[q] = (q % 8 == 7 ? 0.4 : 0.05) * NJ;   /* ~50 neighbours; every eighth list overflows NBMAX */
        dtr[q] = 0.0;
        memcpy(rx[q], B->xp[i], sizeof rx[q]);
        memcpy(rv[q], B->vp[i], sizeof rv[q]);
    }
    static double ra[NR][3], rj[NR][3], ra0[NR][3], rj0[NR][3];
    const int *rlp[NR];
    int rkn[NR];
    /* before: the regf bodies' resident lists, as last set (their lists from the icase or none) */
    gpunb_irrf_resident(g, NR, ridx, C3(rx), C3(rv), ra0, rj0);
    int over = gpunb_regf(g, NR, ridx, h2, dtr, C3(rx), C3(rv), fa, fj, rnnb, rl);
    int nover = 0, nkept = 0;
    for (int q = 0; q < NR; q++) {
        nover += rnnb[q] < 0;
        nkept += rnnb[q] > 0;
        rlp[q] = rl + (size_t)q * NBMAX;
        rkn[q] = rnnb[q] < 0 ? 0 : rnnb[q];
    }
    gpunb_irrf(g, NR, C3(rx), C3(rv), rkn, rlp, ra, rj);
    static double ar2[NR][3], jr2[NR][3];
    gpunb_irrf_resident(g, NR, ridx, C3(rx), C3(rv), ar2, jr2);
    int kept = 1, stayed = 1;
    for (int q = 0; q < NR; q++) {
        if (rnnb[q] >= 0)
            kept &= memcmp(ra[q], ar2[q], sizeof ra[q]) == 0 && memcmp(rj[q], jr2[q], sizeof rj[q]) == 0;
        else
            stayed &= memcmp(ra0[q], ar2[q], sizeof ra0[q]) == 0;
    }
    CHECK(over == nover && nover > 0 && nkept > 0 && kept,
          "resident: gpunb_regf's %d whole lists kept (irrf_resident equals gpunb_irrf over them)", NR - nover);
    CHECK(stayed, "resident: the %d overflowed bodies keep their earlier lists", nover);

    /* set_range leaves them (slots, not j positions) */
    gpunb_set_range(g, 0, B->n);
    gpunb_set_range(g, JBEG, B->n);
    gpunb_predict(g, t);
    gpunb_irrf_resident(g, NR, ridx, C3(rx), C3(rv), ar2, jr2);
    int same = 1;
    for (int q = 0; q < NR; q++)
        if (rnnb[q] >= 0) same &= memcmp(ra[q], ar2[q], sizeof ra[q]) == 0;
    CHECK(same, "resident: after set_range changes and back, the same forces");

    /* a resident list naming a slot below jbeg is reported, its force zero */
    int bad[3] = {0, JBEG + 1, JBEG + 2}, nbad = 3, kb = 5;
    const int *bp = bad;
    gpunb_set_list(g, 1, &ridx[kb], &nbad, &bp);
    rc = gpunb_irrf_resident(g, NR, ridx, C3(rx), C3(rv), ar2, jr2);
    int first = kb;
    for (int q = 0; q < kb; q++)
        if (ridx[q] == ridx[kb]) first = q;
    CHECK(rc == first + 1 && ar2[kb][0] == 0.0 && jr2[kb][0] == 0.0,
          "resident: a slot outside the j-range reported (%d, want %d), its force zero", rc, first + 1);

    /* cpu-simd keeps them the same way */
    char err[256], notice[256];
    gpunb_config cpu_cfg = {GPUNB_CPU, 0};
    gpunb *gs = gpunb_open(B->n, NBMAX, &cpu_cfg, notice, sizeof notice, err, sizeof err);
    if (gs && strcmp(gpunb_backend(gs), "cpu-simd") == 0) {
        send(gs, B, t);
        gpunb_set_list(gs, NI, c->idx, c->nnb, c->lp);
        gpunb_set_list(g, NI, c->idx, c->nnb, c->lp);
        resident(g, c, a, jk);
        rc = resident(gs, c, ar, jr);
        CHECK(rc == 0 && memcmp(a, ar, sizeof a) == 0 && memcmp(jk, jr, sizeof jk) == 0,
              "resident: cpu-simd the same as cpu-ref");
    } else {
        SKIP("resident cpu-simd: not available here (%s)", gs ? gpunb_backend(gs) : err);
    }
    if (gs) gpunb_close(gs);
}

/* The regular-force inputs of nr bodies: every eighth radius over NBMAX. */
typedef struct {
    int n, idx[NI];
    double h2[NI], dtr[NI], x[NI][3], v[NI][3];
} rcase;

static void make_rcase(rcase *r, const bodies *B, int n)
{
    r->n = n;
    for (int q = 0; q < n; q++) {
        int i = JBEG + (37 * q) % NJ;
        r->idx[q] = i;
        r->h2[q] = (q % 8 == 7 ? 0.4 : 0.05) * NJ;
        r->dtr[q] = (q % 3) * 0.01;
        memcpy(r->x[q], B->xp[i], sizeof r->x[q]);
        memcpy(r->v[q], B->vp[i], sizeof r->v[q]);
    }
}

typedef struct {
    int over, nnb[NI], list[NI * NBMAX];
    double a[NI][3], jk[NI][3];
} rout;

static int same_rout(const rcase *r, const rout *p, const rout *q)
{
    if (p->over != q->over || memcmp(p->nnb, q->nnb, sizeof(int) * r->n) ||
        memcmp(p->a, q->a, sizeof p->a[0] * r->n) || memcmp(p->jk, q->jk, sizeof p->jk[0] * r->n))
        return 0;
    for (int k = 0; k < r->n; k++)
        if (p->nnb[k] > 0 && memcmp(p->list + (size_t)k * NBMAX, q->list + (size_t)k * NBMAX,
                                    sizeof(int) * p->nnb[k]))
            return 0;
    return 1;
}

/* The child's exit status and whether its stderr named `want`. */
static int child_fails_with(void (*body)(gpunb *), gpunb *g, const char *want)
{
    int fd[2];
    if (pipe(fd)) return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        body(g);
        _exit(0);
    }
    close(fd[1]);
    char buf[512] = "";
    ssize_t got = 0, r;
    while (got < (ssize_t)sizeof buf - 1 && (r = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += r;
    buf[got] = '\0';
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    printf("# child: %s", buf);
    return WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(buf, want) != NULL;
}

static rcase mis_r;
static void set_jp_in_flight(gpunb *g)
{
    gpunb_regf_begin(g, mis_r.n, mis_r.idx, mis_r.h2, mis_r.dtr, C3(mis_r.x), C3(mis_r.v));
    double t0 = 0, x[3] = {0, 0, 0};
    int i = JBEG;
    gpunb_set_jp(g, 1, &i, &t0, C3(x), C3(x), C3(x), C3(x), &t0);
}
static void end_without_begin(gpunb *g)
{
    static rout o;
    gpunb_regf_end(g, o.a, o.jk, o.nnb, o.list);
}

/* gpunb_regf_begin/_end against gpunb_regf on one backend: forces, lists,
 * return value and the resident lists kept, bit for bit. */
static void regf_split_case(gpunb *g, const bodies *B, double t, const char *tag)
{
    static rcase r;
    static rout p, q;
    static double a1[NI][3], j1[NI][3], a2[NI][3], j2[NI][3];
    make_rcase(&r, B, 300);
    send(g, B, t);
    gpunb_set_list(g, 0, NULL, NULL, NULL);
    p.over = gpunb_regf(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v), p.a, p.jk, p.nnb, p.list);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), a1, j1);
    gpunb_set_list(g, 0, NULL, NULL, NULL);
    for (int k = 0; k < r.n; k++) {   /* the kept lists wiped, so that the split call must keep them again */
        int zero = 0;
        const int *none = &zero;
        gpunb_set_list(g, 1, &r.idx[k], &zero, &none);
    }
    send(g, B, t);
    memset(&q, 0xff, sizeof q);
    gpunb_regf_begin(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v));
    q.over = gpunb_regf_end(g, q.a, q.jk, q.nnb, q.list);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), a2, j2);
    int nover = 0;
    for (int k = 0; k < r.n; k++) nover += p.nnb[k] < 0;
    CHECK(nover > 0 && same_rout(&r, &p, &q),
          "%s: gpunb_regf_begin/_end equal gpunb_regf bit for bit (%d bodies, %d over NBMAX)", tag, r.n, nover);
    CHECK(!memcmp(a1, a2, sizeof a1[0] * r.n) && !memcmp(j1, j2, sizeof j1[0] * r.n),
          "%s: the split call keeps the same resident lists", tag);
}

/* Held updates (gpunb_hold_jp): set_jp between the hold and the release,
 * also while a regular force is in flight, changes no force call (regular,
 * resident irregular) until the release; after it the forces are those of
 * the updated bodies sent the plain way.  Half the bodies get moved
 * polynomials, in two calls, some first with wrong ones (the later call
 * must win). */
static void hold_case(gpunb *g, const bodies *B, double t, const char *tag)
{
    static bodies B2;
    static rcase r;
    static rout p, q, held, after;
    static double a1[NI][3], j1[NI][3], a2[NI][3], j2[NI][3];
    B2 = *B;
    const int nh = NJ / 2, nw = 300;
    static int idx[NJ];
    static double xw[NJ][3];
    for (int k = 0; k < nh; k++) {
        int i = JBEG + 2 * k;
        idx[k] = i;
        for (int e = 0; e < 3; e++) {
            B2.x[i][e] += 0.01 * (e + 1);
            xw[k][e] = B->x[i][e] - 0.5;
        }
        predict3(t - B2.t0[i], B2.x[i], B2.v[i], B2.a[i], B2.jk[i], B2.xp[i], B2.vp[i]);
    }
    make_rcase(&r, B, 300);
    send(g, &B2, t);   /* what the updated bodies give */
    q.over = gpunb_regf(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v), q.a, q.jk, q.nnb, q.list);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), a2, j2);
    send(g, B, t);
    p.over = gpunb_regf(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v), p.a, p.jk, p.nnb, p.list);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), a1, j1);

    memset(&held, 0xff, sizeof held);
    gpunb_regf_begin(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v));
    gpunb_hold_jp(g);
    gpunb_set_jp(g, nw, idx, B2.t0 + JBEG, C3(xw), C3(B2.v + JBEG), C3(B2.a + JBEG), C3(B2.jk + JBEG), B2.m + JBEG);
    static double t0h[NJ], mh[NJ], xh[NJ][3], vh[NJ][3], ah[NJ][3], jh[NJ][3];
    for (int k = 0; k < nh; k++) {
        int i = idx[k];
        t0h[k] = B2.t0[i];
        mh[k] = B2.m[i];
        memcpy(xh[k], B2.x[i], sizeof xh[k]);
        memcpy(vh[k], B2.v[i], sizeof vh[k]);
        memcpy(ah[k], B2.a[i], sizeof ah[k]);
        memcpy(jh[k], B2.jk[i], sizeof jh[k]);
    }
    gpunb_set_jp(g, nh, idx, t0h, C3(xh), C3(vh), C3(ah), C3(jh), mh);
    held.over = gpunb_regf_end(g, held.a, held.jk, held.nnb, held.list);
    static double ah1[NI][3], jh1[NI][3];
    gpunb_predict(g, t);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), ah1, jh1);
    CHECK(same_rout(&r, &p, &held) && !memcmp(a1, ah1, sizeof a1[0] * r.n) && !memcmp(j1, jh1, sizeof j1[0] * r.n),
          "%s: updates held during a regular force change neither it nor the irregular force after it", tag);
    gpunb_release_jp(g);
    gpunb_predict(g, t);
    after.over = gpunb_regf(g, r.n, r.idx, r.h2, r.dtr, C3(r.x), C3(r.v), after.a, after.jk, after.nnb, after.list);
    gpunb_irrf_resident(g, r.n, r.idx, C3(r.x), C3(r.v), ah1, jh1);
    CHECK(!same_rout(&r, &p, &q) && same_rout(&r, &q, &after) && !memcmp(a2, ah1, sizeof a2[0] * r.n) &&
              !memcmp(j2, jh1, sizeof j2[0] * r.n),
          "%s: after the release, the forces of the updated bodies (the later of two updates wins)", tag);
}

static void regf_split_cases(const bodies *B, double t)
{
    char err[256], notice[256];
    gpunb_config ref_cfg = {GPUNB_CPU_REF, 0}, cpu_cfg = {GPUNB_CPU, 0};
    gpunb *g = gpunb_open(B->n, NBMAX, &ref_cfg, notice, sizeof notice, err, sizeof err);
    if (!g) { CHECK(0, "cpu-ref opens: %s", err); return; }
    regf_split_case(g, B, t, "cpu-ref");
    hold_case(g, B, t, "cpu-ref");
    make_rcase(&mis_r, B, 10);
    CHECK(child_fails_with(set_jp_in_flight, g, "gpunb_set_jp called while a regular force is in flight"),
          "a gpunb call between gpunb_regf_begin and _end exits 1 naming the call");
    CHECK(child_fails_with(end_without_begin, g, "gpunb_regf_end without gpunb_regf_begin"),
          "gpunb_regf_end without a begin exits 1 with a message");
    gpunb_close(g);
    gpunb *gs = gpunb_open(B->n, NBMAX, &cpu_cfg, notice, sizeof notice, err, sizeof err);
    if (gs && strcmp(gpunb_backend(gs), "cpu-simd") == 0) {
        regf_split_case(gs, B, t, "cpu-simd");
        hold_case(gs, B, t, "cpu-simd");
    } else SKIP("regf in two halves, cpu-simd: not available here (%s)", gs ? gpunb_backend(gs) : err);
    if (gs) gpunb_close(gs);
}

int main(void)
{
    uint64_t seed = check_seed();
    static bodies B;
    static icase c;
    static double a[NI][3], jk[NI][3], a2[NI][3], j2[NI][3], ag[NI][3], jg[NI][3];
    const double t = 0.25;
    make_bodies(&B, t, &seed);
    make_icase(&c, &B, &seed);

    char err[256], notice[256];
    gpunb_config ref_cfg = {GPUNB_CPU_REF, 0}, cpu_cfg = {GPUNB_CPU, 0};
    gpunb *g = gpunb_open(B.n, NBMAX, &ref_cfg, notice, sizeof notice, err, sizeof err);
    if (!g) { CHECK(0, "cpu-ref opens: %s", err); return check_done(); }
    CHECK(strcmp(gpunb_backend(g), "cpu-ref") == 0, "backend is cpu-ref");
    send(g, &B, t);

    omp_set_num_threads(2);
    int rc = call(g, &c, a, jk);
    CHECK(rc == 0, "cpu-ref: gpunb_irrf returns 0 (%d)", rc);
    double w = worst_vs_direct(&B, &c, a, jk);
    CHECK(w <= 1e-13, "cpu-ref: %d bodies equal a direct double sum (worst normalised error %.1e)", NI, w);
    int zero = 1;
    for (int k = 9; k < NI; k += 10)
        for (int e = 0; e < 3; e++) zero &= a[k][e] == 0.0 && jk[k][e] == 0.0;
    CHECK(zero, "cpu-ref: an empty list gives zero");

    omp_set_num_threads(1);
    call(g, &c, a2, j2);
    omp_set_num_threads(2);
    CHECK(memcmp(a, a2, sizeof a) == 0 && memcmp(jk, j2, sizeof jk) == 0,
          "cpu-ref: 1 and 2 threads bit-identical");

    /* GPUIRR's scalar backend: its own prediction, its stored lists */
    gpuirr *ir = gpuirr_open(B.n, NBMAX, GPUIRR_SCALAR, err, sizeof err);
    if (!ir) {
        CHECK(0, "GPUIRR scalar opens: %s", err);
    } else {
        for (int i = 0; i < B.n; i++) gpuirr_set_jp(ir, i, B.t0[i], B.x[i], B.v[i], B.a[i], B.jk[i], B.m[i]);
        for (int k = 0; k < NI; k++) gpuirr_set_list(ir, c.idx[k], c.nnb[k], c.lists[k]);
        gpuirr_pred_all(ir, 0, B.n, t);
        int ok = gpuirr_firr(ir, NI, c.idx, ag, jg) == 0;
        /* a body drawn twice has its last list in GPUIRR: compare the last */
        int same = 1;
        for (int k = 0; k < NI; k++) {
            int last = 1;
            for (int q = k + 1; q < NI; q++) last &= c.idx[q] != c.idx[k];
            if (last) same &= memcmp(a[k], ag[k], sizeof a[k]) == 0 && memcmp(jk[k], jg[k], sizeof jk[k]) == 0;
        }
        CHECK(ok && same, "cpu-ref equals GPUIRR's scalar backend bit for bit");
        gpuirr_close(ir);
    }

    gpunb *gs = gpunb_open(B.n, NBMAX, &cpu_cfg, notice, sizeof notice, err, sizeof err);
    if (gs && strcmp(gpunb_backend(gs), "cpu-simd") == 0) {
        send(gs, &B, t);
        int rs = call(gs, &c, a2, j2);
        CHECK(rs == 0 && memcmp(a, a2, sizeof a) == 0 && memcmp(jk, j2, sizeof jk) == 0,
              "cpu-simd: the same results as cpu-ref");
    } else {
        SKIP("cpu-simd: not available here (%s)", gs ? gpunb_backend(gs) : err);
    }
    if (gs) gpunb_close(gs);

    /* body k1 (40 or the next with a list: a drawn list can be empty)
     * lists a j-body at its own position; body k2 (50 or the next) a slot
     * below jbeg */
    int k1 = 40, k2 = 50;
    while (k1 < NI && c.nnb[k1] == 0) k1++;
    while (k2 < NI && c.nnb[k2] == 0) k2++;
    if (k2 >= NI || k1 >= k2) {
        CHECK(0, "bodies with lists for the r = 0 and the j-range cases (%d, %d)", k1, k2);
        return check_done();
    }
    int jc = c.lists[k1][0];
    memcpy(c.x[k1], B.xp[jc], sizeof c.x[k1]);
    const int jk2 = c.lists[k2][0];
    c.lists[k2][0] = 0;
    rc = call(g, &c, a2, j2);
    int others = 1;
    for (int k = 0; k < NI; k++)
        if (k != k1 && k != k2) others &= memcmp(a[k], a2[k], sizeof a[k]) == 0;
    CHECK(rc == k1 + 1 && a2[k1][0] == 0.0 && j2[k1][0] == 0.0 && others,
          "a neighbour at r = 0: first such body reported (%d, want %d), its force zero, others computed", rc,
          k1 + 1);
    memcpy(c.x[k1], B.xp[c.idx[k1]], sizeof c.x[k1]);
    rc = call(g, &c, a2, j2);
    CHECK(rc == k2 + 1 && a2[k2][0] == 0.0, "a slot outside the j-range reported (%d, want %d)", rc, k2 + 1);
    c.lists[k2][0] = jk2;

    resident_cases(g, &B, &c, t);
    gpunb_close(g);
    regf_split_cases(&B, t);
    return check_done();
}
