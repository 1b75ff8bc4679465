#!/usr/bin/env python3
"""plot_sse_compare.py DIR [DIR ...] [-o sse-compare.png] - the runs of
scripts/sse-compare (nbody6c and NBODY6 with stellar evolution on the same
initial bodies) against time in Myr, one column of panels per DIR:

  1. total mass and bound mass in Msun: nbody6c's log.txt (M_msun, M_b
     times the initial mass), NBODY6's total from its "T =" lines (M, in
     units of the initial mass);
  2. mass lost to stellar evolution: nbody6c's M_lost, NBODY6's ZMDOT
     (the #4 line of each output);
  3. remnants formed: white dwarfs, neutron stars and black holes, from
     nbody6c's events.txt (type changes into each kind) and NBODY6's NWD,
     NSN, NBH; dashed, those still in the cluster (log.txt's n_WD, n_NS,
     n_BH);
  4. the energy error of each check, |dE/E|: nbody6c's dE (mass loss
     booked), NBODY6's ADJUST DE, and the deck's QE.

Prints, per DIR, the largest per-check |dE/E| of each code and the last
time each reached."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_sse_compare.py')
import numpy as np  # noqa: E402

WD_TYPES = ('HeWD', 'COWD', 'ONeWD')


def read_nbody6(path):
    """NBODY6's out.txt: per output T, N, M (N-body units); per #4 line
    NWD, NSN, NBH, ZMDOT; per ADJUST line T and DE."""
    out, four, adj = [], [], []
    t = None
    with open(path) as f:
        for line in f:
            m = re.match(r'\s*T =\s*([-0-9.E+]+)\s+N =\s*(\d+).*\bM =\s*([-0-9.E+]+)', line)
            if m:
                t = float(m.group(1))
                out.append((t, int(m.group(2)), float(m.group(3))))
                continue
            tok = line.split()
            if tok and tok[0] == '#4' and len(tok) >= 17 and '.' in line and t is not None:
                four.append((t, float(tok[6]), float(tok[7]), float(tok[8]), float(tok[16])))
                continue
            m = re.match(r'\s*ADJUST:\s+TIME =\s*([-0-9.E+]+).*?\bDE =\s*([-0-9.E+]+)', line)
            if m:
                adj.append((float(m.group(1)), float(m.group(2))))
    return np.array(out).reshape(-1, 3), np.array(four).reshape(-1, 5), np.array(adj).reshape(-1, 2)


def formed(events_path, t_nb):
    """Cumulative WD, NS and BH formed by each time of t_nb (events.txt)."""
    ev = []
    with open(events_path) as f:
        for line in f:
            tok = line.split()
            if not tok or tok[0].startswith('#') or len(tok) < 6:
                continue
            old, new = tok[4], tok[5]
            kind = ('WD' if new in WD_TYPES and old not in WD_TYPES else
                    new if new in ('NS', 'BH') and new != old else None)
            if kind:
                ev.append((float(tok[0]), kind))
    res = {}
    for kind in ('WD', 'NS', 'BH'):
        times = np.sort([t for t, k in ev if k == kind])
        res[kind] = np.searchsorted(times, t_nb, side='right')
    return res


def one_dir(d, axes):
    run = os.path.join(d, 'nbody6c', 'run')
    log = nio.read_log(os.path.join(run, 'log.txt'))
    tstar = nio.header_value(os.path.join(run, 'log.txt'), r'TSTAR ([-0-9.eE+]+)')
    m0 = log['M_msun'][0]
    out6, four6, adj6 = read_nbody6(os.path.join(d, 'nbody6', 'out.txt'))
    deck = open(os.path.join(d, 'deck')).read().split('\n')
    zmet = deck[9].split()[5] if len(deck) > 9 else '?'
    tm = log['t_myr']

    ax = axes[0]
    ax.plot(tm, log['M_msun'], 'C0-', label='nbody6c total')
    ax.plot(tm, log['M_b'] * m0 / log['M'][0], 'C0--', label='nbody6c bound')
    if len(out6):
        ax.plot(out6[:, 0] * tstar, out6[:, 2] * m0, 'C3:', lw=2, label='NBODY6 total')
    ax.set_ylabel('mass [Msun]')
    ax.set_title('Z = %s' % zmet)
    ax.legend(fontsize=8)

    ax = axes[1]
    ax.plot(tm, log['M_lost'], 'C0-', label='nbody6c M_lost')
    if len(four6):
        ax.plot(four6[:, 0] * tstar, four6[:, 4], 'C3:', lw=2, label='NBODY6 ZMDOT')
    ax.set_ylabel('mass lost to evolution [Msun]')
    ax.legend(fontsize=8)

    ax = axes[2]
    made = formed(os.path.join(run, 'events.txt'), log['t'])
    for c, kind, col6 in (('C2', 'WD', 1), ('C1', 'NS', 2), ('k', 'BH', 3)):
        ax.step(tm, made[kind], c + '-', where='post', label='%s formed, nbody6c' % kind)
        if len(four6):
            ax.step(four6[:, 0] * tstar, four6[:, col6], c + ':', where='post', lw=2,
                    label='%s formed, NBODY6' % kind)
        if 'n_' + kind in log:
            ax.plot(tm, log['n_' + kind], c + '--', lw=0.8, label='%s in the cluster' % kind)
    ax.set_ylabel('remnants')
    ax.legend(fontsize=6, ncol=2)

    ax = axes[3]
    qe = nio.header_value(os.path.join(run, 'log.txt'), r'QE ([-0-9.eE+]+)')
    de = np.abs(log['dE'][1:])
    ax.semilogy(tm[1:], np.maximum(de, 1e-12), 'C0.', ms=3, label='nbody6c per check')
    if len(adj6) > 1:
        ax.semilogy(adj6[1:, 0] * tstar, np.maximum(np.abs(adj6[1:, 1]), 1e-12), 'C3x', ms=3,
                    label='NBODY6 ADJUST DE')
    if qe:
        ax.axhline(qe, color='grey', lw=0.8, label='QE %g' % qe)
    ax.axhline(1e-4, color='k', ls='--', lw=0.8, label='1e-4')
    ax.set_ylabel('|dE/E| per check')
    ax.set_xlabel('t [Myr]')
    ax.legend(fontsize=8)
    print('%s: Z %s; nbody6c to %.1f Myr, largest per-check |dE/E| %.2e; NBODY6 to %.1f Myr, '
          'largest |DE| %.2e' % (d, zmet, tm[-1], de.max() if len(de) else 0.0,
                                  (out6[-1, 0] * tstar) if len(out6) else 0.0,
                                  np.abs(adj6[1:, 1]).max() if len(adj6) > 1 else 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dirs', nargs='+', help='output folders of scripts/sse-compare')
    ap.add_argument('-o', '--out', default='sse-compare.png')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(4, len(a.dirs), figsize=(6 * len(a.dirs), 13), sharex='col', squeeze=False)
    for k, d in enumerate(a.dirs):
        one_dir(d, axes[:, k])
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print('wrote', a.out)


if __name__ == '__main__':
    main()
