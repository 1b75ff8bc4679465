/* test_plots.c — the plot scripts (scripts/plot_*.py) on a short run: each
 * runs, exits 0 and writes a PNG picture.  They are run with `python3` from
 * PATH, exactly as the README's commands run them (a python3 without the
 * modules hands over to /usr/bin/python3 when that one has them, and fails
 * with a message otherwise: the pictures are then skipped, saying why).  A
 * missing module gives a message that names it and how to install it. */
#include "check.h"
#include "iotest.h"

#define PYTHON "python3" /* the README's interpreter */

/* The README's command works: the scripts find their modules. */
static int python_has_deps(void)
{
    return io_sh(PYTHON " scripts/plot_energy.py --help") == 0;
}

/* A module that cannot be imported (a package on PYTHONPATH, ahead of the
 * installed one, whose import fails): every script must say what to install
 * instead of a traceback. */
static void missing_module_message(const char *dir)
{
    io_sh("mkdir -p %s/fake/h5py && echo 'raise ImportError(\"No module named h5py\")' > "
          "%s/fake/h5py/__init__.py", dir, dir);
    static const char *scripts[] = {"plot_radii.py", "plot_energy.py", "plot_collapse.py",
                                    "plot_snapshot.py", "plot_massloss.py", "plot_hr.py"};
    for (int k = 0; k < 6; k++) {
        int rc = io_sh("PYTHONPATH=%s/fake " PYTHON " scripts/%s %s/none", dir, scripts[k], dir);
        CHECK(rc != 0 && strstr(io_out, "h5py") && strstr(io_out, "pip install") &&
                  strstr(io_out, "apt-get install") && !strstr(io_out, "Traceback"),
              "%s without h5py: a message naming the module and how to install it (exit %d): %s",
              scripts[k], rc, io_out);
    }
    /* plot_summary.py reads log.txt alone: it needs numpy and matplotlib */
    io_sh("mkdir -p %s/fake/matplotlib && echo 'raise ImportError(\"No module named matplotlib\")' > "
          "%s/fake/matplotlib/__init__.py", dir, dir);
    int rc = io_sh("PYTHONPATH=%s/fake " PYTHON " scripts/plot_summary.py %s/none", dir, dir);
    CHECK(rc != 0 && strstr(io_out, "matplotlib") && strstr(io_out, "pip install") && !strstr(io_out, "Traceback"),
          "plot_summary.py without matplotlib: a message naming it and how to install it (exit %d): %s", rc, io_out);
}

/* A PNG file of some size (the signature, and more than a blank header). */
static int is_png(const char *path)
{
    size_t len = 0;
    char *b = io_read(path, &len);
    int ok = b && len > 2000 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8);
    free(b);
    return ok;
}

