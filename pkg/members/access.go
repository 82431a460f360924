package members

import (
	"bytes"
	"context"
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
	// kubeconfig's user sets. It does not apply to the management clusters
	// of members from Cluster API, which are no members.
	Impersonate Impersonation
	// CAPI keeps for the run what members from Cluster API read from their
	// management clusters, so that each kubeconfig Secret is read once per
	// run; nil reads it whenever a client is made (tests).
	CAPI *CAPICache
	// Context is the run's: the reads Access makes on its own account,
	// outside any request a caller bounds (a Cluster API member's
	// kubeconfig Secret, read when its client is made), stop when it ends
	// (Ctrl-C) as well as at their own deadline. nil: at their deadline
	// only.
	Context context.Context
}

// runContext is a.Context, or the background context when there is none.
func (a Access) runContext() context.Context {
	if a.Context != nil {
		return a.Context
	}
	return context.Background()
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

// Kubectl is the kubectl command line that reaches member m as fedctl
// reaches it, for the commands messages suggest. It names the kubeconfig
// file whenever fedctl reads one other than the standard rules' (the
// member's own, or fedctl's --kubeconfig, resolved as fedctl resolves it):
// "--context" alone would reach whatever the user's default kubeconfig
// calls by that name, and kubeadm names every cluster's context alike. A
// member from Cluster API gets a kubectl given the kubeconfig clusterctl
// reads from its management cluster.
func (a Access) Kubectl(m Member) string {
	if c := m.CAPI; c != nil {
		resolved := *c
		resolved.ManagementKubeconfig = a.managementKubeconfigPath(*c)
		return fmt.Sprintf("kubectl --kubeconfig <(%s)", resolved.Clusterctl("get kubeconfig "+c.Cluster))
	}
	cmd := "kubectl"
	if p := a.KubeconfigPath(m); p != "" {
		cmd += " --kubeconfig " + ShellQuote(p)
	}
	return cmd + " --context " + ShellQuote(m.ContextName())
}

// SameCluster finds the member of fed, other than m's name, that reaches
// the API server m reaches: the same server URL with the same certificate
// authority (two contexts, or two kubeconfig files, for one cluster). A
// second member of one cluster would get every object twice and count
// twice in every replica plan. Only the kubeconfig files are read; members
// whose configuration cannot be resolved, and those from Cluster API (whose
// kubeconfig is in the management cluster), are passed over.
func (a Access) SameCluster(fed *Federation, m Member) (Member, bool) {
	if m.CAPI != nil {
		return Member{}, false
	}
	want, err := a.RESTConfig(m)
	if err != nil {
		return Member{}, false
	}
	for _, other := range fed.Clusters {
		if other.Name == m.Name || other.CAPI != nil {
			continue
		}
		cfg, err := a.RESTConfig(other)
		if err != nil {
			continue
		}
		if strings.TrimSuffix(cfg.Host, "/") == strings.TrimSuffix(want.Host, "/") && cfg.CAFile == want.CAFile && bytes.Equal(cfg.CAData, want.CAData) {
			return other, true
		}
	}
	return Member{}, false
}

// ShellQuote quotes s for a POSIX shell when it needs it, for the command
// lines fedctl prints.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ContextFile is the kubeconfig file that holds m's context, for commands
// fedctl prints that another tool runs (karmadactl, argocd), whose own
// default kubeconfig may be another cluster's: KubeconfigPath when set,
// else the first file of the standard loading rules (KUBECONFIG, then
// ~/.kube/config) that defines the context with its cluster and user, so
// that the file works alone; "" when none does (KUBECONFIG's files then
// only work merged).
func (a Access) ContextFile(m Member) string {
	if p := a.KubeconfigPath(m); p != "" {
		return p
	}
	for _, p := range clientcmd.NewDefaultClientConfigLoadingRules().GetLoadingPrecedence() {
		cfg, err := clientcmd.LoadFromFile(p)
		if err != nil {
			continue
		}
		if c := cfg.Contexts[m.ContextName()]; c != nil && cfg.Clusters[c.Cluster] != nil && cfg.AuthInfos[c.AuthInfo] != nil {
			return p
		}
	}
	return ""
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

// clientError is the error of a client that cannot be made from m's
// configuration.
func clientError(m Member, err error) error {
	if m.CAPI != nil {
		return &ClusterAPIError{Member: m.Name, Err: fmt.Errorf("the kubeconfig in Secret %s/%s in management cluster %s: %w", m.CAPI.Namespace, m.CAPI.SecretName(), m.CAPI.ManagementContext, err)}
	}
	return &ConfigError{Member: m.Name, Context: m.ContextName(), Source: "kubeconfig", Err: err}
}

// RawConfig loads the kubeconfig that holds m's context; for a member from
// Cluster API, the kubeconfig in its Cluster's Secret (read once per run
// with a.CAPI; the result is shared: do not change it).
func (a Access) RawConfig(m Member) (*clientcmdapi.Config, error) {
	if m.CAPI != nil {
		return a.capiKubeconfig(m)
	}
	rules := a.loadingRules(m)
	raw, err := rules.Load()
	if err != nil {
		return nil, &ConfigError{Member: m.Name, Context: m.ContextName(), Source: describeSource(rules), Err: err}
	}
	return raw, nil
}

// contextIn is the context of raw (from RawConfig) that reaches m.
func contextIn(raw *clientcmdapi.Config, m Member) string {
	if m.CAPI != nil {
		return raw.CurrentContext
	}
	return m.ContextName()
}

// RESTConfig resolves m into a client configuration: its kubeconfig
// context (when the context does not exist the error lists the ones that
// do), or for a member from Cluster API the kubeconfig in its Cluster's
// Secret. Both get the same settings of the run: timeout, user agent,
// --as, rate limit, warnings, request counts and log.
func (a Access) RESTConfig(m Member) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if m.CAPI != nil {
		cfg, err = a.capiRESTConfig(m)
	} else {
		cfg, err = a.contextRESTConfig(m)
	}
	if err != nil {
		return nil, err
	}
	if !a.Impersonate.IsZero() {
		// Exactly the flags: client-go's merge of overrides keeps every
		// field the flags leave empty, so a kubeconfig user's as-groups
		// (system:masters, say) would stay with --as. Deliberately
		// stricter than kubectl, which keeps them.
		cfg.Impersonate = rest.ImpersonationConfig{UserName: a.Impersonate.User, Groups: a.Impersonate.Groups, UID: a.Impersonate.UID}
	}
	var count *MemberRequests
	if a.Stats != nil {
		count = a.Stats.Member(m.Name)
	}
	a.wrap(cfg, m.Name, count)
	return cfg, nil
}

// contextRESTConfig resolves m's kubeconfig context into a bare client
// configuration, as the kubeconfig says (RESTConfig sets --as).
func (a Access) contextRESTConfig(m Member) (*rest.Config, error) {
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
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, ctxName, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return nil, fail(err)
	}
	return cfg, nil
}

// wrap gives cfg the settings of the run: timeout, user agent, rate limit,
// warnings and request log, its lines labelled name; and count, when set,
// counts its requests (a member's, -v 4).
func (a Access) wrap(cfg *rest.Config, name string, count *MemberRequests) {
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
	if count != nil {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, count: count} })
	}
	if a.RequestLog != nil {
		log, bodies := a.RequestLog, a.RequestBodies
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return &loggingTransport{next: rt, out: log, member: name, bodies: bodies}
		})
	}
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
