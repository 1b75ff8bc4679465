#!/usr/bin/env python3
"""plot_hr.py RUN|SNAP.h5 [-t TIME] [-o hr.png] - the Hertzsprung-Russell
diagram of a run with stellar evolution (KZ(19) = 3): every star's
effective temperature and luminosity from a snapshot (the run folder's last,
or the one closest to TIME in N-body units), coloured by stellar type;
white dwarfs, neutron stars and black holes counted in the legend (neutron
stars and black holes have no place on the diagram).  Prints one line:
the snapshot's time in Myr and the number of stars of each type."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_hr.py')
import numpy as np  # noqa: E402

GROUPS = [('main sequence', (0, 1), 'tab:blue'), ('Hertzsprung gap', (2,), 'tab:cyan'),
          ('giants', (3, 4, 5, 6), 'tab:red'), ('naked He stars', (7, 8, 9), 'tab:purple'),
          ('white dwarfs', (10, 11, 12), 'tab:gray')]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1])
    ap.add_argument('src', help='run folder (snap.*.h5) or one snapshot file')
    ap.add_argument('-t', '--time', type=float, default=None, help='time (N-body); default the last')
    ap.add_argument('-o', '--out', default='hr.png', help='output picture (png, pdf, svg)')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    path = nio.pick_snapshot(a.src, a.time, 'plot_hr.py')
    s = nio.read_snapshot(path)
    if 'kw' not in s:
        sys.exit('plot_hr.py: %s has no stellar types: the run had no stellar evolution (KZ(19) = 3)' % path)
    kw, lum, te = s['kw'], s['l'], s['te']
    fig, ax = plt.subplots(figsize=(6, 6))
    for label, types, colour in GROUPS:
        sel = np.isin(kw, types) & (lum > 0) & (te > 0)
        if sel.any():
            ax.scatter(np.log10(te[sel]), np.log10(lum[sel]), s=4, c=colour,
                       label='%s (%d)' % (label, sel.sum()))
    nns, nbh = int((kw == 13).sum()), int((kw == 14).sum())
    ax.plot([], [], ' ', label='neutron stars %d, black holes %d' % (nns, nbh))
    ax.invert_xaxis()
    ax.set_xlabel('log10 Teff / K')
    ax.set_ylabel('log10 L / Lsun')
    ax.set_title('t = %.1f Myr, %d stars' % (s['time_myr'], len(kw)))
    ax.legend(loc='lower left', fontsize=8)
    fig.savefig(a.out, dpi=120, bbox_inches='tight')
    counts = ' '.join('%d:%d' % (k, int((kw == k).sum())) for k in range(16) if (kw == k).any())
    print('%.3f Myr  types %s' % (s['time_myr'], counts))


if __name__ == '__main__':
    main()
