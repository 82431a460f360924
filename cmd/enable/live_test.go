package enable_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	statefulSets = typeconfig.Type{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: typeconfig.Namespaced}
	widgets      = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	gadgets      = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Gadget", Plural: "gadgets", Scope: typeconfig.Cluster}
)

// schemaProps builds an object schema with the given spec properties.
func specSchema(spec map[string]apiextv1.JSONSchemaProps) *apiextv1.CustomResourceValidation {
	return &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: spec},
		},
	}}
}

func newCRD(group, plural, kind string, scope apiextv1.ResourceScope, shortNames []string, versions ...apiextv1.CustomResourceDefinitionVersion) *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group:    group,
			Names:    apiextv1.CustomResourceDefinitionNames{Plural: plural, Singular: kindLower(kind), Kind: kind, ShortNames: shortNames},
			Scope:    scope,
			Versions: versions,
		},
	}
}

func kindLower(kind string) string {
	b := []byte(kind)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func version(name string, storage bool, spec map[string]apiextv1.JSONSchemaProps) apiextv1.CustomResourceDefinitionVersion {
	return apiextv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage, Schema: specSchema(spec)}
}

var (
	int32Replicas   = map[string]apiextv1.JSONSchemaProps{"replicas": {Type: "integer", Format: "int32"}, "size": {Type: "string"}}
	integerReplicas = map[string]apiextv1.JSONSchemaProps{"replicas": {Type: "integer"}}
	noReplicas      = map[string]apiextv1.JSONSchemaProps{"color": {Type: "string"}}
)

// tidyCRDs go into cluster1: custom resources with and without an
// integer spec.replicas.
func tidyCRDs() []*apiextv1.CustomResourceDefinition {
	return []*apiextv1.CustomResourceDefinition{
		newCRD("example.com", "widgets", "Widget", apiextv1.NamespaceScoped, []string{"wg"}, version("v1", true, int32Replicas)),
		newCRD("example.com", "gadgets", "Gadget", apiextv1.ClusterScoped, nil, version("v1", true, noReplicas)),
		// replicas without format int32: kubefedctl does not call this
		// scalable.
		newCRD("example.com", "things", "Thing", apiextv1.NamespaceScoped, nil, version("v1", true, integerReplicas)),
		// kubefedctl reads the schema of the first listed version, here
		// v1alpha1 without replicas, although v1 is the version enabled.
		newCRD("example.com", "doodads", "Doodad", apiextv1.NamespaceScoped, nil,
			version("v1alpha1", false, noReplicas), version("v1", true, int32Replicas)),
	}
}

// crowdedCRDs go into cluster2: a Deployment and a Service of another
// group, so that their names collide with built-in types.
func crowdedCRDs() []*apiextv1.CustomResourceDefinition {
	preserve := true
	open := apiextv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true, Schema: &apiextv1.CustomResourceValidation{
		OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve},
	}}
	return []*apiextv1.CustomResourceDefinition{
		newCRD("example.com", "deployments", "Deployment", apiextv1.NamespaceScoped, nil, open),
		newCRD("example.com", "services", "Service", apiextv1.NamespaceScoped, nil, open),
	}
}

var (
	setupOnce sync.Once
	setupErr  error
)

// setUp creates the CRDs in both clusters, and in cluster2 an APIService
// whose backend does not exist, so that discovery of its group fails. It
// waits until discovery serves the CRDs.
func setUp(t *testing.T) {
	t.Helper()
	_ = newFixture(t) // skips under -short
	setupOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for cluster, crds := range map[string][]*apiextv1.CustomResourceDefinition{"cluster1": tidyCRDs(), "cluster2": crowdedCRDs()} {
			if setupErr = createCRDs(ctx, cluster, crds); setupErr != nil {
				return
			}
		}
		setupErr = createBrokenAPIService(ctx, "cluster2")
	})
	require.NoError(t, setupErr)
}

