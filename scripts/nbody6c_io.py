"""nbody6c_io.py - read what an nbody6c run writes: log.txt (one line per
energy check; the column names are in its last '#' header line) and the HDF5
snapshots snap.NNNNNN.h5 (layout: docs/SNAPSHOTS.md).  Used by the plot
scripts next to it; import it in your own analysis too."""
import glob
import importlib
import os
import subprocess
import sys

PLOT_MODULES = ('numpy', 'h5py', 'matplotlib')
DEBIAN_PACKAGES = {'numpy': 'python3-numpy', 'h5py': 'python3-h5py', 'matplotlib': 'python3-matplotlib'}


SYSTEM_PYTHON = '/usr/bin/python3'


def _has_modules(python, modules):
    try:
        return subprocess.run([python, '-c', 'import ' + ', '.join(modules)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def require(script, modules=PLOT_MODULES):
    """Makes sure numpy, h5py and matplotlib can be imported.  When this
    interpreter lacks one and the system's python3 (Debian/Ubuntu's packages
    install there) has them all, the script starts again under it, with a
    note; otherwise it exits with a message naming the missing modules, the
    interpreter and how to install them, instead of a traceback."""
    missing = []
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError:
            missing.append(m)
    if not missing:
        return
    here = os.path.realpath(sys.executable)
    if (here != os.path.realpath(SYSTEM_PYTHON) and not os.environ.get('NBODY6C_PYTHON_FALLBACK')
            and _has_modules(SYSTEM_PYTHON, modules)):
        sys.stderr.write('%s: %s not in %s; running with %s, which has them\n'
                         % (script, ', '.join(missing), sys.executable, SYSTEM_PYTHON))
        os.environ['NBODY6C_PYTHON_FALLBACK'] = '1'
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit('%s: Python module%s %s missing in %s (the plot scripts need numpy, h5py and '
             'matplotlib)\n  install for this interpreter: %s -m pip install %s\n  or, for '
             'Debian/Ubuntu\'s /usr/bin/python3: apt-get install %s'
             % (script, 's' if len(missing) > 1 else '', ', '.join(missing), sys.executable,
                sys.executable, ' '.join(missing), ' '.join(DEBIAN_PACKAGES[m] for m in missing)))


try:
    import numpy as np
except ImportError:  # the scripts call require() first, which says what to install
    np = None


def read_log(path):
    """The data of log.txt as a dict of numpy arrays keyed by column name
    ('t', 't_myr', 'N', 'M', 'M_b', 'rc', 'rh', 'r1%' ... 'r90%', 'sigma',
    'E', 'dE_cum', ...; the header's names line, with a units line under it).
    Each row is read by the names line above it: a log continued by another
    version after a restart may change its columns midway, and a column that
    a part lacks is NaN there.  Comment lines (checkpoints, restarts, stops)
    are skipped; a restart that repeats a time keeps the later line."""
    names, parts, rows = None, [], []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                tok = line[1:].split()
                if len(tok) > 3 and tok[0] == 't' and tok[1] != '=':  # not a note '# t = ...'
                    if rows:
                        parts.append((names, rows))
                    names, rows = tok, []
                continue
            if line.strip() and names is not None:
                rows.append([float(v) for v in line.split()])
    if names is None:
        raise ValueError('%s: no column header line ("#  t  ...")' % path)
    parts.append((names, rows))
    order = []
    for nm, _ in parts:
        order += [n for n in nm if n not in order]
    table = []
    for nm, rs in parts:
        at = {n: k for k, n in enumerate(nm)}
        for r in rs:
            table.append([r[at[n]] if n in at and at[n] < len(r) else np.nan for n in order])
    data = np.array(table, dtype=float).reshape(-1, len(order))
    # keep the last line for each time (a log continued after a restart)
    _, last = np.unique(data[::-1, 0], return_index=True)
    data = data[::-1][last]
    return {n: data[:, k] for k, n in enumerate(order)}


def header_value(log_path, pattern):
    """The first float that the regular expression's group matches in the
    '#' header lines of log.txt, or None (e.g. r'QE ([-0-9.eE+]+)')."""
    import re
    with open(log_path) as f:
        for line in f:
            if not line.startswith('#'):
                continue
            m = re.search(pattern, line)
            if m:
                return float(m.group(1))
    return None


def snapshot_files(folder):
    """The snapshots of a run folder, in order."""
    return sorted(glob.glob(os.path.join(folder, 'snap.*.h5')))


def read_snapshot(path):
    """One snapshot as a dict: 'time', 'time_myr', attributes by name
    ('RDENS', 'RC', 'RH', 'TSTAR', ...), and arrays 'x' (N, 3), 'v' (N, 3),
    'm' (N), 'name' (N), sorted by name; KS pair table as 'ks_*' when present;
    with stellar evolution the stars' 'kw', 'l', 'rs', 'te', 'mc', 'm0'."""
    import h5py
    with h5py.File(path, 'r') as f:
        step = [k for k in f.keys() if k.startswith('Step#')][0]
        g = f[step]
        out = {k: g.attrs[k] for k in g.attrs}
        out['time'] = float(g.attrs['Time'])
        out['time_myr'] = float(g.attrs['Time_Myr'])
        out['x'] = np.stack([g['X%d' % k][()] for k in (1, 2, 3)], axis=1)
        out['v'] = np.stack([g['V%d' % k][()] for k in (1, 2, 3)], axis=1)
        out['m'] = g['M'][()]
        out['name'] = g['NAM'][()]
        for k in g.keys():
            if k.startswith('KS_'):
                out[k.lower()] = g[k][()]
        for k in ('KW', 'L', 'RS', 'TE', 'MC', 'M0'):  # KZ(19) = 3 only
            if k in g:
                out[k.lower()] = g[k][()]
    return out


def pick_snapshot(src, t, script):
    """The snapshot a plot script draws: src itself when it is a file, else
    the run folder's last, or the one closest to t (N-body) when t is given;
    exits with a message naming the script when the folder has none."""
    if not os.path.isdir(src):
        return src
    files = snapshot_files(src)
    if not files:
        sys.exit('%s: no snapshots in %s' % (script, src))
    return files[-1] if t is None else snapshot_at(src, t)


def snapshot_at(folder, t):
    """The snapshot of a run folder whose time is closest to t (N-body)."""
    import h5py
    best, dt = None, None
    for p in snapshot_files(folder):
        with h5py.File(p, 'r') as f:
            step = [k for k in f.keys() if k.startswith('Step#')][0]
            ts = float(f[step].attrs['Time'])
        if dt is None or abs(ts - t) < dt:
            best, dt = p, abs(ts - t)
    if best is None:
        raise ValueError('%s: no snapshots (snap.*.h5)' % folder)
    return best


def time_unit_myr(folder):
    """T* in Myr from the run's first snapshot (None when there is none)."""
    files = snapshot_files(folder)
    if not files:
        return None
    import h5py
    with h5py.File(files[0], 'r') as f:
        step = [k for k in f.keys() if k.startswith('Step#')][0]
        return float(f[step].attrs['TSTAR'])
