/* test_deck.c — the NBODY6 deck reader (deck.c) and the KZ policy
 * (kz_policy.c): the decks in input/ read to the values written in them, the
 * Fortran list-directed rules, restart decks, and broken decks that must fail
 * with a message naming the line and the field.
 *
 * Reals are compared with ==: the reader converts the same decimal text that
 * the C compiler converts for the expected literal, and both round correctly,
 * so the doubles are identical (a D exponent is only a spelling of E). */
#include "check.h"
#include "io/deck.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* The sample deck's lines (input/plummer-imf-1024-t2.deck). */
#define L1 "1 10000.0\n"
#define L2 "1024 1 10 199 80 1\n"
#define L3 "0.02 0.01 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n"
#define KZA "0 1 0 0 1 0 0 0 0 0\n"
#define KZB "0 0 0 0 0 1 0 0 0 0\n"
#define KZC "1 0 0 0 0 0 0 0 0 0\n"
#define KZD "0 0 0 0 0 0 0 0 0 1\n"
#define KZE "0 0 0 0 0 0 0 0 0 0\n"
#define KZ KZA KZB KZC KZD KZE
#define L5 "2.0E-05 0.001 0.2 1.0 1.0E-06 0.001\n"
#define L6 "2.3 10.0 0.1 0 0 0.002 0.0 5.0\n"
#define L8 "0.5 0.0 0.0 0.0 1.0\n"
#define TAIL "20000.0 2 0\n20000.0 2 0\n\nThe two last should be scaled value of CLIGHT.\n"
#define GOOD L1 L2 L3 KZ L5 L6 L8 TAIL

static int parse(const char *text, deck *d, char *err, size_t errlen)
{
    size_t len = strlen(text);
    FILE *f = len ? fmemopen((void *)text, len, "r") : tmpfile();
    if (!f) {
        snprintf(err, errlen, "(could not open the test string)");
        return -99;
    }
    int rc = deck_read(f, "x.deck", d, err, errlen);
    fclose(f);
    return rc;
}

/* ---- the decks in input/ ---- */

typedef struct expected {
    const char *path;
    int n, nnbmax, kz40;
    double rs0, tcrit, alphas, body1, bodyn, smax, dtadj; /* dtadj = deltat */
} expected;

static void check_input_deck(const expected *e)
{
    deck d;
    char err[512];
    int rc = deck_read_path(e->path, &d, err, sizeof err);
    CHECK(rc == 0, "%s reads (%s)", e->path, rc ? err : "ok");
    if (rc)
        return;
    /* line 1 */
    int l1 = d.kstart == 1 && d.tcomp == 10000.0;
    /* line 2 */
    int l2 = d.n == e->n && d.nfix == 1 && d.ncrit == 10 && d.nrand == 199 &&
             d.nnbmax == e->nnbmax && d.nrun == 1;
    /* line 3 */
    int l3 = d.etai == 0.02 && d.etar == 0.01 && d.rs0 == e->rs0 && d.dtadj == e->dtadj &&
             d.deltat == e->dtadj && d.tcrit == e->tcrit && d.qe == 2.0e-4 && d.rbar == 1.0 &&
             d.zmbar == 0.5;
    CHECK(l1 && l2 && l3, "%s lines 1-3: KSTART %d TCOMP %g N %d NFIX %d NCRIT %d NRAND %d "
          "NNBMAX %d NRUN %d ETAI %g ETAR %g RS0 %g DTADJ %g DELTAT %g TCRIT %g QE %g RBAR %g "
          "ZMBAR %g",
          e->path, d.kstart, d.tcomp, d.n, d.nfix, d.ncrit, d.nrand, d.nnbmax, d.nrun, d.etai,
          d.etar, d.rs0, d.dtadj, d.deltat, d.tcrit, d.qe, d.rbar, d.zmbar);
    /* KZ: exactly 2, 5, 16, 21, 40 nonzero */
    int kz_ok = 1;
    for (int k = 1; k <= DECK_NKZ; k++) {
        int want = (k == 2 || k == 5 || k == 16 || k == 21) ? 1 : k == 40 ? e->kz40 : 0;
        if (d.kz[k] != want)
            kz_ok = 0;
    }
    CHECK(kz_ok, "%s KZ: 2=%d 5=%d 16=%d 21=%d 40=%d (want 40=%d), all others 0", e->path,
          d.kz[2], d.kz[5], d.kz[16], d.kz[21], d.kz[40], e->kz40);
    CHECK(d.kz_line[1] == 4 && d.kz_line[10] == 4 && d.kz_line[16] == 5 && d.kz_line[21] == 6 &&
              d.kz_line[40] == 7 && d.kz_line[50] == 8,
          "%s KZ lines: KZ(1) %d, KZ(16) %d, KZ(21) %d, KZ(40) %d, KZ(50) %d", e->path,
          d.kz_line[1], d.kz_line[16], d.kz_line[21], d.kz_line[40], d.kz_line[50]);
    /* line 5 */
    CHECK(d.dtmin == 2.0e-5 && d.rmin == 0.001 && d.etau == 0.2 && d.eclose == 1.0 &&
              d.gmin == 1.0e-6 && d.gmax == 0.001,
          "%s line 5: %g %g %g %g %g %g", e->path, d.dtmin, d.rmin, d.etau, d.eclose, d.gmin,
          d.gmax);
    /* line 6 */
    CHECK(d.alphas == e->alphas && d.body1 == e->body1 && d.bodyn == e->bodyn && d.nbin0 == 0 &&
              d.nhi0 == 0 && d.zmet == 0.002 && d.epoch0 == 0.0 && d.dtplot == 5.0,
          "%s line 6: %g %g %g %d %d %g %g %g", e->path, d.alphas, d.body1, d.bodyn, d.nbin0,
          d.nhi0, d.zmet, d.epoch0, d.dtplot);
    /* line 8 */
    CHECK(d.q == 0.5 && d.vxrot == 0.0 && d.vzrot == 0.0 && d.rtide == 0.0 && d.smax == e->smax,
          "%s line 8: %g %g %g %g %g", e->path, d.q, d.vxrot, d.vzrot, d.rtide, d.smax);
    CHECK(!d.has_restart_times && !d.has_restart_accuracy, "%s is a new run", e->path);
    /* KZ(2) = 1 (checkpoints) and KZ(16) = 1 (KS thresholds) are implemented */
    CHECK(strstr(d.notes, "KZ(21) = 1") && !strstr(d.notes, "KZ(2)") && !strstr(d.notes, "KZ(16)") &&
              !strstr(d.notes, "KZ(5)") && !strstr(d.notes, "KZ(40)"),
          "%s notes KZ(21) only", e->path);
}

/* The core-collapse acceptance decks (scripts/cc-acceptance.sh): not of the
 * sample family above; what the runs rely on. */
typedef struct acceptance {
    const char *path;
    int n, nrand;
    double tcrit, dtadj, deltat, alphas;
} acceptance;

