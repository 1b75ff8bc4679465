/* test_ks_chain.c — chain regularisation in the run (src/reg/ks_chain.c):
 * scripted binary–single and binary–binary encounters integrated by the
 * whole program (block steps, KS, chain), with the chain (KZ(15) = 1,
 * KZ(30) = 1) and without it (KS + Hermite alone), measured against the
 * direct energy of the starting state; the chain's start and end jumps;
 * members leaving the chain as a KS pair and singles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "io/checkpoint.h"
#include "integ/checks.h"
#include "io/snapshot.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "simutil.h"

typedef struct outcome {
    double de;          /* (E_end - E0)/|E0| */
    long long started, ended, formed, kssteps, absorbed;
    double jump;        /* largest |dE/E| over one event */
    int npairs, active;
    double chain_start_sum, chain_end_sum; /* ledger, over |E0| */
} outcome;

#define NFIELD 8

/* RMIN of run_bodies' deck (test_massive_pair lowers it) */
static double test_rmin = 0.01;

/* n bodies (c.m. at rest) and NFIELD light field bodies on a ring of radius
 * 0.3 around them (so that a chain's c.m. has neighbours: an empty list
 * would get NBODY6's fictitious central mass at the origin, an external
 * force) to t = tend with or without the chain.  Their tidal perturbation
 * of the encounter is ~1e-9.  m, x, v have room for n + NFIELD. */
static int run_bodies(int n, double *m, double (*x)[3], double (*v)[3], int chain, double tend,
                      double etaf, outcome *o)
{
    n = add_field_ring(n, NFIELD, m, x, v);
    deck d;
    deck_defaults(&d, n);
    d.rs0 = 100.0; /* everybody is everybody's neighbour (a body on its way out would
                    * otherwise lose its list and feel NBODY6's fictitious central mass) */
    d.etai = 0.005 * etaf; d.etar = 0.01 * etaf; d.etau = 0.1 * etaf;
    d.rmin = test_rmin; d.dtmin = 1e-3; d.eclose = 1.0;
    d.smax = 0.125;
    d.kz[16] = 0;
    d.kz[15] = chain;
    d.kz[30] = chain;
    double e0 = direct_energy(n, m, (const double(*)[3])x, (const double(*)[3])v);
    run_options ro = quiet_cpu_options();
    char err[512];
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &ro, NULL, err,
                       sizeof err);
    if (!s) {
        printf("# run_start: %s\n", err);
        return -1;
    }
    s->ks->check_jumps = 1;
    s->ks->check_relabel = 1;
    s->led.exact = 1;
    ledger_start(&s->led, 0.0);
    s->p.fixed_radius = 1;

    int rc = 0;
    double eprev = e0;
    int nq = getenv("CHAIN_TEST_STEPS") ? atoi(getenv("CHAIN_TEST_STEPS")) : 20;
    for (int q = 1; q <= nq && rc == 0; q++) {
        rc = run_advance(s, tend * q / nq, err, sizeof err);
        double e = ks_total_energy(s);
        ledger_interval li;
        ledger_close(&s->led, e - eprev, 0.0, &li);
        if (getenv("CHAIN_TEST_VERBOSE"))
            printf("#   t %.3f dE %.3e rest %.3e chain %d np %d\n", s->time, (e - eprev) / fabs(e0),
                   li.rest / fabs(e0), s->ks->ch.active, s->npairs);
        eprev = e;
    }
    if (rc) printf("# run: %s\n", err);
    CHECK(s->ks->relabel_missed == 0, "terminations found every list to relabel without reading every list "
          "(%lld terminations, %lld missed)", (long long)s->ks->relabel_checked, (long long)s->ks->relabel_missed);
    o->de = (ks_total_energy(s) - e0) / fabs(e0);
    o->started = s->ks->ch.started;
    o->ended = s->ks->ch.ended;
    o->absorbed = s->ks->ch.absorbed;
    o->formed = s->ks->formed;
    o->kssteps = s->ks->steps;
    o->jump = s->ks->jump_max;
    o->npairs = s->npairs;
    o->active = s->ks->ch.active;
    o->chain_start_sum = s->led.total[LED_CHAIN_START] / fabs(e0);
    o->chain_end_sum = s->led.total[LED_CHAIN_END] / fabs(e0);
    printf("# %s: dE/E %.3e, chains %lld started %lld ended (%s), %lld absorbed, KS formed %lld, pairs %d, "
           "KS steps %lld, largest event jump %.2e, irregular steps %lld\n",
           chain ? "chain" : "KS only", o->de, o->started, o->ended,
           s->ks->ch.last_end ? s->ks->ch.last_end : "-", (long long)s->ks->ch.absorbed, o->formed,
           o->npairs, o->kssteps,
           o->jump, (long long)s->cnt.steps_irr);
    printf("#   ledger over |E0|: rest %.3e  ks_form %.3e (%lld)  ks_term %.3e (%lld)  chain_start %.3e  "
           "chain_end %.3e  tide %.3e\n", s->led.rest_total / fabs(e0),
           s->led.total[LED_KS_FORM] / fabs(e0), (long long)s->led.total_count[LED_KS_FORM],
           s->led.total[LED_KS_TERM] / fabs(e0), (long long)s->led.total_count[LED_KS_TERM],
           s->led.total[LED_CHAIN_START] / fabs(e0), s->led.total[LED_CHAIN_END] / fabs(e0),
           s->led.total[LED_TIDE] / fabs(e0));
    run_end(s);
    return rc;
}

