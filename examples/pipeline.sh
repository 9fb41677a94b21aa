#!/usr/bin/env bash
# Runs, on this machine, the same commands as the two example workflows in
# examples/github-actions: the producer's release pipeline (seal, sign with
# a key from a secret, optionally append to a transparency log; then the
# witness, with its own key, checks the signed bundle against the artifact
# and co-signs) and the consumer's gate (fetch the trust policy through
# TUF, verify offline, require a level and a class, bound to the artifact).
#
# Needs mcpres and mcpres-tuf on PATH (go install ./cmd/...), or MCPRES and
# MCPRES_TUF pointing at them. WORK names the working folder (default: a
# new temporary one). LOG_URL (with TOKEN_FILE and LOG_VKEY_FILE), when
# set, submits the bundle to a log server (mcpres log serve); else
# MCPRES_LOG_DIR, when set, appends to a local log folder.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
mcpres=${MCPRES:-mcpres}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work/keys" "$work/dist"
step() { printf '\n== %s\n' "$*"; }

# Times: the policy window and TUF expiries count from now.
if from=$(date -u -d '-1 day' +%Y-%m-%dT%H:%M:%S.000Z 2>/dev/null); then
  until=$(date -u -d '+365 days' +%Y-%m-%dT%H:%M:%S.000Z)
else # BSD date
  from=$(date -u -v-1d +%Y-%m-%dT%H:%M:%S.000Z)
  until=$(date -u -v+365d +%Y-%m-%dT%H:%M:%S.000Z)
fi

policy_id=example/release-policy
release_identity=https://example.org/ci/release
witness_identity=https://witness.example.org
# What ships: the digest of the released artifact (in CI, the image's
# manifest digest, which the test harness writes into the evidence), its
# name and version. Every gate below is bound to them.
artifact_digest=sha256:6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a
subject_name=ledger-notes-server
subject_version=3.4.1

step "One-time set-up: keys (in CI the private keys live in secrets)"
export MCPRES_PASSWORD=${MCPRES_PASSWORD:-example-only-passphrase}
"$mcpres" key generate --encrypt --out-base "$work/keys/release"
"$mcpres" key generate --out-base "$work/keys/witness"
for role in root targets snapshot timestamp; do
  "$mcpres" key generate --out-base "$work/keys/tuf-$role" >/dev/null
done

step "One-time set-up: the consumer's trust policy, published through TUF"
policy=$work/release-policy.json
"$mcpres" policy init "$policy" --id "$policy_id" --valid-from "$from" --valid-until "$until"
"$mcpres" policy add-signer "$policy" --name release --identity "$release_identity" --key "$work/keys/release.pub" \
  --subject "$subject_name"
"$mcpres" policy add-witness "$policy" --name witness --identity "$witness_identity" --key "$work/keys/witness.pub"
"$mcpres" policy set-quorum "$policy" 1
"$mcpres" policy check "$policy"
"$mcpres" policy tuf init --repo "$work/tuf" --root-key "$work/keys/tuf-root.key" \
  --targets-key "$work/keys/tuf-targets.key" --snapshot-key "$work/keys/tuf-snapshot.key" \
  --timestamp-key "$work/keys/tuf-timestamp.key"
"$mcpres" policy tuf add-target --repo "$work/tuf" --name release-policy.json "$policy" \
  --targets-key "$work/keys/tuf-targets.key" --snapshot-key "$work/keys/tuf-snapshot.key" \
  --timestamp-key "$work/keys/tuf-timestamp.key"

step "Release: seal the evidence"
"$mcpres" seal "$here/evidence/draft.json" -o "$work/dist/bundle.json"

transparency=()
if [ -n "${LOG_URL:-}" ]; then
  # The organisation's log server (mcpres log serve): TOKEN_FILE holds the
  # bearer token, LOG_VKEY_FILE the log's verifier key.
  step "Release: submit to the transparency log server"
  "$mcpres" log add --server "$LOG_URL" --token-file "${TOKEN_FILE:?}" --log-key "${LOG_VKEY_FILE:?}" \
    "$work/dist/bundle.json" -o "$work/dist/bundle.tlog-ref.json"
  transparency=(--transparency "$work/dist/bundle.tlog-ref.json")
