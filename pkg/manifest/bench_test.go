package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
)

// BenchmarkDecodeStrict decodes every document of testdata/examples, or of
// the directory $FEDCTL_BENCH_DOCS (such as the render corpus that
// "make bench-render" writes to .cache/bench-corpus/manifests), once per
// iteration, with the fast path and with the reference decoder it stands in
// for (README.md, "Performance").
func BenchmarkDecodeStrict(b *testing.B) {
	dir := "../../testdata/examples"
	if d := os.Getenv("FEDCTL_BENCH_DOCS"); d != "" {
		dir = d
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var docs []manifest.Document
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		d, err := manifest.Split(e.Name(), data)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d...)
	}
	b.Logf("%d documents", len(docs))
	for _, bm := range []struct {
		name   string
		decode func(manifest.Document, any) (manifest.Positions, error)
	}{
		{"fast path", manifest.DecodeStrict},
		{"reference", manifest.DecodeStrictReference},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					var out any = &federation.Object{}
					if strings.Contains(string(d.Data), "\nkind: ReplicaSchedulingPreference") {
						out = &federation.ReplicaSchedulingPreference{}
					}
					if _, err := bm.decode(d, out); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
