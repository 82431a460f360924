package typeconfig_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	deployV1      = typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	deployV1beta2 = typeconfig.Type{Group: "apps", Version: "v1beta2", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	statefulSets  = typeconfig.Type{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: typeconfig.Namespaced}
	widgets       = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	exampleDeploy = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	jobs          = typeconfig.Type{Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Scope: typeconfig.Namespaced}
)

func names(ts []typeconfig.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	want := []string{
		"clusterroles.rbac.authorization.k8s.io", "configmaps", "deployments.apps", "ingresses.networking.k8s.io",
		"jobs.batch", "namespaces", "replicasets.apps", "secrets", "serviceaccounts", "services",
	}
	assert.Equal(t, want, names(typeconfig.Defaults()), "KubeFed's config/enabletypedirectives, sorted by name")
	assert.Equal(t, want, typeconfig.DefaultNames())

	versions := map[string]string{}
	scopes := map[string]typeconfig.Scope{}
	for _, d := range typeconfig.Defaults() {
		versions[d.Name()] = d.APIVersion()
		scopes[d.Name()] = d.Scope
	}
	assert.Equal(t, map[string]string{
		"clusterroles.rbac.authorization.k8s.io": "rbac.authorization.k8s.io/v1",
		"configmaps":                             "v1",
		"deployments.apps":                       "apps/v1",
		"ingresses.networking.k8s.io":            "networking.k8s.io/v1",
		"jobs.batch":                             "batch/v1",
		"namespaces":                             "v1",
		"replicasets.apps":                       "apps/v1",
		"secrets":                                "v1",
		"serviceaccounts":                        "v1",
		"services":                               "v1",
	}, versions)
	for name, s := range scopes {
		want := typeconfig.Namespaced
		if name == "namespaces" || name == "clusterroles.rbac.authorization.k8s.io" {
			want = typeconfig.Cluster
		}
		assert.Equal(t, want, s, name)
	}

	d, ok := typeconfig.Default("deployments.apps")
	require.True(t, ok)
	assert.Equal(t, deployV1, d)
	_, ok = typeconfig.Default("deployments")
	assert.False(t, ok, "Default takes the exact name")

	all := typeconfig.Defaults()
	all[0].Kind = "Changed"
	assert.Equal(t, "ClusterRole", typeconfig.Defaults()[0].Kind, "Defaults returns a copy")
}

func TestBuiltinRegistry(t *testing.T) {
	t.Parallel()
	r := typeconfig.Builtin()
	assert.Equal(t, typeconfig.Defaults(), r.Types())

	tests := []struct {
		kind string
		want string // APIVersion Kind Scope; empty: not found
	}{
		{"FederatedDeployment", "apps/v1 Deployment Namespaced"},
		{"FederatedNamespace", "v1 Namespace Cluster"},
		{"FederatedClusterRole", "rbac.authorization.k8s.io/v1 ClusterRole Cluster"},
		{"FederatedIngress", "networking.k8s.io/v1 Ingress Namespaced"},
		{"FederatedStatefulSet", ""},
		{"Deployment", ""},
		{"federateddeployment", ""},
	}
	for _, tt := range tests {
		got, ok := r.ByFederatedKind(tt.kind)
		if tt.want == "" {
			assert.False(t, ok, tt.kind)
			continue
		}
		require.True(t, ok, tt.kind)
		assert.Equal(t, tt.want, got.APIVersion()+" "+got.Kind+" "+string(got.Scope), tt.kind)
		assert.Equal(t, tt.kind, got.FederatedKind())
	}

	got, ok := r.Get("services")
	assert.True(t, ok)
	assert.Equal(t, "Service", got.Kind)
	_, ok = r.Get("svc")
	assert.False(t, ok, "Get takes the exact name")
	assert.Empty(t, r.Disabled())
}