static void check_acceptance_deck(const acceptance *e)
{
    deck d;
    char err[512];
    int rc = deck_read_path(e->path, &d, err, sizeof err);
    CHECK(rc == 0, "%s reads (%s)", e->path, rc ? err : "ok");
    if (rc)
        return;
    CHECK(d.n == e->n && d.nrand == e->nrand && d.tcrit == e->tcrit && d.dtadj == e->dtadj &&
              d.deltat == e->deltat && d.qe == 2.0e-4 && d.alphas == e->alphas && d.kz[15] == 1 &&
              d.kz[30] == 1 && d.kz[5] == 1 && d.nbin0 == 0,
          "%s: N %d NRAND %d TCRIT %g DTADJ %g DELTAT %g QE %g ALPHAS %g KZ(5) %d KZ(15) %d "
          "KZ(30) %d NBIN0 %d", e->path, d.n, d.nrand, d.tcrit, d.dtadj, d.deltat, d.qe, d.alphas,
          d.kz[5], d.kz[15], d.kz[30], d.nbin0);
}

/* Issue 15's benchmark deck: the options a production run sets, as the
 * README's input table states them. */
static void check_roche_deck(const char *path)
{
    deck d;
    char err[512];
    int rc = deck_read_path(path, &d, err, sizeof err);
    CHECK(rc == 0, "%s reads (%s)", path, rc ? err : "ok");
    if (rc)
        return;
    CHECK(d.n == 4096 && d.ncrit == 50 && d.tcrit == 2000.0 && d.rbar == 3.8 && d.kz[5] == 1 &&
              d.kz[8] == 4 && d.kz[14] == 1 && d.kz[20] == 6 && d.kz[23] == 2 && d.kz[15] == 1 &&
              d.kz[30] == 1 && d.nbin0 == 410 && d.body1 == 20.0 && d.bodyn == 0.08 &&
              d.ecc0 < 0.0,
          "%s: N %d NCRIT %d TCRIT %g RBAR %g KZ(8) %d KZ(14) %d KZ(20) %d KZ(23) %d NBIN0 %d "
          "BODY1 %g BODYN %g ECC0 %g", path, d.n, d.ncrit, d.tcrit, d.rbar, d.kz[8], d.kz[14],
          d.kz[20], d.kz[23], d.nbin0, d.body1, d.bodyn, d.ecc0);
}

static void test_input_decks(void)
{
    static const expected E[] = {
        {"input/plummer-eq-1024-t2.deck", 1024, 80, 1, 0.3, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0},
        {"input/plummer-eq-4096-t2.deck", 4096, 120, 1, 0.19, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0},
        {"input/plummer-eq-32768.deck", 32768, 250, 3, 0.12, 4.1, 1.0, 1.0, 1.0, 0.125, 2.0},
        {"input/plummer-eq-65536.deck", 65536, 300, 3, 0.10, 4.1, 1.0, 1.0, 1.0, 0.125, 2.0},
        {"input/plummer-eq-131072.deck", 131072, 400, 3, 0.08, 4.1, 1.0, 1.0, 1.0, 0.125, 2.0},
        {"input/plummer-imf-1024-t2.deck", 1024, 80, 1, 0.3, 2.0, 2.3, 10.0, 0.1, 1.0, 2.0},
        {"input/plummer-imf-4096-t2.deck", 4096, 120, 1, 0.19, 2.0, 2.3, 10.0, 0.1, 1.0, 2.0},
        {"input/plummer-imf-16384-t2.deck", 16384, 200, 3, 0.14, 2.0, 2.3, 10.0, 0.1, 1.0, 2.0},
        {"input/plummer-imf-32768-t2.deck", 32768, 250, 3, 0.12, 2.0, 2.3, 10.0, 0.1, 0.125, 2.0},
        {"input/default-imf-4096-t10.deck", 4096, 120, 1, 0.19, 10.0, 2.3, 10.0, 0.1, 1.0, 1.0},
    };
    static const acceptance A[] = {
        {"input/cc-plummer-2048.deck", 2048, 12345, 900.0, 10.0, 10.0, 1.0},
        {"input/plummer-imf-1024-t200.deck", 1024, 199, 200.0, 2.0, 10.0, 2.3},
    };
    size_t ne = sizeof E / sizeof E[0], na = sizeof A / sizeof A[0];
    for (size_t i = 0; i < ne; i++)
        check_input_deck(&E[i]);
    for (size_t i = 0; i < na; i++)
        check_acceptance_deck(&A[i]);
    static const char roche[] = "input/roche-kroupa-4096-bin10.deck";
    check_roche_deck(roche);
    /* and no deck in input/ is left out of the table above */
    DIR *dir = opendir("input");
    CHECK(dir != NULL, "input/ opens");
    if (!dir)
        return;
    struct dirent *de;
    int missing = 0, seen = 0;
    while ((de = readdir(dir))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 5, ".deck"))
            continue;
        seen++;
        int found = 0;
        for (size_t i = 0; i < ne; i++)
            if (!strcmp(E[i].path + strlen("input/"), de->d_name)) found = 1;
        for (size_t i = 0; i < na; i++)
            if (!strcmp(A[i].path + strlen("input/"), de->d_name)) found = 1;
        if (!strcmp(roche + strlen("input/"), de->d_name)) found = 1;
        if (!found) {
            printf("# input/%s is not in the test's table\n", de->d_name);
            missing++;
        }
    }
    closedir(dir);
    CHECK(missing == 0 && seen == (int)(ne + na + 1), "every deck in input/ (%d) is checked", seen);
}

/* ---- the list-directed rules ---- */

static void test_good_string(void)
{
    deck d;
    char err[512];
    int rc = parse(GOOD, &d, err, sizeof err);
    CHECK(rc == 0 && d.n == 1024 && d.qe == 2.0e-4 && d.smax == 1.0,
          "the sample deck as a string reads (%s)", rc ? err : "ok");
}

/* An output or check time that is not a multiple of SMAX measures bodies in
 * mid-step: a note says so (and none where they are multiples). */
static void test_checks_between_smax(void)
{
    deck d;
    char err[512];
    int rc = parse(GOOD, &d, err, sizeof err);
    CHECK(rc == 0 && !strstr(d.notes, "multiple of SMAX"), "DELTAT = DTADJ = 2, SMAX 1: no mid-step note");
    rc = parse(L1 L2 "0.02 0.01 0.3 2.0 0.25 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8 TAIL, &d, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "DELTAT 0.25 or DTADJ 2 is not a multiple of SMAX 1"),
          "DELTAT 0.25, SMAX 1: the mid-step note (%s)", rc ? err : d.notes);
    rc = parse(L1 L2 "0.02 0.01 0.3 0.5 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 "0.5 0.0 0.0 0.0 0.25\n" TAIL, &d, err,
               sizeof err);
    CHECK(rc == 0 && !strstr(d.notes, "multiple of SMAX"), "DTADJ 0.5, SMAX 0.25: no note");
}