/* Measured (gcc 12, x86-64, 2026-11-24) with ETAI 0.005, ETAR 0.01,
 * ETAU 0.1: binary-single |dE/E| 1.0e-7 with the chain against 4.0e-7 with
 * KS + Hermite alone, 1.7e-8 / 1.2e-7 with the ETAs halved (what is left
 * with the chain is the Hermite and KS part of the approach, before the
 * chain starts: it falls with the ETAs, 5.7x here); binary-binary
 * (2026-11-25) 2.4e-7 against 2.8e-5.  Before a KS pair's perturbers that
 * are KS pairs were resolved into their components (kspert.f's CMSEP2
 * test), these were 6.6e-7 against 0.33: each pair felt the other as a
 * point, and the energy (pairs resolved) saw the tide that the orbits
 * missed.  The bounds below are twice the measured values; the ratios are
 * checked against what KS + Hermite give in the same run. */
static void test_binary_single(void)
{
    double m[3 + NFIELD], x[3 + NFIELD][3], v[3 + NFIELD][3];
    outcome with, without, half;
    /* a hard binary (a = 0.002) met almost head-on by an equal-mass single
     * slow enough to be captured for a while: a resonant encounter */
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int run = 0; run < 3; run++) {
        kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, vc, m, x, v);
        m[2] = 0.25;
        x[2][0] = 0.0005; x[2][1] = 0.08; x[2][2] = 0.0;
        v[2][0] = 0.0; v[2][1] = -1.2; v[2][2] = 0.05;
        run_bodies(3, m, x, v, run != 1, 1.0, run == 2 ? 0.5 : 1.0,
                   run == 0 ? &with : run == 1 ? &without : &half);
    }
    CHECK(with.started >= 1 && with.ended == with.started && !with.active,
          "binary-single: the chain starts and ends (%lld, %lld)", with.started, with.ended);
    CHECK(with.npairs == 1, "it ends as a KS pair and a single (%d pairs)", with.npairs);
    CHECK(fabs(with.de) < 2e-7, "binary-single with chain: |dE/E| %.2e < 2e-7", fabs(with.de));
    CHECK(fabs(with.de) * 3.0 < fabs(without.de),
          "the chain keeps E 3x better than KS + Hermite alone (%.2e against %.2e)", fabs(with.de),
          fabs(without.de));
    CHECK(fabs(half.de) * 3.0 < fabs(with.de),
          "what is left falls with the ETAs (%.2e with them halved against %.2e)", fabs(half.de),
          fabs(with.de));
    /* start: the same state written two ways; end: the chain's own
     * integration error (tolerance 1e-12 per step) */
    CHECK(fabs(with.chain_start_sum) < 1e-14 && fabs(with.chain_end_sum) < 1e-11,
          "chain start/end jumps (whole-energy measure): %.2e / %.2e of |E|", with.chain_start_sum,
          with.chain_end_sum);
}