func TestNewRegistry(t *testing.T) {
	t.Parallel()
	t.Run("an enabled type is added and found by federated kind", func(t *testing.T) {
		t.Parallel()
		r, err := typeconfig.NewRegistry([]typeconfig.Type{widgets, statefulSets}, nil)
		require.NoError(t, err)
		assert.Len(t, r.Types(), 12)
		got, ok := r.ByFederatedKind("FederatedStatefulSet")
		require.True(t, ok)
		assert.Equal(t, statefulSets, got)
		assert.True(t, slices.IsSortedFunc(r.Types(), func(a, b typeconfig.Type) int { return strings.Compare(a.Name(), b.Name()) }))
	})
	t.Run("an enabled type of a default's group and kind replaces it", func(t *testing.T) {
		t.Parallel()
		r, err := typeconfig.NewRegistry([]typeconfig.Type{deployV1beta2}, nil)
		require.NoError(t, err)
		assert.Len(t, r.Types(), 10)
		got, _ := r.ByFederatedKind("FederatedDeployment")
		assert.Equal(t, deployV1beta2, got)
		got, _ = r.Get("deployments.apps")
		assert.Equal(t, deployV1beta2, got)
		assert.True(t, r.IsDefault(deployV1beta2), "a default at another version is still a default")
	})
	t.Run("a disabled default is not federated", func(t *testing.T) {
		t.Parallel()
		r, err := typeconfig.NewRegistry(nil, []string{"jobs.batch"})
		require.NoError(t, err)
		assert.Len(t, r.Types(), 9)
		_, ok := r.ByFederatedKind("FederatedJob")
		assert.False(t, ok)
		assert.Equal(t, []typeconfig.Type{jobs}, r.Disabled())
	})
	t.Run("a federated kind freed by disabling a default can carry another group", func(t *testing.T) {
		t.Parallel()
		r, err := typeconfig.NewRegistry([]typeconfig.Type{exampleDeploy}, []string{"deployments.apps"})
		require.NoError(t, err)
		got, _ := r.ByFederatedKind("FederatedDeployment")
		assert.Equal(t, exampleDeploy, got)
	})
	t.Run("the inputs are neither kept nor modified", func(t *testing.T) {
		t.Parallel()
		enabled := []typeconfig.Type{widgets, statefulSets}
		disabled := []string{"secrets", "jobs.batch"}
		r, err := typeconfig.NewRegistry(enabled, disabled)
		require.NoError(t, err)
		assert.Equal(t, []typeconfig.Type{widgets, statefulSets}, enabled)
		assert.Equal(t, []string{"secrets", "jobs.batch"}, disabled)
		enabled[0].Kind = "Changed"
		_, ok := r.ByFederatedKind("FederatedWidget")
		assert.True(t, ok)
	})

	errTests := []struct {
		name     string
		enabled  []typeconfig.Type
		disabled []string
		wantErr  []string
	}{
		{
			name:     "a disabled name must be a default type, spelled exactly",
			disabled: []string{"deployments", "statefulsets.apps"},
			wantErr: []string{
				`disabledTypes: "deployments" is not a default type (default types: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services)`,
				`disabledTypes: "statefulsets.apps" is not a default type (default types: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services)`,
			},
		},
		{name: "a name disabled twice", disabled: []string{"secrets", "secrets"}, wantErr: []string{`disabledTypes: "secrets" is listed twice`}},
		{
			name:    "a type enabled twice",
			enabled: []typeconfig.Type{deployV1beta2, deployV1},
			wantErr: []string{`types: deployments.apps is enabled twice (apps/v1beta2 and apps/v1)`},
		},
		{
			name:     "a type both enabled and disabled",
			enabled:  []typeconfig.Type{deployV1beta2},
			disabled: []string{"deployments.apps"},
			wantErr:  []string{`types: deployments.apps is enabled, and disabledTypes disables it`},
		},
		{
			name:    "two types of one federated kind",
			enabled: []typeconfig.Type{exampleDeploy},
			wantErr: []string{`deployments.apps and deployments.example.com cannot both be enabled: both would be federated as FederatedDeployment; to federate deployments.example.com, run "fedctl disable deployments.apps" first (--force for one of KubeFed's defaults)`},
		},
		{
			name:    "two kinds that differ only in case",
			enabled: []typeconfig.Type{{Group: "a.example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}, {Group: "b.example.com", Version: "v1", Kind: "WIDGET", Plural: "widgets", Scope: typeconfig.Namespaced}},
			wantErr: []string{`types: widgets.a.example.com and widgets.b.example.com cannot both be enabled: their kinds Widget and WIDGET differ only in case, and fedctl's output files and Karmada policy names spell kinds in lower case`},
		},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := typeconfig.NewRegistry(tt.enabled, tt.disabled)
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, strings.Split(err.Error(), "\n"))
		})
	}
}

