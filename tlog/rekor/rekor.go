// Package rekor submits mcpres log entries to a Rekor v1 transparency log
// (github.com/sigstore/rekor v1.5.4 client), for teams that log to Rekor
// instead of, or besides, a self-hosted log.
//
// This is the only code in mcpres that opens a network connection. It is
// linked only by cmd/mcpres-sigstore (the Rekor client would add about
// 5 ms of package initialisation to every mcpres run), and no verification
// path reaches it: entries are verified offline by package offline/rekor.
//
// # Entry type
//
// The entry is a hashedrekord v0.0.1 (the most widely supported Rekor type)
// over the canonical bytes E of the bundle's
// mcpres.transparency-entry/v1:
//
//   - data.hash = {algorithm: "sha512", value: hex(SHA-512(E))};
//   - signature.content = Ed25519ph(priv, SHA-512(E)) (RFC 8032, prehashed:
//     Rekor's hashedrekord sees only the digest, so an Ed25519 key must sign
//     in the prehashed variant, which Rekor verifies with sigstore's
//     ED25519phVerifier);
//   - signature.publicKey.content = the PEM SPKI public key.
//
// The proposed entry is built and checked with rekor's own types code
// (CreateFromArtifactProperties, Canonicalize) before it is sent, and the
// body Rekor returns must be exactly the canonical body of what was sent.
//
// A DSSE entry was the alternative; it would log an attestation, which
// cannot exist yet when the reference has to go into the statement being
// signed (mcpres attest sign --transparency), so the evidence entry is
// logged instead, exactly as in the self-hosted log.
package rekor

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/mcpres/mcpres/keyfile"
	rclient "github.com/sigstore/rekor/pkg/client"
	"github.com/sigstore/rekor/pkg/generated/client/entries"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	hashedrekord "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1"
)

// An Entry is what Rekor returned for a submitted entry.
type Entry struct {
	// UUID is the entry's identifier as Rekor returned it (the hex leaf
	// hash, possibly prefixed with the tree ID).
	UUID string
	// LogID is the hex SHA-256 of the Rekor log's public key (DER).
	LogID          string
	LogIndex       int64
	IntegratedTime int64
	// JSON is the LogEntryAnon JSON object: the proof bytes of a Rekor
	// transparency reference (package offline/rekor).
	JSON []byte
}

// Options tunes Submit.
type Options struct {
	// UserAgent is sent with the request.
	UserAgent string
	// Retries is the number of retries on temporary failures (Rekor
	// client default 3 when negative).
	Retries int
}

// ProposedEntry returns the hashedrekord v0.0.1 proposed entry for entry
// signed by signer (an Ed25519 key that signs Ed25519ph: an
// ed25519.PrivateKey, or a keyref.Key read from a file or a variable),
// built and validated with rekor's types, and the canonical body Rekor
// will log for it.
func ProposedEntry(ctx context.Context, entry []byte, signer crypto.Signer) (models.ProposedEntry, []byte, error) {
	if len(entry) == 0 {
		return nil, nil, errors.New("rekor: empty entry")
	}
	pub, ok := signer.Public().(ed25519.PublicKey)
	if !ok {
		return nil, nil, fmt.Errorf("rekor: the signing key is %T, not an Ed25519 key", signer.Public())
	}
	digest := sha512.Sum512(entry)
	sig, err := signer.Sign(nil, digest[:], &ed25519.Options{Hash: crypto.SHA512})
	if err != nil {
		return nil, nil, fmt.Errorf("rekor: signing: %w", err)
	}
	pubPEM, err := keyfile.MarshalPublicKeyPEM(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("rekor: public key: %w", err)
	}
	props := types.ArtifactProperties{
		ArtifactHash:   "sha512:" + hex.EncodeToString(digest[:]),
		SignatureBytes: sig,
		PublicKeyBytes: [][]byte{pubPEM},
		PKIFormat:      "x509",
	}
	// CreateFromArtifactProperties verifies the signature, as Rekor will.
	pe, err := hashedrekord.V001Entry{}.CreateFromArtifactProperties(ctx, props)
	if err != nil {
		return nil, nil, fmt.Errorf("rekor: building the hashedrekord entry: %w", err)
	}
	body, err := CanonicalBody(ctx, pe)
	if err != nil {
		return nil, nil, err
	}
	return pe, body, nil
}

