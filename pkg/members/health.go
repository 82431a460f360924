package members

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
)

// Condition types and reasons of a member's health, as KubeFed's cluster
// controller sets them on a KubeFedCluster.
const (
	ConditionReady           = "Ready"
	ConditionOffline         = "Offline"
	ConditionConfigMalformed = "ConfigMalformed"

	ReasonClusterReady           = "ClusterReady"
	ReasonClusterNotReady        = "ClusterNotReady"
	ReasonClusterNotReachable    = "ClusterNotReachable"
	ReasonClusterReachable       = "ClusterReachable"
	ReasonClusterConfigMalformed = "ClusterConfigMalformed"
)

// Condition is one health condition of a member.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Health is what a probe learned about a member.
type Health struct {
	Conditions        []Condition `json:"conditions"`
	KubernetesVersion string      `json:"kubernetesVersion,omitempty"`
	// ClusterAPI is what the management cluster says of the Cluster of a
	// member from Cluster API; nil for the others.
	ClusterAPI *ClusterAPIStatus `json:"clusterAPI,omitempty"`
}

// State sums Health up in one word: True (ready), False (answers but is not
// healthy), Offline (no answer) or ConfigMalformed (its kubeconfig context
// cannot be used).
func (h Health) State() string {
	for _, c := range h.Conditions {
		switch {
		case c.Type == ConditionConfigMalformed && c.Status == "True":
			return "ConfigMalformed"
		case c.Type == ConditionOffline && c.Status == "True":
			return "Offline"
		case c.Type == ConditionReady:
			return c.Status
		}
	}
	return "Unknown"
}

// Ready reports whether the member answered /healthz with "ok".
func (h Health) Ready() bool { return h.State() == "True" }

// Message is the message of the condition that decided State.
func (h Health) Message() string {
	for _, c := range h.Conditions {
		if c.Status == "True" || c.Type == ConditionReady {
			return c.Message
		}
	}
	return ""
}

// Probe checks a member's health with KubeFed's rules: GET /healthz; a body
// of "ok" is Ready, any other body is not ready (but reachable), and no
// answer (including an error status) is Offline with ClusterNotReachable. A
// context that cannot be turned into a client is ConfigMalformed. When the
// member answers, its version is read from /version. ctx bounds the probe.
//
// A member from Cluster API has its Cluster read first (Health.ClusterAPI).
// One that is deleted, being deleted or failed is not ready, with reason
// ClusterDeleted, ClusterDeleting or ClusterFailed, and is not probed: its
// API server is going or gone, and waiting for it would only slow the run.
func Probe(ctx context.Context, a Access, m Member) Health {
	if m.CAPI == nil {
		return probe(ctx, a, m)
	}
	status := ReadClusterAPIStatus(ctx, a, m)
	if reason, msg, ok := status.NotServing(*m.CAPI); ok {
		return Health{Conditions: []Condition{{Type: ConditionReady, Status: "False", Reason: reason, Message: msg}}, ClusterAPI: &status}
	}
	h := probe(ctx, a, m)
	h.ClusterAPI = &status
	return h
}

func probe(ctx context.Context, a Access, m Member) Health {
	cfg, err := a.RESTConfig(m)
	var capiErr *ClusterAPIError
	switch {
	case errors.As(err, &capiErr) && capiErr.Unreachable:
		// its management cluster did not answer: the member cannot be
		// reached, its configuration may be fine
		return Health{Conditions: []Condition{{Type: ConditionOffline, Status: "True", Reason: ReasonClusterNotReachable, Message: err.Error()}}}
	case err != nil:
		return Health{Conditions: []Condition{{Type: ConditionConfigMalformed, Status: "True", Reason: ReasonClusterConfigMalformed, Message: err.Error()}}}
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Health{Conditions: []Condition{{Type: ConditionConfigMalformed, Status: "True", Reason: ReasonClusterConfigMalformed, Message: err.Error()}}}
	}
	body, err := client.Discovery().RESTClient().Get().AbsPath("/healthz").DoRaw(ctx)
	if err != nil {
		return Health{Conditions: []Condition{{Type: ConditionOffline, Status: "True", Reason: ReasonClusterNotReachable, Message: explain(cfg.Host, m, err).Error()}}}
	}
	h := Health{}
	if strings.EqualFold(strings.TrimSpace(string(body)), "ok") {
		h.Conditions = []Condition{{Type: ConditionReady, Status: "True", Reason: ReasonClusterReady, Message: "/healthz responded with ok"}}
	} else {
		h.Conditions = []Condition{
			{Type: ConditionReady, Status: "False", Reason: ReasonClusterNotReady, Message: "/healthz responded without ok"},
			{Type: ConditionOffline, Status: "False", Reason: ReasonClusterReachable, Message: "cluster is reachable"},
		}
	}
	if v, err := serverVersion(ctx, client); err == nil {
		h.KubernetesVersion = v
	}
	return h
}

