package diff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/propagate"
)

func TestWriteDiffTrees(t *testing.T) {
	t.Parallel()
	live := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "7", "generation": int64(2),
			"creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": []any{map[string]any{"manager": "fedctl"}},
			"annotations": map[string]any{federation.HashAnnotation: "abc", federation.GenerationAnnotation: "2"}, "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"replicas": int64(1)}}}
	merged := live.DeepCopy()
	_ = unstructured.SetNestedField(merged.Object, int64(3), "spec", "replicas")
	_ = unstructured.SetNestedField(merged.Object, "8", "metadata", "resourceVersion")
	_ = unstructured.SetNestedField(merged.Object, int64(3), "metadata", "generation")
	unchanged := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop", "resourceVersion": "1"}}}
	unchangedMerged := unchanged.DeepCopy()
	_ = unstructured.SetNestedField(unchangedMerged.Object, "2", "metadata", "resourceVersion")
	gone := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"password": "aHVudGVyMg=="}}}
	gone.SetName("db")
	gone.SetNamespace("shop")
	report := &propagate.Report{Clusters: []propagate.ClusterResult{{Cluster: "eu-1", Comparisons: []propagate.Comparison{
		{Object: propagate.ObjectResult{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}, Live: live, Merged: merged},
		{Object: propagate.ObjectResult{APIVersion: "v1", Kind: "Namespace", Name: "shop"}, Live: unchanged, Merged: unchangedMerged},
		{Object: propagate.ObjectResult{APIVersion: "v1", Kind: "Secret", Namespace: "shop", Name: "db"}, Live: gone},
	}}}}
	liveDir, mergedDir := t.TempDir(), t.TempDir()
	differ, err := WriteDiffTrees(report, liveDir, mergedDir)
	require.NoError(t, err)
	assert.Equal(t, 2, differ, "the Deployment and the deleted Secret; the Namespace differs only in resourceVersion")

	read := func(dir, name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(data)
	}
	assert.Equal(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: web
  name: web
  namespace: shop
spec:
  replicas: 1
`, read(liveDir, "eu-1_apps.v1.Deployment.shop.web"))
	assert.Contains(t, read(mergedDir, "eu-1_apps.v1.Deployment.shop.web"), "replicas: 3\n")
	assert.Equal(t, read(liveDir, "eu-1_v1.Namespace..shop"), read(mergedDir, "eu-1_v1.Namespace..shop"))
	assert.Equal(t, "apiVersion: v1\ndata:\n  password: '***'\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\n", read(liveDir, "eu-1_v1.Secret.shop.db"))
	assert.NoFileExists(t, filepath.Join(mergedDir, "eu-1_v1.Secret.shop.db"), "deleted: no merged file")
	assert.Equal(t, "u-1", string(live.GetUID()), "the report's objects are not modified")
	assert.Equal(t, "aHVudGVyMg==", gone.Object["data"].(map[string]any)["password"])
}
