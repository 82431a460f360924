package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/manifest"
)

const (
	// DefaultURLTimeout bounds the fetch of one -f URL.
	DefaultURLTimeout = 30 * time.Second
	// DefaultMaxURLBytes is the most a -f URL may return.
	DefaultMaxURLBytes = 64 << 20
)

// Options says what to read.
type Options struct {
	// Filenames are -f: files, directories, - (Stdin) and URLs.
	Filenames []string
	Recursive bool
	// Kustomize is -k: a kustomization directory; exclusive with Filenames.
	Kustomize string
	Stdin     io.Reader
	// Client fetches URLs; nil: http.DefaultClient.
	Client *http.Client
	// URLTimeout bounds each URL (0: DefaultURLTimeout).
	URLTimeout time.Duration
	// MaxURLBytes limits each URL's body (0: DefaultMaxURLBytes).
	MaxURLBytes int64
	// Warnings receives kustomize's warnings about the kustomization, as
	// fedctl's (see Kustomize); nil drops them.
	Warnings io.Writer
}

// Read returns the documents of -f or -k. ctx cancels the fetch of URLs
// and the build of a kustomization (Ctrl-C).
func Read(ctx context.Context, o Options) ([]manifest.Document, error) {
	switch {
	case o.Kustomize != "" && len(o.Filenames) > 0:
		return nil, errors.New("-f and -k cannot be used together")
	case o.Kustomize != "":
		return Kustomize(ctx, o.Kustomize, o.Warnings)
	case len(o.Filenames) == 0:
		return nil, errors.New("no manifests given: use -f FILE, -f DIR, -f URL, -f - or -k DIR")
	}
	return manifest.ReadFetching(o.Filenames, o.Recursive, o.Stdin, o.fetcher(ctx))
}

// KustomizeSuffix follows the kustomization directory in the name of its
// output's documents: errors say "DIR (kustomize output):LINE", the line in
// the built stream (what "kubectl kustomize DIR" prints), as kustomize
// keeps no source positions.
const KustomizeSuffix = " (kustomize output)"

// Kustomize builds the kustomization in dir as kubectl's -k does (krusty,
// default options, on disk) and splits its output into documents named
// "DIR (kustomize output)", or "DIR (kustomize output of FILE)" when
// kustomize knows the file a resource came from: fedctl asks kustomize to
// track origins (buildMetadata: [originAnnotations]) and removes the
// annotations again unless the kustomization asked for them itself.
//
// What kustomize prints while it builds (the deprecation of bases,
// commonLabels, patchesStrategicMerge and the like; vars never replaced)
// is written to warnings, one "warning: kustomization DIR: MESSAGE" line
// each, DIR being the kustomization that has the deprecated field, else
// dir; nothing reaches the process's stderr as kustomize wrote it (see
// captureOutput). nil warnings drops them.
//
// When ctx ends before the build, Kustomize returns ctx's error at once;
// see build.
func Kustomize(ctx context.Context, dir string, warnings io.Writer) ([]manifest.Document, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	disk := filesys.MakeFsOnDisk()
	fs := &originFS{FileSystem: disk, dir: dir}
	if abs, file, err := disk.CleanedAbs(dir); err == nil && file == "" {
		fs.root = abs.String()
	}
	m, err := build(ctx, fs, dir, warnings)
	if err != nil {
		return nil, fmt.Errorf("-k %s: %w", dir, err)
	}
	// The output is built as ResMap.AsYaml builds it, remembering where
	// each resource starts and where it came from.
	var out bytes.Buffer
	type span struct {
		line   int
		origin string
	}
	var spans []span
	line := 1
	for i, r := range m.Resources() {
		origin, _ := r.GetOrigin()
		if fs.injected {
			if err := r.SetOrigin(nil); err != nil {
				return nil, fmt.Errorf("-k %s: %w", dir, err)
			}
			if len(r.GetAnnotations()) == 0 {
				_ = r.SetAnnotations(nil)
			}
		}
		y, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("-k %s: %w", dir, err)
		}
		if i > 0 {
			out.WriteString("---\n")
			line++
		}
		s := span{line: line}
		if origin != nil && origin.Path != "" && origin.Repo == "" {
			s.origin = filepath.Join(dir, origin.Path)
		}
		spans = append(spans, s)
		out.Write(y)
		line += bytes.Count(y, []byte("\n"))
	}
	docs, err := manifest.Split(dir+KustomizeSuffix, out.Bytes())
	for i := range docs {
		docs[i].Kustomization = dir
		j := sort.Search(len(spans), func(j int) bool { return spans[j].line > docs[i].Line }) - 1
		if j >= 0 && spans[j].origin != "" {
			docs[i].File = dir + " (kustomize output of " + spans[j].origin + ")"
		}
	}
	return docs, err
}

// originFS is the disk with the top kustomization of a build asking
// kustomize to track where each resource came from
// (buildMetadata: [originAnnotations]); injected says that fedctl asked,
// not the kustomization. It also notes the deprecated fields of every
// kustomization kustomize reads (see noteDeprecations).
type originFS struct {
	filesys.FileSystem
	// dir is -k's directory as given; root, the same made absolute, as
	// kustomize names the files it reads.
	dir, root string
	injected  bool

	mu          sync.Mutex
	deprecation []deprecation
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || !slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path)) {
		return data, err
	}
	f.noteDeprecations(path, data)
	if f.root == "" || filepath.Dir(path) != f.root {
		return data, nil
	}
	var k map[string]any
	if yaml.Unmarshal(data, &k) != nil || k == nil {
		return data, nil // kustomize reports it
	}
	meta, _ := k["buildMetadata"].([]any)
	for _, v := range meta {
		if v == types.OriginAnnotations {
			return data, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	changed, err := yaml.Marshal(k)
	if err != nil {
		return data, nil
	}
	f.injected = true
	return changed, nil
}

func (o Options) fetcher(ctx context.Context) manifest.Fetch {
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	timeout := o.URLTimeout
	if timeout <= 0 {
		timeout = DefaultURLTimeout
	}
	limit := o.MaxURLBytes
	if limit <= 0 {
		limit = DefaultMaxURLBytes
	}
	return func(url string) ([]byte, error) {
		return fetch(ctx, client, url, timeout, limit)
	}
}

// fetch GETs url within timeout, refusing a status other than 2xx and a
// body larger than limit.
func fetch(ctx context.Context, client *http.Client, url string, timeout time.Duration, limit int64) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(ctx, url, timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%s: the server answered %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fetchError(ctx, url, timeout, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %s, the most fedctl reads from a URL", url, sizeString(limit))
	}
	return data, nil
}

// fetchError names what stopped a fetch: the timeout, an interrupt, or the
// transport's error.
func fetchError(ctx context.Context, url string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: no complete answer within %s", url, timeout)
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s: interrupted", url)
	}
	return fmt.Errorf("%s: %w", url, err)
}

func sizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
