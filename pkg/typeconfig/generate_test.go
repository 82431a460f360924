package typeconfig_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func defaultResource(t *testing.T, name string, short ...string) typeconfig.Resource {
	t.Helper()
	d, ok := typeconfig.Default(name)
	require.True(t, ok, name)
	return typeconfig.Resource{Type: d, ShortNames: short}
}

func TestManifestsGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden         string
		res            typeconfig.Resource
		retainReplicas bool
	}{
		{"deployments.apps.yaml", defaultResource(t, "deployments.apps", "deploy"), true},
		{"services.yaml", defaultResource(t, "services", "svc"), false},
		{"namespaces.yaml", defaultResource(t, "namespaces", "ns"), false},
		{"clusterroles.rbac.authorization.k8s.io.yaml", defaultResource(t, "clusterroles.rbac.authorization.k8s.io"), false},
		{"widgets.example.com.yaml", typeconfig.Resource{Type: widgets, ShortNames: []string{"wg", "wgt"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			got, err := typeconfig.Manifests(tt.res, tt.retainReplicas)
			require.NoError(t, err)
			testutil.AssertGolden(t, got, filepath.Join("testdata", tt.golden))
			again, err := typeconfig.Manifests(tt.res, tt.retainReplicas)
			require.NoError(t, err)
			assert.Equal(t, got, again, "the same input gives the same bytes")
		})
	}
}

func TestTypeConfig(t *testing.T) {
	t.Parallel()
	ftc := typeconfig.TypeConfig(deployV1)
	assert.Equal(t, "core.kubefed.io/v1beta1", ftc.APIVersion)
	assert.Equal(t, "FederatedTypeConfig", ftc.Kind)
	assert.Equal(t, "deployments.apps", ftc.Name)
	assert.Equal(t, "kube-federation-system", ftc.Namespace)
	assert.Equal(t, typeconfig.FederatedTypeConfigSpec{
		TargetType:    typeconfig.APIResource{Group: "apps", Version: "v1", Kind: "Deployment", PluralName: "deployments", Scope: typeconfig.Namespaced},
		Propagation:   "Enabled",
		FederatedType: typeconfig.APIResource{Group: "types.kubefed.io", Version: "v1beta1", Kind: "FederatedDeployment", PluralName: "federateddeployments", Scope: typeconfig.Namespaced},
	}, ftc.Spec)

	ns, _ := typeconfig.Default("namespaces")
	ftc = typeconfig.TypeConfig(ns)
	assert.Equal(t, "namespaces", ftc.Name, "a core type is named by its plural alone")
	assert.Equal(t, typeconfig.Cluster, ftc.Spec.TargetType.Scope)
	assert.Equal(t, typeconfig.Namespaced, ftc.Spec.FederatedType.Scope, "FederatedNamespace is namespaced, unlike Namespace")

	cr, _ := typeconfig.Default("clusterroles.rbac.authorization.k8s.io")
	assert.Equal(t, typeconfig.Cluster, typeconfig.TypeConfig(cr).Spec.FederatedType.Scope, "other cluster-scoped types stay cluster-scoped")
}

func TestCRD(t *testing.T) {
	t.Parallel()
	crd := typeconfig.CRD(typeconfig.Resource{Type: deployV1, ShortNames: []string{"deploy"}}, true)
	assert.Equal(t, "federateddeployments.types.kubefed.io", crd.Name)
	assert.Equal(t, "types.kubefed.io", crd.Spec.Group)
	assert.Equal(t, apiextv1.CustomResourceDefinitionNames{Plural: "federateddeployments", Kind: "FederatedDeployment", ShortNames: []string{"fdeploy"}}, crd.Spec.Names)
	assert.Equal(t, apiextv1.NamespaceScoped, crd.Spec.Scope)
	require.Len(t, crd.Spec.Versions, 1)
	v := crd.Spec.Versions[0]
	assert.Equal(t, "v1beta1", v.Name)
	assert.True(t, v.Served)
	assert.True(t, v.Storage)
	assert.NotNil(t, v.Subresources.Status)
	s := v.Schema.OpenAPIV3Schema
	assert.Equal(t, []string{"spec"}, s.Required)
	spec := s.Properties["spec"]
	assert.Equal(t, "boolean", spec.Properties["retainReplicas"].Type)
	assert.True(t, *spec.Properties["template"].XPreserveUnknownFields)
	op := spec.Properties["overrides"].Items.Schema.Properties["clusterOverrides"].Items.Schema.Properties["op"]
	assert.Equal(t, "^(add|remove|replace)?$", op.Pattern)

	crd = typeconfig.CRD(typeconfig.Resource{Type: deployV1}, false)
	assert.NotContains(t, crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "retainReplicas")
	assert.Nil(t, crd.Spec.Names.ShortNames)

	// The typed object survives a YAML round trip unchanged.
	data, err := yaml.Marshal(crd)
	require.NoError(t, err)
	var back apiextv1.CustomResourceDefinition
	require.NoError(t, yaml.UnmarshalStrict(data, &back))
	assert.Equal(t, crd.Spec, back.Spec)
}

// The constants here and in pkg/federation name the same group.
func TestFederatedGroupMatchesFederation(t *testing.T) {
	t.Parallel()
	assert.Equal(t, federation.TypesGroup, typeconfig.FederatedGroup)
	assert.Equal(t, federation.TypesVersion, typeconfig.FederatedVersion)
	assert.Equal(t, federation.KindPrefix+"Deployment", deployV1.FederatedKind())
}
