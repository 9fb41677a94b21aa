package main

import (
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/tuffetch"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/mcpres/mcpres/trustpolicy/tufdist"
	"github.com/spf13/cobra"
)

const rootLong = `Distribute trust policies through a TUF repository (The Update Framework,
go-tuf v2), so that verifiers obtain the current policy with freshness,
rollback and threshold-signature protection instead of copying a file.

A repository is a directory that any static HTTP server can serve:

  N.root.json               root metadata; 1.root.json is what verifiers pin
  N.targets.json            the targets and their lengths and SHA-256 hashes
  N.snapshot.json           the targets.json version, length and SHA-256
  timestamp.json            the snapshot.json version, length and SHA-256
  targets/<sha256>.<name>   the policies themselves

Keys are Ed25519 key references: PKCS#8 PEM files (mcpres key generate,
optionally encrypted: $MCPRES_PASSWORD or a prompt) as PATH, file:PATH or
env:NAME, or keys that never leave their holder: pkcs11:URI (a PKCS#11
token, through the mcpres-pkcs11 helper) and ssh-agent:SHA256:FINGERPRINT
(see docs/keys.md). Metadata expires: the timestamp
after a day by default, so add-target must run more often than that for
verifiers to keep accepting the repository.

Verifiers fetch with 'mcpres attest verify --policy-tuf 1.root.json
--policy-repo URL_OR_DIR --policy-target NAME', or with 'fetch'.

Exit status: 0 success, 2 a usage error, unreadable input, or a policy that
cannot be obtained or verified.`

func (a *app) rootCommand(use string) *cobra.Command {
	root := &cobra.Command{
		Use:               use,
		Short:             "Publish and fetch trust policies through a TUF repository",
		Long:              rootLong,
		Version:           version.Version,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate(version.ReadBuild().Describe(use))
	root.AddCommand(a.initCommand(), a.addTargetCommand(), a.signCommand(), a.fetchCommand(),
		cli.ManCommand(func() *cobra.Command { return root }, cli.Usage,
			func(err error) error { return cli.Failf("%v", err) }, nil))
	return root
}

// registerCompletions gives --format its values for shell completion; run
// calls it only for a completion request (cli.Completing).
func registerCompletions(root *cobra.Command) {
	cli.CompleteEnums(root, map[string][]string{"format": {"raw", "json"}})
}

// clock is --evaluated-at, or the clock: the one place this binary reads it.
func clock(flag, now string) (time.Time, error) {
	if now == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		return time.Time{}, cli.Usagef("%s %q is not an RFC 3339 date-time", flag, now)
	}
	return t.UTC(), nil
}

func expiryFlags(cmd *cobra.Command, e *tufdist.Expiry, withRoot bool) {
	d := tufdist.DefaultExpiry()
	f := cmd.Flags()
	if withRoot {
		f.DurationVar(&e.Root, "expires-root", d.Root, "validity of root metadata")
	}
	f.DurationVar(&e.Targets, "expires-targets", d.Targets, "validity of targets metadata")
	f.DurationVar(&e.Snapshot, "expires-snapshot", d.Snapshot, "validity of snapshot metadata")
	f.DurationVar(&e.Timestamp, "expires-timestamp", d.Timestamp, "validity of timestamp metadata")
}

const initLong = `Create a TUF repository in DIR (created if needed) with consistent
snapshots: 1.root.json, 1.targets.json (no target yet), 1.snapshot.json and
timestamp.json, each signed and written atomically, 1.root.json last. DIR
must not already hold a repository.

--root-key is repeated once per root key. It takes a private key, which is
listed and signs 1.root.json now, or a public key (SPKI PEM), which is only
listed: its holder adds a signature later with 'sign --role root'.
--root-threshold root signatures are required (it defaults to 1 when there
is a single root key); until there are that many, verifiers reject the
repository. Targets, snapshot and timestamp have one key each.

Expiry times are counted from --evaluated-at (default: the clock). A summary of what
was written goes to stdout, ending with the SHA-256 of 1.root.json, which
verifiers can compare out of band before they pin the file.`

