package printers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/render"
)

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
