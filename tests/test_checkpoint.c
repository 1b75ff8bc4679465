/* test_checkpoint.c — checkpoints and restarts:
 *   - the encoding restores every array and scalar exactly (in memory);
 *   - truncated, corrupted (every single flipped byte the checksum must see),
 *     foreign, other-version and NBODY6 fort.1 files are refused;
 *   - a 1k run stopped by SIGTERM half-way, by TCOMP and by a STOP file, then
 *     continued, ends bit-identical to the run done in one go (summary.json
 *     apart from wall times, the log's data columns, the final snapshot);
 *   - a restart deck (KSTART = 3) extends TCRIT; a run that ended at a TCRIT
 *     between checks, so extended, ends bit-identical to the run in one go;
 *   - a failed checkpoint write (fault switch; and EFBIG under ulimit -f)
 *     stops the run with exit 1 and leaves the previous checkpoint intact. */
#include <limits.h>
#include <math.h>
#include "check.h"
#include "io/checkpoint.h"
#include "iotest.h"
#include "reg/ks.h"
#include "reg/ks_state.h"
#include "simutil.h"
#include "io/snapshot.h"

/* ---- in memory -------------------------------------------------------------- */

static int same_sims(const sim *a, const sim *b)
{
    if (a->n != b->n || a->npairs != b->npairs || a->ifirst != b->ifirst || a->ntot != b->ntot ||
        a->nbmax != b->nbmax || memcmp(&a->p, &b->p, sizeof a->p) || memcmp(&a->cnt, &b->cnt, sizeof a->cnt) ||
        memcmp(&a->tm, &b->tm, sizeof a->tm))
        return 0;
    size_t nt = (size_t)a->ntot;
    int ok = !memcmp(a->name, b->name, sizeof(int) * nt) && !memcmp(a->nnb, b->nnb, sizeof(int) * nt);
    const double *da[] = {a->m, a->tpred, a->t0, a->t0r, a->dt, a->dtr, a->rs};
    const double *db[] = {b->m, b->tpred, b->t0, b->t0r, b->dt, b->dtr, b->rs};
    for (int k = 0; k < 7; k++) ok &= !memcmp(da[k], db[k], sizeof(double) * nt);
    const vec3 *va[] = {a->x0, a->v0, a->x, a->v, a->a, a->j, a->fi, a->fid, a->d2, a->d3, a->fr, a->frd, a->d2r, a->d3r};
    const vec3 *vb[] = {b->x0, b->v0, b->x, b->v, b->a, b->j, b->fi, b->fid, b->d2, b->d3, b->fr, b->frd, b->d2r, b->d3r};
    for (int k = 0; k < 14; k++) ok &= !memcmp(va[k], vb[k], sizeof(vec3) * nt);
    for (int i = 0; i < a->ntot && ok; i++) ok &= !memcmp(sim_list(a, i), sim_list(b, i), sizeof(int) * a->nnb[i]);
    double sa[] = {a->time, a->mtot, a->mmean, a->nnbmax, a->znbmin, a->znbmax, a->alpha, a->rscale,
                   a->tcr, a->rsmin, a->xd[0], a->xd[1], a->xd[2], a->rc, a->rc2, a->vc, a->smin};
    double sb[] = {b->time, b->mtot, b->mmean, b->nnbmax, b->znbmin, b->znbmax, b->alpha, b->rscale,
                   b->tcr, b->rsmin, b->xd[0], b->xd[1], b->xd[2], b->rc, b->rc2, b->vc, b->smin};
    ok = ok && !memcmp(sa, sb, sizeof sa) && a->nc == b->nc && a->rhod == b->rhod;
    /* KS pairs: counters, orbits, perturber lists, resolved states */
    if (!a->ks || !b->ks) return ok && !a->ks == !b->ks;
    const ks_state *ka = a->ks, *kb = b->ks;
    ok = ok && ka->kz16 == kb->kz16 && ka->ebh == kb->ebh && ka->formed == kb->formed &&
         ka->terminated == kb->terminated && ka->steps == kb->steps && ka->etide == kb->etide;
    for (int k = 0; ok && k < a->npairs; k++) {
        const ks_pair *p = &ka->pair[k], *q = &kb->pair[k];
        ok = !memcmp(&p->o, &q->o, sizeof p->o) && p->np == q->np &&
             !memcmp(p->plist, q->plist, sizeof(int) * p->np) && p->terminate == q->terminate &&
             p->renew == q->renew && p->tres == q->tres && !memcmp(p->xcm, q->xcm, sizeof p->xcm) &&
             !memcmp(p->vcm, q->vcm, sizeof p->vcm) && !memcmp(p->x1, q->x1, sizeof p->x1) &&
             !memcmp(p->v1, q->v1, sizeof p->v1) && !memcmp(p->x2, q->x2, sizeof p->x2) &&
             !memcmp(p->v2, q->v2, sizeof p->v2);
    }
    return ok;
}

