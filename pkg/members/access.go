package members

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Access says how to reach members for one run of fedctl. It is shared by all
// members and never copied into the federation file.
type Access struct {
	// Kubeconfig is the --kubeconfig flag: the kubeconfig for members that
	// don't name their own. Empty means the standard loading rules.
	Kubeconfig string
	// BaseDir is the federation file's directory; a member's relative
	// kubeconfig path is relative to it, so a file kept in git works from
	// any working directory.
	BaseDir string
	// Timeout bounds each request to a member (0: client-go's default).
	Timeout time.Duration
	// UserAgent identifies fedctl in the members' audit logs.
	UserAgent string
	// Warnings receives the API servers' warnings (deprecated APIs and the
	// like), one line each, de-duplicated; nil drops them.
	Warnings io.Writer
	// QPS and Burst bound the requests to a member without API Priority
	// and Fairness; zero means DefaultQPS and DefaultBurst.
	QPS   float32
	Burst int
	// RequestLog, when set, receives one line per HTTP request (-v 6 and
	// up). Headers are never logged, so no credential can leak into it.
	RequestLog io.Writer
	// RequestBodies adds each request's body to RequestLog (-v 8), with
	// the values of Secrets' data and stringData redacted.
	RequestBodies bool
	// Stats, when set, counts the requests sent to each member (-v 4).
	Stats *RequestStats
	// Impersonate acts as another user in every member (--as, --as-group,
	// --as-uid), as kubectl's flags do: it replaces any impersonation the
	// kubeconfig's user sets.
	Impersonate Impersonation
}

// Impersonation is a user to act as; the zero value acts as oneself.
type Impersonation struct {
	User   string
	Groups []string
	UID    string
}

// IsZero says whether no impersonation is asked for.
func (i Impersonation) IsZero() bool { return i.User == "" && len(i.Groups) == 0 && i.UID == "" }

// KubeconfigPath returns the kubeconfig file for m, or "" for the standard
// loading rules.
func (a Access) KubeconfigPath(m Member) string {
	if m.Kubeconfig == "" {
		return a.Kubeconfig
	}
	p := m.Kubeconfig
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(p) && a.BaseDir != "" {
		p = filepath.Join(a.BaseDir, p)
	}
	return p
}

func (a Access) loadingRules(m Member) *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if p := a.KubeconfigPath(m); p != "" {
		rules.ExplicitPath = p
	}
	return rules
}

// describeSource says where contexts were looked up, for error messages.
func describeSource(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return "kubeconfig " + rules.ExplicitPath
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		return "KUBECONFIG=" + env
	}
	return "kubeconfig " + clientcmd.RecommendedHomeFile
}

// ConfigError says a member's kubeconfig context cannot be used. KubeFed
// reports such a cluster as ConfigMalformed.
type ConfigError struct {
	Member  string
	Context string
	Source  string
	Err     error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("cluster %s: context %q in %s: %v", e.Member, e.Context, e.Source, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// inMember is the error without the member's name, for reports that give
// it already.
func (e *ConfigError) inMember() error {
	return fmt.Errorf("context %q in %s: %w", e.Context, e.Source, e.Err)
}

// RawConfig loads the kubeconfig that holds m's context.
func (a Access) RawConfig(m Member) (*clientcmdapi.Config, error) {
	rules := a.loadingRules(m)
	raw, err := rules.Load()
	if err != nil {
		return nil, &ConfigError{Member: m.Name, Context: m.ContextName(), Source: describeSource(rules), Err: err}
	}
	return raw, nil
}

// RESTConfig resolves m's context into a client configuration. When the
// context does not exist the error lists the ones that do.
func (a Access) RESTConfig(m Member) (*rest.Config, error) {
	rules := a.loadingRules(m)
	fail := func(err error) error {
		return &ConfigError{Member: m.Name, Context: m.ContextName(), Source: describeSource(rules), Err: err}
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, fail(err)
	}
	ctxName := m.ContextName()
	if _, ok := raw.Contexts[ctxName]; !ok {
		return nil, fail(missingContext(raw))
	}
	overrides := &clientcmd.ConfigOverrides{}
	if !a.Impersonate.IsZero() {
		overrides.AuthInfo = clientcmdapi.AuthInfo{Impersonate: a.Impersonate.User, ImpersonateGroups: a.Impersonate.Groups, ImpersonateUID: a.Impersonate.UID}
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, ctxName, overrides, rules).ClientConfig()
	if err != nil {
		return nil, fail(err)
	}
	cfg.Timeout = a.Timeout
	cfg.UserAgent = a.UserAgent
	// One limiter for every client of the member (dynamic, metadata,
	// discovery), which each made their own otherwise; off once the member
	// shows API Priority and Fairness (see apfLimiter).
	qps, burst := a.QPS, a.Burst
	if qps <= 0 {
		qps = DefaultQPS
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	limiter := newAPFLimiter(qps, burst)
	cfg.RateLimiter = limiter
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &apfWatcher{next: rt, limiter: limiter} })
	cfg.WarningHandler = rest.NoWarnings{}
	if a.Warnings != nil {
		cfg.WarningHandler = rest.NewWarningWriter(a.Warnings, rest.WarningWriterOptions{Deduplicate: true})
	}
	if a.Stats != nil {
		count := a.Stats.Member(m.Name)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, count: count} })
	}
	if a.RequestLog != nil {
		log, bodies := a.RequestLog, a.RequestBodies
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return &loggingTransport{next: rt, out: log, member: m.Name, bodies: bodies}
		})
	}
	return cfg, nil
}

func missingContext(raw *clientcmdapi.Config) error {
	names := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return errors.New("not found: the kubeconfig has no contexts")
	}
	return fmt.Errorf("not found; available contexts: %s", strings.Join(names, ", "))
}

// loggingTransport writes one line per request: method, URL, status and
// latency, and with bodies the request's body (Secret values redacted) on
// the next line. It never looks at headers.
type loggingTransport struct {
	next   http.RoundTripper
	out    io.Writer
	member string
	bodies bool
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.bodies {
		if body := requestBody(req); body != "" {
			fmt.Fprintf(t.out, "[%s] request body of %s %s: %s\n", t.member, req.Method, req.URL.Redacted(), body)
		}
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(t.out, "[%s] %s %s: %v (%s)\n", t.member, req.Method, req.URL.Redacted(), err, took)
		return resp, err
	}
	fmt.Fprintf(t.out, "[%s] %s %s %s in %s\n", t.member, req.Method, req.URL.Redacted(), resp.Status, took)
	return resp, nil
}

// WrappedRoundTripper lets client-go reach the transport below, to cancel
// requests.
func (t *loggingTransport) WrappedRoundTripper() http.RoundTripper { return t.next }
