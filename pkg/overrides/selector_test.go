package overrides_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/overrides"
)

// TestApplySelector: fedctl's overrides by clusterSelector (kubefed#581,
// #1462). The entries that apply to a member, by name or by its labels,
// apply in list order; for a path a later entry sets again, the later one
// wins.
func TestApplySelector(t *testing.T) {
	t.Parallel()
	eu := overrides.Member{Name: "eu-1", Labels: map[string]string{"region": "eu", "tier": "prod"}}
	us := overrides.Member{Name: "us-1", Labels: map[string]string{"region": "us", "tier": "prod"}}
	ovs := decodeOverrides(t, `[
		{"clusterSelector": {}, "clusterOverrides": [{"path": "/a", "value": "all"}, {"op": "add", "path": "/list/-", "value": "all"}]},
		{"clusterSelector": {"matchLabels": {"region": "eu"}}, "clusterOverrides": [{"path": "/a", "value": "eu"}, {"path": "/b", "value": "eu"}]},
		{"clusterName": "eu-1", "clusterOverrides": [{"path": "/b", "value": "eu-1"}]},
		{"clusterSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["prod"]}]}, "clusterOverrides": [{"op": "add", "path": "/list/-", "value": "prod"}]}
	]`)
	obj := decodeObject(t, `{"a": "base", "list": []}`)

	got, err := overrides.ApplyTo(obj, eu, ovs)
	require.NoError(t, err)
	assert.Equal(t, decodeObject(t, `{"a": "eu", "b": "eu-1", "list": ["prod"]}`), got,
		"/a: the eu selector after the {} one; /b: the named entry after the eu one; /list/-: only the last entry's add")
	got, err = overrides.ApplyTo(obj, us, ovs)
	require.NoError(t, err)
	assert.Equal(t, decodeObject(t, `{"a": "all", "list": ["prod"]}`), got)
	got, err = overrides.ApplyTo(obj, overrides.Member{Name: "ap-1", Labels: map[string]string{"region": "ap"}}, ovs)
	require.NoError(t, err)
	assert.Equal(t, decodeObject(t, `{"a": "all", "list": ["all"]}`), got, "only the {} selector")
	assert.Equal(t, decodeObject(t, `{"a": "base", "list": []}`), obj, "obj is not modified")

	steps, _, err := overrides.ExplainTo(obj, eu, ovs)
	require.NoError(t, err)
	var fields []string
	for _, s := range steps {
		fields = append(fields, s.Field)
	}
	assert.Equal(t, []string{"spec.overrides[1].clusterOverrides[0]", "spec.overrides[2].clusterOverrides[0]", "spec.overrides[3].clusterOverrides[0]"}, fields,
		"explain names each operation's own entry")
	_, _, superseded, err := overrides.ExplainSuperseded(obj, eu, ovs)
	require.NoError(t, err)
	assert.Equal(t, []overrides.Superseded{
		{Field: "spec.overrides[0].clusterOverrides[0]", Entry: 0, Item: 0, Op: "replace", Path: "/a", By: "spec.overrides[1].clusterOverrides[0]", ByEntry: 1, ByItem: 0},
		{Field: "spec.overrides[0].clusterOverrides[1]", Entry: 0, Item: 1, Op: "add", Path: "/list/-", By: "spec.overrides[3].clusterOverrides[0]", ByEntry: 3, ByItem: 0},
		{Field: "spec.overrides[1].clusterOverrides[1]", Entry: 1, Item: 1, Op: "replace", Path: "/b", By: "spec.overrides[2].clusterOverrides[0]", ByEntry: 2, ByItem: 0},
	}, superseded, "what later wins left out, and by what")

	// A failure names the entry and item of the operation that failed.
	_, err = overrides.ApplyTo(obj, us, decodeOverrides(t, `[
		{"clusterName": "us-1", "clusterOverrides": [{"path": "/a", "value": 1}]},
		{"clusterSelector": {"matchLabels": {"region": "us"}}, "clusterOverrides": [{"op": "remove", "path": "/missing"}]}
	]`))
	var ae *overrides.ApplyError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "spec.overrides[1].clusterOverrides[0]", ae.Field)
	assert.Equal(t, [2]int{1, 0}, [2]int{ae.Entry, ae.Item})

	assert.True(t, overrides.Matches(ovs[0], overrides.Member{Name: "x"}), "{} selects every member, labels or not")
	assert.False(t, overrides.Matches(ovs[1], us))
	assert.True(t, overrides.Matches(ovs[2], eu))
	assert.False(t, overrides.Matches(decodeOverrides(t, `[{"clusterOverrides": []}]`)[0], eu), "an entry that names no member and has no selector applies nowhere")
}

func TestValidateSelector(t *testing.T) {
	t.Parallel()
	err := overrides.Validate(decodeOverrides(t, `[
		{"clusterSelector": {"matchLabels": {"region": "eu"}}, "clusterOverrides": [{"path": "/a", "value": 1}, {"path": "/a", "value": 2}]},
		{"clusterName": "eu-1", "clusterSelector": {}},
		{"clusterSelector": {"matchExpressions": [{"key": "region", "operator": "Near"}]}},
		{"clusterOverrides": [{"path": "/a", "value": 1}]},
		{"clusterSelector": {}}, {"clusterSelector": {}}
	]`))
	var msgs []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		msgs = append(msgs, e.Error())
	}
	assert.Equal(t, []string{
		`spec.overrides[0].clusterOverrides[1].path: path "/a" appears more than once in this entry (also clusterOverrides[0])`,
		`spec.overrides[1].clusterSelector: give clusterName or clusterSelector, not both`,
		`spec.overrides[2].clusterSelector: "Near" is not a valid label selector operator`,
		`spec.overrides[3].clusterName: is required: name one member, or give clusterSelector to select members by label`,
	}, msgs, "two selector entries may be alike: only names must be unique")
}
