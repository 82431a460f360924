package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

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
}

// Read returns the documents of -f or -k. ctx cancels the fetch of URLs
// (Ctrl-C); a kustomization is built from disk and is not cancelled.
func Read(ctx context.Context, o Options) ([]manifest.Document, error) {
	switch {
	case o.Kustomize != "" && len(o.Filenames) > 0:
		return nil, errors.New("-f and -k cannot be used together")
	case o.Kustomize != "":
		return Kustomize(o.Kustomize)
	case len(o.Filenames) == 0:
		return nil, errors.New("no manifests given: use -f FILE, -f DIR, -f URL, -f - or -k DIR")
	}
	return manifest.ReadFetching(o.Filenames, o.Recursive, o.Stdin, o.fetcher(ctx))
}

// KustomizeSuffix follows the kustomization directory in the name of its
// output's documents: errors say "DIR (kustomize output):LINE", the line in
// the built stream, as kustomize keeps no source positions.
const KustomizeSuffix = " (kustomize output)"

// Kustomize builds the kustomization in dir as kubectl's -k does (krusty,
// default options, on disk) and splits its output into documents named
// "DIR (kustomize output)".
func Kustomize(dir string) ([]manifest.Document, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("-k %s: %w", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("-k %s: %w", dir, err)
	}
	return manifest.Split(dir+KustomizeSuffix, out)
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
