#!/usr/bin/env python3
"""plot_snapshot.py RUN|SNAP.h5 [-t TIME] [-o cluster.png] - a projected
picture of the cluster: every body on the x-y plane (or --plane xz, yz)
about the density centre, point size by mass, with the core and half-mass
radius drawn; from a snapshot file or the run folder's snapshot closest to
TIME (N-body units)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbody6c_io as nio  # noqa: E402

nio.require('plot_snapshot.py')
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(' - ', 1)[1])
    ap.add_argument('src', help='run folder (snap.*.h5) or one snapshot file')
    ap.add_argument('-t', '--time', type=float, default=None, help='time (N-body); default the last')
    ap.add_argument('-o', '--out', default='cluster.png', help='output picture (png, pdf, svg)')
    ap.add_argument('--plane', default='xy', choices=['xy', 'xz', 'yz'])
    ap.add_argument('--extent', type=float, default=3.0, help='half width in N-body lengths')
    a = ap.parse_args()
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    path = nio.pick_snapshot(a.src, a.time, 'plot_snapshot.py')
    s = nio.read_snapshot(path)
    i, j = {'xy': (0, 1), 'xz': (0, 2), 'yz': (1, 2)}[a.plane]
    x = s['x'] - np.asarray(s['RDENS'])
    size = 2.0 * s['m'] / s['m'].mean()
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.set_facecolor('black')
    ax.scatter(x[:, i], x[:, j], s=size, c='white', alpha=0.7, linewidths=0)
    for r, col, lab in ((s['RC'], 'orange', 'core radius'), (s['RH'], 'deepskyblue', 'half-mass radius')):
        ax.add_patch(plt.Circle((0, 0), r, fill=False, color=col, lw=1.2, label=lab))
    e = a.extent
    ax.set_xlim(-e, e)
    ax.set_ylim(-e, e)
    ax.set_aspect('equal')
    ax.set_xlabel('%s (N-body length)' % a.plane[0])
    ax.set_ylabel('%s (N-body length)' % a.plane[1])
    ax.set_title('N = %d   t = %.3g (%.3g Myr)' % (len(s['m']), s['time'], s['time_myr']))
    ax.legend(loc='upper right', fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(a.out)


if __name__ == '__main__':
    main()
