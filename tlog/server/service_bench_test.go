package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote/signednotetest"
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
	s, _, _ := signednotetest.LogKey(b, testOnlyLogSeed, testOrigin)
	ctx := context.Background()
	store := posix.New(filepath.Join(b.TempDir(), "log"))
	lg := tlog.Open(store, s.Verifier())
	if _, err := lg.Init(ctx, s); err != nil {
		b.Fatal(err)
	}
	ap, err := lg.NewAppender(ctx, s, server.AppenderOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer ap.Close(ctx)
	srv := httptest.NewServer(server.New(server.Config{Log: lg, Storage: store, Appender: ap, Admit: server.AdmitEvidence(nil)}))
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

// distinctBundles returns n distinct valid bundles: the example run on n
// operating systems, each sealed again.
func distinctBundles(b *testing.B, n int) [][]byte {
	b.Helper()
	base := bundletest.Example(b)
	out := make([][]byte, n)
	for i := range out {
		v := base.Clone()
		v.Path("evidence", "run", "environment").Set("os", canonjson.NewString(fmt.Sprintf("bench-%d", i)))
		if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
			b.Fatal(err)
		}
		data, err := canonjson.Compact(v)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = data
	}
	return out
}
