package convert

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/printers"
)

// karmadaScript and argoCDScript register the members with the other
// system.
const (
	karmadaScript = "join-clusters.sh"
	argoCDScript  = "register-clusters.sh"
)

// registrationScript is a shell script running each registration's
// command, after a comment saying what it does.
func registrationScript(comment string, regs []Registration) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# " + comment + "\nset -e\n")
	for _, r := range regs {
		b.WriteString(r.Command + "\n")
	}
	return []byte(b.String())
}

// karmadaMarker lists the files the last "convert --to karmada
// --output-dir" wrote. A directory with it may be rewritten (the files it
// lists and no longer wanted are removed, so that a policy whose object
// left the input does not linger); any other non-empty directory is
// refused, so that a mistyped path never loses files.
const karmadaMarker = ".fedctl-convert"

// writeKarmadaDir writes one file per document under dir,
// NAMESPACE/KIND_NAME.yaml (cluster-scoped ones under _cluster/), and
// join-clusters.sh with the members' registration commands; it returns
// the files written, relative to dir and sorted.
func writeKarmadaDir(dir string, docs []map[string]any, clusters []Registration) ([]string, error) {
	old, err := previousFiles(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, d := range docs {
		meta, _ := d["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		kind, _ := d["kind"].(string)
		rel := printers.TreeFile(ns, kind, name)
		if _, dup := files[rel]; dup {
			return nil, fmt.Errorf("internal error, please report: two documents for %s", rel)
		}
		data, err := printers.EncodeYAML(d)
		if err != nil {
			return nil, err
		}
		files[rel] = data
	}
	files[karmadaScript] = registrationScript("Registers the members with Karmada (Push mode), under the names the policies use.\n# Run with KUBECONFIG pointing at the Karmada control plane.", clusters)

	written := slices.Sorted(maps.Keys(files))
	for _, rel := range written {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := writeFileAtomic(filepath.Join(dir, rel), files[rel], mode); err != nil {
			return nil, fmt.Errorf("--output-dir: %w", err)
		}
	}
	for _, rel := range old {
		if _, ok := files[rel]; ok {
			continue
		}
		if err := os.Remove(filepath.Join(dir, rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--output-dir: %w", err)
		}
		// An emptied namespace directory goes too; one with other files
		// stays (Remove fails on it, which is what we want).
		_ = os.Remove(filepath.Dir(filepath.Join(dir, rel)))
	}
	marker := "# Written by fedctl convert --to karmada; the files listed here are replaced on every run.\n" + strings.Join(written, "\n") + "\n"
	if err := writeFileAtomic(filepath.Join(dir, karmadaMarker), []byte(marker), 0o644); err != nil {
		return nil, fmt.Errorf("--output-dir: %w", err)
	}
	return written, nil
}

// previousFiles are the files the marker in dir lists; a new or empty dir
// has none, and a non-empty one without the marker is refused.
func previousFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist), err == nil && len(entries) == 0:
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("--output-dir: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, karmadaMarker))
	if err != nil {
		return nil, fmt.Errorf("--output-dir %s is not empty and was not written by fedctl convert --to karmada; choose an empty or new directory", dir)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Only paths inside dir: the marker is a file anyone can edit.
		if clean := filepath.Clean(line); !filepath.IsAbs(clean) && !strings.HasPrefix(clean, "..") {
			out = append(out, clean)
		}
	}
	return out, nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that a reader (git, Argo CD) never sees half a file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