/* Encodes s and decodes it again: same state? */
static void ks_round_trip(sim *s, const deck *d, const run_state *rs)
{
    /* a pair of body 0 (a single) and its first neighbour, formed by the KS
     * module itself; then the pair must survive the round trip */
    int i = s->ifirst, j = s->nnb[i] > 0 ? sim_list(s, i)[0] : -1;
    char err[1024];
    if (j < 0 || j >= s->n || ks_form(s, i, j, s->time, err, sizeof err)) {
        SKIP("KS round trip: no pair could be formed (%s)", j < 0 ? "empty list" : err);
        return;
    }
    s->ks->etide = -1.25e-7; /* tidal energy booked at changes of model (ks.h) */
    /* a component's slot keeps its stale list from its single days; after
     * slot swaps it can name the slot itself (seen in a run at t = 660 of
     * cc-plummer-2048, NRAND 4711: its checkpoint was refused) */
    if (s->nnb[0] == 0) s->nnb[0] = 1;
    sim_list(s, 0)[0] = 0;
    size_t len;
    unsigned char *buf = checkpoint_encode(s, d, rs, &len);
    deck d2;
    run_state rs2;
    sim *t = buf ? checkpoint_decode(buf, len, "ks", &d2, &rs2, err, sizeof err) : NULL;
    CHECK(s->npairs == 1 && t && same_sims(s, t), "with a KS pair: every array, pair orbit, perturber list, "
          "counter and booked energy restored bit for bit (%s)", t ? "decoded" : err);
    if (t) {
        ks_close(t);
        sim_free(t);
    }
    free(buf);
}


/* Field by field: a memcmp of the structs would also compare their padding
 * (after diag.nc), which a struct copy need not carry (it failed on a
 * CUDA build with the values all equal). */
static int same_diag(const diag *a, const diag *b)
{
    int same = a->t == b->t && a->kin == b->kin && a->pot == b->pot && a->etot == b->etot &&
               a->etide == b->etide && a->rtide == b->rtide && a->qvir == b->qvir && a->rc == b->rc &&
               a->vc == b->vc && a->nc == b->nc && a->nbmean == b->nbmean;
    for (int c = 0; c < 3; c++) same &= a->xd[c] == b->xd[c];
    for (int k = 0; k < NLAGR; k++) same &= a->rlagr[k] == b->rlagr[k];
    return same;
}

static int same_run_state(const run_state *a, const run_state *b)
{
    return a->tcheck == b->tcheck && a->tout == b->tout && a->nout == b->nout &&
           a->nsnap == b->nsnap && a->nckpt == b->nckpt && a->e0 == b->e0 && a->eprev == b->eprev &&
           a->de_sum_abs == b->de_sum_abs && a->de_last == b->de_last &&
           a->log_bytes == b->log_bytes && a->echeck == b->echeck &&
           a->qe_repeats == b->qe_repeats && a->etai0 == b->etai0 && a->etar0 == b->etar0 &&
           same_diag(&a->last, &b->last);
}

