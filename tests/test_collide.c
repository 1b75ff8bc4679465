/* test_collide.c — stellar collisions (reg/ks_collide.c, reg/ks_star.c's
 * ks_star_merge, evol/'s evol_collisions, sse/sse_merge.c):
 *   - the product types of BSE's collision table for pairs of types whose
 *     products the rules state, and the table's symmetry; products of a
 *     few pairs (mass, type, what is thrown off);
 *   - two main-sequence stars of a hard KS pair are merged by hand: one
 *     body is left with the two masses, the momentum kept to rounding, the
 *     energy change the merge reports is the measured total's jump;
 *   - the same pair in a run with stellar evolution and a pericentre inside
 *     the sum of the radii merges once: one star of the two masses (of the
 *     heavier and 0.7 of the lighter when they meet fast and within half
 *     the sum: mix.f's enforced mass loss), the other gone but counted
 *     nowhere else (no escaper, no massless
 *     remnant), one "merge" line in events.txt, the stars' mass equal to
 *     the dynamics', the energy conserved with the booking as well as the
 *     twin run without stellar evolution conserves it;
 *   - a pair whose pericentre is outside the radii does not merge;
 *   - two members of a chain touch and merge (a binary-single encounter);
 *   - the frozen inner pair of a merged triple touches once its stars'
 *     radii grow past NBODY6's collision distance (1.7 R for equal stars,
 *     not the sum of the radii): the hierarchy splits, the two merge;
 *   - collisions waiting and the counts go through the checkpoint. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "evol/evol.h"
#include "integ/block.h"
#include "core/newpoly.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "simutil.h"

/* The 128-body cluster of test_evol with a hard pair of a 1.2 % and a
 * 0.8 % star (a = 0.002, eccentricity e), started and run to t = 0.25;
 * with evol, stellar evolution attached then (1.2 and 0.8 Msun stars, a
 * solar radius 1/rstar length units, a Myr per time unit). */
static sim *cluster(double e, int evol, double rstar)
{
    deck d;
    const double pair[5] = {0.012, 0.008, 0.002, e, 0.3};
    char err[512];
    sim *s = cluster128_start(&d, 0, pair);
    if (!s) return NULL;
    if (evol) {
        evol_options eo = {.z = 0.02, .epoch0 = 0.0, .tstar = 1.0, .munit = 100.0, .vstar = 1.0,
                           .rstar = rstar, .kicks = evol_kicks_default(0), .seed = 1};
        if (evol_open(s, &eo, err, sizeof err)) {
            printf("# evol_open: %s\n", err);
            run_end(s);
            return NULL;
        }
    }
    return s;
}

/* The physical bodies' total momentum and mass at s->time. */
static void momentum(sim *s, double p[3], double *mass)
{
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    vec3 *xo = malloc(sizeof(vec3) * s->cap), *vo = malloc(sizeof(vec3) * s->cap);
    double *m = malloc(sizeof(double) * s->cap), mutual;
    sim_predict_all(s, x, v);
    ks_physical_state(s, (const double(*)[3])x, (const double(*)[3])v, m, xo, vo, &mutual);
    p[0] = p[1] = p[2] = 0.0;
    *mass = 0.0;
    for (int i = 0; i < s->n; i++) {
        *mass += m[i];
        for (int c = 0; c < 3; c++) p[c] += m[i] * vo[i][c];
    }
    free(x);
    free(v);
    free(xo);
    free(vo);
    free(m);
}

