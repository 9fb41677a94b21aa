package canonjson_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// benchDocs are the documents of the reader and encoder benchmarks: the
// witnessed attested bundle of the batch benchmark (20 KB) and the
// limit-sized bundle (bundletest.Large at MaxLargeOps, Pretty, 4 MB).
var benchDocs = []struct {
	name string
	data func(*testing.B) []byte
}{
	{"witnessed", func(b *testing.B) []byte {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "attestation", "witnessed.json"))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}},
	{"limit", func(b *testing.B) []byte {
		data, err := canonjson.Pretty(bundletest.Large(b, bundletest.MaxLargeOps))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}},
}

func BenchmarkParse(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			data := d.data(b)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canonjson.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDigest(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			data := d.data(b)
			v, err := canonjson.Parse(data)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := canonjson.Digest(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkArenaParse is BenchmarkParse into one arena, reset after each
// document, as a batch parses: only the strings are allocated.
func BenchmarkArenaParse(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			data := d.data(b)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var a canonjson.Arena
			for b.Loop() {
				if _, err := a.Parse(data); err != nil {
					b.Fatal(err)
				}
				a.Reset()
			}
		})
	}
}

// BenchmarkValid is encoding/json.Valid of the same documents: the
// syntax scan of the batch's floor (bench/floor).
func BenchmarkValid(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			data := d.data(b)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !json.Valid(data) {
					b.Fatal("not valid")
				}
			}
		})
	}
}
