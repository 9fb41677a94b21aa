package oci

import (
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/pulled"
)

// Versions of the JSON documents this package writes.
const (
	// DiscoverySchemaVersion is the schemaVersion of [Discovery.Value].
	DiscoverySchemaVersion = "mcpres.oci-referrers/v1"
	// PullSchemaVersion is the schemaVersion of every line of the pull
	// index ([IndexLine]).
	PullSchemaVersion = pulled.SchemaVersion
	// PullIndexName is the file `mcpres oci pull` writes beside the
	// bundles: JSON Lines, one line per referrer, so that `attest verify
	// DIR`, which reads DIR's *.json files, reads only the bundles.
	PullIndexName = pulled.IndexName
)

func member(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }

// errText is an error as a JSON string: a registry's message may be any
// bytes.
func errText(err error) *canonjson.Value {
	return canonjson.NewString(strings.ToValidUTF8(err.Error(), "\uFFFD"))
}

// Value is the discovery as one JSON object: the image, how its
// referrers were found (via, filterApplied), and each MCP-RES referrer
// with its manifest digest and size, annotations, bundle layer (digest
// and size) and Sigstore bundle layers (sigstore: digest and size each,
// [] for none) or the reason it cannot be used; how many referrers were
// listed and examined, the bounds reached (floods: bound, limit and a
// sentence), and how many referrers are of other types.
func (d Discovery) Value() *canonjson.Value {
	s := canonjson.NewString
	rs := make([]*canonjson.Value, len(d.Referrers))
	for i, r := range d.Referrers {
		rs[i] = r.value(d.Image)
	}
	fs := make([]*canonjson.Value, len(d.Floods))
	for i, f := range d.Floods {
		fs[i] = f.value()
	}
	return canonjson.NewObject(
		member("schemaVersion", s(DiscoverySchemaVersion)),
		member("image", s(d.Image.Name)),
		member("repository", s(d.Image.Registry+"/"+d.Image.Repository)),
		member("digest", s(d.Image.Digest())),
		member("mediaType", s(d.Image.Descriptor.MediaType)),
		member("via", s(d.Via)),
		member("referrers", canonjson.NewArray(rs...)),
		member("filterApplied", canonjson.NewBool(d.Filtered)),
		member("listed", canonjson.NewInt(int64(d.Listed))),
		member("truncated", canonjson.NewBool(d.Truncated())),
		member("floods", canonjson.NewArray(fs...)),
		member("otherReferrers", canonjson.NewInt(int64(d.Others))),
	)
}

// value is the flood as a JSON object: the bound, its limit and the
// sentence naming it.
func (f Flood) value() *canonjson.Value {
	return canonjson.NewObject(
		member("bound", canonjson.NewString(f.Bound)),
		member("limit", canonjson.NewInt(int64(f.Limit))),
		member("note", canonjson.NewString(f.String())),
	)
}

func (r Referrer) value(img Image) *canonjson.Value {
	s := canonjson.NewString
	o := canonjson.NewObject(
		member("reference", s(r.Name(img))),
		member("digest", s(r.Descriptor.Digest)),
		member("size", canonjson.NewInt(r.Descriptor.Size)),
	)
	if r.Err != nil {
		o.Set("error", errText(r.Err))
		return o
	}
	o.Set("annotations", stringObject(r.Manifest.Annotations))
	o.Set("bundle", canonjson.NewObject(
		member("digest", s(r.Manifest.Layer.Digest)),
		member("size", canonjson.NewInt(r.Manifest.Layer.Size)),
	))
	sb := canonjson.NewArray()
	for _, l := range r.Manifest.Sigstore {
		sb.Items = append(sb.Items, canonjson.NewObject(member("digest", s(l.Digest)), member("size", canonjson.NewInt(l.Size))))
	}
	o.Set("sigstore", sb)
	return o
}

// FileName is the name `mcpres oci pull` gives the bundle of p: its
// digest's hexadecimal digits and ".attested.json" (never a name the
// registry chose).
func (p Pulled) FileName() string {
	return p.Manifest.Layer.Hex() + ".attested.json"
}

// IndexLine is p's line of the pull index (without the line feed): where
// the bundle came from (image, its digest, the referrer's manifest), its
// digest, size, file and annotations, its Sigstore bundles (sigstore:
// file, digest and size each; the member is absent when there are none),
// or why it was not pulled, and when (pulledAt, the caller's clock).
func IndexLine(img Image, p Pulled, pulledAt string) ([]byte, error) {
	s := canonjson.NewString
	o := canonjson.NewObject(
		member("schemaVersion", s(PullSchemaVersion)),
		member("image", s(img.Name)),
		member("repository", s(img.Registry+"/"+img.Repository)),
		member("subjectDigest", s(img.Digest())),
		member("referrer", s(p.Descriptor.Digest)),
	)
	if p.Err != nil {
		o.Set("error", errText(p.Err))
	} else {
		o.Set("bundleDigest", s(p.Manifest.Layer.Digest))
		o.Set("size", canonjson.NewInt(p.Manifest.Layer.Size))
		o.Set("file", s(p.FileName()))
		o.Set("annotations", stringObject(p.Manifest.Annotations))
		if len(p.Sigstore) > 0 {
			sb := canonjson.NewArray()
			for i, data := range p.Sigstore {
				sb.Items = append(sb.Items, canonjson.NewObject(member("file", s(p.SigstoreFileName(i))),
					member("digest", s(Digest(data))), member("size", canonjson.NewInt(int64(len(data))))))
			}
			o.Set("sigstore", sb)
		}
	}
	o.Set("pulledAt", s(pulledAt))
	return canonjson.Compact(o)
}
