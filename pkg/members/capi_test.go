package members_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
)

func cluster(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(doc), &obj.Object))
	return obj
}

func TestClusterAPIStatusOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want members.ClusterAPIStatus
	}{
		{
			name: "v1beta1: the conditions of the two types",
			in: `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "status": {"phase": "Provisioned",
				"conditions": [{"type": "Ready", "status": "True"}, {"type": "ControlPlaneReady", "status": "True"}, {"type": "InfrastructureReady", "status": "True"}]}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", Phase: "Provisioned", ControlPlaneReady: "True", InfrastructureReady: "True"},
		},
		{
			name: "v1beta1: a condition wins over the boolean, which only ever turns true",
			in: `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "status": {"phase": "Provisioned", "controlPlaneReady": true, "infrastructureReady": true,
				"conditions": [{"type": "ControlPlaneReady", "status": "False", "severity": "Warning"}, {"type": "InfrastructureReady", "status": "Unknown"}]}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", Phase: "Provisioned", ControlPlaneReady: "False", InfrastructureReady: "Unknown"},
		},
		{
			name: "v1beta1 without conditions: the booleans, absent meaning false",
			in:   `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "status": {"phase": "Provisioning", "infrastructureReady": true}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", Phase: "Provisioning", ControlPlaneReady: "False", InfrastructureReady: "True"},
		},
		{
			name: "a Cluster no controller has seen yet",
			in:   `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster"}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", ControlPlaneReady: "False", InfrastructureReady: "False"},
		},
		{
			name: "a condition without a status is Unknown",
			in:   `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "status": {"conditions": [{"type": "ControlPlaneReady"}]}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", ControlPlaneReady: "Unknown", InfrastructureReady: "False"},
		},
		{
			name: "v1beta2: ControlPlaneAvailable stands for ControlPlaneReady",
			in: `{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "status": {"phase": "Provisioned",
				"initialization": {"controlPlaneInitialized": true, "infrastructureProvisioned": true},
				"conditions": [{"type": "Available", "status": "False"}, {"type": "ControlPlaneAvailable", "status": "False"}, {"type": "InfrastructureReady", "status": "True"},
					{"type": "ControlPlaneReady", "status": "True"}]}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta2", Phase: "Provisioned", ControlPlaneReady: "False", InfrastructureReady: "True"},
		},
		{
			name: "v1beta2 without conditions: status.initialization",
			in:   `{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "status": {"phase": "Provisioning", "initialization": {"infrastructureProvisioned": true}}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta2", Phase: "Provisioning", ControlPlaneReady: "False", InfrastructureReady: "True"},
		},
		{
			name: "being deleted, and v1beta1's failure",
			in: `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"deletionTimestamp": "2026-11-25T08:00:00Z"},
				"status": {"phase": "Failed", "failureReason": "CreateError", "failureMessage": "no capacity in eu-west-1a"}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", Phase: "Failed", ControlPlaneReady: "False", InfrastructureReady: "False",
				Deleting: true, Message: "CreateError: no capacity in eu-west-1a"},
		},
		{
			name: "v1beta2 keeps v1beta1's failure under status.deprecated",
			in: `{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "status": {"phase": "Failed",
				"deprecated": {"v1beta1": {"failureMessage": "no capacity"}}}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta2", Phase: "Failed", ControlPlaneReady: "False", InfrastructureReady: "False", Message: "no capacity"},
		},
		{
			name: "a value of the wrong type reads as absent, never a panic",
			in:   `{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "status": {"phase": 3, "conditions": [7, {"type": "ControlPlaneReady", "status": true}], "infrastructureReady": "yes"}}`,
			want: members.ClusterAPIStatus{APIVersion: "cluster.x-k8s.io/v1beta1", ControlPlaneReady: "Unknown", InfrastructureReady: "False"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, members.ClusterAPIStatusOf(cluster(t, tt.in)))
		})
	}
}

func TestNotServing(t *testing.T) {
	t.Parallel()
	ref := members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}
	tests := []struct {
		name       string
		status     members.ClusterAPIStatus
		wantReason string
		wantMsg    string
	}{
		{"a provisioned Cluster is probed", members.ClusterAPIStatus{Phase: "Provisioned"}, "", ""},
		{"so is one whose phase is not known", members.ClusterAPIStatus{Phase: "Unknown"}, "", ""},
		{"a Cluster that is gone", members.ClusterAPIStatus{Phase: "NotFound"}, members.ReasonClusterDeleted,
			"Cluster capi/web-1 not found in management cluster mgmt: deleted? kubectl --context mgmt -n capi get cluster web-1"},
		{"phase Deleting", members.ClusterAPIStatus{Phase: "Deleting"}, members.ReasonClusterDeleting,
			"Cluster capi/web-1 is being deleted in management cluster mgmt (phase Deleting); not probed"},
		{"v1alpha2's Deprovisioning", members.ClusterAPIStatus{Phase: "Deprovisioning"}, members.ReasonClusterDeleting,
			"Cluster capi/web-1 is being deleted in management cluster mgmt (phase Deprovisioning); not probed"},
		{"a deletionTimestamp before any controller acts on it", members.ClusterAPIStatus{Phase: "Provisioned", Deleting: true}, members.ReasonClusterDeleting,
			"Cluster capi/web-1 is being deleted in management cluster mgmt (deletionTimestamp set, phase Provisioned); not probed"},
		{"phase Failed, with why", members.ClusterAPIStatus{Phase: "Failed", Message: "CreateError: no capacity"}, members.ReasonClusterFailed,
			"Cluster capi/web-1 failed (phase Failed) in management cluster mgmt; not probed: CreateError: no capacity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reason, msg, ok := tt.status.NotServing(ref)
			assert.Equal(t, tt.wantReason != "", ok)
			assert.Equal(t, tt.wantReason, reason)
			assert.Equal(t, tt.wantMsg, msg)
		})
	}
}

func TestChooseClusterVersion(t *testing.T) {
	t.Parallel()
	group := func(versions ...string) metav1.APIGroup {
		g := metav1.APIGroup{Name: members.CAPIGroup}
		for _, v := range versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: members.CAPIGroup + "/" + v, Version: v})
		}
		return g
	}
	v, err := members.ChooseClusterVersion(group("v1beta2", "v1beta1"))
	require.NoError(t, err)
	assert.Equal(t, "v1beta1", v, "v1beta1 is preferred while it is served")
	v, err = members.ChooseClusterVersion(group("v1beta2"))
	require.NoError(t, err)
	assert.Equal(t, "v1beta2", v)
	_, err = members.ChooseClusterVersion(group("v1alpha4", "v1alpha3"))
	assert.EqualError(t, err, "it serves cluster.x-k8s.io in version(s) v1alpha4, v1alpha3, and fedctl reads v1beta1 or v1beta2")
}

func TestPlanClusterAPIJoin(t *testing.T) {
	t.Parallel()
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "old", Context: "kind-old"}, false))
	mgmt := members.CAPI{ManagementContext: "mgmt", ManagementKubeconfig: "kube/mgmt.yaml"}
	provisioned := members.ClusterAPIStatus{Phase: "Provisioned"}
	clusters := []members.ClusterAPICluster{
		{Namespace: "a", Name: "web", Labels: map[string]string{"env": "prod"}, Status: provisioned},
		{Namespace: "a", Name: "old", Status: provisioned},
		{Namespace: "a", Name: "gone", Status: members.ClusterAPIStatus{Phase: "Deleting"}},
		{Namespace: "b", Name: "web", Status: provisioned},
	}
	template := members.Member{Region: "eu-west-1"}

	joins := members.PlanClusterAPIJoin(fed, clusters, mgmt, template, true, false)
	require.Len(t, joins, 4)
	assert.True(t, joins[0].Joined())
	assert.Equal(t, members.Member{Name: "web", Region: "eu-west-1", Labels: map[string]string{"env": "prod"},
		CAPI: &members.CAPI{ManagementContext: "mgmt", ManagementKubeconfig: "kube/mgmt.yaml", Namespace: "a", Cluster: "web"}}, joins[0].Member)
	joins[0].Member.Labels["env"] = "changed"
	assert.Equal(t, "prod", clusters[0].Labels["env"], "the member's labels are a copy")
	assert.Equal(t, `already a member (context "kind-old"); --overwrite replaces it`, joins[1].Skipped)
	assert.NoError(t, joins[1].Err, "a skip is no failure")
	assert.EqualError(t, joins[2].Err, "Cluster a/gone is being deleted in management cluster mgmt (phase Deleting); not probed")
	assert.EqualError(t, joins[3].Err, "Cluster a/web would be joined as web too; join this one under another name: fedctl join NAME --from-capi web -n b --management-context mgmt")

	joins = members.PlanClusterAPIJoin(fed, clusters[:2], mgmt, members.Member{}, false, true)
	assert.True(t, joins[1].Joined(), "--overwrite joins a member again")
	assert.Nil(t, joins[0].Member.Labels, "labels are copied only when asked")

	// a Cluster joined before under another name (join shop --from-capi
	// web) is skipped: a second member would get every object twice
	require.NoError(t, fed.Put(members.Member{Name: "shop", CAPI: &members.CAPI{ManagementContext: "mgmt", ManagementKubeconfig: "kube/mgmt.yaml", Namespace: "a", Cluster: "web"}}, false))
	joins = members.PlanClusterAPIJoin(fed, clusters[:1], mgmt, members.Member{}, false, true)
	assert.Equal(t, "already joined as member shop", joins[0].Skipped)
	assert.False(t, joins[0].Joined())
}

// managementServer is a management cluster that serves one Secret,
// capi/web-1-kubeconfig, whose kubeconfig is value (nil: no Secret), and
// counts the requests for it.
type managementServer struct {
	*httptest.Server
	mu       sync.Mutex
	value    []byte
	requests atomic.Int32
}

func newManagementServer(t *testing.T, value []byte) *managementServer {
	t.Helper()
	s := &managementServer{value: value}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/capi/secrets/web-1-kubeconfig" {
			http.NotFound(w, r)
			return
		}
		s.requests.Add(1)
		s.mu.Lock()
		value := s.value
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if value == nil {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound, Message: `secrets "web-1-kubeconfig" not found`,
				Details: &metav1.StatusDetails{Name: "web-1-kubeconfig", Kind: "secrets"}})
			return
		}
		_ = json.NewEncoder(w).Encode(corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "web-1-kubeconfig", Namespace: "capi"}, Data: map[string][]byte{"value": value}})
	}))
	t.Cleanup(s.Close)
	return s
}

// workloadKubeconfig is a kubeconfig as Cluster API writes one, reaching
// server with a token.
func workloadKubeconfig(server, token string) []byte {
	return []byte(`apiVersion: v1
kind: Config
clusters:
- name: web-1
  cluster: {server: "` + server + `"}
users:
- name: web-1-admin
  user: {token: ` + token + `}
contexts:
- name: web-1-admin@web-1
  context: {cluster: web-1, user: web-1-admin, namespace: shop}
current-context: web-1-admin@web-1
`)
}

// writeManagementKubeconfig writes a kubeconfig whose context mgmt reaches
// server, and returns its path.
func writeManagementKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: mgmt
  cluster: {server: "`+server+`"}
users:
- name: mgmt
  user: {token: management-token}
contexts:
- name: mgmt
  context: {cluster: mgmt, user: mgmt, namespace: capi}
current-context: mgmt
`), 0o600))
	return path
}

