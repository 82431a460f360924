package apply

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var serviceGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}

// karmadaApp is a Karmada-style app: a Namespace, a Deployment and a
// Service as plain manifests, a PropagationPolicy dividing the Deployment
// by static weights, one placing Services by region, and an OverridePolicy
// changing the image registry for the us member. withService false leaves
// the Service out (to prune it).
func karmadaApp(ns, weights string, withService bool) string {
	doc := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: %[1]s, labels: {app: api}}
spec:
  replicas: 6
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: "registry.example.com/store/api:1.4.2"}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: api, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: api}]
  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
%[2]s
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: services, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Service}]
  placement:
    clusterAffinity:
      fieldSelector:
        matchExpressions: [{key: region, operator: In, values: [eu-west-1, eu-west-2]}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: image, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  overrideRules:
  - targetCluster:
      fieldSelector:
        matchExpressions: [{key: region, operator: In, values: [us-east-1]}]
    overriders:
      imageOverrider: [{component: Registry, operator: replace, value: mirror.us.example.com}]
`, ns, weights)
	if withService {
		doc += fmt.Sprintf(`---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: %s}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
`, ns)
	}
	return doc
}

func weightList(w ...int) string {
	out := ""
	for i, n := range w {
		out += fmt.Sprintf("        - targetCluster: {clusterNames: [%s]}\n          weight: %d\n", clusterNames[i], n)
	}
	return out
}

// TestApplyKarmada: Karmada input goes through apply like KubeFed's: the
// Deployment divided 1:2:3 by Webster, the us member's image from its
// mirror, the Service only in the European members (fieldSelector on the
// members' regions); a re-apply writes nothing; new weights move the
// replicas; a Service left out of the input is pruned; status reads them.
func TestApplyKarmada(t *testing.T) {
	fed := members.New()
	for i, c := range clusterNames {
		_ = fed.Put(members.Member{Name: c, Region: []string{"eu-west-1", "eu-west-2", "us-east-1"}[i]}, false)
	}
	dir := t.TempDir()
	const ns = "karmada-app"
	prune := []string{"-f", dir, "--prune", "--applyset", "store", "-n", ns}
	write(t, dir, karmadaApp(ns, weightList(1, 2, 3), true))

	r := runApply(t, fed, prune...)
	require.NoError(t, r.err, r.errOut)
	assertAll(t, r, "Deployment", ns, "api", propagate.Created)
	for i, c := range clusterNames {
		d := mustGet(t, c, deployGVR, ns, "api")
		assert.Equal(t, int64(i+1), d.Object["spec"].(map[string]any)["replicas"], "replicas in %s", c)
		image := d.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]
		want := "registry.example.com/store/api:1.4.2"
		if c == "cluster3" {
			want = "mirror.us.example.com/store/api:1.4.2"
		}
		assert.Equal(t, want, image, "image in %s", c)
	}
	mustGet(t, "cluster1", serviceGVR, ns, "api")
	mustGet(t, "cluster2", serviceGVR, ns, "api")
	_, err := get(t, "cluster3", serviceGVR, ns, "api")
	assert.True(t, apierrors.IsNotFound(err), "no Service in the us member: %v", err)

	r = runApply(t, fed, prune...)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "a re-apply writes nothing to %s", c)
	}

	// New weights: 3:2:1 moves replicas; the Service leaves the input and
	// is pruned where it was.
	write(t, dir, karmadaApp(ns, weightList(3, 2, 1), false))
	r = runApply(t, fed, prune...)
	require.NoError(t, r.err, r.errOut)
	for i, c := range clusterNames {
		assert.Equal(t, int64(3-i), mustGet(t, c, deployGVR, ns, "api").Object["spec"].(map[string]any)["replicas"], "replicas in %s", c)
	}
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Equal(t, propagate.Deleted, r.action(c, "Service", ns, "api"), "pruned from %s", c)
		_, err := get(t, c, serviceGVR, ns, "api")
		assert.True(t, apierrors.IsNotFound(err), "Service gone from %s: %v", c, err)
	}
}

// TestApplyKarmadaClusterAffinities: clusterAffinities are decided live
// by apply: with the primary group's member not answering, the Deployment
// goes to the backup group's member, which stderr says; once the member
// answers again, the next apply moves it back and removes it from the
// backup member.
func TestApplyKarmadaClusterAffinities(t *testing.T) {
	d := newFaultDrill(t)
	dir := t.TempDir()
	const ns = "karmada-affinities"
	write(t, dir, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: %[1]s}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: nginx}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: api, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinities:
    - {affinityName: primary, clusterNames: [cluster2]}
    - {affinityName: backup, clusterNames: [cluster3]}
`, ns))
	for _, c := range clusterNames {
		createNamespace(t, c, ns)
	}

	// cluster2 answers 503 to everything: the probe finds it not ready,
	// and apply, which still lists what fedctl owns there, gives up on it
	// at --deadline and reports it failed (exit 3).
	d.proxy.Set(testenv.Faults{Status: 503})
	r := d.apply(t, "-f", dir, "--timeout", "2s", "--deadline", "10s")
	var partial *cmdutil.PartialError
	require.ErrorAs(t, r.err, &partial, r.errOut)
	assert.Equal(t, []string{"cluster2"}, partial.Failed)
	assert.Regexp(t, `members not answering: cluster2 \(API server https://\S+ \(context "cluster2-proxied"\): the server is currently unable to handle the request\); replica plans and placements that depend on it use the members that answer`, r.errOut)
	assert.Equal(t, propagate.Created, r.action("cluster3", "Deployment", ns, "api"))
	_, err := get(t, "cluster2", deployGVR, ns, "api")
	assert.True(t, apierrors.IsNotFound(err), "nothing in the member that does not answer: %v", err)

	d.proxy.Set(testenv.Faults{})
	r = d.apply(t, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.NotContains(t, r.errOut, "not answering")
	assert.Equal(t, propagate.Created, r.action("cluster2", "Deployment", ns, "api"))
	assert.Equal(t, propagate.Deleted, r.action("cluster3", "Deployment", ns, "api"), "back in the primary group, gone from the backup")
}

// createNamespace creates ns in cluster directly, as a namespace that
// exists before fedctl runs.
func createNamespace(t *testing.T, cluster, ns string) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	_, err := client(t, cluster).Resource(nsGVR).Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
}
