/* main.c — the command line of bin/nbody6c: options, the deck, the run. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io/deck.h"
#include "evol/evol.h"
#include "app/run.h"
#include "common/version.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: nbody6c [options] [DECK|-]\n"
        "       nbody6c --restart FILE [options] [RESTART-DECK|-]\n"
        "Integrates a star cluster from an NBODY6 input deck (KSTART = 1), read from\n"
        "the file DECK or from standard input (\"-\" or no DECK).  The deck format and\n"
        "the status of every KZ option are in README.md (\"The input deck\").\n"
        "A restart deck (KSTART = 2-5, NBODY6's new parameter lines; values <= 0 keep\n"
        "the saved ones) continues the checkpoint named by --restart FILE; without\n"
        "--restart it continues fort.1 of the current folder (NBODY6's name), which\n"
        "must be an nbody6c checkpoint: NBODY6's own dumps are refused.  --restart\n"
        "FILE without a deck continues as saved.\n\n"
        "options:\n"
        "  --out DIR        output folder (default nbody6c-run; with --restart the\n"
        "                   checkpoint's folder; missing parents are created): log.txt,\n"
        "                   summary.json, snap.NNNNNN.h5, checkpoint.bin, profile.txt\n"
        "  --force          overwrite an earlier run in DIR\n"
        "  --ic FILE        bodies for KZ(22) = 2 or 3: an nbody6c HDF5 snapshot or a text\n"
        "                   file of \"m x y z vx vy vz\" lines (default fort.10); refused\n"
        "                   with KZ(22) = 0 or 1 and with --restart\n"
        "  --restart FILE   continue the run saved in the checkpoint FILE\n"
        "  --checkpoint-every MIN  a checkpoint every MIN minutes of wall time\n"
        "                   (default 60; 0 or negative: none but the others)\n"
        "  --checkpoint-dtadj  also a checkpoint at every energy check (DTADJ);\n"
        "                   KZ(2) >= 1 gives one at every output (DELTAT); one is\n"
        "                   always written at the end and at every early stop\n"
        "  --snapshots on|off  HDF5 snapshot every NFIX-th output and at t = 0 (default on)\n"
        "  --snapshot-layout L  nbody6c (default: snap.NNNNNN.h5), nbody6pp (NBODY6++GPU's\n"
        "                   snap.40_TIME.h5part, which its users' tools read) or both\n"
        "                   (docs/SNAPSHOTS.md)\n"
        "  --ks=on|off      KS regularisation of close pairs (default on)\n"
        "  --energy-audit   measure the whole energy before and after every KS event\n"
        "                   (O(N^2) each; the ledger in log.txt is then exact)\n"
        "  --energy-probe DT  probe.txt: the energy every DT of model time, measured on a\n"
        "                   copy of the state so that the run itself is unchanged\n"
        "                   (diagnosis: where between two checks the energy went)\n"
        "  --kicks SPEC     KZ(19) = 3: the remnants' kicks, e.g. ns=-100,ec=-0.25,bh=2,wd=2,\n"
        "                   wdmax=6 (NBODY6's; km/s, V < 0 flat in [0, |V|], V > 0\n"
        "                   Maxwellian dispersion, 0 none; docs/STELLAR_EVOLUTION.md)\n"
        "  --threads N      OpenMP threads (default: OMP_NUM_THREADS, else all cores,\n"
        "                   fewer while other processes use some; README \"Threads\")\n"
        "  --gpu=MODE       auto (default: the GPU when present), off (CPU SIMD backend),\n"
        "                   ref (CPU double-precision reference), required\n"
        "  --ngpu N         use N GPUs (default all visible)\n"
        "  --simd=PATH      irregular force: auto (default), scalar, sse, avx2, avx512\n"
        "  --nbmax N        hard cap of a neighbour list (default max(NNBMAX + 50, 400))\n"
        "  --quiet          no progress line\n"
        "  --help           this text\n"
        "  --version        version and compiled backends\n"
        "early stops: SIGTERM, SIGINT, TCOMP (deck line 1: wall-clock minutes), a file\n"
        "  named STOP in DIR, or fewer than NCRIT bodies (escapers leave with\n"
        "  KZ(23) >= 1): a checkpoint, a line in log.txt, \"stop_reason\" in summary.json,\n"
        "  exit status 0\n"
        "environment: NBODY6C_FAULT=snapshot@K|checkpoint@K (tests: the K-th write fails)\n"
        "exit status: 0 success or clean stop, 2 bad input or usage, 1 failure during\n"
        "  the run (a failed write included: the earlier files are kept)\n");
}

static void version(void)
{
    printf("nbody6c %s\nbackends: gpunb cpu-ref, cpu-simd", NBODY6C_VERSION);
#ifdef HAVE_CUDA
    printf(", cuda");
#endif
    printf("; gpuirr scalar, sse, avx2, avx512\n");
}

/* Matches "--name VALUE" or "--name=VALUE"; advances *k past what it used. */
static const char *option_value(int argc, char **argv, int *k, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(argv[*k], name, len) != 0) return NULL;
    if (argv[*k][len] == '=') return argv[*k] + len + 1;
    if (argv[*k][len] != '\0') return NULL;
    if (*k + 1 >= argc) {
        fprintf(stderr, "nbody6c: %s needs a value\n", name);
        exit(EXIT_BAD_INPUT);
    }
    return argv[++*k];
}

