// Package tuffetch is the result object of `mcpres-tuf fetch --format
// json` (schemaVersion "mcpres.tuf-fetch-result/v1"), which mcpres reads
// for `attest verify --policy-tuf`: its one definition, written by
// cmd/mcpres-tuf ([Result.JSON]) and read by cmd/mcpres ([Parse]). The two
// are main packages, and mcpres cannot import trustpolicy/tufdist (go-tuf
// would be linked into every run, DESIGN §4): the schema lives here, with
// no TUF code.
package tuffetch

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/canonjson"
)

// SchemaVersion is the schemaVersion of a fetch result.
const SchemaVersion = "mcpres.tuf-fetch-result/v1"

// A Role is the version and expiry of one role's verified metadata.
type Role struct {
	Version int64
	Expires time.Time
}

// A Result is what a fetch obtained: a verified target (Valid), or why it
// could not be obtained.
type Result struct {
	Valid bool
	// Target is the target's name, Repository the repository it was
	// asked of (an http(s) URL or a directory).
	Target     string
	Repository string

	// Of a valid result: the target's bytes and their SHA-256 (lower-case
	// hex), when they were verified and until when the metadata is valid,
	// whether the cache stood in for a repository that could not be read
	// (FetchError, "" when it was read), and each role's metadata.
	Data                               []byte
	SHA256                             string
	EvaluatedAt, ValidUntil            time.Time
	FromCache                          bool
	FetchError                         string
	Root, Timestamp, Snapshot, Targets Role

	// Of a failure: what failed, and the role and check of a
	// verification failure ("" otherwise).
	Error       string
	Role, Check string
}

// JSON is the result object, members in the order of the schema: for a
// valid result {"schemaVersion", "valid": true, "target", "repository",
// "length", "sha256", "evaluatedAt" (RFC 3339 with fractions),
// "validUntil", "fromCache", "fetchError" (null when ""), "root",
// "timestamp", "snapshot", "targets" ({"version", "expires"}),
// "dataBase64"}; for a failure {"schemaVersion", "valid": false, "target",
// "repository", "error", "role", "check"} (role and check null when "").
func (r *Result) JSON() *canonjson.Value {
	head := []canonjson.Member{
		{Key: "schemaVersion", Value: canonjson.NewString(SchemaVersion)},
		{Key: "valid", Value: canonjson.NewBool(r.Valid)},
		{Key: "target", Value: canonjson.NewString(r.Target)},
		{Key: "repository", Value: canonjson.NewString(r.Repository)},
	}
	if !r.Valid {
		return canonjson.NewObject(append(head,
			canonjson.Member{Key: "error", Value: canonjson.NewString(r.Error)},
			canonjson.Member{Key: "role", Value: orNull(r.Role)},
			canonjson.Member{Key: "check", Value: orNull(r.Check)},
		)...)
	}
	role := func(r Role) *canonjson.Value {
		return canonjson.NewObject(
			canonjson.Member{Key: "version", Value: canonjson.NewInt(r.Version)},
			canonjson.Member{Key: "expires", Value: canonjson.NewString(r.Expires.UTC().Format(time.RFC3339))},
		)
	}
	return canonjson.NewObject(append(head,
		canonjson.Member{Key: "length", Value: canonjson.NewInt(int64(len(r.Data)))},
		canonjson.Member{Key: "sha256", Value: canonjson.NewString(r.SHA256)},
		canonjson.Member{Key: "evaluatedAt", Value: canonjson.NewString(r.EvaluatedAt.UTC().Format(time.RFC3339Nano))},
		canonjson.Member{Key: "validUntil", Value: canonjson.NewString(r.ValidUntil.UTC().Format(time.RFC3339))},
		canonjson.Member{Key: "fromCache", Value: canonjson.NewBool(r.FromCache)},
		canonjson.Member{Key: "fetchError", Value: orNull(r.FetchError)},
		canonjson.Member{Key: "root", Value: role(r.Root)},
		canonjson.Member{Key: "timestamp", Value: role(r.Timestamp)},
		canonjson.Member{Key: "snapshot", Value: role(r.Snapshot)},
		canonjson.Member{Key: "targets", Value: role(r.Targets)},
		canonjson.Member{Key: "dataBase64", Value: canonjson.NewString(base64.StdEncoding.EncodeToString(r.Data))},
	)...)
}