static void in_memory(uint64_t seed)
{
    int n = 256;
    deck d;
    deck_defaults(&d, n);
    d.tcomp = 123.0;
    d.kz[2] = 1;
    snprintf(d.notes, sizeof d.notes, "a note\nand another");
    double *m = malloc(sizeof(double) * n);
    double(*x)[3] = malloc(sizeof(double[3]) * n), (*v)[3] = malloc(sizeof(double[3]) * n);
    char err[1024];
    ic_make(&d, NULL, m, x, v, err, sizeof err);
    run_options o = quiet_cpu_options();
    diag dg;
    sim *s = run_start(&d, n, m, (const double(*)[3])x, (const double(*)[3])v, &o, &dg, err, sizeof err);
    free(m); free(x); free(v);
    if (!s || run_advance(s, 0.3, err, sizeof err)) {
        CHECK(0, "run: %s", s ? err : "run_start failed");
        return;
    }
    run_state rs = {0};
    rs.tcheck = 0.5; rs.tout = 1.0; rs.nout = 3; rs.nsnap = 2; rs.nckpt = 9;
    rs.e0 = -0.25; rs.eprev = -0.2500001; rs.de_sum_abs = 1e-7; rs.de_last = -3e-8; rs.log_bytes = 4321;
    rs.last = dg;
    size_t len;
    unsigned char *buf = checkpoint_encode(s, &d, &rs, &len);
    CHECK(buf != NULL, "encode %d bodies: %zu bytes", n, len);
    if (!buf) return;
    deck d2;
    run_state rs2;
    sim *t = checkpoint_decode(buf, len, "mem", &d2, &rs2, err, sizeof err);
    CHECK(t != NULL, "decode: %s", t ? "ok" : err);
    if (t) {
        CHECK(same_sims(s, t), "every array, list, scalar, counter and timer restored bit for bit");
        CHECK(same_run_state(&rs, &rs2), "run state (schedule, log energies, counters, last diag) restored");
        CHECK(d2.tcomp == 123.0 && d2.kz[2] == 1 && d2.n == n && d2.rbar == d.rbar && d2.dtadj == d.dtadj &&
              !strcmp(d2.notes, d.notes), "deck values restored");
        ks_close(t);
        sim_free(t);
    }

    /* truncated */
    size_t cuts[] = {len - 1, len - 8, len / 2, 40, 31, 7, 0};
    int refused = 0;
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        sim *u = checkpoint_decode(buf, cuts[k], "cut", &d2, &rs2, err, sizeof err);
        refused += u == NULL;
        if (u) sim_free(u);
    }
    CHECK(refused == 7, "7 of 7 truncations refused (last: %s)", err);
    /* one flipped byte anywhere: FNV-1a maps a changed byte to a changed
     * state, and every later step is a bijection of the state, so the final
     * hash must differ; header fields fail their own checks first */
    uint64_t r = seed | 1;
    int missed = 0, trials = 300;
    for (int k = 0; k < trials; k++) {
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        size_t at = k < 40 ? (size_t)k : (size_t)(r % len); /* the whole header, then anywhere */
        unsigned char bit = (unsigned char)(1u << (r >> 60 & 7));
        buf[at] ^= bit;
        sim *u = checkpoint_decode(buf, len, "flip", &d2, &rs2, err, sizeof err);
        buf[at] ^= bit;
        if (u) {
            missed++;
            sim_free(u);
        }
    }
    CHECK(missed == 0, "%d of %d single flipped bits accepted", missed, trials);
    /* another format version (checksum made consistent) */
    unsigned char *w = malloc(len);
    memcpy(w, buf, len);
    w[8] = 2;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t k = 0; k < len - 8; k++) h = (h ^ w[k]) * 0x100000001b3ULL;
    memcpy(w + len - 8, &h, 8);
    sim *u = checkpoint_decode(w, len, "v2", &d2, &rs2, err, sizeof err);
    CHECK(!u && strstr(err, "format 2"), "another format version refused: %s", err);
    /* foreign: text, and an NBODY6 dump (Fortran records: length, data, length) */
    const char *text = "1 10000.0\n1024 1 10 199 80 1\n";
    u = checkpoint_decode((const unsigned char *)text, strlen(text), "deck", &d2, &rs2, err, sizeof err);
    CHECK(!u && strstr(err, "not an nbody6c checkpoint"), "a text file refused: %s", err);
    unsigned char f1[64] = {0};
    uint32_t rl = 48;
    memcpy(f1, &rl, 4);
    memcpy(f1 + 52, &rl, 4);
    u = checkpoint_decode(f1, 56, "fort.1", &d2, &rs2, err, sizeof err);
    CHECK(!u && strstr(err, "NBODY6 restart dump"), "an NBODY6 fort.1 dump refused as such: %s", err);
    free(w);
    free(buf);
    ks_round_trip(s, &d, &rs);
    run_end(s);
}

