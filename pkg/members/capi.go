package members

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// Cluster API's names for a workload cluster's kubeconfig: the Secret
// "<cluster>-kubeconfig" in the Cluster's namespace holds a kubeconfig in
// its data key "value", whose current context reaches the cluster
// (sigs.k8s.io/cluster-api/util/secret: Kubeconfig purpose, KubeconfigDataName).
const (
	CAPIKubeconfigSuffix = "-kubeconfig"
	CAPIKubeconfigKey    = "value"
)

// CAPI points at a Cluster API workload cluster: the Cluster Cluster in
// Namespace of the management cluster that ManagementContext reaches. It
// is a reference only; the credentials stay in the management cluster.
type CAPI struct {
	// ManagementContext is the kubeconfig context of the management cluster.
	ManagementContext string `json:"managementContext" yaml:"managementContext"`
	// ManagementKubeconfig is the kubeconfig file holding
	// ManagementContext, with Member.Kubeconfig's rules: empty means
	// --kubeconfig, else the standard loading rules; a relative path is
	// relative to the federation file.
	ManagementKubeconfig string `json:"managementKubeconfig,omitempty" yaml:"managementKubeconfig,omitempty"`
	// Namespace is the Cluster's namespace in the management cluster.
	Namespace string `json:"namespace" yaml:"namespace"`
	// Cluster is the name of the Cluster.
	Cluster string `json:"cluster" yaml:"cluster"`
}

// SecretName is the name of the Cluster's kubeconfig Secret.
func (c CAPI) SecretName() string { return c.Cluster + CAPIKubeconfigSuffix }

// String is "Cluster API cluster capi/web-1 in management cluster mgmt",
// the management cluster named by its context.
func (c CAPI) String() string {
	return fmt.Sprintf("Cluster API cluster %s/%s in management cluster %s", c.Namespace, c.Cluster, c.ManagementContext)
}

// kubectlFlags are the flags that make kubectl reach the management
// cluster: "--context mgmt", with --kubeconfig when the member names one.
func (c CAPI) kubectlFlags() string {
	flags := "--context " + ShellQuote(c.ManagementContext)
	if c.ManagementKubeconfig != "" {
		flags = "--kubeconfig " + ShellQuote(c.ManagementKubeconfig) + " " + flags
	}
	return flags
}

// Kubectl is a kubectl command on the management cluster, in the Cluster's
// namespace: Kubectl("get cluster web-1").
func (c CAPI) Kubectl(args string) string {
	return fmt.Sprintf("kubectl %s -n %s %s", c.kubectlFlags(), c.Namespace, args)
}

// Clusterctl is a clusterctl command on the management cluster, in the
// Cluster's namespace: Clusterctl("get kubeconfig web-1").
func (c CAPI) Clusterctl(args string) string {
	flags := "--kubeconfig-context " + ShellQuote(c.ManagementContext)
	if c.ManagementKubeconfig != "" {
		flags = "--kubeconfig " + ShellQuote(c.ManagementKubeconfig) + " " + flags
	}
	return fmt.Sprintf("clusterctl %s -n %s %s", args, c.Namespace, flags)
}

// validateCAPI checks the capi block of the member at path: its three
// fields are given and well formed, and neither context nor kubeconfig is
// set beside it, which would leave two answers to "how is it reached".
func (m Member) validateCAPI(pos manifest.Positions, path string) []error {
	var errs []error
	c, at := m.CAPI, path+".capi"
	if m.Context != "" {
		errs = append(errs, pos.Errorf(path, "context and capi are both set; a member is reached through a kubeconfig context or through Cluster API, not both"))
	}
	if m.Kubeconfig != "" {
		errs = append(errs, pos.Errorf(path+".kubeconfig", "kubeconfig is for a member's context; with capi, the management cluster's kubeconfig is capi.managementKubeconfig"))
	}
	if c.ManagementContext == "" {
		errs = append(errs, pos.Errorf(at+".managementContext", "is required: the kubeconfig context of the Cluster API management cluster"))
	}
	if c.Namespace == "" {
		errs = append(errs, pos.Errorf(at+".namespace", "is required: the Cluster's namespace in the management cluster"))
	}
	for _, msg := range validation.IsDNS1123Label(c.Namespace) {
		if c.Namespace != "" {
			errs = append(errs, pos.Errorf(at+".namespace", "%s", msg))
		}
	}
	if c.Cluster == "" {
		errs = append(errs, pos.Errorf(at+".cluster", "is required: the name of the Cluster API Cluster"))
	}
	for _, msg := range validation.IsDNS1123Subdomain(c.Cluster) {
		if c.Cluster != "" {
			errs = append(errs, pos.Errorf(at+".cluster", "%s", msg))
		}
	}
	return errs
}