static void test_exponents(void)
{
    deck d;
    char err[512];
    int rc = parse(L1 L2 "0.02 1.0D-2 .3 2 2.0e0 2.0d+00 2.0d-04 1.0E0 5.0-1\n" KZ L5 L6 L8, &d,
                   err, sizeof err);
    CHECK(rc == 0 && d.etar == 0.01 && d.rs0 == 0.3 && d.dtadj == 2.0 && d.deltat == 2.0 &&
              d.tcrit == 2.0 && d.qe == 2.0e-4 && d.rbar == 1.0 && d.zmbar == 0.5,
          "D/d/E exponents, integer form, leading '.', sign-only exponent (%s): ETAR %g RS0 %g "
          "QE %g ZMBAR %g",
          rc ? err : "ok", d.etar, d.rs0, d.qe, d.zmbar);
}

static void test_repeat_counts(void)
{
    deck d;
    char err[512];
    /* positions: 1 0, 2 1, 3-4 0, 5 1, 6-15 0, 16 1, 17-39 0 (23), 40 3, 41-50 0 */
    int rc = parse(L1 L2 L3 "0 1 2*0 1 10*0 1 23*0 3 10*0\n" L5 L6 "0.5 3*0.0 0.125\n", &d, err,
                   sizeof err);
    int ok = rc == 0;
    for (int k = 1; k <= DECK_NKZ && ok; k++) {
        int want = (k == 2 || k == 5 || k == 16) ? 1 : k == 40 ? 3 : 0;
        ok = d.kz[k] == want;
    }
    CHECK(ok && d.smax == 0.125 && d.q == 0.5, "r*c repeats integers and reals (%s)",
          rc ? err : "ok");

    rc = parse(L1 L2 L3 KZ L5 L6 "0.5 3* 1.0\n", &d, err, sizeof err);
    CHECK(rc == 0 && d.q == 0.5 && d.vxrot == 0 && d.vzrot == 0 && d.rtide == 0 && d.smax == 1.0,
          "r* skips r values, leaving them unchanged (%s)", rc ? err : "ok");

    rc = parse(L1 L2 L3 "0 1 0 0 1 0 0 0 0 0 0*5 " KZB KZC KZD KZE L5 L6 L8, &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:4: KZ(11): bad repeat count"), "0*5 is refused: %s",
          err);
}

static void test_null_values(void)
{
    deck d;
    char err[512];
    int rc = parse(L1 L2 L3 KZ L5 L6 "0.5,,,,1.0\n", &d, err, sizeof err);
    CHECK(rc == 0 && d.q == 0.5 && d.vxrot == 0 && d.rtide == 0 && d.smax == 1.0,
          "',,' leaves values unchanged (%s)", rc ? err : "ok");

    rc = parse(L1 "1024, 1 ,10,\t199 ,80,1\n" L3 KZ L5 L6 L8, &d, err, sizeof err);
    CHECK(rc == 0 && d.n == 1024 && d.nfix == 1 && d.ncrit == 10 && d.nrand == 199 &&
              d.nnbmax == 80 && d.nrun == 1,
          "commas with blanks around them separate once (%s)", rc ? err : "ok");

    rc = parse(",10000.0\n" L2 L3 KZ L5 L6 L8, &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:1: KSTART:"),
          "a leading comma is a null value (KSTART stays 0 and is refused): %s", err);

    rc = parse(L1 "1024 1 10 199 80,\n,1\n" L3 KZ L5 L6 L8, &d, err, sizeof err);
    CHECK(rc == 0 && d.nnbmax == 80 && d.nrun == 0 && d.etai == 0.02,
          "a comma ending a line and one starting the next make a null value (%s)",
          rc ? err : "ok");
}

static void test_slash(void)
{
    deck d;
    char err[512];
    int rc = parse(L1 L2 L3 KZ L5 "2.3 10.0 0.1 / 7 7 7\n" L8, &d, err, sizeof err);
    CHECK(rc == 0 && d.alphas == 2.3 && d.bodyn == 0.1 && d.nbin0 == 0 && d.zmet == 0 &&
              d.dtplot == 0 && d.q == 0.5 && d.smax == 1.0,
          "'/' ends the read, the rest unchanged, the next read starts on the next line (%s)",
          rc ? err : "ok");

    rc = parse(L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 / 1.0\n", &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:11: SMAX:"),
          "'/' before SMAX leaves it 0, which is refused: %s", err);

    rc = parse(L1 L2 L3 "0 1 0 0 1 /\n" L5 L6 L8, &d, err, sizeof err);
    CHECK(rc == 0 && d.kz[2] == 1 && d.kz[5] == 1 && d.kz[40] == 0 && d.dtmin == 2.0e-5,
          "'/' inside the KZ read (%s)", rc ? err : "ok");
}