/* ---- the program ------------------------------------------------------------ */

static char dir[] = "/tmp/nbody6c-ckpt-XXXXXX";
static char bin[PATH_MAX];

/* Final snapshots of two runs bit-identical (positions, velocities, masses, names). */
static int same_snapshot(const char *a, const char *b, char *why, size_t len)
{
    snapshot_data x, y;
    char err[1024];
    if (snapshot_read(a, &x, err, sizeof err)) {
        snprintf(why, len, "%s", err);
        return 0;
    }
    if (snapshot_read(b, &y, err, sizeof err)) {
        snprintf(why, len, "%s", err);
        snapshot_data_free(&x);
        return 0;
    }
    int same = x.n == y.n && x.time == y.time;
    for (int k = 0; same && k < x.n; k++)
        same = !memcmp(x.x[k], y.x[k], sizeof x.x[k]) && !memcmp(x.v[k], y.v[k], sizeof x.v[k]) &&
               x.m[k] == y.m[k] && x.name[k] == y.name[k];
    snprintf(why, len, "t = %g / %g", x.time, y.time);
    snapshot_data_free(&x);
    snapshot_data_free(&y);
    return same;
}

/* The log's data lines without the wall-time columns. */
static char *log_data(const char *path)
{
    return io_log_rows(path, "wall");
}

/* Drops the data row of time t from rows (one per line). */
static void drop_row(char *rows, double t)
{
    for (char *line = rows; line && *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        if (atof(line) == t) {
            memmove(line, line + n, strlen(line + n) + 1);
            continue;
        }
        line += n;
    }
}

/* Compares run `name` with the reference run "ref"; extra >= 0: the time of
 * a row only run `name` has (the end of a run that was then continued). */
static void same_as_reference_but(const char *name, const char *what, double extra)
{
    char a[600], b[600], why[1200];
    snprintf(a, sizeof a, "%s/ref/summary.json", dir);
    snprintf(b, sizeof b, "%s/%s/summary.json", dir, name);
    int nd = io_summary_diff(a, b, why, sizeof why);
    CHECK(nd == 0, "%s: summary.json equal to the uninterrupted run but for wall times (%d lines differ%s%s)",
          what, nd, nd ? ": " : "", why);
    snprintf(a, sizeof a, "%s/ref/snap.000008.h5", dir);
    snprintf(b, sizeof b, "%s/%s/snap.000008.h5", dir, name);
    CHECK(same_snapshot(a, b, why, sizeof why), "%s: final snapshot bit-identical (%s)", what, why);
    snprintf(a, sizeof a, "%s/ref/log.txt", dir);
    snprintf(b, sizeof b, "%s/%s/log.txt", dir, name);
    char *la = log_data(a), *lb = log_data(b);
    if (extra >= 0.0) drop_row(lb, extra);
    size_t k = 0;
    while (la && lb && la[k] && la[k] == lb[k]) k++;
    CHECK(la && lb && !strcmp(la, lb), "%s: log.txt data lines identical (wall columns aside)%s%.80s",
          what, la && lb && strcmp(la, lb) ? "; first difference at: " : "", la && lb ? la + k : "");
    free(la);
    free(lb);
}

