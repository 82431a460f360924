package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestStatusFederationV1: status reads Federation v1 input as it reads
// KubeFed's: one row per member for the Namespace and the Deployment, each
// member's planned replicas, OK where apply left them; and the TYPE NAME
// form finds the members' objects by the federated object they came from.
func TestStatusFederationV1(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	file := writeFile(t, dir, "app.yaml", `apiVersion: v1
kind: Namespace
metadata: {name: statusv1}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: statusv1
  annotations:
    federation.kubernetes.io/deployment-preferences: '{"clusters": {"cluster1": {"weight": 2}, "*": {"weight": 1}}}'
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 10m}}}]
`)
	apply(t, file)

	r := runStatus(t, "-f", file, "--wait", "--timeout", "90s")
	require.NoError(t, r.err)
	assert.Regexp(t, `Deployment\s+statusv1\s+web\s+cluster1\s+OK\s+Current\s+2\s+2\n`, r.out)
	assert.Regexp(t, `Deployment\s+statusv1\s+web\s+cluster2\s+OK\s+Current\s+1\s+1\n`, r.out)
	assert.Regexp(t, `Namespace\s+statusv1\s+statusv1\s+cluster3\s+OK\s+Current`, r.out)
	assert.Contains(t, r.errOut, "2 federated objects, 6 member objects")

	r = runStatus(t, "fdeploy", "web", "-n", "statusv1")
	require.NoError(t, r.err)
	assert.Regexp(t, `Deployment\s+statusv1\s+web\s+cluster3\s+OK\s+Current\s+1\s+1\n`, r.out)
}
