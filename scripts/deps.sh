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
# the plot scripts and their tests (python3 with numpy, h5py, matplotlib): the
# scripts run under python3 from PATH, or under /usr/bin/python3 when only
# that one has the modules, which Debian's packages give it
if ! /usr/bin/python3 -c 'import numpy, h5py, matplotlib' >/dev/null 2>&1 &&
   ! python3 -c 'import numpy, h5py, matplotlib' >/dev/null 2>&1; then
    need="$need python3-numpy python3-h5py python3-matplotlib"
fi
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "missing:$need — install them (Debian/Ubuntu: apt-get install$need)" >&2
    exit 1
fi
echo "installing:$need" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null