static void same_as_reference(const char *name, const char *what)
{
    same_as_reference_but(name, what, -1.0);
}

static int summary_has(const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s/summary.json", dir, name);
    char *b = io_read(p, NULL);
    int has = b && strstr(b, text);
    free(b);
    return has;
}

/* Starts a run of deck `dk` in folder `name`, waits for its log to pass
 * t_wait, then signals or drops a STOP file; returns the exit status. */
static int interrupted_run(const char *name, const char *dk, double t_wait, int sig, int *reached)
{
    char cmd[8192], log[600], out[600];
    snprintf(cmd, sizeof cmd, "%s --quiet --out %s/%s %s", bin, dir, name, dk);
    snprintf(log, sizeof log, "%s/%s/log.txt", dir, name);
    snprintf(out, sizeof out, "%s/%s.stderr", dir, name);
    pid_t pid = io_spawn(cmd, out);
    *reached = io_wait_log(log, t_wait, pid, 50.0);
    if (*reached) {
        if (sig) {
            kill(pid, sig);
        } else {
            char stop[600];
            snprintf(stop, sizeof stop, "%s/%s/STOP", dir, name);
            io_write(stop, "");
        }
    }
    int rc = io_wait(pid);
    char *e = io_read(out, NULL);
    size_t l = e ? strlen(e) : 0;
    if (l >= sizeof io_out) l = sizeof io_out - 1;
    if (e) memcpy(io_out, e, l);
    io_out[l] = '\0';
    free(e);
    return rc;
}