// ClusterAPIError says that a member's kubeconfig could not be had from
// Cluster API: the management cluster, its Secret or the kubeconfig in it.
// KubeFed would report such a member as ConfigMalformed. Its text never
// holds anything of the Secret's content, and it wraps nothing, so that no
// caller can take the Secret's NotFound for one of its own objects.
type ClusterAPIError struct {
	Member string
	Err    error
	// Unreachable says the management cluster did not answer: the member
	// is unreachable (KubeFed's ClusterNotReachable), its configuration
	// may be fine.
	Unreachable bool
}

func (e *ClusterAPIError) Error() string { return fmt.Sprintf("cluster %s: %v", e.Member, e.Err) }

// inMember is the error without the member's name, for reports that give
// it already.
func (e *ClusterAPIError) inMember() error { return e.Err }

// managementTimeout bounds the reads from a management cluster when the run
// sets no per-request timeout, so that a silent management cluster cannot
// hang a command that never gets to its members.
const managementTimeout = 30 * time.Second

// CAPICache holds, for one run of fedctl, what the members from Cluster API
// need of their management clusters: one set of clients per management
// context, the version of Cluster each serves, and each member's
// kubeconfig, read from its Secret once and kept in memory only, never on
// disk. A new run reads the Secrets again, which is how rotated
// credentials are picked up. Safe for concurrent use; the zero value is
// ready.
type CAPICache struct {
	mu          sync.Mutex
	managements map[managementKey]*management
	kubeconfigs map[kubeconfigKey]*kubeconfigEntry
}

// NewCAPICache returns an empty cache for one run.
func NewCAPICache() *CAPICache { return &CAPICache{} }

type managementKey struct{ kubeconfig, context string }

type kubeconfigKey struct {
	management        managementKey
	namespace, secret string
}

// kubeconfigEntry is one Secret's kubeconfig; mu is held while it is read,
// so that members probed at once wait for one read.
type kubeconfigEntry struct {
	mu  sync.Mutex
	raw *clientcmdapi.Config // nil until read
}

// management is one management cluster's clients, made once; mu guards the
// Cluster resource, discovered on first use.
type management struct {
	once    sync.Once
	err     error
	host    string
	core    kubernetes.Interface
	dynamic dynamic.Interface

	mu       sync.Mutex
	clusters *schema.GroupVersionResource // nil until discovered

	// downErr, since downAt, is why the management cluster did not answer
	// (see unreachable); guarded by downMu, apart from mu, which a
	// discovery holds while it waits.
	downMu  sync.Mutex
	downErr error
	downAt  time.Time
}

// managementDownFor is how long a run takes a management cluster that did
// not answer as down: every read through it fails at once with that error,
// instead of each member's Cluster and Secret waiting out a timeout of its
// own (N members, 2N timeouts); then reads try again, so that a wait that
// outlives a blip (status --wait) recovers.
const managementDownFor = 10 * time.Second

// unreachableError says a management cluster did not answer: no answer, or
// a 5xx or 429 that outlived Retry. Members read through it are
// unreachable, not misconfigured.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// down is the error of the management cluster's last read that found it
// down, within managementDownFor; nil when it answers.
func (mg *management) down() error {
	mg.downMu.Lock()
	defer mg.downMu.Unlock()
	if mg.downErr != nil && time.Since(mg.downAt) < managementDownFor {
		return mg.downErr
	}
	return nil
}

// fail is managementError, remembered as the management cluster being
// down when it did not answer.
func (mg *management) fail(c CAPI, doing string, err error) error {
	out := managementError(mg.host, c, doing, err)
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code < 500 && status.Status().Code != 429 {
		return out // it answered
	}
	down := &unreachableError{out}
	mg.downMu.Lock()
	mg.downErr, mg.downAt = down, time.Now()
	mg.downMu.Unlock()
	return down
}

// capi returns the run's cache, or a new one for an Access built without
// (tests), which then reads each time it is asked.
func (a Access) capi() *CAPICache {
	if a.CAPI != nil {
		return a.CAPI
	}
	return NewCAPICache()
}

