package testenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults say what a FaultProxy does to the requests it forwards. The zero
// value forwards everything untouched.
type Faults struct {
	// Paths limits the faults to requests whose URL path starts with one
	// of these ("/apis/apps/v1/namespaces/"); nil means every request.
	Paths []string
	// ExactPaths makes Paths match whole paths only: "/api" and "/apis"
	// are then the discovery documents and nothing below them.
	ExactPaths bool
	// Methods limits them to these methods (GET, PATCH, ...); nil: all.
	Methods []string
	// Rate is the share of matching requests that get the fault, drawn
	// from a generator seeded with Seed; 0 means every one.
	Rate float64
	Seed uint64
	// Times stops the faults after that many; 0 means no limit.
	Times int

	// Latency delays every matching request before anything else.
	Latency time.Duration
	// Status answers with this status and a Kubernetes Status body
	// instead of forwarding: 429, 500, 503, 504...
	Status int
	// RetryAfter, with Status, is sent as the Retry-After header, in
	// seconds, as the API server sends it with 429.
	RetryAfter int
	// Reset forwards the request, then resets the connection halfway
	// through the response body: a response cut by a network failure.
	Reset bool
	// ResetBeforeResponse resets the connection without answering.
	ResetBeforeResponse bool
	// Hang never answers, until the client gives up or the proxy closes:
	// a member that completes TLS and then goes silent.
	Hang bool

	// StaleGroups marks these API groups Stale in the aggregated
	// discovery document (/apis), as the API server does for an
	// aggregated API whose backend is unavailable. Independent of the
	// matching fields above.
	StaleGroups []string
}

// FaultProxy is a TLS reverse proxy on 127.0.0.1 in front of one cluster's
// API server that injects Faults, for fault drills against real API
// servers: the server decides everything the proxy leaves alone. It
// presents the environment's serving certificate, so the environment's CA
// trusts it; it speaks HTTP/1.1 only, so that a connection can be reset
// mid-response.
type FaultProxy struct {
	// Server is the proxy's URL, https://127.0.0.1:PORT.
	Server string
	// Cluster is the cluster behind it.
	Cluster string

	srv     *http.Server
	closing chan struct{}

	mu       sync.Mutex
	faults   Faults
	rng      *rand.Rand
	requests int
	injected int
}

// StartFaultProxy starts a proxy in front of the named cluster; Close stops
// it. Point a kubeconfig context at it with KubeconfigVia.
func (e *Env) StartFaultProxy(cluster string) (*FaultProxy, error) {
	c := e.Cluster(cluster)
	if c == nil {
		return nil, e.unknownCluster(cluster)
	}
	target, err := url.Parse(c.Server)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(e.path("pki", "apiserver.crt"), e.path("pki", "apiserver.key"))
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p := &FaultProxy{Server: "https://" + ln.Addr().String(), Cluster: cluster, closing: make(chan struct{}), rng: rand.New(rand.NewPCG(0, 0))}
	upstream := e.client.Transport.(*http.Transport).Clone()
	upstream.ForceAttemptHTTP2 = false
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
			if p.current().StaleGroups != nil && isDiscoveryRoot(r.In.URL.Path) {
				r.Out.Header.Del("Accept-Encoding") // the body is rewritten
			}
		},
		Transport:      upstream,
		ModifyResponse: p.markStale,
		ErrorLog:       log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeStatus(w, http.StatusBadGateway, 0, "fault proxy: "+err.Error())
		},
	}
	p.srv = &http.Server{
		Handler:           p.handler(rp),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}},
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() { _ = p.srv.ServeTLS(ln, "", "") }()
	return p, nil
}

// Set replaces the faults; the counters restart.
func (p *FaultProxy) Set(f Faults) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = f
	p.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	p.requests, p.injected = 0, 0
}

// Counts are the requests the proxy received and the faults it injected
// since the last Set.
func (p *FaultProxy) Counts() (requests, injected int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests, p.injected
}

// Close stops the proxy and releases the requests it holds (Hang).
func (p *FaultProxy) Close() error {
	select {
	case <-p.closing:
		return nil
	default:
	}
	close(p.closing)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		// a client still holds a connection (a request the proxy is
		// answering slowly): close it, as a server going away would
		return p.srv.Close()
	} else if err != nil {
		return err
	}
	return nil
}