func orNull(s string) *canonjson.Value {
	if s == "" {
		return canonjson.NewNull()
	}
	return canonjson.NewString(s)
}

// ErrInconsistent is matched by the error of Parse for a valid result
// whose bytes are not what it says it verified: their length or SHA-256
// differs, or dataBase64 is not strict base64.
var ErrInconsistent = errors.New("the target's bytes are not the ones the result says were verified")

// Parse reads a result object. It fails when data is not a JSON object of
// this SchemaVersion with every member of its kind (valid or not) of the
// right type and times in RFC 3339; for a valid result it fails with
// ErrInconsistent (wrapped) unless the bytes are the ones it says it
// verified. Members it does not know are ignored.
func Parse(data []byte) (*Result, error) {
	v, err := canonjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("not a fetch result: %w", err)
	}
	p := parser{v: v}
	if !v.Is(canonjson.Object) {
		return nil, errors.New("not a fetch result: not a JSON object")
	}
	if sv := p.str("schemaVersion"); p.err != nil || sv != SchemaVersion {
		return nil, fmt.Errorf("not a fetch result: schemaVersion %q, want %q", sv, SchemaVersion)
	}
	r := &Result{Valid: p.bool("valid"), Target: p.str("target"), Repository: p.str("repository")}
	if !r.Valid {
		r.Error, r.Role, r.Check = p.str("error"), p.strOrNull("role"), p.strOrNull("check")
		return r, p.err
	}
	length := p.int("length")
	r.SHA256 = p.str("sha256")
	r.EvaluatedAt = p.time("evaluatedAt", time.RFC3339Nano)
	r.ValidUntil = p.time("validUntil", time.RFC3339)
	r.FromCache = p.bool("fromCache")
	r.FetchError = p.strOrNull("fetchError")
	r.Root, r.Timestamp, r.Snapshot, r.Targets = p.role("root"), p.role("timestamp"), p.role("snapshot"), p.role("targets")
	b64 := p.str("dataBase64")
	if p.err != nil {
		return nil, p.err
	}
	r.Data, err = base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%w: dataBase64: %v", ErrInconsistent, err)
	}
	sum := sha256.Sum256(r.Data)
	if int64(len(r.Data)) != length || hex.EncodeToString(sum[:]) != r.SHA256 {
		return nil, fmt.Errorf("%w: %d bytes of SHA-256 %x, the result says %d bytes of SHA-256 %q", ErrInconsistent, len(r.Data), sum, length, r.SHA256)
	}
	return r, nil
}

// A parser reads the members of one object, keeping the first error.
type parser struct {
	v   *canonjson.Value
	err error
}

func (p *parser) member(key string, kinds ...canonjson.Kind) *canonjson.Value {
	m := p.v.Get(key)
	for _, k := range kinds {
		if m.Is(k) {
			return m
		}
	}
	if p.err == nil {
		p.err = fmt.Errorf("not a fetch result: member %q missing or of the wrong type", key)
	}
	return nil
}

func (p *parser) str(key string) string {
	if m := p.member(key, canonjson.String); m != nil {
		return m.Str
	}
	return ""
}

func (p *parser) strOrNull(key string) string {
	if m := p.member(key, canonjson.String, canonjson.Null); m != nil && m.Is(canonjson.String) {
		return m.Str
	}
	return ""
}

func (p *parser) bool(key string) bool {
	if m := p.member(key, canonjson.Bool); m != nil {
		return m.Bool
	}
	return false
}

func (p *parser) int(key string) int64 {
	if m := p.member(key, canonjson.Int); m != nil {
		return m.Int
	}
	return 0
}

func (p *parser) time(key, layout string) time.Time {
	s := p.str(key)
	if p.err != nil {
		return time.Time{}
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		p.err = fmt.Errorf("not a fetch result: %s: %v", key, err)
	}
	return t
}

func (p *parser) role(key string) Role {
	m := p.member(key, canonjson.Object)
	if m == nil {
		return Role{}
	}
	sub := parser{v: m}
	r := Role{Version: sub.int("version"), Expires: sub.time("expires", time.RFC3339)}
	if sub.err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", key, sub.err)
	}
	return r
}