func TestRegistryFind(t *testing.T) {
	t.Parallel()
	r, err := typeconfig.NewRegistry([]typeconfig.Type{statefulSets, deployV1beta2, widgets,
		{Group: "other.io", Version: "v1", Kind: "Gizmo", Plural: "widgets", Scope: typeconfig.Cluster}}, nil)
	require.NoError(t, err)
	tests := []struct {
		name    string
		want    string // Name() of the type found
		wantErr string
	}{
		{name: "deployments", want: "deployments.apps"},
		{name: "deployment", want: "deployments.apps"},
		{name: "Deployment", want: "deployments.apps"},
		{name: "DEPLOYMENTS.APPS", want: "deployments.apps"},
		{name: "deploy", want: "deployments.apps"}, // a default's short name still names it at another version
		{name: "FederatedDeployment", want: "deployments.apps"},
		{name: "federateddeployment", want: "deployments.apps"},
		{name: "svc", want: "services"},
		{name: "ns", want: "namespaces"},
		{name: "cm", want: "configmaps"},
		{name: "clusterrole", want: "clusterroles.rbac.authorization.k8s.io"},
		{name: "statefulsets", want: "statefulsets.apps"},
		{name: "StatefulSet", want: "statefulsets.apps"},
		{name: "FederatedStatefulSet", want: "statefulsets.apps"},
		{name: "Gizmo", want: "widgets.other.io"},
		{name: "widgets.example.com", want: "widgets.example.com"},
		{name: "sts", want: "statefulsets.apps"}, // Kubernetes' own short names are known offline
		{name: "wg", wantErr: `no federated type named "wg" (types in effect: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services, statefulsets.apps, widgets.example.com, widgets.other.io)`},
		{name: "widgets", wantErr: `"widgets" matches more than one resource: widgets.example.com, widgets.other.io; name one of them as <plural>.<group>, e.g. "widgets.example.com"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := r.Find(tt.name)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Name())
		})
	}
}

func TestRegistryEnable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		enabled      []typeconfig.Type
		disabled     []string
		enable       typeconfig.Type
		wantOutcome  typeconfig.Outcome
		wantPrevious typeconfig.Type
		wantTypes    []typeconfig.Type
		wantDisabled []string
		wantErr      string
	}{
		{
			name: "a new type is added, the list sorted by name", enabled: []typeconfig.Type{widgets}, enable: statefulSets,
			wantOutcome: typeconfig.Added, wantTypes: []typeconfig.Type{statefulSets, widgets},
		},
		{
			name: "a default at its version is enabled already", enable: deployV1,
			wantOutcome: typeconfig.Unchanged, wantTypes: nil,
		},
		{
			name: "an enabled type at the same version is enabled already", enabled: []typeconfig.Type{statefulSets}, enable: statefulSets,
			wantOutcome: typeconfig.Unchanged, wantTypes: []typeconfig.Type{statefulSets},
		},
		{
			name: "another version of a default replaces it", enable: deployV1beta2,
			wantOutcome: typeconfig.Replaced, wantPrevious: deployV1, wantTypes: []typeconfig.Type{deployV1beta2},
		},
		{
			name: "the default version of a default needs no entry", enabled: []typeconfig.Type{deployV1beta2, widgets}, enable: deployV1,
			wantOutcome: typeconfig.Replaced, wantPrevious: deployV1beta2, wantTypes: []typeconfig.Type{widgets},
		},
		{
			name: "another version of an enabled type replaces it", enabled: []typeconfig.Type{widgets}, enable: typeconfig.Type{Group: "example.com", Version: "v2", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced},
			wantOutcome: typeconfig.Replaced, wantPrevious: widgets,
			wantTypes: []typeconfig.Type{{Group: "example.com", Version: "v2", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}},
		},
		{
			name: "a disabled default is enabled again", disabled: []string{"deployments.apps", "secrets"}, enable: deployV1,
			wantOutcome: typeconfig.Reenabled, wantTypes: []typeconfig.Type{}, wantDisabled: []string{"secrets"},
		},
		{
			name: "a disabled default is enabled again at another version", disabled: []string{"deployments.apps"}, enable: deployV1beta2,
			wantOutcome: typeconfig.Reenabled, wantTypes: []typeconfig.Type{deployV1beta2}, wantDisabled: nil,
		},
		{
			name: "a type of another group cannot take a default's federated kind", enable: exampleDeploy,
			wantErr: `deployments.apps and deployments.example.com cannot both be enabled: both would be federated as FederatedDeployment; to federate deployments.example.com, run "fedctl disable deployments.apps" first (--force for one of KubeFed's defaults)`,
		},
		{
			name: "a kind that differs from an enabled one's only in case is refused, not written", enabled: []typeconfig.Type{widgets},
			enable:  typeconfig.Type{Group: "other.example.com", Version: "v1", Kind: "WIDGET", Plural: "widgets", Scope: typeconfig.Namespaced},
			wantErr: `types: widgets.example.com and widgets.other.example.com cannot both be enabled: their kinds Widget and WIDGET differ only in case, and fedctl's output files and Karmada policy names spell kinds in lower case`,
		},
		{
			name: "a disabled default cannot take back a federated kind now in use", enabled: []typeconfig.Type{exampleDeploy}, disabled: []string{"deployments.apps"}, enable: deployV1,
			wantErr: `deployments.example.com and deployments.apps cannot both be enabled: both would be federated as FederatedDeployment; to federate deployments.apps, run "fedctl disable deployments.example.com" first (--force for one of KubeFed's defaults)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			enabled, disabled := slices.Clone(tt.enabled), slices.Clone(tt.disabled)
			r, err := typeconfig.NewRegistry(enabled, disabled)
			require.NoError(t, err)
			edit, err := r.Enable(tt.enable)
			assert.Equal(t, tt.enabled, enabled, "inputs are not modified")
			assert.Equal(t, tt.disabled, disabled, "inputs are not modified")
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var conflict *typeconfig.KindConflictError
				assert.Equal(t, strings.Contains(tt.wantErr, "both would be federated as"), errors.As(err, &conflict))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOutcome, edit.Outcome)
			assert.Equal(t, tt.wantPrevious, edit.Previous)
			assert.Equal(t, tt.wantTypes, edit.Types)
			assert.Equal(t, tt.wantDisabled, edit.Disabled)

			// The edited lists make a valid registry in which the type is
			// in effect.
			after, err := typeconfig.NewRegistry(edit.Types, edit.Disabled)
			require.NoError(t, err)
			got, ok := after.ByFederatedKind(tt.enable.FederatedKind())
			require.True(t, ok)
			assert.Equal(t, tt.enable, got)
		})
	}
}

func TestRegistryDisable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		enabled      []typeconfig.Type
		disabled     []string
		disable      string
		force        bool
		wantType     string
		wantOutcome  typeconfig.Outcome
		wantTypes    []typeconfig.Type
		wantDisabled []string
		wantErr      string
	}{
		{
			name: "short names of custom resources are unknown offline", enabled: []typeconfig.Type{statefulSets, widgets}, disable: "wg",
			wantErr: `no federated type named "wg"`,
		},
		{
			name: "an enabled type is removed by short name", enabled: []typeconfig.Type{statefulSets, widgets}, disable: "sts",
			wantType: "statefulsets.apps", wantOutcome: typeconfig.Removed, wantTypes: []typeconfig.Type{widgets},
		},
		{
			name: "an enabled type is removed by federated kind", enabled: []typeconfig.Type{widgets}, disable: "FederatedWidget",
			wantType: "widgets.example.com", wantOutcome: typeconfig.Removed, wantTypes: []typeconfig.Type{},
		},
		{
			name: "a default needs --force", disable: "deploy",
			wantErr: `deployments.apps is one of KubeFed's default types; disabling it makes fedctl stop rendering FederatedDeployment objects (Deployment objects already propagated stay in the member clusters); pass --force to disable it anyway`,
		},
		{
			name: "a default at another version needs --force too", enabled: []typeconfig.Type{deployV1beta2}, disable: "deployments",
			wantErr: `deployments.apps is one of KubeFed's default types`,
		},
		{
			name: "a default is disabled with --force", disabled: []string{"secrets"}, disable: "Job", force: true,
			wantType: "jobs.batch", wantOutcome: typeconfig.DisabledDefault, wantTypes: []typeconfig.Type{}, wantDisabled: []string{"jobs.batch", "secrets"},
		},
		{
			name: "a default at another version leaves types too", enabled: []typeconfig.Type{deployV1beta2, widgets}, disable: "deployments.apps", force: true,
			wantType: "deployments.apps", wantOutcome: typeconfig.DisabledDefault, wantTypes: []typeconfig.Type{widgets}, wantDisabled: []string{"deployments.apps"},
		},
		{
			name: "a disabled default is disabled already", disabled: []string{"jobs.batch"}, disable: "jobs",
			wantType: "jobs.batch", wantOutcome: typeconfig.Unchanged, wantDisabled: []string{"jobs.batch"},
		},
		{
			name: "a type nobody enabled", disable: "statefulsets",
			wantErr: `no federated type named "statefulsets" (types in effect: clusterroles.rbac.authorization.k8s.io, configmaps`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := typeconfig.NewRegistry(tt.enabled, tt.disabled)
			require.NoError(t, err)
			edit, err := r.Disable(tt.disable, tt.force)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantType, edit.Type.Name())
			assert.Equal(t, tt.wantOutcome, edit.Outcome)
			assert.Equal(t, tt.wantTypes, edit.Types)
			assert.Equal(t, tt.wantDisabled, edit.Disabled)
			after, err := typeconfig.NewRegistry(edit.Types, edit.Disabled)
			require.NoError(t, err)
			_, ok := after.ByFederatedKind(edit.Type.FederatedKind())
			assert.False(t, ok, "the type is no longer in effect")
		})
	}
}

// Disabling any default with --force and enabling it again restores the
// federation file's lists.
func TestDisableThenEnableRoundTrips(t *testing.T) {
	t.Parallel()
	for _, d := range typeconfig.Defaults() {
		r, err := typeconfig.NewRegistry([]typeconfig.Type{widgets}, nil)
		require.NoError(t, err)
		off, err := r.Disable(d.Name(), true)
		require.NoError(t, err, d.Name())
		r, err = typeconfig.NewRegistry(off.Types, off.Disabled)
		require.NoError(t, err, d.Name())
		on, err := r.Enable(d)
		require.NoError(t, err, d.Name())
		assert.Equal(t, typeconfig.Reenabled, on.Outcome, d.Name())
		assert.Equal(t, []typeconfig.Type{widgets}, on.Types, d.Name())
		assert.Nil(t, on.Disabled, d.Name())
	}
}
