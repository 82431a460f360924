package karmada

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
)

// TestPruned: the fields Karmada's RemoveIrrelevantFields takes out of a
// template before it sends it to members, per kind; the input's maps are
// not modified.
func TestPruned(t *testing.T) {
	for _, tc := range []struct {
		kind, name, in, want string
	}{
		{"Service", "web", `spec: {clusterIP: 10.96.0.5, clusterIPs: [10.96.0.5], ports: [{port: 80}]}`, `spec: {ports: [{port: 80}]}`},
		{"Service", "web", `spec: {clusterIP: None}`, `spec: {clusterIP: None}`},
		{"Deployment", "web", `metadata: {annotations: {deployment.kubernetes.io/revision: "3", team: a}}`, `metadata: {annotations: {team: a}}`},
		{"Job", "pi", `spec: {ttlSecondsAfterFinished: 100, selector: {matchLabels: {controller-uid: u, app: pi}}, template: {metadata: {labels: {controller-uid: u, job-name: pi, batch.kubernetes.io/job-name: pi, app: pi}}}}`,
			`spec: {selector: {matchLabels: {app: pi}}, template: {metadata: {labels: {app: pi}}}}`},
		{"Job", "pi", `spec: {manualSelector: true, selector: {matchLabels: {controller-uid: u}}}`, `spec: {manualSelector: true, selector: {matchLabels: {controller-uid: u}}}`},
		{"Secret", "tok", `{type: kubernetes.io/service-account-token, metadata: {annotations: {kubernetes.io/service-account.name: sa, kubernetes.io/service-account.uid: u}}, data: {token: eA==}}`,
			`{type: kubernetes.io/service-account-token, metadata: {annotations: {kubernetes.io/service-account.name: sa}}}`},
		{"Secret", "plain", `{type: Opaque, data: {k: eA==}}`, `{type: Opaque, data: {k: eA==}}`},
		{"ServiceAccount", "sa", `secrets: [{name: sa-token-abcde}, {name: other}]`, `secrets: [{name: other}]`},
		{"PersistentVolumeClaim", "data", `metadata: {annotations: {volume.kubernetes.io/selected-node: n1}}`, `metadata: {annotations: {}}`},
	} {
		var in, want map[string]any
		assert.NoError(t, yaml.Unmarshal([]byte(tc.in), &in))
		assert.NoError(t, yaml.Unmarshal([]byte(tc.want), &want))
		before, _ := yaml.Marshal(in)
		got := pruned(tc.kind, tc.name, federation.Template(in))
		assert.Equal(t, want, map[string]any(got), "%s %s", tc.kind, tc.in)
		after, _ := yaml.Marshal(in)
		assert.Equal(t, string(before), string(after), "the input is not modified: %s", tc.kind)
	}
}