// ProbeAll probes members concurrently, at most concurrency at a time, each
// within ctx and within each (none when 0) from when its probe starts: a
// member that waits for a slot behind members that do not answer still gets
// its whole time (ForEach). A member whose probe never ran (ctx ended
// first) or failed with a bug is Offline, saying why. Results are in the
// order of ms.
func ProbeAll(ctx context.Context, a Access, ms []Member, concurrency int, each time.Duration) []Health {
	out, errs := Gather(ctx, concurrency, each, len(ms), func(pctx context.Context, i int) Health {
		return Probe(pctx, a, ms[i])
	})
	for i, err := range errs {
		if err == nil {
			continue
		}
		msg := err.Error()
		var na *NoAnswerError
		if !errors.As(err, &na) {
			msg = "not probed: " + msg // never ran, or a bug
		}
		out[i] = Health{Conditions: []Condition{{Type: ConditionOffline, Status: "True", Reason: ReasonClusterNotReachable, Message: msg}}}
	}
	return out
}

// serverVersion reads /version. discovery's ServerVersion does the same but
// ignores the context, and a probe must stay within its deadline.
func serverVersion(ctx context.Context, client kubernetes.Interface) (string, error) {
	body, err := client.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if err != nil {
		return "", err
	}
	var info version.Info
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("decode /version: %w", err)
	}
	return info.GitVersion, nil
}

// Verify is what join runs before it records a member: the context resolves,
// the API server answers /readyz with "ok", and the credentials identify
// someone other than the anonymous user. It returns the server's version.
func Verify(ctx context.Context, a Access, m Member) (string, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return "", err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", clientError(m, err)
	}
	body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return "", explain(cfg.Host, m, err)
	}
	if !strings.EqualFold(strings.TrimSpace(string(body)), "ok") {
		return "", fmt.Errorf("cluster %s: the API server at %s is not ready: /readyz answered %q", m.Name, redactedHost(cfg.Host), strings.TrimSpace(string(body)))
	}
	gitVersion, err := serverVersion(ctx, client)
	if err != nil {
		return "", explain(cfg.Host, m, err)
	}
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	// The review says so, or, under default RBAC (which lets anyone read
	// /readyz and /version but only authenticated users ask who they are),
	// its refusal names the anonymous user.
	anonymous := err == nil && review.Status.UserInfo.Username == "system:anonymous" ||
		apierrors.IsForbidden(err) && strings.Contains(err.Error(), `User "system:anonymous"`)
	switch {
	case anonymous && m.CAPI != nil:
		return "", fmt.Errorf("cluster %s: the kubeconfig in Secret %s/%s in management cluster %s reaches %s without credentials (as system:anonymous)", m.Name, m.CAPI.Namespace, m.CAPI.SecretName(), m.CAPI.ManagementContext, redactedHost(cfg.Host))
	case anonymous:
		return "", fmt.Errorf("cluster %s: context %q reaches %s without credentials (as system:anonymous); add a user with credentials to the context", m.Name, m.ContextName(), redactedHost(cfg.Host))
	case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsForbidden(err):
		// Servers older than 1.28, or RBAC without the review API: the
		// /readyz and /version checks above are all we can do.
	case err != nil:
		return "", explain(cfg.Host, m, err)
	}
	return gitVersion, nil
}

// explain turns a client error into a sentence that says what went wrong
// with which server and what to do about it.
func explain(host string, m Member, err error) error {
	host = redactedHost(host)
	return explainAs(fmt.Sprintf("cluster %s: API server %s (%s)", m.Name, host, m.Origin()), m, err)
}

// redactedHost is an API server's URL for messages: a password in it
// (https://user:pass@host, which client-go sends as basic auth) is
// replaced by "xxxxx", as the request log does.
func redactedHost(host string) string {
	u, err := url.Parse(host)
	if err != nil || u.User == nil {
		return host
	}
	return u.Redacted()
}

// explainAs is explain with the words that name the server.
func explainAs(prefix string, m Member, err error) error {
	var opErr *net.OpError
	var urlErr *url.Error
	switch {
	case apierrors.IsUnauthorized(err) && m.CAPI != nil:
		return fmt.Errorf("%s rejected the credentials of the kubeconfig in Secret %s/%s (401 Unauthorized); compare it with what %s gives", prefix, m.CAPI.Namespace, m.CAPI.SecretName(), m.CAPI.Clusterctl("get kubeconfig "+m.CAPI.Cluster))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig", prefix)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: %w", prefix, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s refused the connection; is the cluster running?", prefix)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &urlErr) && urlErr.Timeout()):
		return fmt.Errorf("%s did not answer in time", prefix)
	case errors.As(err, &opErr):
		return fmt.Errorf("%s cannot be reached: %v", prefix, opErr.Err)
	case strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:"):
		return fmt.Errorf("%s failed TLS verification; check the cluster's certificate-authority in the kubeconfig: %w", prefix, err)
	}
	return fmt.Errorf("%s: %w", prefix, err)
}
