package members

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// appsV1 is the shape of the API server's OpenAPI v3 document for apps/v1,
// cut down to what matters: Deployment refers to DeploymentSpec through an
// allOf, and DaemonSetSpec has no replicas.
const appsV1 = `{
  "openapi": "3.0.0",
  "components": {"schemas": {
    "io.k8s.api.apps.v1.Deployment": {
      "type": "object",
      "properties": {
        "apiVersion": {"type": "string"},
        "spec": {"default": {}, "allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]},
        "status": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStatus"}]}
      },
      "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    },
    "io.k8s.api.apps.v1.DeploymentSpec": {
      "type": "object",
      "properties": {"replicas": {"type": "integer", "format": "int32"}, "paused": {"type": "boolean"}}
    },
    "io.k8s.api.apps.v1.DeploymentStatus": {"type": "object", "properties": {"replicas": {"type": "integer", "format": "int32"}}},
    "io.k8s.api.apps.v1.DaemonSet": {
      "type": "object",
      "properties": {"spec": {"$ref": "#/components/schemas/io.k8s.api.apps.v1.DaemonSetSpec"}},
      "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "DaemonSet", "version": "v1"}]
    },
    "io.k8s.api.apps.v1.DaemonSetSpec": {"type": "object", "properties": {"minReadySeconds": {"type": "integer", "format": "int32"}}},
    "com.example.v1.Thing": {
      "type": "object",
      "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}},
      "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Thing", "version": "v1"}]
    },
    "com.example.v1.Loop": {
      "type": "object",
      "properties": {"spec": {"$ref": "#/components/schemas/com.example.v1.Loop"}},
      "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Loop", "version": "v1"}]
    }
  }}
}`

func TestOpenAPIIntegerReplicas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		t                   typeconfig.Type
		wantFound, wantRepl bool
	}{
		{"an int32 replicas behind allOf and $ref", typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment"}, true, true},
		{"a spec without replicas", typeconfig.Type{Group: "apps", Version: "v1", Kind: "DaemonSet"}, true, false},
		{"an integer without format int32 does not count", typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Thing"}, true, false},
		{"a cyclic reference ends", typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Loop"}, true, false},
		{"another version is another schema", typeconfig.Type{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, false, false},
		{"a status replicas is not a spec replicas", typeconfig.Type{Group: "apps", Version: "v1", Kind: "DeploymentStatus"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found, replicas, err := openAPIIntegerReplicas([]byte(appsV1), tt.t)
			require.NoError(t, err)
			assert.Equal(t, tt.wantFound, found, "found")
			assert.Equal(t, tt.wantRepl, replicas, "replicas")
		})
	}
	_, _, err := openAPIIntegerReplicas([]byte("<html>"), typeconfig.Type{})
	assert.ErrorContains(t, err, "decode: ")
}

func TestCRDIntegerReplicas(t *testing.T) {
	t.Parallel()
	spec := func(replicas apiextv1.JSONSchemaProps) *apiextv1.CustomResourceValidation {
		return &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
			Type: "object",
			Properties: map[string]apiextv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"replicas": replicas}},
			},
		}}
	}
	crd := func(versions ...*apiextv1.CustomResourceValidation) *apiextv1.CustomResourceDefinition {
		c := &apiextv1.CustomResourceDefinition{}
		for _, v := range versions {
			c.Spec.Versions = append(c.Spec.Versions, apiextv1.CustomResourceDefinitionVersion{Schema: v})
		}
		return c
	}
	int32Schema := spec(apiextv1.JSONSchemaProps{Type: "integer", Format: "int32"})
	assert.True(t, crdIntegerReplicas(crd(int32Schema)))
	assert.False(t, crdIntegerReplicas(crd(spec(apiextv1.JSONSchemaProps{Type: "integer"}))), "format int32 is required, as in kubefedctl")
	assert.False(t, crdIntegerReplicas(crd(spec(apiextv1.JSONSchemaProps{Type: "string", Format: "int32"}))))
	assert.False(t, crdIntegerReplicas(crd(&apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}})))
	assert.False(t, crdIntegerReplicas(crd(nil)))
	assert.False(t, crdIntegerReplicas(crd()))
	// kubefedctl reads the first listed version, whichever is enabled.
	assert.False(t, crdIntegerReplicas(crd(spec(apiextv1.JSONSchemaProps{}), int32Schema)))
	assert.True(t, crdIntegerReplicas(crd(int32Schema, spec(apiextv1.JSONSchemaProps{}))))
}