static void table(void)
{
    /* BSE's rules (Hurley, Tout & Pols 2002, section 2.7 and its table of
     * merger products): MS + MS -> MS; MS + He MS -> core He burning; MS +
     * He WD -> first giant branch; MS + CO WD -> TPAGB; He MS + He MS ->
     * MS (kept a He star by the mixing); He WD + He WD -> nothing; CO + CO
     * WD -> ONe WD; NS + NS -> BH; MS + NS -> NS; MS + BH -> BH; anything
     * with a giant -> common envelope (+100), MS + GB leaving a GB star */
    static const int want[][3] = {{0, 0, 1},   {1, 0, 1},   {1, 7, 4},    {0, 10, 3},  {1, 11, 6},
                                  {1, 12, 6},  {7, 7, 1},   {10, 10, 15}, {11, 11, 12}, {13, 13, 14},
                                  {1, 13, 13}, {1, 14, 14}, {0, 3, 103},  {1, 2, 102}, {7, 10, 7},
                                  {10, 11, 9}, {13, 14, 14}, {3, 13, 113}};
    int bad = 0;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int got = sse_collision_type(want[k][0], want[k][1]);
        if (got != want[k][2]) {
            printf("# table: %d + %d -> %d, want %d\n", want[k][0], want[k][1], got, want[k][2]);
            bad++;
        }
    }
    CHECK(bad == 0, "table: the products of %zu pairs of types are BSE's", sizeof want / sizeof want[0]);
    int asym = 0;
    for (int i = 0; i < 15; i++)
        for (int j = 0; j < 15; j++) asym += sse_collision_type(i, j) != sse_collision_type(j, i);
    CHECK(asym == 0 && sse_collision_type(15, 0) == -1, "table: symmetric, types 0..14 only");

    sse_consts c;
    sse_zcnsts(&c, 0.02);
    sse_star a, b, p;
    double dm;
    sse_init(&c, &a, 1.2, 100.0, 0.0);
    sse_init(&c, &b, 0.8, 100.0, 0.0);
    int first = sse_merge(&c, &a, &b, 100.0, &p, &dm);
    CHECK(first == 1 && p.kw == SSE_MS && fabs(p.mass - 2.0) < 1e-12 && dm < 1e-12 && p.tnext > 100.0 &&
              p.rad > 0.0 && 100.0 - p.epoch < 0.1 * 100.0 + 1e-9,
          "products: 1.2 + 0.8 Msun MS stars make a 2 Msun MS star, mixed and young (%d, %.6f Msun, "
          "age %.3g Myr)", p.kw, p.mass, 100.0 - p.epoch);
    /* a neutron star swallowing a MS star: the envelope is thrown off */
    sse_star ns = a;
    ns.kw = SSE_NS;
    ns.mass = ns.m0 = ns.mc = 1.3;
    first = sse_merge(&c, &b, &ns, 100.0, &p, &dm);
    CHECK(first == 0 && p.kw == SSE_NS && fabs(p.mass - 1.3) < 1e-12 && fabs(dm - 0.8) < 1e-12,
          "products: a NS and a MS star leave the NS, the star's 0.8 Msun thrown off (%d, %.3f, %.3f)",
          p.kw, p.mass, dm);
    sse_star w1 = a, w2 = a;
    w1.kw = w2.kw = SSE_HEWD;
    w1.mass = w1.m0 = w1.mc = 0.3;
    w2.mass = w2.m0 = w2.mc = 0.25;
    sse_merge(&c, &w1, &w2, 100.0, &p, &dm);
    CHECK(p.kw == SSE_MASSLESS && p.mass == 0.0 && fabs(dm - 0.55) < 1e-12,
          "products: two He white dwarfs leave nothing (%d, %.3f thrown off)", p.kw, dm);
}

/* The cluster with its hard pair regularised, checked; NULL (and the
 * check failed) when it is not. */
static sim *hard_pair_cluster(const char *what)
{
    sim *s = cluster(0.3, 0, 1.0);
    CHECK(s && s->npairs >= 1, "%s: the hard pair is regularised", what);
    if (!s || s->npairs < 1) {
        if (s) run_end(s);
        return NULL;
    }
    return s;
}

/* A hard pair's two stars merged by hand: one body, momentum, energy. */
static void by_hand(void)
{
    sim *s = hard_pair_cluster("by hand");
    if (!s) return;
    char err[512];
    int partner, n0 = s->n;
    int i = ks_star_isolate(s, 21, &partner, err, sizeof err);
    int j = ks_slot_of_star(s, 22);
    double p0[3], m0, p1[3], m1;
    momentum(s, p0, &m0);
    double e0 = checks_energy(s), de = 0.0, mi = i >= 0 ? s->m[i] : 0.0, mj = j >= 0 ? s->m[j] : 0.0;
    int k = i >= 0 && j >= 0 ? ks_star_merge(s, i, j, mi + mj, NULL, &de, err, sizeof err) : -1;
    newpoly_send(s, 0, NULL);
    block_reschedule(s->bs);
    double e1 = checks_energy(s);
    momentum(s, p1, &m1);
    CHECK(k >= 0 && s->n == n0 - 1 && ks_slot_of_star(s, 22) < 0 && ks_slot_of_star(s, 21) == k &&
              s->m[k] == mi + mj,
          "by hand: one body of %.4f is left, the other gone%s%s", mi + mj, k >= 0 ? "" : ": ",
          k >= 0 ? "" : err);
    double dp = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                     (p1[2] - p0[2]) * (p1[2] - p0[2]));
    printf("# by hand: momentum change %.2e (of m v ~ %.2e), mass %.17g -> %.17g\n", dp, mi * 0.5, m0, m1);
    CHECK(dp < 1e-15 && fabs(m1 - m0) < 1e-15, "by hand: momentum and mass kept to rounding (%.2e)", dp);
    printf("# by hand: dE %.6e, measured jump %.6e, difference %.2e of |E|\n", de, e1 - e0,
           fabs(e1 - e0 - de) / fabs(e0));
    CHECK(fabs(e1 - e0 - de) < 1e-13 * fabs(e0) && fabs(de) > 1e-6 * fabs(e0),
          "by hand: the merge's energy is the measured total's change (%.2e of |E|)",
          fabs(e1 - e0 - de) / fabs(e0));
    double e2 = NAN;
    if (run_advance(s, 1.25, err, sizeof err) == 0) e2 = checks_energy(s);
    CHECK(isfinite(e2) && fabs(e2 - e1) < 1e-5 * fabs(e1), "by hand: the run goes on (dE/E %.2e)",
          fabs(e2 - e1) / fabs(e1));
    run_end(s);
}

