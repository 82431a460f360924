package printers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
// clusters end up holding exactly these files, so objects that are no longer
// rendered disappear, as GitOps tools need; every target's cluster must be
// among clusters.
//
// The tree is updated, not rebuilt: a file that already holds the right
// bytes is left alone, so a run that changes a few objects of a large tree
// (the usual run) writes only those and keeps the other files' modification
// times, and a file with other bytes is rewritten in place (writeFile says
// why). Files are written one at a time, in the order of targets.
func WriteTree(dir string, clusters []string, targets []render.Target) error {
	if err := prepareTree(dir); err != nil {
		return err
	}
	w := &treeWriter{dir: dir, kept: map[string]bool{}, made: map[string]bool{}}
	var err error
	if w.old, err = listClusterDirs(dir, clusters); err != nil {
		return fmt.Errorf("--output-dir: %w", err)
	}
	s := sharedMaps(targets, 0)
	var data []byte
	for _, t := range targets {
		if !slices.Contains(clusters, t.Cluster) {
			return fmt.Errorf("--output-dir: cluster %s of %s is not among the clusters written", t.Cluster, t.Source.ID())
		}
		if data, err = appendYAML(data[:0], t.Object, s); err != nil {
			return fmt.Errorf("cluster %s: encode %s: %w", t.Cluster, t.Source.ID(), err)
		}
		rel := filepath.Join(t.Cluster, TreeFile(t.Namespace(), t.Type.Kind, t.Name()))
		if err := w.makeDir(filepath.Dir(rel)); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
		if err := w.writeFile(rel, data); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	}
	// Every cluster's directory stays, with nothing placed there too: a
	// GitOps tool syncing it then prunes it to empty instead of failing on
	// a path git does not keep.
	for _, c := range clusters {
		if err := w.makeDir(c); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
		if err := w.writeFile(filepath.Join(c, KeepFile), []byte(keepText)); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	}
	if err := w.removeStale(); err != nil {
		return fmt.Errorf("--output-dir: %w", err)
	}
	return nil
}

// KeepFile keeps each cluster's directory of a tree in git when nothing
// is placed there. It is no manifest: Argo CD and Flux read .yaml, .yml
// and .json files only.
const KeepFile = ".fedctl-keep"

const keepText = "# Keeps this member cluster's directory, which a GitOps tool syncs, when fedctl places nothing here.\n"

// TreeFile is where a tree keeps an object of a cluster, relative to the
// cluster's directory: NAMESPACE/KIND_NAME.yaml, cluster-scoped objects
// under _cluster/, KIND lower-case.
func TreeFile(namespace, kind, name string) string {
	if namespace == "" {
		namespace = "_cluster"
	}
	return filepath.Join(namespace, strings.ToLower(kind)+"_"+name+".yaml")
}

// treeWriter brings the cluster directories of a tree to what this run
// renders. Paths are relative to dir.
type treeWriter struct {
	dir string
	// old is what the cluster directories held before this run, with the
	// type of each entry (listClusterDirs).
	old map[string]fs.FileMode
	// kept are the entries of old this run wrote or found right.
	kept map[string]bool
	// made are the directories known to exist as directories.
	made map[string]bool
	// buf holds a file being compared.
	buf []byte
}

// makeDir makes sure that rel and its parents below dir are directories,
// replacing a file or a symbolic link in the way, so that nothing is ever
// written outside dir through a link.
func (w *treeWriter) makeDir(rel string) error {
	if w.made[rel] {
		return nil
	}
	if parent := filepath.Dir(rel); parent != "." {
		if err := w.makeDir(parent); err != nil {
			return err
		}
	}
	path := filepath.Join(w.dir, rel)
	if mode, ok := w.old[rel]; ok {
		w.kept[rel] = true
		if mode.IsDir() {
			w.made[rel] = true
			return nil
		}
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return err
	}
	w.made[rel] = true
	return nil
}