// managementMember is c's management cluster as if it were a member
// reached through its context, for Access's kubeconfig rules.
func (c CAPI) managementMember() Member {
	return Member{Name: c.ManagementContext, Context: c.ManagementContext, Kubeconfig: c.ManagementKubeconfig}
}

// managementKubeconfigPath is the kubeconfig file of c's management
// context, with the rules of Member.Kubeconfig.
func (a Access) managementKubeconfigPath(c CAPI) string {
	return a.KubeconfigPath(c.managementMember())
}

// management returns the clients of c's management cluster, made once per
// run.
func (a Access) management(c CAPI) (*management, error) {
	key := managementKey{kubeconfig: a.managementKubeconfigPath(c), context: c.ManagementContext}
	cache := a.capi()
	cache.mu.Lock()
	if cache.managements == nil {
		cache.managements = map[managementKey]*management{}
	}
	mg := cache.managements[key]
	if mg == nil {
		mg = &management{}
		cache.managements[key] = mg
	}
	cache.mu.Unlock()
	mg.once.Do(func() { mg.err = a.connectManagement(mg, c) })
	return mg, mg.err
}

// connectManagement makes the clients of c's management cluster. They get
// the run's timeout, user agent, rate limit and request log, but not
// --as: impersonation is for the members, and the management cluster is
// not one. Its API warnings are dropped: the Cluster version read is
// fedctl's choice, and a deprecation warning about it is nothing the user
// can act on.
func (a Access) connectManagement(mg *management, c CAPI) error {
	cfg, err := a.contextRESTConfig(c.managementMember())
	if err != nil {
		var cfgErr *ConfigError
		if errors.As(err, &cfgErr) {
			return fmt.Errorf("management context %q in %s: %w", c.ManagementContext, cfgErr.Source, cfgErr.Err)
		}
		return err
	}
	a.wrap(cfg, "management "+c.ManagementContext, nil)
	if cfg.Timeout == 0 {
		cfg.Timeout = managementTimeout
	}
	cfg.WarningHandler = rest.NoWarnings{}
	mg.host = redactedHost(cfg.Host) // for messages
	if mg.core, err = kubernetes.NewForConfig(cfg); err != nil {
		return fmt.Errorf("management context %q: %w", c.ManagementContext, err)
	}
	if mg.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return fmt.Errorf("management context %q: %w", c.ManagementContext, err)
	}
	return nil
}

// capiKubeconfig returns the kubeconfig of m's Cluster, read from its Secret
// in the management cluster once per run. The result is the cache's: callers
// must not change it.
func (a Access) capiKubeconfig(m Member) (*clientcmdapi.Config, error) {
	c := *m.CAPI
	fail := func(err error) error {
		var down *unreachableError
		return &ClusterAPIError{Member: m.Name, Err: err, Unreachable: errors.As(err, &down)}
	}
	mg, err := a.management(c)
	if err != nil {
		return nil, fail(err)
	}
	key := kubeconfigKey{
		management: managementKey{kubeconfig: a.managementKubeconfigPath(c), context: c.ManagementContext},
		namespace:  c.Namespace, secret: c.SecretName(),
	}
	cache := a.capi()
	cache.mu.Lock()
	if cache.kubeconfigs == nil {
		cache.kubeconfigs = map[kubeconfigKey]*kubeconfigEntry{}
	}
	entry := cache.kubeconfigs[key]
	if entry == nil {
		entry = &kubeconfigEntry{}
		cache.kubeconfigs[key] = entry
	}
	cache.mu.Unlock()

	entry.mu.Lock()
	defer entry.mu.Unlock()
	if entry.raw != nil {
		return entry.raw, nil
	}
	ctx, cancel := a.withManagementDeadline(a.runContext())
	defer cancel()
	raw, err := readKubeconfigSecret(ctx, mg, c)
	if err != nil {
		return nil, fail(err) // not kept: the next caller tries again
	}
	entry.raw = raw
	return raw, nil
}