/* The lines of f (from the start) that begin an event "what". */
static int event_lines(FILE *f, const char *what)
{
    char line[512], w[32];
    int n = 0;
    rewind(f);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %*s %31s", w) == 1 && !strcmp(w, what)) n++;
    return n;
}

/* Through the run: the pair with eccentricity e, radii of 1/rstar; forced:
 * the collision is fast and deep enough for mix.f's enforced mass loss
 * (0.3 of the lighter star thrown off). */
static void in_run(double e, int touch, int forced)
{
    const char *what = !touch ? "wide pericentre" : forced ? "touching pair, fast and deep" : "touching pair";
    /* ZAMS radii 1.2 and 0.8 Msun: R1 + R2 = 1.9 Rsun / rstar = 4.75e-4;
     * pericentre 2e-4 (e = 0.9: below half the sum, and mu v^2 = 0.9
     * against the lighter star's m^2 / R = 0.34), 4e-4 (e = 0.8: touching,
     * not deep) or 1.4e-3 (e = 0.3) */
    const double rstar = 4000.0;
    sim *s = cluster(e, 1, rstar), *twin = cluster(e, 0, rstar);
    CHECK(s && twin && s->evol, "%s: clusters started", what);
    if (!s || !twin || !s->evol) return;
    evol_state *ev = s->evol;
    FILE *events = tmpfile();
    ev->events = events;
    char err[512];
    const int n0 = s->n;
    const double e1 = checks_energy(s), t1 = checks_energy(twin);
    const double m21 = ev->st[20].mass, m22 = ev->st[21].mass;
    double p0[3], mm0;
    momentum(s, p0, &mm0);
    int ok = run_advance(s, 1.25, err, sizeof err) == 0 && run_advance(twin, 1.25, err, sizeof err) == 0;
    const double e2 = checks_energy(s), t2 = checks_energy(twin);
    int64_t by_type[16];
    double mstars;
    evol_census(s, by_type, &mstars);
    const int nlines = events ? event_lines(events, "merge") : -1;
    printf("# %s: %lld collisions (%lld in KS pairs), n %d -> %d, events %d, escaped %d, removed %lld\n",
           what, (long long)ev->coll.n, (long long)ev->coll.where[KS_COLL_PAIR], n0, s->n, nlines,
           s->n_escaped, (long long)ev->cnt.removed);
    const double mprod = m21 + m22 - (forced ? 0.3 * fmin(m21, m22) : 0.0);
    if (touch) {
        const int keep = ks_slot_of_star(s, 21) >= 0 ? 21 : 22, lost = keep == 21 ? 22 : 21;
        CHECK(ok && ev->coll.n == 1 && s->n == n0 - 1 && ks_slot_of_star(s, lost) < 0 && ev->gone[lost - 1] &&
                  !ev->gone[keep - 1],
              "%s: the two stars merged once into star %d", what, keep);
        CHECK(fabs(ev->st[keep - 1].mass - mprod) < 1e-9 && ev->st[keep - 1].kw == SSE_MS &&
                  fabs(s->m[ks_slot_of_star(s, keep) >= 0 ? ks_slot_of_star(s, keep) : 0] * 100.0 - mprod) < 1e-9,
              "%s: the product is a MS star of %.6f Msun (expected %.6f of the two masses %.6f), also in the "
              "dynamics", what, ev->st[keep - 1].mass, mprod, m21 + m22);
        CHECK(s->n_escaped == 0 && ev->cnt.removed == 0 && nlines == 1 && ev->mdyn[lost - 1] == 0.0,
              "%s: nothing counted twice (escaped %d, removed %lld, %d merge lines)", what, s->n_escaped,
              (long long)ev->cnt.removed, nlines);
    } else {
        CHECK(ok && ev->coll.n == 0 && s->n == n0 && nlines == 0 && ks_slot_of_star(s, 21) >= 0 &&
                  ks_slot_of_star(s, 22) >= 0,
              "%s: the stars pass each other (%lld collisions)", what, (long long)ev->coll.n);
    }
    CHECK(fabs(mstars - s->mtot * 100.0) < 1e-9 * mstars &&
              fabs(mstars / 100.0 - (mm0 - (m21 + m22 - mprod) / 100.0)) < 1e-4 * mm0,
          "%s: the stars' mass is the dynamics' (%.12f against %.12f Msun)", what, mstars, s->mtot * 100.0);
    double drift = fabs(e2 - e1) / fabs(e1), twin_drift = fabs(t2 - t1) / fabs(t1);
    printf("# %s: t = 0.25 -> 1.25: dE/E %.2e with %.3e booked (twin without stellar evolution %.2e)\n", what,
           drift, ev->booked, twin_drift);
    CHECK(isfinite(e2) && drift < fmax(3.0 * twin_drift, 2e-7),
          "%s: energy conserved with the booking as in the twin (%.2e against %.2e)", what, drift, twin_drift);
    ev->events = NULL;
    if (events) fclose(events);
    run_end(s);
    run_end(twin);
}

