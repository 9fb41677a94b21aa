package main

import (
	"os"
	"path/filepath"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
)

// Every file a command writes goes through this file (DESIGN §5):
//
//   - a.writeOutput for one document given with -o/--output ("-" is
//     standard output);
//   - checkOutputs before expensive work, for commands with several outputs;
//   - fileOnly for an output that cannot be standard output;
//   - keyPairBase and writeKeyPair for NAME.key + NAME.pub/.vkey pairs,
//     which cannot go to standard output;
//   - writeFileError to report any other atomicfile error.
//
// Whatever --force says, nothing that is not a regular file (a device such
// as /dev/null, a FIFO, a socket, a directory, a symbolic link) is written
// over, an input is never replaced, a missing folder is named, and a
// failure leaves nothing behind (internal/atomicfile).

// msgs is the printer of mcpres's messages on standard error (warnings,
// errors, "wrote" lines, passphrase prompts: cli.Printer, the same in
// every binary).
func (a *app) msgs() *cli.Printer {
	return &cli.Printer{Prog: "mcpres", Stderr: a.stderr, Quiet: a.quiet}
}

// wrote says on stderr what a command wrote (DESIGN §5), as
// "mcpres: wrote PATH: DETAIL", unless --quiet was given or PATH is
// standard output (the document itself is the output then). format and
// args give DETAIL; an empty format gives no detail.
func (a *app) wrote(path, format string, args ...any) { a.msgs().Wrote(path, format, args...) }

// stdoutName is the -o value that means standard output.
const stdoutName = "-"

// fileOnly refuses "-" for an output that can only be a file (a policy
// edited in place, a migration result, a report beside the demo's
// transcript): what names it in the message ("--output", "FILE"). Without
// it "-" would be taken as a file name and a file named "-" created.
func fileOnly(what, path string) error {
	if path == stdoutName {
		return cli.Usagef("%s -: this command writes a file, not standard output; give a file name (./- for a file named -)", what)
	}
	return nil
}

// writeOutput writes one document to out atomically (temporary file in the
// same directory, then rename), or to standard output when out is "-". It
// never replaces one of the command's inputs or anything that is not a
// regular file, and replaces an existing file only with force.
func (a *app) writeOutput(out string, inputs []string, data []byte, force bool) error {
	if out == "" {
		return cli.Usagef("-o/--output is required")
	}
	if out == stdoutName {
		if _, err := a.document().Write(data); err != nil {
			return cli.Failf("writing to standard output: %v", err)
		}
		return nil
	}
	if err := checkOutputs([]string{out}, inputs, force); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, data, 0o644, force); err != nil {
		return writeFileError(out, err)
	}
	return nil
}

// reportTo returns the app that prints a command's result after it wrote
// its document to out: when the document went to standard output, the
// result goes to standard error, so that stdout holds the document alone.
func (a *app) reportTo(out string) *app {
	if out != stdoutName {
		return a
	}
	b := *a
	b.stdout = a.stderr
	return &b
}

// checkOutputs refuses, before any work, outputs that are inputs, given
// twice, not regular files, in a missing folder, or existing files
// without force. "-" (standard output) may be given once.
func checkOutputs(outputs, inputs []string, force bool) error {
	for i, o := range outputs {
		for _, p := range outputs[:i] {
			if p == o || (o != stdoutName && sameFile(p, o)) {
				return cli.Usagef("%s is given as two outputs", o)
			}
		}
		if o == stdoutName {
			continue
		}
		for _, in := range inputs {
			if in != "" && sameFile(in, o) {
				return cli.Failf("refusing to write %s: it is an input of this command", o)
			}
		}
		if err := atomicfile.CheckTarget(o, force); err != nil {
			return writeFileError(o, err)
		}
	}
	return nil
}

// writeFileError turns an error from internal/atomicfile for path into the
// command's message.
func writeFileError(path string, err error) error {
	return cli.Failf("%s", cli.WriteError(path, err))
}

// keyPairFlag is the one name of the flag that gives the base name of a
// generated key pair (key generate, log keygen, witness keygen). It is not
// -o/--output, which always names one file; --out is its deprecated
// spelling.
const keyPairFlag = "out-base"

const keyPairUsage = "base name of the key pair to create; not a file name: .key and the public-key extension are appended"

// keyPairBase checks the base name of a key pair (NAME.key and NAME.pub or
// NAME.vkey): it is required, two files cannot go to standard output, and
// neither file may exist.
func keyPairBase(flag, out string, exts ...string) error {
	if out == "" {
		return cli.Usagef("%s NAME is required", flag)
	}
	if out == stdoutName {
		return cli.Usagef("%s -: a key pair is two files and cannot be written to standard output; give a base name", flag)
	}
	for _, ext := range exts {
		if err := atomicfile.CheckTarget(out+ext, false); err != nil {
			return writeFileError(out+ext, err)
		}
	}
	return nil
}

// writeKeyPair writes a private key (0600) and its public half, both new
// files; if the second cannot be written, the first is removed so that no
// half pair is left behind.
func writeKeyPair(keyPath string, key []byte, pubPath string, pub []byte) error {
	if err := atomicfile.WriteFileExclusive(keyPath, key, 0o600); err != nil {
		return writeFileError(keyPath, err)
	}
	if err := atomicfile.WriteFileExclusive(pubPath, pub, 0o644); err != nil {
		os.Remove(keyPath) // do not leave half a key pair
		return writeFileError(pubPath, err)
	}
	return nil
}

// sameFile reports whether a and b name the same file, or the same path when
// b does not exist yet.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