static void test_layout(void)
{
    deck d;
    char err[512];
    /* line 3 over three lines with a comment on the last; all 50 KZ on one */
    int rc = parse(L1 L2 "0.02 0.01 0.3\n2.0 2.0\n\n 2.0 2.0D-04 1.0 0.5 comment\n"
                         "0 1 0 0 1 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 1 0 0 0 0 0 0 0 0 0 "
                         "0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 KZ(1..50)\n" L5 L6 L8,
                   &d, err, sizeof err);
    CHECK(rc == 0 && d.tcrit == 2.0 && d.zmbar == 0.5 && d.kz[16] == 1 && d.kz[40] == 1 &&
              d.kz_line[1] == 7 && d.kz_line[50] == 7 && d.dtmin == 2.0e-5,
          "values spread over lines (blank line included), trailing comment ignored (%s)",
          rc ? err : "ok");
    rc = parse(L1 L2 "0.02 0.01 0.3 2.0\n2.0 abc\n", &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:4: TCRIT: expected a real number, found 'abc'"),
          "the line of a value on a continuation line: %s", err);

    rc = parse("1 10000.0 KSTART TCOMP: a new run\n1024 1 10 199 80 1 ! N NFIX\n" L3 KZ L5
               "2.3 10.0 0.1 0 0 0.002 0.0 5.0 ALPHAS BODY1 BODYN\n" L8,
               &d, err, sizeof err);
    CHECK(rc == 0 && d.tcomp == 10000.0 && d.nrun == 1 && d.dtplot == 5.0,
          "text after the needed values is ignored (%s)", rc ? err : "ok");

    rc = parse("1\t10000.0\n1024\t1\t10\t199\t80\t1\n\t0.02\t0.01 0.3\t2.0 2.0 2.0 2.0D-04 1.0 "
               "0.5\n" KZ L5 L6 L8,
               &d, err, sizeof err);
    CHECK(rc == 0 && d.n == 1024 && d.nrand == 199 && d.etai == 0.02 && d.zmbar == 0.5,
          "tabs separate values (%s)", rc ? err : "ok");

    rc = parse("1 10000.0\r\n1024 1 10 199 80 1\r\n0.02 0.01 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\r\n"
               "0 1 0 0 1 0 0 0 0 0\r\n0 0 0 0 0 1 0 0 0 0\r\n1 0 0 0 0 0 0 0 0 0\r\n"
               "0 0 0 0 0 0 0 0 0 1\r\n0 0 0 0 0 0 0 0 0 0\r\n"
               "2.0E-05 0.001 0.2 1.0 1.0E-06 0.001\r\n2.3 10.0 0.1 0 0 0.002 0.0 5.0\r\n"
               "0.5 0.0 0.0 0.0 1.0\r\n20000.0 2 0\r\n",
               &d, err, sizeof err);
    CHECK(rc == 0 && d.nrun == 1 && d.zmbar == 0.5 && d.kz[40] == 1 && d.gmax == 0.001 &&
              d.dtplot == 5.0 && d.smax == 1.0,
          "CRLF line ends (%s)", rc ? err : "ok");

    rc = parse(L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 1.0", &d, err, sizeof err);
    CHECK(rc == 0 && d.smax == 1.0, "no newline at the end of the last line (%s)",
          rc ? err : "ok");
}

/* ---- broken decks ---- */

typedef struct broken {
    const char *what;
    const char *text;
    const char *want; /* must occur in the message */
} broken;

static void test_broken(void)
{
    static const broken B[] = {
        {"empty deck", "", "x.deck: empty deck"},
        {"blank deck", "  \n\t\n\n", "x.deck: empty deck"},
        {"truncated in the KZ lines", L1 L2 L3 KZA "0 0 0 0 0 1 0\n",
         "x.deck:5: end of file while reading KZ(18)"},
        {"truncated after line 3", L1 L2 L3, "x.deck:3: end of file while reading KZ(1)"},
        {"non-numeric integer", L1 "1024 1 abc 199 80 1\n" L3 KZ L5 L6 L8,
         "x.deck:2: NCRIT: expected an integer, found 'abc'"},
        {"real for an integer", L1 "1024.0 1 10 199 80 1\n" L3 KZ L5 L6 L8,
         "x.deck:2: N: expected an integer, found '1024.0'"},
        {"real for a KZ", L1 L2 L3 KZA KZB "1.5 0 0 0 0 0 0 0 0 0\n" KZD KZE L5 L6 L8,
         "x.deck:6: KZ(21): expected an integer, found '1.5'"},
        {"non-numeric real", L1 L2 "0.02 0.01 0.3 2.0 2.0 2.0 2.0Q-04x 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: QE: expected a real number"},
        {"hex float", L1 L2 "0x1p-6 0.01 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: ETAI: expected a real number"},
        {"N = 0", L1 "0 1 10 199 80 1\n" L3 KZ L5 L6 L8, "x.deck:2: N:"},
        {"N negative", L1 "-5 1 10 199 80 1\n" L3 KZ L5 L6 L8, "x.deck:2: N:"},
        {"N overflowing an int", L1 "99999999999 1 10 199 80 1\n" L3 KZ L5 L6 L8,
         "x.deck:2: N: integer '99999999999' is out of range"},
        {"NNBMAX 0", L1 "1024 1 10 199 0 1\n" L3 KZ L5 L6 L8, "x.deck:2: NNBMAX:"},
        {"negative TCRIT", L1 L2 "0.02 0.01 0.3 2.0 2.0 -1.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: TCRIT:"},
        {"ETAI above 0.08", L1 L2 "0.1 0.01 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: ETAI: 0.1 exceeds NBODY6's limit 0.08"},
        {"ETAR above 0.16", L1 L2 "0.02 0.2 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: ETAR: 0.2 exceeds NBODY6's limit 0.16"},
        {"ETAI zero", L1 L2 "0 0.01 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: ETAI: must be positive"},
        {"DTADJ zero", L1 L2 "0.02 0.01 0.3 0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: DTADJ: must be positive"},
        {"DELTAT negative", L1 L2 "0.02 0.01 0.3 2.0 -2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: DELTAT: must be positive"},
        {"RS0 zero", L1 L2 "0.02 0.01 0 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: RS0: must be positive"},
        {"ETAU above 0.5", L1 L2 L3 KZ "2.0E-05 0.001 0.6 1.0 1.0E-06 0.001\n" L6 L8,
         "x.deck:9: ETAU: 0.6 exceeds NBODY6's limit 0.5"},
        {"GMIN above 1e-4", L1 L2 L3 KZ "2.0E-05 0.001 0.2 1.0 1.0E-03 0.001\n" L6 L8,
         "x.deck:9: GMIN: 0.001 exceeds NBODY6's limit 0.0001"},
        {"GMAX above 0.1", L1 L2 L3 KZ "2.0E-05 0.001 0.2 1.0 1.0E-06 0.5\n" L6 L8,
         "x.deck:9: GMAX: 0.5 exceeds NBODY6's limit 0.1"},
        {"KZ(14) = 3", L1 L2 L3 KZA "0 0 0 3 0 1 0 0 0 0\n" KZC KZD KZE L5 L6 L8,
         "x.deck:5: KZ(14) = 3: this external tidal field is not implemented (refused)"},
        {"KZ(14) = 4 refused before the missing line 5 would be read",
         L1 L2 L3 KZA "0 0 0 4 0 1 0 0 0 0\n" KZC KZD KZE,
         "x.deck:5: KZ(14) = 4: this external tidal field is not implemented (refused)"},
        {"KZ(14) = 2 without its GMG RG0 line", L1 L2 L3 KZA "0 0 0 2 0 1 0 0 0 0\n" KZC KZD KZE L5 L6 L8,
         "end of file while reading GMG"},
        {"KZ(14) = 2 with GMG = 0", L1 L2 L3 KZA "0 0 0 2 0 1 0 0 0 0\n" KZC KZD KZE L5 L6 L8 "0.0 8.5\n",
         "x.deck:12: GMG: the point-mass galaxy of KZ(14) = 2 needs a positive mass"},
        {"KZ(14) = 2 with RG0 < 0", L1 L2 L3 KZA "0 0 0 2 0 1 0 0 0 0\n" KZC KZD KZE L5 L6 L8 "1e11 -8.5\n",
         "x.deck:12: RG0: the galactocentric radius of KZ(14) = 2 must be positive"},
        {"KZ(8) = -1 (negative counts)", L1 L2 L3 "0 1 0 0 1 0 0 -1 0 0\n" KZB KZC KZD KZE L5 L6 L8,
         "x.deck:4: KZ(8) = -1: primordial binaries"},
        {"KZ(19) = 1", L1 L2 L3 KZA "0 0 0 0 0 1 0 0 1 0\n" KZC KZD KZE L5 L6 L8,
         "x.deck:5: KZ(19) = 1: this stellar evolution is not implemented (refused)"},
        {"KZ(19) = 4", L1 L2 L3 KZA "0 0 0 0 0 1 0 0 4 0\n" KZC KZD KZE L5 L6 L8,
         "x.deck:5: KZ(19) = 4: this stellar evolution is not implemented (refused)"},
        {"KZ(5) = 2", L1 L2 L3 "0 1 0 0 2 0 0 0 0 0\n" KZB KZC KZD KZE L5 L6 L8,
         "x.deck:4: KZ(5) = 2: this initial model is not implemented"},
        {"KZ(20) = 2", L1 L2 L3 KZA "0 0 0 0 0 1 0 0 0 2\n" KZC KZD KZE L5 L6 L8,
         "x.deck:5: KZ(20) = 2: this initial mass function is not implemented"},
        {"KZ(22) = 4", L1 L2 L3 KZA KZB "1 4 0 0 0 0 0 0 0 0\n" KZD KZE L5 L6 L8,
         "x.deck:6: KZ(22) = 4:"},
        {"KZ(40) = 4", L1 L2 L3 KZA KZB KZC "0 0 0 0 0 0 0 0 0 4\n" KZE L5 L6 L8,
         "x.deck:7: KZ(40) = 4:"},
        {"KZ(16) = 3", L1 L2 L3 KZA "0 0 0 0 0 3 0 0 0 0\n" KZC KZD KZE L5 L6 L8,
         "x.deck:5: KZ(16) = 3:"},
        {"KZ(49) = 1 on the last KZ line", L1 L2 L3 KZA KZB KZC KZD "0 0 0 0 0 0 0 0 1 0\n" L5 L6 L8,
         "x.deck:8: KZ(49) = 1:"},
        {"nan", L1 L2 "0.02 nan 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: ETAR: 'nan' is not a finite number"},
        {"-Infinity", L1 L2 L3 KZ L5 L6 "0.5 0.0 -Infinity 0.0 1.0\n",
         "x.deck:11: VZROT: '-Infinity' is not a finite number"},
        {"1e999", L1 L2 "0.02 0.01 0.3 2.0 2.0 1e999 2.0D-04 1.0 0.5\n" KZ L5 L6 L8,
         "x.deck:3: TCRIT: '1e999' overflows a double"},
        {"1D999 in TCOMP", "1 1D999\n" L2 L3 KZ L5 L6 L8, "x.deck:1: TCOMP: '1D999' overflows"},
        {"SMAX 0.3", L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 0.3\n",
         "x.deck:11: SMAX: 0.3 is not a positive power of two"},
        {"SMAX 0", L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 0\n", "x.deck:11: SMAX:"},
        {"SMAX -0.5", L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 -0.5\n", "x.deck:11: SMAX:"},
        {"Q negative", L1 L2 L3 KZ L5 L6 "-0.5 0.0 0.0 0.0 1.0\n", "x.deck:11: Q:"},
        {"NBIN0 = 5", L1 L2 L3 KZ L5 "2.3 10.0 0.1 5 0 0.002 0.0 5.0\n" L8,
         "x.deck:10: NBIN0: 5 primordial binaries"},
        {"NHI0 = 2", L1 L2 L3 KZ L5 "2.3 10.0 0.1 0 2 0.002 0.0 5.0\n" L8, "x.deck:10: NHI0:"},
        {"BODY1 = 0 with a power law", L1 L2 L3 KZ L5 "2.3 0.0 0.1 0 0 0.002 0.0 5.0\n" L8,
         "x.deck:10: BODY1:"},
        {"BODYN negative with a power law", L1 L2 L3 KZ L5 "2.3 10.0 -0.1 0 0 0.002 0.0 5.0\n" L8,
         "x.deck:10: BODYN:"},
        {"BODY1 below BODYN", L1 L2 L3 KZ L5 "2.3 0.1 10.0 0 0 0.002 0.0 5.0\n" L8,
         "x.deck:10: BODY1: 0.1 is below BODYN = 10"},
        {"Q = 5", L1 L2 L3 KZ L5 L6 "5.0 0.0 0.0 0.0 1.0\n", "x.deck:11: Q: the virial ratio 5"},
        {"RBAR = 0 with a tidal field", L1 L2 "0.02 0.01 0.3 2.0 2.0 2.0 2.0D-04 0.0 0.5\n"
         "0 0 0 0 1 0 0 0 0 0\n0 0 0 1 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n"
         "0 0 0 0 0 0 0 0 0 0\n" L5 L6 L8, "x.deck:3: RBAR: 0 pc with KZ(14) = 1 (line 5)"},
        {"KSTART = 7", "7 10000.0\n" L2, "x.deck:1: KSTART: 7 is not"},
        {"KSTART = 0", "0 10000.0\n" L2, "x.deck:1: KSTART: 0 is not"},
        {"restart with KZ(J) refused", "3 100.0\n0 0 0 0 0 0 14 3\n",
         "x.deck:2: KZ(14) = 3: this external tidal field"},
        {"restart with J > 50", "3 100.0\n0 0 0 0 0 0 51 1\n", "x.deck:2: J: 51"},
        {"restart with ETAI above 0.08", "4 100.0\n0.09 0 0 0 0 0\n",
         "x.deck:2: ETAI: 0.09 exceeds NBODY6's limit 0.08"},
        {"restart truncated", "5 100.0\n1.0 2.0 0 0 10.0 1.0E-5 0 0\n",
         "x.deck:2: end of file while reading ETAI"},
    };
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
        deck d;
        char err[512];
        int rc = parse(B[i].text, &d, err, sizeof err);
        CHECK(rc != 0 && strstr(err, B[i].want), "%s fails with \"%s\": got \"%s\"", B[i].what,
              B[i].want, rc ? err : "(no error)");
    }

    /* Valid edge cases next to the refused ones. */
    static const broken G[] = {
        {"SMAX 2^-5", L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 0.03125\n", NULL},
        {"SMAX 4", L1 L2 L3 KZ L5 L6 "0.5 0.0 0.0 0.0 4\n", NULL},
        {"ETAI exactly 0.08", L1 L2 "0.08 0.16 0.3 2.0 2.0 2.0 2.0D-04 1.0 0.5\n" KZ L5 L6 L8, NULL},
        {"BODY1 = 0 with ALPHAS = 1 (equal masses)", L1 L2 L3 KZ L5 "1.0 0.0 0.1 0 0 0 0 0\n" L8,
         NULL},
        {"NBIN0 negative", L1 L2 L3 KZ L5 "2.3 10.0 0.1 -1 0 0.002 0.0 5.0\n" L8, NULL},
        {"underflow 1e-999 reads as 0", L1 L2 L3 KZ L5 L6 "0.5 1e-999 0.0 0.0 1.0\n", NULL},
        {"KZ(22) = 1..3, KZ(7) = 6, KZ(36) = -3, KZ(50) = 9",
         L1 L2 L3 "0 1 0 0 1 0 6 0 0 0\n" KZB "1 3 0 0 0 0 0 0 0 0\n"
                  "0 0 0 0 0 -3 0 0 0 1\n0 0 0 0 0 0 0 0 0 9\n" L5 L6 L8,
         NULL},
        {"KZ(5) = 0 uniform sphere", L1 L2 L3 KZA KZB KZC KZD KZE L5 L6 L8, NULL},
        {"a deck with only a restart line", "2 100.0\n", NULL},
    };
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        deck d;
        char err[512];
        int rc = parse(G[i].text, &d, err, sizeof err);
        CHECK(rc == 0, "%s is accepted (%s)", G[i].what, rc ? err : "ok");
    }

    deck d;
    char err[512];
    int rc = deck_read_path("tests/no-such-deck.deck", &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "tests/no-such-deck.deck: cannot open"), "a missing file: %s",
          err);
}

/* ---- the primordial binaries' line (KZ(8) = 1 or >= 3, binpop.f) ---- */

#define KZ8(v) "0 1 0 0 1 0 0 " #v " 0 0\n" KZB KZC KZD KZE
#define L6B(nbin) "2.3 10.0 0.1 " #nbin " 0 0.002 0.0 5.0\n"

static void test_binpop_line(void)
{
    deck d;
    char err[512];
    int rc = parse(L1 L2 L3 KZ8(1) L5 L6B(100) L8 "0.001 -1.0 0.6 10.0 2 0 0  trailing words\n"
                   "20000.0 2 0\n", &d, err, sizeof err);
    CHECK(rc == 0 && d.has_binpop && d.nbin0 == 100 && d.semi0 == 0.001 && d.ecc0 == -1.0 &&
              d.ratio == 0.6 && d.range == 10.0 && d.nskip == 2 && d.idorm == 0 && d.icirc == 0,
          "KZ(8) = 1: SEMI0 ECC0 RATIO RANGE NSKIP IDORM ICIRC read after line 8 (%s)",
          rc ? err : "ok");
    rc = parse(L1 L2 L3 KZ8(1) L5 L6 L8 "0.001 0.0 1.0 0 0 0 0\n", &d, err, sizeof err);
    CHECK(rc == 0 && d.has_binpop && d.ratio == 1.0,
          "KZ(8) = 1 with NBIN0 = 0 still reads its line, as binpop.f does (%s)", rc ? err : "ok");
    rc = parse(L1 L2 L3 KZ8(4) L5 L6B(10) L8 "0 -1 0.5 0 0 0 0\n", &d, err, sizeof err);
    CHECK(rc == 0, "KZ(8) = 4 (Kroupa periods) needs no SEMI0 (%s)", rc ? err : "ok");
    rc = parse(L1 L2 L3 KZ L5 L6B(-3) L8, &d, err, sizeof err);
    CHECK(rc == 0 && !d.has_binpop, "KZ(8) = 0 reads no binaries' line (%s)", rc ? err : "ok");

    static const broken B[] = {
        {"the line missing", L1 L2 L3 KZ8(1) L5 L6B(10) L8,
         "x.deck:11: end of file while reading SEMI0"},
        {"ICIRC = 1", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0.001 -1 0.5 10 0 0 1\n",
         "x.deck:12: ICIRC: 1 (eigen-evolution"},
        {"ICIRC = 2", L1 L2 L3 KZ8(3) L5 L6B(10) L8 "0.001 -1 0.5 10 0 0 2\n",
         "x.deck:12: ICIRC: 2 (Kroupa (1995)"},
        {"RATIO = 0", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0.001 -1 0 10 0 0 0\n",
         "x.deck:12: RATIO: 0 is not a mass fraction"},
        {"RATIO above 1", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0.001 -1 1.5 10 0 0 0\n",
         "x.deck:12: RATIO: 1.5"},
        {"ECC0 = 1", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0.001 1.0 0.5 10 0 0 0\n",
         "x.deck:12: ECC0: 1 does not make a bound binary"},
        {"SEMI0 = 0", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0 -1 0.5 10 0 0 0\n",
         "x.deck:12: SEMI0: the binaries' semi-major axis must be positive"},
        {"NSKIP negative", L1 L2 L3 KZ8(1) L5 L6B(10) L8 "0.001 -1 0.5 10 -1 0 0\n",
         "x.deck:12: NSKIP: must not be negative"},
        {"RATIO = 1 with 2 NBIN0 > N", L1 L2 L3 KZ8(1) L5 L6B(513) L8 "0.001 -1 1.0 10 0 0 0\n",
         "x.deck:12: RATIO: 1 makes each of NBIN0 = 513 binaries"},
        {"NBIN0 > N", L1 L2 L3 KZ8(1) L5 L6B(1025) L8 "0.001 -1 0.5 10 0 0 0\n",
         "x.deck:10: NBIN0: 1025 binaries need"},
        {"NSKIP beyond N", L1 L2 L3 KZ8(1) L5 L6B(300) L8 "0.001 -1 0.5 10 3 0 0\n",
         "x.deck:12: NSKIP: 3 takes every 4-th of the first 1200 masses"},
        {"NBIN0 with KZ(8) = 0 and a model", L1 L2 L3 KZ L5 L6B(5) L8,
         "x.deck:10: NBIN0: 5 primordial binaries requested with KZ(8) = 0 (refused)"},
        {"NBIN0 with KZ(8) = 2 and a model", L1 L2 L3 KZ8(2) L5 L6B(5) L8,
         "x.deck:10: NBIN0: 5 primordial binaries requested with KZ(8) = 2 (refused)"},
        {"NBIN0 pairs beyond a file's N", L1 L2 L3 KZA KZB "0 3 0 0 0 0 0 0 0 0\n" KZD KZE L5
         L6B(513) L8, "x.deck:10: NBIN0: 513 pairs need 1026 bodies of the file"},
    };
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
        rc = parse(B[i].text, &d, err, sizeof err);
        CHECK(rc != 0 && strstr(err, B[i].want), "%s fails with \"%s\": got \"%s\"", B[i].what,
              B[i].want, rc ? err : "(no error)");
    }
    rc = parse(L1 L2 L3 KZA KZB "0 3 0 0 0 0 0 0 0 0\n" KZD KZE L5 L6B(5) L8, &d, err, sizeof err);
    CHECK(rc == 0 && !d.has_binpop,
          "NBIN0 with KZ(8) = 0 and KZ(22) = 3: the file's first pairs, no line (%s)",
          rc ? err : "ok");
    CHECK(kz_status_of(8, 1) == KZ_IMPLEMENTED && kz_status_of(8, 2) == KZ_IMPLEMENTED &&
              kz_status_of(8, 4) == KZ_IMPLEMENTED && kz_status_of(8, 7) == KZ_IMPLEMENTED &&
              kz_status_of(8, -1) == KZ_REFUSED,
          "KZ(8): 0..7 accepted, negative refused");
    memset(&d, 0, sizeof d);
    d.kz[8] = 4;
    rc = kz_check(&d, "y.deck", 1, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "KZ(8) = 4: NBODY6's extra KS search of wide binaries"),
          "KZ(8) >= 3 notes that sweep.f is not active: %s", d.notes);
}

