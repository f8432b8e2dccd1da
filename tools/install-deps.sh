#!/bin/sh
# install-deps.sh: installs the Debian 12 packages gst-clfft builds, tests and demos with.
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
PKGS="build-essential meson ninja-build pkg-config python3
libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
libfftw3-dev libsndfile1-dev libpng-dev
python3-gi gir1.2-gstreamer-1.0 gstreamer1.0-x"
missing=
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
