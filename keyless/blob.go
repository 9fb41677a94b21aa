package keyless

import (
	"bytes"
	"fmt"

	"github.com/mcpres/mcpres/trustpolicy"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// CodeBlobSignature is the diagnostic of a keyless signature over a file
// (a release's checksum list, as cosign sign-blob makes it) that does not
// verify: its chain, time, signature or identity.
const CodeBlobSignature = "MCPRES_KEYLESS_BLOB_SIGNATURE"

// A BlobIdentity is who must have signed a file keylessly: the
// certificate's OIDC issuer exactly, and its identity exactly or by an
// anchored expression (trustpolicy.CheckIdentityRegexp's rules).
type BlobIdentity struct {
	Issuer, Identity, IdentityRegexp string
}

// VerifyBlob verifies, offline, the Sigstore bundle sigstoreBundle over
// data (a message signature, as cosign sign-blob --bundle writes it, or
// an in-toto statement whose subject is data's digest in a DSSE envelope,
// as cosign attest-blob --bundle writes it)
// against trustedRoot, with sigstore-go's verifier: the certificate
// chains to a Fulcio CA of the trusted root at a time proven by a signed
// timestamp or a transparency-log entry of the trusted root (which must
// then verify too, when the root lists logs), the signature is over
// data's digest under the certificate key, and the certificate's issuer
// and identity are id's. It reads no file and opens no connection. A
// failing check is a *Failure with CodeBlobSignature (or
// CodeMaterialInvalid for bytes that are not a Sigstore bundle).
func VerifyBlob(data, sigstoreBundle, trustedRoot []byte, id BlobIdentity) error {
	if id.IdentityRegexp != "" {
		if err := trustpolicy.CheckIdentityRegexp(id.IdentityRegexp); err != nil {
			return fail(CodeBlobSignature, "the identity expression: %v", err)
		}
	}
	if len(sigstoreBundle) > maxSigstoreBundle {
		return fail(CodeMaterialInvalid, "the Sigstore bundle is larger than %d bytes", maxSigstoreBundle)
	}
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(sigstoreBundle); err != nil {
		return fail(CodeMaterialInvalid, "not a Sigstore bundle: %v", err)
	}
	tr, err := root.NewTrustedRootFromJSON(trustedRoot)
	if err != nil {
		return fail(CodeMaterialInvalid, "the trusted root does not parse: %v", err)
	}
	opts := []verify.VerifierOption{verify.WithObserverTimestamps(1)}
	if len(tr.RekorLogs()) > 0 {
		opts = append(opts, verify.WithTransparencyLog(1))
	}
	v, err := verify.NewVerifier(tr, opts...)
	if err != nil {
		return fail(CodeMaterialInvalid, "%v", err)
	}
	certID, err := certificateIdentity(&trustpolicy.CertificateIdentity{Issuer: id.Issuer, Identity: id.Identity, IdentityRegexp: id.IdentityRegexp})
	if err != nil {
		return fail(CodeBlobSignature, "the identity: %v", err)
	}
	if _, err := v.Verify(&b, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(data)), verify.WithCertificateIdentity(certID))); err != nil {
		return fail(CodeBlobSignature, "the keyless signature does not verify (sigstore-go: %v)", err)
	}
	return nil
}

// String names id for messages.
func (id BlobIdentity) String() string {
	if id.IdentityRegexp != "" {
		return fmt.Sprintf("issuer %q, identity matching %q", id.Issuer, id.IdentityRegexp)
	}
	return fmt.Sprintf("issuer %q, identity %q", id.Issuer, id.Identity)
}
