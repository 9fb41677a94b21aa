package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// keylessGoal is issue 33's goal for the keyless batch: at most 1.5× the
// CPU of its floor.
const keylessGoal = 1.5

// keylessFixture has the keyless package's TestWriteBenchFixture write a
// keyless attested bundle, its Sigstore bundle, the trusted root, an
// identity policy, the signer's key and floor.json (the prepared
// signature checks) with a real Fulcio and timestamp authority (started
// on 127.0.0.1 by package keyless/keylesstest; the test skips without
// them). It returns the folder, or why there is none.
func (b *bench) keylessFixture() (string, error) {
	dir := b.path("keyless-fixture")
	if _, err := os.Stat(filepath.Join(dir, "floor.json")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestWriteBenchFixture$", "-v", "./keyless")
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "MCPRES_BENCH_KEYLESS_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("writing the keyless fixture: %v\n%s", err, tail(string(out)))
	}
	if _, err := os.Stat(filepath.Join(dir, "floor.json")); err != nil {
		return "", errors.New("no keyless fixture: Fulcio or timestamp-server is not installed (go install github.com/sigstore/fulcio@v1.8.8 github.com/sigstore/timestamp-authority/v2/cmd/timestamp-server@v2.1.3)")
	}
	return dir, nil
}

// keylessCopies writes n copies of the keyless bundle, each with its
// Sigstore bundle beside it.
func (b *bench) keylessCopies(fix string, n int) (string, error) {
	dir := b.path(fmt.Sprintf("keyless-%d", n))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	att, err := os.ReadFile(filepath.Join(fix, "bundle.attested.json"))
	if err != nil {
		return "", err
	}
	sb, err := os.ReadFile(filepath.Join(fix, "bundle.attested.json.sigstore.json"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("bundle-%06d.json", i))
		if err := os.WriteFile(p, att, 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(p+".sigstore.json", sb, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// keyless: one keyless verify (whole process: mcpres runs mcpres-sigstore)
// beside a key-file verify of the same bundle; a batch of keyless bundles
// against the floor program's keyless mode; the batch's peak memory at
// two sizes.
func (b *bench) keyless() error {
	fix, err := b.keylessFixture()
	if err != nil {
		b.row("keyless verification", "unavailable: "+strings.SplitN(err.Error(), "\n", 2)[0], "–", "–", "–", 0)
		return nil
	}
	read := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(fix, name))
		return strings.TrimSpace(string(data))
	}
	subject := read("subject.txt")
	keylessArgs := func(target string) []string {
		return []string{"attest", "verify", "--policy", filepath.Join(fix, "policy.json"), "--trusted-root", filepath.Join(fix, "trusted_root.json"),
			"--subject-name", subject, "--quiet", target}
	}
	one := filepath.Join(fix, "bundle.attested.json")
	runs := max(b.c.runs, 5)
	if b.c.quick {
		runs = 1
	}
	kl, kf, load, err := b.pair(runs, func() (sample, error) { return b.run("mcpres", keylessArgs(one)) },
		func() (sample, error) {
			return b.run("mcpres", []string{"attest", "verify", "--key", filepath.Join(fix, "signer.pub"), "--identity", read("identity.txt"), "--subject-name", subject, one})
		})
	if err != nil {
		return err
	}
	b.row("`mcpres attest verify --policy P --trusted-root TR` of one keyless bundle (runs mcpres-sigstore), whole process, wall",
		bestMedian(kl.walls())+"; CPU "+seconds(median(kl.cpus())), "`--key PUB --identity ID` verify of the same bundle: "+bestMedian(kf.walls()),
		fmt.Sprintf("%.2f×", float64(median(kl.walls()))/float64(median(kf.walls()))), "–", load)

	dir, err := b.keylessCopies(fix, b.c.files)
	if err != nil {
		return err
	}
	want := []byte(fmt.Sprintf("%d\n", b.c.files))
	mc, fl, load, err := b.pair(b.batchRuns(), func() (sample, error) {
		s, err := b.run("mcpres", keylessArgs(dir))
		if err == nil && strings.Count(string(s.stdout), `"gate":{"passed":true`) != b.c.files {
			err = fmt.Errorf("attest verify passed %d of %d keyless bundles", strings.Count(string(s.stdout), `"gate":{"passed":true`), b.c.files)
		}
		return s, err
	}, func() (sample, error) {
		s, err := b.run("floor", []string{"--keyless", filepath.Join(fix, "floor.json"), dir})
		if err == nil && string(s.stdout) != string(want) {
			err = fmt.Errorf("the keyless floor checked %q files, want %d", s.stdout, b.c.files)
		}
		return s, err
	})
	if err != nil {
		return err
	}
	ratio, goal := cpuRatio(mc, fl, keylessGoal)
	b.row(fmt.Sprintf("`mcpres attest verify --policy P --trusted-root TR DIR`, %s keyless bundles, CPU (user+sys), peak RSS", thousands(b.c.files)),
		bestMedian(mc.cpus())+fmt.Sprintf(" (wall %s); %s", seconds(median(mc.walls())), mib(mc.maxRSS())),
		"`bench/floor --keyless` (read both files, `json.Valid`, 4× SHA-256, the Ed25519 and the 4 ECDSA signatures of the chains and the timestamp): "+bestMedian(fl.cpus()),
		ratio, goal, load)

	large, err := b.keylessCopies(fix, 4*b.c.files)
	if err != nil {
		return err
	}
	big, _, load, err := b.pair(1, func() (sample, error) { return b.run("mcpres", keylessArgs(large)) }, nil)
	if err != nil {
		return err
	}
	os.RemoveAll(large)
	grow := float64(big.maxRSS()) / float64(mc.maxRSS())
	ok := "met"
	if grow > 1.25 {
		ok = "not met"
	}
	b.row(fmt.Sprintf("keyless batch peak RSS, %s vs %s files", thousands(4*b.c.files), thousands(b.c.files)), mib(big.maxRSS()), mib(mc.maxRSS()),
		fmt.Sprintf("%.2f×", grow), fmt.Sprintf("flat, ≤ 1.25× (%s)", ok), load)
	return nil
}
