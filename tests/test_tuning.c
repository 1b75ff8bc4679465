/* test_tuning.c — the environment switches: README.md's table
 * ("Environment switches") against the code's list (common/tuning.c), no
 * getenv of an NBODY6C_ name outside that file, and the reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "common/tuning.h"

enum { MAXROWS = 64 };

typedef struct row {
    char name[64], dflt[64], kind[32];
} row;

/* "| `NAME` | default | kind | what |" rows of README.md */
static int readme_rows(row *r, int max)
{
    FILE *f = fopen("README.md", "r");
    if (!f) return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        if (strncmp(line, "| `NBODY6C_", 11) != 0) continue;
        char *p = line + 3, *q = strchr(p, '`');
        if (!q) continue;
        snprintf(r[n].name, sizeof r[n].name, "%.*s", (int)(q - p), p);
        char *f2 = strchr(q, '|');
        char *f3 = f2 ? strchr(f2 + 1, '|') : NULL;
        char *f4 = f3 ? strchr(f3 + 1, '|') : NULL;
        if (!f4) continue;
        snprintf(r[n].dflt, sizeof r[n].dflt, "%.*s", (int)(f3 - f2 - 3), f2 + 2);
        snprintf(r[n].kind, sizeof r[n].kind, "%.*s", (int)(f4 - f3 - 3), f3 + 2);
        n++;
    }
    fclose(f);
    return n;
}

static void test_readme_table(void)
{
    row r[MAXROWS];
    int n = readme_rows(r, MAXROWS);
    CHECK(n == tuning_nswitches, "README.md's table has %d switches, the code %d", n, tuning_nswitches);
    for (int k = 0; k < tuning_nswitches; k++) {
        const tuning_switch *w = &tuning_switches[k];
        int at = -1;
        for (int q = 0; q < n; q++)
            if (strcmp(r[q].name, w->name) == 0) at = q;
        CHECK(at >= 0, "%s is in README.md's table", w->name);
        if (at < 0) continue;
        CHECK(strcmp(r[at].dflt, w->dflt) == 0, "%s: README's default \"%s\" is the code's \"%s\"",
              w->name, r[at].dflt, w->dflt);
        CHECK(strcmp(r[at].kind, w->test_hook ? "test hook" : "tuning") == 0,
              "%s: README says %s, the code %s", w->name, r[at].kind,
              w->test_hook ? "test hook" : "tuning");
    }
    for (int q = 0; q < n; q++) {
        int found = 0;
        for (int k = 0; k < tuning_nswitches; k++) found |= strcmp(r[q].name, tuning_switches[k].name) == 0;
        if (!found) CHECK(0, "README.md's %s is read by the code", r[q].name);
    }
}

static void test_one_reader(void)
{
    FILE *p = popen("grep -rln 'getenv(\"NBODY6C_' src gpunb gpuirr 2>/dev/null | grep -v '^src/common/tuning.c$'", "r");
    char line[512], files[2048] = "";
    while (p && fgets(line, sizeof line, p)) strncat(files, line, sizeof files - strlen(files) - 1);
    if (p) pclose(p);
    CHECK(p && files[0] == '\0', "NBODY6C_ switches read only by src/common/tuning.c%s%s",
          files[0] ? "; also: " : "", files);
}

static void test_reader(void)
{
    setenv("NBODY6C_HOLD_SEND", "2", 1);
    setenv("NBODY6C_NPACT", "0.5", 1);
    setenv("NBODY6C_PRED_OWNED", "0,0", 1);
    setenv("NBODY6C_IRR_GPU_MIN", "", 1);
    unsetenv("NBODY6C_FAULT");
    tuning t = tuning_read();
    CHECK(t.hold_send == 2 && t.npact == 0.5 && t.pred_owned_set && t.pred_owned_min == 0 &&
          t.pred_owned_max == 0, "set switches read");
    CHECK(t.irr_gpu_min == TUNING_UNSET && t.fault == NULL && t.ngpu == TUNING_UNSET,
          "empty and absent switches are not set");
    char buf[512];
    tuning_describe(buf, sizeof buf);
    CHECK(strstr(buf, "NBODY6C_HOLD_SEND=2") && strstr(buf, "NBODY6C_PRED_OWNED=0,0") &&
          !strstr(buf, "IRR_GPU_MIN"), "described: %s", buf);
    unsetenv("NBODY6C_HOLD_SEND");
    unsetenv("NBODY6C_NPACT");
    unsetenv("NBODY6C_PRED_OWNED");
    unsetenv("NBODY6C_IRR_GPU_MIN");
    for (int k = 0; k < tuning_nswitches; k++) unsetenv(tuning_switches[k].name);
    tuning_describe(buf, sizeof buf);
    CHECK(strcmp(buf, "none") == 0, "nothing set: \"%s\"", buf);
}

int main(void)
{
    test_readme_table();
    test_one_reader();
    test_reader();
    return check_done();
}