elif [ -n "${MCPRES_LOG_DIR:-}" ]; then
  step "Release: append to the self-hosted transparency log"
  if [ ! -e "$MCPRES_LOG_DIR/checkpoint" ]; then
    # One-time: a log key (in CI a secret, MCPRES_LOG_KEY) and the log.
    "$mcpres" log keygen --origin example.org/mcp-evidence-log --out-base "$work/keys/log"
    "$mcpres" log init --dir "$MCPRES_LOG_DIR" --key "$work/keys/log.key"
  fi
  MCPRES_LOG_KEY=${MCPRES_LOG_KEY:-$(cat "$work/keys/log.key")}
  export MCPRES_LOG_KEY
  "$mcpres" log add --dir "$MCPRES_LOG_DIR" --key env:MCPRES_LOG_KEY "$work/dist/bundle.json" -o "$work/dist/bundle.tlog-ref.json"
  transparency=(--transparency "$work/dist/bundle.tlog-ref.json")
fi

step "Release: sign with the key from the secret"
MCPRES_SIGNING_KEY=$(cat "$work/keys/release.key")
export MCPRES_SIGNING_KEY
"$mcpres" attest sign "$work/dist/bundle.json" --key env:MCPRES_SIGNING_KEY \
  --identity "$release_identity" --policy-id "$policy_id" --claim SIGNED_WITH_IDENTITY \
  ${transparency[@]+"${transparency[@]}"} -o "$work/dist/bundle.signed.json"

step "Witness (its own job and key): check what the release job signed, then co-sign"
# The witness vouches for what it checked itself: the release key's
# signature under the consumers' policy, about the artifact that ships.
"$mcpres" attest verify --format text --policy "$policy" --require-level SIGNED_WITH_IDENTITY \
  --subject-digest "$artifact_digest" --subject-name "$subject_name" --subject-version "$subject_version" \
  "$work/dist/bundle.signed.json"
MCPRES_WITNESS_KEY=$(cat "$work/keys/witness.key")
export MCPRES_WITNESS_KEY
"$mcpres" attest sign "$work/dist/bundle.signed.json" --key env:MCPRES_WITNESS_KEY \
  --identity "$witness_identity" --policy-id "$policy_id" --claim WITNESSED \
  -o "$work/dist/bundle.attested.json"

step "Consumer: fetch the policy through TUF, verify offline, gate"
"$mcpres" attest verify --format markdown \
  --policy-tuf "$work/tuf/1.root.json" --policy-repo "$work/tuf" \
  --policy-target release-policy.json --policy-cache "$work/tuf-cache" \
  --require-level WITNESSED --require-evidence-class FIXTURE_BACKED_PROTOCOL \
  --subject-digest "$artifact_digest" --subject-name "$subject_name" --subject-version "$subject_version" \
  "$work/dist/bundle.attested.json"

step "Consumer: the same bundle does not admit another artifact"
if "$mcpres" attest verify --format text \
  --policy-tuf "$work/tuf/1.root.json" --policy-repo "$work/tuf" \
  --policy-target release-policy.json --policy-cache "$work/tuf-cache" \
  --require-level WITNESSED --subject-digest "sha256:$(printf '0%.0s' {1..64})" \
  "$work/dist/bundle.attested.json"; then
  echo "the bundle admitted another artifact" >&2
  exit 1
fi
echo "the gate refused the bundle for another artifact, as it must"

step "Consumer: a tampered bundle fails the gate"
# One byte of the first observation's reasonCode changes (A <-> B).
awk '!done && /"reasonCode": "/ {
  if (sub(/"reasonCode": "A/, "\"reasonCode\": \"B")) done = 1
  else if (sub(/"reasonCode": "[B-Z]/, "\"reasonCode\": \"A")) done = 1
} { print }' "$work/dist/bundle.attested.json" > "$work/dist/bundle.tampered.json"
if "$mcpres" attest verify --format text \
  --policy-tuf "$work/tuf/1.root.json" --policy-repo "$work/tuf" \
  --policy-target release-policy.json --policy-cache "$work/tuf-cache" \
  --require-level WITNESSED "$work/dist/bundle.tampered.json"; then
  echo "the tampered bundle passed the gate" >&2
  exit 1
fi
echo "the gate refused the tampered bundle, as it must"
