/* deck.c — reads an NBODY6 input deck the way NBODY6's Fortran list-directed
 * READs do, and checks the values it read.
 *
 * The deck is loaded whole and split into physical lines; a small lexer then
 * hands out list-directed items (a value, a null value, or the '/' that ends a
 * read).  Every READ starts on the line after the one the previous READ ended
 * on, so trailing comments are skipped exactly as Fortran skips them.  Each
 * field remembers the physical line it came from, so every message can name
 * the line and the field.  Which KZ options are acceptable is kz_policy.c's
 * business; the reader calls kz_check() right after the KZ read, before any
 * line an option would need. */
#include "io/deck.h"
#include "sse/sse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define DECK_MAX_BYTES (16u << 20) /* a deck is a few hundred bytes; refuse absurd input */
#define TOKEN_MAX 128
#define NAME_MAX_LEN 16
#define FIELD_TABLE_MAX 128

typedef struct field_line {
    char name[NAME_MAX_LEN];
    int line; /* 1-based */
} field_line;

typedef struct lexer {
    const char *name;
    char *buf;     /* the whole deck, '\n' replaced by '\0' */
    char **lines;  /* start of each physical line (CR of CRLF removed) */
    int nlines;
    int line;      /* 0-based current line */
    size_t pos;    /* position within the current line */
    int started;   /* a READ has been made (the next one starts on line + 1) */
    int after_value; /* a value was read since the last separating comma */
    /* a pending r*c or r* repeat */
    long rep_left;
    int rep_null;
    char rep_tok[TOKEN_MAX];
    int rep_line;
    /* where each field was read, for the checks' messages */
    field_line fl[FIELD_TABLE_MAX];
    int nfl;
    char *err;
    size_t errlen;
} lexer;

typedef enum { ITEM_VALUE, ITEM_NULL, ITEM_SLASH, ITEM_EOF, ITEM_ERROR } item_kind;

typedef struct item {
    item_kind kind;
    char tok[TOKEN_MAX];
    int line; /* 1-based */
} item;

typedef enum { F_INT, F_REAL } field_type;

typedef struct field {
    char name[NAME_MAX_LEN];
    field_type type;
    void *ptr;
} field;

/* ---- messages ---- */

static int fail_at(lexer *lx, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (lx->err && lx->errlen) {
        if (line > 0)
            snprintf(lx->err, lx->errlen, "%s:%d: %s", lx->name, line, msg);
        else
            snprintf(lx->err, lx->errlen, "%s: %s", lx->name, msg);
    }
    return -1;
}

static void remember_line(lexer *lx, const char *field_name, int line)
{
    if (lx->nfl >= FIELD_TABLE_MAX)
        return;
    /* field names are short constants; longer ones are cut, not overflowed */
    size_t len = strlen(field_name);
    if (len >= NAME_MAX_LEN) len = NAME_MAX_LEN - 1;
    memcpy(lx->fl[lx->nfl].name, field_name, len);
    lx->fl[lx->nfl].name[len] = '\0';
    lx->fl[lx->nfl].line = line;
    lx->nfl++;
}

/* The latest line a field was read from (restart lines reuse names such as
 * DTADJ, and the latest read is the one a check is about). */
static int line_of(const lexer *lx, const char *field_name)
{
    for (int i = lx->nfl - 1; i >= 0; i--)
        if (strcmp(lx->fl[i].name, field_name) == 0)
            return lx->fl[i].line;
    return 0;
}

/* The text of a physical line (1-based), leading blanks skipped, for messages. */
static const char *line_text(const lexer *lx, int line)
{
    if (line < 1 || line > lx->nlines) return "";
    const char *t = lx->lines[line - 1];
    while (*t == ' ' || *t == '\t') t++;
    return t;
}

/* ---- loading ---- */

static int load(lexer *lx, FILE *f)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return fail_at(lx, 0, "out of memory");
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= DECK_MAX_BYTES) {
                free(buf);
                return fail_at(lx, 0, "deck larger than %u bytes", DECK_MAX_BYTES);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return fail_at(lx, 0, "out of memory");
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        return fail_at(lx, 0, "read error: %s", strerror(e));
    }
    buf[len] = '\0';

    /* A final '\n' ends the last line; it does not start an empty one. */
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n')
            n++;
    if (len > 0 && buf[len - 1] != '\n')
        n++;
    lx->lines = malloc((size_t)(n > 0 ? n : 1) * sizeof *lx->lines);
    if (!lx->lines) {
        free(buf);
        return fail_at(lx, 0, "out of memory");
    }
    lx->buf = buf;
    lx->nlines = n;
    size_t start = 0;
    int k = 0;
    for (size_t i = 0; i <= len && k < n; i++) {
        if (i == len || buf[i] == '\n') {
            buf[i] = '\0';
            if (i > start && buf[i - 1] == '\r')
                buf[i - 1] = '\0'; /* CRLF decks */
            lx->lines[k++] = buf + start;
            start = i + 1;
        }
    }
    return 0;
}

static int deck_is_blank(const lexer *lx)
{
    for (int i = 0; i < lx->nlines; i++)
        for (const char *p = lx->lines[i]; *p; p++)
            if (!isspace((unsigned char)*p))
                return 0;
    return 1;
}

