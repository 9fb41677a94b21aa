package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"
)

// witness: witness serve's cosignatures per second for one log whose
// checkpoints grow by one entry each (a consistency proof every time),
// sent one after the other, as a log sends them.
func (b *bench) witness() error {
	key, err := b.logKeys()
	if err != nil {
		return err
	}
	skey, err := os.ReadFile(key)
	if err != nil {
		return err
	}
	signer, err := signednote.ParseLogSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		return err
	}
	if _, err := b.run("mcpres", []string{"witness", "keygen", "--name", "bench.example/witness", "--out-base", b.path("witness")}); err != nil {
		return err
	}
	var rates []float64
	var cpus []time.Duration
	loadMax := 0.0
	for i := range b.logRuns() {
		loadMax = max(loadMax, b.settledLoad())
		state := b.path(fmt.Sprintf("witness-state-%d", i))
		srv, err := b.start("mcpres", []string{"witness", "serve", "--key", b.path("witness.key"), "--state", state, "--log", b.path("log.vkey"), "--listen", "127.0.0.1:0"}, nil, witnessLine)
		if err != nil {
			return err
		}
		n, elapsed, err := cosignLoad(srv.url, signer, b.c.duration)
		if serr := srv.stop(); err == nil && serr != nil {
			err = fmt.Errorf("witness serve: %v", serr)
		}
		if err != nil {
			return err
		}
		rates = append(rates, float64(n)/elapsed.Seconds())
		cpus = append(cpus, srv.cpu()/time.Duration(n))
		os.RemoveAll(state)
	}
	bi := 0
	for i, r := range rates {
		if r > rates[bi] {
			bi = i
		}
	}
	var rs []string
	for _, r := range rates {
		rs = append(rs, thousands(int(r+0.5)))
	}
	b.row(fmt.Sprintf("`mcpres witness serve`, one log, checkpoints one entry apart, sent in turn, %v", b.c.duration),
		fmt.Sprintf("%s cosignatures/s (runs: %s/s); server CPU %s per cosignature", thousands(int(rates[bi]+0.5)), strings.Join(rs, ", "), seconds(cpus[bi])),
		"–", "–", "–", loadMax)
	return nil
}

// cosignLoad sends checkpoints of sizes 1, 2, … to the witness at url
// until d has passed and returns how many it cosigned.
func cosignLoad(url string, signer *signednote.LogSigner, d time.Duration) (int, time.Duration, error) {
	tree := testonly.New(rfc6962.DefaultHasher)
	hc := &http.Client{Timeout: time.Minute}
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		tree.AppendData(fmt.Appendf(nil, "bench entry %d", tree.Size()))
		size := tree.Size()
		text := fmt.Sprintf("%s\n%d\n%s\n", signer.Name(), size, base64.StdEncoding.EncodeToString(tree.Hash()))
		cp, err := note.Sign(&note.Note{Text: text}, signer)
		if err != nil {
			return 0, 0, err
		}
		req := &witness.AddRequest{OldSize: size - 1, Checkpoint: cp}
		if size > 1 {
			if req.Proof, err = tree.ConsistencyProof(size-1, size); err != nil {
				return 0, 0, err
			}
		}
		resp, err := hc.Post(url+"/add-checkpoint", "text/plain", bytes.NewReader(req.Marshal()))
		if err != nil {
			return 0, 0, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("add-checkpoint at size %d: %d %s", size, resp.StatusCode, body)
		}
		n++
	}
	return n, time.Since(start), nil
}
