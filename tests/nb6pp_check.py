"""Checks of snapshots in NBODY6++GPU's layout (--snapshot-layout nbody6pp),
run by tests/test_nb6pp.c; exits 0 when every check holds, 1 otherwise,
printing one line per failed check.

  nb6pp_check.py layout NATIVE.h5 NB6PP.h5part
      the names, shapes and types NBODY6++GPU's custom_output_facility.F
      writes (docs/SNAPSHOTS.md has the table), and the values against the
      native snapshot of the same time (same run, --snapshot-layout both)
  nb6pp_check.py pythonbody FOLDER NATIVE.h5 TIME
      the folder's snap.40_*.h5part read by pythonbody (a loader written
      for NBODY6++GPU's HDF5 output), its data against the native snapshot
"""
import sys

import h5py
import numpy as np

# NBODY6++GPU's names (custom_output_facility.F, output_single and
# output_binary), the ones nbody6c writes
STARS = ['001 X1', '002 X2', '003 X3', '004 V1', '005 V2', '006 V3', '023 M', '032 Name', '033 Type',
         '035 ASPN']
STARS_SEV = ['026 R*', '027 L*', '028 Teff*', '029 RC*', '030 MC*', '031 KW', '036 TEV', '037 TEV0', '038 EPOCH']
BINS = ['101 Bin cm X1', '102 Bin cm X2', '103 Bin cm X3', '104 Bin cm V1', '105 Bin cm V2', '106 Bin cm V3',
        '123 Bin M1*', '124 Bin M2*', '125 Bin rel X1', '126 Bin rel X2', '127 Bin rel X3', '128 Bin rel V1',
        '129 Bin rel V2', '130 Bin rel V3', '154 Bin A[au]', '155 Bin ECC', '156 Bin P[d]', '160 Bin cm KW',
        '161 Bin Name1', '162 Bin Name2', '163 Bin cm Name']
BINS_SEV = ['144 Bin RS1*', '145 Bin L1*', '146 Bin Teff1*', '147 Bin RS2*', '148 Bin L2*', '149 Bin Teff2*',
            '150 Bin RC1*', '151 Bin MC1*', '152 Bin RC2*', '153 Bin MC2*', '158 Bin KW1', '159 Bin KW2']
INTEGER = {'031 KW', '032 Name', '033 Type', '158 Bin KW1', '159 Bin KW2', '160 Bin cm KW', '161 Bin Name1',
           '162 Bin Name2', '163 Bin cm Name'}
PC_AU = 1296000.0 / (2.0 * np.pi)  # NBODY6++GPU's units.f

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def close(a, b, rtol=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=0.0, equal_nan=True)


def native(path):
    f = h5py.File(path, 'r')
    return f, f[f.attrs['step_group']]


