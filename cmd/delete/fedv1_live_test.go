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

// TestDeleteFederationV1: delete -f on Federation v1 input removes what
// apply made of it, in every member, as for KubeFed's input: the
// Deployment, including where it was planned 0 replicas, and then the
// Namespace.
func TestDeleteFederationV1(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: v1
kind: Namespace
metadata: {name: delv1}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: delv1
  annotations:
    federation.kubernetes.io/deployment-preferences: '{"clusters": {"cluster1": {"weight": 1}, "cluster2": {"weight": 1}, "cluster3": {"maxReplicas": 0}}}'
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`), 0o600))
	runApply(t, fed, "-f", dir)
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	exists := func(cluster string) bool {
		cfg, err := e.RESTConfig(cluster)
		require.NoError(t, err)
		c, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		_, err = c.Resource(deployments).Namespace("delv1").Get(context.Background(), "web", metav1.GetOptions{})
		return err == nil
	}
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		require.True(t, exists(c), "apply made the Deployment in %s (0 replicas in cluster3)", c)
	}

	rep, _, err := runDelete(t, fed, "-f", dir)
	require.NoError(t, err)
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		assert.Equal(t, propagate.Deleted, action(rep, c, "web"), "in %s", c)
		assert.Equal(t, propagate.Deleted, action(rep, c, "delv1"), "the Namespace in %s", c)
		assert.False(t, exists(c), "in %s", c)
	}
}
