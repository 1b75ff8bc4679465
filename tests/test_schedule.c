/* test_schedule.c — the block schedule (src/core/schedule.c) against a brute-force
 * scan of every body: random block steps (powers of two, t0 a multiple of
 * dt, as the integrator keeps them), some bodies off that grid, resets in
 * between, a slot range that moves (as at KS events), and events refreshed
 * in place (schedule_refresh).  Each block must hold
 * exactly the bodies with the smallest t0 + dt, in ascending slot order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "check.h"
#include "ic/ic.h"
#include "core/schedule.h"
#include "core/sim.h"

enum { CAP = 50000 };

/* Step levels drawn (20: blocks of a few members; 3: blocks of thousands,
 * for the parallel put-back) and whether members go back one by one
 * (schedule_put) or as a block (schedule_put_block). */
static int g_levels = 20, g_put_block = 0;

/* The next block by brute force: its time and members (ascending). */
static double brute_block(const sim *s, int *out, int *n)
{
    double tmin = INFINITY;
    for (int i = s->ifirst; i < s->ntot; i++) tmin = fmin(tmin, s->t0[i] + s->dt[i]);
    *n = 0;
    for (int i = s->ifirst; i < s->ntot; i++)
        if (s->t0[i] + s->dt[i] == tmin) out[(*n)++] = i;
    return tmin;
}

/* A new step for body i at time t: a power of two that keeps t a multiple
 * of it (halved until it does), or, for one body in `odd`, any positive
 * number (off the grid: only makes one group more). */
static double new_step(rng *r, double t, int odd)
{
    if (odd) return 1e-3 * (1.0 + rng_uniform(r));
    double dt = ldexp(1.0, -(int)(rng_uniform(r) * g_levels) - 1);
    while (fmod(t, dt) != 0.0) dt *= 0.5;
    return dt;
}

/* As a KS event at block time t, after the members got their new steps:
 * a few slot pairs exchange their bodies, a few bodies restart at t with
 * new steps, and the integrated range moves by a pair of slots. */
static void fake_event(rng *r, sim *s, double t)
{
    for (int e = 0; e < 3; e++) {
        int a = s->ifirst + (int)(rng_uniform(r) * (s->ntot - s->ifirst));
        int b = s->ifirst + (int)(rng_uniform(r) * (s->ntot - s->ifirst));
        double t0 = s->t0[a], dt = s->dt[a];
        s->t0[a] = s->t0[b]; s->dt[a] = s->dt[b];
        s->t0[b] = t0; s->dt[b] = dt;
        int c = s->ifirst + (int)(rng_uniform(r) * (s->ntot - s->ifirst));
        s->t0[c] = t;
        s->dt[c] = new_step(r, t, 0);
    }
    int moved = s->ifirst + ((rng_uniform(r) < 0.5) ? -2 : 2);
    if (moved >= 0 && moved < 8) s->ifirst = moved;
}

static int run_case_events(rng *r, int n, int odd_every, int blocks, int reset_every,
                           int event_every)
{
    sim s;
    memset(&s, 0, sizeof s);
    s.t0 = calloc(CAP, sizeof(double));
    s.dt = calloc(CAP, sizeof(double));
    s.ifirst = 0;
    s.ntot = n;
    for (int i = 0; i < n; i++) s.dt[i] = new_step(r, 0.0, odd_every && i % odd_every == 0);
    schedule *q = schedule_create(CAP);
    int *act = malloc(sizeof(int) * CAP), *ref = malloc(sizeof(int) * CAP), bad = 0;
    for (int b = 0; b < blocks && !bad; b++) {
        if (reset_every && b % reset_every == reset_every - 1) {
            /* as a KS event: the range moves and steps change off-schedule */
            s.ifirst = (int)(rng_uniform(r) * 4.0) * 2;
            schedule_reset(q);
        }
        int nref;
        double tref = brute_block(&s, ref, &nref);
        double t = schedule_time(q, &s);
        int nact = schedule_take(q, &s, act);
        if (t != tref || nact != nref || memcmp(act, ref, sizeof(int) * (size_t)nact) != 0) {
            printf("# block %d: time %.17g vs %.17g, %d vs %d members\n", b, t, tref, nact, nref);
            bad = 1;
            break;
        }
        int event = event_every && b % event_every == event_every - 1;
        for (int k = 0; k < nact; k++) {
            int i = act[k];
            s.t0[i] = t;
            s.dt[i] = new_step(r, t, odd_every && i % odd_every == 0);
            if (!event && !g_put_block) schedule_put(q, &s, i);
        }
        if (!event && g_put_block) schedule_put_block(q, &s, act, nact);
        if (event) { /* as block_step after a KS event: the members are refiled too */
            fake_event(r, &s, t);
            schedule_refresh(q, &s);
        }
    }
    schedule_free(q);
    free(act); free(ref); free(s.t0); free(s.dt);
    return bad;
}

