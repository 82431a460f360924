package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/dialect/kubefed"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// docsOf splits text as manifest.Read splits a file called name.
func docsOf(t *testing.T, name, text string) []manifest.Document {
	t.Helper()
	docs, err := manifest.Split(name, []byte(text))
	require.NoError(t, err)
	return docs
}

func errLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestDecode: what no dialect reads is an error at its line, duplicates are
// found across the input, and every problem comes in input order.
func TestDecode(t *testing.T) {
	t.Parallel()
	const fcm = "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: %s, namespace: shop}\nspec: {placement: {clusterSelector: {}}}\n"
	for _, tc := range []struct {
		name        string
		text        string
		wantObjects []string
		wantErrs    []string
		wantWarn    []string
	}{
		{
			name:        "federated objects in input order",
			text:        strings.ReplaceAll(fcm, "%s", "b") + "---\n" + strings.ReplaceAll(fcm, "%s", "a"),
			wantObjects: []string{"FederatedConfigMap shop/b", "FederatedConfigMap shop/a"},
		},
		{
			name: "a plain object, a missing kind and a syntax error, in order",
			text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n---\napiVersion: types.kubefed.io/v1beta1\nmetadata: {name: nokind}\n---\nkind: [\n",
			wantErrs: []string{
				`in.yaml:1: ConfigMap plain: is not a federated object; convert it with "fedctl federate -f in.yaml"`,
				"in.yaml:5: object nokind: kind: is missing",
				"in.yaml:8: invalid YAML: did not find expected node content",
			},
		},
		{
			name:        "a duplicate is reported at the second definition",
			text:        strings.ReplaceAll(fcm, "%s", "a") + "---\n" + strings.ReplaceAll(fcm, "%s", "a"),
			wantObjects: []string{"FederatedConfigMap shop/a"},
			wantErrs:    []string{"in.yaml:8: FederatedConfigMap shop/a: metadata.name: defined twice (also at in.yaml:1)"},
		},
		{
			name: "a missing apiVersion is named as such",
			text: "kind: FederatedConfigMap\nmetadata: {name: a, namespace: shop}\n",
			wantErrs: []string{
				"in.yaml:1: FederatedConfigMap shop/a: apiVersion: is missing; federated objects are in types.kubefed.io/v1beta1",
			},
		},
		{
			name:     "KubeFed's control plane is ignored with a warning",
			text:     "apiVersion: core.kubefed.io/v1beta1\nkind: KubeFedCluster\nmetadata: {name: c1}\n",
			wantWarn: []string{`in.yaml:1: KubeFedCluster c1: ignored: fedctl has no control plane (enable types with "fedctl enable", join clusters with "fedctl join")`},
		},
		{
			name: "a type that is not enabled",
			text: "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedStatefulSet\nmetadata: {name: db, namespace: shop}\n",
			wantErrs: []string{
				`in.yaml:1: FederatedStatefulSet shop/db: kind: FederatedStatefulSet is not enabled; enable its target type with "fedctl enable statefulset"`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := Decode(docsOf(t, "in.yaml", tc.text), typeconfig.Builtin(), "default", nil)
			var ids []string
			for _, o := range set.Objects {
				ids = append(ids, o.ID())
			}
			assert.Equal(t, tc.wantObjects, ids)
			assert.Equal(t, tc.wantErrs, errLines(err))
			var warns []string
			for _, w := range set.Warnings {
				warns = append(warns, w.Error())
			}
			assert.Equal(t, tc.wantWarn, warns)
		})
	}
}

// TestDecodeKustomizeOutputHint: a plain object of -k's build output is
// not pointed at "fedctl federate -f" on its output's name, which no
// command reads, but at the kustomization piped into federate.
func TestDecodeKustomizeOutputHint(t *testing.T) {
	t.Parallel()
	docs := docsOf(t, "overlays/prod (kustomize output of base/cm.yaml)", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n")
	docs[0].Kustomization = "overlays/prod"
	_, err := Decode(docs, typeconfig.Builtin(), "default", nil)
	assert.Equal(t, []string{
		`overlays/prod (kustomize output of base/cm.yaml):1: ConfigMap plain: is not a federated object; convert the kustomization's output with "fedctl federate -k overlays/prod"`,
	}, errLines(err))
}

// plainDialect is a second dialect for the test below: it reads plain
// ConfigMaps, each placed everywhere, as a policy-based dialect would.
type plainDialect struct{ claimNamespaces bool }

func (plainDialect) Name() string { return "Plain" }

func (p plainDialect) Claim(docs []dialect.Doc, _ []bool) []bool {
	out := make([]bool, len(docs))
	for i, d := range docs {
		out[i] = d.Err == nil && (d.Head.Kind == "ConfigMap" || (p.claimNamespaces && d.Head.Kind == "FederatedNamespace"))
	}
	return out
}

func (plainDialect) Read(in dialect.Input, claimed []bool) (*federation.Set, error) {
	set := &federation.Set{}
	for i, c := range claimed {
		if !c {
			continue
		}
		h := in.Docs[i].Head
		o := &federation.Object{Origin: federation.Origin{Dialect: "Plain", Doc: i}}
		var m map[string]any
		pos, err := in.Docs[i].Parsed.DecodeStrict(&m)
		if err != nil {
			return nil, err
		}
		o.Pos = pos
		o.Kind, o.Name, o.Namespace = "FederatedConfigMap", h.Metadata.Name, h.Metadata.Namespace
		set.Objects = append(set.Objects, o)
	}
	return set, nil
}

// TestDecodeWithTwoDialects: objects of several dialects come in input
// order, a duplicate across dialects is an error, and so is a document two
// dialects claim. Not parallel: it swaps Dialects.
func TestDecodeWithTwoDialects(t *testing.T) {
	saved := Dialects
	defer func() { Dialects = saved }()
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first, namespace: shop}\n" +
		"---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop}\nspec: {placement: {clusterSelector: {}}}\n" +
		"---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: first, namespace: shop}\nspec: {placement: {clusterSelector: {}}}\n"

	Dialects = []dialect.Dialect{kubefed.Dialect{}, plainDialect{}}
	set, err := Decode(docsOf(t, "in.yaml", text), typeconfig.Builtin(), "default", nil)
	require.Len(t, set.Objects, 2)
	assert.Equal(t, "Plain", set.Objects[0].Origin.Dialect, "the ConfigMap comes first, as in the input")
	assert.Equal(t, "FederatedNamespace shop/shop", set.Objects[1].ID())
	assert.Equal(t, []string{"in.yaml:12: FederatedConfigMap shop/first: metadata.name: defined twice (also at in.yaml:1)"}, errLines(err),
		"the second definition is the error, whichever dialect read the first")

	Dialects = []dialect.Dialect{kubefed.Dialect{}, plainDialect{claimNamespaces: true}}
	_, err = Decode(docsOf(t, "in.yaml", text), typeconfig.Builtin(), "default", nil)
	assert.Contains(t, errLines(err), "in.yaml:5: FederatedNamespace shop: read by two input dialects, KubeFed and Plain")
}

// spyDialect counts the calls Decode makes to it, claiming nothing.
type spyDialect struct{ claims, reads *int }

func (spyDialect) Name() string { return "Spy" }

func (s spyDialect) Claim(docs []dialect.Doc, _ []bool) []bool {
	*s.claims++
	return make([]bool, len(docs))
}

func (s spyDialect) Read(dialect.Input, []bool) (*federation.Set, error) {
	*s.reads++
	return &federation.Set{}, nil
}

// TestDecodeAsksOnlyWhileDocumentsAreLeft: once every document is
// claimed, later dialects are not asked, and a dialect that claims nothing
// is not asked to read. Not parallel: it swaps Dialects.
func TestDecodeAsksOnlyWhileDocumentsAreLeft(t *testing.T) {
	saved := Dialects
	defer func() { Dialects = saved }()
	var claims, reads int
	Dialects = []dialect.Dialect{kubefed.Dialect{}, spyDialect{&claims, &reads}}
	federated := "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop}\nspec: {placement: {clusterSelector: {}}}\n"
	set, err := Decode(docsOf(t, "in.yaml", federated), typeconfig.Builtin(), "default", nil)
	require.NoError(t, err)
	require.Len(t, set.Objects, 1)
	assert.Zero(t, claims, "every document was KubeFed's")

	_, err = Decode(docsOf(t, "in.yaml", federated+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), typeconfig.Builtin(), "default", nil)
	require.Error(t, err, "a document no dialect claims is still an error")
	assert.Equal(t, 1, claims, "a document was left: the spy was asked")
	assert.Zero(t, reads, "it claimed nothing, so it read nothing")
}
