package members

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamespaceContentsRetriesEachList: a list that fails transiently is
// sent again on its own; the lists that answered are not (Retrying leaves
// NamespaceContents to the client, which retries each of its requests).
func TestNamespaceContentsRetriesEachList(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"/api":          `{"kind":"APIVersions","versions":["v1"]}`,
		"/api/v1":       `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list"]}]}`,
		"/apis":         `{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
		"/apis/apps/v1": `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list"]}]}`,
		"/api/v1/namespaces/shop/configmaps": `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[` +
			`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"cfg","namespace":"shop"}}]}`,
		"/apis/apps/v1/namespaces/shop/deployments": `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[` +
			`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web","namespace":"shop"}}]}`,
	}
	var mu sync.Mutex
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		n := calls[r.URL.Path]
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		body, ok := bodies[r.URL.Path]
		if !ok || (r.URL.Path == "/api/v1/namespaces/shop/configmaps" && n == 1) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"restarting","reason":"ServiceUnavailable","code":503}`))
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	kubeconfig := fakeKubeconfig(t, srv.URL)
	c, err := NewMemberClient(Access{Kubeconfig: kubeconfig}, Member{Name: "fake"})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a request this server does not expect fails, and does not hang
	defer cancel()
	objs, err := c.NamespaceContents(ctx, "shop")
	require.NoError(t, err, "the 503 is ridden out")
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+" "+o.GetName())
	}
	assert.ElementsMatch(t, []string{"ConfigMap cfg", "Deployment web"}, names)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, calls["/api/v1/namespaces/shop/configmaps"], "the failed list, again")
	assert.Equal(t, 1, calls["/apis/apps/v1/namespaces/shop/deployments"], "the others once")
}