/* n bodies (c.m. frame) and 8 light field bodies on a ring (as
 * test_ks_chain and test_ks_merge run them), KZ(15) = KZ(30) = chain,
 * stellar evolution attached with the first nr stars' radii set to r (the
 * rest, and products, a millionth of their solar radii; a
 * mass unit of 40 Msun, a microyear per time unit: no star evolves). */
static sim *small_system(int n, double *m, double (*x)[3], double (*v)[3], int chain, int nr, double r)
{
    n = add_field_ring(n, 8, m, x, v);
    deck d;
    deck_defaults(&d, n);
    d.rs0 = 100.0;
    d.etai = 0.005;
    d.etar = 0.01;
    d.etau = 0.1;
    d.rmin = 0.01;
    d.dtmin = 1e-3;
    d.eclose = 1.0;
    d.smax = 0.125;
    d.kz[16] = 0;
    d.kz[15] = chain;
    d.kz[30] = chain;
    run_options ro = quiet_cpu_options();
    char err[512];
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &ro, NULL, err, sizeof err);
    if (!s) {
        printf("# run_start: %s\n", err);
        return NULL;
    }
    s->p.fixed_radius = 1;
    evol_options eo = {.z = 0.02, .epoch0 = 0.0, .tstar = 1e-6, .munit = 40.0, .vstar = 1.0,
                       .rstar = 1e6, .kicks = evol_kicks_default(0), .seed = 1};
    if (evol_open(s, &eo, err, sizeof err)) {
        printf("# evol_open: %s\n", err);
        run_end(s);
        return NULL;
    }
    for (int k = 0; k < nr; k++) s->evol->radius[k] = r;
    return s;
}

/* A hard binary met by a single (test_ks_chain's resonant encounter):
 * with radii that the binary's own pericentre does not reach, two members
 * touch inside the chain. */
static void in_chain(void)
{
    double m[3 + 8], x[3 + 8][3], v[3 + 8][3], xc[3] = {0, 0, 0};
    kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, xc, m, x, v);
    m[2] = 0.25;
    x[2][0] = 0.0005;
    x[2][1] = 0.08;
    x[2][2] = 0.0;
    v[2][0] = 0.0;
    v[2][1] = -1.2;
    v[2][2] = 0.05;
    const double r = getenv("COLLIDE_CHAIN_R") ? atof(getenv("COLLIDE_CHAIN_R")) : 3e-4;
    sim *s = small_system(3, m, x, v, 1, 3, r);
    CHECK(s != NULL, "chain: started");
    if (!s) return;
    char err[512];
    const double e0 = checks_energy(s);
    const int n0 = s->n;
    double eprev = e0, jump = 0.0;
    int ok = 1;
    for (int q = 1; q <= 40 && ok; q++) {
        ok = run_advance(s, q / 40.0, err, sizeof err) == 0;
        const double e = checks_energy(s);
        jump = fmax(jump, fabs(e - eprev) / fabs(e0));
        eprev = e;
    }
    const evol_state *ev = s->evol;
    printf("# chain: %lld chains started; collisions %lld (KS %lld, chain %lld), n %d -> %d, largest dE/E "
           "over 1/40 %.2e, booked %.4e\n", (long long)s->ks->ch.started, (long long)ev->coll.n,
           (long long)ev->coll.where[KS_COLL_PAIR], (long long)ev->coll.where[KS_COLL_CHAIN], n0, s->n, jump,
           ev->booked);
    CHECK(ok && s->ks->ch.started >= 1 && ev->coll.where[KS_COLL_CHAIN] == 1 && ev->coll.n == 1 &&
              s->n == n0 - 1,
          "chain: two members touch inside the chain and merge, once (%lld)", (long long)ev->coll.n);
    CHECK(ok && jump < 1e-6 && fabs(ev->booked) > 1e-3 * fabs(e0),
          "chain: the energy stays continuous with the collision booked (largest dE/E %.2e, booked %.2e of "
          "|E|)", jump, fabs(ev->booked) / fabs(e0));
    run_end(s);
}

