package apply

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// fedv1App is Federation v1 input: a plain Namespace and a Deployment whose
// replicas the deployment-preferences annotation splits.
func fedv1App(ns, prefs string, replicas int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: %[1]s
  labels: {app: web}
  annotations:
    federation.kubernetes.io/deployment-preferences: '%[2]s'
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`, ns, prefs, replicas)
}

// TestApplyFederationV1: Federation v1 input goes through apply like
// KubeFed's: the Namespace to every member, the Deployment split by its
// annotation (which no member receives), a member planned 0 replicas still
// gets the object, a re-apply writes nothing, and a new annotation moves
// the replicas.
func TestApplyFederationV1(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "fedv1"
	write(t, dir, fedv1App(ns, `{"clusters": {"cluster1": {"weight": 2}, "cluster2": {"weight": 1}, "cluster3": {"maxReplicas": 0, "weight": 1}}}`, 6))

	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "Namespace", "", ns, propagate.Created)
	assertAll(t, r, "Deployment", ns, "web", propagate.Created)
	want := map[string]int64{"cluster1": 4, "cluster2": 2, "cluster3": 0}
	for _, c := range clusterNames {
		d := mustGet(t, c, deployGVR, ns, "web")
		assert.Equal(t, want[c], d.Object["spec"].(map[string]any)["replicas"], "replicas in %s", c)
		assert.NotContains(t, d.GetAnnotations(), "federation.kubernetes.io/deployment-preferences", "the annotation is not sent to %s", c)
		assert.Equal(t, "FederatedDeployment/"+ns+"/web", d.GetAnnotations()["fedctl.io/federated-object"])
	}

	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "a re-apply writes nothing to %s", c)
	}

	write(t, dir, fedv1App(ns, `{"clusters": {"*": {"weight": 1}}}`, 6))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster3", "Deployment", ns, "web"))
	for _, c := range clusterNames {
		assert.Equal(t, int64(2), mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"], "an even split in %s", c)
	}

	// An annotation that does not parse: Federation v1's even split, said
	// on stderr with the file and line.
	write(t, dir, fedv1App(ns, `{"clusters": `, 3))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Contains(t, r.errOut, "manifests.yaml:12: Deployment fedv1/web: metadata.annotations.federation.kubernetes.io/deployment-preferences: is not valid JSON")
	for _, c := range clusterNames {
		assert.Equal(t, int64(1), mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"], "%s", c)
	}
}