def layout(native_path, pp_path):
    fn, n = native(native_path)
    f = h5py.File(pp_path, 'r')
    # every root member a group Step#<integer>, as the readers loop over them
    for key in f.keys():
        check(isinstance(f[key], h5py.Group) and key.startswith('Step#') and key[5:].isdigit(),
              'root member %r is not a Step#<n> group' % key)
    check('Step#0' in f, 'no group Step#0')
    if 'Step#0' not in f:
        return
    g = f['Step#0']
    nstar = int(n.attrs['N'])
    sev = 'KW' in n
    nbin = int(n.attrs['NBIN'])
    check(float(g.attrs.get('Time', np.nan)) == float(n.attrs['Time']), 'attribute Time')
    check(int(g.attrs.get('N_STAR', -1)) == nstar, 'attribute N_STAR %s, N %d' % (g.attrs.get('N_STAR'), nstar))
    names = STARS + (STARS_SEV if sev else [])
    names += (BINS + (BINS_SEV if sev else [])) if nbin > 0 else []
    for name in names:
        check(name in g, 'dataset %r missing' % name)
    for name in g.keys():
        check(name == '000 Scalars' or name in names, 'dataset %r is not one of NBODY6++GPU\'s' % name)
    if failures:
        return
    for name in names:
        d = g[name]
        rows = nbin if name[0] == '1' else nstar
        check(d.shape == (rows,), '%s: shape %s, expected (%d,)' % (name, d.shape, rows))
        kind = 'i' if name in INTEGER else 'f'
        check(d.dtype.kind == kind, '%s: type %s' % (name, d.dtype))
    S = np.concatenate([[np.nan], g['000 Scalars'][:]])  # NBODY6++GPU's 1-based slots
    check(g['000 Scalars'].shape == (100,), '000 Scalars: shape %s' % (g['000 Scalars'].shape,))
    rbar, zmbar, nzero = (float(n.attrs[k]) for k in ('RBAR', 'ZMBAR', 'NZERO'))
    munit = zmbar * nzero
    tstar, vstar = float(n.attrs['TSTAR']), float(n.attrs['VSTAR'])
    for slot, want, what in [(1, n.attrs['Time'], 'TTOT'), (2, n.attrs['NPAIRS'], 'NPAIRS'), (3, rbar, 'RBAR'),
                             (4, munit, 'ZMBAR (mass unit, Msun)'), (5, nstar, 'N'), (6, tstar, 'TSTAR'),
                             (7, n.attrs['RDENS'][0], 'RDENS1'), (13, n.attrs['RC'], 'RC'),
                             (11, tstar, 'TSCALE'), (12, vstar, 'VSTAR'), (57, n.attrs['ETAI'], 'ETAI'),
                             (62, n.attrs['RMIN'], 'RMIN'), (65, n.attrs['SMAX'], 'SMAX'),
                             (68, nstar, 'N_SINGLE'), (69, nbin, 'N_BINARY'), (70, 0, 'N_MERGER')]:
        check(close(S[slot], want), 'scalar %d (%s): %r, expected %r' % (slot, what, S[slot], want))
    for c in range(3):
        check(close(g['00%d X%d' % (c + 1, c + 1)], n['X%d' % (c + 1)][:] * rbar), 'X%d in pc' % (c + 1))
        check(close(g['00%d V%d' % (c + 4, c + 1)], n['V%d' % (c + 1)][:] * vstar), 'V%d in km/s' % (c + 1))
    check(close(g['023 M'], n['M'][:] * munit), '023 M in Msun')
    check(np.array_equal(g['032 Name'][:], n['NAM'][:]), '032 Name')
    ks = set(n['KS_NAM1'][:]) | set(n['KS_NAM2'][:]) if int(n.attrs['NPAIRS']) > 0 else set()
    want_type = np.array([-1 if nm in ks else 0 for nm in n['NAM'][:]])
    check(np.array_equal(g['033 Type'][:], want_type), '033 Type: -1 for the KS components, 0 else')
    if sev:
        for pp, nat in [('026 R*', 'RS'), ('027 L*', 'L'), ('028 Teff*', 'TE'), ('030 MC*', 'MC'), ('031 KW', 'KW')]:
            check(close(g[pp], n[nat]), '%s = native %s' % (pp, nat))
    if nbin > 0:
        check(np.array_equal(g['161 Bin Name1'][:], n['BIN_NAM1'][:]), '161 Bin Name1')
        check(np.array_equal(g['162 Bin Name2'][:], n['BIN_NAM2'][:]), '162 Bin Name2')
        check(close(g['123 Bin M1*'], n['BIN_M1'][:] * munit), '123 Bin M1*')
        check(close(g['154 Bin A[au]'], n['BIN_A'][:] * rbar * PC_AU), '154 Bin A[au]')
        check(close(g['155 Bin ECC'], n['BIN_ECC'][:]), '155 Bin ECC')
        check(close(g['101 Bin cm X1'], n['BIN_XCM'][:, 0] * rbar, rtol=1e-9), '101 Bin cm X1')
        a, m = g['154 Bin A[au]'][:], g['123 Bin M1*'][:] + g['124 Bin M2*'][:]
        check(close(g['156 Bin P[d]'], 365.25 * a * np.sqrt(a / m)), '156 Bin P[d]: Kepler in AU, Msun, days')
        # the relative orbit gives back a and e (G in pc (km/s)^2 / Msun)
        G = 4.300917e-3
        r = np.sqrt(sum(g['12%d Bin rel X%d' % (c + 5, c + 1)][:] ** 2 for c in range(3)))
        v2 = sum(g['1%d Bin rel V%d' % (c + 28, c + 1)][:] ** 2 for c in range(3))
        a_rel = 1.0 / (2.0 / r - v2 / (G * m)) * PC_AU
        check(close(a_rel, a, rtol=5e-3), 'relative orbit: a from 125..130 against 154 Bin A[au]')
        kind0 = n['BIN_KIND'][:] == 0
        check(np.array_equal(g['160 Bin cm KW'][:], np.where(kind0, 0, -1)), '160 Bin cm KW')


def pythonbody_read(folder, native_path, time):
    from pythonbody import snap  # the reader under test
    fn, n = native(native_path)
    s = snap(folder)
    times = sorted(float(t) for t in s.snap_data['time'])
    check(time in times, 'pythonbody sees the times %s, not %g' % (times, time))
    c = s.load_cluster(time)
    munit = float(n.attrs['ZMBAR']) * float(n.attrs['NZERO'])
    check(len(c) == int(n.attrs['N']), 'pythonbody: %d stars, expected %d' % (len(c), int(n.attrs['N'])))
    check(close(np.sort(c['NAME'].values), n['NAM'][:]), 'pythonbody: names')
    check(close(c['M'].sum(), n['M'][:].sum() * munit, rtol=1e-10), 'pythonbody: total mass in Msun')
    check(close(c['X1'].values, n['X1'][:] * float(n.attrs['RBAR'])), 'pythonbody: X1 in pc')
    check(close(s.scalar_data['RBAR'], n.attrs['RBAR']), 'pythonbody: scalar RBAR')
    check(close(s.scalar_data['N_BINARY'], n.attrs['NBIN']), 'pythonbody: scalar N_BINARY')
    b = s.binaries_data
    check(len(b) == int(n.attrs['NBIN']), 'pythonbody: %d binaries, expected %d' % (len(b), int(n.attrs['NBIN'])))
    if len(b):
        check(np.array_equal(b['NAME1'].values, n['BIN_NAM1'][:]), 'pythonbody: binaries NAME1')
        check(close(b['M1'].values + b['M2'].values, (n['BIN_M1'][:] + n['BIN_M2'][:]) * munit),
              'pythonbody: binaries M1 + M2')
    # its singles are the stars in no binary of the list
    want = int(n.attrs['N']) - 2 * int(n.attrs['NBIN'])
    check(len(s.singles) == want, 'pythonbody: %d singles, expected %d' % (len(s.singles), want))
    if 'K*' in c and 'KW' in n:
        check(np.array_equal(c['K*'].values.astype(int), n['KW'][:]), 'pythonbody: stellar types K*')


def main(argv):
    if len(argv) >= 4 and argv[1] == 'layout':
        layout(argv[2], argv[3])
    elif len(argv) >= 5 and argv[1] == 'pythonbody':
        pythonbody_read(argv[2], argv[3], float(argv[4]))
    else:
        print(__doc__)
        return 2
    for f in failures:
        print('FAILED: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
