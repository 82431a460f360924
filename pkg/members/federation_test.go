package members_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func doc(text string) manifest.Document {
	return manifest.Document{File: "config.yaml", Line: 1, Data: []byte(text)}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    *members.Federation
		wantErr []string // every line of the error, in order
	}{
		{
			name: "an empty file is an empty federation",
			in:   "",
			want: members.New(),
		},
		{
			name: "members are sorted by name and the context defaults to the name",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: us-1
  labels: {region: us-east-1}
- name: eu-1
  context: kind-eu-1
  kubeconfig: kube/eu.yaml
types:
- {group: apps, version: v1, kind: StatefulSet, plural: statefulsets, scope: Namespaced}
defaults:
  color: never
`,
			want: &members.Federation{
				APIVersion: members.APIVersion, Kind: members.Kind,
				Clusters: []members.Member{
					{Name: "eu-1", Context: "kind-eu-1", Kubeconfig: "kube/eu.yaml"},
					{Name: "us-1", Labels: map[string]string{"region": "us-east-1"}},
				},
				Types:    []typeconfig.Type{{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: "Namespaced"}},
				Defaults: &members.Defaults{Color: "never"},
			},
		},
		{
			name: "a namespace scope and migrations",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
namespace: team
clusters:
- name: a
  migrations: [{selector: app=web, to: b, since: "2026-11-25T00:00:00Z"}]
- name: b
`,
			want: &members.Federation{
				APIVersion: members.APIVersion, Kind: members.Kind, Namespace: "team", Types: []typeconfig.Type{},
				Clusters: []members.Member{{Name: "a", Migrations: []members.Migration{{Selector: "app=web", To: "b", Since: "2026-11-25T00:00:00Z"}}}, {Name: "b"}},
			},
		},
		{
			name: "a namespace must be a DNS label; a migration needs a selector and another member",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
namespace: Team_1
clusters:
- name: a
  migrations:
  - {selector: "", to: b}
  - {selector: "app in (", to: a}
  - {selector: app=web, to: nowhere}
- name: b
`,
			wantErr: []string{
				`config.yaml:3: namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`config.yaml:7: clusters[0].migrations[0].selector: must be a non-empty label selector: ""`,
				`config.yaml:8: clusters[0].migrations[1].selector: must be a non-empty label selector: "app in ("`,
				`config.yaml:8: clusters[0].migrations[1].to: must name another member, got "a"`,
				`config.yaml:9: clusters[0].migrations[2].to: must name another member, got "nowhere"`,
			},
		},
		{
			name: "disabledTypes names default types",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
types:
- {group: apps, version: v1, kind: StatefulSet, plural: statefulsets, scope: Namespaced}
disabledTypes: [jobs.batch, services]
`,
			want: &members.Federation{
				APIVersion: members.APIVersion, Kind: members.Kind, Clusters: []members.Member{},
				Types:         []typeconfig.Type{{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: "Namespaced"}},
				DisabledTypes: []string{"jobs.batch", "services"},
			},
		},
		{
			name: "disabledTypes must name default types, once, and not enabled ones",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
types:
- {group: apps, version: v1beta2, kind: Deployment, plural: deployments, scope: Namespaced}
disabledTypes:
- deployments
- statefulsets.apps
- secrets
- secrets
- deployments.apps
`,
			wantErr: []string{
				`config.yaml:6: disabledTypes[0]: "deployments" is not a default type; disabledTypes names default types: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services`,
				`config.yaml:7: disabledTypes[1]: "statefulsets.apps" is not a default type; disabledTypes names default types: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services`,
				`config.yaml:9: disabledTypes[3]: "secrets" is listed twice (also disabledTypes[2])`,
				`config.yaml:10: disabledTypes[4]: "deployments.apps" is disabled and also enabled by types[0]; keep one of the two`,
			},
		},
		{
			name: "a type enabled twice is named at its second entry",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
types:
- {group: apps, version: v1, kind: StatefulSet, plural: statefulsets, scope: Namespaced}
- {group: apps, version: v1beta2, kind: StatefulSet, plural: statefulsets, scope: Namespaced}
`,
			wantErr: []string{`config.yaml:5: types[1]: statefulsets.apps is enabled twice (also types[0]); keep one (fedctl disable, then enable the version wanted)`},
		},
		{
			name:    "disabledTypes is a list of names",
			in:      "apiVersion: fedctl.io/v1alpha1\nkind: Federation\ndisabledTypes: {jobs.batch: true}\n",
			wantErr: []string{`config.yaml:3: disabledTypes: must be a list, got a mapping`},
		},
		{
			name:    "a typo names the line and the field it meant",
			in:      "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n  lables: {x: y}\n",
			wantErr: []string{`config.yaml:5: clusters[0]: unknown field "lables" (did you mean "labels"?)`},
		},
		{
			name:    "duplicate cluster names are rejected at the second one",
			in:      "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n- name: b\n- name: a\n",
			wantErr: []string{`config.yaml:6: clusters[2].name: duplicate cluster name "a" (also clusters[0])`},
		},
		{
			name: "semantic problems are all reported with their lines",
			in: `apiVersion: fedctl.io/v1
kind: Federation
clusters:
- name: Bad_Name
  labels:
    "bad key!": ok
types:
- {version: v1, kind: X, plural: xs, scope: Everywhere}
defaults: {color: sometimes}
`,
			wantErr: []string{
				`config.yaml:1: apiVersion: must be "fedctl.io/v1alpha1", got "fedctl.io/v1"`,
				`config.yaml:4: clusters[0].name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`config.yaml:6: clusters[0].labels.bad key!: invalid label key "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`config.yaml:8: types[0].scope: must be Namespaced or Cluster, got "Everywhere"`,
				`config.yaml:9: defaults.color: must be one of auto, always, never, got "sometimes"`,
			},
		},
		{
			name: "a member from Cluster API keeps the reference, with a management kubeconfig",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: web-1
  capi:
    managementContext: mgmt
    managementKubeconfig: kube/mgmt.yaml
    namespace: capi
    cluster: web-1
  labels: {env: prod}
`,
			want: &members.Federation{
				APIVersion: members.APIVersion, Kind: members.Kind, Types: []typeconfig.Type{},
				Clusters: []members.Member{{Name: "web-1", Labels: map[string]string{"env": "prod"},
					CAPI: &members.CAPI{ManagementContext: "mgmt", ManagementKubeconfig: "kube/mgmt.yaml", Namespace: "capi", Cluster: "web-1"}}},
			},
		},
		{
			name: "a member is reached through a context or Cluster API, not both; kubeconfig is the context's",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: a
  context: kind-a
  capi: {managementContext: mgmt, namespace: capi, cluster: a}
- name: b
  kubeconfig: kube/b.yaml
  capi:
    managementContext: mgmt
    namespace: capi
    cluster: b
`,
			wantErr: []string{
				`config.yaml:4: clusters[0]: context and capi are both set; a member is reached through a kubeconfig context or through Cluster API, not both`,
				`config.yaml:8: clusters[1].kubeconfig: kubeconfig is for a member's context; with capi, the management cluster's kubeconfig is capi.managementKubeconfig`,
			},
		},
		{
			name: "capi's fields are required, at the line of capi when missing and at their own when malformed",
			in: `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: a
  capi: {}
- name: b
  capi:
    managementContext: mgmt
    namespace: Capi_NS
    cluster: web_1
`,
			wantErr: []string{
				`config.yaml:5: clusters[0].capi.managementContext: is required: the kubeconfig context of the Cluster API management cluster`,
				`config.yaml:5: clusters[0].capi.namespace: is required: the Cluster's namespace in the management cluster`,
				`config.yaml:5: clusters[0].capi.cluster: is required: the name of the Cluster API Cluster`,
				`config.yaml:9: clusters[1].capi.namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`config.yaml:10: clusters[1].capi.cluster: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			},
		},
		{
			name: "capi is decoded strictly: a typo names its line and what was meant",
			in:   "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n  capi:\n    managementContext: mgmt\n    namespace: capi\n    clustr: a\n",
			wantErr: []string{
				`config.yaml:8: clusters[0].capi: unknown field "clustr" (did you mean "cluster"?)`,
			},
		},
		{
			name: "a credential pasted into capi is rejected with where it belongs",
			in:   "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n  capi:\n    managementContext: mgmt\n    namespace: capi\n    cluster: a\n    client-key-data: abc\n",
			wantErr: []string{
				`config.yaml:9: clusters[0].capi: unknown field "client-key-data"`,
				`credentials do not belong in the federation file: keep them in a kubeconfig and name its context with "context:"`,
			},
		},
		{
			name: "a pasted credential is rejected with where it belongs",
			in:   "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n  token: abc\n",
			wantErr: []string{
				`config.yaml:5: clusters[0]: unknown field "token"`,
				`credentials do not belong in the federation file: keep them in a kubeconfig and name its context with "context:"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := members.Decode(doc(tt.in))
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, strings.Split(err.Error(), "\n"))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEncodeKeepsTheDocumentedFieldOrder(t *testing.T) {
	t.Parallel()
	verbosity := 1
	fed := &members.Federation{
		APIVersion: members.APIVersion, Kind: members.Kind,
		Clusters:      []members.Member{{Name: "eu-1"}},
		Types:         []typeconfig.Type{{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: "Namespaced"}},
		DisabledTypes: []string{"jobs.batch"},
		Defaults:      &members.Defaults{Verbosity: &verbosity},
	}
	data, err := members.Encode(fed)
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
  - name: eu-1
types:
  - group: apps
    version: v1
    kind: StatefulSet
    plural: statefulsets
    scope: Namespaced
disabledTypes:
  - jobs.batch
defaults:
  verbosity: 1
`, string(data))
	back, err := members.Decode(doc(string(data)))
	require.NoError(t, err)
	assert.Equal(t, fed, back)

	data, err = members.Encode(members.New())
	require.NoError(t, err)
	assert.Equal(t, "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: []\ntypes: []\n", string(data), "disabledTypes is left out when empty")

	clone := fed.Clone()
	clone.DisabledTypes[0] = "changed"
	assert.Equal(t, []string{"jobs.batch"}, fed.DisabledTypes, "Clone copies disabledTypes")
}

