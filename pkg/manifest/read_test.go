package manifest_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/manifest"
)

type docPos struct {
	File string
	Line int
	Head string // first non-comment line
}

func positions(docs []manifest.Document) []docPos {
	out := make([]docPos, len(docs))
	for i, d := range docs {
		head := ""
		for _, l := range strings.Split(string(d.Data), "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && t != "---" {
				head = t
				break
			}
		}
		out[i] = docPos{File: d.File, Line: d.Line, Head: head}
	}
	return out
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []docPos
	}{
		{
			name: "documents start on the line after their separator",
			in:   "a: 1\n---\nb: 2\n--- # comment\n\nc: 3\n",
			want: []docPos{{"f", 1, "a: 1"}, {"f", 3, "b: 2"}, {"f", 5, "c: 3"}},
		},
		{
			name: "a leading separator and empty documents are skipped",
			in:   "---\n# only a comment\n---\n\n---\nx: 1\n...\n",
			want: []docPos{{"f", 6, "x: 1"}},
		},
		{
			name: "three dashes inside a value do not split",
			in:   "a: |\n  ---\n  text\nb: ----\n",
			want: []docPos{{"f", 1, "a: |"}},
		},
		{
			name: "CRLF line endings",
			in:   "a: 1\r\n---\r\nb: 2\r\n",
			want: []docPos{{"f", 1, "a: 1"}, {"f", 3, "b: 2"}},
		},
		{
			name: "JSON is one document",
			in:   "{\"a\": 1,\n \"b\": 2}\n",
			want: []docPos{{"f", 1, `{"a": 1,`}},
		},
		{
			name: "a stream of JSON objects is one document per object, at its line",
			in:   "{\"kind\": \"A\"}\n{\"kind\": \"B\",\n \"n\": 1}\n\n  {\"kind\": \"C\"}",
			want: []docPos{{"f", 1, `{"kind": "A"}`}, {"f", 2, `{"kind": "B",`}, {"f", 5, `{"kind": "C"}`}},
		},
		{
			name: "a JSON stream after a separator keeps its lines",
			in:   "a: 1\n---\n{\"b\": 1}{\"c\": 2}\n",
			want: []docPos{{"f", 1, "a: 1"}, {"f", 3, `{"b": 1}`}, {"f", 3, `{"c": 2}`}},
		},
		{
			name: "a document may start on its separator's line",
			in:   "--- {kind: A}\n--- # comment\nkind: B\n---\tkind: C\n",
			want: []docPos{{"f", 1, "{kind: A}"}, {"f", 3, "kind: B"}, {"f", 4, "kind: C"}},
		},
		{
			name: "a List is expanded into its items at their lines",
			in:   "x: 0\n---\napiVersion: v1\nkind: List\nitems:\n- kind: A\n  n: 1\n- kind: B\n",
			want: []docPos{{"f", 1, "x: 0"}, {"f", 6, "kind: A"}, {"f", 8, "kind: B"}},
		},
		{
			name: "a kind merely mentioning List is not expanded",
			in:   "kind: ConfigMap\ndata: {note: List}\n",
			want: []docPos{{"f", 1, "kind: ConfigMap"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := manifest.Split("f", []byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, positions(docs))
		})
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	b := write("b.yaml", "b: 1\n")
	a := write("a.yml", "a: 1\n---\na: 2\n")
	write("notes.txt", "not: read\n")
	j := write("c.JSON", "{\"c\": 1}")
	nested := write("sub/d.yaml", "d: 1\n")
	odd := write("manifest.conf", "e: 1\n")

	docs, err := manifest.Read([]string{dir}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []docPos{{a, 1, "a: 1"}, {a, 3, "a: 2"}, {b, 1, "b: 1"}, {j, 1, `{"c": 1}`}}, positions(docs), "lexical order, manifest extensions only, no subdirectories")

	docs, err = manifest.Read([]string{dir}, true, nil)
	require.NoError(t, err)
	assert.Equal(t, []docPos{{a, 1, "a: 1"}, {a, 3, "a: 2"}, {b, 1, "b: 1"}, {j, 1, `{"c": 1}`}, {nested, 1, "d: 1"}}, positions(docs), "-R adds subdirectories")

	docs, err = manifest.Read([]string{odd, "-"}, false, strings.NewReader("s: 1\n"))
	require.NoError(t, err)
	assert.Equal(t, []docPos{{odd, 1, "e: 1"}, {"STDIN", 1, "s: 1"}}, positions(docs), "a named file is read whatever its extension; - is stdin, named STDIN as kubectl names it")

	_, err = manifest.Read([]string{filepath.Join(dir, "missing.yaml"), "https://example.com/x.yaml", "-", "-"}, false, strings.NewReader(""))
	require.Error(t, err)
	assert.Equal(t, []string{
		filepath.Join(dir, "missing.yaml") + ": no such file or directory",
		"https://example.com/x.yaml: URLs are not supported; download the file first",
		"standard input (-) given more than once",
	}, strings.Split(err.Error(), "\n"), "every problem is reported")
}

// TestReadEncodings: files are read as kubectl reads them: a UTF-8 byte
// order mark is dropped, and UTF-16 with its mark is converted, so that
// every document of a file PowerShell wrote is read.
func TestReadEncodings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom.yaml")
	require.NoError(t, os.WriteFile(bom, []byte("\uFEFF# header\n---\nkind: A\n---\nkind: B\n"), 0o644))
	utf16le := filepath.Join(dir, "utf16.yaml")
	text := []rune("kind: A\r\n---\r\nkind: B\r\n")
	data := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode(text) {
		data = binary.LittleEndian.AppendUint16(data, u)
	}
	require.NoError(t, os.WriteFile(utf16le, data, 0o644))

	docs, err := manifest.Read([]string{bom, utf16le}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []docPos{{bom, 3, "kind: A"}, {bom, 5, "kind: B"}, {utf16le, 1, "kind: A"}, {utf16le, 3, "kind: B"}}, positions(docs))

	odd := filepath.Join(dir, "odd.yaml")
	require.NoError(t, os.WriteFile(odd, []byte{0xFF, 0xFE, 'k'}, 0o644))
	_, err = manifest.Read([]string{odd}, false, nil)
	require.ErrorContains(t, err, odd+": UTF-16 text with an odd number of bytes")
}