// writeFile writes data to rel unless rel already holds exactly these
// bytes.
//
// A file with other bytes is rewritten in place rather than removed and
// created anew: on ext4 without a journal, each new file's inode is found
// by stepping over every inode deleted in the last minute, one by one
// (recently_deleted in fs/ext4/ialloc.c), so replacing a tree of 18,000
// files cost fedctl 8 to 13 s of kernel time in that loop. Only a regular
// file with no other name is rewritten: a symbolic link is removed, never
// followed out of the tree, and a file hard-linked elsewhere (a backup
// made with cp -al) is replaced, so that the other name keeps its bytes.
func (w *treeWriter) writeFile(rel string, data []byte) error {
	path := filepath.Join(w.dir, rel)
	if mode, ok := w.old[rel]; ok {
		w.kept[rel] = true
		if mode.IsRegular() {
			done, err := w.update(path, data)
			if err != nil || done {
				return err
			}
		}
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	return os.WriteFile(path, data, 0o644)
}

// update brings the regular file at path to data in place, and writes
// nothing when it holds data already. It reports false, having changed
// nothing, when the file has other names or cannot be opened for writing
// (read-only); the caller then replaces it, as a removed directory would
// have been refilled.
func (w *treeWriter) update(path string, data []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if cap(w.buf) < len(data)+1 {
		w.buf = make([]byte, len(data)+1)
	}
	// One byte more than data, to see a longer file.
	n, err := io.ReadFull(f, w.buf[:len(data)+1])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	if bytes.Equal(w.buf[:n], data) {
		return true, nil
	}
	st, err := f.Stat()
	if err != nil || hasOtherNames(st) {
		return false, err
	}
	out, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false, nil
	}
	// Written over, then cut to length, rather than emptied first (O_TRUNC):
	// freeing all of a file's blocks and allocating them again costs more
	// than the write.
	_, err = out.WriteAt(data, 0)
	if err == nil && st.Size() > int64(len(data)) {
		err = out.Truncate(int64(len(data)))
	}
	if err != nil {
		out.Close()
		return false, err
	}
	return true, out.Close()
}

// removeStale removes the entries of the cluster directories that this run
// did not write: objects no longer rendered, namespaces left empty, and
// whatever else someone put there. It runs after every file is written, so
// that no file of this run is created after a deletion (see writeFile).
func (w *treeWriter) removeStale() error {
	var stale []string
	for rel := range w.old {
		if !w.kept[rel] {
			stale = append(stale, rel)
		}
	}
	// Sorted, a directory comes before its entries, which go with it.
	slices.Sort(stale)
	var gone string
	for _, rel := range stale {
		if gone != "" && strings.HasPrefix(rel, gone+string(filepath.Separator)) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(w.dir, rel)); err != nil {
			return err
		}
		gone = rel
	}
	return nil
}

// listClusterDirs returns what the directories of the given clusters hold,
// relative to dir, down to the files in the namespace directories, with
// each entry's type. Deeper entries are not listed: fedctl writes none, and
// their directory is removed whole.
func listClusterDirs(dir string, clusters []string) (map[string]fs.FileMode, error) {
	old := map[string]fs.FileMode{}
	for _, c := range clusters {
		st, err := os.Lstat(filepath.Join(dir, c))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		old[c] = st.Mode().Type()
		if !st.IsDir() {
			continue
		}
		namespaces, err := listDir(dir, c, old)
		if err != nil {
			return nil, err
		}
		for _, ns := range namespaces {
			if _, err := listDir(dir, ns, old); err != nil {
				return nil, err
			}
		}
	}
	return old, nil
}

// listDir adds the entries of the directory rel to old and returns those
// that are directories.
func listDir(dir, rel string, old map[string]fs.FileMode) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		path := filepath.Join(rel, e.Name())
		old[path] = e.Type()
		if e.IsDir() {
			dirs = append(dirs, path)
		}
	}
	return dirs, nil
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