func createCRDs(ctx context.Context, cluster string, crds []*apiextv1.CustomResourceDefinition) error {
	cfg, err := env.RESTConfig(cluster)
	if err != nil {
		return err
	}
	client, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("%s: create CRD %s: %w", cluster, crd.Name, err)
		}
	}
	for _, crd := range crds {
		gv := crd.Spec.Group + "/" + crd.Spec.Versions[len(crd.Spec.Versions)-1].Name
		for {
			list, err := disco.ServerResourcesForGroupVersion(gv)
			if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: CRD %s never served: %v", cluster, crd.Name, err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	// Aggregated discovery, which fedctl reads, follows a little later.
	for {
		lists, _ := disco.ServerPreferredResources()
		n := 0
		for _, crd := range crds {
			if _, err := typeconfig.Lookup(crd.Name, "", lists); err == nil {
				n++
			}
		}
		if n == len(crds) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: CRDs missing from discovery", cluster)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func createBrokenAPIService(ctx context.Context, cluster string) error {
	cfg, err := env.RESTConfig(cluster)
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": "v1.broken.example.org"},
		"spec": map[string]any{
			"group": "broken.example.org", "version": "v1",
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100), "insecureSkipTLSVerify": true,
			"service": map[string]any{"namespace": "default", "name": "nobody-home", "port": int64(443)},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	if _, err := client.Resource(gvr).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("%s: create APIService: %w", cluster, err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	for {
		if _, err := disco.ServerPreferredResources(); discovery.IsGroupDiscoveryFailedError(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: the broken APIService never showed in discovery", cluster)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// brokenWarning is what enable says about cluster2's broken APIService.
const brokenWarning = "! cluster cluster2: some API groups could not be discovered, so their types are unknown: broken.example.org/v1 (stale GroupVersion discovery: broken.example.org/v1)\n"

func TestEnableResolvesEveryNameForm(t *testing.T) {
	setUp(t)
	for _, name := range []string{"statefulsets", "statefulset", "StatefulSet", "statefulsets.apps", "sts", "STS", "StatefulSets.Apps"} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture(t, "cluster1", "cluster2")
			r := fx.run(t, "enable", name, "--cluster", "cluster1")
			require.NoError(t, r.err)
			assert.Equal(t, "✓ federatedtypeconfig/statefulsets.apps enabled (FederatedStatefulSet for apps/v1 StatefulSet, Namespaced)\n", r.errOut)
			assert.Empty(t, r.out)
			assert.Equal(t, []typeconfig.Type{statefulSets}, fx.load(t).Types)
		})
	}
}

func TestEnableDefaultTypeChangesNothing(t *testing.T) {
	setUp(t)
	tests := []struct {
		name, want string
	}{
		{"deployments", "federatedtypeconfig/deployments.apps is already enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); nothing to change\n"},
		{"deploy", "federatedtypeconfig/deployments.apps is already enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); nothing to change\n"},
		{"Deployment", "federatedtypeconfig/deployments.apps is already enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); nothing to change\n"},
		{"deployments.apps", "federatedtypeconfig/deployments.apps is already enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); nothing to change\n"},
		{"services", "federatedtypeconfig/services is already enabled (FederatedService for v1 Service, Namespaced); nothing to change\n"},
		{"ns", "federatedtypeconfig/namespaces is already enabled (FederatedNamespace for v1 Namespace, Cluster); nothing to change\n"},
		{"clusterroles", "federatedtypeconfig/clusterroles.rbac.authorization.k8s.io is already enabled (FederatedClusterRole for rbac.authorization.k8s.io/v1 ClusterRole, Cluster); nothing to change\n"},
	}
	fx := newFixture(t, "cluster1")
	before := fx.read(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.run(t, "enable", tt.name)
			require.NoError(t, r.err)
			assert.Equal(t, tt.want, r.errOut)
			assert.Equal(t, before, fx.read(t), "nothing is written")
		})
	}
}

func TestEnableVersion(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1")
	before := fx.read(t)
	r := fx.run(t, "enable", "deployments", "--version", "v1beta1")
	require.EqualError(t, r.err, `cannot enable deployments: cluster cluster1: no API resource named "deployments" at version v1beta1 (--version only matches the version the API group prefers: deployments.apps at v1)`)
	assert.Equal(t, before, fx.read(t))

	r = fx.run(t, "enable", "sts", "--version", "v1")
	require.NoError(t, r.err)
	assert.Equal(t, []typeconfig.Type{statefulSets}, fx.load(t).Types)

	// doodads serves v1alpha1 and v1; discovery prefers v1, and only the
	// preferred version can be enabled, as with kubefedctl.
	r = fx.run(t, "enable", "doodads", "--version", "v1alpha1")
	require.EqualError(t, r.err, `cannot enable doodads: cluster cluster1: no API resource named "doodads" at version v1alpha1 (--version only matches the version the API group prefers: doodads.example.com at v1)`)
}

func TestEnableCustomResources(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1", "cluster2")
	r := fx.run(t, "enable", "widgets")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/widgets.example.com enabled (FederatedWidget for example.com/v1 Widget, Namespaced)\n", r.errOut)
	r = fx.run(t, "enable", "Gadget")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/gadgets.example.com enabled (FederatedGadget for example.com/v1 Gadget, Cluster)\n", r.errOut)
	r = fx.run(t, "enable", "wg")
	require.NoError(t, r.err)
	assert.Equal(t, "federatedtypeconfig/widgets.example.com is already enabled (FederatedWidget for example.com/v1 Widget, Namespaced); nothing to change\n", r.errOut)

	assert.Equal(t, []typeconfig.Type{gadgets, widgets}, fx.load(t).Types, "sorted by name")
	data := string(fx.read(t))
	assert.Contains(t, data, `types:
  - group: example.com
    version: v1
    kind: Gadget
    plural: gadgets
    scope: Cluster
  - group: example.com
`)

	// Recorded types need no cluster to be looked up again.
	reg, err := typeconfig.NewRegistry(fx.load(t).Types, nil)
	require.NoError(t, err)
	got, ok := reg.ByFederatedKind("FederatedWidget")
	require.True(t, ok)
	assert.Equal(t, widgets, got)
}

func TestEnableOutputYAML(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1")
	before := fx.read(t)
	tests := []struct {
		name           string
		golden         string // compared in full when set
		sameAs         string // or: equal to this golden file of pkg/typeconfig
		retainReplicas bool
	}{
		{name: "widgets", golden: "widgets.example.com.yaml", retainReplicas: true},
		{name: "Gadget", retainReplicas: false},
		{name: "things", retainReplicas: false},  // integer without format int32
		{name: "doodads", retainReplicas: false}, // the first listed version has no replicas
		{name: "deployments", sameAs: "deployments.apps.yaml", retainReplicas: true},
		{name: "rs", retainReplicas: true},
		{name: "sts", retainReplicas: true},
		{name: "services", retainReplicas: false},
		{name: "jobs", retainReplicas: false},
		{name: "ns", sameAs: "namespaces.yaml", retainReplicas: false},
		{name: "svc", sameAs: "services.yaml", retainReplicas: false},
	}
	cfg, err := env.RESTConfig("cluster1")
	require.NoError(t, err)
	crds, err := apiextclient.NewForConfig(cfg)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.run(t, "enable", tt.name, "-o", "yaml")
			require.NoError(t, r.err)
			assert.Empty(t, r.errOut)
			assert.Equal(t, before, fx.read(t), "-o yaml writes nothing")
			if tt.golden != "" {
				testutil.AssertGolden(t, []byte(r.out), filepath.Join("testdata", tt.golden))
			}
			if tt.sameAs != "" {
				// What discovery reports for a default type (short names
				// included) is what pkg/typeconfig knows offline.
				want, err := os.ReadFile(filepath.Join("..", "..", "pkg", "typeconfig", "testdata", tt.sameAs))
				require.NoError(t, err)
				assert.Equal(t, string(want), r.out)
			}
			docs := splitDocs(t, r.out)
			require.Len(t, docs, 2)
			var ftc typeconfig.FederatedTypeConfig
			require.NoError(t, yaml.UnmarshalStrict([]byte(docs[0]), &ftc))
			assert.Equal(t, "FederatedTypeConfig", ftc.Kind)
			var crd apiextv1.CustomResourceDefinition
			require.NoError(t, yaml.UnmarshalStrict([]byte(docs[1]), &crd))
			spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			_, retain := spec.Properties["retainReplicas"]
			assert.Equal(t, tt.retainReplicas, retain, "spec.retainReplicas")

			// The API server accepts the CRD as it is.
			_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), &crd, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err)
		})
	}
}

