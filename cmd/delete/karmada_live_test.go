package delete

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestDeleteKarmada: delete -f on Karmada input removes what apply made of
// it: the Deployment where its policy divided replicas (not where it got
// none) and the Namespace everywhere Karmada's namespace sync put it.
func TestDeleteKarmada(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: v1
kind: Namespace
metadata: {name: delkarmada}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: delkarmada}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: delkarmada}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {}
`), 0o600))
	runApply(t, fed, "-f", dir)
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	exists := func(cluster string) bool {
		cfg, err := e.RESTConfig(cluster)
		require.NoError(t, err)
		c, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		_, err = c.Resource(deployments).Namespace("delkarmada").Get(context.Background(), "web", metav1.GetOptions{})
		return err == nil
	}
	// 2 replicas by equal weights over three members: one member gets none.
	placed := map[string]bool{}
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		placed[c] = exists(c)
	}
	require.Len(t, placed, 3)
	n := 0
	for _, p := range placed {
		if p {
			n++
		}
	}
	require.Equal(t, 2, n, "a member divided 0 replicas gets no object: %v", placed)

	rep, _, err := runDelete(t, fed, "-f", dir)
	require.NoError(t, err)
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		if placed[c] {
			assert.Equal(t, propagate.Deleted, action(rep, c, "web"), "in %s", c)
		}
		assert.Equal(t, propagate.Deleted, action(rep, c, "delkarmada"), "the Namespace in %s", c)
		assert.False(t, exists(c), "in %s", c)
	}
}
