package keyless

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jwt builds an unsigned compact JWS with the given claims (the signature
// part is junk: ParseToken does not verify it, Fulcio does).
func jwt(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return "eyJhbGciOiJFUzI1NiJ9." + base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
}

var now = time.Unix(1_800_000_000, 0)

func good() map[string]any {
	return map[string]any{"iss": "https://issuer.example", "sub": "s", "aud": "sigstore", "exp": now.Unix() + 60, "email": "a@example.org", "email_verified": true}
}

func with(k string, v any) map[string]any {
	c := good()
	if v == nil {
		delete(c, k)
	} else {
		c[k] = v
	}
	return c
}

func TestParseToken(t *testing.T) {
	if tok, err := ParseToken(jwt(good()), now); err != nil || tok.Claims().Email != "a@example.org" {
		t.Fatalf("control: %v", err)
	}
	if _, err := ParseToken(jwt(with("aud", []any{"x", "sigstore"})), now); err != nil {
		t.Fatalf("control (audience list): %v", err)
	}
	for name, raw := range map[string]string{
		"empty":          "  ",
		"two parts":      "a.b",
		"not base64":     "a.!!.c",
		"not JSON":       "a." + base64.RawURLEncoding.EncodeToString([]byte("[1]")) + ".c",
		"wrong audience": jwt(with("aud", "other")),
		"no audience":    jwt(with("aud", nil)),
		"expired":        jwt(with("exp", now.Unix())),
		"no exp":         jwt(with("exp", nil)),
		"no iss":         jwt(with("iss", nil)),
		"oversized":      strings.Repeat("a", MaxTokenSize+1),
	} {
		_, err := ParseToken(raw, now)
		if !errors.Is(err, ErrToken) {
			t.Errorf("%s: %v, want ErrToken", name, err)
		}
		if err != nil && raw != "  " && len(raw) > 10 && strings.Contains(err.Error(), raw) {
			t.Errorf("%s: the error quotes the token", name)
		}
	}
}

func TestProofSubject(t *testing.T) {
	tok, _ := ParseToken(jwt(good()), now)
	if s, err := tok.proofSubject(); err != nil || s != "a@example.org" {
		t.Fatalf("email issuer: %q %v", s, err)
	}
	tok, _ = ParseToken(jwt(with("email", nil)), now)
	if s, err := tok.proofSubject(); err != nil || s != "s" {
		t.Fatalf("workload issuer (sub): %q %v", s, err)
	}
	tok, _ = ParseToken(jwt(with("email_verified", false)), now)
	if _, err := tok.proofSubject(); !errors.Is(err, ErrToken) {
		t.Fatalf("unverified email: %v", err)
	}
}

func TestTokenNeverPrints(t *testing.T) {
	raw := jwt(good())
	tok, err := ParseToken(raw, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if out := fmt.Sprintf(f, tok); strings.Contains(out, raw[:20]) || strings.Contains(out, "eyJ") {
			t.Errorf("%s prints the token: %s", f, out)
		}
	}
	// Control: the raw value is there for the Fulcio request.
	if tok.raw != raw {
		t.Fatal("the token lost its value")
	}
}

func TestReadTokenEnv(t *testing.T) {
	t.Setenv("KEYLESS_TEST_TOKEN", jwt(good()))
	if _, err := ReadToken("env:KEYLESS_TEST_TOKEN", now); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadToken("env:KEYLESS_TEST_UNSET", now); !errors.Is(err, ErrToken) {
		t.Fatalf("unset variable: %v", err)
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://fulcio.sigstore.dev", "http://127.0.0.1:8080", "http://[::1]:1"} {
		if _, err := checkURL(ok, "u"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://fulcio.example", "http://localhost.evil.example", "http://10.0.0.1", "ftp://127.0.0.1", "127.0.0.1:80", ""} {
		if _, err := checkURL(bad, "u"); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestActionsTokenRefusals(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if _, err := ActionsToken(context.Background(), http.DefaultClient, getenv, now); !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "id-token: write") {
		t.Fatalf("no variables: %v", err)
	}
	env[ActionsURLEnv], env[ActionsTokenEnv] = "http://actions.example/token", "secret-bearer"
	_, err := ActionsToken(context.Background(), http.DefaultClient, getenv, now)
	if err == nil || strings.Contains(err.Error(), "secret-bearer") {
		t.Fatalf("plain HTTP off loopback: %v", err)
	}
}

func FuzzParseToken(f *testing.F) {
	f.Add(jwt(good()))
	f.Add(jwt(with("aud", []any{"sigstore"})))
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, raw string) {
		tok, err := ParseToken(raw, now)
		if err != nil {
			if !errors.Is(err, ErrToken) {
				t.Fatalf("error not ErrToken: %v", err)
			}
			return
		}
		if tok.claims.Issuer == "" || tok.claims.Subject == "" || !hasAudience(tok.claims.Audience, Audience) {
			t.Fatalf("accepted without iss, sub or audience: %+v", tok.claims)
		}
		if s := fmt.Sprint(tok); s != "[redacted]" {
			t.Fatalf("prints %q", s)
		}
	})
}

// A token file must be a regular file: a FIFO is refused before it is
// read (the read would block); a regular file is the control.
func TestReadTokenRegularFileOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := ReadToken(fifo, now); !errors.Is(err, ErrToken) {
		t.Fatalf("FIFO: %v", err)
	}
	regular := dir + "/token"
	os.WriteFile(regular, []byte(jwt(good())+"\n"), 0o600)
	if _, err := ReadToken(regular, now); err != nil {
		t.Fatal(err)
	}
}
