/* test_team.c — the OpenMP team's load estimator (src/app/team.c) fed with
 * figures, never the live machine: /proc/stat texts parsed with and without
 * a CPU mask; made-up machines (an idle 32-core machine whose spinning team
 * and GPU host threads are all its load, with steal time and bursts of
 * kernel work; a 2-core machine beside a neighbour that comes and goes;
 * tick-rounding noise); and recordings of real runs (tests/data/team/,
 * made by scripts/team-record), each with what the team must do there; the
 * run's mean load between two samples. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "app/team.h"

#ifndef TEAM_DATA
#define TEAM_DATA "tests/data/team"
#endif

/* ------------------------------------------------------------ parsing */

static void test_parse(void)
{
    const char *text = "cpu  900 0 100 5000 0 0 0 50 0 0\n"
                       "cpu0 100 0 50 2000 10 7 3 20 0 0\n"
                       "cpu1 300 10 40 1000 0 0 0 30 0 0\n"
                       "cpu2 garbage\n"
                       "intr 12345\n"
                       "cpu3 500 0 10 2000 0 0 0 0 0 0\n";
    double busy = -1, steal = -1;
    int rc = team_parse_stat(text, NULL, 100, &busy, &steal);
    CHECK(rc == 0 && fabs(busy - 10.10) < 1e-12 && fabs(steal - 0.50) < 1e-12,
          "parse: all CPUs: busy %.2f s (user + nice + system, 10.10), steal %.2f s (0.50)", busy, steal);
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(1, &m);
    CPU_SET(2, &m);
    rc = team_parse_stat(text, &m, 100, &busy, &steal);
    CHECK(rc == 0 && fabs(busy - 3.50) < 1e-12 && fabs(steal - 0.30) < 1e-12,
          "parse: CPUs 1 and 2 (2 unreadable): busy %.2f s (3.50), steal %.2f s (0.30)", busy, steal);
    CHECK(team_parse_stat("cpu  1 2 3 4 5 6 7 8\nintr 1\n", NULL, 100, &busy, &steal) == -1,
          "parse: no per-CPU line is an error");
}

/* ------------------------------------------------- made-up machines */

/* A machine of `cores` CPUs sampled every 0.25 s: the caller says what
 * this process and the others used in each interval (cores). */
typedef struct machine {
    team_sample s;
} machine;

static int step(team *t, machine *mc, double own_cores, double other_cores, double steal_cores)
{
    const double dt = TEAM_INTERVAL_S;
    mc->s.wall += dt;
    mc->s.own += own_cores * dt;
    mc->s.busy += (own_cores + other_cores) * dt;
    mc->s.steal += steal_cores * dt;
    return team_feed(t, &mc->s);
}

static void test_default_sizes(void)
{
    static const int c[][3] = {{1, 0, 1}, {2, 0, 2}, {16, 0, 16}, {16, 1, 15}, {16, 3, 13}, {32, 0, 30},
                               {32, 1, 30}, {32, 3, 25}, {64, 0, 48}, {64, 1, 48}, {64, 3, 48},
                               {64, 7, 33}, {128, 7, 72}, {2, 3, 1}};
    int bad = 0;
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        if (team_default_size(c[k][0], c[k][1]) != c[k][2]) {
            bad++;
            printf("# %d cores, %d host threads: team %d, expected %d\n", c[k][0], c[k][1],
                   team_default_size(c[k][0], c[k][1]), c[k][2]);
        }
    CHECK(bad == 0, "default team: all 2 and 16 cores, 30 of 32, 48 of 64 with one to four GPUs, a "
          "core for each extra GPU's host thread beyond that, on 32 cores or more a sixteenth more for "
          "each beyond the first (%d wrong)", bad);
}

static void test_idle_big_machine(void)
{
    /* 32 cores, the default team of 30 spinning, a second GPU's host thread
     * busy half the time (own CPU 30.5 cores), steal of a whole core, and
     * every 3 s a quarter-second burst of 0.8 core of kernel work */
    team t;
    team_init(&t, 32, team_default_size(32, 1), 1);
    machine mc = {{0}};
    int changes = 0;
    for (int k = 0; k < 4000; k++)
        changes += step(&t, &mc, 30.5, k % 12 == 0 ? 0.8 : 0.0, 1.0);
    CHECK(team_default_size(32, 1) == 30 && changes == 0 && t.now == 30,
          "idle 32-core machine, 2 GPUs: default team %d (30), %d changes in 1000 s (0), steal %.2f "
          "cores seen", team_default_size(32, 1), changes, t.steal);
    /* the same with a user team of all 32 cores: its own threads are not
     * neighbours either */
    team_init(&t, 32, 32, 1);
    memset(&mc, 0, sizeof mc);
    changes = 0;
    for (int k = 0; k < 4000; k++) changes += step(&t, &mc, 32.0 - (k % 7 == 0), k % 12 == 0 ? 0.8 : 0.0, 1.0);
    CHECK(changes == 0 && t.now == 32, "idle 32-core machine, user team 32: %d changes (0)", changes);
}