// CanonicalBody returns the body Rekor logs for a hashedrekord v0.0.1
// proposed entry (rekor's Canonicalize).
func CanonicalBody(ctx context.Context, pe models.ProposedEntry) ([]byte, error) {
	var e hashedrekord.V001Entry
	if err := e.Unmarshal(pe); err != nil {
		return nil, fmt.Errorf("rekor: proposed entry: %w", err)
	}
	body, err := e.Canonicalize(ctx)
	if err != nil {
		return nil, fmt.Errorf("rekor: canonicalizing: %w", err)
	}
	return body, nil
}

// Submit proposes entry to the Rekor instance at rekorURL, signed by
// signer (as [ProposedEntry]), and returns the entry Rekor created. It checks that Rekor returned
// exactly one entry and that its body is the canonical body of the
// proposed entry; the inclusion proof and signed entry timestamp are left
// to the offline verifier (package offline/rekor), which knows the log's
// key from the trust policy.
func Submit(ctx context.Context, rekorURL string, entry []byte, signer crypto.Signer, o Options) (*Entry, error) {
	u, err := url.Parse(rekorURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("rekor: %q is not an http(s) URL", rekorURL)
	}
	pe, body, err := ProposedEntry(ctx, entry, signer)
	if err != nil {
		return nil, err
	}
	var opts []rclient.Option
	if o.UserAgent != "" {
		opts = append(opts, rclient.WithUserAgent(o.UserAgent))
	}
	if o.Retries >= 0 {
		opts = append(opts, rclient.WithRetryCount(uint(o.Retries)))
	}
	c, err := rclient.GetRekorClient(rekorURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("rekor: client: %w", err)
	}
	resp, err := c.Entries.CreateLogEntryContext(ctx, entries.NewCreateLogEntryParams().WithProposedEntry(pe))
	if err != nil {
		var conflict *entries.CreateLogEntryConflict
		if errors.As(err, &conflict) {
			return nil, fmt.Errorf("rekor: %s already holds this entry (%s); fetch it rather than submitting again", rekorURL, conflict.Location)
		}
		return nil, fmt.Errorf("rekor: submitting to %s: %w", rekorURL, err)
	}
	if len(resp.Payload) != 1 {
		return nil, fmt.Errorf("rekor: %s returned %d entries, want 1", rekorURL, len(resp.Payload))
	}
	for uuid, e := range resp.Payload {
		got, err := entryBody(e)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, body) {
			return nil, fmt.Errorf("rekor: %s returned an entry whose body is not the entry submitted", rekorURL)
		}
		if e.LogID == nil || e.LogIndex == nil || e.IntegratedTime == nil {
			return nil, fmt.Errorf("rekor: %s returned an entry without logID, logIndex or integratedTime", rekorURL)
		}
		if err := e.Validate(nil); err != nil {
			return nil, fmt.Errorf("rekor: %s returned an invalid entry: %w", rekorURL, err)
		}
		data, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("rekor: encoding the entry: %w", err)
		}
		return &Entry{UUID: uuid, LogID: *e.LogID, LogIndex: *e.LogIndex, IntegratedTime: *e.IntegratedTime, JSON: data}, nil
	}
	panic("unreachable")
}

// entryBody decodes a LogEntryAnon's base64 body.
func entryBody(e models.LogEntryAnon) ([]byte, error) {
	s, ok := e.Body.(string)
	if !ok {
		return nil, fmt.Errorf("rekor: entry body is a %T, want a base64 string", e.Body)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("rekor: entry body: %w", err)
	}
	return b, nil
}