var web1 = members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}}

// TestCAPIRESTConfig: a member from Cluster API gets its client
// configuration from the kubeconfig in its Cluster's Secret, with what
// every member gets from the run (user agent, timeout, --as), and the
// Secret is read once per run: once per cache.
func TestCAPIRESTConfig(t *testing.T) {
	mg := newManagementServer(t, workloadKubeconfig("https://web-1.example:6443", "workload-token"))
	a := members.Access{Kubeconfig: writeManagementKubeconfig(t, mg.URL), UserAgent: "fedctl/test", Timeout: 3 * time.Second,
		Impersonate: members.Impersonation{User: "jane"}, CAPI: members.NewCAPICache()}

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			cfg, err := a.RESTConfig(web1)
			if assert.NoError(t, err) {
				assert.Equal(t, "https://web-1.example:6443", cfg.Host)
				assert.Equal(t, "workload-token", cfg.BearerToken)
				assert.Equal(t, "fedctl/test", cfg.UserAgent)
				assert.Equal(t, 3*time.Second, cfg.Timeout)
				assert.Equal(t, "jane", cfg.Impersonate.UserName, "--as applies to the member")
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), mg.requests.Load(), "eight clients of one run, one read of the Secret")
	assert.Equal(t, "shop", members.ContextNamespace(a, web1), "the namespace of the kubeconfig's current context")
	assert.Equal(t, int32(1), mg.requests.Load())
	assert.Equal(t, "capi", members.CAPINamespace(a, *web1.CAPI), "the management context's namespace")

	// A new run reads the Secret again: a rotation is seen.
	mg.mu.Lock()
	mg.value = workloadKubeconfig("https://web-1-new.example:6443", "rotated-token")
	mg.mu.Unlock()
	next := a
	next.CAPI = members.NewCAPICache()
	cfg, err := next.RESTConfig(web1)
	require.NoError(t, err)
	assert.Equal(t, "https://web-1-new.example:6443", cfg.Host)
	assert.Equal(t, int32(2), mg.requests.Load())
	cfg, err = a.RESTConfig(web1)
	require.NoError(t, err)
	assert.Equal(t, "https://web-1.example:6443", cfg.Host, "a run keeps what it read")

	// Without a cache (an Access built by hand), every call reads.
	a.CAPI = nil
	_, err = a.RESTConfig(web1)
	require.NoError(t, err)
	_, err = a.RESTConfig(web1)
	require.NoError(t, err)
	assert.Equal(t, int32(4), mg.requests.Load())
}

