package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// tokenGoal is issue 25's bound: a log served with its checkpoint key in
// a PKCS#11 token keeps at least this share of the throughput of the same
// log served with a key file.
const tokenGoal = 0.9

// softHSMModule is Debian's SoftHSM2 PKCS#11 module.
const softHSMModule = "/usr/lib/softhsm/libsofthsm2.so"

// logToken: log serve --dir with its checkpoint key in a SoftHSM2 token
// (through mcpres-pkcs11) against the same log served with a key file,
// interleaved. Skipped, with a line saying so, without SoftHSM2 and
// pkcs11-tool.
func (b *bench) logToken() error {
	if _, err := os.Stat(softHSMModule); err != nil {
		fmt.Fprintf(b.log, "bench: token: skipped: %s is missing (Debian's softhsm2)\n", softHSMModule)
		return nil
	}
	for _, p := range []string{"softhsm2-util", "pkcs11-tool"} {
		if _, err := exec.LookPath(p); err != nil {
			fmt.Fprintf(b.log, "bench: token: skipped: %s is missing (Debian's softhsm2 and opensc)\n", p)
			return nil
		}
	}
	fileKey, err := b.logKeys()
	if err != nil {
		return err
	}
	// A token of the bench's own, in its temporary directory.
	dir := b.path("softhsm")
	if err := os.MkdirAll(filepath.Join(dir, "tokens"), 0o700); err != nil {
		return err
	}
	conf := filepath.Join(dir, "softhsm2.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "directories.tokendir = %s\nobjectstore.backend = file\n", filepath.Join(dir, "tokens")), 0o600); err != nil {
		return err
	}
	pin := filepath.Join(dir, "pin")
	if err := os.WriteFile(pin, []byte("1234\n"), 0o600); err != nil { // a test-only PIN of a throwaway token
		return err
	}
	env := []string{"SOFTHSM2_CONF=" + conf, "MCPRES_PKCS11_MODULE=" + softHSMModule}
	for _, args := range [][]string{
		{"softhsm2-util", "--init-token", "--free", "--label", "bench", "--pin", "1234", "--so-pin", "5678"},
		{"pkcs11-tool", "--module", softHSMModule, "--token-label", "bench", "--login", "--pin", "1234",
			"--keypairgen", "--key-type", "EC:edwards25519", "--label", "checkpoints", "--id", "02"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", args[0], err, out)
		}
	}
	tokenKey := "pkcs11:token=bench;object=checkpoints?pin-source=" + pin
	keys := []struct {
		name string
		args []string
	}{
		{"file", []string{"--key", fileKey}},
		{"token", []string{"--key", tokenKey, "--origin", "bench.example/token-log"}},
	}
	runs := map[string][]load{}
	loadMax := 0.0
	for i := range b.logRuns() {
		for _, k := range keys {
			loadMax = max(loadMax, b.settledLoad())
			ldir := b.path(fmt.Sprintf("token-%s-%d", k.name, i))
			cmd := exec.Command(b.bin["mcpres"], append([]string{"log", "init", "--dir", ldir}, k.args...)...)
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("log init (%s key): %v\n%s", k.name, err, out)
			}
			l, err := b.serveLoad("mcpres", append([]string{"log", "serve", "--dir", ldir, "--listen", "127.0.0.1:0"}, k.args...), env, b.c.posixC, posixPrepare)
			if err != nil {
				return fmt.Errorf("log serve (%s key): %v", k.name, err)
			}
			runs[k.name] = append(runs[k.name], l)
			os.RemoveAll(ldir)
		}
	}
	ratio := median(rates(runs["token"])) / median(rates(runs["file"]))
	ok := "met"
	if ratio < tokenGoal {
		ok = "not met"
	}
	b.row(fmt.Sprintf("`mcpres log serve --dir` with its checkpoint key in a SoftHSM2 token (`--key pkcs11:…`, through `mcpres-pkcs11`), %d clients, %v", b.c.posixC, b.c.duration),
		loadText2(runs["token"]), "the same with a key file: "+loadText2(runs["file"]),
		fmt.Sprintf("**%.2f×** (medians)", ratio), fmt.Sprintf("≥ %.1f× (%s)", tokenGoal, ok), loadMax)
	return nil
}

// rates are the runs' submissions per second.
func rates(ls []load) []float64 {
	rs := make([]float64, len(ls))
	for i, l := range ls {
		rs[i] = l.rate
	}
	return rs
}