static void test_binary_binary(void)
{
    double m[4 + NFIELD], x[4 + NFIELD][3], v[4 + NFIELD][3];
    outcome with, without;
    for (int run = 0; run < 2; run++) {
        double xa[3] = {0, 0.04, 0}, va[3] = {0, -0.6, 0};
        double xb[3] = {0.001, -0.04, 0.0005}, vb[3] = {0, 0.6, 0};
        kepler_binary(0.25, 0.25, 0.002, 0.2, 0.0, xa, va, m, x, v);
        kepler_binary(0.25, 0.25, 0.003, 0.5, 0.0, xb, vb, m + 2, x + 2, v + 2);
        run_bodies(4, m, x, v, run == 0, 1.0, 1.0, run == 0 ? &with : &without);
    }
    CHECK(with.started >= 1 && with.ended == with.started,
          "binary-binary: the chain starts and ends (%lld, %lld)", with.started, with.ended);
    CHECK(fabs(with.de) < 5e-7, "binary-binary with chain: |dE/E| %.2e < 5e-7", fabs(with.de));
    CHECK(fabs(without.de) < 6e-5,
          "KS + Hermite alone: |dE/E| %.2e < 6e-5 (0.33 with each pair a point to the other's "
          "perturbation)", fabs(without.de));
    CHECK(fabs(with.de) * 30.0 < fabs(without.de),
          "the chain 30x better than KS + Hermite alone (%.2e against %.2e)", fabs(with.de),
          fabs(without.de));
    /* starts and absorptions: an absorption moves the members to the new
     * c.m. frame, which rounds separations of 1e-3 at coordinates of 0.04
     * to ~1e-14 of themselves (measured 3.4e-14 over three absorptions, 5e-14
     * over one; a start alone measures 1e-16).  Ends: the chain's own
     * integration error (E + B) under its perturbers, 2.3e-11 with three
     * absorptions and 3.0e-10 with one since absorption reaches no further
     * than 3 RMIN (the second pair then perturbs the chain from outside for
     * longer); the bound is 3x that (a work integral 0.1 % off gives 4.7e-6) */
    CHECK(fabs(with.chain_start_sum) < 1e-13 && fabs(with.chain_end_sum) < 1e-9,
          "chain start/absorption/end jumps: %.2e / %.2e of |E|", with.chain_start_sum,
          with.chain_end_sum);
}

