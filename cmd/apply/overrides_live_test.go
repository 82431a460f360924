package apply

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestApplyOverrideExtensions: overrides by cluster selector and typed
// container overrides reach the members as render shows them: the eu
// members (by label) get the eu tag with the digest kept, us's named entry
// its own variable; a re-apply writes nothing.
func TestApplyOverrideExtensions(t *testing.T) {
	fed := federationOf() // cluster1, cluster2: region eu; cluster3: us
	dir := t.TempDir()
	const ns = "ovx"
	write(t, dir, namespaceDoc(ns)+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: ovx}
spec:
  template:
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers:
          - name: web
            image: nginx:1.27@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
            env: [{name: MODE, value: default}]
  placement: {clusterSelector: {}}
  overrides:
  - clusterSelector: {matchLabels: {region: eu}}
    containers: [{name: web, tag: 1.27-eu}]
  - clusterName: cluster3
    containers: [{name: web, env: [{name: MODE, value: us}]}]
`)
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	want := map[string][2]string{
		"cluster1": {"nginx:1.27-eu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "default"},
		"cluster2": {"nginx:1.27-eu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "default"},
		"cluster3": {"nginx:1.27@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "us"},
	}
	for _, c := range clusterNames {
		d := mustGet(t, c, deployGVR, ns, "web")
		containers, _, err := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		require.NoError(t, err)
		web := containers[0].(map[string]any)
		env := web["env"].([]any)[0].(map[string]any)
		assert.Equal(t, want[c], [2]string{web["image"].(string), env["value"].(string)}, c)
	}
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "a re-apply writes nothing to %s", c)
	}
}
