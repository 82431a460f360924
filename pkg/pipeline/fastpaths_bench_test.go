package pipeline_test

import (
	"encoding/json"
	"io"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/yaml11"
)

// BenchmarkEncoders writes the member objects of the 2,000-deployment
// corpus (10 members) once per iteration with fedctl's encoders and with
// the libraries they shadow, for the gains quoted in README.md
// ("Performance").
func BenchmarkEncoders(b *testing.B) {
	in := inputFor(b, 2000)
	var targets []render.Target
	renderCorpus(b, in, func(t []render.Target) error { targets = t; return nil })
	b.Logf("%d member objects", len(targets))
	b.Run("yaml11.AppendMarshal", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			for _, t := range targets {
				var ok bool
				if buf, ok = yaml11.AppendMarshal(buf[:0], t.Object); !ok {
					b.Fatal("refused")
				}
			}
		}
	})
	b.Run("sigs.k8s.io/yaml.Marshal", func(b *testing.B) {
		for b.Loop() {
			for _, t := range targets {
				if _, err := yaml.Marshal(t.Object); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("printers.RenderedYAML", func(b *testing.B) {
		for b.Loop() {
			if err := printers.RenderedYAML(io.Discard, targets); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("printers.RenderedJSON", func(b *testing.B) {
		for b.Loop() {
			if err := printers.RenderedJSON(io.Discard, targets); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json.Marshal", func(b *testing.B) {
		for b.Loop() {
			for _, t := range targets {
				if _, err := json.Marshal(t.Object); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
