package manifest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// Stdin is the file name of the documents read from standard input ("-f
// -"), in errors: kubectl's name for it.
const Stdin = "STDIN"

// Extensions are the file extensions read from a directory, as kubectl's.
// A file named on the command line is read whatever its extension.
var Extensions = []string{".yaml", ".yml", ".json"}

// Read returns the documents of every path: a file, a directory (its
// manifest files in lexical order; subdirectories too when recursive) or "-"
// for stdin. Empty documents are skipped, and a List (any kind ending in
// List, with items) is expanded into its items. Every file that cannot be read or split is reported, all at once.
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
			if err == nil {
				data, err = utf8Text(data)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("read standard input: %w", err))
				continue
			}
			d, err := Split(Stdin, data)
			docs = append(docs, d...)
			errs = append(errs, err)
		case IsURL(p) && fetch != nil:
			data, err := fetch(p)
			if err == nil {
				if data, err = utf8Text(data); err != nil {
					err = fmt.Errorf("%s: %w", p, err)
				}
			}
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
	if errors.Is(err, fs.ErrNotExist) {
		// kubectl reads a path that does not exist as a glob pattern
		// ('manifests/*.yaml', quoted so that the shell left it alone).
		if matches, globErr := filepath.Glob(root); globErr == nil && len(matches) > 0 {
			var docs []Document
			var errs []error
			for _, m := range matches {
				d, err := readPath(m, recursive)
				docs = append(docs, d...)
				errs = append(errs, err)
			}
			return docs, errors.Join(errs...)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, unwrapPathError(err))
	}
	if !st.IsDir() {
		return readFile(root)
	}
	var docs []Document
	var errs []error
	walkRoot := root
	if lst, err := os.Lstat(root); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		// WalkDir does not follow a link at its root: it would see a file
		// without a manifest extension and read nothing. A trailing
		// separator makes the walk start inside the linked directory;
		// the files are still named under root.
		walkRoot = root + string(filepath.Separator)
	}
	err = filepath.WalkDir(walkRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, unwrapPathError(err)))
			return nil
		}
		if d.IsDir() {
			if path != walkRoot && !recursive {
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
	if data, err = utf8Text(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Split(path, data)
}

// utf8Text is data as UTF-8 without a byte order mark, as kubectl reads
// every file (unicode.BOMOverride): a UTF-8 BOM is dropped, and UTF-16
// with its BOM (what Windows PowerShell's ">" writes) is converted, so
// that its "---" separators are seen.
func utf8Text(data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		order := binary.ByteOrder(binary.LittleEndian)
		if data[0] == 0xFE {
			order = binary.BigEndian
		}
		body := data[2:]
		if len(body)%2 != 0 {
			return nil, errors.New("UTF-16 text with an odd number of bytes; save the file as UTF-8")
		}
		units := make([]uint16, len(body)/2)
		for i := range units {
			units[i] = order.Uint16(body[2*i:])
		}
		return []byte(string(utf16.Decode(units))), nil
	}
	return data, nil
}

// Split cuts a stream into documents at "---" lines, remembering the line
// each starts on; what follows "---" on its line ("--- {kind: ...}")
// starts the next document. A stream of JSON objects is cut into one
// document per object, as kubectl reads it. Documents with nothing but
// comments and blank lines are dropped; Lists are expanded (expandList).
func Split(file string, data []byte) ([]Document, error) {
	var docs []Document
	start, line := 0, 1
	docLine := 1
	emit := func(end int) {
		chunk := data[start:end]
		if blank(chunk) {
			return
		}
		if objs, lines := jsonStream(chunk); len(objs) > 1 {
			for i, obj := range objs {
				docs = append(docs, Document{File: file, Line: docLine + lines[i], Data: obj})
			}
			return
		}
		docs = append(docs, Document{File: file, Line: docLine, Data: chunk})
	}
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		if isSeparator(data[i:next]) {
			emit(i)
			if rest := bytes.TrimSpace(data[i+3 : next]); len(rest) > 0 && rest[0] != '#' {
				// "--- {a: 1}": the document starts on this line, after
				// the marker
				start, docLine = i+3, line
			} else {
				start, docLine = next, line+1
			}
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

// jsonStream cuts chunk into its JSON values when it is a stream of
// several (kubectl get -o json | jq -c '.items[]'), with each value's line
// offset within chunk; nil when chunk is not JSON from start to end (YAML,
// or broken JSON, which the decoder then reports with its line).
func jsonStream(chunk []byte) (values [][]byte, lines []int) {
	trimmed := bytes.TrimLeft(chunk, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Valid(chunk) {
		return nil, nil // not JSON, or one value: the usual document
	}
	dec := json.NewDecoder(bytes.NewReader(chunk))
	offset, line := 0, 0
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if err == io.EOF {
				return values, lines
			}
			return nil, nil
		}
		end := int(dec.InputOffset())
		begin := offset + bytes.IndexAny(chunk[offset:end], "{[\"-0123456789tfn")
		values = append(values, chunk[begin:end])
		line += bytes.Count(chunk[offset:begin], []byte("\n")) // from the last value on, not from the start each time
		lines = append(lines, line)
		line += bytes.Count(chunk[begin:end], []byte("\n"))
		offset = end
	}
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