// TestCAPIRESTConfigErrors: what goes wrong is said with the member, the
// management context, the Secret and what to run next, and never with
// anything of the Secret's content.
func TestCAPIRESTConfigErrors(t *testing.T) {
	const leak = "s3cr3t-t0ken-do-not-print"
	tests := []struct {
		name    string
		value   []byte
		wantErr string
	}{
		{
			name:    "no Secret",
			value:   nil,
			wantErr: "cluster web-1: Secret capi/web-1-kubeconfig not found in management cluster mgmt: is the Cluster provisioned? kubectl --context mgmt -n capi get cluster web-1",
		},
		{
			name:    "a kubeconfig that cannot be parsed",
			value:   []byte("apiVersion: v1\nkind: Config\nusers:\n- name: x\n  user: {token: [" + leak + "\n"),
			wantErr: `cluster web-1: the kubeconfig in Secret capi/web-1-kubeconfig (key "value") in management cluster mgmt cannot be parsed; compare it with what clusterctl get kubeconfig web-1 -n capi --kubeconfig-context mgmt gives`,
		},
		{
			name:    "a kubeconfig of the wrong shape",
			value:   []byte("users: " + leak + "\n"),
			wantErr: `cluster web-1: the kubeconfig in Secret capi/web-1-kubeconfig (key "value") in management cluster mgmt cannot be parsed; compare it with what clusterctl get kubeconfig web-1 -n capi --kubeconfig-context mgmt gives`,
		},
		{
			name:    "no current context",
			value:   []byte(strings.Replace(string(workloadKubeconfig("https://x", leak)), "current-context: web-1-admin@web-1", "current-context: nope", 1)),
			wantErr: `cluster web-1: the kubeconfig in Secret capi/web-1-kubeconfig (key "value") in management cluster mgmt has no current context, which names the context fedctl uses`,
		},
		{
			name:    "a credential plugin",
			value:   []byte(strings.Replace(string(workloadKubeconfig("https://x", leak)), "user: {token: "+leak+"}", "user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/touch, args: [/tmp/pwned-"+leak+"]}}", 1)),
			wantErr: `cluster web-1: the kubeconfig in Secret capi/web-1-kubeconfig (key "value") in management cluster mgmt runs a credential plugin (exec); fedctl takes only credentials held in the Secret itself, as Cluster API writes them (whoever can write a Secret there must not be able to run commands or read files where fedctl runs)`,
		},
		{
			name:    "credential files",
			value:   []byte(strings.Replace(string(workloadKubeconfig("https://x", leak)), "user: {token: "+leak+"}", "user: {client-certificate: /etc/"+leak+", client-key: /etc/key}", 1)),
			wantErr: `cluster web-1: the kubeconfig in Secret capi/web-1-kubeconfig (key "value") in management cluster mgmt names credential files; fedctl takes only credentials held in the Secret itself, as Cluster API writes them (whoever can write a Secret there must not be able to run commands or read files where fedctl runs)`,
		},
		{
			name:    "an empty value",
			value:   []byte{},
			wantErr: `cluster web-1: Secret capi/web-1-kubeconfig in management cluster mgmt has no data key "value", where Cluster API keeps the kubeconfig; is it Cluster API's kubeconfig Secret? kubectl --context mgmt -n capi describe secret web-1-kubeconfig`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mg := newManagementServer(t, tt.value)
			a := members.Access{Kubeconfig: writeManagementKubeconfig(t, mg.URL), CAPI: members.NewCAPICache()}
			_, err := a.RESTConfig(web1)
			require.EqualError(t, err, tt.wantErr)
			assert.NotContains(t, err.Error(), leak)
			assert.EqualError(t, members.RequestError(err), strings.TrimPrefix(tt.wantErr, "cluster web-1: "), "reports that name the member leave the name out")
			h := members.Probe(context.Background(), a, web1)
			assert.Equal(t, "ConfigMalformed", h.State(), "get clusters shows such a member as KubeFed does a malformed config")
			assert.Equal(t, members.CAPIPhaseUnknown, h.ClusterAPI.Phase, "this management cluster serves no Cluster API")
			assert.NotContains(t, h.ClusterAPI.Message+h.Message(), leak)
		})
	}

	// The management context is looked up like a member's.
	a := members.Access{Kubeconfig: writeManagementKubeconfig(t, "http://127.0.0.1:1")}
	_, err := a.RESTConfig(members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "other", Namespace: "capi", Cluster: "web-1"}})
	assert.EqualError(t, err, `cluster web-1: management context "other" in kubeconfig `+a.Kubeconfig+`: not found; available contexts: mgmt`)
}