/* A stable triple merged into one KS pair (test_ks_merge's): its frozen
 * inner orbit (pericentre 0.0018) touches once the inner stars' radii
 * grow to 0.001; the hierarchy splits and the two merge; the outer star
 * stays. */
static void in_hierarchy(void)
{
    double m[3 + 8], x[3 + 8][3], v[3 + 8][3], o[3] = {0, 0, 0}, mo[2], xo[2][3], vo[2][3];
    kepler_binary(0.8, 0.2, 0.02, 0.2, M_PI / 6.0, o, o, mo, xo, vo);
    kepler_binary(0.4, 0.4, 0.002, 0.1, 0.0, xo[0], vo[0], m, x, v);
    m[2] = 0.2;
    memcpy(x[2], xo[1], sizeof x[2]);
    memcpy(v[2], vo[1], sizeof v[2]);
    sim *s = small_system(3, m, x, v, 1, 3, 1e-5);
    CHECK(s != NULL, "hierarchy: started");
    if (!s) return;
    char err[512];
    int ok = run_advance(s, 0.01, err, sizeof err) == 0;
    const int merged = s->ks->nmerge, n0 = s->n;
    const double e0 = checks_energy(s);
    ks_collide_mergers(s); /* radii as they are: nothing */
    const ks_coll *pend;
    const int none = ks_collisions_pending(s, &pend) == 0;
    /* inner pericentre 0.0018; the collision distance of two equal stars
     * is 1.7 R (Kochanek, NBODY6's ksint.f), not the sum of the radii:
     * radii of 0.001 (sum 0.002) do not collide, 0.0012 (1.7 R = 0.00204) do */
    s->evol->radius[0] = s->evol->radius[1] = 0.001;
    ks_collide_mergers(s);
    const int apart = ks_collisions_pending(s, &pend) == 0;
    CHECK(apart, "hierarchy: within the sum of the radii but beyond 1.7 R: no collision");
    s->evol->radius[0] = s->evol->radius[1] = 0.0012;
    ks_collide_mergers(s); /* as after the stars' updates */
    ok = ok && run_advance(s, 0.02, err, sizeof err) == 0;
    const double e1 = checks_energy(s);
    const evol_state *ev = s->evol;
    printf("# hierarchy: merged %d; collisions %lld (merged hierarchy %lld), n %d -> %d, dE/E %.2e, booked "
           "%.4e\n", merged, (long long)ev->coll.n, (long long)ev->coll.where[KS_COLL_MERGED], n0, s->n,
           (e1 - e0) / fabs(e0), ev->booked);
    CHECK(ok && merged == 1 && none, "hierarchy: the triple is merged, its inner stars apart");
    CHECK(ev->coll.where[KS_COLL_MERGED] == 1 && ev->coll.n == 1 && s->n == n0 - 1 &&
              ks_slot_of_star(s, 3) >= 0 && !ev->gone[2],
          "hierarchy: the inner stars merge once grown, the outer star stays (%lld)", (long long)ev->coll.n);
    CHECK(fabs(e1 - e0) < 1e-6 * fabs(e0) && fabs(ev->booked) > 0.1 * fabs(e0),
          "hierarchy: the energy stays continuous with the collision booked (dE/E %.2e, booked %.2e of |E|)",
          (e1 - e0) / fabs(e0), fabs(ev->booked) / fabs(e0));
    run_end(s);
}

/* Collisions found but not merged yet, and the counts, go through the
 * checkpoint section SEVO. */
