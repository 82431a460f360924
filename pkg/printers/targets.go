package printers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/fedctl/fedctl/pkg/render"
)

// RenderedYAML writes member objects as YAML documents, each preceded by
// "---" and "# Source: CLUSTER", in the order given.
func RenderedYAML(w io.Writer, targets []render.Target) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := sharedMaps(targets, 0)
	var data []byte
	for _, t := range targets {
		var err error
		if data, err = appendYAML(data[:0], t.Object, s); err != nil {
			return fmt.Errorf("cluster %s: encode %s: %w", t.Cluster, t.Source.ID(), err)
		}
		bw.WriteString("---\n# Source: ")
		bw.WriteString(t.Cluster)
		bw.WriteByte('\n')
		bw.Write(data)
	}
	return bw.Flush()
}

// RenderedJSON writes member objects grouped by cluster:
//
//	{"apiVersion": "fedctl.io/v1alpha1", "kind": "RenderedObjects",
//	 "clusters": [{"name": "c1", "objects": [...]}, ...]}
//
// targets must be sorted by cluster. Objects are encoded one at a time, so
// memory does not grow with the output.
func RenderedJSON(w io.Writer, targets []render.Target) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"apiVersion":"fedctl.io/v1alpha1","kind":"RenderedObjects","clusters":[`)
	s := sharedMaps(targets, sharedDepth)
	var data []byte
	for i, t := range targets {
		if i == 0 || targets[i-1].Cluster != t.Cluster {
			if i > 0 {
				bw.WriteString("]},")
			}
			name, _ := json.Marshal(t.Cluster)
			fmt.Fprintf(bw, "\n{\"name\":%s,\"objects\":[\n", name)
		} else {
			bw.WriteString(",\n")
		}
		var err error
		if data, err = appendJSON(data[:0], t.Object, s); err != nil {
			return fmt.Errorf("cluster %s: encode %s: %w", t.Cluster, t.Source.ID(), err)
		}
		bw.Write(data)
	}
	if len(targets) > 0 {
		bw.WriteString("]}")
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}
