package overrides_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/overrides"
)

const deploymentJSON = `{"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {
	"initContainers": [{"name": "init", "image": "busybox:1.36"}],
	"containers": [
		{"name": "web", "image": "registry.example.com:5000/shop/web:1.0@sha256:abc", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
		 "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
		{"name": "sidecar", "image": "envoy:1.30", "args": ["--old"]}
	]}}}}`

// TestApplyContainers: fedctl's typed container overrides, by container
// name, in containers and initContainers, with digests kept by a tag.
func TestApplyContainers(t *testing.T) {
	t.Parallel()
	eu := overrides.Member{Name: "eu-1", Labels: map[string]string{"region": "eu"}}
	tests := []struct {
		name, obj, ovs string
		want           string // JSON of the pod spec after
		wantErr        string
	}{
		{
			name: "every field of one container; the others untouched",
			obj:  deploymentJSON,
			ovs: `[{"clusterName": "eu-1", "containers": [{"name": "web", "image": "web:2", "command": ["/web"], "args": ["-v"],
				"env": [{"name": "B", "value": "two"}, {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
				"resources": {"limits": {"cpu": "2"}, "requests": {"cpu": "500m"}}}]}]`,
			want: `{"initContainers": [{"name": "init", "image": "busybox:1.36"}], "containers": [
				{"name": "web", "image": "web:2", "command": ["/web"], "args": ["-v"],
				 "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "two"}, {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
				 "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "500m"}}},
				{"name": "sidecar", "image": "envoy:1.30", "args": ["--old"]}]}`,
		},
		{
			name: "a tag keeps the registry's port, the repository and the digest; an init container is found by name",
			obj:  deploymentJSON,
			ovs:  `[{"clusterName": "eu-1", "containers": [{"name": "web", "tag": "1.1"}, {"name": "init", "tag": "1.37"}]}]`,
			want: `{"initContainers": [{"name": "init", "image": "busybox:1.37"}], "containers": [
				{"name": "web", "image": "registry.example.com:5000/shop/web:1.1@sha256:abc", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
				{"name": "sidecar", "image": "envoy:1.30", "args": ["--old"]}]}`,
		},
		{
			name: "entries merge in list order, field by field; a JSON patch after them wins on its path",
			obj:  deploymentJSON,
			ovs: `[{"clusterSelector": {}, "containers": [{"name": "sidecar", "image": "envoy:1.31", "args": ["--all"]}]},
				{"clusterSelector": {"matchLabels": {"region": "eu"}}, "containers": [{"name": "sidecar", "args": ["--eu"]}],
				 "clusterOverrides": [{"path": "/spec/template/spec/containers/1/image", "value": "envoy:patched"}]}]`,
			want: `{"initContainers": [{"name": "init", "image": "busybox:1.36"}], "containers": [
				{"name": "web", "image": "registry.example.com:5000/shop/web:1.0@sha256:abc", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
				{"name": "sidecar", "image": "envoy:patched", "args": ["--eu"]}]}`,
		},
		{
			name: "image and tag are one field: a later tag applies to the template's image, not to an earlier entry's",
			obj:  deploymentJSON,
			ovs: `[{"clusterSelector": {}, "containers": [{"name": "sidecar", "image": "other/envoy:9"}]},
				{"clusterName": "eu-1", "containers": [{"name": "sidecar", "tag": "1.31"}]}]`,
			want: `{"initContainers": [{"name": "init", "image": "busybox:1.36"}], "containers": [
				{"name": "web", "image": "registry.example.com:5000/shop/web:1.0@sha256:abc", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
				{"name": "sidecar", "image": "envoy:1.31", "args": ["--old"]}]}`,
		},
		{
			name:    "a container that is not there",
			obj:     deploymentJSON,
			ovs:     `[{"clusterName": "eu-1", "containers": [{"name": "db", "image": "pg:16"}]}]`,
			wantErr: `cluster eu-1: spec.overrides[0].containers[0].name: no container or init container "db" in the pod template (it has web, sidecar, init)`,
		},
		{
			name:    "an object without a pod template",
			obj:     `{"apiVersion": "v1", "kind": "ConfigMap", "data": {}}`,
			ovs:     `[{"clusterName": "eu-1", "containers": [{"name": "web", "image": "x"}]}]`,
			wantErr: `cluster eu-1: spec.overrides[0].containers[0]: a ConfigMap has no pod template; typed container overrides apply to Pods, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := decodeObject(t, tt.obj)
			got, err := overrides.ApplyTo(obj, eu, decodeOverrides(t, tt.ovs))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, decodeObject(t, tt.want), got["spec"].(map[string]any)["template"].(map[string]any)["spec"])
			assert.Equal(t, decodeObject(t, tt.obj), obj, "obj is not modified")
		})
	}
}

// TestApplyContainersCronJob: a CronJob's pod template is the job
// template's (Karmada's overriders leave CronJobs alone; fedctl's do not).
func TestApplyContainersCronJob(t *testing.T) {
	t.Parallel()
	obj := decodeObject(t, `{"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "job", "image": "backup:1"}]}}}}}}`)
	got, err := overrides.ApplyTo(obj, overrides.Member{Name: "eu-1"}, decodeOverrides(t, `[{"clusterName": "eu-1", "containers": [{"name": "job", "tag": "2"}]}]`))
	require.NoError(t, err)
	assert.Equal(t, "backup:2", got["spec"].(map[string]any)["jobTemplate"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"])

	steps, _, err := overrides.ExplainTo(obj, overrides.Member{Name: "eu-1"}, decodeOverrides(t, `[{"clusterName": "eu-1", "containers": [{"name": "job", "tag": "2"}]}]`))
	require.NoError(t, err)
	require.Len(t, steps, 1)
	assert.Equal(t, overrides.Applied{Entry: -1, Index: -1, Field: "spec.overrides[0].containers[0].tag", Op: "replace",
		Path: "/spec/jobTemplate/spec/template/spec/containers/0/image", Old: "backup:1", HadOld: true, New: "backup:2"}, steps[0])
}

func TestValidateContainers(t *testing.T) {
	t.Parallel()
	err := overrides.Validate(decodeOverrides(t, `[{"clusterName": "eu-1", "containers": [
		{"image": "x"},
		{"name": "web", "image": "web:2", "tag": "3"},
		{"name": "web"},
		{"name": "api", "tag": "repo:1", "env": [{"name": ""}, {"name": "A", "value": "1", "valueFrom": {}}, {"name": "A"}],
		 "resources": {"limits": {"cpu": "lots"}, "requests": {"memory": "1Gi"}}}
	]}]`))
	require.Error(t, err)
	var msgs []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		msgs = append(msgs, e.Error())
	}
	assert.Equal(t, []string{
		`spec.overrides[0].containers[0].name: is required: the container (or init container) to override`,
		`spec.overrides[0].containers[1].tag: give image (the whole reference) or tag (only the tag), not both`,
		`spec.overrides[0].containers[2].name: container "web" appears more than once (also spec.overrides[0].containers[1])`,
		`spec.overrides[0].containers[3].tag: "repo:1" is not a tag: give only what follows the colon, e.g. 1.27`,
		`spec.overrides[0].containers[3].env[0].name: is required`,
		`spec.overrides[0].containers[3].env[1]: give value or valueFrom, not both`,
		`spec.overrides[0].containers[3].env[2].name: variable "A" appears more than once`,
		`spec.overrides[0].containers[3].resources.limits.cpu: "lots" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}, msgs)
}
