/* test_cli.c — the program as users call it: exit codes and messages for
 * bad input and usage, an existing run kept without --force, a short run's
 * files.  Runs bin/nbody6c (the path the Makefile passes as NBODY6C_BIN). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#ifndef NBODY6C_BIN
#define NBODY6C_BIN "bin/nbody6c"
#endif

static char out[16384];

/* Runs a shell command, returns its exit status, its stderr+stdout in out. */
static int sh(const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *good_deck =
    "1 10000.0\n"
    "64 1 10 17 20 1\n"
    "0.02 0.01 0.3 0.25 0.25 0.5 2.0D-04 1.0 0.5\n"
    "0 0 0 0 1 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 1\n0 0 0 0 0 0 0 0 0 0\n"
    "2.0E-05 0.001 0.2 1.0 1.0E-06 0.001\n"
    "1.0 1.0 1.0 0 0 0.002 0.0 5.0\n"
    "0.5 0.0 0.0 0.0 0.25\n";

/* good_deck with one line replaced (the first line equal to `from`). */
static void deck_with(const char *path, const char *from, const char *to)
{
    char text[2048];
    const char *at = strstr(good_deck, from);
    if (!at) {
        text[0] = '\0';
    } else {
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good_deck), good_deck, to, at + strlen(from));
    }
    write_file(path, text);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static char *slurp(const char *path)
{
    static char buf[65536];
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

/* Refusals, notes and messages a first-time user meets. */
static void first_user(const char *dir, const char *deck)
{
    char d2[512], cmd[4096], run[512];
    snprintf(d2, sizeof d2, "%s/x.deck", dir);

    /* item 3: every refused option of a production-like deck in one message */
    deck_with(d2, "0 0 0 0 1 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1\n",
              "0 0 0 0 1 0 0 0 0 0\n0 0 0 3 3 0 0 0 4 2\n0 0 -1 0 0 1 0 0 0 3\n0 0 0 0 0 0 0 0 0 1\n");
    snprintf(cmd, sizeof cmd, "%s --out %s/r3 %s", NBODY6C_BIN, dir, d2);
    int rc = sh(cmd);
    const char *want[] = {"x.deck:5: KZ(14) = 3: this external tidal field", "x.deck:5: KZ(15) = 3:",
                          "x.deck:5: KZ(19) = 4: this stellar evolution", "x.deck:5: KZ(20) = 2:",
                          "x.deck:6: KZ(23) = -1: escaper removal", "x.deck:6: KZ(26) = 1: slow-down",
                          "x.deck:6: KZ(30) = 3:"};
    int all = rc == 2 && strstr(out, "7 KZ options are refused") != NULL;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) all &= strstr(out, want[k]) != NULL;
    CHECK(all, "KZ 14, 15, 19, 20, 23, 26, 30 refused in one message with line, value and meaning "
          "(exit %d): %s", rc, out);

    /* item 4: --ic with KZ(22) = 0 is refused, not ignored */
    snprintf(cmd, sizeof cmd, "%s --ic %s --out %s/r4 %s", NBODY6C_BIN, deck, dir, deck);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "--ic") && strstr(out, "KZ(22) = 0"), "--ic with KZ(22) = 0 exits 2 "
          "(exit %d): %s", rc, out);
    /* diagnostics-only notes: once on stderr, and in the log with the model */
    deck_with(d2, "0 0 0 0 1 0 0 0 0 0\n", "0 0 0 2 1 0 0 0 0 0\n");
    snprintf(run, sizeof run, "%s/notes", dir);
    snprintf(cmd, sizeof cmd, "%s --gpu=off --out %s %s", NBODY6C_BIN, run, d2);
    rc = sh(cmd);
    CHECK(rc == 0 && count_of(out, "KZ(4) = 2: binary diagnostics") == 1 && !strchr(out, '\r'),
          "a diagnostics-only option is noted once on stderr, and a redirected progress line has no "
          "carriage return (exit %d): %s", rc, out);
    CHECK(strstr(out, "KZ(4) = 2: binary diagnostics — NBODY6's own files are not written") &&
              strstr(out, "written whatever KZ(4): binaries.txt at every output"),
          "KZ(4): the note says what is written in NBODY6's files' place: %.300s", out);
    snprintf(cmd, sizeof cmd, "%s/log.txt", run);
    const char *log = slurp(cmd);
    CHECK(strstr(log, "# KZ(4) = 2: binary diagnostics") && strstr(log, "# initial conditions: Plummer "
          "(KZ(5) = 1), equal masses, NRAND 17") && strstr(log, "# units: RBAR 1 pc, ZMBAR 0.5 Msun"),
          "the log header has the note, the model, masses, NRAND and the units");

    /* an NCRIT stop does not suggest --restart, which cannot help */
    deck_with(d2, "64 1 10 17 20 1\n", "64 1 100 17 20 1\n");
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s/ncrit %s", NBODY6C_BIN, dir, d2);
    rc = sh(cmd);
    CHECK(rc == 0 && strstr(out, "NCRIT = 100") && !strstr(out, "--restart"),
          "an NCRIT stop says why and does not suggest --restart (exit %d): %s", rc, out);

    /* t_end after an early stop: where the run stopped, not 0 */
    snprintf(cmd, sizeof cmd, "mkdir -p %s/early && touch %s/early/STOP && %s --quiet --gpu=off "
             "--out %s/early %s", dir, dir, NBODY6C_BIN, dir, deck);
    rc = sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/early/summary.json", dir);
    const char *js = slurp(cmd);
    const char *te = strstr(js, "\"t_end\": "), *ts = strstr(js, "\"t_stop\": ");
    double t_end = te ? atof(te + 9) : -1.0, t_stop = ts ? atof(ts + 10) : -2.0;
    CHECK(rc == 0 && strstr(js, "\"stop_reason\": \"stop-file\"") && t_end > 0.0 && t_end == t_stop,
          "a STOP file before the first check: t_end %g = t_stop %g (exit %d): %s", t_end, t_stop, rc, out);

    /* restarts: a TCRIT already passed says so; a finished run too */
    snprintf(d2, sizeof d2, "%s/r.deck", dir);
    write_file(d2, "3 100\n0 0 0 0 0.25 0 0 0\n");
    snprintf(cmd, sizeof cmd, "%s --quiet --restart %s/run/checkpoint.bin %s", NBODY6C_BIN, dir, d2);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "TCRIT = 0.25 is not after"), "a restart deck with TCRIT before the "
          "checkpoint's time exits 2 saying so (exit %d): %s", rc, out);
    snprintf(cmd, sizeof cmd, "%s --quiet --restart %s/run/checkpoint.bin", NBODY6C_BIN, dir);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "finished run") && strstr(out, "KSTART = 3"), "restarting a finished "
          "run without a deck exits 2 saying how to go on (exit %d): %s", rc, out);
    write_file(d2, "3 100\n0 0 0 0 1.0 0 0 0\n");
    /* --ic with --restart: the checkpoint has the bodies; refused, not ignored */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --ic %s --out %s/icr --restart %s/run/checkpoint.bin %s",
             NBODY6C_BIN, deck, dir, dir, d2);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "--ic") && strstr(out, "restart"), "--ic with --restart exits 2 "
          "saying why (exit %d): %s", rc, out);
    /* a restart into a new --out carries the log's history and names the checkpoint */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s/more --restart %s/run/checkpoint.bin %s",
             NBODY6C_BIN, dir, dir, d2);
    rc = sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/more/log.txt", dir);
    log = slurp(cmd);
    const char *dl = strstr(log, "# deck ");
    const char *nl = dl ? strchr(dl, '\n') : NULL;
    CHECK(rc == 0 && nl && nl - dl > 9 && !strncmp(nl - 9, "good.deck", 9) &&
          strstr(log, "# restart from ") && strstr(log, "/run/checkpoint.bin at t = 0.5") &&
          count_of(log, "\n   0.00000 ") == 1 && count_of(log, "\n   1.00000 ") == 1,
          "a restart into a new --out: its log has the first run's lines from t = 0 and names the "
          "checkpoint it restarted from (exit %d)", rc);

    /* a restart by a version whose columns differ: the names again where they change */
    snprintf(cmd, sizeof cmd, "cp -r %s/run %s/oldcols && sed -i 's/ dE_cum / dE_cux /' %s/oldcols/log.txt && "
             "%s --quiet --gpu=off --out %s/newcols --restart %s/oldcols/checkpoint.bin %s && "
             "scripts/log-columns %s/newcols/log.txt t dE_cux dE_cum | awk '$1 == 0.5 || $1 == 1'",
             dir, dir, dir, NBODY6C_BIN, dir, dir, d2, dir);
    rc = sh(cmd);
    char a5[32] = "", b5[32] = "", a1[32] = "", b1[32] = "";
    int parsed = sscanf(out, "0.50000 %31s %31s 1.00000 %31s %31s", a5, b5, a1, b1) == 4;
    snprintf(cmd, sizeof cmd, "%s/newcols/log.txt", dir);
    log = slurp(cmd);
    CHECK(rc == 0 && count_of(log, "# the columns change here") == 1 && parsed && strcmp(a5, "nan") &&
              !strcmp(b5, "nan") && !strcmp(a1, "nan") && strcmp(b1, "nan"),
          "a restart whose log has other column names writes this version's again; each row is read by the names "
          "above it (exit %d): %.300s", rc, out);

    /* item 5: missing parents of --out are created; a deck that is a folder */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s/a/b/c %s", NBODY6C_BIN, dir, deck);
    rc = sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/a/b/c/summary.json", dir);
    FILE *f = fopen(cmd, "r");
    CHECK(rc == 0 && f, "--out a/b/c creates the missing parents (exit %d): %s", rc, out);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "%s --out %s/dd %s", NBODY6C_BIN, dir, dir);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "is a directory"), "a folder given as the deck exits 2 saying so "
          "(exit %d): %s", rc, out);
}

