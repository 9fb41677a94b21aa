package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Each page's header names the page and its source the binary, for any
// binary (not MCPRES(1) on every page of every binary); --dir - is
// refused rather than creating a directory named "-".
func TestManPages(t *testing.T) {
	root := &cobra.Command{Use: "mcpres-sigstore", SilenceErrors: true, SilenceUsage: true}
	attest := &cobra.Command{Use: "attest"}
	attest.AddCommand(&cobra.Command{Use: "verify", Short: "Verify", RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(attest, ManCommand(func() *cobra.Command { return root }, func(err error) error { return usageErr{err} },
		func(err error) error { return err }, nil))
	dir := filepath.Join(t.TempDir(), "man")
	root.SetArgs([]string{"man", "--dir", dir})
	if _, _, err := Execute(root, func(err error) error { return usageErr{err} }); err != nil {
		t.Fatal(err)
	}
	for page, th := range map[string]string{
		"mcpres-sigstore.1":               `.TH "MCPRES-SIGSTORE" "1" `,
		"mcpres-sigstore-attest-verify.1": `.TH "MCPRES-SIGSTORE-ATTEST-VERIFY" "1" `,
	} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), "\n"+th) || !strings.Contains(string(b), `"mcpres-sigstore" "mcpres manual"`) {
			t.Errorf("%s (%v): want the header %s... \"mcpres-sigstore\" \"mcpres manual\":\n%.200s", page, err, th, b)
		}
	}
	t.Chdir(t.TempDir())
	root.SetArgs([]string{"man", "--dir", "-"})
	if _, _, err := Execute(root, func(err error) error { return usageErr{err} }); err == nil || !strings.Contains(err.Error(), "--dir -: man pages are files in a directory") {
		t.Errorf("--dir -: %v", err)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a directory named "-" was created`)
	}
}