/* ---- the list-directed lexer ---- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int ends_token(char c)
{
    return c == '\0' || is_blank(c) || c == ',' || c == '/';
}

/* Every READ starts at the beginning of a new record. */
static void start_read(lexer *lx)
{
    if (lx->started)
        lx->line++;
    lx->started = 1;
    lx->pos = 0;
    lx->after_value = 0;
    lx->rep_left = 0;
}

static int last_line_number(const lexer *lx)
{
    return lx->nlines > 0 ? lx->nlines : 1;
}

/* Splits "r*c" / "r*": returns 0 if tok has no '*', 1 if it is a repeat
 * (count in *r, the value, possibly empty, copied to rest), -1 if the count
 * is not a positive integer. */
static int split_repeat(const char *tok, long *r, char *rest, size_t restlen)
{
    const char *star = strchr(tok, '*');
    if (!star)
        return 0;
    if (star == tok)
        return -1;
    long v = 0;
    for (const char *p = tok; p < star; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        v = v * 10 + (*p - '0');
        if (v > 1000000000L)
            return -1;
    }
    if (v <= 0)
        return -1;
    *r = v;
    snprintf(rest, restlen, "%s", star + 1);
    return 1;
}

static void next_item(lexer *lx, item *it)
{
    if (lx->rep_left > 0) {
        lx->rep_left--;
        it->kind = lx->rep_null ? ITEM_NULL : ITEM_VALUE;
        snprintf(it->tok, sizeof it->tok, "%s", lx->rep_tok);
        it->line = lx->rep_line;
        return;
    }
    for (;;) {
        if (lx->line >= lx->nlines) {
            it->kind = ITEM_EOF;
            it->line = last_line_number(lx);
            return;
        }
        const char *s = lx->lines[lx->line];
        while (is_blank(s[lx->pos]))
            lx->pos++;
        char c = s[lx->pos];
        if (c == '\0') { /* a line end separates like a blank */
            if (lx->line + 1 >= lx->nlines) {
                it->kind = ITEM_EOF;
                it->line = last_line_number(lx);
                return;
            }
            lx->line++;
            lx->pos = 0;
            continue;
        }
        it->line = lx->line + 1;
        if (c == '/') {
            lx->pos++;
            it->kind = ITEM_SLASH;
            return;
        }
        if (c == ',') {
            lx->pos++;
            if (lx->after_value) { /* the comma that closes a value */
                lx->after_value = 0;
                continue;
            }
            it->kind = ITEM_NULL; /* ",," or a leading comma: a null value */
            return;
        }
        size_t b = lx->pos;
        while (!ends_token(s[lx->pos]))
            lx->pos++;
        size_t n = lx->pos - b;
        if (n >= sizeof it->tok)
            n = sizeof it->tok - 1; /* such a token is invalid anyway; keep its start for the message */
        memcpy(it->tok, s + b, n);
        it->tok[n] = '\0';
        lx->after_value = 1;

        long r;
        char rest[TOKEN_MAX];
        int rep = split_repeat(it->tok, &r, rest, sizeof rest);
        if (rep < 0) {
            it->kind = ITEM_ERROR; /* reported by the caller, which knows the field */
            return;
        }
        if (rep == 0) {
            it->kind = ITEM_VALUE;
            return;
        }
        lx->rep_null = rest[0] == '\0';
        snprintf(lx->rep_tok, sizeof lx->rep_tok, "%s", rest);
        lx->rep_line = it->line;
        lx->rep_left = r - 1;
        it->kind = lx->rep_null ? ITEM_NULL : ITEM_VALUE;
        snprintf(it->tok, sizeof it->tok, "%s", rest);
        return;
    }
}

/* ---- value conversion ---- */

static int parse_int(const char *tok, int *out)
{
    const char *p = tok;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return -1;
    errno = 0;
    long v = strtol(tok, NULL, 10);
    if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
        return -2;
    *out = (int)v;
    return 0;
}

static int is_nonfinite_word(const char *tok)
{
    const char *p = tok;
    if (*p == '+' || *p == '-')
        p++;
    return strncasecmp(p, "nan", 3) == 0 || strcasecmp(p, "inf") == 0 ||
           strcasecmp(p, "infinity") == 0;
}

/* Fortran real input: [sign] digits [. [digits]] | [sign] . digits, then an
 * optional exponent: a letter E or D (either case) with an optionally signed
 * integer, or a bare sign and integer ("1.0-5").  Rewritten into C syntax for
 * strtod; hex floats, "inf" and "nan" never reach strtod. */
