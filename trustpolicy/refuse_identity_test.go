package trustpolicy

import (
	"strings"
	"testing"
)

// CheckIdentityRegexp refuses an expression that is not RE2 (a Perl
// construct Go does not have) with its reason; an anchored expression
// that pins the repository is taken (control).
func TestCheckIdentityRegexpNotRE2(t *testing.T) {
	for _, expr := range []string{`^(?<=x)a$`, `^a(b$`, `^\8$`} {
		if err := CheckIdentityRegexp(expr); err == nil || !strings.HasPrefix(err.Error(), "not an RE2 expression: ") {
			t.Errorf("%q: %v", expr, err)
		}
	}
	if err := CheckIdentityRegexp(`^https://github\.com/acme/server/\.github/workflows/release\.yml@refs/tags/v.*$`); err != nil {
		t.Errorf("control: %v", err)
	}
}

// checkIssuer refuses an issuer that is not https (another scheme, or
// plain http off loopback) and one with a query; https and http on
// loopback are taken (controls).
func TestCheckIssuer(t *testing.T) {
	for issuer, want := range map[string]string{
		"ftp://issuer.example.org":         `scheme "ftp": an issuer is https`,
		"http://issuer.example.org":        "plain http: an issuer is https (http only on a loopback address, for tests)",
		"https://issuer.example.org/?a=b":  "not an absolute URL without user, query or fragment",
		"https://user@issuer.example.org/": "not an absolute URL without user, query or fragment",
		"issuer.example.org":               "not an absolute URL without user, query or fragment",
	} {
		if err := checkIssuer(issuer); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", issuer, err, want)
		}
	}
	for _, issuer := range []string{"https://token.actions.githubusercontent.com", "http://127.0.0.1:8080/"} {
		if err := checkIssuer(issuer); err != nil {
			t.Errorf("control %s: %v", issuer, err)
		}
	}
}

// A log line's URL must be an absolute http or https URL; the line is
// refused naming the log, and the same line with a good URL is taken
// (control).
func TestTLogPolicyRefusesLogURL(t *testing.T) {
	_, errs := ParseTLogPolicy("log " + testLogVKey + " ftp://log.example.org/\nquorum none\n")
	if len(errs) != 1 || errs[0].Line != 1 || !strings.Contains(errs[0].Msg, `log "example.org/log": URL "ftp://log.example.org/" is not an absolute http or https URL`) {
		t.Errorf("ftp URL: %v", errs)
	}
	p, errs := ParseTLogPolicy("log " + testLogVKey + " https://log.example.org/\nquorum none\n")
	if len(errs) != 0 || len(p.Logs) != 1 || p.Logs[0].URL != "https://log.example.org/" {
		t.Errorf("control: %v", errs)
	}
}

// Extensions.String names the pinned extensions, in a fixed order, and
// leaves out those not pinned.
func TestExtensionsString(t *testing.T) {
	e := &Extensions{SourceRepositoryURI: "https://github.com/acme/server", SourceRepositoryRef: "refs/tags/v1"}
	if got, want := e.String(), "sourceRepositoryURI=https://github.com/acme/server, sourceRepositoryRef=refs/tags/v1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (&Extensions{}).String(); got != "" {
		t.Errorf("none pinned: %q", got)
	}
}