// TestReadPaths: a link to a directory is read as the directory (not as
// one file without a manifest extension, which read nothing), and a path
// that does not exist is a glob pattern, as kubectl takes it.
func TestReadPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "real"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "a.yaml"), []byte("kind: A\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "b.yaml"), []byte("kind: B\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "c.txt"), []byte("kind: C\n"), 0o644))
	link := filepath.Join(dir, "overlays")
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), link))

	docs, err := manifest.Read([]string{link}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []docPos{{filepath.Join(link, "a.yaml"), 1, "kind: A"}, {filepath.Join(link, "b.yaml"), 1, "kind: B"}}, positions(docs))

	docs, err = manifest.Read([]string{filepath.Join(dir, "real", "*.yaml")}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []docPos{{filepath.Join(dir, "real", "a.yaml"), 1, "kind: A"}, {filepath.Join(dir, "real", "b.yaml"), 1, "kind: B"}}, positions(docs))

	_, err = manifest.Read([]string{filepath.Join(dir, "real", "*.json")}, false, nil)
	require.ErrorContains(t, err, "*.json: no such file or directory", "a pattern that matches nothing is a missing file")
}

// TestParseRefusesASecondDocument: a document that holds a second one
// yaml.v3 would ignore (after "...", or after a flow root) is an error at
// the line where it starts, instead of its objects being left out.
func TestParseRefusesASecondDocument(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"kind: A\n...\nkind: B\n", "{kind: A}\n{kind: B}\n", "{\"kind\": \"A\"} trailing"} {
		docs, err := manifest.Split("f", []byte(in))
		require.NoError(t, err)
		require.Len(t, docs, 1, in)
		_, err = manifest.Parse(docs[0])
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "separate documents with a \"---\" line", in)
		assert.Regexp(t, `^f:\d+: `, err.Error())
	}
	for _, in := range []string{"kind: A\n...\n# only a comment\n", "{kind: A}\n# comment\n", "a: \"x\\n...\"\n"} {
		docs, err := manifest.Split("f", []byte(in))
		require.NoError(t, err)
		_, err = manifest.Parse(docs[0])
		assert.NoError(t, err, in)
	}
}

// TestMayHoldMore: only the documents that may hide a second one are
// parsed a second time; a JSON object (a flow root) is not.
func TestMayHoldMore(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"kind: A\n":                           false,
		"{\"kind\": \"A\", \"n\": [1, 2]}\n":  false,
		"{kind: A}\n":                         true,
		"{\"kind\": \"A\"} {\"kind\": \"B\"}": true,
		"kind: A\n...\n":                      true,
	} {
		assert.Equal(t, want, manifest.MayHoldMore([]byte(in)), in)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte("a: 1\n---\nb: 2\n"))
	f.Add([]byte("kind: List\nitems:\n- a: 1\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := manifest.Split("f", data)
		for _, d := range docs {
			if d.Line < 1 {
				t.Fatalf("document line %d < 1", d.Line)
			}
		}
	})
}
