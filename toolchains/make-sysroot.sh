#!/usr/bin/env bash
# make-sysroot.sh ARCH DEST — unpack the Debian arm64/armhf libraries yolort links against into DEST.
#
#   ARCH: arm64 (AArch64 boards) or armhf (ARMv7 hard-float boards)
#   DEST: directory to create; skipped when DEST/.complete exists (delete it to rebuild).
#
# The foreign architecture is enabled for *downloading only*: packages are fetched with
# `apt-get download` and unpacked with `dpkg -x`. Nothing foreign is ever installed with apt-get,
# which would replace the host's amd64 -dev packages (their headers are not Multi-Arch: same).
# libc, libgcc and libstdc++ come from the Debian cross toolchain (/usr/<triple>), so the sysroot
# holds only the extra libraries and is used as an overlay: see toolchains/*.cmake.
set -euo pipefail

usage() { echo "usage: $0 arm64|armhf DEST" >&2; exit 2; }
[ $# -eq 2 ] || usage
ARCH=$1
DEST=$2
case "$ARCH" in
  arm64) TRIPLE=aarch64-linux-gnu; HOST_PKGS="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu" ;;
  armhf) TRIPLE=arm-linux-gnueabihf; HOST_PKGS="gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf" ;;
  *) usage ;;
esac

if [ -e "$DEST/.complete" ]; then
  echo "make-sysroot: $DEST is complete ($ARCH), nothing to do"
  exit 0
fi

# The libraries yolort links (runtime, tools, tests). Their dependency closure is added below.
PKGS="libxnnpack-dev libxnnpack0 libcpuinfo-dev libcpuinfo0 libpthreadpool-dev libpthreadpool0
      libturbojpeg0-dev libturbojpeg0 libcmocka-dev libcmocka0 libprotobuf-c-dev libprotobuf-c1"
# Provided by the cross toolchain (libc6-<arch>-cross, libgcc-s1-..., libstdc++6-...): never unpacked.
FROM_CROSS_TOOLCHAIN="libc6 libc6-dev libgcc-s1 libgcc-12-dev libstdc++6 gcc-12-base linux-libc-dev libcrypt1 libcrypt-dev"

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "make-sysroot: needs root for '$*' (or run it once as root beforehand)" >&2
    exit 1
  fi
}

# apt-get update, retried: a mirror caught mid-sync fails one index ("File has unexpected size ...
# Mirror sync in progress?", exit 100; seen in a CI run on the armhf security list) and is fine
# seconds later.
apt_update() {
  for try in 1 2 3; do
    apt-get update -q && return 0
    echo "make-sysroot: apt-get update failed (try $try of 3)" >&2
    [ "$try" -lt 3 ] && sleep 15
  done
  return 1
}

# 1. Host tools: cross compilers (g++ brings the cross libstdc++ that qemu needs) and qemu-user.
missing=""
for p in $HOST_PKGS qemu-user; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
apt_updated=0
if [ -n "$missing" ]; then
  need_root apt-get install
  apt_update
  apt_updated=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

# 2. Foreign architecture for package lists only. Adding it makes apt *know* the arm64/armhf
#    packages; it installs nothing and does not change which host packages get installed.
if ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
  need_root dpkg --add-architecture
  dpkg --add-architecture "$ARCH"
  apt_updated=0
fi
if ! apt-cache show "libxnnpack0:$ARCH" >/dev/null 2>&1; then
  [ "$apt_updated" -eq 1 ] || { need_root apt-get update; apt_update; }
fi

# 3. Dependency closure, minus what the cross toolchain provides and virtual packages.
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances $(for p in $PKGS; do printf '%s:%s ' "$p" "$ARCH"; done) \
          | grep -v '^ ' | grep -v '^<' | sed "s/:$ARCH\$//" | sort -u)
download=""
for p in $closure; do
  case " $FROM_CROSS_TOOLCHAIN " in *" $p "*) continue ;; esac
  download="$download $p:$ARCH"
done
echo "make-sysroot: $ARCH packages:$download"

# 4. Download into a scratch dir (apt-get download writes to the current directory) and unpack.
rm -rf "$DEST"
mkdir -p "$DEST/.debs"
DEST=$(cd "$DEST" && pwd)
# As root, apt fetches as user _apt, who may not be able to write DEST: fetch as root then.
sandbox=""
[ "$(id -u)" -ne 0 ] || sandbox="-o APT::Sandbox::User=root"
( cd "$DEST/.debs" && apt-get download -q $sandbox $download )
for deb in "$DEST"/.debs/*.deb; do
  dpkg -x "$deb" "$DEST"
done

# 5. Absolute symlinks (libfoo.so -> /usr/lib/<triple>/libfoo.so.1) would point into the host:
#    rewrite them relative to their own directory inside DEST.
find "$DEST" -type l | while read -r link; do
  target=$(readlink "$link")
  case "$target" in
    /*)
      rel=$(realpath -m --relative-to="$(dirname "$link")" "$DEST$target")
      ln -sfn "$rel" "$link"
      ;;
  esac
done

# 6. Sanity: the libraries CMake looks for must be there.
libdir="$DEST/usr/lib/$TRIPLE"
for lib in XNNPACK cpuinfo pthreadpool turbojpeg cmocka protobuf-c; do
  if [ ! -e "$libdir/lib$lib.so" ] && [ ! -e "$libdir/lib$lib.a" ]; then
    echo "make-sysroot: lib$lib missing from $libdir" >&2
    exit 1
  fi
done
for h in xnnpack.h cpuinfo.h pthreadpool.h turbojpeg.h cmocka.h protobuf-c/protobuf-c.h; do
  [ -e "$DEST/usr/include/$h" ] || { echo "make-sysroot: $h missing" >&2; exit 1; }
done

rm -rf "$DEST/.debs"
echo "$ARCH $TRIPLE" > "$DEST/.complete"
echo "make-sysroot: $DEST ready ($ARCH)"