// fakeServer serves legacy (non-aggregated) discovery: the core group and
// apps answer, metrics.k8s.io fails like an aggregated API whose backend
// is down. Paths in hang never answer.
func fakeServer(t *testing.T, hang ...string) (Access, Member, string) {
	t.Helper()
	lists := map[string]string{
		"/api":          `{"kind":"APIVersions","versions":["v1"]}`,
		"/api/v1":       `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get"],"shortNames":["po"]},{"name":"pods/log","namespaced":true,"kind":"Pod","verbs":["get"]}]}`,
		"/apis":         `{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]}`,
		"/apis/apps/v1": `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get"],"shortNames":["deploy"]}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slices.Contains(hang, r.URL.Path) {
			<-r.Context().Done()
			return
		}
		body, ok := lists[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"service unavailable","reason":"ServiceUnavailable","code":503}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	kubeconfig := fakeKubeconfig(t, srv.URL)
	return Access{Kubeconfig: kubeconfig}, Member{Name: "fake"}, srv.URL
}

// fakeKubeconfig writes a kubeconfig whose context "fake" reaches server
// with a token that is no credential.
func fakeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "`+server+`"}
users:
- name: u
  user: {token: t}
contexts:
- name: fake
  context: {cluster: fake, user: u}
`), 0o600))
	return path
}

func TestAPIResourcesToleratesFailedGroups(t *testing.T) {
	t.Parallel()
	a, m, _ := fakeServer(t)
	lists, err := APIResources(context.Background(), a, m)
	var de *DiscoveryError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []string{"metrics.k8s.io/v1beta1"}, slices.Sorted(maps.Keys(de.Groups)))
	assert.Equal(t, "cluster fake: some API groups could not be discovered, so their types are unknown: metrics.k8s.io/v1beta1 (service unavailable)", err.Error())

	// The groups that answered are there, core first, without subresources.
	var got []string
	for _, l := range lists {
		for _, r := range l.APIResources {
			got = append(got, l.GroupVersion+" "+r.Name)
		}
	}
	assert.Equal(t, []string{"v1 pods", "apps/v1 deployments"}, got)
	res, err := typeconfig.Resolve("deploy", "", lists)
	require.NoError(t, err)
	assert.Equal(t, "deployments.apps", res.Name())
}

func TestAPIResourcesFailures(t *testing.T) {
	t.Parallel()
	t.Run("a server that answers nothing useful", func(t *testing.T) {
		t.Parallel()
		a, m, url := fakeServer(t, "/api")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := APIResources(ctx, a, m)
		require.EqualError(t, err, `cluster fake: API server `+url+` (context "fake") did not answer in time`)
		assert.Less(t, time.Since(start), 5*time.Second, "ctx bounds discovery")
	})
	t.Run("a group that times out is no partial result", func(t *testing.T) {
		t.Parallel()
		a, m, url := fakeServer(t, "/apis/apps/v1")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := APIResources(ctx, a, m)
		require.EqualError(t, err, `cluster fake: API server `+url+` (context "fake") did not answer in time`)
	})
	t.Run("a missing context", func(t *testing.T) {
		t.Parallel()
		a, _, _ := fakeServer(t)
		_, err := APIResources(context.Background(), a, Member{Name: "x"})
		require.ErrorContains(t, err, `cluster x: context "x" in kubeconfig`)
	})
}

// lockedLog is a request log safe for the client's concurrent requests.
type lockedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
	return len(p), nil
}

func (l *lockedLog) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

// TestPartialDiscoveryCutShortIsNotKept: a run's client is shared (the
// live read, then the push). A partial discovery that the first caller's
// time cut short before its tries were up serves that caller, but is not
// kept: the next caller discovers again, with its own tries, and what it
// settles on is kept.
func TestPartialDiscoveryCutShortIsNotKept(t *testing.T) {
	t.Parallel()
	a, m, _ := fakeServer(t)
	deployments := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	// The first caller's time (45ms) holds one discovery but not the
	// backoff before a second try (at least 50ms): cut short after one
	// try. A machine too loaded for one local discovery in 45ms gets
	// another client and another go.
	var c Client
	var log *lockedLog
	for attempt := 0; c == nil && attempt < 5; attempt++ {
		log = &lockedLog{}
		a.RequestLog = log
		client, err := NewMemberClient(a, m)
		require.NoError(t, err)
		short, cancel := context.WithTimeout(context.Background(), 45*time.Millisecond)
		if _, err := client.Map(short, deployments); err == nil {
			c = client // apps was discovered: this caller maps it
		}
		cancel()
	}
	require.NotNil(t, c, "no discovery within 45ms in five goes")
	first := log.count("/apis/metrics.k8s.io/v1beta1")
	require.Positive(t, first)

	_, err := c.Map(context.Background(), deployments)
	require.NoError(t, err)
	again := log.count("/apis/metrics.k8s.io/v1beta1")
	assert.Greater(t, again, first, "the next caller discovers again")

	_, err = c.Map(context.Background(), deployments)
	require.NoError(t, err)
	assert.Equal(t, again, log.count("/apis/metrics.k8s.io/v1beta1"), "a discovery with its tries up is kept")
}
