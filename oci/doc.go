// Package oci publishes and finds MCP-RES attested bundles where OCI
// images are distributed: in the registry, as OCI 1.1 artifacts whose
// manifest subject is the image, found through the referrers API or, on
// registries without it, the referrers tag schema (OCI distribution-spec
// 1.1). It is the registry half of `mcpres oci attach|discover|pull` and
// of `attest verify --oci`; the verification itself stays offline (this
// package links net/http, so no verification package imports it): it
// hands the verifier the bundles' bytes and the image digest they must
// be bound to.
//
// # The artifact
//
// An MCP-RES artifact is an image manifest
// (application/vnd.oci.image.manifest.v1+json) with
//
//   - artifactType [ArtifactType] (application/vnd.mcpres.attested-bundle.v1+json);
//   - the empty config descriptor (application/vnd.oci.empty.v1+json, "{}");
//   - a first layer of media type [LayerMediaType] holding the attested
//     bundle's exact bytes, titled HEX.attested.json after its digest
//     ([AnnotationTitle], for oras pull);
//   - then, for a keyless signature, up to [MaxSigstoreLayers] layers of
//     media type [SigstoreMediaType] (1 byte to [MaxSigstoreBytes] each),
//     the bundle's Sigstore bundles v0.3 (certificate, RFC 3161 timestamp
//     and one of its DSSE envelopes), titled HEX.attested.json.sigstore.json,
//     HEX.attested.json.sigstore.2.json, … (attest/sigstore.MaterialName,
//     the names attest verify reads beside a bundle); no other layer is
//     accepted, and an artifact of one layer is as valid as before;
//   - the image's descriptor as subject;
//   - annotations [AnnotationCreated], [AnnotationSubjectName],
//     [AnnotationSubjectVersion] and [AnnotationClaimedLevel] (a claim:
//     only verification against a trust policy establishes a level).
//
// `oras attach --artifact-type application/vnd.mcpres.attested-bundle.v1+json
// IMAGE FILE:application/vnd.mcpres.attested-bundle.v1+json` makes the
// same shape.
//
// # Rules
//
//   - Referrers support is decided by the standard rule, as oras-go
//     implements it: the referrers API when the registry answers it (200
//     with an image index), the tag schema sha256-HEX when it answers 404,
//     and any other answer is an error. Attaching to a registry with the
//     API writes no referrers tag; without it, the index under the tag is
//     updated read–merge–write with conditional requests and checked again
//     after a settle time, so that two concurrent attaches both end up
//     listed ([Client.Attach]).
//   - A Sigstore bundle travels only with the attested bundle it belongs
//     to: before it is attached, and again when it is pulled, its DSSE
//     payload and signature must be those of one of the bundle's envelopes
//     ([SigstoreEnvelope]); its certificate and timestamp are verified by
//     attest verify --trusted-root (sigstore-go, which this package does
//     not link).
//   - Nothing read from a registry is trusted: an image's digest is
//     computed from the manifest bytes served; every manifest and layer is
//     checked against its descriptor's digest and size; sizes are checked
//     against [MaxManifestBytes] and [MaxBundleBytes] before anything is
//     requested; a referrer whose manifest subject is another image is
//     reported, never used. Referrers listed without a telling
//     artifactType are judged by their manifest, since registries differ
//     in what they list.
//   - A referrer flood cannot hide a bundle within the bounds, and is
//     named beyond them: the referrers API is asked for the MCP-RES
//     artifactType only (where the registry applies the filter) and every
//     listing is filtered here too, so referrers of other types cost
//     their descriptor only; listings are read page after page up to
//     Options.MaxListed referrers ([DefaultMaxListed], 10,000), at most
//     Options.MaxManifests candidate manifests are read
//     ([DefaultMaxManifests], 2,000; those listed as MCP-RES artifacts
//     first) and Options.MaxBundles bundles downloaded
//     ([DefaultMaxBundles], 100). A bound reached is a [Flood] of the
//     [Discovery], which says what was examined and that a bundle beyond
//     it was not seen.
//   - HTTPS, except plain HTTP to loopback registries (127.0.0.0/8, ::1,
//     localhost) as docker and oras do, and elsewhere only with
//     Options.PlainHTTP; credentials never over plain HTTP but to loopback,
//     never carried by a redirect to another host, at most 5 redirects and
//     never from HTTPS to HTTP. Credentials come from the Docker
//     configuration ($DOCKER_CONFIG/config.json, credential helpers). The
//     caller's context bounds the time of every operation.
//
// The registry protocol is oras-go's (oras.land/oras-go/v2); this package
// adds the artifact's shape, the checks above and the concurrent-safe
// update of a referrers tag index.
package oci
