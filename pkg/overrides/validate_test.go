package overrides_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
)

// decodeOverrides reads spec.overrides the way the federated object decoder
// does (encoding/json): a missing value is a nil Value, "value": null is
// the JSON null.
func decodeOverrides(t testing.TB, text string) []federation.ClusterOverrides {
	t.Helper()
	var ovs []federation.ClusterOverrides
	require.NoError(t, json.Unmarshal([]byte(text), &ovs))
	return ovs
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ovs     string
		wantErr []string // every problem, in order
	}{
		{name: "no overrides are valid", ovs: `[]`},
		{
			name: "every op, an empty op, /apiVersion, escaped keys and an explicit null are valid",
			ovs: `[
				{"clusterName": "eu-1", "clusterOverrides": [
					{"op": "add", "path": "/metadata/labels/tier", "value": "gold"},
					{"op": "remove", "path": "/spec/strategy"},
					{"op": "replace", "path": "/spec/replicas", "value": 3},
					{"path": "/spec/template/spec/containers/0/image", "value": "nginx:1.27"},
					{"path": "/apiVersion", "value": "networking.k8s.io/v1"},
					{"path": "/metadata/annotations/example.com~1owner", "value": "a~0b"},
					{"op": "replace", "path": "/spec/paused", "value": null},
					{"op": "add", "path": "/metadata", "value": {}}
				]},
				{"clusterName": "us-1", "clusterOverrides": [{"path": "/spec/replicas", "value": 1}]},
				{"clusterName": "ap-1"}
			]`,
		},
		{
			name:    "a cluster listed twice is reported at the second entry",
			ovs:     `[{"clusterName": "eu-1"}, {"clusterName": "us-1"}, {"clusterName": "eu-1"}]`,
			wantErr: []string{`spec.overrides[2].clusterName: cluster "eu-1" appears more than once (also spec.overrides[0])`},
		},
		{
			name: "a path used twice for one cluster is reported at the second use",
			ovs: `[{"clusterName": "eu-1", "clusterOverrides": [
				{"path": "/spec/replicas", "value": 1},
				{"op": "add", "path": "/spec/paused", "value": true},
				{"op": "remove", "path": "/spec/replicas"}
			]}]`,
			wantErr: []string{`spec.overrides[0].clusterOverrides[2].path: path "/spec/replicas" appears more than once for cluster "eu-1" (also clusterOverrides[0])`},
		},
		{
			name: "the same path for different clusters is valid",
			ovs:  `[{"clusterName": "eu-1", "clusterOverrides": [{"path": "/a", "value": 1}]}, {"clusterName": "us-1", "clusterOverrides": [{"path": "/a", "value": 2}]}]`,
		},
		{
			name: "name, namespace, generateName and kind cannot be overridden",
			ovs: `[{"clusterName": "eu-1", "clusterOverrides": [
				{"path": "/metadata/name", "value": "x"},
				{"op": "remove", "path": "/metadata/namespace"},
				{"op": "add", "path": "/metadata/generateName", "value": "x-"},
				{"path": "/kind", "value": "StatefulSet"}
			]}]`,
			wantErr: []string{
				`spec.overrides[0].clusterOverrides[0].path: path "/metadata/name" cannot be overridden: the name associates the federated object with its member objects`,
				`spec.overrides[0].clusterOverrides[1].path: path "/metadata/namespace" cannot be overridden: the namespace associates the federated object with its member objects`,
				`spec.overrides[0].clusterOverrides[2].path: path "/metadata/generateName" cannot be overridden: the name associates the federated object with its member objects`,
				`spec.overrides[0].clusterOverrides[3].path: path "/kind" cannot be overridden: the kind comes from the federated type and must not vary across member clusters`,
			},
		},
		{
			name: "ops other than add, remove and replace are rejected, case-sensitively",
			ovs: `[{"clusterName": "eu-1", "clusterOverrides": [
				{"op": "move", "path": "/a"},
				{"op": "test", "path": "/b", "value": 1},
				{"op": "Replace", "path": "/c", "value": 1}
			]}]`,
			wantErr: []string{
				`spec.overrides[0].clusterOverrides[0].op: unsupported op "move": must be add, remove or replace (empty means replace)`,
				`spec.overrides[0].clusterOverrides[1].op: unsupported op "test": must be add, remove or replace (empty means replace)`,
				`spec.overrides[0].clusterOverrides[2].op: unsupported op "Replace": must be add, remove or replace (empty means replace)`,
			},
		},
		{
			name: "paths must be JSON pointers starting with a slash with valid escapes",
			ovs: `[{"clusterName": "eu-1", "clusterOverrides": [
				{"path": "", "value": {}},
				{"path": "spec/replicas", "value": 1},
				{"path": "/metadata/annotations/a~2b", "value": "x"},
				{"op": "remove", "path": "/metadata/annotations/a~"}
			]}]`,
			wantErr: []string{
				`spec.overrides[0].clusterOverrides[0].path: path is empty: it must be a JSON pointer to a field, such as "/spec/replicas"`,
				`spec.overrides[0].clusterOverrides[1].path: path "spec/replicas" is not a JSON pointer: it must start with "/"`,
				`spec.overrides[0].clusterOverrides[2].path: path "/metadata/annotations/a~2b" is not a valid JSON pointer: "~" must be followed by "0" or "1" (~0 is "~", ~1 is "/")`,
				`spec.overrides[0].clusterOverrides[3].path: path "/metadata/annotations/a~" is not a valid JSON pointer: "~" must be followed by "0" or "1" (~0 is "~", ~1 is "/")`,
			},
		},
		{
			// KubeFed wrote null for a missing value; that is almost always a
			// forgotten value, and "value: null" still writes null.
			name: "add and replace without a value are rejected, remove needs none",
			ovs: `[{"clusterName": "eu-1", "clusterOverrides": [
				{"op": "add", "path": "/a"},
				{"op": "replace", "path": "/b"},
				{"path": "/c"},
				{"op": "remove", "path": "/d"},
				{"op": "replace", "path": "/e", "value": null}
			]}]`,
			wantErr: []string{
				`spec.overrides[0].clusterOverrides[0].value: value is required for op "add" (KubeFed wrote null for a missing value; write "value: null" for that)`,
				`spec.overrides[0].clusterOverrides[1].value: value is required for op "replace" (KubeFed wrote null for a missing value; write "value: null" for that)`,
				`spec.overrides[0].clusterOverrides[2].value: value is required for op "replace" (KubeFed wrote null for a missing value; write "value: null" for that)`,
			},
		},
		{
			name: "every problem of every entry is reported in field order",
			ovs: `[
				{"clusterName": "eu-1", "clusterOverrides": [{"op": "copy", "path": "kind"}, {"path": "/kind", "value": "X"}]},
				{"clusterName": "eu-1", "clusterOverrides": [{"op": "add", "path": "/x"}]}
			]`,
			wantErr: []string{
				`spec.overrides[0].clusterOverrides[0].op: unsupported op "copy": must be add, remove or replace (empty means replace)`,
				`spec.overrides[0].clusterOverrides[0].path: path "kind" is not a JSON pointer: it must start with "/"`,
				`spec.overrides[0].clusterOverrides[1].path: path "/kind" cannot be overridden: the kind comes from the federated type and must not vary across member clusters`,
				`spec.overrides[1].clusterName: cluster "eu-1" appears more than once (also spec.overrides[0])`,
				`spec.overrides[1].clusterOverrides[0].value: value is required for op "add" (KubeFed wrote null for a missing value; write "value: null" for that)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := overrides.Validate(decodeOverrides(t, tt.ovs))
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, problems(t, err))
		})
	}
}

// TestValidateValues covers values that cannot come out of the decoder but
// can be built in code.
func TestValidateValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		value   json.RawMessage
		wantErr string
	}{
		{name: "a value with surrounding whitespace is valid", value: json.RawMessage(" [1] \n")},
		{name: "a null with surrounding whitespace is valid", value: json.RawMessage(" null ")},
		{name: "invalid JSON is rejected", value: json.RawMessage(`{"a":`), wantErr: `spec.overrides[0].clusterOverrides[0].value: value is not valid JSON`},
		{
			name:    "a number beyond float64 is rejected",
			value:   json.RawMessage(`1e400`),
			wantErr: `spec.overrides[0].clusterOverrides[0].value: value cannot be decoded: json: cannot unmarshal number 1e400 into Go value of type float64`,
		},
		{
			name:    "an empty value counts as missing",
			value:   json.RawMessage{},
			wantErr: `spec.overrides[0].clusterOverrides[0].value: value is required for op "replace" (KubeFed wrote null for a missing value; write "value: null" for that)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := overrides.Validate([]federation.ClusterOverrides{{ClusterName: "eu-1", ClusterOverrides: []federation.Override{{Path: "/a", Value: tt.value}}}})
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, []string{tt.wantErr}, problems(t, err))
		})
	}
}

// problems lists the problems of a Validate error and checks that each one
// is a *FieldError whose Field starts its message.
func problems(t *testing.T, err error) []string {
	t.Helper()
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "Validate joins its problems")
	var out []string
	for _, e := range joined.Unwrap() {
		var fe *overrides.FieldError
		require.True(t, errors.As(e, &fe), "%v is a *FieldError", e)
		assert.Equal(t, fe.Field+": "+fe.Err.Error(), e.Error())
		out = append(out, e.Error())
	}
	return out
}
