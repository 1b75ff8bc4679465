/* bodyfile.c — the KZ(22) body file (NBODY6's fort.10): one body per line,
 * "m x y z vx vy vz".  Values are separated by blanks, tabs or commas;
 * Fortran D exponents (1.0D-03) are accepted; blank lines and lines whose
 * first non-blank character is '#' are skipped; text after the seventh value
 * is ignored, as a Fortran list-directed read ignores the rest of its line.
 * Reading stops after n bodies (later lines are not looked at).  Unlike a
 * Fortran read, one body may not continue onto the next line: a short line
 * is an error naming the missing field.  Writing uses %.17g, so reading a
 * written file gives back the same doubles bit for bit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ic/ic.h"

#define NFIELD 7
#define TOKEN_MAX 128

static const char *const field_name[NFIELD] = {"m", "x", "y", "z", "vx", "vy", "vz"};

static int is_separator(char c)
{
    return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
}

static int is_skipped_line(const char *line)
{
    while (is_separator(*line) && *line != ',')
        line++;
    return *line == '\0' || *line == '#';
}

/* Copies the token starting at *p (separators skipped) into tok with D/d
 * exponents turned into E, advances *p past it.  Returns the token's length
 * (0: end of line; > TOKEN_MAX - 1: too long, tok truncated). */
static size_t next_token(const char **p, char *tok)
{
    const char *s = *p;
    while (*s && is_separator(*s))
        s++;
    size_t len = 0;
    while (s[len] && !is_separator(s[len])) {
        if (len < TOKEN_MAX - 1)
            tok[len] = (s[len] == 'D' || s[len] == 'd') ? 'E' : s[len];
        len++;
    }
    tok[len < TOKEN_MAX - 1 ? len : TOKEN_MAX - 1] = '\0';
    *p = s + len;
    return len;
}

/* Parses one value; returns NULL or the reason it is not acceptable. */
static const char *parse_value(const char *tok, size_t len, double *out)
{
    if (len > TOKEN_MAX - 1)
        return "not a number (too long)";
    char *end;
    errno = 0;
    const double val = strtod(tok, &end);
    if (end == tok || *end != '\0')
        return "not a number";
    if (!isfinite(val))
        return "not finite";
    *out = val;
    return NULL;
}

/* Parses one body line into vals; returns -1, or the index of the bad field
 * with the reason in *why. */
static int parse_body(const char *line, double vals[NFIELD], const char **why)
{
    char tok[TOKEN_MAX];
    const char *p = line;
    for (int f = 0; f < NFIELD; f++) {
        const size_t len = next_token(&p, tok);
        if (len == 0) {
            *why = "missing (fewer than 7 values on the line)";
            return f;
        }
        *why = parse_value(tok, len, &vals[f]);
        if (*why)
            return f;
    }
    if (!(vals[0] > 0.0)) {
        *why = "mass must be positive";
        return 0;
    }
    return -1;
}

/* Two bodies at one position have no finite potential energy: neither the
 * scaling nor the force can take them (often a line given twice). */
static int refuse_coincident(const char *path, int n, const double (*x)[3], const long *at,
                             char *err, size_t errlen)
{
    int a, b;
    const int found = ic_find_coincident(n, x, &a, &b);
    if (found < 0)
        snprintf(err, errlen, "%s: out of memory for %d bodies", path, n);
    else if (found)
        snprintf(err, errlen, "%s:%ld: body %d is at the position of body %d (line %ld), "
                 "(%.17g, %.17g, %.17g): two bodies at one point have no finite potential "
                 "energy (a line given twice?)", path, at[b], b + 1, a + 1, at[a],
                 x[b][0], x[b][1], x[b][2]);
    return found != 0;
}

int bodyfile_read(const char *path, int n, double *m, double (*x)[3], double (*v)[3],
                  char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int k = 0, status = 0;
    long *at = malloc(sizeof(long) * (size_t)(n > 0 ? n : 1)); /* each body's line */
    if (!at) {
        snprintf(err, errlen, "%s: out of memory for %d bodies", path, n);
        fclose(f);
        return 1;
    }
    while (k < n && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (is_skipped_line(line))
            continue;
        double vals[NFIELD];
        const char *why = NULL;
        const int bad = parse_body(line, vals, &why);
        if (bad >= 0) {
            snprintf(err, errlen, "%s:%ld: field '%s' (body %d): %s", path, lineno,
                     field_name[bad], k + 1, why);
            status = 1;
            break;
        }
        at[k] = lineno;
        m[k] = vals[0];
        for (int c = 0; c < 3; c++) {
            x[k][c] = vals[1 + c];
            v[k][c] = vals[4 + c];
        }
        k++;
    }
    if (status == 0 && ferror(f)) {
        snprintf(err, errlen, "%s:%ld: read error: %s", path, lineno + 1, strerror(errno));
        status = 1;
    } else if (status == 0 && k < n) {
        snprintf(err, errlen, "%s:%ld: expected %d bodies, found %d", path, lineno + 1, n, k);
        status = 1;
    }
    if (status == 0)
        status = refuse_coincident(path, n, (const double(*)[3])x, at, err, errlen);
    free(at);
    free(line);
    fclose(f);
    return status;
}

int bodyfile_write(const char *path, int n, const double *m, const double (*x)[3],
                   const double (*v)[3])
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    int bad = 0;
    for (int i = 0; i < n && !bad; i++)
        bad = fprintf(f, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", m[i], x[i][0],
                      x[i][1], x[i][2], v[i][0], v[i][1], v[i][2]) < 0;
    if (fclose(f) != 0)
        bad = 1;
    return bad;
}