static void test_neighbour_comes_and_goes(void)
{
    /* 2 cores, a team of 2 spinning beside a process that gets 2/3 of a
     * core; then the team is 1 and the neighbour has its core; then it
     * leaves */
    team t;
    team_init(&t, 2, team_default_size(2, 0), 1);
    machine mc = {{0}};
    int k, first = -1;
    for (k = 0; k < 40 && first < 0; k++)
        if (step(&t, &mc, 1.33, 0.67, 0.0)) first = k;
    CHECK(first >= 0 && first <= TEAM_WINDOW + TEAM_CONFIRM && t.now == 1 && strstr(t.why, "other processes"),
          "2 cores beside a neighbour at 2/3 of a core: team 1 after %d samples (<= %d): %s", first + 1,
          TEAM_WINDOW + TEAM_CONFIRM + 1, t.why);
    int changes = 0;
    for (k = 0; k < 400; k++) changes += step(&t, &mc, 1.0, 1.0, 0.0);
    CHECK(changes == 0 && t.now == 1, "team 1 stays while the neighbour keeps its core (%d changes)", changes);
    first = -1;
    for (k = 0; k < 40 && first < 0; k++)
        if (step(&t, &mc, 1.0, 0.0, 0.0)) first = k;
    CHECK(first >= 0 && t.now == 2, "the neighbour gone: team 2 again after %d samples", first + 1);
    /* a user team of 16 on 32 cores beside a neighbour of 8 cores: room enough */
    team_init(&t, 32, 16, 1);
    memset(&mc, 0, sizeof mc);
    changes = 0;
    for (k = 0; k < 400; k++) changes += step(&t, &mc, 16.0, 8.0, 0.0);
    CHECK(changes == 0 && t.now == 16, "user team 16 of 32 cores beside 8 busy cores: unchanged (%d changes)",
          changes);
    /* a user team of 32 beside one spinning process: 31 */
    team_init(&t, 32, 32, 1);
    memset(&mc, 0, sizeof mc);
    for (k = 0; k < 40; k++) step(&t, &mc, 31.0, 1.0, 0.0);
    CHECK(t.now == 31, "user team 32 of 32 cores beside one busy process: team %d (31)", t.now);
    /* OMP_DYNAMIC=false: never */
    team_init(&t, 2, 2, 0);
    memset(&mc, 0, sizeof mc);
    changes = 0;
    for (k = 0; k < 40; k++) changes += step(&t, &mc, 1.33, 0.67, 0.0);
    CHECK(changes == 0 && t.now == 2, "a team that must not adapt keeps its size (%d changes)", changes);
}

/* Tick rounding: /proc/stat counts whole ticks per CPU, the process's own
 * time is exact; the busy time of an idle 32-core machine read through
 * per-CPU tick counters must not look like a neighbour. */
static void test_tick_noise(uint64_t seed)
{
    srand((unsigned)seed);
    const int cores = 32, hz = 100;
    team t;
    team_init(&t, cores, cores, 1); /* a team of every core: the most sensitive */
    double ticks[32] = {0}, exact[32] = {0}, own = 0.0, wall = 0.0;
    int changes = 0;
    for (int k = 0; k < 20000; k++) {
        wall += TEAM_INTERVAL_S * (0.9 + 0.4 * rand() / (double)RAND_MAX); /* blocks end when they end */
        double b = 0.0;
        for (int c = 0; c < cores; c++) {
            /* 31 cores' worth of spinning spread over all cores */
            double use = (31.0 / cores) * TEAM_INTERVAL_S;
            exact[c] += use;
            own += use;
            while (ticks[c] + 1.0 / hz <= exact[c] + (rand() / (double)RAND_MAX - 0.5) / hz) ticks[c] += 1.0 / hz;
            b += ticks[c];
        }
        team_sample s = {wall, own, b, 0.0};
        changes += team_feed(&t, &s);
    }
    CHECK(changes == 0, "idle 32 cores, team 32, read through per-CPU tick counters: %d changes in 20000 samples (0)",
          changes);
}

/* ------------------------------------------------------ recordings */

/* Replays a recording: returns the number of changes, the smallest team
 * and the number of samples; -1 when the file cannot be read. */