// TestManagementClusterDown: a management cluster that answers 503 makes
// its members unreachable (Offline, ClusterNotReachable), not
// misconfigured; once a read has found it down, the other members' reads
// in the run fail at once instead of each waiting out its own timeout, and
// the members are made concurrently by Clients.
func TestManagementClusterDown(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Reason: metav1.StatusReasonServiceUnavailable, Code: http.StatusServiceUnavailable, Message: "down"})
	}))
	t.Cleanup(srv.Close)
	a := members.Access{Kubeconfig: writeManagementKubeconfig(t, srv.URL), CAPI: members.NewCAPICache(), Timeout: time.Second}
	var ms []members.Member
	for _, name := range []string{"web-1", "web-2", "web-3", "web-4"} {
		ms = append(ms, members.Member{Name: name, CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: name}})
	}

	first := members.Probe(context.Background(), a, ms[0])
	assert.Equal(t, "Offline", first.State(), first.Message())
	assert.Contains(t, first.Message(), "management cluster mgmt")
	assert.Equal(t, members.CAPIPhaseUnknown, first.ClusterAPI.Phase)
	sent := requests.Load()
	require.Positive(t, sent)
	for _, m := range ms[1:] {
		h := members.Probe(context.Background(), a, m)
		assert.Equal(t, "Offline", h.State(), "%s: %s", m.Name, h.Message())
	}
	assert.Equal(t, sent, requests.Load(), "the other members' Clusters and Secrets are not read again while it is down")

	fed := members.New()
	for _, m := range ms {
		require.NoError(t, fed.Put(m, false))
	}
	clients := members.Clients(fed, a, members.NewMemberClient)
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() { _, errs[i] = clients(m.Name) })
	}
	wg.Wait()
	for i, err := range errs {
		var capiErr *members.ClusterAPIError
		require.ErrorAs(t, err, &capiErr, ms[i].Name)
		assert.True(t, capiErr.Unreachable, ms[i].Name)
	}
	assert.Equal(t, sent, requests.Load())
}

// TestCAPISecretReadStopsWithTheRun: a management cluster that never
// answers holds a member's client only until the run ends (Ctrl-C), not
// for the whole --timeout, though the read is made on Access's own
// account, outside any request a caller bounds.
func TestCAPISecretReadStopsWithTheRun(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithCancel(context.Background())
	a := members.Access{Kubeconfig: writeManagementKubeconfig(t, srv.URL), CAPI: members.NewCAPICache(), Timeout: 10 * time.Minute, Context: ctx}
	m := members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}}
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := a.RESTConfig(m)
	var capiErr *members.ClusterAPIError
	require.ErrorAs(t, err, &capiErr)
	assert.Contains(t, err.Error(), "context canceled", "ended by the run's context, not by the 10-minute timeout")
}
