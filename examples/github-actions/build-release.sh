#!/usr/bin/env bash
# Builds the mcpres release binaries reproducibly and writes their SHA256SUMS.
#
#   examples/github-actions/build-release.sh OUTDIR [OS/ARCH...]
#
# OUTDIR must be empty or absent. The platforms default to linux/amd64,
# linux/arm64 and darwin/arm64; for each, mcpres, mcpres-oci, mcpres-tuf and mcpres-sigstore
# (the binaries the action installs; MCPRES_RELEASE_PROGRAMS names others)
# are built as PROGRAM-OS-ARCH with fixed flags: CGO_ENABLED=0, -trimpath,
# -buildvcs=false, -ldflags "-s -w -buildid=", -mod=readonly. Nothing of the
# machine, the path of the checkout, the time or the VCS state goes into the
# bytes, so the same commit built with the same Go version (printed on
# stderr; go.mod names it) gives the same SHA256SUMS anywhere: that is how a
# user re-derives the checksums of a release, and how the release workflow
# (release-binaries.yml) checks its own build before publishing it.
#
# SHA256SUMS has sha256sum's format ("SHA256  FILE"), sorted by file name:
# the lines action/release.sha256 pins, after its "release TAG" line.
set -euo pipefail

out=${1:?usage: build-release.sh OUTDIR [OS/ARCH...]}
shift
platforms=("$@")
[ "${#platforms[@]}" -gt 0 ] || platforms=(linux/amd64 linux/arm64 darwin/arm64)
read -r -a programs <<< "${MCPRES_RELEASE_PROGRAMS:-mcpres mcpres-oci mcpres-tuf mcpres-sigstore}"
root=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$(ls -A "$out")" ]; then
  echo "build-release.sh: $out is not empty" >&2
  exit 2
fi
sha256() { if command -v sha256sum >/dev/null; then sha256sum -- "$@"; else shasum -a 256 -- "$@"; fi; }
cd "$root"
echo "build-release.sh: $(go version), $(git rev-parse HEAD 2>/dev/null || echo 'no git checkout')" >&2
for plat in "${platforms[@]}"; do
  if ! [[ "$plat" =~ ^[a-z0-9]+/[a-z0-9]+$ ]]; then
    echo "build-release.sh: $plat is not OS/ARCH" >&2
    exit 2
  fi
  os=${plat%/*}
  arch=${plat#*/}
  for p in "${programs[@]}"; do
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOFLAGS=-mod=readonly \
      go build -trimpath -buildvcs=false -ldflags "-s -w -buildid=" -o "$out/$p-$os-$arch" "./cmd/$p"
  done
done
(cd "$out" && for f in mcpres*; do sha256 "$f"; done | LC_ALL=C sort -k2 > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
cat "$out/SHA256SUMS"