static void checkpointed(void)
{
    double m[3 + 8], x[3 + 8][3], v[3 + 8][3], xc[3] = {0, 0, 0};
    kepler_binary(0.25, 0.25, 0.002, 0.3, 0.0, xc, xc, m, x, v);
    m[2] = 0.25;
    x[2][0] = 0.5;
    x[2][1] = x[2][2] = v[2][0] = v[2][1] = v[2][2] = 0.0;
    sim *s = small_system(3, m, x, v, 0, 0, 0.0);
    CHECK(s != NULL, "checkpoint: started");
    if (!s) return;
    const ks_coll want[2] = {{1, 2, 1.5e-4, KS_COLL_PAIR}, {3, 5, 2.5e-4, KS_COLL_CHAIN}};
    ks_collisions_restore(s, want, 2);
    s->evol->coll.n = 7;
    s->evol->coll.where[KS_COLL_CHAIN] = 3;
    s->evol->coll.dm = 0.25;
    s->evol->ce = (evol_ce_counts){.n = 5, .binaries = 3, .coalesced = 1, .touched = 1, .dm = 1.5};
    wbuf w = {0};
    evol_save(&w, s);
    ks_collisions_restore(s, NULL, 0);
    memset(&s->evol->coll, 0, sizeof s->evol->coll);
    memset(&s->evol->ce, 0, sizeof s->evol->ce);
    rbuf r = {w.p, w.len, 0, 0};
    const int rc = evol_load(&r, s);
    const ks_coll *got;
    const int n = ks_collisions_pending(s, &got);
    int same = rc == 0 && n == 2;
    for (int k = 0; same && k < 2; k++)
        same = got[k].name1 == want[k].name1 && got[k].name2 == want[k].name2 && got[k].q == want[k].q &&
               got[k].where == want[k].where;
    CHECK(same && s->evol->coll.n == 7 && s->evol->coll.where[KS_COLL_CHAIN] == 3 && s->evol->coll.dm == 0.25,
          "checkpoint: the collisions waiting and the counts come back from SEVO (%d waiting)", n);
    const evol_ce_counts *ce = &s->evol->ce;
    CHECK(ce->n == 5 && ce->binaries == 3 && ce->coalesced == 1 && ce->touched == 1 && ce->dm == 1.5,
          "checkpoint: the common envelopes' counts come back from SEVO (version 3)");
    free(w.p);
    run_end(s);
}

/* A giant in the hard pair (star 21 made a 1.2 Msun first-giant-branch
 * star of radius rg Rsun; the pair's pericentre 5.6 Rsun): each passage
 * inside the collision distance is a common envelope.  audit: with the
 * exact energy audit (each event's booking against the measured jump). */
