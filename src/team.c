/* team.c — the default OpenMP team follows the cores that other processes
 * leave free (team.h says why). */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "team.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return -1.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy time (user, nice, system, irq, softirq, steal) of the CPUs this
 * process may run on, in seconds; -1 when /proc/stat cannot be read. */
static double busy_seconds(void)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return -1.0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1.0;
    char line[512];
    unsigned long long ticks = 0;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        int cpu;
        unsigned long long us, ni, sy, id, io, irq, sirq, st;
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &us, &ni, &sy, &id,
                   &io, &irq, &sirq, &st) != 9)
            continue;
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)) continue;
        ticks += us + ni + sy + irq + sirq + st;
        found = 1;
    }
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return found && hz > 0 ? (double)ticks / (double)hz : -1.0;
}

void team_start(team *t, int user_chose)
{
    memset(t, 0, sizeof *t);
    t->max = t->now = omp_get_max_threads();
    t->wall = omp_get_wtime();
    t->cpu = cpu_seconds();
    t->busy = busy_seconds();
    t->next = t->wall + TEAM_INTERVAL_S;
    t->active = !user_chose && t->max > 1 && t->cpu >= 0.0 && t->busy >= 0.0;
}

int team_adjust(team *t)
{
    if (!t->active) return 0;
    double wall = omp_get_wtime();
    if (wall < t->next) return 0;
    double cpu = cpu_seconds(), busy = busy_seconds();
    if (cpu < 0.0 || busy < 0.0) {
        t->active = 0;
        return 0;
    }
    double dt = wall - t->wall;
    t->others = fmax(0.0, (busy - t->busy) - (cpu - t->cpu)) / dt;
    t->wall = wall;
    t->cpu = cpu;
    t->busy = busy;
    t->next = wall + TEAM_INTERVAL_S;
    /* a neighbour that had 2/3 of a core while we spun wants a whole one */
    int want = t->max - (int)floor(t->others + 0.5);
    if (want < 1) want = 1;
    if (want > t->max) want = t->max;
    if (want == t->now) return 0;
    t->now = want;
    omp_set_num_threads(want);
    return 1;
}