static int parse_int(const char *name, const char *s, int min)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > 1 << 30) {
        fprintf(stderr, "nbody6c: %s: expected an integer >= %d, found '%s'\n", name, min, s);
        exit(EXIT_BAD_INPUT);
    }
    return (int)v;
}

static void parse_args(int argc, char **argv, run_options *o)
{
    const char *val;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(EXIT_OK);
        } else if (!strcmp(a, "--version")) {
            version();
            exit(EXIT_OK);
        } else if (!strcmp(a, "--force")) {
            o->force = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if ((val = option_value(argc, argv, &k, "--out"))) {
            o->out_dir = val;
        } else if ((val = option_value(argc, argv, &k, "--restart"))) {
            o->restart_path = val;
        } else if ((val = option_value(argc, argv, &k, "--checkpoint-every"))) {
            char *end;
            double v = strtod(val, &end);
            if (*val == '\0' || *end != '\0' || v != v) {
                fprintf(stderr, "nbody6c: --checkpoint-every: expected minutes, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
            o->checkpoint_every = v > 0.0 ? v : -1.0;
        } else if (!strcmp(a, "--energy-audit")) {
            o->energy_audit = 1;
        } else if ((val = option_value(argc, argv, &k, "--energy-probe"))) {
            char *end;
            double v = strtod(val, &end);
            if (*val == '\0' || *end != '\0' || !(v > 0.0) || !isfinite(v)) {
                fprintf(stderr, "nbody6c: --energy-probe: expected a positive model time, found "
                        "'%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
            o->energy_probe = v;
        } else if ((val = option_value(argc, argv, &k, "--kicks"))) {
            char msg[512];
            evol_kicks kk = evol_kicks_default(0);
            if (evol_kicks_parse(val, &kk, msg, sizeof msg)) {
                fprintf(stderr, "nbody6c: %s\n", msg);
                exit(EXIT_BAD_INPUT);
            }
            o->kicks = val;
        } else if (!strcmp(a, "--checkpoint-dtadj")) {
            o->checkpoint_at_dtadj = 1;
        } else if ((val = option_value(argc, argv, &k, "--ks"))) {
            if (strcmp(val, "on") && strcmp(val, "off")) {
                fprintf(stderr, "nbody6c: --ks: expected on or off, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
            o->ks_off = !strcmp(val, "off");
        } else if ((val = option_value(argc, argv, &k, "--snapshots"))) {
            if (strcmp(val, "on") && strcmp(val, "off")) {
                fprintf(stderr, "nbody6c: --snapshots: expected on or off, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
            o->no_snapshots = !strcmp(val, "off");
        } else if ((val = option_value(argc, argv, &k, "--snapshot-layout"))) {
            if (!strcmp(val, "nbody6c")) o->snapshot_layout = SNAP_LAYOUT_NBODY6C;
            else if (!strcmp(val, "nbody6pp")) o->snapshot_layout = SNAP_LAYOUT_NBODY6PP;
            else if (!strcmp(val, "both")) o->snapshot_layout = SNAP_LAYOUT_BOTH;
            else {
                fprintf(stderr, "nbody6c: --snapshot-layout: expected nbody6c, nbody6pp or both, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
        } else if ((val = option_value(argc, argv, &k, "--ic"))) {
            o->ic_file = val;
        } else if ((val = option_value(argc, argv, &k, "--threads"))) {
            o->threads = parse_int("--threads", val, 1);
        } else if ((val = option_value(argc, argv, &k, "--nbmax"))) {
            o->nbmax = parse_int("--nbmax", val, 8);
        } else if ((val = option_value(argc, argv, &k, "--ngpu"))) {
            o->gpu.ngpu = parse_int("--ngpu", val, 1);
        } else if ((val = option_value(argc, argv, &k, "--gpu"))) {
            if (!strcmp(val, "auto")) o->gpu.mode = GPUNB_AUTO;
            else if (!strcmp(val, "off")) o->gpu.mode = GPUNB_CPU;
            else if (!strcmp(val, "ref")) o->gpu.mode = GPUNB_CPU_REF;
            else if (!strcmp(val, "required")) o->gpu.mode = GPUNB_REQUIRED;
            else {
                fprintf(stderr, "nbody6c: --gpu: expected auto, off, ref or required, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
        } else if ((val = option_value(argc, argv, &k, "--simd"))) {
            const char *names[] = {"auto", "scalar", "sse", "avx2", "avx512"};
            int found = -1;
            for (int q = 0; q < 5; q++)
                if (!strcmp(val, names[q])) found = q;
            if (found < 0) {
                fprintf(stderr, "nbody6c: --simd: expected auto, scalar, sse, avx2 or avx512, found '%s'\n", val);
                exit(EXIT_BAD_INPUT);
            }
            o->simd = (gpuirr_simd)found;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "nbody6c: unknown option '%s' (see --help)\n", a);
            exit(EXIT_BAD_INPUT);
        } else if (o->deck_path) {
            fprintf(stderr, "nbody6c: more than one deck given ('%s' and '%s')\n", o->deck_path, a);
            exit(EXIT_BAD_INPUT);
        } else {
            o->deck_path = a;
        }
    }
    if (!o->deck_path && !o->restart_path) o->deck_path = "-";
}

int main(int argc, char **argv)
{
    run_options o = {0};
    o.gpu.mode = GPUNB_AUTO;
    o.simd = GPUIRR_AUTO;
    parse_args(argc, argv, &o);

    deck d;
    char err[8192]; /* room for every refused KZ option of a deck */
    if (o.restart_path && o.ic_file) {
        fprintf(stderr, "nbody6c: --ic %s: a restart continues the checkpoint's bodies; "
                        "--ic is for a new run with KZ(22) = 2 or 3\n", o.ic_file);
        return EXIT_BAD_INPUT;
    }
    if (!o.deck_path) return run_restart(NULL, &o); /* --restart, no deck */
    if (deck_read_path(o.deck_path, &d, err, sizeof err)) {
        fprintf(stderr, "nbody6c: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (d.kstart == 1 && o.restart_path) {
        fprintf(stderr, "nbody6c: %s:1: KSTART = 1 starts a new run; a restart takes a deck "
                        "with KSTART = 2-5 or none\n", o.deck_path);
        return EXIT_BAD_INPUT;
    }
    if (d.kstart == 1 && o.ic_file && d.kz[22] < 2) {
        fprintf(stderr, "nbody6c: --ic %s: the deck's KZ(22) = %d draws its own bodies (%s:%d); "
                        "set KZ(22) = 2 (read and scale) or 3 (read as given) to start from "
                        "the file, or leave out --ic\n",
                o.ic_file, d.kz[22], o.deck_path, d.kz_line[22]);
        return EXIT_BAD_INPUT;
    }
    if (d.kstart == 1) return run_deck(&d, &o);
    if (!o.restart_path) {
        FILE *f = fopen("fort.1", "rb");
        if (!f) {
            fprintf(stderr, "nbody6c: %s:1: KSTART = %d restarts from a checkpoint: give "
                            "--restart FILE (no fort.1 in the current folder)\n",
                    o.deck_path, d.kstart);
            return EXIT_BAD_INPUT;
        }
        fclose(f);
        o.restart_path = "fort.1";
    }
    return run_restart(&d, &o);
}