/* ---- restarts ---- */

static void test_restart(void)
{
    deck d;
    char err[512];
    int rc = parse("5 100.0\n1.0 2.0 0 0 10.0 1.0E-5 10 2 DTADJ ... KZ(J)\n"
                   "0.01 0.02 0.1 -1 0 5 ETAI ... NCRIT\n" L3,
                   &d, err, sizeof err);
    CHECK(rc == 0 && d.kstart == 5 && d.tcomp == 100.0 && d.has_restart_times &&
              d.r_dtadj == 1.0 && d.r_deltat == 2.0 && d.r_tadj == 0 && d.r_tnext == 0 &&
              d.r_tcrit == 10.0 && d.r_qe == 1.0e-5 && d.r_j == 10 && d.r_kzj == 2 &&
              d.has_restart_accuracy && d.r_etai == 0.01 && d.r_etar == 0.02 && d.r_etau == 0.1 &&
              d.r_dtmin == -1 && d.r_rmin == 0 && d.r_ncrit == 5 && d.n == 0,
          "KSTART = 5 reads the times line then the accuracy line (%s)", rc ? err : "ok");
    CHECK(strstr(d.notes, "KZ(10) = 2") != NULL, "the restart's KZ(J) is noted: %s", d.notes);

    rc = parse("3 100.0\n1.0 2.0 0 0 10.0 1.0E-5 0 0\n", &d, err, sizeof err);
    CHECK(rc == 0 && d.has_restart_times && !d.has_restart_accuracy && d.r_tcrit == 10.0,
          "KSTART = 3 reads the times line only (%s)", rc ? err : "ok");
    rc = parse("4 100.0\n0.01 0.02 0.1 -1 0 5\n", &d, err, sizeof err);
    CHECK(rc == 0 && !d.has_restart_times && d.has_restart_accuracy && d.r_ncrit == 5,
          "KSTART = 4 reads the accuracy line only (%s)", rc ? err : "ok");
    rc = parse("2 100.0\n" L2, &d, err, sizeof err);
    CHECK(rc == 0 && d.kstart == 2 && !d.has_restart_times && !d.has_restart_accuracy && d.n == 0,
          "KSTART = 2 reads line 1 only (%s)", rc ? err : "ok");
}

