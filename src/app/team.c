/* team.c — the OpenMP team's size: the default, and the decisions that
 * follow other processes' load (team.h says why). */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "app/team.h"

int team_default_size(int cores, int host_threads)
{
    const int unit = cores >= 32 ? cores / 16 : 0;
    /* the reserve, and on a big machine a unit more for each GPU host
     * thread beyond the first (team.h says what was measured) */
    int spare = host_threads > unit ? host_threads : unit;
    if (host_threads > 1) spare += unit * (host_threads - 1);
    /* on 64 cores or more, a quarter of them at least, whatever the GPUs */
    if (cores >= 64 && spare < cores / 4) spare = cores / 4;
    int n = cores - spare;
    return n > 1 ? n : 1;
}

void team_init(team *t, int cores, int max, int adapt)
{
    memset(t, 0, sizeof *t);
    t->cores = cores > 0 ? cores : 1;
    t->max = t->now = t->pending = max > 0 ? max : 1;
    t->adapt = adapt;
}

/* The team the load of the window leaves room for.  Shrinking rounds
 * the free cores (2/3 of a core taken is a core), growing takes only whole
 * free cores: a neighbour whose share moves by a fraction of a core as the
 * team changes does not make it flip. */
static int team_wanted(const team *t)
{
    double free_cores = (double)t->cores - t->others;
    int shrink = (int)floor(free_cores + 0.5), grow = (int)floor(free_cores);
    int want = shrink < t->now ? shrink : grow > t->now ? grow : t->now;
    if (want > t->max) want = t->max;
    return want < 1 ? 1 : want;
}

int team_load_between(const team_sample *a, const team_sample *b, double *others, double *steal)
{
    const double dt = b->wall - a->wall;
    if (!(dt > 0.0)) return -1;
    *others = fmax(0.0, (b->busy - a->busy) - (b->own - a->own)) / dt;
    *steal = fmax(0.0, b->steal - a->steal) / dt;
    return 0;
}

int team_feed(team *t, const team_sample *s)
{
    if (!t->adapt) return 0;
    if (t->nwin == TEAM_WINDOW + 1) {
        memmove(t->win, t->win + 1, TEAM_WINDOW * sizeof t->win[0]);
        t->nwin--;
    }
    t->win[t->nwin++] = *s;
    if (t->nwin < TEAM_WINDOW + 1) return 0;
    if (team_load_between(&t->win[0], s, &t->others, &t->steal) != 0) return 0;
    int want = team_wanted(t);
    if (want != t->pending) {
        t->pending = want;
        t->agree = 1;
    } else if (t->agree < TEAM_CONFIRM) {
        t->agree++;
    }
    if (want == t->now || t->agree < TEAM_CONFIRM) return 0;
    snprintf(t->why, sizeof t->why,
             "OpenMP team %d -> %d: other processes used %.2f of this process's %d cores over the "
             "last %.2f s (steal %.2f)", t->now, want, t->others, t->cores, s->wall - t->win[0].wall,
             t->steal);
    t->now = want;
    return 1;
}

int team_parse_stat(const char *text, const void *mask, long hz, double *busy, double *steal)
{
    const cpu_set_t *set = mask;
    unsigned long long b = 0, st = 0;
    int found = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        int cpu;
        unsigned long long us, ni, sy, id, io, irq, sirq, stl;
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &us, &ni, &sy, &id,
                   &io, &irq, &sirq, &stl) != 9)
            continue;
        if (cpu < 0 || cpu >= CPU_SETSIZE || (set && !CPU_ISSET(cpu, set))) continue;
        b += us + ni + sy;
        st += stl;
        found = 1;
    }
    if (!found || hz <= 0) return -1;
    *busy = (double)b / (double)hz;
    *steal = (double)st / (double)hz;
    return 0;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return -1.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The live sample; -1 when /proc/stat or the clocks cannot be read. */
static int take_sample(team_sample *s)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return -1;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    /* one line per CPU of ~80 bytes: 64 kB holds 512 CPUs and the rest */
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    s->wall = omp_get_wtime();
    s->own = cpu_seconds();
    if (s->own < 0.0) return -1;
    return team_parse_stat(text, &mask, sysconf(_SC_CLK_TCK), &s->busy, &s->steal);
}

static int dynamic_off(void)
{
    const char *e = getenv("OMP_DYNAMIC");
    return e && (strcasecmp(e, "false") == 0 || strcmp(e, "0") == 0);
}

void team_start(team *t)
{
    team_sample s;
    int ok = take_sample(&s) == 0;
    team_init(t, omp_get_num_procs(), omp_get_max_threads(), ok && !dynamic_off());
    t->first = s;
    t->have_first = ok;
    if (t->adapt) team_feed(t, &s);
    t->next = omp_get_wtime() + TEAM_INTERVAL_S;
}

int team_adjust(team *t)
{
    if (!t->adapt) return 0;
    double wall = omp_get_wtime();
    if (wall < t->next) return 0;
    t->next = wall + TEAM_INTERVAL_S;
    team_sample s;
    if (take_sample(&s) != 0) {
        t->adapt = 0;
        return 0;
    }
    if (!team_feed(t, &s)) return 0;
    omp_set_num_threads(t->now);
    return 1;
}

int team_run_load(const team *t, double *others, double *steal)
{
    team_sample s;
    if (!t->have_first || take_sample(&s) != 0) return -1;
    return team_load_between(&t->first, &s, others, steal);
}

void team_describe(const team *t, int user_chose, int host_threads, char *buf, int len)
{
    char size[120];
    if (user_chose)
        snprintf(size, sizeof size, "OpenMP team %d (--threads or OMP_NUM_THREADS) on %d cores",
                 t->max, t->cores);
    else {
        int sys = t->cores - host_threads - t->max;
        snprintf(size, sizeof size, "OpenMP team %d: %d cores less %d kept for the system and %d GPU "
                 "host thread(s)", t->max, t->cores, sys > 0 ? sys : 0, host_threads);
    }
    snprintf(buf, (size_t)len, "%s; %s", size,
             t->adapt ? "smaller while other processes use cores (OMP_DYNAMIC=false keeps it)"
                      : "kept at that size");
}
