package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
)

// A log served on 127.0.0.1: a submission is admitted, appended and
// answered once a checkpoint covers it; the same entry again is answered
// with the existing index; the checkpoint is public.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "example-log")
	defer os.RemoveAll(dir)
	// A test-only key from a fixed seed.
	skey, _, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 32)), signednote.TypeEd25519, "example.org/log")
	signer, _ := signednote.ParseLogSigner(skey)
	store := posix.New(filepath.Join(dir, "log"))
	lg := tlog.Open(store, signer.Verifier())
	ctx := context.Background()
	if _, err := lg.Init(ctx, signer); err != nil {
		panic(err)
	}
	ap, err := lg.NewAppender(ctx, signer, tlog.AppenderOptions{})
	if err != nil {
		panic(err)
	}
	defer ap.Close(ctx)
	h := server.New(server.Config{
		Log: lg, Storage: store, Appender: ap,
		// Admit decides what is logged: here any non-empty body.
		Admit: func(body []byte) ([]byte, *server.Rejection) {
			if len(body) == 0 {
				return nil, &server.Rejection{Status: http.StatusBadRequest, JSON: []byte(`{"error":"empty"}` + "\n")}
			}
			return body, nil
		},
		Reference: func(p *tlog.Proof) ([]byte, error) {
			return fmt.Appendf(nil, "entry %s of tree size %d, existing %v\n", p.EntryID(), p.Checkpoint.Size, p.Existing), nil
		},
	})
	srv := httptest.NewServer(h) // 127.0.0.1
	defer srv.Close()

	for _, body := range []string{"first entry", "second entry", "first entry", ""} {
		resp, err := http.Post(srv.URL+"/add", "text/plain", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s", resp.StatusCode, answer)
	}
	resp, err := http.Get(srv.URL + "/checkpoint")
	if err != nil {
		panic(err)
	}
	cp, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Header.Get("Cache-Control"), strings.Join(strings.Split(string(cp), "\n")[:2], " "))
	// Output:
	// 200 entry 0 of tree size 1, existing false
	// 200 entry 1 of tree size 2, existing false
	// 200 entry 0 of tree size 2, existing true
	// 400 {"error":"empty"}
	// no-store example.org/log 2
}