/* A checkpoint taken while a chain is active holds the chain whole. */
static void test_checkpoint(void)
{
    double m[3 + NFIELD], x[3 + NFIELD][3], v[3 + NFIELD][3];
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, vc, m, x, v);
    m[2] = 0.25;
    x[2][0] = 0.0005; x[2][1] = 0.08; x[2][2] = 0.0;
    v[2][0] = 0.0; v[2][1] = -1.2; v[2][2] = 0.05;
    int n = 3;
    double mc = 0.75;
    for (int k = 0; k < NFIELD; k++) {
        double ph = 2.0 * M_PI * k / NFIELD, r = 0.3, vv = sqrt(mc / r);
        m[n + k] = 1e-3;
        x[n + k][0] = r * cos(ph); x[n + k][1] = r * sin(ph); x[n + k][2] = 0.02 * (k % 2 ? 1 : -1);
        v[n + k][0] = -vv * sin(ph); v[n + k][1] = vv * cos(ph); v[n + k][2] = 0.0;
    }
    n += NFIELD;
    deck d;
    deck_defaults(&d, n);
    d.rs0 = 100.0;
    d.etai = 0.005; d.etar = 0.01; d.etau = 0.1;
    d.rmin = 0.01; d.dtmin = 1e-3; d.eclose = 1.0; d.smax = 0.125;
    d.kz[16] = 0; d.kz[15] = 1; d.kz[30] = 1;
    run_options ro = quiet_cpu_options();
    char err[512];
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &ro, NULL, err, sizeof err);
    if (!s) {
        CHECK(0, "run_start: %s", err);
        return;
    }
    s->p.fixed_radius = 1;
    double t = 0.0;
    while (!s->ks->ch.active && t < 0.1 && run_advance(s, t += 1e-4, err, sizeof err) == 0) {}
    CHECK(s->ks->ch.active, "a chain is active at t = %g", t);
    /* the energy check's measure holds the chain's binding energy also when
     * no KS pair is left beside it (it measured the chain as a point mass
     * then: +0.1 of E on plummer-imf-1024 at t = 24) */
    {
        diag dm;
        memset(&dm, 0, sizeof dm);
        ks_advance(s, s->time);
        ks_chain_sync(s, s->time, NULL, -1);
        checks_measure(s, &dm, 0);
        double et = ks_total_energy(s);
        CHECK(s->npairs == 0 && fabs(dm.etot - et) < 1e-12 * fabs(et),
              "with the chain and no KS pair the check measures E = %.15g as the KS measure "
              "does (%.15g; %d pairs)", dm.etot, et, s->npairs);
    }
    run_state rs = {0};
    size_t len;
    unsigned char *buf = checkpoint_encode(s, &d, &rs, &len);
    deck d2;
    run_state rs2;
    sim *s2 = buf ? checkpoint_decode(buf, len, "mem", &d2, &rs2, err, sizeof err) : NULL;
    int same = s2 && s2->ks->ch.active && !memcmp(&s2->ks->ch.c, &s->ks->ch.c, sizeof(chain)) &&
               s2->ks->ch.icm == s->ks->ch.icm && s2->ks->ch.np == s->ks->ch.np &&
               !memcmp(s2->ks->ch.slot, s->ks->ch.slot, sizeof s->ks->ch.slot) &&
               !memcmp(s2->ks->ch.plist, s->ks->ch.plist, sizeof(int) * (size_t)s->ks->ch.np) &&
               s2->m[s->ks->ch.slot[1]] == 0.0;
    CHECK(same, "the checkpoint holds the active chain whole (%s)", s2 ? "decoded" : err);
    /* a build that knows no chains must refuse it: the section is required */
    int req = 0;
    for (size_t q = 0; buf && q + 8 < len; q++)
        if (!memcmp(buf + q, "CHST", 4)) {
            uint32_t fl;
            memcpy(&fl, buf + q + 4, 4);
            req = fl & 1;
            break;
        }
    CHECK(req, "its chain section is marked required");
    /* a snapshot taken now writes the members, not the c.m. and its ghosts */
    char path[] = "/tmp/nbody6c-chain-snap-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    ks_advance(s, s->time); /* as the checks do before a snapshot */
    ks_chain_sync(s, s->time, NULL, -1);
    diag dg;
    memset(&dg, 0, sizeof dg);
    dg.t = s->time;
    snapshot_data sd;
    int ok = fd >= 0 && snapshot_write(path, s, &d, &dg, 1, err, sizeof err) == 0 &&
             snapshot_read(path, &sd, err, sizeof err) == 0;
    int good = ok && sd.n == n, names_ok = 1;
    double worst = 0.0;
    if (good) {
        /* the members where the chain puts them: its c.m. predicted as the
         * checks predict every body, plus the chain's own state */
        const ks_chain *ch = &s->ks->ch;
        double xc[3], vc[3], xi[CHAIN_NMAX][3], vi[CHAIN_NMAX][3];
        sim_predict_one(s, ch->icm, s->time, xc, vc);
        chain_get_state(&ch->c, xi, vi);
        for (int k = 0; k < sd.n; k++) {
            names_ok &= sd.name[k] == k + 1 && sd.m[k] > 0.0;
            for (int q = 0; q < ch->c.n; q++)
                if (sd.name[k] == ch->c.id[q])
                    for (int c = 0; c < 3; c++)
                        worst = fmax(worst, fabs(sd.x[k][c] - (xc[c] + xi[q][c])));
        }
        snapshot_data_free(&sd);
    }
    remove(path);
    CHECK(good && names_ok && worst < 1e-12,
          "a snapshot with an active chain: %d bodies named 1..N with their masses, the members "
          "at the chain's positions (largest offset %.1e) %s", good ? n : -1, worst, ok ? "" : err);
    free(buf);
    if (s2) {
        ks_close(s2);
        sim_free(s2);
    }
    run_end(s);
}

/* A resonant binary-single encounter joined by a second single: it is
 * absorbed into the running chain.  Measured: |dE/E| 2.2e-8 with the chain
 * (three absorptions over the encounter) against 6.3e-6 with KS + Hermite
 * alone.  (Before the KS corrections of the regular step's new-list force
 * saw the predicted state, ks_block_state, these were 8.1e-8 and 0.16: the
 * bounds then were 2e-7 and a ratio of 1e4.)  The bound is 2.7 times the
 * measured value, the ratio a third of the measured one. */