/* Runs `deck_text` (CPU backend, to t = 0.5 at most); the exit status, the
 * output in out. */
static int run_text(const char *dir, const char *name, const char *deck_text)
{
    char path[600], cmd[2048];
    snprintf(path, sizeof path, "%s/%s.deck", dir, name);
    write_file(path, deck_text);
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --force --snapshots off --out %s/%s-run %s", NBODY6C_BIN,
             dir, name, path);
    return sh(cmd);
}

/* good_deck with up to three lines replaced, then `tail` appended. */
static void variant(char *buf, size_t len, const char *const rep[][2], int nrep, const char *tail)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", good_deck);
    for (int k = 0; k < nrep; k++) {
        char *at = strstr(a, rep[k][0]);
        if (!at) continue;
        snprintf(b, sizeof b, "%.*s%s%s", (int)(at - a), a, rep[k][1], at + strlen(rep[k][0]));
        snprintf(a, sizeof a, "%s", b);
    }
    snprintf(buf, len, "%s%s", a, tail);
}

/* Values that used to run silently wrong: each is refused with its line,
 * noted, or warned about. */
static void silent_cases(const char *dir)
{
    static const char *qes[] = {"0.0", "-1e-3", "10.0", "1e20"};
    for (int k = 0; k < 4; k++) {
        char line3[128], text[4096];
        snprintf(line3, sizeof line3, "0.02 0.01 0.3 0.25 0.25 0.5 %s 1.0 0.5\n", qes[k]);
        const char *rep[][2] = {{"0.02 0.01 0.3 0.25 0.25 0.5 2.0D-04 1.0 0.5\n", line3}};
        variant(text, sizeof text, rep, 1, "");
        int rc = run_text(dir, "qe", text);
        CHECK(rc == 2 && strstr(out, "qe.deck:3: QE:") && strstr(out, "(0, 0.1]"),
              "QE = %s is refused (exit %d) naming line 3 and the valid range: %.200s", qes[k], rc, out);
    }
    char text[4096];
    {
        const char *rep[][2] = {{"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 1 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"},
                                {"0.5 0.0 0.0 0.0 0.25", "0.5 0.0 0.0 2.0 0.25"}};
        variant(text, sizeof text, rep, 2, "");
        int rc = run_text(dir, "rtide", text);
        CHECK(rc == 0 && strstr(out, "RTIDE 2 (line 8) is not used with KZ(14) = 1"),
              "RTIDE given with KZ(14) = 1: a note says it is not used (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"0 0 0 0 1 0 0 0 0 0", "0 0 0 0 1 0 0 1 0 0"}};
        variant(text, sizeof text, rep, 1, "0.005 -1.0 1.0 100.0 0 0 0\n");
        int rc = run_text(dir, "nbin0", text);
        CHECK(rc == 0 && strstr(out, "KZ(8) = 1 with NBIN0 = 0: no primordial binaries"),
              "KZ(8) = 1 with NBIN0 = 0: a note says no binaries are made (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 0 0 0 0 0 0 6\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
        variant(text, sizeof text, rep, 1, "");
        int rc = run_text(dir, "kroupa-eq", text);
        CHECK(rc == 0 && strstr(out, "KZ(20) = 6 with ALPHAS = 1: equal masses"),
              "KZ(20) = 6 with ALPHAS = 1: a note says equal masses, as NBODY6 (exit %d): %.300s", rc, out);
    }
    {
        /* 64 bodies of 0.5 Msun at 1 kpc from 1e11 Msun: RTIDE ~0.2 in N-body units */
        const char *rep[][2] = {{"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 2 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
        variant(text, sizeof text, rep, 1, "1.0E11 1.0\n");
        int rc = run_text(dir, "tide-in", text);
        CHECK(rc == 0 && strstr(out, "warning: the tidal radius") && strstr(out, "inside the half-mass radius"),
              "a tidal radius inside the half-mass radius is warned about (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"0 0 0 0 1 0 0 0 0 0", "0 0 0 0 1 0 0 1 0 0"},
                                {"1.0 1.0 1.0 0 0 0.002 0.0 5.0", "1.0 1.0 1.0 4 0 0.002 0.0 5.0"}};
        variant(text, sizeof text, rep, 2, "10.0 -1.0 1.0 100.0 0 0 0\n");
        int rc = run_text(dir, "wide", text);
        CHECK(rc == 0 && strstr(out, "warning: SEMI0 = 10") && strstr(out, "half-mass radius"),
              "binaries wider than the half-mass radius are warned about (exit %d): %.300s", rc, out);
    }
    {
        /* Q = 0.9: T is above |E|, so the scales max(T, |E|) and |E0| differ
         * ninefold; the log's dE_cum and summary.json's de_rel use the
         * first, as the per-check dE does */
        const char *rep[][2] = {{"0.5 0.0 0.0 0.0 0.25", "0.9 0.0 0.0 0.0 0.25"}};
        variant(text, sizeof text, rep, 1, "");
        int rc = run_text(dir, "hot", text);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "scripts/log-columns %s/hot-run/log.txt E T dE_cum | "
                 "awk '{ if (NR0 == 0) { e0 = $1; NR0 = 1 } e = $1; t = $2; c = $3 } "
                 "END { m = (t > -e) ? t : -e; printf \"%%.6e %%.6e %%.6e \", c, (e - e0) / m, (e - e0) / -e0 }'; "
                 "awk -F': ' '/\"de_rel\"/ { print $2 + 0 }' %s/hot-run/summary.json", dir, dir);
        double cum = 0, want = 0, old = 0, derel = 0;
        int ok = rc == 0 && sh(cmd) == 0 && sscanf(out, "%lf %lf %lf %lf", &cum, &want, &old, &derel) == 4;
        CHECK(ok && fabs(cum - want) <= 2e-3 * fabs(want) + 1e-14 && fabs(derel - want) <= 2e-3 * fabs(want) + 1e-14 &&
                  fabs(want - old) > 0.5 * fabs(want),
              "one relative energy error: dE_cum %.4e and de_rel %.4e are (E - E0)/max(T, |E|) = %.4e, not "
              "(E - E0)/|E0| = %.4e (Q = 0.9)", cum, derel, want, old);
    }
    {
        /* KZ(14) = 2 and KZ(8) = 1 without the GMG RG0 line: the binaries'
         * line is read in its place, and the message says so */
        const char *rep[][2] = {{"0 0 0 0 1 0 0 0 0 0", "0 0 0 0 1 0 0 1 0 0"},
                                {"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 2 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
        variant(text, sizeof text, rep, 2, "0.005 -1.0 1.0 100.0 0 0 0\n");
        int rc = run_text(dir, "nogmg", text);
        CHECK(rc == 2 && strstr(out, "nogmg.deck:12: RG0") && strstr(out, "was read as KZ(14) = 2's line GMG RG0") &&
                  strstr(out, "0.005 -1.0"),
              "KZ(14) = 2 without its GMG RG0 line: the error names the line read in its place (exit %d): %.300s",
              rc, out);
    }
}

/* log.txt's header names each column once, with its unit under it, and
 * the physical columns hold what they say (run: 64 equal masses of 0.5 Msun
 * to t = 0.5). */
static void log_columns(const char *run)
{
    static const char *names[] = {"t", "t_myr", "N", "M", "M_msun", "M_b", "rc", "rh", "r1%", "r2%", "r5%",
                                  "r10%", "r20%", "r30%", "r40%", "r62.5%", "r75%", "r90%", "sigma", "Q", "E"};
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/log.txt", run);
    const char *log = slurp(cmd);
    const char *head = strstr(log, "\n#        t ");
    const char *end = head ? strchr(head + 1, '\n') : NULL;
    char line[4096] = "", units[4096] = "";
    if (end) {
        snprintf(line, sizeof line, " %.*s ", (int)(end - head - 2), head + 2);
        const char *uend = strchr(end + 1, '\n');
        if (uend) snprintf(units, sizeof units, "%.*s", (int)(uend - end - 1), end + 1);
    }
    int once = 1;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char w[32];
        snprintf(w, sizeof w, " %s ", names[k]);
        if (count_of(line, w) != 1) {
            printf("# column %s appears %d times\n", names[k], count_of(line, w));
            once = 0;
        }
    }
    /* README's tables name every column */
    char *readme = NULL;
    FILE *rf = fopen("README.md", "r");
    if (rf) {
        readme = calloc(1, 1 << 20);
        if (readme) (void)!fread(readme, 1, (1 << 20) - 1, rf);
        fclose(rf);
    }
    int documented = readme != NULL;
    char nm[64];
    int used = 0;
    for (const char *q = line; readme && sscanf(q, "%62s%n", nm, &used) == 1; q += used) {
        char quoted[70];
        snprintf(quoted, sizeof quoted, "`%s`", nm);
        if (!strstr(readme, quoted)) {
            printf("# README does not name log column %s\n", nm);
            documented = 0;
        }
    }
    free(readme);
    CHECK(documented, "README's log.txt tables name every column of the header");
    CHECK(once && !strstr(line, "r50%") && !strncmp(units, "# [N-body]       [Myr]", 22),
          "log.txt names every column once (rh, no r50%%), NBODY6's Lagrangian fractions, units under them: %.200s",
          line);
    snprintf(cmd, sizeof cmd, "scripts/log-columns %s/log.txt t t_myr N M M_msun M_b T sigma r1%% r2%% r5%% r10%% "
             "r20%% r30%% r40%% rh r62.5%% r75%% r90%% | tail -1; sed -n 's/.*TSTAR \\([0-9.]*\\) Myr.*/\\1/p' "
             "%s/log.txt", run, run);
    double v[19] = {0}, tstar = 0;
    int ok = sh(cmd) == 0;
    const char *p = out;
    for (int k = 0; k < 19 && ok; k++) {
        char *e;
        v[k] = strtod(p, &e);
        ok = e != p;
        p = e;
    }
    ok = ok && sscanf(p, "%lf", &tstar) == 1;
    int rising = ok;
    for (int k = 8; k < 18; k++) rising &= v[k] <= v[k + 1];
    CHECK(ok && v[0] == 0.5 && fabs(v[1] - 0.5 * tstar) < 1e-4 && v[2] == 64 && v[3] == 1.0 && v[4] == 32 &&
              v[5] > 0.9 && v[5] <= 1.0 && rising,
          "the last row: t 0.5 = %g Myr (TSTAR %g), N %g, M %g = %g Msun, M_b %g, radii rising from r1%% %g to "
          "r90%% %g", v[1], tstar, v[2], v[3], v[4], v[5], v[8], v[18]);
    /* every body bound at the start, the c.m. at rest: sigma^2 = 2T/M */
    snprintf(cmd, sizeof cmd, "scripts/log-columns %s/log.txt M M_b T sigma | head -1", run);
    double m = 0, mb = 0, t = 0, sg = 0;
    CHECK(sh(cmd) == 0 && sscanf(out, "%lf %lf %lf %lf", &m, &mb, &t, &sg) == 4 && mb == m &&
              fabs(sg * sg - 2.0 * t / m) < 1e-4,
          "t = 0: M_b = M = %g, sigma %g = sqrt(2T/M) = %g", m, sg, sqrt(2.0 * t / (m > 0 ? m : 1)));
}

/* The program's absolute path, for commands run in another folder. */
static const char *bin_path(void)
{
    static char bin[1024];
    char cwd[512];
    if (NBODY6C_BIN[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(bin, sizeof bin, "%s", NBODY6C_BIN);
    else
        snprintf(bin, sizeof bin, "%s/%s", cwd, NBODY6C_BIN);
    return bin;
}

/* Bad input a user makes: refused (exit 2) with a message that names the
 * deck's file and line, or the body file's, and says what to do. */
static void bad_input(const char *dir)
{
    char text[4096], cmd[2048];
    {
        const char *rep[][2] = {{"1.0 1.0 1.0 0 0 0.002 0.0 5.0", "2.35 0.1 10.0 0 0 0.002 0.0 5.0"}};
        variant(text, sizeof text, rep, 1, "");
        int rc = run_text(dir, "swap", text);
        CHECK(rc == 2 && strstr(out, "swap.deck:10: BODY1: 0.1 is below BODYN = 10") && strstr(out, "swap them"),
              "BODY1 and BODYN swapped: refused naming line 10 (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"0.02 0.01 0.3 0.25 0.25 0.5 2.0D-04 1.0 0.5", "0.02 0.01 0.3 0.25 0.25 0.5 2.0D-04 0.0 0.5"},
                                {"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 1 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
        variant(text, sizeof text, rep, 2, "");
        int rc = run_text(dir, "rbar0", text);
        CHECK(rc == 2 && strstr(out, "rbar0.deck:3: RBAR: 0 pc with KZ(14) = 1 (line 5)"),
              "RBAR = 0 with a tidal field: refused naming line 3 and KZ(14)'s line (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"0.5 0.0 0.0 0.0 0.25", "5.0 0.0 0.0 0.0 0.25"}};
        variant(text, sizeof text, rep, 1, "");
        int rc = run_text(dir, "q5", text);
        CHECK(rc == 2 && strstr(out, "q5.deck:11: Q: the virial ratio 5 must be below 1"),
              "Q = 5: refused naming line 11 (exit %d): %.300s", rc, out);
    }
    {
        const char *rep[][2] = {{"1.0 1.0 1.0 0 0 0.002 0.0 5.0", "2.35 10.0 -0.1 0 0 0.002 0.0 5.0"},
                                {"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                                 "0 0 0 0 0 0 0 0 0 6\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
        variant(text, sizeof text, rep, 2, "");
        int rc = run_text(dir, "bodyn", text);
        CHECK(rc == 2 && strstr(out, "bodyn.deck:10: BODYN: the Kroupa (2001) masses (KZ(20) = 6)") &&
                  !strstr(out, "power"),
              "BODYN < 0 with Kroupa masses: refused naming line 10 and that mass function (exit %d): %.300s", rc,
              out);
    }
    /* KZ(22) = 2 in a folder without fort.10 */
    const char *rep22[][2] = {{"0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1",
                               "0 0 0 0 0 0 0 0 0 0\n0 2 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 1"}};
    variant(text, sizeof text, rep22, 1, "");
    char path[600];
    snprintf(path, sizeof path, "%s/file.deck", dir);
    write_file(path, text);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/nof10 && cd %s/nof10 && %s --quiet --gpu=off --out run %s", dir, dir,
             bin_path(), path);
    int rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "file.deck:6: KZ(22) = 2: cannot open fort.10") && strstr(out, "--ic FILE") &&
              strstr(out, "KZ(22) = 0 or 1"),
          "KZ(22) = 2 without fort.10: refused naming line 6, with --ic and KZ(22) as the ways on (exit %d): "
          "%.400s", rc, out);
    /* a body file with one line given twice */
    char bodies[600];
    snprintf(bodies, sizeof bodies, "%s/bodies.txt", dir);
    FILE *f = fopen(bodies, "w");
    for (int k = 1; f && k <= 64; k++) {
        const int j = k == 41 ? 13 : k; /* line 41 repeats line 13's position */
        fprintf(f, "0.015625 %.6f %.6f %.6f %.3f 0.0 0.0\n", 0.01 * j * j - 0.3 * j, 0.5 * sin(j), 0.3 * cos(3 * j),
                0.01 * k);
    }
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s/coinc --ic %s %s", NBODY6C_BIN, dir, bodies, path);
    rc = sh(cmd);
    CHECK(rc == 2 && strstr(out, "bodies.txt:41: body 41 is at the position of body 13 (line 13)"),
          "two bodies at one position: refused naming both lines (exit %d): %.300s", rc, out);
}

int main(void)
{
    char dir[] = "/tmp/nbody6c-cli-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    char deck[512], cmd[2048], outdir[512];
    snprintf(deck, sizeof deck, "%s/good.deck", dir);
    snprintf(outdir, sizeof outdir, "%s/run", dir);
    write_file(deck, good_deck);

    CHECK(sh(NBODY6C_BIN " --help") == 0 && strstr(out, "usage"), "--help exits 0 with the usage");
    CHECK(sh(NBODY6C_BIN " --version") == 0 && strstr(out, "nbody6c"), "--version exits 0");
    CHECK(sh(NBODY6C_BIN " --bogus") == 2 && strstr(out, "--bogus"), "an unknown option exits 2 naming it");
    CHECK(sh(NBODY6C_BIN " --gpu=maybe x") == 2 && strstr(out, "--gpu"), "a bad --gpu value exits 2");
    CHECK(sh(NBODY6C_BIN " /nonexistent/deck") == 2 && strstr(out, "/nonexistent/deck"),
          "a missing deck exits 2 naming the file: %s", out);

    /* a broken deck: ETAI above NBODY6's limit, on line 3 */
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.deck", dir);
    write_file(bad, "1 10.0\n64 1 10 17 20 1\n0.1 0.01 0.3 0.25 0.25 0.5 2.0D-04 1.0 0.5\n");
    snprintf(cmd, sizeof cmd, "%s %s --out %s/badrun", NBODY6C_BIN, bad, dir);
    CHECK(sh(cmd) == 2 && strstr(out, "bad.deck:3: ETAI"), "ETAI > 0.08 exits 2 naming line 3 and ETAI: %s", out);
    /* a restart deck (KSTART = 2) without --restart continues fort.1 of the
     * current folder; run in the (empty) temporary folder there is none, and
     * the message says which option to give */
    write_file(bad, "2 10.0\n");
    char cwd[512], bin[640];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    snprintf(bin, sizeof bin, "%s%s%s", NBODY6C_BIN[0] == '/' ? "" : cwd, NBODY6C_BIN[0] == '/' ? "" : "/",
             NBODY6C_BIN);
    snprintf(cmd, sizeof cmd, "cd %s && %s %s --out %s/badrun", dir, bin, bad, dir);
    CHECK(sh(cmd) == 2 && strstr(out, "KSTART = 2") && strstr(out, "--restart FILE") && strstr(out, "no fort.1"),
          "a restart deck without --restart and no fort.1 exits 2 asking for --restart FILE: %s", out);
    /* a refused physics option */
    snprintf(cmd, sizeof cmd, "sed 's/^0 0 0 0 0 0 0 0 0 0$/0 0 0 3 0 0 0 0 0 0/;' %s | head -c 100000 > %s", deck, bad);
    (void)!system(cmd);
    snprintf(cmd, sizeof cmd, "%s %s --out %s/badrun", NBODY6C_BIN, bad, dir);
    CHECK(sh(cmd) == 2 && strstr(out, "KZ(14)"), "KZ(14) = 3 is refused with exit 2: %s", out);

    /* a short run, from stdin, writes its log and summary */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s - < %s", NBODY6C_BIN, outdir, deck);
    int rc = sh(cmd);
    CHECK(rc == 0, "a 64-body run to t = 0.5 from stdin exits 0 (%d): %s", rc, out);
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", outdir);
    FILE *f = fopen(path, "r");
    char js[8192] = "";
    if (f) {
        size_t n = fread(js, 1, sizeof js - 1, f);
        js[n] = '\0';
        fclose(f);
    }
    const char *keys[] = {"\"n\": 64", "\"t_end\": 0.5", "\"e0\"", "\"e_end\"", "\"de_rel\"", "\"de_sum_abs\"",
                          "\"steps_irregular\"", "\"steps_regular\"", "\"mean_neighbours\"", "\"wall_s\"",
                          "\"wall_regular_s\"", "\"wall_irregular_s\"", "\"gpunb_backend\"", "\"gpuirr_backend\""};
    int all = 1;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strstr(js, keys[k])) {
            printf("# summary.json lacks %s\n", keys[k]);
            all = 0;
        }
    CHECK(all, "summary.json has every field");
    snprintf(path, sizeof path, "grep -c '^ *0.[0-9]' %s/log.txt", outdir);
    CHECK(sh(path) == 0 && atoi(out) == 3, "log.txt has the lines for t = 0, 0.25, 0.5 (%d)", atoi(out));
    log_columns(outdir);
    /* an existing run is kept without --force */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s %s", NBODY6C_BIN, outdir, deck);
    CHECK(sh(cmd) == 2 && strstr(out, "--force"), "an earlier run is not overwritten without --force");
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --force --out %s %s", NBODY6C_BIN, outdir, deck);
    CHECK(sh(cmd) == 0, "--force overwrites it");

    /* --energy-probe measures on a copy: the run's checks are the same as
     * without it, and the probe at a check's time gives the check's E */
    char pdir[600];
    snprintf(pdir, sizeof pdir, "%s/probe", dir);
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --energy-probe 0.01 --out %s %s", NBODY6C_BIN, pdir, deck);
    CHECK(sh(cmd) == 0, "a run with --energy-probe 0.01 exits 0: %s", out);
    char cmd2[4096];
    snprintf(cmd2, sizeof cmd2, "for d in %s %s; do scripts/log-columns $d/log.txt t E T W dE steps_irr steps_reg "
             "> $d/checks.txt; done; test -s %s/checks.txt && cmp %s/checks.txt %s/checks.txt",
             outdir, pdir, outdir, outdir, pdir);
    CHECK(sh(cmd2) == 0, "the probed run's checks (t, E, T, W, dE, steps) equal the unprobed run's: %s", out);
    snprintf(cmd, sizeof cmd, "scripts/log-columns %s/log.txt t E | awk '$1 == 0.25 {print $2}'; "
             "awk '!/^#/ && $1 + 0 == 0.25 {print $2}' %s/probe.txt; grep -vc '^#' %s/probe.txt",
             outdir, pdir, pdir);
    double elog = 0.0, eprobe = 0.0;
    int nprobe = 0;
    CHECK(sh(cmd) == 0 && sscanf(out, "%lf %lf %d", &elog, &eprobe, &nprobe) == 3 && nprobe >= 45 &&
              fabs(eprobe - elog) <= 1e-9 * fabs(elog),
          "probe.txt: %d probes; at t = 0.25 E %.12g as the check's %.10f", nprobe, eprobe, elog);
    snprintf(cmd, sizeof cmd, "%s --energy-probe -1 %s", NBODY6C_BIN, deck);
    CHECK(sh(cmd) == 2 && strstr(out, "--energy-probe"), "--energy-probe -1 exits 2 naming it: %s", out);

    first_user(dir, deck);
    silent_cases(dir);
    bad_input(dir);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)!system(cmd);
    return check_done();
}