/* KZ(19) = 3's inputs on line 6 (and RBAR on line 3). */
static void test_evolution_inputs(void)
{
    deck d;
    char err[1024];
    const char *sev = L1 L2 "0.02 0.01 0.3 2.0 2.0 2.0 2.0D-04 %s 0.5\n" KZA "0 0 0 0 0 1 0 0 3 0\n" KZC KZD
        KZE L5 "2.3 %s 0.1 0 0 %s %s 5.0\n" L8;
    char text[2048];
    snprintf(text, sizeof text, sev, "1.0", "10.0", "0.05", "0.0");
    int rc = parse(text, &d, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "ZMET = 0.05") && strstr(d.notes, "0.03 is used"),
          "KZ(19) = 3: ZMET 0.05 is clamped to 0.03 with a note (%s)", rc ? err : d.notes);
    snprintf(text, sizeof text, sev, "1.0", "10.0", "0.02", "-30.0");
    rc = parse(text, &d, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "30 Myr old"), "KZ(19) = 3: EPOCH0 = -30 noted as the stars' age (%s)",
          rc ? err : d.notes);
    snprintf(text, sizeof text, sev, "1.0", "10.0", "0.02", "10.0");
    rc = parse(text, &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:10: EPOCH0: 10 Myr"), "KZ(19) = 3: EPOCH0 > 0 refused at its line: %s",
          err);
    snprintf(text, sizeof text, sev, "0.0", "10.0", "0.02", "0.0");
    rc = parse(text, &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "x.deck:3: RBAR:") && strstr(err, "KZ(19) = 3"),
          "KZ(19) = 3 with RBAR = 0 refused at RBAR's line: %s", err);
    snprintf(text, sizeof text, sev, "1.0", "150.0", "0.02", "0.0");
    rc = parse(text, &d, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "x.deck:10: BODY1 = 150 Msun") && strstr(d.notes, "0.1-100 Msun"),
          "KZ(19) = 3: BODY1 above 100 Msun noted at its line (%s)", rc ? err : d.notes);
    snprintf(text, sizeof text, sev, "1.0", "100.0", "0.02", "0.0");
    rc = parse(text, &d, err, sizeof err);
    CHECK(rc == 0 && !strstr(d.notes, "BODY1 ="), "KZ(19) = 3: BODY1 = 100 Msun is not noted (%s)",
          rc ? err : d.notes);
    rc = parse(L1 L2 L3 KZA KZB "1 0 0 0 1 0 0 0 0 0\n" KZD KZE L5 L6 L8, &d, err, sizeof err);
    CHECK(rc == 0 && strstr(d.notes, "KZ(25) = 1: white-dwarf kicks need KZ(19) = 3"),
          "KZ(25) without KZ(19) = 3 noted as without effect (%s)", rc ? err : d.notes);
}