// splitDocs splits enable -o yaml output, in which every document starts
// with "---".
func splitDocs(t *testing.T, s string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(s, "---\n")
	require.True(t, ok, "each document starts with ---")
	docs := strings.Split(rest, "\n---\n")
	for i := range docs[:len(docs)-1] {
		docs[i] += "\n"
	}
	return docs
}

func TestEnableAmbiguousNames(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1", "cluster2")
	before := fx.read(t)
	tests := []struct {
		args    []string
		wantErr string
		want    string // stderr after the discovery warning
	}{
		{
			args:    []string{"deployments", "--cluster", "cluster2"},
			wantErr: `cannot enable deployments: cluster cluster2: "deployments" matches more than one resource: deployments.apps, deployments.example.com; name one of them as <plural>.<group>, e.g. "deployments.apps"`,
		},
		{
			args:    []string{"Deployment", "--cluster-context", "cluster2"},
			wantErr: `cannot enable Deployment: cluster cluster2: "Deployment" matches more than one resource: deployments.apps, deployments.example.com; name one of them as <plural>.<group>, e.g. "deployments.apps"`,
		},
		{
			// Only apps declares the short name.
			args: []string{"deploy", "--cluster", "cluster2"},
			want: "federatedtypeconfig/deployments.apps is already enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); nothing to change\n",
		},
		{
			// The core group wins over example.com's services.
			args: []string{"services", "--cluster", "cluster2"},
			want: "federatedtypeconfig/services is already enabled (FederatedService for v1 Service, Namespaced); nothing to change\n",
		},
		{
			args:    []string{"deployments.example.com", "--cluster", "cluster2"},
			wantErr: `cannot enable deployments.example.com: deployments.apps and deployments.example.com cannot both be enabled: both would be federated as FederatedDeployment; to federate deployments.example.com, run "fedctl disable deployments.apps" first (--force for one of KubeFed's defaults)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			r := fx.run(t, append([]string{"enable"}, tt.args...)...)
			if tt.wantErr != "" {
				require.EqualError(t, r.err, tt.wantErr)
			} else {
				require.NoError(t, r.err)
			}
			assert.Equal(t, brokenWarning+tt.want, r.errOut, "an API group that cannot be discovered is reported, and the others used")
			assert.Equal(t, before, fx.read(t))
		})
	}

	// With the default Deployment disabled, FederatedDeployment is free for
	// example.com's.
	r := fx.run(t, "disable", "deployments", "--force")
	require.NoError(t, r.err)
	r = fx.run(t, "enable", "deployments.example.com", "--cluster", "cluster2")
	require.NoError(t, r.err)
	assert.Equal(t, brokenWarning+"✓ federatedtypeconfig/deployments.example.com enabled (FederatedDeployment for example.com/v1 Deployment, Namespaced)\n", r.errOut)
	fed := fx.load(t)
	assert.Equal(t, []typeconfig.Type{{Group: "example.com", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}}, fed.Types)
	assert.Equal(t, []string{"deployments.apps"}, fed.DisabledTypes)

	// ...and the default can only come back once it is given up.
	r = fx.run(t, "enable", "deployments.apps")
	require.EqualError(t, r.err, "cannot enable deployments.apps: deployments.example.com and deployments.apps cannot both be enabled: both would be federated as FederatedDeployment; to federate deployments.apps, run \"fedctl disable deployments.example.com\" first (--force for one of KubeFed's defaults)")
}

func TestEnableDisableRoundTrip(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1")
	empty := fx.read(t)

	r := fx.run(t, "disable", "deployments")
	require.EqualError(t, r.err, "cannot disable deployments: deployments.apps is one of KubeFed's default types; disabling it makes fedctl stop rendering FederatedDeployment objects (Deployment objects already propagated stay in the member clusters); pass --force to disable it anyway")
	assert.Equal(t, empty, fx.read(t))

	r = fx.run(t, "disable", "deploy", "--force")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/deployments.apps disabled (a default type, now listed in disabledTypes)\n"+
		"fedctl no longer reads FederatedDeployment objects: an input that holds one is refused (render, apply, delete), so delete their member objects first (fedctl delete -f) if they should go; Deployment objects it already propagated stay in the member clusters, neither updated nor deleted\n", r.errOut)
	assert.Equal(t, []string{"deployments.apps"}, fx.load(t).DisabledTypes)
	assert.Contains(t, string(fx.read(t)), "types: []\ndisabledTypes:\n  - deployments.apps\n")

	r = fx.run(t, "disable", "FederatedDeployment", "--force")
	require.NoError(t, r.err)
	assert.Equal(t, "federatedtypeconfig/deployments.apps is already disabled; nothing to change\n", r.errOut)

	r = fx.run(t, "enable", "Deployment")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/deployments.apps enabled (FederatedDeployment for apps/v1 Deployment, Namespaced); it is no longer in disabledTypes\n", r.errOut)
	assert.Equal(t, string(empty), string(fx.read(t)), "back to the file it started as")

	r = fx.run(t, "enable", "sts")
	require.NoError(t, r.err)
	r = fx.run(t, "disable", "sts") // as it was enabled, without a cluster
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/statefulsets.apps disabled\n"+
		"fedctl no longer reads FederatedStatefulSet objects: an input that holds one is refused (render, apply, delete), so delete their member objects first (fedctl delete -f) if they should go; StatefulSet objects it already propagated stay in the member clusters, neither updated nor deleted\n", r.errOut)
	assert.Equal(t, string(empty), string(fx.read(t)))
}

func TestEnableReplacesVersion(t *testing.T) {
	setUp(t)
	fx := newFixture(t)
	fed := members.New()
	fed.Types = []typeconfig.Type{
		{Group: "apps", Version: "v1beta2", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced},
		{Group: "apps", Version: "v1beta2", Kind: "StatefulSet", Plural: "statefulsets", Scope: typeconfig.Namespaced},
	}
	fx.save(t, fed)

	r := fx.run(t, "enable", "statefulsets", "--cluster-context", "cluster1")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/statefulsets.apps enabled (FederatedStatefulSet for apps/v1 StatefulSet, Namespaced), replacing apps/v1beta2\n", r.errOut)
	r = fx.run(t, "enable", "deployments", "--cluster-context", "cluster1")
	require.NoError(t, r.err)
	assert.Equal(t, "✓ federatedtypeconfig/deployments.apps enabled (FederatedDeployment for apps/v1 Deployment, Namespaced), replacing apps/v1beta2\n", r.errOut)
	assert.Equal(t, []typeconfig.Type{statefulSets}, fx.load(t).Types, "the default version of a default type needs no entry")
}

func TestEnableDryRun(t *testing.T) {
	setUp(t)
	fx := newFixture(t, "cluster1")
	before := fx.read(t)
	r := fx.run(t, "enable", "sts", "--dry-run")
	require.NoError(t, r.err)
	assert.Equal(t, "warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n"+
		"! federatedtypeconfig/statefulsets.apps would be enabled (FederatedStatefulSet for apps/v1 StatefulSet, Namespaced); dry run, "+fx.path+" not written\n", r.errOut,
		"a bare --dry-run is client, with kubectl's warning")
	assert.Equal(t, before, fx.read(t))
	for _, mode := range []string{"client", "server"} {
		r = fx.run(t, "enable", "sts", "--dry-run="+mode)
		require.NoError(t, r.err)
		assert.Equal(t, "! federatedtypeconfig/statefulsets.apps would be enabled (FederatedStatefulSet for apps/v1 StatefulSet, Namespaced); dry run, "+fx.path+" not written\n", r.errOut, mode)
		assert.Equal(t, before, fx.read(t), "--dry-run=%s writes nothing", mode)
	}
}

func TestEnableErrors(t *testing.T) {
	setUp(t)
	refused := extraKubeconfig{server: "https://127.0.0.1:" + fmt.Sprint(testenv.ClosedPort(t))}
	refused.path = env.KubeconfigWith(t, "refused", refused.server)
	tests := []struct {
		name       string
		members    []string
		kubeconfig string
		args       []string
		wantErr    string
	}{
		{
			name: "no members and no --cluster-context",
			args: []string{"sts"},
			wantErr: "enable resolves TYPE through a cluster's API, and the federation has no members: " +
				"join a cluster first or pass --cluster-context CONTEXT",
		},
		{
			name:    "an unknown member lists the members",
			members: []string{"cluster1", "cluster2"},
			args:    []string{"sts", "--cluster", "cluster9"},
			wantErr: `cluster "cluster9" is not a member (members: cluster1, cluster2)`,
		},
		{
			name:    "an unknown name says how to list the names",
			members: []string{"cluster1"},
			args:    []string{"frobnicators"},
			wantErr: `cannot enable frobnicators: cluster cluster1: no API resource named "frobnicators"; "kubectl --context cluster1 api-resources" lists the names the cluster serves`,
		},
		{
			name:       "an unreachable cluster",
			kubeconfig: refused.path,
			args:       []string{"sts", "--cluster-context", "refused"},
			wantErr:    `cannot enable sts: cluster refused: API server ` + refused.server + ` (context "refused") refused the connection; is the cluster running?`,
		},
		{
			name:    "rejected credentials",
			args:    []string{"sts", "--cluster-context", "cluster1-badcreds"},
			wantErr: `cannot enable sts: cluster cluster1-badcreds: API server ` + env.Cluster("cluster1").Server + ` (context "cluster1-badcreds") rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig`,
		},
		{
			name:    "a missing context",
			args:    []string{"sts", "--cluster-context", "nope"},
			wantErr: `cannot enable sts: cluster nope: context "nope" in kubeconfig ` + env.Kubeconfig + `: not found; available contexts: cluster1, cluster1-badcreds, cluster2`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.members...)
			if tt.kubeconfig != "" {
				fx.kubeconfig = tt.kubeconfig
			}
			before := fx.read(t)
			r := fx.run(t, append([]string{"enable"}, tt.args...)...)
			require.EqualError(t, r.err, tt.wantErr)
			assert.Equal(t, before, fx.read(t))
		})
	}
}

// The federation file's types are all enable needs with --cluster-context:
// the cluster need not be a member.
func TestEnableThroughAContextThatIsNoMember(t *testing.T) {
	setUp(t)
	fx := newFixture(t)
	r := fx.run(t, "enable", "widgets.example.com", "--cluster-context", "cluster1")
	require.NoError(t, r.err)
	fed := fx.load(t)
	assert.Empty(t, fed.Clusters)
	assert.Equal(t, []typeconfig.Type{widgets}, fed.Types)
}

func TestEnableGivesUpWithinTimeout(t *testing.T) {
	setUp(t)
	silent := extraKubeconfig{server: "https://" + testutil.SilentServer(t)}
	silent.path = env.KubeconfigWith(t, "silent", silent.server)
	fx := newFixture(t)
	fx.kubeconfig = silent.path
	start := time.Now()
	r := fx.run(t, "enable", "sts", "--cluster-context", "silent", "--timeout", "500ms")
	took := time.Since(start)
	require.EqualError(t, r.err, `cannot enable sts: cluster silent: API server `+silent.server+` (context "silent") did not answer in time`)
	assert.Less(t, took, 5*time.Second)
}

type extraKubeconfig struct{ path, server string }
