#!/usr/bin/env bash
# Makes the base image debian:bookworm-slim locally, for machines that reach Debian's mirror but no
# container registry: debootstrap's minbase variant, trimmed the way the slim image is (no manuals,
# documentation but the copyright files, translations or apt lists), imported with podman or
# buildah. Does nothing when the image is already in the container storage.
#   docker/base-image.sh [IMAGE]      default: localhost/debian:bookworm-slim
# Then: podman build --build-arg BASE_IMAGE=localhost/debian:bookworm-slim \
#         --build-arg BUILD_IMAGE=localhost/debian:bookworm-slim -f docker/Dockerfile .
# Environment: CONTAINER_TOOL (podman or buildah; default podman when installed), DEBIAN_MIRROR
# (default http://deb.debian.org/debian), and the tools' own (CONTAINERS_STORAGE_CONF,
# STORAGE_DRIVER...), which choose the storage the image goes to. Needs root (debootstrap).
set -euo pipefail

image="${1:-localhost/debian:bookworm-slim}"
suite=bookworm
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
tool="${CONTAINER_TOOL:-}"
if [[ -z "$tool" ]]; then
  if command -v podman >/dev/null; then tool=podman; else tool=buildah; fi
fi

image_exists() {
  if [[ "$tool" == podman ]]; then
    podman image exists "$image"
  else
    buildah inspect --type image "$image" >/dev/null 2>&1
  fi
}
if image_exists; then
  echo "base-image: $image is present"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "base-image: install debootstrap" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "base-image: debootstrap needs root" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/var/tmp}/smemu-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
echo "base-image: debootstrap --variant=minbase $suite from $mirror" >&2
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
}

# What the slim image leaves out, now and in the packages installed later on top of it.
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
cat >"$root/etc/apt/apt.conf.d/slim" <<'EOF'
APT::Install-Recommends "false";
Acquire::Languages "none";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };
EOF
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$root"/usr/share/{man,info,lintian}/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* \
  "$root"/var/cache/debconf/*-old "$root"/var/log/* "$root"/tmp/*
# The container engine provides these at run time; debootstrap copied the host's.
rm -f "$root/etc/resolv.conf" "$root/etc/hostname"

tar --numeric-owner --xattrs -C "$root" -cf "$work/rootfs.tar" .
printf 'FROM scratch\nADD rootfs.tar /\nCMD ["bash"]\n' >"$work/Containerfile"
if [[ "$tool" == podman ]]; then
  podman build --pull=never --layers=false --format docker -f "$work/Containerfile" -t "$image" "$work" >&2
else
  buildah bud --pull=never --layers=false --format docker -f "$work/Containerfile" -t "$image" "$work" >&2
fi
echo "base-image: made $image"
