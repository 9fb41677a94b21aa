package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
)

// BenchmarkServeAdd measures integration throughput of the log service on
// a POSIX log: b.N distinct valid bundles submitted over loopback HTTP by
// parallel clients, each answered with its reference once a checkpoint
// covers it (strict reading, validation, appending, proof). It reports
// submissions/s.
func BenchmarkServeAdd(b *testing.B) {
	skey, _, err := signednote.GenerateKey(bytes.NewReader(testOnlyLogKeySeed), signednote.TypeEd25519, testLogOrigin)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := signednote.ParseLogSigner(skey)
	ctx := context.Background()
	store := posix.New(filepath.Join(b.TempDir(), "log"))
	lg := tlog.Open(store, s.Verifier())
	if _, err := lg.Init(ctx, s); err != nil {
		b.Fatal(err)
	}
	ap, err := lg.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: serveBatchSize, BatchMaxAge: serveBatchAge, GCInterval: serveGCInterval})
	if err != nil {
		b.Fatal(err)
	}
	defer ap.Close(ctx)
	srv := httptest.NewServer(server.New(server.Config{Log: lg, Storage: store, Appender: ap, Admit: newAdmitter(), Reference: referenceJSON}))
	defer srv.Close()
	bodies := distinctBundles(b, b.N)
	var next atomic.Int64
	b.SetParallelism(128)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1) - 1
			resp, err := srv.Client().Post(srv.URL+"/add", "application/json", bytes.NewReader(bodies[i]))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
}