static int parse_real(const char *tok, double *out)
{
    char c[TOKEN_MAX + 2];
    size_t k = 0;
    const char *p = tok;
    if (*p == '+' || *p == '-')
        c[k++] = *p++;
    int mant = 0;
    while (isdigit((unsigned char)*p)) {
        c[k++] = *p++;
        mant++;
    }
    if (*p == '.') {
        c[k++] = *p++;
        while (isdigit((unsigned char)*p)) {
            c[k++] = *p++;
            mant++;
        }
    }
    if (mant == 0)
        return -1;
    if (*p) {
        c[k++] = 'e';
        if (*p == 'e' || *p == 'E' || *p == 'd' || *p == 'D')
            p++;
        else if (*p != '+' && *p != '-')
            return -1;
        if (*p == '+' || *p == '-')
            c[k++] = *p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            c[k++] = *p++;
        if (*p)
            return -1;
    }
    c[k] = '\0';
    errno = 0;
    double v = strtod(c, NULL);
    if (!isfinite(v))
        return -2;
    *out = v; /* underflow to 0 or a subnormal is accepted, as Fortran does */
    return 0;
}

static int convert(lexer *lx, const field *fd, const item *it)
{
    if (fd->type == F_INT) {
        int v;
        int rc = parse_int(it->tok, &v);
        if (rc == -2)
            return fail_at(lx, it->line, "%s: integer '%s' is out of range", fd->name, it->tok);
        if (rc)
            return fail_at(lx, it->line, "%s: expected an integer, found '%s'", fd->name, it->tok);
        *(int *)fd->ptr = v;
        return 0;
    }
    if (is_nonfinite_word(it->tok))
        return fail_at(lx, it->line, "%s: '%s' is not a finite number", fd->name, it->tok);
    double v;
    int rc = parse_real(it->tok, &v);
    if (rc == -2)
        return fail_at(lx, it->line, "%s: '%s' overflows a double (not a finite number)", fd->name,
                       it->tok);
    if (rc)
        return fail_at(lx, it->line, "%s: expected a real number, found '%s'", fd->name, it->tok);
    *(double *)fd->ptr = v;
    return 0;
}

/* One list-directed READ of nf fields.  Fields not given (a null value, r*,
 * or everything after a '/') keep their value. */
static int read_fields(lexer *lx, const field *fds, int nf)
{
    start_read(lx);
    for (int i = 0; i < nf; i++) {
        item it;
        next_item(lx, &it);
        switch (it.kind) {
        case ITEM_EOF:
            return fail_at(lx, it.line, "end of file while reading %s", fds[i].name);
        case ITEM_ERROR:
            return fail_at(lx, it.line, "%s: bad repeat count in '%s' (r*c needs r >= 1)",
                           fds[i].name, it.tok);
        case ITEM_SLASH:
            for (int j = i; j < nf; j++)
                remember_line(lx, fds[j].name, it.line);
            return 0;
        case ITEM_NULL:
            remember_line(lx, fds[i].name, it.line);
            break;
        case ITEM_VALUE:
            if (convert(lx, &fds[i], &it))
                return -1;
            remember_line(lx, fds[i].name, it.line);
            break;
        }
    }
    return 0;
}

static field fint(const char *name, int *p)
{
    field f;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.type = F_INT;
    f.ptr = p;
    return f;
}

static field freal(const char *name, double *p)
{
    field f;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.type = F_REAL;
    f.ptr = p;
    return f;
}

#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- checks ---- */

static int check_max(lexer *lx, const char *fname, double v, double limit)
{
    if (v > limit)
        return fail_at(lx, line_of(lx, fname), "%s: %g exceeds NBODY6's limit %g", fname, v, limit);
    return 0;
}

static int check_positive(lexer *lx, const char *fname, double v)
{
    if (!(v > 0))
        return fail_at(lx, line_of(lx, fname), "%s: must be positive, found %g", fname, v);
    return 0;
}

static int check_nonnegative(lexer *lx, const char *fname, double v)
{
    if (v < 0)
        return fail_at(lx, line_of(lx, fname), "%s: must not be negative, found %g", fname, v);
    return 0;
}

/* QE is every energy check's tolerance: |dE| above 5 QE halts the run (or
 * KZ(2) = 2 repeats the interval), and KZ(17) steers ETAI and ETAR from it.
 * Zero, a negative value or one so large that nothing fails would turn that
 * control off without a word. */
static int check_qe(lexer *lx, double qe)
{
    if (!(qe > 0.0) || qe > DECK_QE_MAX)
        return fail_at(lx, line_of(lx, "QE"),
                       "QE: %g is outside (0, %g]: QE is the energy tolerance of every check "
                       "(|dE| above 5 QE halts the run, KZ(2) = 2 repeats the interval, KZ(17) "
                       "steers ETAI and ETAR from it); NBODY6's decks use 1e-5 to 1e-3",
                       qe, DECK_QE_MAX);
    return 0;
}

static int is_power_of_two(double v)
{
    int e;
    return v > 0 && frexp(v, &e) == 0.5;
}

/* ---- the deck's reads ---- */

