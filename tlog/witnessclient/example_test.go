package witnessclient_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
)

// A log asks a C2SP tlog-witness (here an mcpres witness on 127.0.0.1) to
// cosign its checkpoint and attaches the cosignature; a second witness
// that is down is a Failure, not an error.
func ExampleClient_WitnessLog() {
	dir, _ := os.MkdirTemp("", "example-witnessed-log")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	// Test-only keys from fixed seeds.
	lkey, _, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{8}, 32)), signednote.TypeEd25519, "example.org/log")
	logSigner, _ := signednote.ParseLogSigner(lkey)
	logKey := logSigner.Verifier()
	wkey, wvkey, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{9}, 32)), signednote.TypeCosignatureV1, "example.org/witness")
	w, _ := signednote.ParseWitnessSigner(wkey)
	wv, _ := signednote.ParseWitnessVerifier(wvkey)
	_, downKey, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{10}, 32)), signednote.TypeCosignatureV1, "example.org/down")
	dv, _ := signednote.ParseWitnessVerifier(downKey)

	store := posix.New(filepath.Join(dir, "log"))
	lg := tlog.Open(store, logKey)
	if _, err := lg.Init(ctx, logSigner); err != nil {
		panic(err)
	}
	if _, err := lg.Add(ctx, logSigner, []byte("an entry")); err != nil {
		panic(err)
	}
	state := filepath.Join(dir, "witness-state")
	os.Mkdir(state, 0o700)
	ws, err := witnesshttp.New(w, []*signednote.Verifier{logKey}, state, time.Now, nil)
	if err != nil {
		panic(err)
	}
	up := httptest.NewServer(ws.HTTPServer("").Handler)
	defer up.Close()
	down := httptest.NewServer(nil)
	down.Close()

	c, err := witnessclient.New([]witnessclient.Witness{
		{Name: "up", Key: wv, URL: up.URL},
		{Name: "down", Key: dv, URL: down.URL},
	}, witnessclient.Options{Timeout: 2 * time.Second})
	if err != nil {
		panic(err)
	}
	c.Hint(0) // the size the witnesses last saw, most likely
	cp, res, err := c.WitnessLog(ctx, lg, logKey, store.ReadTile)
	if err != nil {
		panic(err)
	}
	cs, _ := witness.Cosigners(cp.Note, logKey, []*signednote.Verifier{wv, dv})
	fmt.Println("size", cp.Size, "cosigned by", len(cs), "witness:", cs[0].Name)
	for _, f := range res.Failures {
		fmt.Println("no cosignature from", f.Name)
	}
	// Output:
	// size 1 cosigned by 1 witness: example.org/witness
	// no cosignature from down
}