static void test_absorption(void)
{
    double m[4 + NFIELD], x[4 + NFIELD][3], v[4 + NFIELD][3];
    outcome with, without;
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int run = 0; run < 2; run++) {
        kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, vc, m, x, v);
        m[2] = 0.25;
        x[2][0] = 0.0005; x[2][1] = 0.08; x[2][2] = 0.0;
        v[2][0] = 0.0; v[2][1] = -1.2; v[2][2] = 0.05;
        m[3] = 0.1;
        x[3][0] = -0.0008; x[3][1] = -0.11; x[3][2] = 0.0003;
        v[3][0] = 0.0; v[3][1] = 1.3; v[3][2] = 0.0;
        run_bodies(4, m, x, v, run == 0, 1.0, 1.0, run == 0 ? &with : &without);
    }
    CHECK(with.absorbed >= 1, "a second intruder is absorbed into the running chain (%lld)", with.absorbed);
    CHECK(fabs(without.de) < 1e-4,
          "KS + Hermite alone through the same encounter: |dE/E| %.2e < 1e-4 (0.16 when the "
          "regular step's new-list KS corrections saw the corrected state)", fabs(without.de));
    CHECK(fabs(with.de) < 6e-8 && fabs(with.de) * 100.0 < fabs(without.de),
          "with absorption |dE/E| %.2e < 6e-8, 100x better than KS + Hermite alone (%.2e)",
          fabs(with.de), fabs(without.de));
}

/* The binary-single encounter of test_binary_single with RMIN lowered to
 * 0.0006, so that the pair (a = 0.002, e = 0.8: it becomes a KS pair near
 * pericentre) is wider than 3 RMIN, but not than 3 RMIN scaled by its mass
 * (M = 0.5 against a mean mass of 0.069: (M/2<m>)^(1/3) = 1.53,
 * ks_rmin_of_mass).  The intruder must make it a chain: unscaled, the
 * gamma > 0.05 test ended the pair instead, and in plummer-imf-1024 three
 * massive stars so treated went on by Hermite steps and short KS pairs and
 * lost 1.5e-4 of E in one check.  This encounter is a fly-by, not a
 * resonance: measured 1.2e-7 with the chain against 7.8e-8 with KS +
 * Hermite alone (both mostly the approach; 4.2e-7 before heavy stars in a
 * hard binary were regularised above RMIN, ks_events.c's heavy_partner,
 * which this pair of 3.6 mean masses is); the bound is 2.5 times the
 * measured value, and the chain must stay within twice KS + Hermite. */
static void test_massive_pair(void)
{
    double m[3 + NFIELD], x[3 + NFIELD][3], v[3 + NFIELD][3];
    outcome with, without;
    double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    test_rmin = 0.0006;
    for (int run = 0; run < 2; run++) {
        kepler_binary(0.25, 0.25, 0.002, 0.8, 0.0, xc, vc, m, x, v);
        m[2] = 0.25;
        x[2][0] = 0.0005; x[2][1] = 0.08; x[2][2] = 0.0;
        v[2][0] = 0.0; v[2][1] = -1.2; v[2][2] = 0.05;
        run_bodies(3, m, x, v, run == 0, 1.0, 1.0, run == 0 ? &with : &without);
    }
    test_rmin = 0.01;
    CHECK(with.started >= 1 && with.ended == with.started,
          "a massive pair wider than 3 RMIN (not than 3 RMIN mass-scaled) and its intruder make a "
          "chain (%lld started, %lld ended)", with.started, with.ended);
    CHECK(fabs(with.de) < 3e-7 && fabs(with.de) < 2.0 * fabs(without.de),
          "massive pair with chain: |dE/E| %.2e < 3e-7, and within twice KS + Hermite alone's %.2e",
          fabs(with.de), fabs(without.de));
}

/* A massive pair on a near-circular orbit (a = 0.002, e = 0.1, M = 0.5
 * against a mean mass of 0.069) with RMIN 0.0015: never closer than RMIN,
 * but within RMIN scaled by its mass (1.53 RMIN, ks_rmin_of_mass), so it
 * must become a KS pair.  Unscaled it stayed on Hermite steps: two stars
 * of 30 mean masses at 1.9 RMIN (binding 1.7 |E|) lost 1.1e-4 of E in 900
 * orbits that way (plummer-imf-1024, t = 19.0-19.75). */
static void test_massive_wide_pair(void)
{
    double m[2 + NFIELD], x[2 + NFIELD][3], v[2 + NFIELD][3];
    outcome o = {0};
    /* off the ring's centre: there the c.m.'s force and its derivatives
     * are rounding noise, and its first step came out at 3e-21 */
    double xc[3] = {0.05, 0.02, 0}, vc[3] = {0, 0, 0};
    test_rmin = 0.0015;
    kepler_binary(0.25, 0.25, 0.002, 0.1, 0.0, xc, vc, m, x, v);
    int rc = run_bodies(2, m, x, v, 1, 0.5, 1.0, &o);
    test_rmin = 0.01;
    CHECK(rc == 0 && o.formed >= 1 && o.npairs == 1,
          "a massive pair between RMIN and RMIN mass-scaled is regularised (run %s, KS formed "
          "%lld, pairs %d at the end)", rc ? "failed" : "to the end", o.formed, o.npairs);
}

