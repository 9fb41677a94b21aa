#!/usr/bin/env bash
# Builds the outside module and runs each program on the repository's
# testdata, checking its exit status and what it prints. .ci/run runs it
# offline, on the module cache the main build filled:
#   GOPROXY=off bash examples/goapi/check.sh
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./...
T=../../testdata
AT=2026-08-27T18:05:00.000Z # the fixtures' evaluation time, never the clock
SUBJECT=sha256:6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a # ledger-notes-server 3.4.1

# expect STATUS PATTERN PROGRAM ARGS...: PROGRAM exits with STATUS and
# prints a line matching the extended regular expression PATTERN.
expect() {
  local want=$1 pattern=$2 code=0 out
  shift 2
  out=$("$bin/$1" "${@:2}" 2>&1) || code=$?
  if [ "$code" != "$want" ] || ! grep -Eq -- "$pattern" <<<"$out"; then
    printf 'examples/goapi: %s exited %s (want %s); no line matches %s:\n%s\n' "$*" "$code" "$want" "$pattern" "$out"
    exit 1
  fi
  echo "ok  $1 (exit $code): $(grep -E -m1 -- "$pattern" <<<"$out")"
}

expect 0 "example.json: VALID conformance bundle" validate -evaluated-at $AT $T/bundles/example.json
expect 1 "altered-payload.json: INVALID attested conformance bundle MCP_RES_ATTESTATION_SIGNATURE_INVALID" \
  validate -evaluated-at $AT $T/attestation/signed-untrusted-allowed-at-signed-level.json $T/attestation/altered-payload.json

"$bin/seal" $T/drafts/example.draft.json >"$bin/sealed.json"
cmp "$bin/sealed.json" $T/bundles/example.json
echo "ok  seal: the sealed draft is testdata/bundles/example.json"
"$bin/sign" $T/bundles/example.json >"$bin/witnessed.json"
cmp "$bin/witnessed.json" $T/attestation/witnessed.json
echo "ok  sign: the signed and co-signed bundle is testdata/attestation/witnessed.json"

verify() { expect "$1" "$2" verify -evaluated-at $AT "${@:3}"; }
verify 0 "^PASSED: TRANSPARENCY_RECORDED at least TRANSPARENCY_RECORDED result PASS" -policy $T/transparency/policy.json \
  -subject-digest $SUBJECT -require-level TRANSPARENCY_RECORDED $T/transparency/example.signed.json
verify 0 "^PASSED: WITNESSED at least SIGNED_WITH_IDENTITY result PASS" -policy $T/attestation/witnessed.trust-policy.json \
  -subject-digest $SUBJECT "$bin/witnessed.json"
# The gate's controls: another artifact, another version, a malformed digest, a level not reached, a bundle that does not verify.
verify 1 "^REFUSED: MCPRES_SUBJECT_MISMATCH: digest: expected sha256:0{64}, found $SUBJECT" -policy $T/transparency/policy.json \
  -subject-digest "sha256:$(printf '0%.0s' {1..64})" $T/transparency/example.signed.json
verify 1 '^REFUSED: MCPRES_SUBJECT_MISMATCH: version: expected "3.4.0", found "3.4.1"' -policy $T/transparency/policy.json \
  -subject-digest $SUBJECT -subject-name ledger-notes-server -subject-version 3.4.0 $T/transparency/example.signed.json
verify 2 "uppercase hexadecimal digits" -policy $T/transparency/policy.json \
  -subject-digest "sha256:$(tr a-f A-F <<<"${SUBJECT#sha256:}")" $T/transparency/example.signed.json
verify 1 "^REFUSED: TRANSPARENCY_RECORDED required, derived WITNESSED" -policy $T/attestation/witnessed.trust-policy.json \
  -subject-digest $SUBJECT -require-level TRANSPARENCY_RECORDED "$bin/witnessed.json"
verify 1 "^REFUSED: \[MCP_RES_ATTESTATION_SIGNATURE_INVALID\]" -policy $T/attestation/altered-payload.trust-policy.json \
  -subject-digest $SUBJECT $T/attestation/altered-payload.json

transparency() { expect "$1" "$2" transparency -tlog-policy $T/transparency/tlog-policy.txt "${@:3}" $T/transparency/example.ref.json; }
transparency 0 "^verified offline: c2sp.org/tlog-proof@v1 leaf 2 of log.example.org/mcpres-example \(tree size 4\)" \
  -bundle $T/bundles/example.json -evaluated-at $AT
transparency 0 "^  cosigned by W at 2026-01-01T00:00:00Z" -bundle $T/transparency/example.signed.json -evaluated-at $AT
# Controls: before the witness cosigned, its cosignature does not count; the reference is not for another bundle.
transparency 1 "^NOT VERIFIED: .*dated after the evaluation time 2025-12-31T23:59:59Z" -bundle $T/bundles/example.json -evaluated-at 2025-12-31T23:59:59Z
"$bin/seal" $T/drafts/example.draft.json | sed 's/"ledger-notes-server"/"another-server"/' >"$bin/other.json"
transparency 1 "^NOT VERIFIED: " -bundle "$bin/other.json" -evaluated-at $AT

expect 0 "^verified cosignature by witness.goapi.example" witness -tlog-policy $T/transparency/tlog-policy.txt $T/transparency/example.ref.json
expect 0 "^refused a stale request: witness: refused" witness -tlog-policy $T/transparency/tlog-policy.txt $T/transparency/example.ref.json
echo "examples/goapi: every program printed what it should"