// readKubeconfigSecret reads the kubeconfig of c's Cluster from its Secret.
// Its errors say what is wrong and what to run next, and never quote the
// Secret: a parser's message could.
func readKubeconfigSecret(ctx context.Context, mg *management, c CAPI) (*clientcmdapi.Config, error) {
	if err := mg.down(); err != nil {
		return nil, err
	}
	ref := fmt.Sprintf("Secret %s/%s", c.Namespace, c.SecretName())
	var secret *corev1.Secret
	err := Retry(ctx, Idempotent, func() error {
		var err error
		secret, err = mg.core.CoreV1().Secrets(c.Namespace).Get(ctx, c.SecretName(), metav1.GetOptions{})
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("%s not found in management cluster %s: is the Cluster provisioned? %s", ref, c.ManagementContext, c.Kubectl("get cluster "+c.Cluster))
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("reading %s in management cluster %s is forbidden: fedctl needs get on secrets in namespace %s there: %s", ref, c.ManagementContext, c.Namespace, statusMessage(err))
	case err != nil:
		return nil, mg.fail(c, "cannot read "+ref, err)
	}
	data, ok := secret.Data[CAPIKubeconfigKey]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("%s in management cluster %s has no data key %q, where Cluster API keeps the kubeconfig; is it Cluster API's kubeconfig Secret? %s", ref, c.ManagementContext, CAPIKubeconfigKey, c.Kubectl("describe secret "+c.SecretName()))
	}
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig in %s (key %q) in management cluster %s cannot be parsed; compare it with what %s gives", ref, CAPIKubeconfigKey, c.ManagementContext, c.Clusterctl("get kubeconfig "+c.Cluster))
	}
	kctx, ok := raw.Contexts[raw.CurrentContext]
	if !ok {
		return nil, fmt.Errorf("the kubeconfig in %s (key %q) in management cluster %s has no current context, which names the context fedctl uses", ref, CAPIKubeconfigKey, c.ManagementContext)
	}
	if what := outsideTheSecret(raw, kctx); what != "" {
		return nil, fmt.Errorf("the kubeconfig in %s (key %q) in management cluster %s %s; fedctl takes only credentials held in the Secret itself, as Cluster API writes them (whoever can write a Secret there must not be able to run commands or read files where fedctl runs)", ref, CAPIKubeconfigKey, c.ManagementContext, what)
	}
	return raw, nil
}

// outsideTheSecret says what of the current context's user and cluster
// reaches beyond the Secret: a credential plugin to run, or a file to
// read; "" when nothing does.
func outsideTheSecret(raw *clientcmdapi.Config, kctx *clientcmdapi.Context) string {
	if u := raw.AuthInfos[kctx.AuthInfo]; u != nil {
		switch {
		case u.Exec != nil:
			return "runs a credential plugin (exec)"
		case u.AuthProvider != nil:
			return "uses an auth-provider"
		case u.ClientCertificate != "" || u.ClientKey != "" || u.TokenFile != "":
			return "names credential files"
		}
	}
	if cl := raw.Clusters[kctx.Cluster]; cl != nil && cl.CertificateAuthority != "" {
		return "names a certificate-authority file"
	}
	return ""
}

// statusMessage is an API error's own message.
func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

// managementError says what went wrong doing what with c's management
// cluster, in explain's words, and what to check next.
func managementError(host string, c CAPI, doing string, err error) error {
	prefix := fmt.Sprintf("management cluster %s: API server %s (context %q)", c.ManagementContext, host, c.ManagementContext)
	return fmt.Errorf("%s: %w", doing, explainAs(prefix, Member{Name: c.ManagementContext, Context: c.ManagementContext}, err))
}

// capiRESTConfig is the client configuration of m from the kubeconfig in its
// Cluster's Secret, at that kubeconfig's current context (RESTConfig sets
// --as).
func (a Access) capiRESTConfig(m Member) (*rest.Config, error) {
	raw, err := a.capiKubeconfig(m)
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, raw.CurrentContext, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		// clientcmd's validation names contexts, users and files, never
		// their credentials
		return nil, &ClusterAPIError{Member: m.Name, Err: fmt.Errorf("the kubeconfig in Secret %s/%s in management cluster %s: %w",
			m.CAPI.Namespace, m.CAPI.SecretName(), m.CAPI.ManagementContext, err)}
	}
	return cfg, nil
}

// CAPINamespace is the namespace of the Clusters of a join from Cluster
// API when -n is not given: the namespace of c's management context, else
// "default", as kubectl resolves it.
func CAPINamespace(a Access, c CAPI) string {
	return ContextNamespace(a, c.managementMember())
}