func (p *FaultProxy) current() Faults {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults
}

// decide counts r and says whether it gets the fault.
func (p *FaultProxy) decide(r *http.Request) (Faults, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	f := p.faults
	matches := (f.Paths == nil || slices.ContainsFunc(f.Paths, func(p string) bool {
		return r.URL.Path == p || (!f.ExactPaths && strings.HasPrefix(r.URL.Path, p))
	})) &&
		(f.Methods == nil || slices.Contains(f.Methods, r.Method))
	if !matches || (f.Times > 0 && p.injected >= f.Times) {
		return f, false
	}
	if f.Rate > 0 && p.rng.Float64() >= f.Rate {
		return f, false
	}
	if f.Status == 0 && !f.Reset && !f.ResetBeforeResponse && !f.Hang && f.Latency == 0 {
		return f, false
	}
	p.injected++
	return f, true
}

func (p *FaultProxy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, hit := p.decide(r)
		if !hit {
			next.ServeHTTP(w, r)
			return
		}
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			case <-p.closing:
				t.Stop()
				return
			}
		}
		switch {
		case f.Hang:
			select {
			case <-r.Context().Done():
			case <-p.closing:
			}
		case f.ResetBeforeResponse:
			resetConnection(w)
		case f.Reset:
			rec := &recorder{header: http.Header{}}
			next.ServeHTTP(rec, r)
			cutResponse(w, rec)
		case f.Status != 0:
			writeStatus(w, f.Status, f.RetryAfter, fmt.Sprintf("fault injected by the test proxy: %d", f.Status))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// writeStatus answers as the API server would: a metav1.Status body.
func writeStatus(w http.ResponseWriter, code, retryAfter int, msg string) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Status", "status": "Failure", "message": msg,
		"reason": statusReason(code), "code": code,
		"details": map[string]any{"retryAfterSeconds": retryAfter},
	})
	_, _ = w.Write(body)
}

func statusReason(code int) string {
	switch code {
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusGatewayTimeout:
		return "Timeout"
	case http.StatusInternalServerError:
		return "InternalError"
	}
	return ""
}

// resetConnection closes the client's connection with a TCP reset.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	abort(conn)
}

func abort(conn net.Conn) {
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close sends RST, not FIN
	}
	_ = conn.Close()
}

// recorder keeps a whole upstream response, to cut it.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// cutResponse sends rec's status, headers (with the whole body's length)
// and half its body, then resets the connection.
func cutResponse(w http.ResponseWriter, rec *recorder) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	code := rec.code
	if code == 0 {
		code = http.StatusOK
	}
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	rec.header.Del("Transfer-Encoding")
	rec.header.Set("Content-Length", strconv.Itoa(rec.body.Len()))
	_ = rec.header.Write(buf)
	_, _ = buf.WriteString("\r\n")
	_, _ = buf.Write(rec.body.Bytes()[:rec.body.Len()/2])
	_ = buf.Flush()
	abort(conn)
}

func isDiscoveryRoot(path string) bool { return path == "/apis" || path == "/api" }

// markStale rewrites an aggregated discovery document to mark the
// StaleGroups' versions Stale.
func (p *FaultProxy) markStale(resp *http.Response) error {
	stale := p.current().StaleGroups
	if stale == nil || !isDiscoveryRoot(resp.Request.URL.Path) || !strings.Contains(resp.Header.Get("Content-Type"), "as=APIGroupDiscoveryList") {
		return nil
	}
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("fault proxy: aggregated discovery: %w", err)
	}
	items, _ := doc["items"].([]any)
	marked := 0
	for _, it := range items {
		group, _ := it.(map[string]any)
		meta, _ := group["metadata"].(map[string]any)
		if name, _ := meta["name"].(string); !slices.Contains(stale, name) {
			continue
		}
		versions, _ := group["versions"].([]any)
		for _, v := range versions {
			if vm, ok := v.(map[string]any); ok {
				vm["freshness"] = "Stale"
				marked++
			}
		}
	}
	if marked == 0 && len(stale) > 0 && resp.Request.URL.Path == "/apis" {
		return errors.New("fault proxy: none of the stale groups is served")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Header.Del("Content-Encoding")
	return nil
}