// TestEncodeMemberFromClusterAPI: capi comes after kubeconfig and before
// labels, its fields in the documented order, and Clone copies it.
func TestEncodeMemberFromClusterAPI(t *testing.T) {
	t.Parallel()
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "web-1", Labels: map[string]string{"env": "prod"},
		CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}}, false))
	data, err := members.Encode(fed)
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
  - name: web-1
    capi:
      managementContext: mgmt
      namespace: capi
      cluster: web-1
    labels:
      env: prod
types: []
`, string(data))
	back, err := members.Decode(doc(string(data)))
	require.NoError(t, err)
	assert.Equal(t, fed, back)

	clone := fed.Clone()
	clone.Clusters[0].CAPI.Cluster = "changed"
	assert.Equal(t, "web-1", fed.Clusters[0].CAPI.Cluster, "Clone copies capi")
}

// TestMemberOrigin: what messages say reaches a member, and the kubectl
// command they suggest for it.
func TestMemberOrigin(t *testing.T) {
	t.Parallel()
	ctx := members.Member{Name: "eu-1", Context: "kind-eu-1"}
	assert.Equal(t, `context "kind-eu-1"`, ctx.Origin())
	assert.Equal(t, "kubectl --context kind-eu-1", members.Access{}.Kubectl(ctx), "the standard rules: what kubectl reads too")
	// a kubeconfig fedctl reads is named, resolved as fedctl resolves it:
	// --context alone would reach the default kubeconfig's namesake
	own := members.Member{Name: "eu-1", Context: "kubernetes-admin@kubernetes", Kubeconfig: "kube/eu 1.yaml"}
	assert.Equal(t, "kubectl --kubeconfig '/git/fed/kube/eu 1.yaml' --context kubernetes-admin@kubernetes", members.Access{BaseDir: "/git/fed"}.Kubectl(own))
	assert.Equal(t, "kubectl --kubeconfig /home/me/all.yaml --context kind-eu-1", members.Access{Kubeconfig: "/home/me/all.yaml"}.Kubectl(ctx), "fedctl's --kubeconfig")
	capi := members.Member{Name: "web", CAPI: &members.CAPI{ManagementContext: "mgmt", ManagementKubeconfig: "kube/mgmt.yaml", Namespace: "capi", Cluster: "web-1"}}
	assert.Equal(t, "", capi.ContextName(), "a member from Cluster API has no context")
	assert.Equal(t, "Cluster API cluster capi/web-1 in management cluster mgmt", capi.Origin())
	assert.Equal(t, "kubectl --kubeconfig <(clusterctl get kubeconfig web-1 -n capi --kubeconfig /git/fed/kube/mgmt.yaml --kubeconfig-context mgmt)", members.Access{BaseDir: "/git/fed"}.Kubectl(capi))
	assert.Equal(t, "kubectl --kubeconfig kube/mgmt.yaml --context mgmt -n capi get cluster web-1", capi.CAPI.Kubectl("get cluster web-1"))
	assert.EqualError(t, &members.ExistsError{Member: capi}, `cluster "web" is already a member (Cluster API cluster capi/web-1 in management cluster mgmt); use --overwrite to replace it`)
}

func TestFederationEdits(t *testing.T) {
	t.Parallel()
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "b"}, false))
	require.NoError(t, fed.Put(members.Member{Name: "a", Labels: map[string]string{"x": "1"}}, false))
	assert.Equal(t, []string{"a", "b"}, fed.Names(), "members stay sorted")

	err := fed.Put(members.Member{Name: "a", Context: "other"}, false)
	require.EqualError(t, err, `cluster "a" is already a member (context "a"); use --overwrite to replace it`)

	clone := fed.Clone()
	require.NoError(t, clone.Put(members.Member{Name: "a", Context: "other"}, true))
	clone.Clusters[1].Name = "changed"
	orig, _ := fed.Member("a")
	assert.Equal(t, "", orig.Context, "editing a clone leaves the original alone")
	assert.Equal(t, "b", fed.Clusters[1].Name)
	assert.Equal(t, map[string]string{"x": "1"}, orig.Labels)

	assert.True(t, fed.Remove("a"))
	assert.False(t, fed.Remove("a"))
	assert.Equal(t, []string{"b"}, fed.Names())
}

func TestNotMemberError(t *testing.T) {
	t.Parallel()
	assert.EqualError(t, &members.NotMemberError{Name: "x", Members: []string{"a", "b"}}, `cluster "x" is not a member (members: a, b)`)
	assert.EqualError(t, &members.NotMemberError{Name: "x"}, `cluster "x" is not a member: the federation has no members yet; run "fedctl join x --cluster-context CONTEXT"`)
}

// TestRejoined: join --overwrite takes how to reach the member and what its
// flags give, and keeps what other commands recorded.
func TestRejoined(t *testing.T) {
	old := members.Member{Name: "eu", Context: "old", Labels: map[string]string{"region": "eu"}, Provider: "aws", Region: "eu-west-1", Zones: []string{"a"},
		Cordoned: &members.Cordon{Reason: "upgrade"}, Migrations: []members.Migration{{Selector: "app=web", To: "us"}}}
	got := members.Rejoined(old, members.Member{Name: "eu", Context: "new"})
	assert.Equal(t, members.Member{Name: "eu", Context: "new", Labels: old.Labels, Provider: "aws", Region: "eu-west-1", Zones: []string{"a"}, Cordoned: old.Cordoned, Migrations: old.Migrations}, got)

	got = members.Rejoined(old, members.Member{Name: "eu", Kubeconfig: "k.yaml", Labels: map[string]string{"tier": "prod"}, Provider: "gcp", Region: "europe-west1", Zones: []string{"b"}})
	assert.Equal(t, members.Member{Name: "eu", Kubeconfig: "k.yaml", Labels: map[string]string{"tier": "prod"}, Provider: "gcp", Region: "europe-west1", Zones: []string{"b"}, Cordoned: old.Cordoned, Migrations: old.Migrations}, got, "what the flags give wins; cordon and migrations stay")
}

// TestPlain: the pure stages' data of a federation — --cluster checked,
// members as placement sees them (cordons included), every member when no
// --cluster is given, the registry less the disabled types.
func TestPlain(t *testing.T) {
	t.Parallel()
	fed := &members.Federation{
		Clusters:      []members.Member{{Name: "b", Labels: map[string]string{"env": "prod"}}, {Name: "a", Cordoned: &members.Cordon{Reason: "maintenance"}}},
		DisabledTypes: []string{"configmaps"},
	}
	p, err := fed.Plain(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, p.Clusters, "every member")
	require.Len(t, p.Members, 2)
	assert.Equal(t, "b", p.Members[0].Name, "the file's order")
	assert.Equal(t, map[string]string{"env": "prod"}, p.Members[0].Labels)
	assert.True(t, p.Members[1].Cordoned)
	_, ok := p.Types.ByFederatedKind("FederatedConfigMap")
	assert.False(t, ok, "disabled")
	_, ok = p.Types.ByFederatedKind("FederatedDeployment")
	assert.True(t, ok)

	p, err = fed.Plain([]string{"b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, p.Clusters)

	_, err = fed.Plain([]string{"b", "c"})
	var notMember *members.NotMemberError
	require.ErrorAs(t, err, &notMember)
	assert.Equal(t, "c", notMember.Name)
}
