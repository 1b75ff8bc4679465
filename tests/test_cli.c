/* test_cli.c — the program as users call it: exit codes and messages for
 * bad input and usage, an existing run kept without --force, a short run's
 * files.  Runs bin/nbody6c (the path the Makefile passes as NBODY6C_BIN). */
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
    snprintf(cmd, sizeof cmd, "sed 's/^0 0 0 0 0 0 0 0 0 0$/0 0 0 1 0 0 0 0 0 0/;' %s | head -c 100000 > %s", deck, bad);
    (void)!system(cmd);
    snprintf(cmd, sizeof cmd, "%s %s --out %s/badrun", NBODY6C_BIN, bad, dir);
    CHECK(sh(cmd) == 2 && strstr(out, "KZ(14)"), "KZ(14) = 1 is refused with exit 2: %s", out);

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
    /* an existing run is kept without --force */
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --out %s %s", NBODY6C_BIN, outdir, deck);
    CHECK(sh(cmd) == 2 && strstr(out, "--force"), "an earlier run is not overwritten without --force");
    snprintf(cmd, sizeof cmd, "%s --quiet --gpu=off --force --out %s %s", NBODY6C_BIN, outdir, deck);
    CHECK(sh(cmd) == 0, "--force overwrites it");

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)!system(cmd);
    return check_done();
}
