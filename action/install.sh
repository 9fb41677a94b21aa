#!/usr/bin/env bash
# Installs mcpres, mcpres-oci, mcpres-tuf and mcpres-sigstore for the composite action
# (action.yml), never running bytes it has not verified:
#
#   install.sh release   the release binaries for this runner's OS and
#                        architecture, downloaded from the GitHub release of
#                        the repository that hosts mcpres and checked against
#                        the SHA-256 sums this checkout of the action pins
#                        (action/release.sha256). A sum that does not match
#                        stops the job (exit 1) and installs nothing. When
#                        the pins name no release or not this platform, or
#                        the release has no such file, it prints how=build
#                        and installs nothing: the build step follows.
#                        When the pins also name the release workflow's
#                        keyless identity ("signed-by ISSUER IDENTITY_RE"),
#                        the release's SHA256SUMS must list the pinned sums
#                        and its keyless signature (SHA256SUMS.sigstore.json,
#                        cosign attest-blob or sign-blob) must verify against
#                        action/trusted_root.json with that identity, checked
#                        by the downloaded mcpres-sigstore (already verified
#                        against its pin): a signature that does not verify
#                        stops the job (exit 1) and installs nothing.
#   install.sh build     the fallback: the binaries built from the action's
#                        own checkout with the release's flags, into a folder
#                        that actions/cache keeps under the key printed as
#                        cache-key= by `release` (a hash of the sources).
#
# Environment: MCPRES_ACTION_PATH (the action's checkout), MCPRES_REPOSITORY
# (OWNER/NAME hosting mcpres; the download URL is
# https://github.com/OWNER/NAME/releases/download/TAG/FILE, nothing else),
# RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH. Tests only:
# MCPRES_TEST_ONLY_RELEASE_URL replaces https://github.com/OWNER/NAME with a
# loopback URL (http://127.0.0.1:PORT); any other value is refused.
set -euo pipefail

mode=${1:-}
action=${MCPRES_ACTION_PATH:?}
bin="${RUNNER_TEMP:?}/mcpres-bin"
build="${RUNNER_TEMP:?}/mcpres-build"
pins="$action/action/release.sha256"
programs=(mcpres mcpres-oci mcpres-tuf mcpres-sigstore)

fail() { echo "::error::mcpres install: $*" >&2; exit "${2:-1}"; }
output() { echo "$1" >> "${GITHUB_OUTPUT:?}"; }

# sha256sum on Linux, shasum on macOS: hash FILE..., or standard input.
hashcmd=(sha256sum)
command -v sha256sum >/dev/null || hashcmd=(shasum -a 256)
sha256() { "${hashcmd[@]}" "$@" | cut -d' ' -f1; }

platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) os=unknown ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=unknown ;;
  esac
  echo "$os-$arch"
}

# sources_key: the cache key of a build from this checkout, a hash of
# every Go source, go.mod and go.sum (what a commit of them names).
sources_key() {
  (cd "$action" && find . -path ./.git -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
    LC_ALL=C sort -z | xargs -0 "${hashcmd[@]}") | sha256
}

# install_from DIR: copy the programs from DIR into $bin, put it on
# PATH for the job's later steps, and record what was installed.
install_from() {
  mkdir -p "$bin"
  for p in "${programs[@]}"; do
    install -m 0755 "$1/$p" "$bin/$p"
  done
  echo "$bin" >> "${GITHUB_PATH:?}"
  "$bin/mcpres" version
}

# verify_signature: the release's SHA256SUMS lists every pinned sum of
# this platform, and its keyless signature verifies with the pinned
# signer, checked by the downloaded mcpres-sigstore (its bytes already
# matched their pin). Uses tag, base, proto, dl, plat, want, signer_*.
verify_signature() {
  local root="$action/action/trusted_root.json" f code
  [ -f "$root" ] || fail "$pins names a signer but $root is missing" 2
  for f in SHA256SUMS SHA256SUMS.sigstore.json; do
    code=$(curl --silent --show-error --location --proto "$proto" --proto-redir "$proto" --retry 3 --max-time 300 \
      --output "$dl/$f" --write-out '%{http_code}' "$base/releases/download/$tag/$f") || code=000
    [ "$code" = 200 ] || fail "release $tag: $f: HTTP status $code, but this action pins a signer: signature refused, nothing installed"
  done
  for p in "${programs[@]}"; do
    grep -qxF "${want[$p-$plat]}  $p-$plat" "$dl/SHA256SUMS" ||
      fail "release $tag: SHA256SUMS does not list $p-$plat with its pinned SHA-256: refused, nothing installed"
  done
  chmod 0755 "$dl/mcpres-sigstore-$plat"
  if ! "$dl/mcpres-sigstore-$plat" verify-blob "$dl/SHA256SUMS" --bundle "$dl/SHA256SUMS.sigstore.json" --trusted-root "$root" \
      --certificate-oidc-issuer "$signer_issuer" --certificate-identity-regexp "$signer_identity" >&2; then
    fail "release $tag: the signature of SHA256SUMS does not verify as $signer_identity ($signer_issuer): signature refused, nothing installed"
  fi
  echo "release $tag: SHA256SUMS signed by $signer_identity ($signer_issuer), as pinned"
}