/* ---- the policy table ---- */

static void test_policy(void)
{
    int zero_ok = 1;
    for (int k = 1; k <= DECK_NKZ; k++)
        if (kz_status_of(k, 0) == KZ_REFUSED)
            zero_ok = 0;
    CHECK(zero_ok, "KZ(k) = 0 is accepted for every k");

    static const int refused[] = {11, 13, 19, 24, 26, 27, 28,
                                  29, 31, 32, 34, 35, 37, 38, 39, 41, 43, 49};
    int ref_ok = 1;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (kz_status_of(refused[i], 1) != KZ_REFUSED || kz_status_of(refused[i], -1) != KZ_REFUSED)
            ref_ok = 0;
    CHECK(ref_ok, "the physics options are refused for 1 and -1");
    CHECK(kz_status_of(19, 3) == KZ_IMPLEMENTED && kz_status_of(19, 2) == KZ_REFUSED &&
              kz_status_of(19, 4) == KZ_REFUSED && kz_status_of(19, 5) == KZ_REFUSED &&
              kz_status_of(25, 1) == KZ_IMPLEMENTED && kz_status_of(25, 2) == KZ_IMPLEMENTED &&
              kz_status_of(25, 3) == KZ_REFUSED && kz_status_of(25, -1) == KZ_REFUSED,
          "KZ(19): 3 (SSE) accepted, 1, 2, 4, 5 refused; KZ(25): 1, 2 (WD kicks) accepted, others refused");
    CHECK(kz_status_of(23, 1) == KZ_IMPLEMENTED && kz_status_of(23, 2) == KZ_IMPLEMENTED &&
              kz_status_of(23, -1) == KZ_REFUSED,
          "KZ(23): escaper removal (1, 2 with the escapers file) accepted, negative values refused");
    CHECK(kz_status_of(14, 1) == KZ_IMPLEMENTED && kz_status_of(14, 2) == KZ_IMPLEMENTED &&
              kz_status_of(14, 3) == KZ_REFUSED && kz_status_of(14, 4) == KZ_REFUSED &&
              kz_status_of(14, -1) == KZ_REFUSED,
          "KZ(14): 1 and 2 (linearised tidal fields) accepted, 3, 4 and negative values refused");
    CHECK(kz_status_of(18, 1) == KZ_IMPLEMENTED && kz_status_of(18, 2) == KZ_REFUSED &&
              kz_status_of(18, -1) == KZ_REFUSED,
          "KZ(18): 1 (hierarchy diagnostics) accepted, primordial triples (2, 3) refused");

    static const int diag[] = {4, 6, 9, 10, 12, 21, 33, 42, 44, 45, 48};
    int diag_ok = 1;
    for (size_t i = 0; i < sizeof diag / sizeof diag[0]; i++)
        if (kz_status_of(diag[i], 2) != KZ_DIAGNOSTICS_ONLY)
            diag_ok = 0;
    CHECK(diag_ok, "the diagnostics options are diagnostics-only");

    CHECK(kz_status_of(1, 1) == KZ_IMPLEMENTED && kz_status_of(1, -1) == KZ_REFUSED &&
              kz_status_of(2, 1) == KZ_IMPLEMENTED && kz_status_of(2, 2) == KZ_IMPLEMENTED &&
              kz_status_of(17, 1) == KZ_IMPLEMENTED && kz_status_of(17, 2) == KZ_IMPLEMENTED &&
              kz_status_of(17, 3) == KZ_REFUSED && kz_status_of(15, 1) == KZ_IMPLEMENTED &&
              kz_status_of(15, 3) == KZ_REFUSED && kz_status_of(30, 1) == KZ_IMPLEMENTED &&
              kz_status_of(30, -1) == KZ_REFUSED &&
              kz_status_of(2, 3) == KZ_REFUSED && kz_status_of(3, 1) == KZ_IMPLEMENTED &&
              kz_status_of(46, 1) == KZ_IMPLEMENTED && kz_status_of(47, 5) == KZ_IMPLEMENTED &&
              kz_status_of(16, 1) == KZ_IMPLEMENTED && kz_status_of(16, 2) == KZ_IMPLEMENTED &&
              kz_status_of(16, 3) == KZ_REFUSED,
          "checkpoint, snapshot and KS-threshold options");
    CHECK(kz_status_of(5, 1) == KZ_IMPLEMENTED && kz_status_of(5, 2) == KZ_REFUSED &&
              kz_status_of(5, 5) == KZ_REFUSED && kz_status_of(5, -1) == KZ_REFUSED &&
              kz_status_of(7, 4) == KZ_IMPLEMENTED && kz_status_of(20, 1) == KZ_IMPLEMENTED &&
              kz_status_of(20, 2) == KZ_REFUSED && kz_status_of(20, 5) == KZ_REFUSED &&
              kz_status_of(20, 6) == KZ_IMPLEMENTED && kz_status_of(20, 7) == KZ_IMPLEMENTED &&
              kz_status_of(20, 8) == KZ_REFUSED && kz_status_of(20, -1) == KZ_REFUSED &&
              kz_status_of(22, 1) == KZ_IMPLEMENTED && kz_status_of(22, 3) == KZ_IMPLEMENTED &&
              kz_status_of(22, 4) == KZ_REFUSED && kz_status_of(40, 3) == KZ_IMPLEMENTED &&
              kz_status_of(40, 4) == KZ_REFUSED && kz_status_of(36, 7) != KZ_REFUSED &&
              kz_status_of(50, -7) != KZ_REFUSED && kz_status_of(0, 0) == KZ_REFUSED &&
              kz_status_of(51, 0) == KZ_REFUSED,
          "per-value options 5, 7, 20, 22, 40 and unused 36, 50");

    /* kz_check on a hand-made deck without line numbers names the given line. */
    deck d;
    memset(&d, 0, sizeof d);
    d.kz[26] = 1;
    char err[512];
    int rc = kz_check(&d, "y.deck", 42, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "y.deck:42: KZ(26) = 1: slow-down"),
          "kz_check falls back to the given line: %s", err);

    memset(&d, 0, sizeof d);
    for (int k = 1; k <= DECK_NKZ; k++)
        if (kz_status_of(k, 1) != KZ_REFUSED)
            d.kz[k] = 1;
    rc = kz_check(&d, "y.deck", 1, err, sizeof err);
    size_t nl = 0;
    for (const char *p = d.notes; *p; p++)
        nl += *p == '\n';
    /* 4 6 9 10 12 21 33 42 44 45 48 (diagnostics), 36 50 (unused) */
    CHECK(rc == 0 && nl == 13 && strlen(d.notes) < sizeof d.notes - 1,
          "every accepted option set at once: %zu notes, %zu bytes, none cut", nl,
          strlen(d.notes));
}