static void ce_run(double rg, int audit)
{
    char what[64];
    snprintf(what, sizeof what, "giant R = %g Rsun%s", rg, audit ? ", audited" : "");
    const double rstar = 4000.0;
    sim *s = cluster(0.3, 1, rstar), *twin = cluster(0.3, 0, rstar);
    CHECK(s && twin && s->evol, "%s: clusters started", what);
    if (!s || !twin || !s->evol) return;
    evol_state *ev = s->evol;
    s->led.exact = audit;
    /* a GB star of 1.2 Msun whose radius is rg: its age found by bisection
     * on the no-wind track between the BGB and He ignition */
    sse_tscales ts;
    sse_tscales_of(&ev->c, SSE_MS, 1.2, 1.2, &ts);
    double lo = ts.t[1], hi = ts.t[2];
    sse_hr hr;
    for (int it = 0; it < 60; it++) {
        const double mid = 0.5 * (lo + hi);
        sse_state(&ev->c, SSE_MS, 1.2, 1.2, mid, &hr);
        if (hr.rad < rg) lo = mid; else hi = mid;
    }
    sse_state(&ev->c, SSE_MS, 1.2, 1.2, lo, &hr);
    sse_star *g = &ev->st[20];
    const double T = s->time * ev->o.tstar;
    g->kw = hr.kw;
    g->m0 = hr.m0;
    g->mass = hr.mt;
    g->mc = hr.mc;
    g->lum = hr.lum;
    g->rad = hr.rad;
    g->rc = hr.rc;
    g->menv = hr.menv;
    g->renv = hr.renv;
    g->k2 = hr.k2;
    g->epoch = T - hr.age;
    g->tlast = T;
    g->tnext = T + sse_trdot(&ev->c, g);
    ev->radius[20] = g->rad / rstar;
    ev->tmin = fmin(ev->tmin, g->tnext);
    const double mg0 = g->mass, mc0 = g->mc, m22 = ev->st[21].mass;
    FILE *events = tmpfile();
    ev->events = events;
    char err[512];
    const int n0 = s->n;
    const double e1 = checks_energy(s), t1 = checks_energy(twin);
    int ok = run_advance(s, 1.25, err, sizeof err) == 0 && run_advance(twin, 1.25, err, sizeof err) == 0;
    if (!ok) printf("# %s: %s\n", what, err);
    const double e2 = checks_energy(s), t2 = checks_energy(twin);
    int64_t by_type[16];
    double mstars;
    evol_census(s, by_type, &mstars);
    const int nce = events ? event_lines(events, "ce") : -1, nmerge = events ? event_lines(events, "ce-merge") : -1;
    const int ntouch = events ? event_lines(events, "merge") : -1;
    printf("# %s: type %d, core %.3f of %.3f Msun; %lld common envelopes (%lld binaries, %lld coalesced, %lld "
           "touched), envelope lost %.4f Msun, n %d -> %d; star 21 now type %d, %.4f Msun, star 22 %.4f Msun%s\n",
           what, hr.kw, mc0, mg0, (long long)ev->ce.n, (long long)ev->ce.binaries, (long long)ev->ce.coalesced,
           (long long)ev->ce.touched, ev->ce.dm, n0, s->n, ev->st[20].kw, ev->st[20].mass, ev->st[21].mass,
           ev->gone[21] ? " (gone)" : "");
    CHECK(ok && ev->ce.n >= 1 && nce + nmerge + ntouch == ev->ce.binaries + ev->ce.coalesced + ev->ce.touched &&
              ev->ce.dm > 0.0,
          "%s: the giant's contact is a common envelope (%lld events; %d ce, %d ce-merge, %d merge lines) that "
          "throws off envelope", what, (long long)ev->ce.n, nce, nmerge, ntouch);
    /* the dynamics' masses of the two and what it lost (winds under 1e-4
     * of a star's mass wait in the star's state) */
    double mdyn = 0.0;
    for (int k = 0; k < ev->nstar; k++) mdyn += ev->gone[k] ? 0.0 : ev->mdyn[k];
    const double lost = mg0 + m22 - ev->mdyn[20] - ev->mdyn[21];
    CHECK(lost > 0.0 && fabs(lost - ev->cnt.dm) < 1e-9 && ev->ce.dm <= lost + 1e-3 && s->n == n0 - (int)ev->coll.n,
          "%s: the pair lost %.4f Msun to the cluster (booked %.4f: envelope %.4f, collisions %.4f, winds), "
          "%lld star(s) gone", what, lost, ev->cnt.dm, ev->ce.dm, ev->coll.dm, (long long)ev->coll.n);
    CHECK(fabs(mdyn - s->mtot * 100.0) < 1e-9 * mdyn && fabs(mstars - mdyn) < 1e-4 * mdyn,
          "%s: the dynamics carries the stars' masses (%.12f against %.12f Msun; states %.12f)", what, mdyn,
          s->mtot * 100.0, mstars);
    double drift = fabs(e2 - e1) / fabs(e1), twin_drift = fabs(t2 - t1) / fabs(t1);
    printf("# %s: t = 0.25 -> 1.25: dE/E %.2e with %.3e booked (twin without stellar evolution %.2e), audit "
           "%.2e\n", what, drift, ev->booked, twin_drift, ev->audit_max);
    CHECK(isfinite(e2) && drift < fmax(3.0 * twin_drift, 2e-7),
          "%s: energy conserved with the booking as in the twin (%.2e against %.2e)", what, drift, twin_drift);
    if (audit)
        CHECK(ev->audit_max < 1e-12 * fabs(e1), "%s: each event's booked energy is the measured jump (%.2e of "
              "|E|)", what, ev->audit_max / fabs(e1));
    ev->events = NULL;
    if (events) fclose(events);
    run_end(s);
    run_end(twin);
}

/* ks_star_reshape by hand (a common envelope's dynamics): the hard pair's
 * stars take new masses and a tighter orbit about their c.m.; every body
 * that lists neither feels exactly the changed pulls from then on (its
 * polynomial corrected, not restarted: to rounding), the booked energy is
 * the measured total's jump, and the run goes on. */
