#!/bin/sh
# Installs what the build needs, only when it is missing (Debian/Ubuntu, as root).
# On machines without package access (the GPU machines) everything is already there.
set -e
need=""
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
if ! pkg-config --exists hdf5 2>/dev/null && [ ! -f /usr/include/hdf5/serial/hdf5.h ] && [ ! -f /usr/include/hdf5.h ]; then
    need="$need libhdf5-dev"
fi
# the plot scripts and their tests, run with python3 from PATH as the README
# says: Debian's packages serve /usr/bin/python3; another python3 first on
# PATH (pyenv, conda, a venv) needs its own modules, which apt cannot give it
py=$(command -v python3 || true)
if [ -n "$py" ] && ! python3 -c 'import numpy, h5py, matplotlib' >/dev/null 2>&1; then
    if [ "$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)" = /usr/bin/python3 ]; then
        need="$need python3-numpy python3-h5py python3-matplotlib"
    else
        echo "note: python3 on PATH ($py) lacks numpy, h5py or matplotlib: the plot scripts and" \
             "their tests need them (python3 -m pip install numpy h5py matplotlib); the tests skip" >&2
    fi
fi
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "missing:$need — install them (Debian/Ubuntu: apt-get install$need)" >&2
    exit 1
fi
echo "installing:$need" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null