func (a *app) initCommand() *cobra.Command {
	var repo, targetsKey, snapshotKey, timestampKey, now string
	var rootKeys []string
	var threshold int
	var exp tufdist.Expiry
	cmd := &cobra.Command{
		Use:   "init --repo DIR --root-key KEY... [--root-threshold N] --targets-key KEY --snapshot-key KEY --timestamp-key KEY",
		Short: "Create a TUF repository for trust policies",
		Long:  initLong,
		Example: `  init --repo repo --root-key root1.key --root-key root2.pub --root-threshold 2 \
      --targets-key targets.key --snapshot-key snapshot.key --timestamp-key timestamp.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case repo == "":
				return cli.Usagef("--repo is required")
			case len(rootKeys) == 0:
				return cli.Usagef("at least one --root-key is required")
			case threshold == 0 && len(rootKeys) > 1:
				return cli.Usagef("--root-threshold is required with more than one --root-key")
			case targetsKey == "" || snapshotKey == "" || timestampKey == "":
				return cli.Usagef("--targets-key, --snapshot-key and --timestamp-key are required")
			}
			if threshold == 0 {
				threshold = 1
			}
			t, err := clock("--evaluated-at", now)
			if err != nil {
				return err
			}
			c := tufdist.InitConfig{Dir: repo, RootThreshold: threshold, Now: t, Expiry: exp}
			for _, p := range rootKeys {
				pub, priv, err := a.loadRootKey(p)
				if err != nil {
					return err
				}
				c.RootKeys = append(c.RootKeys, pub)
				if priv != nil {
					c.RootSigners = append(c.RootSigners, priv)
				}
			}
			if c.Targets, c.Snapshot, c.Timestamp, err = a.loadRoleKeys(targetsKey, snapshotKey, timestampKey); err != nil {
				return err
			}
			states, err := tufdist.Init(c)
			if err != nil {
				return cli.Failf("%v", err)
			}
			a.printRoleStates(states)
			rootFile := filepath.Join(repo, "1.root.json")
			data, err := regularfile.ReadFile(rootFile, tufdist.MaxMetadataBytes)
			if err != nil {
				return cli.Failf("%v", err)
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(a.stdout, "pin %s: sha256 %s\n", rootFile, hex.EncodeToString(sum[:]))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&repo, "repo", "", "repository directory")
	f.StringArrayVar(&rootKeys, "root-key", nil, "root key: a private key (listed, signs) or a public key (listed only); repeat per key")
	f.IntVar(&threshold, "root-threshold", 0, "number of root signatures required (default 1 with a single root key)")
	f.StringVar(&targetsKey, "targets-key", "", "private key of the targets role (a key reference)")
	f.StringVar(&snapshotKey, "snapshot-key", "", "private key of the snapshot role (a key reference)")
	f.StringVar(&timestampKey, "timestamp-key", "", "private key of the timestamp role (a key reference)")
	f.StringVar(&now, "evaluated-at", "", "signing time as an RFC 3339 date-time; expiries count from it (default: the clock)")
	cli.DeprecatedAlias(cmd, "now", "evaluated-at", cli.Usage)
	expiryFlags(cmd, &exp, true)
	return cmd
}

const addTargetLong = `Add FILE to the repository as the target NAME, or replace the target of
that name. FILE must be strict JSON (it is read with mcpres' strict reader,
as verifiers will read it). It is copied to targets/<sha256>.<NAME>, then
new targets, snapshot and timestamp metadata are signed and written, each
version one higher than the published one and each expiry counted from
--evaluated-at, timestamp.json last: verifiers see the new policy only once every
file is in place. Earlier versions stay for verifiers that are mid-update.
Running add-target again with the same FILE renews the expiries.

NAME is made of ASCII letters, digits, '.', '_', '-' and '/'. The three
keys must be the keys the repository's latest root names for their roles.`

func (a *app) addTargetCommand() *cobra.Command {
	var repo, name, targetsKey, snapshotKey, timestampKey, now string
	var exp tufdist.Expiry
	cmd := &cobra.Command{
		Use:   "add-target --repo DIR --name NAME FILE --targets-key KEY --snapshot-key KEY --timestamp-key KEY",
		Short: "Add or replace a trust policy in a TUF repository",
		Long:  addTargetLong,
		Example: `  add-target --repo repo --name release-policy.json policy.json \
      --targets-key targets.key --snapshot-key snapshot.key --timestamp-key timestamp.key`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case repo == "":
				return cli.Usagef("--repo is required")
			case name == "":
				return cli.Usagef("--name is required (the target name verifiers ask for with --policy-target)")
			case targetsKey == "" || snapshotKey == "" || timestampKey == "":
				return cli.Usagef("--targets-key, --snapshot-key and --timestamp-key are required")
			}
			if err := tufdist.ValidTargetName(name); err != nil {
				return cli.Usagef("--name: %v", err)
			}
			t, err := clock("--evaluated-at", now)
			if err != nil {
				return err
			}
			data, _, err := canonjson.ReadFile(args[0])
			if err != nil {
				return cli.Failf("%s: %v", args[0], err)
			}
			c := tufdist.AddTargetConfig{Dir: repo, Name: name, Data: data, Now: t, Expiry: exp}
			if c.Targets, c.Snapshot, c.Timestamp, err = a.loadRoleKeys(targetsKey, snapshotKey, timestampKey); err != nil {
				return err
			}
			states, err := tufdist.AddTarget(c)
			if err != nil {
				return cli.Failf("%v", err)
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(a.stdout, "target %s: %d bytes, sha256 %s\n", name, len(data), hex.EncodeToString(sum[:]))
			a.printRoleStates(states)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&repo, "repo", "", "repository directory")
	f.StringVar(&name, "name", "", "target name")
	f.StringVar(&targetsKey, "targets-key", "", "private key of the targets role (a key reference)")
	f.StringVar(&snapshotKey, "snapshot-key", "", "private key of the snapshot role (a key reference)")
	f.StringVar(&timestampKey, "timestamp-key", "", "private key of the timestamp role (a key reference)")
	f.StringVar(&now, "evaluated-at", "", "signing time as an RFC 3339 date-time; expiries count from it (default: the clock)")
	cli.DeprecatedAlias(cmd, "now", "evaluated-at", cli.Usage)
	expiryFlags(cmd, &exp, false)
	return cmd
}

func (a *app) signCommand() *cobra.Command {
	var repo, role, keyPath string
	cmd := &cobra.Command{
		Use:   "sign --repo DIR --role root --key KEY",
		Short: "Add a root signature (for a root threshold above 1)",
		Long: `Add the signature of KEY to the repository's latest N.root.json, for a root
whose threshold needs more signatures than 'init' could make. KEY must be
one of that root's keys and must not have signed it yet. Only --role root is
accepted: targets, snapshot and timestamp are signed by add-target.

The root file changes: verifiers pin the file as it is once the threshold
is reached.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case repo == "":
				return cli.Usagef("--repo is required")
			case role == "":
				return cli.Usagef("--role is required")
			case role != "root":
				return cli.Usagef("--role %q: only root can be given further signatures (add-target signs targets, snapshot and timestamp)", role)
			case keyPath == "":
				return cli.Usagef("--key is required")
			}
			priv, err := a.loadPrivateKey(keyPath)
			if err != nil {
				return err
			}
			st, err := tufdist.Sign(repo, role, priv)
			if err != nil {
				return cli.Failf("%v", err)
			}
			a.printRoleStates([]tufdist.RoleState{st})
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&repo, "repo", "", "repository directory")
	f.StringVar(&role, "role", "", "role whose metadata to sign (root)")
	f.StringVar(&keyPath, "key", "", "private key that signs (a key reference)")
	return cmd
}

const fetchLong = `Fetch the target NAME from the TUF repository URL_OR_DIR (an http(s) URL,
or a directory read with no network), verified from the pinned root
ROOT.json at the current time, and write its bytes to OUTPUT or stdout.

The verified metadata is cached (default: the user cache directory,
mcpres/tuf/<sha256 of ROOT.json>); run fetch before going offline to fill
the cache. When the repository cannot be read, the cache stands in for it
as long as its metadata, verified again, has not expired; a warning on
stderr says so. Expired, rolled-back, under-signed or mismatched metadata
is never accepted: the command exits 2 naming the role and the check.

With --format json, one object is written to stdout instead, whatever
happens (mcpres reads it for 'attest verify --policy-tuf'):

  {"schemaVersion": "mcpres.tuf-fetch-result/v1", "valid": true,
   "target": NAME, "repository": URL_OR_DIR, "length": N, "sha256": HEX,
   "evaluatedAt": T, "validUntil": T, "fromCache": BOOL, "fetchError": MSG|null,
   "root"|"timestamp"|"snapshot"|"targets": {"version": N, "expires": T},
   "dataBase64": BASE64}

or, when the policy cannot be obtained (exit 2),

  {"schemaVersion": "mcpres.tuf-fetch-result/v1", "valid": false,
   "target": NAME, "repository": URL_OR_DIR, "error": MSG,
   "role": ROLE|null, "check": CHECK|null}`

func (a *app) fetchCommand() *cobra.Command {
	var root, repo, target, cacheDir, out, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "fetch --policy-tuf ROOT.json --policy-repo URL_OR_DIR --policy-target NAME [--policy-cache DIR] [-o OUTPUT]",
		Short: "Fetch and verify a trust policy from a TUF repository",
		Long:  fetchLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case root == "" || repo == "" || target == "":
				return cli.Usagef("--policy-tuf, --policy-repo and --policy-target are required")
			case format != "raw" && format != "json":
				return cli.Usagef("--format %q: want raw or json", format)
			case format == "json" && out != "":
				return cli.Usagef("-o/--output can't be used with --format json (the object goes to stdout)")
			}
			pinned, err := regularfile.ReadFile(root, tufdist.MaxMetadataBytes)
			if err != nil {
				return a.fetchFailed(format, target, repo, cli.Failf("--policy-tuf: %v", err))
			}
			res, err := tufdist.Fetch(tufdist.Config{TrustedRoot: pinned, RepoURL: repo, Target: target, CacheDir: cacheDir, Now: time.Now().UTC()})
			if err != nil {
				return a.fetchFailed(format, target, repo, err)
			}
			if format == "json" {
				return a.writeJSON(fetchResult(repo, res))
			}
			if res.FromCache {
				a.warnf("TUF repository %s could not be read (%v); using the cached trust policy %q (targets version %d), verified again at %s and valid until %s",
					repo, res.FetchError, target, res.Targets.Version, res.EvaluatedAt.Format(time.RFC3339), res.ValidUntil().UTC().Format(time.RFC3339))
			}
			if out == "" || out == "-" {
				_, err := termsafe.Unwrap(a.stdout).Write(res.Data) // the policy: data, not text
				return err
			}
			return writeOutput(out, root, res.Data, force)
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "policy-tuf", "", "pinned TUF root metadata of the repository (its 1.root.json)")
	f.StringVar(&repo, "policy-repo", "", "TUF repository: an http(s) URL or a local directory")
	f.StringVar(&target, "policy-target", "", "name of the trust policy target")
	f.StringVar(&cacheDir, "policy-cache", "", "TUF cache directory (default: user cache dir/mcpres/tuf/<sha256 of ROOT.json>)")
	f.StringVarP(&out, "output", "o", "", "write the policy here instead of stdout (- is stdout)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	f.StringVar(&format, "format", "raw", "raw (the policy bytes) or json (a result object)")
	return cmd
}

// fetchFailed reports a failed fetch: as the error object with --format
// json, else as an error (exit 2 either way).
func (a *app) fetchFailed(format, target, repo string, err error) error {
	if format != "json" {
		return cli.Failf("trust policy %q from TUF repository %s: %v", target, repo, err)
	}
	res := &tuffetch.Result{Target: target, Repository: repo, Error: err.Error()}
	var ve *tufdist.VerificationError
	if errors.As(err, &ve) {
		res.Role, res.Check = ve.Role, string(ve.Check)
	}
	if werr := a.writeJSON(res.JSON()); werr != nil {
		return werr
	}
	return cli.Exit(exitInput)
}

// fetchResult is the result object of a verified fetch of res from repo.
func fetchResult(repo string, res *tufdist.Result) *canonjson.Value {
	role := func(r tufdist.RoleInfo) tuffetch.Role { return tuffetch.Role{Version: r.Version, Expires: r.Expires} }
	out := &tuffetch.Result{
		Valid: true, Target: res.Target, Repository: repo,
		Data: res.Data, SHA256: res.SHA256, EvaluatedAt: res.EvaluatedAt, ValidUntil: res.ValidUntil(),
		FromCache: res.FromCache,
		Root:      role(res.Root), Timestamp: role(res.Timestamp), Snapshot: role(res.Snapshot), Targets: role(res.Targets),
	}
	if res.FetchError != nil {
		out.FetchError = res.FetchError.Error()
	}
	return out.JSON()
}

func (a *app) writeJSON(v *canonjson.Value) error {
	out, err := canonjson.Compact(v)
	if err != nil {
		return cli.Failf("encoding the result: %v", err)
	}
	_, err = a.stdout.Write(append(out, '\n'))
	return err
}

// writeOutput writes data to out atomically, never over the pinned root
// and over an existing file only with force.
func writeOutput(out, input string, data []byte, force bool) error {
	if a, errA := filepath.Abs(out); errA == nil {
		if b, errB := filepath.Abs(input); errB == nil && a == b {
			return cli.Failf("refusing to write %s: it is an input of this command", out)
		}
	}
	if err := atomicfile.WriteFile(out, data, 0o644, force); err != nil {
		return cli.Failf("%s", cli.WriteError(out, err))
	}
	return nil
}

func (a *app) loadRoleKeys(targets, snapshot, timestamp string) (t, s, ts crypto.Signer, err error) {
	if t, err = a.loadPrivateKey(targets); err != nil {
		return
	}
	if s, err = a.loadPrivateKey(snapshot); err != nil {
		return
	}
	ts, err = a.loadPrivateKey(timestamp)
	return
}

func (a *app) printRoleStates(states []tufdist.RoleState) {
	for _, st := range states {
		fmt.Fprintf(a.stdout, "wrote %s: %s version %d, expires %s, %d of %d required signatures\n",
			st.File, st.Role, st.Version, st.Expires.UTC().Format(time.RFC3339), st.Signatures, st.Threshold)
		if st.Signatures < st.Threshold {
			a.warnf("%s has %d of the %d signatures %s requires: verifiers reject it until 'sign --role %s' adds the rest",
				st.File, st.Signatures, st.Threshold, st.Role, st.Role)
		}
	}
}