static void reshape_by_hand(void)
{
    sim *s = hard_pair_cluster("reshape");
    if (!s) return;
    char err[512];
    int partner;
    int i = ks_star_isolate(s, 21, &partner, err, sizeof err), j = ks_slot_of_star(s, 22);
    const double t = s->time;
    vec3 *x = malloc(sizeof(vec3) * s->cap), *v = malloc(sizeof(vec3) * s->cap);
    vec3 *a0 = malloc(sizeof(vec3) * s->cap);
    sim_predict_all(s, x, v);
    for (int k = s->ifirst; k < s->ntot; k++)
        for (int c = 0; c < 3; c++) a0[k][c] = s->a[k][c] + s->j[k][c] * (t - s->t0[k]);
    const double mi = i >= 0 ? s->m[i] : 0.0, mj = j >= 0 ? s->m[j] : 0.0;
    /* the new pair: 0.6 of i's mass, half the separation, circular speed */
    const double m[2] = {0.6 * mi, mj}, Mn = m[0] + m[1];
    double X[3], V[3], d[3], xn[2][3], vn[2][3];
    for (int c = 0; c < 3; c++) {
        X[c] = (mi * x[i][c] + mj * x[j][c]) / (mi + mj);
        V[c] = (mi * v[i][c] + mj * v[j][c]) / (mi + mj);
        d[c] = 0.5 * (x[i][c] - x[j][c]);
    }
    const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), vc = sqrt(Mn / r);
    const double u[3] = {-d[1] / sqrt(d[0] * d[0] + d[1] * d[1]), d[0] / sqrt(d[0] * d[0] + d[1] * d[1]), 0.0};
    for (int c = 0; c < 3; c++) {
        xn[0][c] = X[c] + m[1] / Mn * d[c];
        xn[1][c] = X[c] - m[0] / Mn * d[c];
        vn[0][c] = V[c] + m[1] / Mn * vc * u[c];
        vn[1][c] = V[c] - m[0] / Mn * vc * u[c];
    }
    unsigned char *restarted = calloc((size_t)s->cap, 1);
    for (int k = s->ifirst; k < s->ntot; k++) restarted[k] = ks_listed(s, k, i) || ks_listed(s, k, j);
    const double e0 = checks_energy(s);
    double de = 0.0;
    int ok = i >= 0 && j >= 0 && partner == 22 &&
             ks_star_reshape(s, i, j, m, (const double(*)[3])xn, (const double(*)[3])vn, &de, err, sizeof err) == 0;
    double worst = 0.0;
    int nchecked = 0;
    for (int k = s->ifirst; ok && k < s->ntot; k++) {
        if (k == i || k == j || restarted[k] || !(s->m[k] > 0.0)) continue;
        double num = 0.0, den = 0.0;
        for (int c = 0; c < 3; c++) {
            double dap = 0.0;
            const double *ys[4] = {xn[0], xn[1], x[i], x[j]};
            const double ms[4] = {m[0], m[1], -mi, -mj};
            for (int q = 0; q < 4; q++) {
                double dd[3] = {ys[q][0] - x[k][0], ys[q][1] - x[k][1], ys[q][2] - x[k][2]};
                double rr = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
                dap += ms[q] * dd[c] / (rr * rr * rr);
            }
            const double da = s->a[k][c] + s->j[k][c] * (t - s->t0[k]) - a0[k][c];
            num += (da - dap) * (da - dap);
            den += dap * dap;
        }
        worst = fmax(worst, sqrt(num / den));
        nchecked++;
    }
    free(x);
    free(v);
    free(a0);
    free(restarted);
    CHECK(ok && nchecked > 50 && worst < 1e-8, "reshape: %d bodies' force at t changed by the pair's changed "
          "pulls (worst %.2e of it)%s%s", nchecked, worst, ok ? "" : ": ", ok ? "" : err);
    int formed = ok ? ks_star_pair(s, 21, 22, err, sizeof err) : -1;
    block_reschedule(s->bs);
    const double e1 = checks_energy(s);
    printf("# reshape: dE booked %.6e, measured jump %.6e, difference %.2e of |E|\n", de, e1 - e0,
           fabs(e1 - e0 - de) / fabs(e0));
    CHECK(formed == 1 && fabs(e1 - e0 - de) < 1e-12 * fabs(e0) && fabs(de) > 1e-6 * fabs(e0),
          "reshape: the pair forms again, the booked energy is the measured jump (%.2e of |E|)",
          fabs(e1 - e0 - de) / fabs(e0));
    double e2 = NAN;
    if (run_advance(s, 1.25, err, sizeof err) == 0) e2 = checks_energy(s);
    CHECK(isfinite(e2) && fabs(e2 - e1) < 1e-5 * fabs(e1), "reshape: the run goes on (dE/E %.2e)",
          fabs(e2 - e1) / fabs(e1));
    run_end(s);
}

int main(void)
{
    table();
    by_hand();
    reshape_by_hand();
    in_run(0.9, 1, 1);
    in_run(0.8, 1, 0);
    in_run(0.3, 0, 0);
    in_chain();
    in_hierarchy();
    ce_run(5.0, 0);
    ce_run(5.0, 1);
    ce_run(20.0, 1);
    checkpointed();
    return check_done();
}