int main(void)
{
    uint64_t seed = check_seed();
    in_memory(seed);

    if (!mkdtemp(dir) || !realpath(NBODY6C_BIN, bin)) {
        CHECK(0, "temporary folder and %s", NBODY6C_BIN);
        return check_done();
    }
    /* 1024 bodies to t = 4: checks every 0.25, outputs (snapshots) every 0.5 */
    char dtext[4096], dk[600], dk_tcomp[600], rdk[600];
    io_deck(dtext, sizeof dtext, 1000.0, 1024, 1, 0.25, 0.5, 4.0, 0, 0);
    snprintf(dk, sizeof dk, "%s/run.deck", dir);
    io_write(dk, dtext);
    int rc = io_sh("%s --quiet --out %s/ref %s", bin, dir, dk);
    CHECK(rc == 0 && summary_has("ref", "\"stop_reason\": \"tcrit\""), "reference run to t = 4 (exit %d) %s", rc, io_out);

    /* SIGTERM half-way */
    int reached;
    rc = interrupted_run("term", dk, 2.0, SIGTERM, &reached);
    CHECK(reached && rc == 0 && strstr(io_out, "stopped at t") && strstr(io_out, "sigterm") &&
          summary_has("term", "\"stop_reason\": \"sigterm\"") && summary_has("term", "\"finished\": false"),
          "SIGTERM after t = 2: clean stop, exit %d, message and stop_reason: %s", rc, io_out);
    char p[700];
    snprintf(p, sizeof p, "%s/term/log.txt", dir);
    char *lg = io_read(p, NULL);
    CHECK(lg && strstr(lg, "# stopped at t = ") && strstr(lg, ": sigterm"), "log.txt says the run was stopped by SIGTERM");
    free(lg);
    rc = io_sh("%s --quiet --restart %s/term/checkpoint.bin", bin, dir);
    CHECK(rc == 0 && summary_has("term", "\"finished\": true"), "--restart continues to the end (exit %d) %s", rc, io_out);
    same_as_reference("term", "SIGTERM + restart");

    /* TCOMP: 0.005 minutes of wall time, then a KSTART = 2 deck with a new TCOMP */
    io_deck(dtext, sizeof dtext, 0.005, 1024, 1, 0.25, 0.5, 4.0, 0, 0);
    snprintf(dk_tcomp, sizeof dk_tcomp, "%s/tcomp.deck", dir);
    io_write(dk_tcomp, dtext);
    rc = io_sh("%s --quiet --out %s/tcomp %s", bin, dir, dk_tcomp);
    CHECK(rc == 0 && summary_has("tcomp", "\"stop_reason\": \"tcomp\""), "TCOMP stops cleanly (exit %d) %s", rc, io_out);
    snprintf(rdk, sizeof rdk, "%s/restart2.deck", dir);
    io_write(rdk, "2 1000.0\n");
    rc = io_sh("%s --quiet --restart %s/tcomp/checkpoint.bin %s", bin, dir, rdk);
    CHECK(rc == 0 && summary_has("tcomp", "\"finished\": true"), "KSTART = 2 deck with TCOMP 1000 continues (exit %d) %s", rc, io_out);
    same_as_reference("tcomp", "TCOMP + KSTART = 2 restart");

    /* STOP file */
    rc = interrupted_run("stop", dk, 1.0, 0, &reached);
    snprintf(p, sizeof p, "%s/stop/STOP", dir);
    CHECK(reached && rc == 0 && summary_has("stop", "\"stop_reason\": \"stop-file\"") && !io_exists(p),
          "a STOP file stops cleanly and is removed (exit %d): %s", rc, io_out);
    rc = io_sh("%s --quiet --restart %s/stop/checkpoint.bin", bin, dir);
    CHECK(rc == 0, "restart after STOP (exit %d) %s", rc, io_out);
    same_as_reference("stop", "STOP + restart");

    /* KSTART = 3: a later TCRIT for a finished run (values <= 0 keep the old ones) */
    io_sh("cp -r %s/ref %s/ext", dir, dir);
    io_write(rdk, "3 1000.0\n0 0 0 0 4.5 0 0 0\n");
    rc = io_sh("%s --quiet --restart %s/ext/checkpoint.bin %s", bin, dir, rdk);
    CHECK(rc == 0 && summary_has("ext", "\"t_end\": 4.5,"), "KSTART = 3 deck extends TCRIT to 4.5 (exit %d) %s", rc, io_out);

    /* a run that ended at a TCRIT between its checks and outputs, continued
     * by a KSTART = 3 deck that only extends TCRIT, ends as the run made in
     * one go (the continued log has the row at the first TCRIT besides) */
    char dk_half[600];
    io_deck(dtext, sizeof dtext, 1000.0, 1024, 1, 0.25, 0.5, 2.125, 0, 0);
    snprintf(dk_half, sizeof dk_half, "%s/half.deck", dir);
    io_write(dk_half, dtext);
    rc = io_sh("%s --quiet --out %s/half %s", bin, dir, dk_half);
    CHECK(rc == 0 && summary_has("half", "\"t_end\": 2.125,"), "a run to TCRIT = 2.125, between checks (exit %d) %s",
          rc, io_out);
    io_write(rdk, "3 1000.0\n0 0 0 0 4.0 0 0 0\n");
    rc = io_sh("%s --quiet --restart %s/half/checkpoint.bin %s", bin, dir, rdk);
    CHECK(rc == 0 && summary_has("half", "\"finished\": true"), "continued to TCRIT = 4 by a KSTART = 3 deck (exit %d) %s",
          rc, io_out);
    same_as_reference_but("half", "TCRIT 2.125, then KSTART = 3 to 4", 2.125);

    /* refusals on the command line */
    io_sh("mkdir -p %s/f1 && printf '\\060\\000\\000\\000' > %s/f1/fort.1 && head -c 48 /dev/zero >> %s/f1/fort.1 && "
          "printf '\\060\\000\\000\\000' >> %s/f1/fort.1", dir, dir, dir, dir);
    io_write(rdk, "2 1000.0\n");
    rc = io_sh("cd %s/f1 && %s --quiet %s", dir, bin, rdk);
    CHECK(rc == 2 && strstr(io_out, "NBODY6 restart dump"), "KSTART = 2 with NBODY6's fort.1 refused (exit %d): %s", rc, io_out);
    io_sh("cp %s/ref/checkpoint.bin %s/bad.bin && printf 'X' | dd of=%s/bad.bin bs=1 seek=5000 conv=notrunc", dir, dir, dir);
    rc = io_sh("%s --quiet --out %s/bad --restart %s/bad.bin", bin, dir, dir);
    CHECK(rc == 2 && strstr(io_out, "checksum"), "a corrupted checkpoint refused (exit %d): %s", rc, io_out);
    rc = io_sh("head -c 100000 %s/ref/checkpoint.bin > %s/cut.bin; %s --quiet --out %s/bad --restart %s/cut.bin",
               dir, dir, bin, dir, dir);
    CHECK(rc == 2 && strstr(io_out, "truncated"), "a truncated checkpoint refused (exit %d): %s", rc, io_out);
    rc = io_sh("%s --quiet --out %s/bad --restart %s/ref/snap.000001.h5", bin, dir, dir);
    CHECK(rc == 2 && strstr(io_out, "not an nbody6c checkpoint"), "a snapshot given as checkpoint refused (exit %d): %s", rc, io_out);

    /* a failed write: checkpoints at every output (KZ(2) = 1), the third fails */
    io_deck(dtext, sizeof dtext, 1000.0, 256, 1, 0.25, 0.25, 2.0, 1, 0);
    io_write(dk, dtext);
    rc = io_sh("NBODY6C_FAULT=checkpoint@3 %s --quiet --out %s/fail %s", bin, dir, dk);
    CHECK(rc == 1 && strstr(io_out, "checkpoint.bin") && strstr(io_out, "No space"),
          "a failed checkpoint stops the run with exit 1 and a message (exit %d): %s", rc, io_out);
    snprintf(p, sizeof p, "%s/fail/checkpoint.bin", dir);
    deck d;
    run_state rs;
    char err[1024];
    sim *s = checkpoint_read(p, &d, &rs, err, sizeof err);
    CHECK(s && s->time == 0.5 && rs.nckpt == 2, "the previous checkpoint (t = 0.5) is intact: %s", s ? "ok" : err);
    if (s) {
        ks_close(s);
        sim_free(s);
    }
    snprintf(p, sizeof p, "%s/fail/.checkpoint.bin.tmp", dir);
    CHECK(!io_exists(p), "no temporary file left");

    /* the same with a real error: a file-size limit (SIGXFSZ ignored, so the
     * write fails with EFBIG); the limit (150-300 kB, depending on the shell's
     * block unit) passes the 69 kB snapshots and stops the 480 kB checkpoint */
    io_sh("cp -r %s/ref %s/big && cp %s/big/checkpoint.bin %s/big.before", dir, dir, dir, dir);
    io_write(rdk, "3 1000.0\n0 0 0 0 4.6 0 0 0\n");
    rc = io_sh("trap '' XFSZ; ulimit -f 300; %s --quiet --restart %s/big/checkpoint.bin %s", bin, dir, rdk);
    CHECK(rc == 1 && strstr(io_out, "File too large"), "EFBIG on the checkpoint: exit 1 and a message (exit %d): %s", rc, io_out);
    rc = io_sh("cmp %s/big/checkpoint.bin %s/big.before && test ! -e %s/big/.checkpoint.bin.tmp", dir, dir, dir);
    CHECK(rc == 0, "the previous checkpoint is byte-identical and no temporary is left: %s", io_out);
    snprintf(p, sizeof p, "%s/big/snap.000009.h5", dir);
    snapshot_data sd;
    int ok = snapshot_read(p, &sd, err, sizeof err) == 0;
    CHECK(ok && sd.time == 4.5, "the snapshot written before the failure is whole: %s", ok ? "ok" : err);
    if (ok) snapshot_data_free(&sd);

    io_sh("rm -rf %s", dir);
    return check_done();
}