static int run_case(rng *r, int n, int odd_every, int blocks, int reset_every)
{
    return run_case_events(r, n, odd_every, blocks, reset_every, 0);
}

/* One block of n bodies put back by schedule_put_block with `ntimes`
 * distinct new times (over 64 in a thread's share: the serial fallback),
 * then taken out block by block: the same blocks as a full scan. */
static int run_put_times(int n, int ntimes)
{
    sim s;
    memset(&s, 0, sizeof s);
    s.t0 = calloc(CAP, sizeof(double));
    s.dt = calloc(CAP, sizeof(double));
    s.ntot = n;
    for (int i = 0; i < n; i++) s.dt[i] = 1.0;
    schedule *q = schedule_create(CAP);
    int *act = malloc(sizeof(int) * CAP), *ref = malloc(sizeof(int) * CAP), bad = 0;
    double t = schedule_time(q, &s);
    int nact = schedule_take(q, &s, act);
    bad = nact != n;
    for (int k = 0; k < nact; k++) {
        s.t0[act[k]] = t;
        s.dt[act[k]] = 1.0 + ldexp((double)((k * 7919) % ntimes), -10);
    }
    schedule_put_block(q, &s, act, nact);
    for (int b = 0; b < ntimes && !bad; b++) {
        int nref;
        double tref = brute_block(&s, ref, &nref);
        t = schedule_time(q, &s);
        nact = schedule_take(q, &s, act);
        bad = t != tref || nact != nref || memcmp(act, ref, sizeof(int) * (size_t)nact) != 0;
        for (int k = 0; k < nact; k++) s.dt[act[k]] = 100.0; /* out of the way */
        schedule_put_block(q, &s, act, nact);
    }
    schedule_free(q);
    free(act); free(ref); free(s.t0); free(s.dt);
    return bad;
}

int main(void)
{
    rng r;
    rng_seed(&r, check_seed());
    CHECK(!run_case(&r, 1, 0, 200, 0), "one body, 200 blocks");
    CHECK(!run_case(&r, 2000, 0, 20000, 0), "2000 bodies on block steps, 20000 blocks: same blocks as a full scan");
    CHECK(!run_case(&r, 2000, 7, 20000, 0),
          "every 7th body off the step grid (a group each): same blocks as a full scan");
    CHECK(!run_case(&r, 2000, 0, 20000, 97),
          "resets every 97 blocks with a moving slot range: same blocks as a full scan");
    CHECK(!run_case_events(&r, 2000, 7, 20000, 0, 13),
          "an event every 13 blocks (slots exchanged, bodies restarted, the range moved), "
          "refreshed: same blocks as a full scan");
    CHECK(!run_case_events(&r, 2000, 0, 20000, 97, 5),
          "events every 5 blocks and resets every 97: same blocks as a full scan");
    /* big blocks: the parallel put-back (1024 members and more), on 4 threads */
    omp_set_num_threads(4);
    g_levels = 3;
    g_put_block = 1;
    CHECK(!run_case(&r, 40000, 0, 300, 0),
          "40000 bodies on 3 levels put back by blocks (parallel, 4 threads): same blocks as a "
          "full scan");
    CHECK(!run_case_events(&r, 40000, 7, 300, 0, 13),
          "the same with every 7th body off the grid and events every 13 blocks: same blocks as "
          "a full scan");
    CHECK(!run_put_times(40000, 40), "a block of 40000 put back onto 40 times (parallel)");
    CHECK(!run_put_times(40000, 300),
          "a block of 40000 put back onto 300 times (over 64 a thread: serial fallback)");
    CHECK(!run_case_events(&r, 40000, 0, 300, 29, 7),
          "parallel put-back with events every 7 blocks and resets every 29: same blocks as a "
          "full scan");
    return check_done();
}
