package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