/* The README's KZ table (between its kz-table markers) must say what
 * kz_status_of does. */
static void test_doc_table(void)
{
    FILE *f = fopen("README.md", "r");
    CHECK(f != NULL, "README.md opens");
    if (!f)
        return;
    char row[1024];
    int rows = 0, agree = 0, inside = 0;
    while (fgets(row, sizeof row, f)) {
        int k;
        if (strstr(row, "<!-- kz-table -->")) inside = 1;
        if (strstr(row, "<!-- /kz-table -->")) inside = 0;
        if (!inside)
            continue;
        if (sscanf(row, "| %d |", &k) != 1 || k < 1 || k > DECK_NKZ)
            continue;
        rows++;
        /* the status is the last cell: after the second bar from the end */
        const char *p = row + strlen(row);
        int bars = 0;
        while (p > row && bars < 2)
            if (*--p == '|')
                bars++;
        const char *status = p + 1;
        int ok;
        if (strstr(status, "refused: nonzero"))
            ok = kz_status_of(k, 0) == KZ_IMPLEMENTED && kz_status_of(k, 1) == KZ_REFUSED &&
                 kz_status_of(k, -1) == KZ_REFUSED;
        else if (strstr(status, "diagnostics-only, any value"))
            ok = kz_status_of(k, 1) == KZ_DIAGNOSTICS_ONLY && kz_status_of(k, -2) == KZ_DIAGNOSTICS_ONLY;
        else if (strstr(status, "accepted, not active yet") == status + 1 &&
                 strstr(status, "any value"))
            ok = kz_status_of(k, 1) == KZ_NOT_ACTIVE_YET && kz_status_of(k, 9) == KZ_NOT_ACTIVE_YET;
        else if (strstr(status, "unused in NBODY6"))
            ok = kz_status_of(k, 1) != KZ_REFUSED && kz_status_of(k, -1) != KZ_REFUSED;
        else /* per-value rows (5, 7, 16, 20, 22, 40) are checked in test_policy */
            ok = k == 1 || k == 2 || k == 3 || k == 5 || k == 7 || k == 8 || k == 14 || k == 15 || k == 23 || k == 16 || k == 17 ||
                 k == 18 || k == 19 || k == 25 ||
                 k == 20 || k == 22 || k == 30 ||
                 k == 40 || k == 46 || k == 47;
        if (ok)
            agree++;
        else
            printf("# README.md KZ row %d disagrees with kz_status_of:%s", k, status);
    }
    fclose(f);
    CHECK(rows == DECK_NKZ && agree == rows, "README.md KZ table: %d rows, %d agree with the policy",
          rows, agree);
}

int main(void)
{
    test_checks_between_smax();
    test_input_decks();
    test_good_string();
    test_exponents();
    test_repeat_counts();
    test_null_values();
    test_binpop_line();
    test_slash();
    test_layout();
    test_broken();
    test_restart();
    test_policy();
    test_evolution_inputs();
    test_doc_table();
    return check_done();
}
