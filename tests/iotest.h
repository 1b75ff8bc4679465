/* iotest.h — helpers for the tests that run bin/nbody6c as users do
 * (test_snapshot.c, test_checkpoint.c, test_plots.c): shell commands with
 * their output, background runs that can be signalled, files, and
 * summary.json comparisons. */
#ifndef NBODY6C_IOTEST_H
#define NBODY6C_IOTEST_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NBODY6C_BIN
#define NBODY6C_BIN "bin/nbody6c"
#endif

static char io_out[32768];

/* Runs a shell command; its exit status, stdout+stderr in io_out. */
static inline int io_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int io_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd - 8, fmt, ap);
    va_end(ap);
    strcat(cmd, " 2>&1");
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(io_out, 1, sizeof io_out - 1, p);
    io_out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline void io_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The whole file (malloc'ed, NUL-terminated) and its length; NULL if absent. */
static inline char *io_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!b) return NULL;
    b[got] = '\0';
    if (len) *len = got;
    return b;
}

static inline int io_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Starts a shell command in the background (stdout+stderr to logpath). */
static inline pid_t io_spawn(const char *cmd, const char *logpath)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(logpath, "w", stdout);
        (void)f;
        dup2(1, 2);
        char full[8300];
        snprintf(full, sizeof full, "exec %s", cmd);
        execl("/bin/sh", "sh", "-c", full, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static inline int io_wait(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The time of the last data line of a log.txt (-1 when none). */
static inline double io_log_time(const char *log)
{
    char *b = io_read(log, NULL);
    if (!b) return -1.0;
    double t = -1.0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#') t = atof(line);
    free(b);
    return t;
}

/* log.txt by column name: each data row is read by the names line above it
 * (a '#' line whose first word is "t" and the second not "=", the notes'
 * "# t = ...").  io_log_rows gives the data rows (malloc'ed, one per line)
 * reduced to the columns whose names do not start with `drop` (NULL: all);
 * io_log_column the values of column `name`, at most max, and their count
 * (-1 when a row's header lacks it). */
static inline int io_log_names(const char *line, char names[][24], int max)
{
    char first[24] = "", second[24] = "";
    if (line[0] != '#' || sscanf(line + 1, "%23s %23s", first, second) != 2 ||
        strcmp(first, "t") != 0 || strcmp(second, "=") == 0)
        return 0;
    int n = 0, used = 0;
    const char *p = line + 1;
    while (n < max && sscanf(p, "%23s%n", names[n], &used) == 1) {
        p += used;
        n++;
    }
    return n;
}

static inline char *io_log_rows(const char *log, const char *drop)
{
    char *b = io_read(log, NULL);
    if (!b) return NULL;
    char *o = malloc(strlen(b) + 1), *q = o, names[128][24];
    int nn = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            int k = io_log_names(line, names, 128);
            if (k) nn = k;
            continue;
        }
        const char *p = line;
        char tok[64];
        int used = 0, col = 0, any = 0;
        while (sscanf(p, "%63s%n", tok, &used) == 1) {
            p += used;
            if (col < nn && drop && strncmp(names[col], drop, strlen(drop)) == 0) {
                col++;
                continue;
            }
            q += sprintf(q, "%s%s", any ? " " : "", tok);
            any = 1;
            col++;
        }
        *q++ = '\n';
    }
    *q = '\0';
    free(b);
    return o;
}

static inline int io_log_column(const char *log, const char *name, double *out, int max)
{
    char *b = io_read(log, NULL);
    if (!b) return -1;
    char names[128][24];
    int nn = 0, at = -1, n = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            int k = io_log_names(line, names, 128);
            if (k) {
                nn = k;
                at = -1;
                for (int c = 0; c < nn; c++)
                    if (!strcmp(names[c], name)) at = c;
            }
            continue;
        }
        if (at < 0) {
            n = -1;
            break;
        }
        const char *p = line;
        char tok[64];
        int used = 0;
        for (int c = 0; c <= at && sscanf(p, "%63s%n", tok, &used) == 1; c++) p += used;
        if (n < max) out[n] = atof(tok);
        n++;
    }
    free(b);
    return n;
}

/* Waits until the log reaches time t or the process ended; 1 if reached. */
static inline int io_wait_log(const char *log, double t, pid_t pid, double timeout_s)
{
    struct timespec ts = {0, 5 * 1000 * 1000};
    for (double waited = 0.0; waited < timeout_s; waited += 0.005) {
        if (io_log_time(log) >= t) return 1;
        if (waitpid(pid, NULL, WNOHANG) == pid) return 0;
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Compares two summary.json files line by line, leaving out the lines whose
 * key starts with "wall" (wall-clock times) or "team_" (what other
 * processes made of the OpenMP team).  Returns the number of lines
 * that differ (the first in *first). */
static inline int io_summary_diff(const char *a, const char *b, char *first, size_t len)
{
    char *x = io_read(a, NULL), *y = io_read(b, NULL);
    int ndiff = 0;
    first[0] = '\0';
    if (!x || !y) {
        snprintf(first, len, "missing %s", !x ? a : b);
        free(x);
        free(y);
        return 1;
    }
    char *sx, *sy;
    char *lx = strtok_r(x, "\n", &sx), *ly = strtok_r(y, "\n", &sy);
    while (lx || ly) {
        int skip = (lx && strstr(lx, "\"wall") && ly && strstr(ly, "\"wall")) ||
                   (lx && strstr(lx, "\"team_") && ly && strstr(ly, "\"team_"));
        if (!skip && (!lx || !ly || strcmp(lx, ly) != 0)) {
            if (!ndiff) snprintf(first, len, "%s | %s", lx ? lx : "(end)", ly ? ly : "(end)");
            ndiff++;
        }
        lx = lx ? strtok_r(NULL, "\n", &sx) : NULL;
        ly = ly ? strtok_r(NULL, "\n", &sy) : NULL;
    }
    free(x);
    free(y);
    return ndiff;
}

/* A deck: N bodies, Plummer, equal masses, seed 199 (as the 1k benchmark
 * deck), with the given line 1, DTADJ, DELTAT, TCRIT, KZ(2) and KZ(22). */
static inline void io_deck(char *buf, size_t len, double tcomp, int n, int nfix, double dtadj,
                    double deltat, double tcrit, int kz2, int kz22)
{
    snprintf(buf, len,
             "1 %g\n"
             "%d %d 10 199 %d 1\n"
             "0.02 0.01 0.3 %g %g %g 2.0D-04 1.0 0.5\n"
             "0 %d 0 0 1 0 0 0 0 0\n0 0 0 0 0 1 0 0 0 0\n0 %d 0 0 0 0 0 0 0 0\n"
             "0 0 0 0 0 0 0 0 0 1\n0 0 0 0 0 0 0 0 0 0\n"
             "2.0E-05 0.001 0.2 1.0 1.0E-06 0.001\n"
             "1.0 1.0 1.0 0 0 0.002 0.0 5.0\n"
             "0.5 0.0 0.0 0.0 1.0\n",
             tcomp, n, nfix, n >= 1000 ? 80 : 20, dtadj, deltat, tcrit, kz2, kz22);
}

#endif