static int read_line1(lexer *lx, deck *d)
{
    field f[] = {fint("KSTART", &d->kstart), freal("TCOMP", &d->tcomp)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (d->kstart < 1 || d->kstart > 5)
        return fail_at(lx, line_of(lx, "KSTART"),
                       "KSTART: %d is not 1 (new run) or 2-5 (restart from a dump)", d->kstart);
    return 0;
}

static int read_line2(lexer *lx, deck *d)
{
    field f[] = {fint("N", &d->n),         fint("NFIX", &d->nfix),
                 fint("NCRIT", &d->ncrit), fint("NRAND", &d->nrand),
                 fint("NNBMAX", &d->nnbmax), fint("NRUN", &d->nrun)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (d->n < 2)
        return fail_at(lx, line_of(lx, "N"), "N: need at least 2 bodies, found %d", d->n);
    if (d->nnbmax < 1)
        return fail_at(lx, line_of(lx, "NNBMAX"), "NNBMAX: must be at least 1, found %d",
                       d->nnbmax);
    return 0;
}

static int read_line3(lexer *lx, deck *d)
{
    field f[] = {freal("ETAI", &d->etai),   freal("ETAR", &d->etar),     freal("RS0", &d->rs0),
                 freal("DTADJ", &d->dtadj), freal("DELTAT", &d->deltat), freal("TCRIT", &d->tcrit),
                 freal("QE", &d->qe),       freal("RBAR", &d->rbar),     freal("ZMBAR", &d->zmbar)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (check_positive(lx, "ETAI", d->etai) || check_max(lx, "ETAI", d->etai, 0.08) ||
        check_positive(lx, "ETAR", d->etar) || check_max(lx, "ETAR", d->etar, 0.16) ||
        check_positive(lx, "RS0", d->rs0) || check_positive(lx, "DTADJ", d->dtadj) ||
        check_positive(lx, "DELTAT", d->deltat) || check_nonnegative(lx, "TCRIT", d->tcrit) ||
        check_qe(lx, d->qe))
        return -1;
    return 0;
}

static int read_kz(lexer *lx, deck *d)
{
    field f[DECK_NKZ];
    for (int k = 1; k <= DECK_NKZ; k++) {
        char nm[NAME_MAX_LEN];
        snprintf(nm, sizeof nm, "KZ(%d)", k);
        f[k - 1] = fint(nm, &d->kz[k]);
    }
    if (read_fields(lx, f, DECK_NKZ))
        return -1;
    for (int k = 1; k <= DECK_NKZ; k++)
        d->kz_line[k] = line_of(lx, f[k - 1].name);
    return kz_check(d, lx->name, d->kz_line[1], lx->err, lx->errlen);
}

/* A tidal field's strength follows from the physical units: RBAR pc per
 * length unit (the mass unit always exists: ZMBAR <= 0 means 1 Msun). */
static int check_tidal_units(lexer *lx, const deck *d)
{
    if (d->kz[14] > 0 && !(d->rbar > 0))
        return fail_at(lx, line_of(lx, "RBAR"),
                       "RBAR: %g pc with KZ(14) = %d (line %d): the tidal field needs the length "
                       "unit in pc (RBAR > 0; NBODY6's decks give the cluster's virial radius, "
                       "e.g. 1 to 5)",
                       d->rbar, d->kz[14], d->kz_line[14]);
    return 0;
}

static int read_line5(lexer *lx, deck *d)
{
    field f[] = {freal("DTMIN", &d->dtmin), freal("RMIN", &d->rmin), freal("ETAU", &d->etau),
                 freal("ECLOSE", &d->eclose), freal("GMIN", &d->gmin), freal("GMAX", &d->gmax)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (check_max(lx, "ETAU", d->etau, 0.5) || check_max(lx, "GMIN", d->gmin, 1e-4) ||
        check_max(lx, "GMAX", d->gmax, 0.1))
        return -1;
    return 0;
}

/* NBIN0 > 0: binpop.f makes the binaries with KZ(8) = 1 or >= 3; with any
 * other KZ(8) NBODY6 only takes the first 2 NBIN0 bodies of its input as the
 * pairs (start.f), which means something only for bodies read from a file
 * (KZ(22) >= 2); a generated model would silently have no binaries. */
static int check_nbin0(lexer *lx, deck *d)
{
    if (d->nbin0 <= 0)
        return 0; /* NBODY6 tests NBIN0 > 0 everywhere: a negative count is none */
    const int kz8 = d->kz[8];
    if (kz8 == 1 || kz8 >= 3) {
        /* KZ(20) >= 2: binpop.f takes imf2.f's pairs of draws; the policy
         * lets only Kroupa's 6, 7 through, this keeps any other out */
        if (d->kz[20] >= 2 && d->kz[20] != 6 && d->kz[20] != 7)
            return fail_at(lx, line_of(lx, "NBIN0"),
                           "NBIN0: %d primordial binaries with KZ(20) = %d: imf2.f's pairing "
                           "of the binaries' masses exists here only for KZ(20) = 6, 7 "
                           "(refused); use KZ(20) = 0 with RATIO, or NBIN0 = 0",
                           d->nbin0, d->kz[20]);
        return 0;
    }
    if (d->kz[22] < 2)
        return fail_at(lx, line_of(lx, "NBIN0"),
                       "NBIN0: %d primordial binaries requested with KZ(8) = %d (refused): NBODY6 "
                       "makes them only with KZ(8) = 1 or >= 3 (binpop.f, its line SEMI0 ECC0 "
                       "RATIO RANGE NSKIP IDORM ICIRC after the KZ(14) and KZ(29) lines), or takes "
                       "them as the first 2 NBIN0 bodies of a KZ(22) >= 2 file",
                       d->nbin0, kz8);
    if (d->nbin0 > d->n / 2)
        return fail_at(lx, line_of(lx, "NBIN0"),
                       "NBIN0: %d pairs need %d bodies of the file, N is %d", d->nbin0,
                       2 * d->nbin0, d->n);
    return 0;
}

static void add_note(deck *d, const char *fmt, ...);

/* KZ(19) = 3 takes the stars' metallicity and age from line 6 and needs
 * physical units (RBAR, line 3). */
static int check_evolution(lexer *lx, deck *d)
{
    if (d->kz[19] != 3) {
        if (d->kz[25] > 0)
            add_note(d, "KZ(25) = %d: white-dwarf kicks need KZ(19) = 3 (stellar evolution); without "
                     "it no white dwarfs form and the option has no effect\n", d->kz[25]);
        return 0;
    }
    if (!(d->rbar > 0.0))
        return fail_at(lx, line_of(lx, "RBAR"),
                       "RBAR: stellar evolution (KZ(19) = 3) needs the length unit in pc, found %g",
                       d->rbar);
    if (d->epoch0 > 0.0)
        return fail_at(lx, line_of(lx, "EPOCH0"),
                       "EPOCH0: %g Myr would make every star's age at t = 0 negative (age = t - "
                       "EPOCH0); stars before the main sequence are not modelled (refused); use "
                       "EPOCH0 <= 0 (-EPOCH0 is the stars' age at the start)", d->epoch0);
    if (d->epoch0 < 0.0)
        add_note(d, "EPOCH0 = %g: the stars are %g Myr old at t = 0 (age = t - EPOCH0)\n", d->epoch0,
                 -d->epoch0);
    /* SSE's fits are made for 0.1-100 Msun; NBODY6 warns and goes on with
     * them beyond (masses read from a file are checked at the start) */
    if (d->kz[22] < 2 && d->alphas != 1.0 && d->body1 > SSE_MFIT_MAX)
        add_note(d, "%s:%d: BODY1 = %g Msun: the stellar evolution fits (Hurley, Pols & Tout 2000) are "
                 "made for 0.1-%g Msun; heavier stars are evolved with them all the same, as NBODY6 does\n",
                 lx->name, line_of(lx, "BODY1"), d->body1, SSE_MFIT_MAX);
    int clamped;
    double z = sse_clamp_z(d->zmet, &clamped);
    if (clamped)
        add_note(d, "ZMET = %g is outside the range of the stellar evolution fits [%g, %g]: %g is "
                 "used, as NBODY6's data.f does\n", d->zmet, SSE_ZMIN, SSE_ZMAX, z);
    return 0;
}

/* The mass function KZ(20) names, in words for messages (kz_policy.c
 * refuses the others before line 6 is read). */
static const char *imf_name(const deck *d, char *buf, size_t len)
{
    switch (d->kz[20]) {
    case 0:
        snprintf(buf, len, "the power-law masses (KZ(20) = 0, ALPHAS = %g)", d->alphas);
        break;
    case 1:
        snprintf(buf, len, "the Scalo masses (KZ(20) = 1)");
        break;
    case 6:
    case 7:
        snprintf(buf, len, "the Kroupa (2001) masses (KZ(20) = %d)", d->kz[20]);
        break;
    default:
        snprintf(buf, len, "the mass function KZ(20) = %d", d->kz[20]);
    }
    return buf;
}

/* A mass function (KZ(22) <= 1, not ALPHAS = 1 or BODY1 = BODYN, which mean
 * equal masses) draws between BODYN and BODY1 solar masses: both positive,
 * and BODY1 the largest (NBODY6's imf.f and imf2.f take them so; swapped,
 * the power law would run and give other masses than the deck meant). */
static int check_mass_range(lexer *lx, const deck *d)
{
    if (d->kz[22] >= 2 || d->alphas == 1.0 || d->body1 == d->bodyn)
        return 0;
    char imf[96];
    if (!(d->body1 > 0))
        return fail_at(lx, line_of(lx, "BODY1"),
                       "BODY1: %s need a positive largest mass (Msun), found %g",
                       imf_name(d, imf, sizeof imf), d->body1);
    if (!(d->bodyn > 0))
        return fail_at(lx, line_of(lx, "BODYN"),
                       "BODYN: %s need a positive smallest mass (Msun), found %g",
                       imf_name(d, imf, sizeof imf), d->bodyn);
    if (d->body1 < d->bodyn)
        return fail_at(lx, line_of(lx, "BODY1"),
                       "BODY1: %g is below BODYN = %g: BODY1 is the largest mass and BODYN the "
                       "smallest (Msun) of %s, as in NBODY6; swap them",
                       d->body1, d->bodyn, imf_name(d, imf, sizeof imf));
    return 0;
}

static int read_line6(lexer *lx, deck *d)
{
    field f[] = {freal("ALPHAS", &d->alphas), freal("BODY1", &d->body1), freal("BODYN", &d->bodyn),
                 fint("NBIN0", &d->nbin0),     fint("NHI0", &d->nhi0),    freal("ZMET", &d->zmet),
                 freal("EPOCH0", &d->epoch0),  freal("DTPLOT", &d->dtplot)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (check_nbin0(lx, d) || check_evolution(lx, d))
        return -1;
    if (d->nhi0 > 0)
        return fail_at(lx, line_of(lx, "NHI0"),
                       "NHI0: %d primordial hierarchies requested; hierarchical systems are not "
                       "implemented (refused)",
                       d->nhi0);
    return check_mass_range(lx, d);
}

/* Line 7 exists only for KZ(5) = 2, 3, 4 and KZ(5) >= 6 with KZ(24) < 0; the
 * policy refuses those models before this point, so reaching here with one of
 * them means the policy and the reader disagree. */
static int model_line_needed(const deck *d)
{
    int m = d->kz[5];
    return (m >= 2 && m <= 4) || (m >= 6 && d->kz[24] < 0);
}

/* Every body has finished a step at each multiple of SMAX; an output or
 * energy check in between measures the bodies in mid-step through their
 * predicted state, and its dE/E carries that prediction's error (1e-8 to
 * 4e-8 of E measured at <N_nb> 100-230, docs/notes/benchmarks-history.md "Energy at
 * 512k"). */
static void note_checks_between_smax(deck *d)
{
    if (fmod(d->deltat, d->smax) == 0.0 && fmod(d->dtadj, d->smax) == 0.0) return;
    size_t used = strlen(d->notes);
    snprintf(d->notes + used, sizeof d->notes - used,
             "DELTAT %g or DTADJ %g is not a multiple of SMAX %g: outputs between multiples of SMAX "
             "see bodies in mid-step by prediction, so their dE/E includes its error (1e-8 to 4e-8 "
             "measured at <N_nb> 100-230); at multiples of SMAX it does not\n",
             d->deltat, d->dtadj, d->smax);
}

static int read_line8(lexer *lx, deck *d)
{
    field f[] = {freal("Q", &d->q), freal("VXROT", &d->vxrot), freal("VZROT", &d->vzrot),
                 freal("RTIDE", &d->rtide), freal("SMAX", &d->smax)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (check_nonnegative(lx, "Q", d->q))
        return -1;
    /* every start but KZ(22) = 3 scales to E = -1/4, which needs E < 0 */
    if (d->kz[22] != 3 && !(d->q < 1.0))
        return fail_at(lx, line_of(lx, "Q"),
                       "Q: the virial ratio %g must be below 1 (0 <= Q < 1; 0.5 is virial "
                       "equilibrium): the standard scaling to E = -1/4 needs E = (Q - 1)|W| < 0",
                       d->q);
    if (!is_power_of_two(d->smax))
        return fail_at(lx, line_of(lx, "SMAX"),
                       "SMAX: %g is not a positive power of two (2^k); block time steps must "
                       "stay commensurate",
                       d->smax);
    note_checks_between_smax(d);
    return 0;
}

static int binpop_line_needed(const deck *d);

/* A bad GMG or RG0 is often another line read in the galaxy line's place:
 * the message quotes the line and says where that line belongs. */
static int galaxy_line_error(lexer *lx, const deck *d, const char *field, const char *need, double v)
{
    return fail_at(lx, line_of(lx, field),
                   "%s: %s, found %g; this line (\"%.60s\") was read as KZ(14) = 2's line GMG RG0, "
                   "which comes right after line 8 (Q VXROT VZROT RTIDE SMAX)%s",
                   field, need, v, line_text(lx, line_of(lx, field)),
                   binpop_line_needed(d) ? " and before the binaries' line of KZ(8)" : "");
}

/* KZ(14) = 2: GMG RG0, the point-mass galaxy (Msun) and the cluster's
 * circular-orbit radius (kpc). */
static int read_galaxy_point_mass(lexer *lx, deck *d)
{
    field f[] = {freal("GMG", &d->gmg), freal("RG0", &d->rg0)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    if (!(d->gmg > 0))
        return galaxy_line_error(lx, d, "GMG", "the point-mass galaxy of KZ(14) = 2 needs a positive "
                                 "mass (Msun)", d->gmg);
    if (!(d->rg0 > 0))
        return galaxy_line_error(lx, d, "RG0", "the galactocentric radius of KZ(14) = 2 must be "
                                 "positive (kpc)", d->rg0);
    return 0;
}

/* binpop.f reads its line whenever KZ(8) = 1 or >= 3, NBIN0 or not. */
static int binpop_line_needed(const deck *d)
{
    return d->kz[8] == 1 || d->kz[8] >= 3;
}

/* binpop.f ignores RATIO and NSKIP when imf2.f has paired the masses
 * (KZ(20) >= 2; deck.c lets only 6, 7 through with binaries). */
static int imf_paired(const deck *d)
{
    return d->kz[20] >= 2 && d->nbin0 > 0;
}

/* The binaries that the BINPOP line asks for must exist in the N bodies:
 * RATIO = 1 turns body i into two bodies of its mass and drops as many
 * bodies of the model (N counts both components), RATIO < 1 splits body i
 * (N counts the binary once); NSKIP > 0 takes every (NSKIP+1)-th of the
 * first (NSKIP+1) NBIN masses; imf2.f's pairs are NBIN0 of the N bodies
 * (N counts a binary once). */
static int check_binpop_fits(lexer *lx, const deck *d)
{
    const long nb = d->nbin0 > 0 ? d->nbin0 : 0;
    if (nb == 0)
        return 0;
    if (imf_paired(d))
        return nb > d->n ? fail_at(lx, line_of(lx, "NBIN0"), "NBIN0: %ld binaries from the "
                                   "IMF's draws need at least as many of the N = %d bodies",
                                   nb, d->n)
                         : 0;
    if (d->ratio == 1.0 && 2 * nb > d->n)
        return fail_at(lx, line_of(lx, "RATIO"),
                       "RATIO: 1 makes each of NBIN0 = %ld binaries from one body and drops "
                       "another (N counts both components), so N = %d is too small", nb, d->n);
    if (d->ratio < 1.0 && nb > d->n)
        return fail_at(lx, line_of(lx, "NBIN0"), "NBIN0: %ld binaries need at least as many of "
                       "the N = %d bodies", nb, d->n);
    if (d->ratio < 1.0 && d->nskip > 0 && (1L + d->nskip) * nb > d->n)
        return fail_at(lx, line_of(lx, "NSKIP"),
                       "NSKIP: %d takes every %d-th of the first %ld masses for the binaries, "
                       "more than N = %d", d->nskip, d->nskip + 1, (1L + d->nskip) * nb, d->n);
    return 0;
}

/* KZ(8) = 1 or >= 3: SEMI0 ECC0 RATIO RANGE NSKIP IDORM ICIRC (binpop.f). */
static int read_binpop_line(lexer *lx, deck *d)
{
    field f[] = {freal("SEMI0", &d->semi0), freal("ECC0", &d->ecc0), freal("RATIO", &d->ratio),
                 freal("RANGE", &d->range), fint("NSKIP", &d->nskip), fint("IDORM", &d->idorm),
                 fint("ICIRC", &d->icirc)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    d->has_binpop = 1;
    if (d->icirc != 0)
        return fail_at(lx, line_of(lx, "ICIRC"),
                       "ICIRC: %d (%s) is not implemented (refused); use ICIRC = 0", d->icirc,
                       d->icirc == 1 ? "eigen-evolution of Kroupa & Mardling, tcirc.f"
                       : d->icirc == 2 ? "Kroupa (1995) pre-main-sequence evolution, proto_star.f"
                                       : "not an NBODY6 value: 0, 1, 2");
    if (!imf_paired(d) && !(d->ratio > 0.0 && d->ratio <= 1.0))
        return fail_at(lx, line_of(lx, "RATIO"),
                       "RATIO: %g is not a mass fraction M1/(M1 + M2) in (0, 1]", d->ratio);
    if (!(d->ecc0 < 1.0))
        return fail_at(lx, line_of(lx, "ECC0"),
                       "ECC0: %g does not make a bound binary (need < 1; < 0 means thermal)",
                       d->ecc0);
    if (d->kz[8] != 4 && d->nbin0 > 0 && !(d->semi0 > 0.0))
        return fail_at(lx, line_of(lx, "SEMI0"),
                       "SEMI0: the binaries' semi-major axis must be positive, found %g", d->semi0);
    if (!imf_paired(d) && d->nskip < 0)
        return fail_at(lx, line_of(lx, "NSKIP"), "NSKIP: must not be negative, found %d",
                       d->nskip);
    return check_binpop_fits(lx, d);
}

/* KSTART = 3 or 5: DTADJ DELTAT TADJ TNEXT TCRIT QE J KZ(J). */
static int read_restart_times(lexer *lx, deck *d)
{
    field f[] = {freal("DTADJ", &d->r_dtadj), freal("DELTAT", &d->r_deltat),
                 freal("TADJ", &d->r_tadj),   freal("TNEXT", &d->r_tnext),
                 freal("TCRIT", &d->r_tcrit), freal("QE", &d->r_qe),
                 fint("J", &d->r_j),          fint("KZ(J)", &d->r_kzj)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    d->has_restart_times = 1;
    if (d->r_qe > 0.0 && check_qe(lx, d->r_qe))
        return -1;
    if (d->r_j > DECK_NKZ)
        return fail_at(lx, line_of(lx, "J"), "J: %d is not an option index 1..%d", d->r_j, DECK_NKZ);
    if (d->r_j >= 1) {
        /* The changed option must pass the same policy as a new run's. */
        deck one;
        memset(&one, 0, sizeof one);
        one.kz[d->r_j] = d->r_kzj;
        one.kz_line[d->r_j] = line_of(lx, "KZ(J)");
        if (kz_check(&one, lx->name, one.kz_line[d->r_j], lx->err, lx->errlen))
            return -1;
        size_t used = strlen(d->notes);
        snprintf(d->notes + used, sizeof d->notes - used, "%s", one.notes);
    }
    return 0;
}

/* KSTART = 4 or 5: ETAI ETAR ETAU DTMIN RMIN NCRIT; a value <= 0 keeps the
 * dump's, a positive one must respect NBODY6's limits. */
static int read_restart_accuracy(lexer *lx, deck *d)
{
    field f[] = {freal("ETAI", &d->r_etai),   freal("ETAR", &d->r_etar),
                 freal("ETAU", &d->r_etau),   freal("DTMIN", &d->r_dtmin),
                 freal("RMIN", &d->r_rmin),   fint("NCRIT", &d->r_ncrit)};
    if (read_fields(lx, f, NFIELDS(f)))
        return -1;
    d->has_restart_accuracy = 1;
    if (check_max(lx, "ETAI", d->r_etai, 0.08) || check_max(lx, "ETAR", d->r_etar, 0.16) ||
        check_max(lx, "ETAU", d->r_etau, 0.5))
        return -1;
    return 0;
}

static void add_note(deck *d, const char *fmt, ...)
{
    size_t used = strlen(d->notes);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->notes + used, sizeof d->notes - used, fmt, ap);
    va_end(ap);
}

/* Values a deck gives that NBODY6 would not use, said out loud. */
static void note_silent_choices(deck *d)
{
    if (d->kz[14] == 1 && d->rtide != 0.0)
        add_note(d, "RTIDE %g (line 8) is not used with KZ(14) = 1: the tidal radius follows from "
                 "the cluster's mass in the solar neighbourhood's field (NBODY6's xtrnl0.f does "
                 "the same)\n", d->rtide);
    if ((d->kz[8] == 1 || d->kz[8] >= 3) && d->nbin0 <= 0)
        add_note(d, "KZ(8) = %d with NBIN0 = %d: no primordial binaries are made (binpop.f's line "
                 "is read and not used)\n", d->kz[8], d->nbin0);
    if (d->kz[20] != 0 && (d->alphas == 1.0 || d->body1 == d->bodyn))
        add_note(d, "KZ(20) = %d with %s: equal masses, as in NBODY6's data.f, which takes "
                 "ALPHAS = 1 or BODY1 = BODYN to mean equal masses before it looks at KZ(20)\n",
                 d->kz[20], d->alphas == 1.0 ? "ALPHAS = 1" : "BODY1 = BODYN");
}

static int read_deck(lexer *lx, deck *d)
{
    if (deck_is_blank(lx))
        return fail_at(lx, 0, "empty deck");
    if (read_line1(lx, d))
        return -1;
    if (d->kstart > 1) {
        if ((d->kstart == 3 || d->kstart == 5) && read_restart_times(lx, d))
            return -1;
        if ((d->kstart == 4 || d->kstart == 5) && read_restart_accuracy(lx, d))
            return -1;
        return 0;
    }
    if (read_line2(lx, d) || read_line3(lx, d) || read_kz(lx, d) || check_tidal_units(lx, d) ||
        read_line5(lx, d) || read_line6(lx, d))
        return -1;
    if (model_line_needed(d))
        return fail_at(lx, d->kz_line[5], "KZ(5) = %d: model line not supported (refused)",
                       d->kz[5]);
    if (read_line8(lx, d))
        return -1;
    /* Option lines in NBODY6's order: KZ(14) first (xtrnl0.f), then the
     * others (29, 8, 18, 13, 11, 24) where their options are implemented;
     * the CLIGHT lines are for the chain / post-Newtonian parts: not read. */
    if (d->kz[14] == 2 && read_galaxy_point_mass(lx, d))
        return -1;
    /* (KZ(29)'s SIGMA0 line would come here: KZ(29) is refused) */
    if (binpop_line_needed(d) && read_binpop_line(lx, d))
        return -1;
    note_silent_choices(d);
    return 0;
}

int deck_read(FILE *f, const char *name, deck *d, char *err, size_t errlen)
{
    lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.name = name ? name : "-";
    lx.err = err;
    lx.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    memset(d, 0, sizeof *d); /* a fresh Fortran run starts from zeros */
    int rc = load(&lx, f);
    if (rc == 0)
        rc = read_deck(&lx, d);
    snprintf(d->path, sizeof d->path, "%s", lx.name);
    for (int i = 0; i < lx.nfl && i < (int)(sizeof d->where / sizeof d->where[0]); i++) {
        snprintf(d->where[i].field, sizeof d->where[i].field, "%s", lx.fl[i].name);
        d->where[i].line = lx.fl[i].line;
        d->nwhere = i + 1;
    }
    free(lx.lines);
    free(lx.buf);
    return rc ? -1 : 0;
}

const char *deck_at(const deck *d, const char *field, char *buf, size_t len)
{
    int line = 0;
    for (int i = d->nwhere - 1; i >= 0 && !line; i--)
        if (strcmp(d->where[i].field, field) == 0)
            line = d->where[i].line;
    const char *path = d->path[0] ? d->path : "deck";
    if (line > 0)
        snprintf(buf, len, "%s:%d: ", path, line);
    else
        snprintf(buf, len, "%s: ", path);
    return buf;
}

int deck_read_path(const char *path, deck *d, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return deck_read(stdin, "-", d, err, errlen);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: is a directory, not a deck file", path);
        memset(d, 0, sizeof *d);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        memset(d, 0, sizeof *d);
        return -1;
    }
    int rc = deck_read(f, path, d, err, errlen);
    fclose(f);
    return rc;
}
