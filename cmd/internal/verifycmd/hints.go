package verifycmd

import (
	"fmt"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator/official"
)

// DocumentHints says what to do with a document that is not what the
// command expects, recognised by its shape: an unsealed draft, or a
// Sigstore bundle. The hints go to stderr; the result is never changed.
func DocumentHints(path string, doc *canonjson.Value) []string {
	switch {
	case bundle.LooksUnsealed(doc):
		return []string{fmt.Sprintf("%s looks like an unsealed draft (its integrity.bundleDigest is empty or a placeholder): run `mcpres seal %s -o BUNDLE.json` first, then use BUNDLE.json", path, path)}
	case sigstore.IsSigstoreBundle(doc):
		return []string{fmt.Sprintf("%s is a Sigstore bundle (%s…), not an MCP-RES document: `mcpres attest export` produces these for Sigstore tools (cosign, sigstore-go; see docs/interop.md); verify the MCP-RES attested bundle it was exported from with `mcpres attest verify` instead", path, sigstore.MediaTypePrefix)}
	}
	return nil
}

// A Want is what a command takes in a file, for [KindHints].
type Want int

// What the commands take.
const (
	// WantDocument: an MCP-RES document of any kind (validate).
	WantDocument Want = iota
	// WantAttested: an attested conformance bundle (attest verify FILE).
	WantAttested
	// WantPolicy: a trust policy (attest verify --policy, policy check).
	WantPolicy
	// WantTLogPolicy: a tlog policy text (policy tlog check,
	// --witness-policy, policy set-transparency).
	WantTLogPolicy
)

// wantNames says what each Want is, for "not …".
var wantNames = [...]string{
	WantDocument:   "an MCP-RES document `mcpres validate` takes",
	WantAttested:   "an attested conformance bundle, which `mcpres attest verify` takes",
	WantPolicy:     "a trust policy (`mcpres attest verify --policy`, `mcpres policy check`)",
	WantTLogPolicy: "a tlog policy text (`mcpres policy tlog check`, `mcpres policy set-transparency`)",
}

// A fileKind is what a file recognisably is and what takes it.
type fileKind struct {
	what, takes string
	doc         document.Kind // the document kind, for MCP-RES documents
	policy      bool          // a trust policy
	tlog        bool          // a tlog policy text
}

// jsonKinds are the JSON files mcpres reads that are not the MCP-RES
// documents of package document, by schemaVersion.
var jsonKinds = map[string]fileKind{
	bundle.SchemaVersionTrustPolicy:    {what: "an MCP-RES trust policy", takes: "`mcpres attest verify --policy` verifies attested bundles against it", policy: true},
	trustpolicy.SchemaVersionPolicy:    {what: "an mcpres trust policy", takes: "`mcpres attest verify --policy` verifies attested bundles against it, and `mcpres policy check` checks it", policy: true},
	official.SchemaVersionImportConfig: {what: "an official-import configuration", takes: "`mcpres official import --config` takes it"},
}

// documentTakes says which commands take each document kind.
var documentTakes = map[document.Kind]string{
	document.Bundle:         "`mcpres validate` validates it, and `mcpres attest sign` signs it into an attested bundle",
	document.BundleV01:      "`mcpres validate` validates it with the v0.1 rules, and `mcpres migrate` converts it",
	document.AttestedBundle: "`mcpres attest verify` verifies it",
}

// recognise says what data (doc is its parse, nil when it is not JSON) is,
// as far as mcpres knows; ok is false otherwise.
func recognise(data []byte, doc *canonjson.Value) (fileKind, bool) {
	if doc != nil {
		if k := document.Detect(doc); k != document.Unknown {
			takes, ok := documentTakes[k]
			if !ok {
				takes = "`mcpres validate` validates it"
			}
			return fileKind{what: "a " + k.String() + " (" + k.SchemaVersion() + ")", takes: takes, doc: k}, true
		}
		if sv := doc.Get("schemaVersion"); sv.Is(canonjson.String) {
			if fk, ok := jsonKinds[sv.Str]; ok {
				fk.what += " (" + sv.Str + ")"
				return fk, true
			}
		}
		return fileKind{}, false
	}
	if k := keyfile.Recognise(data); k != keyfile.UnknownKey {
		return fileKind{what: keyhints.Describe(k)}, true
	}
	if looksLikeTLogPolicy(data) {
		return fileKind{what: "a tlog policy text (log and witness lines)", takes: "`mcpres policy tlog check` checks it, and `mcpres policy set-transparency POLICY FILE` puts it into a trust policy for --policy", tlog: true}, true
	}
	return fileKind{}, false
}

// looksLikeTLogPolicy reports whether data is a tlog policy text: one the
// loader's parser accepts as a draft, with at least one log or witness
// line.
func looksLikeTLogPolicy(data []byte) bool {
	if len(data) > trustpolicy.MaxTLogPolicyBytes {
		return false
	}
	p, errs := trustpolicy.ParseTLogPolicyDraft(string(data))
	return len(errs) == 0 && p != nil && (len(p.Logs) > 0 || len(p.Witnesses) > 0)
}

// KindHints says what a file given to a command that takes want is, and
// which command takes it, when it is recognisably something else: a trust
// policy given to validate, a plain bundle to attest verify, a tlog policy
// text to --policy. data is the file's content, doc its parse (nil when it
// is not JSON). The hints go to stderr; results never change.
func KindHints(path string, data []byte, doc *canonjson.Value, want Want) []string {
	if doc != nil {
		if h := DocumentHints(path, doc); h != nil {
			return h
		}
	}
	fk, ok := recognise(data, doc)
	switch {
	case !ok:
		return nil
	case want == WantDocument && fk.doc != document.Unknown,
		want == WantAttested && fk.doc == document.AttestedBundle,
		want == WantPolicy && fk.policy,
		want == WantTLogPolicy && fk.tlog:
		return nil // what the command takes; its result says what is wrong
	}
	if fk.takes == "" {
		return []string{fmt.Sprintf("%s is %s; not %s", path, fk.what, wantNames[want])}
	}
	return []string{fmt.Sprintf("%s is %s, not %s: %s", path, fk.what, wantNames[want], fk.takes)}
}

// Hint prints one hint line on Stderr.
func (a *Printer) Hint(h string) {
	fmt.Fprintf(a.Stderr, "%s: hint: %s\n", a.Prog, h)
}
