package members

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// FileMode is the mode of a federation file. It holds no credentials, but it
// names kubeconfig files and contexts, which are nobody else's business.
const FileMode fs.FileMode = 0o600

// DefaultPath is where the federation file lives when neither --config nor
// FEDCTL_CONFIG says otherwise: $XDG_CONFIG_HOME/fedctl/config.yaml, which is
// ~/.config/fedctl/config.yaml on Linux.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find the federation file: %w; set --config or FEDCTL_CONFIG", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "fedctl", "config.yaml"), nil
}

// File is a federation file on disk and its decoded content.
type File struct {
	Path       string
	Federation *Federation
	// Missing says no file was found at Path: an empty federation.
	Missing bool
	// Named says Path was given (--config, FEDCTL_CONFIG) rather than the
	// default: a missing file is then most likely a wrong path.
	Named bool
	// pos locates the fields of the file as loaded.
	pos manifest.Positions
	// read is the file's content as loaded (nil: missing), for Save to
	// tell whether another writer changed it since.
	read []byte
}

// ChangedError says the federation file changed between the command's
// read and its write: another fedctl (join in a CI matrix, say) wrote it,
// and writing over it would lose that change.
type ChangedError struct{ Path string }

func (e *ChangedError) Error() string {
	return fmt.Sprintf("federation file %s changed since this command read it (another fedctl wrote it?); nothing was written: run the command again", e.Path)
}

// Errorf is an error at path's line of the file as loaded ("rollout.waves"),
// for problems found after loading; without a file, at its path.
func (f *File) Errorf(path, format string, args ...any) error {
	if f.pos.File() == "" {
		return fmt.Errorf("%s: %s: %s", f.Path, path, fmt.Sprintf(format, args...))
	}
	return f.pos.Errorf(path, format, args...)
}

// Load reads the federation file at path. A file that does not exist is an
// empty federation, so the first "fedctl join" needs no setup.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{Path: path, Federation: New(), Missing: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read federation file: %w", err)
	}
	fed, pos, err := decode(manifest.Document{File: path, Line: 1, Data: data})
	if err != nil {
		return nil, err
	}
	return &File{Path: path, Federation: fed, pos: pos, read: data}, nil
}

// Encode renders fed as YAML in the documented field order, two-space
// indented, ending with one newline.
func Encode(fed *Federation) ([]byte, error) {
	var buf bytes.Buffer
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(fed); err != nil {
		return nil, fmt.Errorf("encode federation file: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode federation file: %w", err)
	}
	return buf.Bytes(), nil
}

// Dir is the directory of the federation file at path, a symbolic link
// followed (as Save follows it): relative kubeconfig paths in the file are
// relative to where the file really is, beside the kubeconfigs in its git
// checkout, not to where a link to it sits.
func Dir(path string) string {
	return filepath.Dir(realPath(path))
}

// realPath is path with symbolic links followed, or path itself when it
// does not resolve (a file not written yet).
func realPath(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	return path
}

// Save writes fed to the file atomically: it writes a temporary file with
// mode 0600 next to it, syncs it and renames it over the old one, so a reader
// or a crash never sees a half-written file. A symbolic link at Path is
// followed, so a federation file linked from a git checkout stays a link.
func (f *File) Save(fed *Federation) error {
	data, err := Encode(fed)
	if err != nil {
		return err
	}
	target := realPath(f.Path)
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write federation file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write federation file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if err := writeSynced(tmp, data); err != nil {
		return fmt.Errorf("write federation file %s: %w", f.Path, err)
	}
	// Last, to keep the window small: a change by another writer since
	// Load is not written over (a lock would outlive a killed fedctl).
	now, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if f.read != nil {
			return &ChangedError{Path: f.Path}
		}
	case err != nil:
		return fmt.Errorf("write federation file: %w", err)
	case f.read == nil || !bytes.Equal(now, f.read):
		return &ChangedError{Path: f.Path}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("write federation file: %w", err)
	}
	// Make the rename itself durable; not every platform can sync a
	// directory, and the file is already complete, so this is best effort.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	f.Federation, f.read, f.Missing = fed, data, false
	return nil
}

func writeSynced(tmp *os.File, data []byte) error {
	if err := tmp.Chmod(FileMode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	return tmp.Close()
}
