/* test_nb6pp.c — snapshots in NBODY6++GPU's layout (--snapshot-layout
 * nbody6pp|both, docs/SNAPSHOTS.md) from a short run with primordial
 * binaries and stellar evolution (KZ(8) = 1, KZ(19) = 3):
 *   - the file names NBODY6++GPU gives (snap.40_TIME.h5part), and none of
 *     the native ones with nbody6pp alone;
 *   - with h5py (tests/nb6pp_check.py layout): NBODY6++GPU's group, attribute
 *     and dataset names, shapes and types, and every value against the
 *     native snapshot of the same time (units: pc, km/s, Msun, AU, days);
 *   - a reader written for NBODY6++GPU's output, pythonbody, run on the
 *     files (tests/nb6pp_check.py pythonbody).  It is not shipped here: the
 *     test finds it as `import pythonbody` (a clone of its repository in a
 *     folder named pythonbody, that folder's parent in NBODY6C_PYTHONBODY
 *     or on PYTHONPATH; it needs pandas and tqdm) and is skipped without it.
 * Without a python3 that has h5py and numpy the file checks are skipped. */
#include "check.h"
#include "iotest.h"

/* 256 Kroupa stars (0.1-40 Msun) and 20 primordial binaries of 0.005 (RBAR 4
 * pc: about 1000 AU), KZ(19) = 3, outputs every 0.5 to t = 1. */
static void write_deck(const char *path)
{
    io_write(path, "1 10000.0\n256 1 0 991 60 1\n0.02 0.03 0.3 0.5 0.5 1.0 1.0E-04 4.0 0.5\n"
                   "1 0 0 0 1 0 0 1 0 0\n0 0 0 0 1 1 0 0 3 6\n0 0 1 0 0 0 0 0 0 1\n"
                   "0 0 0 0 0 0 0 0 0 1\n0 0 0 0 0 0 0 0 0 0\n"
                   "1.0E-04 0.01 0.2 1.0 1.0E-06 0.001\n2.3 40.0 0.1 20 0 0.02 0.0 1.0\n"
                   "0.5 0.0 0.0 0.0 0.5\n0.005 -1.0 1.0 10.0 0 0 0\n");
}

/* A python3 with h5py and numpy: the one on PATH, else Debian's. */
static const char *python_with_h5py(void)
{
    if (io_sh("python3 -c 'import h5py, numpy'") == 0) return "python3";
    if (io_sh("/usr/bin/python3 -c 'import h5py, numpy'") == 0) return "/usr/bin/python3";
    return NULL;
}

int main(void)
{
    char dir[] = "/tmp/nbody6c-nb6pp-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "temporary folder");
        return check_done();
    }
    char deck[600], p[700];
    snprintf(deck, sizeof deck, "%s/b.deck", dir);
    write_deck(deck);

    int rc = io_sh("%s --quiet --threads 1 --snapshot-layout nbody6 --out %s/x %s", NBODY6C_BIN, dir, deck);
    CHECK(rc == 2 && strstr(io_out, "--snapshot-layout") && strstr(io_out, "nbody6pp"),
          "--snapshot-layout nbody6: refused, naming the option and its values (exit %d) %s", rc, io_out);

    rc = io_sh("%s --quiet --threads 1 --snapshot-layout both --out %s/both %s", NBODY6C_BIN, dir, deck);
    CHECK(rc == 0, "a run with --snapshot-layout both (exit %d) %s", rc, io_out);
    static const char *times[3] = {"0.0", "0.5", "1.0"};
    int have = 0;
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, "%s/both/snap.40_%s.h5part", dir, times[k]);
        have += io_exists(p);
        snprintf(p, sizeof p, "%s/both/snap.%06d.h5", dir, k);
        have += io_exists(p);
    }
    CHECK(have == 6, "both: snap.40_0.0, 0.5, 1.0.h5part (the time with DELTAT's decimals) and the native "
                     "snap.00000K.h5 (%d of 6 files)", have);

    rc = io_sh("%s --quiet --threads 1 --snapshot-layout nbody6pp --out %s/pp %s", NBODY6C_BIN, dir, deck);
    snprintf(p, sizeof p, "%s/pp/snap.40_1.0.h5part", dir);
    int pp_file = io_exists(p);
    snprintf(p, sizeof p, "%s/pp/snap.000000.h5", dir);
    CHECK(rc == 0 && pp_file && !io_exists(p),
          "nbody6pp alone: the .h5part files and no native snapshot (exit %d) %s", rc, io_out);

    const char *py = python_with_h5py();
    if (!py) {
        SKIP("NBODY6++GPU layout checks: no python3 with h5py and numpy (Debian: apt-get install "
             "python3-h5py python3-numpy)");
        io_sh("rm -rf %s", dir);
        return check_done();
    }
    for (int k = 0; k < 3; k += 2) {
        rc = io_sh("%s tests/nb6pp_check.py layout %s/both/snap.%06d.h5 %s/both/snap.40_%s.h5part", py, dir, k, dir,
                   times[k]);
        CHECK(rc == 0, "t = %s: NBODY6++GPU's names, shapes and types, values as the native snapshot's (exit %d) %s",
              times[k], rc, io_out);
    }
    rc = io_sh("cmp -s %s/both/snap.40_1.0.h5part %s/pp/snap.40_1.0.h5part", dir, dir);
    CHECK(rc == 0, "nbody6pp alone writes the same file as both (exit %d)", rc);

    /* the reader: pythonbody, found as the README of docs/SNAPSHOTS.md says */
    const char *extra = getenv("NBODY6C_PYTHONBODY");
    char env[1200];
    snprintf(env, sizeof env, "PYTHONPATH=%s%s${PYTHONPATH:-}", extra ? extra : "", extra ? ":" : "");
    if (io_sh("%s %s -c 'import pythonbody, pandas, tqdm' 2>&1", env, py) != 0) {
        SKIP("pythonbody (NBODY6++GPU's HDF5 reader) not found: set NBODY6C_PYTHONBODY to the folder that holds "
             "a clone of it named pythonbody (docs/SNAPSHOTS.md); with pandas and tqdm");
    } else {
        rc = io_sh("%s %s tests/nb6pp_check.py pythonbody %s/pp %s/both/snap.000002.h5 1.0 2>&1", env, py, dir, dir);
        CHECK(rc == 0, "pythonbody reads the run's snap.40_*.h5part: times, stars, masses, binaries, scalars "
                       "(exit %d) %s", rc, io_out);
    }
    io_sh("rm -rf %s", dir);
    return check_done();
}