static int replay(const char *path, int user_max, int host_threads, int *min_team, int *nsamp, int *ncores)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap), line[512];
    double hz = 0, wall = 0, own = 0;
    int have = 0, changes = 0, cores = 0, percpu = 0;
    team t;
    int started = 0;
    *min_team = 1 << 30;
    *nsamp = 0;
    text[0] = '\0';
    for (;;) {
        char *r = fgets(line, sizeof line, f);
        if (!r || strncmp(line, "sample ", 7) == 0) {
            if (have) {
                team_sample s = {wall, own / hz, 0, 0};
                if (team_parse_stat(text, NULL, (long)hz, &s.busy, &s.steal) == 0) {
                    if (!started) {
                        cores = percpu;
                        team_init(&t, cores, user_max > 0 ? user_max : team_default_size(cores, host_threads), 1);
                        started = 1;
                    }
                    changes += team_feed(&t, &s);
                    if (t.now < *min_team) *min_team = t.now;
                    (*nsamp)++;
                }
            }
            if (!r) break;
            double ticks;
            have = sscanf(line + 7, "%lf %lf", &wall, &ticks) == 2;
            own = ticks;
            len = 0;
            text[0] = '\0';
            percpu = 0;
        } else if (strncmp(line, "hz ", 3) == 0) {
            hz = atof(line + 3);
        } else if (strncmp(line, "cpu", 3) == 0) {
            size_t l = strlen(line);
            if (len + l + 1 > cap) text = realloc(text, cap *= 2);
            memcpy(text + len, line, l + 1);
            len += l;
            percpu++;
        }
    }
    fclose(f);
    free(text);
    *ncores = cores;
    return hz > 0 ? changes : -1;
}

static void test_recordings(void)
{
    /* file, user team (0: the default), GPU host threads, changes allowed,
     * the smallest team it must reach (0: none) and may reach */
    static const struct {
        const char *file, *what;
        int user, host, max_changes, must_reach, min_allowed;
    } rec[] = {
        {"dev-2core-busy.txt", "2-core dev machine, 2 threads beside a spinning process", 2, 0, 4, 1, 1},
        {"h200x2-1gpu-idle.txt", "2 x H200 host (32 cores), one GPU, default team, machine idle", 0, 0, 0, 0, 30},
        {"h200x2-2gpu-idle.txt", "2 x H200 host (32 cores), two GPUs, default team, machine idle", 0, 1, 0, 0, 30},
        {"h200x2-1gpu-t32-idle.txt", "2 x H200 host, one GPU, 32 threads, machine idle", 32, 0, 0, 0, 32},
        {"h200x2-1gpu-busy.txt", "2 x H200 host, one GPU, 32 threads beside 4 spinning processes", 32, 0, 3, 28, 27},
    };
    for (size_t k = 0; k < sizeof rec / sizeof rec[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", TEAM_DATA, rec[k].file);
        int min_team, nsamp, cores;
        int changes = replay(path, rec[k].user, rec[k].host, &min_team, &nsamp, &cores);
        if (changes < 0) {
            CHECK(0, "recording %s: cannot read it", path);
            continue;
        }
        int ok = changes <= rec[k].max_changes && min_team >= rec[k].min_allowed &&
                 (rec[k].must_reach == 0 || min_team <= rec[k].must_reach) && nsamp > TEAM_WINDOW + TEAM_CONFIRM;
        CHECK(ok, "recording %s (%s, %d CPUs, %d samples): %d changes (<= %d), smallest team %d "
              "(in %d .. %d)", rec[k].file, rec[k].what, cores, nsamp, changes, rec[k].max_changes, min_team,
              rec[k].min_allowed, rec[k].must_reach ? rec[k].must_reach : cores);
    }
}

/* The run's mean load (summary.json's team_others_cores, team_steal_cores)
 * from its first and last samples. */
static void test_run_load(void)
{
    const team_sample a = {10.0, 3.0, 50.0, 7.0}, b = {12.0, 63.0, 116.0, 8.0};
    double others = -1.0, steal = -1.0;
    int rc = team_load_between(&a, &b, &others, &steal);
    CHECK(rc == 0 && fabs(others - 3.0) < 1e-12 && fabs(steal - 0.5) < 1e-12,
          "run load: 66 busy core-s, 60 of them own, 1 stolen, over 2 s: others %.3f (3), steal %.3f (0.5)",
          others, steal);
    /* ticks rounded: own time a little above the busy time is no one else */
    const team_sample c = {12.0, 63.0, 109.0, 8.0};
    rc = team_load_between(&a, &c, &others, &steal);
    CHECK(rc == 0 && others == 0.0, "run load: own time above busy time gives others %.3f (0)", others);
    CHECK(team_load_between(&a, &a, &others, &steal) == -1, "run load: no time passed is reported");
}

int main(void)
{
    uint64_t seed = check_seed();
    test_parse();
    test_default_sizes();
    test_idle_big_machine();
    test_neighbour_comes_and_goes();
    test_tick_noise(seed);
    test_recordings();
    test_run_load();
    return check_done();
}