int main(void)
{
    char dir[] = "/tmp/nbody6c-plots-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    if (io_sh(PYTHON " -c 'import sys'") != 0) {
        SKIP("plot scripts: no python3 on PATH");
        io_sh("rm -rf %s", dir);
        return check_done();
    }
    missing_module_message(dir);
    if (!python_has_deps()) {
        SKIP("plot pictures: the README's python3 command fails here as it would for a user: %.400s",
             io_out);
        io_sh("rm -rf %s", dir);
        return check_done();
    }
    const char *py = PYTHON;
    char deck[4096], dpath[600], p[700];
    io_deck(deck, sizeof deck, 1000.0, 256, 1, 0.125, 0.25, 1.0, 0, 0);
    snprintf(dpath, sizeof dpath, "%s/a.deck", dir);
    io_write(dpath, deck);
    int rc = io_sh("%s --quiet --out %s/run %s", NBODY6C_BIN, dir, dpath);
    CHECK(rc == 0, "a 256-body run to t = 1 (exit %d) %s", rc, io_out);

    rc = io_sh("%s scripts/plot_radii.py %s/run -o %s/radii.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/radii.png", dir);
    CHECK(rc == 0 && is_png(p), "plot_radii.py: Lagrangian and core radii (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_radii.py %s/run --myr -o %s/radii-myr.pdf", py, dir, dir);
    CHECK(rc == 0, "plot_radii.py --myr to PDF (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_energy.py %s/run -o %s/energy.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/energy.png", dir);
    CHECK(rc == 0 && is_png(p), "plot_energy.py: energy error (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_collapse.py %s/run %s/run --labels a,b -o %s/collapse.png", py, dir, dir, dir);
    snprintf(p, sizeof p, "%s/collapse.png", dir);
    CHECK(rc == 0 && is_png(p), "plot_collapse.py: radii, hard binaries, EBIN, dE of two runs (exit %d) %s",
          rc, io_out);
    rc = io_sh("%s scripts/plot_snapshot.py %s/run -t 0.5 -o %s/cluster.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/cluster.png", dir);
    CHECK(rc == 0 && is_png(p), "plot_snapshot.py: the cluster at t = 0.5 (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_snapshot.py %s/run/snap.000004.h5 --plane xz -o %s/c2.png", py, dir, dir);
    CHECK(rc == 0, "plot_snapshot.py from one file, x-z plane (exit %d) %s", rc, io_out);
    /* the HR diagram: refused for a run without stellar evolution, drawn
     * for a 256-star Kroupa cluster with KZ(19) = 3 at 60 Myr */
    rc = io_sh("%s scripts/plot_hr.py %s/run -o %s/hr0.png", py, dir, dir);
    CHECK(rc != 0 && strstr(io_out, "KZ(19) = 3") && !strstr(io_out, "Traceback"),
          "plot_hr.py on a run without stellar evolution says so (exit %d) %s", rc, io_out);
    snprintf(dpath, sizeof dpath, "%s/sev.deck", dir);
    io_write(dpath, "1 10000.0\n256 1 0 991 60 1\n0.02 0.03 0.3 1.0 5.0 5.0 1.0E-04 4.0 0.5\n"
                    "2 0 0 0 1 0 0 0 0 0\n0 0 0 0 1 1 0 0 3 6\n0 0 1 0 0 0 0 0 0 1\n"
                    "0 0 0 0 0 0 0 0 0 1\n0 0 0 0 0 0 0 0 0 0\n1.0E-04 0.01 0.2 1.0 1.0E-06 0.001\n"
                    "2.3 40.0 0.1 0 0 0.02 0.0 1.0\n0.5 0.0 0.0 0.0 1.0\n");
    rc = io_sh("%s --quiet --out %s/sev %s", NBODY6C_BIN, dir, dpath);
    if (rc == 0) rc = io_sh("%s scripts/plot_hr.py %s/sev -o %s/hr.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/hr.png", dir);
    CHECK(rc == 0 && is_png(p) && strstr(io_out, "Myr") && strstr(io_out, "13:"),
          "plot_hr.py: the HR diagram at 60 Myr with its neutron stars counted (exit %d) %s", rc, io_out);
    /* sse-compare's folder: that run as nbody6c's, and an NBODY6 out.txt of
     * three outputs written here in NBODY6's line formats (T =, #4, ADJUST) */
    io_sh("mkdir -p %s/cmp/nbody6c %s/cmp/nbody6 && cp -r %s/sev %s/cmp/nbody6c/run && cp %s %s/cmp/deck", dir,
          dir, dir, dir, dpath, dir);
    snprintf(p, sizeof p, "%s/cmp/nbody6/out.txt", dir);
    io_write(p, " ADJUST:  TIME =    0.00  Q = 0.50  DE =  0.0E+00  E = -0.250000  RMIN = 1.0E-03\n"
                " T =     0.  N =   256  <NB> = 20  KS =    0  NM =  0  MM = 0  NS =   256  DE =  0.0E+00  "
                "E = -0.250000  M = 1.0000\n"
                " ADJUST:  TIME =    5.00  Q = 0.52  DE = -4.0E-06  E = -0.250001  RMIN = 1.0E-03\n"
                " T =     5.  N =   255  <NB> = 20  KS =    1  NM =  0  MM = 0  NS =   253  DE = -4.0E-06  "
                "E = -0.250001  M = 0.9500\n"
                " #4      10    0    0    0    0    2    1    0    0   0.0   0.0    0.0   0.0   0.0   0.0"
                "    12.5   250   6\n"
                " ADJUST:  TIME =   10.00  Q = 0.51  DE =  1.5E-06  E = -0.250000  RMIN = 1.0E-03\n"
                " T =    10.  N =   254  <NB> = 20  KS =    1  NM =  0  MM = 0  NS =   252  DE =  1.5E-06  "
                "E = -0.250000  M = 0.9100\n"
                " #4      12    0    0    0    0    3    2    0    0   0.0   0.0    0.0   0.0   0.0   0.0"
                "    20.5   250   6\n");
    rc = io_sh("%s scripts/plot_sse_compare.py %s/cmp -o %s/cmp.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/cmp.png", dir);
    CHECK(rc == 0 && is_png(p) && strstr(io_out, "largest |DE| 4.00e-06") && strstr(io_out, "Z 0.02"),
          "plot_sse_compare.py: both codes drawn, NBODY6's largest ADJUST DE read (exit %d) %s", rc, io_out);
    /* bound mass in a tidal field: 256 stars of 1 Msun at RBAR 2 pc in the
     * solar neighbourhood (KZ(14) = 1), snapshots at t = 0, 1, 2 */
    snprintf(dpath, sizeof dpath, "%s/tide.deck", dir);
    io_write(dpath, "1 10000.0\n256 1 100 4711 40 1\n0.02 0.03 0.3 1.0 1.0 2.0 2.0D-04 2.0 0.5\n"
                    "0 1 0 0 1 0 0 0 0 0\n0 0 0 1 0 1 0 0 0 0\n0 0 0 0 0 0 0 0 0 1\n"
                    "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n2.0E-04 0.001 0.2 1.0 1.0E-06 0.001\n"
                    "1.0 1.0 1.0 0 0 0.002 0.0 1.0\n0.5 0.0 0.0 0.0 1.0\n");
    rc = io_sh("%s --quiet --out %s/tide %s", NBODY6C_BIN, dir, dpath);
    CHECK(rc == 0, "a 256-body run in the solar-neighbourhood field to t = 2 (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_massloss.py %s/tide -o %s/massloss.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/massloss.png", dir);
    double t0 = -1, fb = -1;
    int nlines = 0;
    for (const char *l = io_out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        double tt, tm, fr;
        int n, nb;
        if (sscanf(l, "%lf %lf %d %d %lf", &tt, &tm, &n, &nb, &fr) == 5) {
            if (nlines++ == 0) { t0 = tt; fb = fr; }
        }
    }
    CHECK(rc == 0 && is_png(p) && nlines == 3 && t0 == 0.0 && fb > 0.9 && fb <= 1.0,
          "plot_massloss.py: bound mass at t = 0, 1, 2, the first within r_J a fraction in (0.9, 1] "
          "(exit %d, %d lines, %.4f at t = %g) %s", rc, nlines, fb, t0, io_out);
    rc = io_sh("%s scripts/plot_massloss.py %s/run -o %s/iso.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/iso.png", dir);
    nlines = 0;
    for (const char *l = io_out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        double tt, tm, fr;
        int n;
        char one[256], extra[8];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(l, "\n"), l);
        if (sscanf(one, "%lf %lf %d %lf %7s", &tt, &tm, &n, &fr, extra) == 4 && fr > 0.5 && fr <= 1.0) nlines++;
    }
    CHECK(rc == 0 && is_png(p) && nlines == 9,
          "plot_massloss.py on an isolated run: the log's bound mass at the 9 checks (exit %d, %d lines) %s", rc,
          nlines, io_out);
    rc = io_sh("%s scripts/plot_summary.py %s/tide -o %s/summary.png", py, dir, dir);
    snprintf(p, sizeof p, "%s/summary.png", dir);
    CHECK(rc == 0 && is_png(p), "plot_summary.py: radii, N and mass, binaries, energy against QE (exit %d) %s", rc,
          io_out);
    /* the fixed point of the bound mass: ten masses of 0.1 at r = 1 .. 10,
     * TIDAL(1) = 0.002: r_J(1) = 7.94 holds 7 of them, r_J(0.7) = 7.05
     * holds the same 7 */
    rc = io_sh("cd scripts && %s -c \"import numpy as np, plot_massloss as p; "
               "x = np.zeros((10, 3)); x[:, 0] = np.arange(1, 11); "
               "mb, n = p.bound_mass(x, np.full(10, 0.1), np.zeros(3), 0.002); "
               "assert abs(mb - 0.7) < 1e-12 and n == 7, (mb, n)\"",
               io_sh(PYTHON " -c 'import numpy, h5py, matplotlib'") == 0 ? PYTHON : "/usr/bin/python3");
    CHECK(rc == 0, "plot_massloss.bound_mass: 7 of 10 bodies inside r_J at the fixed point (exit %d) %s", rc, io_out);
    /* the reader module keeps the later line when a restart repeats a time */
    /* (as a library, under the interpreter the scripts ended up with) */
    const char *lib_py = io_sh(PYTHON " -c 'import numpy'") == 0 ? PYTHON : "/usr/bin/python3";
    rc = io_sh("cd scripts && %s -c \"import nbody6c_io as n; d = n.read_log('%s/run/log.txt'); "
               "assert len(d['t']) == 9 and d['t'][-1] == 1.0, d['t']\"", lib_py, dir);
    CHECK(rc == 0, "nbody6c_io.read_log: 9 checks, t = 0 ... 1 (exit %d) %s", rc, io_out);
    /* a log whose columns change midway (a restart by another version):
     * each row by the names line above it, a note "# t = ..." no header */
    io_write(p, "#  t  E  x  y\n0 -0.25 1 2\n1 -0.26 3 4\n# t = 1: a note\n"
                "# the columns change here (this version's):\n#  t  t_myr  E  y\n#  [N-body] [Myr] [N-body] [-]\n"
                "2 4.0 -0.27 6\n");
    rc = io_sh("cd scripts && %s -c \"import math, nbody6c_io as n; d = n.read_log('%s'); "
               "assert list(d['t']) == [0, 1, 2] and list(d['E']) == [-0.25, -0.26, -0.27], d; "
               "assert list(d['y']) == [2, 4, 6] and d['x'][1] == 3 and math.isnan(d['x'][2]), d; "
               "assert math.isnan(d['t_myr'][0]) and d['t_myr'][2] == 4.0, d\"", lib_py, p);
    CHECK(rc == 0, "nbody6c_io.read_log: a log whose columns change midway is read by name (exit %d) %s", rc, io_out);
    rc = io_sh("scripts/log-columns %s y E", p);
    CHECK(rc == 0 && !strcmp(io_out, "2 -0.25\n4 -0.26\n6 -0.27\n"),
          "scripts/log-columns: the same log by name (exit %d) %s", rc, io_out);
    rc = io_sh("%s scripts/plot_radii.py %s/nothing -o %s/x.png", py, dir, dir);
    CHECK(rc != 0, "a missing run folder fails with a message (exit %d)", rc);
    io_sh("rm -rf %s", dir);
    return check_done();
}
