package status

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestStatusKarmada: status --wait reads Karmada input as it reads
// KubeFed's: the Deployment divided 1:2:3 by its PropagationPolicy is
// Current in every member with each member's share, the image the
// OverridePolicy gives one member running there too.
func TestStatusKarmada(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	file := writeFile(t, dir, "app.yaml", `apiVersion: v1
kind: Namespace
metadata: {name: statuskarmada}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: statuskarmada}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: 10m}}}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: statuskarmada}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [cluster1]}, weight: 1}
        - {targetCluster: {clusterNames: [cluster2]}, weight: 2}
        - {targetCluster: {clusterNames: [cluster3]}, weight: 3}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: tag, namespace: statuskarmada}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  overrideRules:
  - targetCluster: {clusterNames: [cluster3]}
    overriders:
      imageOverrider: [{component: Tag, operator: replace, value: "1.27-alpine"}]
`)
	apply(t, file)

	r := runStatus(t, "-f", file, "--wait", "--timeout", "90s")
	require.NoError(t, r.err)
	assert.Regexp(t, `Deployment\s+statuskarmada\s+web\s+cluster1\s+OK\s+Current\s+1\s+1\n`, r.out)
	assert.Regexp(t, `Deployment\s+statuskarmada\s+web\s+cluster2\s+OK\s+Current\s+2\s+2\n`, r.out)
	assert.Regexp(t, `Deployment\s+statuskarmada\s+web\s+cluster3\s+OK\s+Current\s+3\s+3\n`, r.out)
	assert.Contains(t, r.errOut, "2 federated objects, 6 member objects: 6 Current")
}

// TestStatusConditionTimes: the Propagation condition and each member's
// entry carry when fedctl last changed the member object (its apply's
// managedFields time), so that a pipeline can tell a change just applied
// from an old one.
func TestStatusConditionTimes(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	file := writeFile(t, dir, "app.yaml", namespaceDoc("statustimes")+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: statustimes}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`)
	before := time.Now().UTC().Add(-time.Second).Format(time.RFC3339)
	apply(t, file)
	r := runStatus(t, "-f", file, "-o", "json")
	require.NoError(t, r.err)
	var list struct {
		Items []struct {
			Kind   string
			Status struct {
				Conditions []struct{ LastUpdateTime, LastTransitionTime string }
				Clusters   []struct{ Name, LastUpdateTime string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.out), &list))
	require.NotEmpty(t, list.Items)
	for _, it := range list.Items {
		cond := it.Status.Conditions[0]
		assert.GreaterOrEqual(t, cond.LastUpdateTime, before, "%s: applied just now", it.Kind)
		assert.Equal(t, cond.LastUpdateTime, cond.LastTransitionTime)
		for _, c := range it.Status.Clusters {
			assert.NotEmpty(t, c.LastUpdateTime, "%s in %s", it.Kind, c.Name)
			assert.LessOrEqual(t, c.LastUpdateTime, cond.LastUpdateTime)
		}
	}
}
