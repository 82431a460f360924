package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// Stdin is the file name of the documents read from standard input ("-f
// -"), in errors: kubectl's name for it.
const Stdin = "STDIN"

// Extensions are the file extensions read from a directory, as kubectl's.
// A file named on the command line is read whatever its extension.
var Extensions = []string{".yaml", ".yml", ".json"}

// Read returns the documents of every path: a file, a directory (its
// manifest files in lexical order; subdirectories too when recursive) or "-"
// for stdin. Empty documents are skipped, and a v1 List is expanded into its
// items. Every file that cannot be read or split is reported, all at once.
// A URL is an error: ReadFetching reads them.
func Read(paths []string, recursive bool, stdin io.Reader) ([]Document, error) {
	return ReadFetching(paths, recursive, stdin, nil)
}

// Fetch returns the bytes at an http:// or https:// URL.
type Fetch func(url string) ([]byte, error)

// IsURL says whether a -f argument is a URL that kubectl would fetch: it
// starts with http:// or https://.
func IsURL(p string) bool {
	return strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://")
}

// ReadFetching is Read with http:// and https:// URLs read through fetch
// (nil: URLs are an error). A URL's documents are named by the URL.
func ReadFetching(paths []string, recursive bool, stdin io.Reader, fetch Fetch) ([]Document, error) {
	var docs []Document
	var errs []error
	stdinRead := false
	for _, p := range paths {
		switch {
		case p == "-":
			if stdinRead {
				errs = append(errs, errors.New("standard input (-) given more than once"))
				continue
			}
			stdinRead = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				errs = append(errs, fmt.Errorf("read standard input: %w", err))
				continue
			}
			d, err := Split(Stdin, data)
			docs = append(docs, d...)
			errs = append(errs, err)
		case IsURL(p) && fetch != nil:
			data, err := fetch(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			d, err := Split(p, data)
			docs = append(docs, d...)
			errs = append(errs, err)
		case strings.Contains(p, "://") && fetch == nil:
			errs = append(errs, fmt.Errorf("%s: URLs are not supported; download the file first", p))
		case strings.Contains(p, "://"):
			errs = append(errs, fmt.Errorf("%s: only http:// and https:// URLs are read; download the file first", p))
		default:
			d, err := readPath(p, recursive)
			docs = append(docs, d...)
			errs = append(errs, err)
		}
	}
	return docs, errors.Join(errs...)
}

func readPath(root string, recursive bool) ([]Document, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, unwrapPathError(err))
	}
	if !st.IsDir() {
		return readFile(root)
	}
	var docs []Document
	var errs []error
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, unwrapPathError(err)))
			return nil
		}
		if d.IsDir() {
			if path != root && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if !hasManifestExtension(path) {
			return nil
		}
		fileDocs, err := readFile(path)
		docs = append(docs, fileDocs...)
		errs = append(errs, err)
		return nil
	})
	errs = append(errs, err)
	return docs, errors.Join(errs...)
}

func hasManifestExtension(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range Extensions {
		if ext == e {
			return true
		}
	}
	return false
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func readFile(path string) ([]Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return Split(path, data)
}

// Split cuts a stream into documents at "---" lines, remembering the line
// each starts on. JSON is a single document. Documents with nothing but
// comments and blank lines are dropped; v1 Lists are expanded.
func Split(file string, data []byte) ([]Document, error) {
	var docs []Document
	start, line := 0, 1
	docLine := 1
	emit := func(end int) {
		chunk := data[start:end]
		if !blank(chunk) {
			docs = append(docs, Document{File: file, Line: docLine, Data: chunk})
		}
	}
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		if isSeparator(data[i:next]) {
			emit(i)
			start = next
			docLine = line + 1
		}
		line++
		i = next
	}
	emit(len(data))
	var out []Document
	var errs []error
	for _, d := range docs {
		items, err := expandList(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, items...)
	}
	return out, errors.Join(errs...)
}

// isSeparator reports whether line is a YAML document separator: "---"
// alone or followed by a space or comment.
func isSeparator(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}

// blank reports whether a document holds nothing but whitespace, comments
// and document markers.
func blank(doc []byte) bool {
	for _, l := range bytes.Split(doc, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' && !bytes.Equal(l, []byte("...")) {
			return false
		}
	}
	return true
}

// expandList turns a "kind: List" document (what kubectl get -o yaml prints
// for several objects) into one document per item, each starting at the
// item's line. Any other document is returned as it is.
func expandList(d Document) ([]Document, error) {
	if !bytes.Contains(d.Data, []byte("List")) { // cheap pre-check: most documents are not lists
		return []Document{d}, nil
	}
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(d.Data, &root); err != nil || len(root.Content) == 0 {
		return []Document{d}, nil // DecodeStrict reports syntax errors with their line
	}
	top := root.Content[0]
	if top.Kind != yamlv3.MappingNode {
		return []Document{d}, nil
	}
	var kind string
	var items *yamlv3.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch top.Content[i].Value {
		case "kind":
			kind = top.Content[i+1].Value
		case "items":
			items = top.Content[i+1]
		}
	}
	if kind != "List" || items == nil {
		return []Document{d}, nil
	}
	if items.Kind != yamlv3.SequenceNode {
		return nil, &Error{File: d.File, Line: d.Line + items.Line - 1, Field: "items", Err: errors.New("must be a list")}
	}
	out := make([]Document, 0, len(items.Content))
	for _, item := range items.Content {
		data, err := yamlv3.Marshal(item)
		if err != nil {
			return nil, &Error{File: d.File, Line: d.Line + item.Line - 1, Err: err}
		}
		out = append(out, Document{File: d.File, Line: d.Line + item.Line - 1, Data: data})
	}
	return out, nil
}