case "$mode" in
  release)
    plat=$(platform)
    if [ -z "${MCPRES_SOURCES_KEY:-}" ]; then
      key=$(sources_key)
    else
      key=$MCPRES_SOURCES_KEY
    fi
    output "cache-key=mcpres-build-$plat-$key"
    if [ -x "$bin/mcpres" ] && [ -f "$bin/.installed" ]; then
      echo "mcpres is installed already ($(cat "$bin/.installed"))"
      output "how=present"
      exit 0
    fi
    [ -f "$pins" ] || fail "$pins is missing" 2
    # The pins: "release TAG", then "SHA256  FILE" lines (sha256sum's
    # format); comments and blank lines aside, anything else is refused.
    tag=""
    signer_issuer=""
    signer_identity=""
    declare -A want=()
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in '' | '#'*) continue ;; esac
      if [[ "$line" =~ ^release\ (v[0-9A-Za-z._+-]+)$ ]]; then
        [ -z "$tag" ] || fail "$pins names two releases" 2
        tag=${BASH_REMATCH[1]}
      elif [[ "$line" =~ ^signed-by\ (https://[^[:space:]]+)\ (\^[^[:space:]]+\$)$ ]]; then
        [ -z "$signer_issuer" ] || fail "$pins names two signers" 2
        signer_issuer=${BASH_REMATCH[1]}
        signer_identity=${BASH_REMATCH[2]}
      elif [[ "$line" =~ ^([0-9a-f]{64})\ \ ([a-z0-9-]+)$ ]]; then
        [ -z "${want[${BASH_REMATCH[2]}]:-}" ] || fail "$pins pins ${BASH_REMATCH[2]} twice" 2
        want[${BASH_REMATCH[2]}]=${BASH_REMATCH[1]}
      else
        fail "$pins: a line is neither 'release TAG', 'signed-by ISSUER ^IDENTITY\$' nor 'SHA256  FILE': $line" 2
      fi
    done < "$pins"
    if [ -z "$tag" ]; then
      echo "this commit of the action pins no release binaries: building mcpres from its checkout"
      output "how=build"
      exit 0
    fi
    for p in "${programs[@]}"; do
      if [ -z "${want[$p-$plat]:-}" ]; then
        echo "release $tag has no pinned binary for $plat: building mcpres from the action's checkout"
        output "how=build"
        exit 0
      fi
    done
    repo=${MCPRES_REPOSITORY:-}
    [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || fail "the repository hosting mcpres must be OWNER/NAME, not '$repo'" 2
    base="https://github.com/$repo"
    proto="=https"
    if [ -n "${MCPRES_TEST_ONLY_RELEASE_URL:-}" ]; then
      [[ "$MCPRES_TEST_ONLY_RELEASE_URL" =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || fail "MCPRES_TEST_ONLY_RELEASE_URL is for tests, on 127.0.0.1 only" 2
      base=$MCPRES_TEST_ONLY_RELEASE_URL
      proto="=http"
    fi
    dl=$(mktemp -d "${RUNNER_TEMP:?}/mcpres-dl.XXXXXX")
    trap 'rm -rf "$dl"' EXIT
    for p in "${programs[@]}"; do
      f="$p-$plat"
      url="$base/releases/download/$tag/$f"
      code=$(curl --silent --show-error --location --proto "$proto" --proto-redir "$proto" --retry 3 --max-time 300 \
        --output "$dl/$f" --write-out '%{http_code}' "$url") || code=000
      if [ "$code" = 404 ]; then
        echo "::warning::mcpres install: $url does not exist (404): building mcpres from the action's checkout"
        output "how=build"
        exit 0
      fi
      [ "$code" = 200 ] || fail "downloading $url: HTTP status $code; nothing installed"
      got=$(sha256 "$dl/$f")
      if [ "$got" != "${want[$f]}" ]; then
        fail "$f of release $tag has SHA-256 $got, but this action pins ${want[$f]}: refused, nothing installed"
      fi
      echo "$f: SHA-256 $got, as pinned"
    done
    if [ -n "$signer_issuer" ]; then
      verify_signature
    fi
    for p in "${programs[@]}"; do
      mv "$dl/$p-$plat" "$dl/$p"
    done
    install_from "$dl"
    echo "release $tag $plat" > "$bin/.installed"
    output "how=release"
    ;;
  build)
    if [ -x "$bin/mcpres" ] && [ -f "$bin/.installed" ]; then
      exit 0
    fi
    restored=true
    for p in "${programs[@]}"; do
      [ -x "$build/$p" ] || restored=false
    done
    if [ "$restored" = true ]; then
      echo "mcpres built from this checkout was restored from the cache"
    else
      mkdir -p "$build"
      (cd "$action" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -buildvcs=false -ldflags "-s -w -buildid=" \
        -o "$build/" ./cmd/mcpres ./cmd/mcpres-oci ./cmd/mcpres-tuf ./cmd/mcpres-sigstore)
    fi
    install_from "$build"
    echo "build $(platform)" > "$bin/.installed"
    ;;
  *)
    fail "usage: install.sh release|build" 2
    ;;
esac
