package printers

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// treeMarker is written at the top of a --output-dir tree. A directory with
// it was written by fedctl and may be rewritten; any other non-empty
// directory is refused, so a mistyped path never loses files.
const treeMarker = ".fedctl-render"

// WriteTree writes one YAML file per member object under dir:
// CLUSTER/NAMESPACE/KIND_NAME.yaml, with cluster-scoped objects under
// CLUSTER/_cluster/ and KIND lower-case. The directories of the given
// clusters are replaced whole, so objects that are no longer rendered
// disappear, as GitOps tools need.
func WriteTree(dir string, clusters []string, targets []render.Target) error {
	if err := prepareTree(dir); err != nil {
		return err
	}
	for _, c := range clusters {
		if err := os.RemoveAll(filepath.Join(dir, c)); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	}
	made := map[string]bool{}
	s := sharedMaps(targets, 0)
	var data []byte
	for _, t := range targets {
		ns := t.Namespace()
		if ns == "" {
			ns = "_cluster"
		}
		sub := filepath.Join(dir, t.Cluster, ns)
		if !made[sub] {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return fmt.Errorf("--output-dir: %w", err)
			}
			made[sub] = true
		}
		var err error
		if data, err = appendYAML(data[:0], t.Object, s); err != nil {
			return fmt.Errorf("cluster %s: encode %s: %w", t.Cluster, t.Source.ID(), err)
		}
		name := strings.ToLower(t.Type.Kind) + "_" + t.Name() + ".yaml"
		if err := os.WriteFile(filepath.Join(sub, name), data, 0o644); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	}
	return nil
}

// PruneTree removes from a tree WriteTree wrote the directories of clusters
// that are no longer members, so that a GitOps tool reading the tree stops
// deploying to them, and returns their names, sorted. Other entries (files,
// hidden directories) are left alone; a directory WriteTree did not write
// is refused.
func PruneTree(dir string, members []string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, treeMarker)); err != nil {
		return nil, fmt.Errorf("--output-dir %s was not written by fedctl render; nothing removed", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--output-dir: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || slices.Contains(members, e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return removed, fmt.Errorf("--output-dir: %w", err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

func prepareTree(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	case err != nil:
		return fmt.Errorf("--output-dir: %w", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, treeMarker)); err != nil {
			return fmt.Errorf("--output-dir %s is not empty and was not written by fedctl render; choose an empty or new directory", dir)
		}
	}
	return os.WriteFile(filepath.Join(dir, treeMarker), []byte("# Written by fedctl render; the cluster directories here are replaced on every run.\n"), 0o644)
}