/* A bound KS pair (m 0.1 + 0.1, a = 0.003, e = 0.3) passes the
 * binary-single encounter of test_binary_single at offset (x, 0, z) while
 * its chain runs; 21 offsets.  Three couplings are tested: at the chain's
 * end its members must join the pair's perturber list, where the chain's
 * c.m. was (with member 0 alone there, the run with x = 0.015 gained
 * 7.45e-5 of E in 5e-4 time units after the end); the forces between the
 * chain's c.m. and the pair's c.m. must be equal and opposite (the chain's
 * c.m. took the pair as a point, the pair's c.m. took the members on its
 * components); and the pair's resolution must reach the chain's c.m. once
 * (taken by components in the chain's correction and again in the pairs'
 * point correction, x = 0.003, z = 0.002 gained 2.5e-3 of E).  Measured
 * (gcc 12, x86-64, 2026-11-25), |dE/E| over the 21 runs: median 1.8e-7,
 * largest 2.3e-6; with the pair taken twice, median 1.3e-6 and largest
 * 2.5e-3; before all three, median 6.8e-6, largest 1.8e-4.  Bounds: about
 * 5x and 2x the measured values. */
static void test_pair_beside_chain(void)
{
    static const double xs[7] = {0.003, 0.004, 0.008, 0.012, 0.018, 0.025, 0.03};
    static const double zs[3] = {0.0, 0.002, 0.003};
    double de[21];
    int nrun = 0, ok = 1;
    for (int ix = 0; ix < 7; ix++)
        for (int iz = 0; iz < 3; iz++) {
            double m[5 + NFIELD], x[5 + NFIELD][3], v[5 + NFIELD][3];
            outcome o = {0};
            double xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
            kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, vc, m, x, v);
            m[2] = 0.25;
            x[2][0] = 0.0005; x[2][1] = 0.08; x[2][2] = 0.0;
            v[2][0] = 0.0; v[2][1] = -1.2; v[2][2] = 0.05;
            double xb[3] = {xs[ix], -0.1, zs[iz]}, vb[3] = {0.0, 1.0, 0.0};
            kepler_binary(0.1, 0.1, 0.003, 0.3, 0.3, xb, vb, m + 3, x + 3, v + 3);
            double p[3] = {0, 0, 0}, mt = 0.0;
            for (int i = 0; i < 5; i++) {
                mt += m[i];
                for (int d = 0; d < 3; d++) p[d] += m[i] * v[i][d];
            }
            for (int i = 0; i < 5; i++)
                for (int d = 0; d < 3; d++) v[i][d] -= p[d] / mt;
            printf("# pair beside a chain, offset x %.3f z %.3f\n", xs[ix], zs[iz]);
            int rc = run_bodies(5, m, x, v, 1, 1.0, 1.0, &o);
            if (rc || o.started < 1) ok = 0;
            de[nrun++] = fabs(o.de);
        }
    CHECK(ok, "pair beside a chain: every run reaches t = 1 and starts a chain");
    double sorted[21], big = 0.0;
    memcpy(sorted, de, sizeof de);
    for (int i = 1; i < nrun; i++)
        for (int k = i; k > 0 && sorted[k] < sorted[k - 1]; k--) {
            double tmp = sorted[k];
            sorted[k] = sorted[k - 1];
            sorted[k - 1] = tmp;
        }
    for (int i = 0; i < nrun; i++) big = fmax(big, de[i]);
    double med = sorted[nrun / 2];
    CHECK(med < 1e-6, "pair beside a chain: median |dE/E| %.2e < 1e-6 over %d offsets (1.3e-6 with "
          "the pair's resolution taken twice, 6.8e-6 with the pair a point to the chain's c.m.)", med,
          nrun);
    CHECK(big < 5e-6, "pair beside a chain: largest |dE/E| %.2e < 5e-6 (2.5e-3 and 1.8e-4 before)", big);
}

int main(void)
{
    test_massive_wide_pair();
    test_massive_pair();
    test_absorption();
    test_checkpoint();
    test_binary_single();
    test_binary_binary();
    test_pair_beside_chain();
    return check_done();
}
