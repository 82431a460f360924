package typeconfig_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func res(name, singular, kind string, namespaced bool, short ...string) metav1.APIResource {
	return metav1.APIResource{Name: name, SingularName: singular, Kind: kind, Namespaced: namespaced, ShortNames: short}
}

// cleanLists is discovery of a cluster where no name is ambiguous, as
// ServerPreferredResources returns it: core group first, subresources
// included here to show they are ignored.
func cleanLists() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			res("configmaps", "configmap", "ConfigMap", true, "cm"),
			res("namespaces", "namespace", "Namespace", false, "ns"),
			res("pods", "pod", "Pod", true, "po"),
			res("pods/log", "", "Pod", true),
			res("services", "service", "Service", true, "svc"),
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			res("deployments", "deployment", "Deployment", true, "deploy"),
			res("deployments/scale", "", "Scale", true),
			res("statefulsets", "statefulset", "StatefulSet", true, "sts"),
		}},
		{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{
			res("horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", true, "hpa"),
		}},
		{GroupVersion: "rbac.authorization.k8s.io/v1", APIResources: []metav1.APIResource{
			res("clusterroles", "clusterrole", "ClusterRole", false),
		}},
	}
}

// crowdedLists adds CRDs whose names collide with built-in ones and with
// each other.
func crowdedLists() []*metav1.APIResourceList {
	return append(cleanLists(),
		&metav1.APIResourceList{GroupVersion: "example.com/v1alpha1", APIResources: []metav1.APIResource{
			res("deployments", "deployment", "Deployment", true),
			res("services", "service", "Service", true, "svc"),
			res("widgets", "widget", "Widget", true, "wg"),
		}},
		&metav1.APIResourceList{GroupVersion: "other.io/v1", APIResources: []metav1.APIResource{
			res("widgets", "widget", "Gizmo", false),
		}},
	)
}

func TestLookup(t *testing.T) {
	t.Parallel()
	sts := typeconfig.Type{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: typeconfig.Namespaced}
	svc := typeconfig.Type{Version: "v1", Kind: "Service", Plural: "services", Scope: typeconfig.Namespaced}
	deploy := typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	exampleDeploy := typeconfig.Type{Group: "example.com", Version: "v1alpha1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	ns := typeconfig.Type{Version: "v1", Kind: "Namespace", Plural: "namespaces", Scope: typeconfig.Cluster}

	coreLast := crowdedLists()
	coreLast = append(coreLast[1:], coreLast[0])

	tests := []struct {
		name    string
		key     string
		version string
		lists   []*metav1.APIResourceList
		want    typeconfig.Type
		wantErr string
	}{
		{name: "the plural", key: "statefulsets", lists: cleanLists(), want: sts},
		{name: "the singular", key: "statefulset", lists: cleanLists(), want: sts},
		{name: "the kind", key: "StatefulSet", lists: cleanLists(), want: sts},
		{name: "plural.group", key: "statefulsets.apps", lists: cleanLists(), want: sts},
		{name: "a short name", key: "sts", lists: cleanLists(), want: sts},
		{name: "any case: the kind in camel case", key: "statefulSet", lists: cleanLists(), want: sts},
		{name: "any case: upper-case short name", key: "STS", lists: cleanLists(), want: sts},
		{name: "any case: mixed-case plural", key: "StatefulSets", lists: cleanLists(), want: sts},
		{name: "any case: upper-case plural.group", key: "STATEFULSETS.APPS", lists: cleanLists(), want: sts},
		{name: "a cluster-scoped core type", key: "ns", lists: cleanLists(), want: ns},
		{name: "a matching --version", key: "deployments", version: "v1", lists: cleanLists(), want: deploy},
		{name: "a kind without singular in discovery still matches", key: "Deployment", lists: []*metav1.APIResourceList{
			{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{res("deployments", "", "Deployment", true)}},
		}, want: deploy},
		{
			name: "the core group wins over a CRD with the same plural", key: "services", lists: crowdedLists(), want: svc,
		},
		{name: "the core group wins by kind and short name too", key: "svc", lists: crowdedLists(), want: svc},
		{name: "the core group wins wherever discovery lists it", key: "Service", lists: coreLast, want: svc},
		{name: "a CRD of the same plural is reached by plural.group", key: "services.example.com", lists: crowdedLists(),
			want: typeconfig.Type{Group: "example.com", Version: "v1alpha1", Kind: "Service", Plural: "services", Scope: typeconfig.Namespaced}},
		{name: "a short name only one group declares is not ambiguous", key: "deploy", lists: crowdedLists(), want: deploy},
		{name: "--version can settle an ambiguity", key: "deployments", version: "v1alpha1", lists: crowdedLists(), want: exampleDeploy},
		{
			name: "a plural of two non-core groups is ambiguous", key: "deployments", lists: crowdedLists(),
			wantErr: `"deployments" matches more than one resource: deployments.apps, deployments.example.com; name one of them as <plural>.<group>, e.g. "deployments.apps"`,
		},
		{
			name: "a kind of two non-core groups is ambiguous", key: "deployment", lists: crowdedLists(),
			wantErr: `"deployment" matches more than one resource: deployments.apps, deployments.example.com; name one of them as <plural>.<group>, e.g. "deployments.apps"`,
		},
		{
			name: "a plural shared by two CRDs of different kinds is ambiguous", key: "widgets", lists: crowdedLists(),
			wantErr: `"widgets" matches more than one resource: widgets.example.com, widgets.other.io; name one of them as <plural>.<group>, e.g. "widgets.example.com"`,
		},
		{
			name: "an unknown name suggests kubectl api-resources", key: "frobs", lists: cleanLists(),
			wantErr: `no API resource named "frobs"; "kubectl api-resources" lists the names the cluster serves`,
		},
		{
			name: "--version keeps only lists of that version", key: "deployments", version: "v1beta1", lists: cleanLists(),
			wantErr: `no API resource named "deployments" at version v1beta1 (--version only matches the version the API group prefers: deployments.apps at v1)`,
		},
		{
			name: "--version of a name served nowhere", key: "frobs", version: "v2", lists: cleanLists(),
			wantErr: `no API resource named "frobs" at version v2; "kubectl api-resources" lists the names the cluster serves`,
		},
		{name: "a subresource is never matched by name", key: "deployments/scale", lists: cleanLists(), wantErr: `no API resource named "deployments/scale"`},
		{name: "a subresource is never matched by kind", key: "Scale", lists: cleanLists(), wantErr: `no API resource named "Scale"`},
		{name: "an empty name does not match an empty singular", key: "", lists: []*metav1.APIResourceList{
			{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{res("deployments", "", "Deployment", true)}},
		}, wantErr: `no API resource named ""`},
		{name: "nothing discovered finds nothing", key: "pods", lists: nil, wantErr: `no API resource named "pods"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := typeconfig.Resolve(tt.key, tt.version, tt.lists)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLookupKeepsDiscoveryNames(t *testing.T) {
	t.Parallel()
	got, err := typeconfig.Lookup("deploy", "", cleanLists())
	require.NoError(t, err)
	assert.Equal(t, "deployment", got.Singular)
	assert.Equal(t, []string{"deploy"}, got.ShortNames)

	lists := cleanLists()
	got.ShortNames[0] = "changed"
	assert.Equal(t, []string{"deploy"}, lists[1].APIResources[0].ShortNames, "the discovery lists are not shared with the result")
}

func TestLookupErrorTypes(t *testing.T) {
	t.Parallel()
	_, err := typeconfig.Resolve("deployments", "", crowdedLists())
	var amb *typeconfig.AmbiguousError
	require.True(t, errors.As(err, &amb))
	assert.Equal(t, []string{"deployments.apps", "deployments.example.com"}, amb.Candidates)

	_, err = typeconfig.Resolve("frobs", "", cleanLists())
	var nf *typeconfig.NotFoundError
	require.True(t, errors.As(err, &nf))
	nf.Context = "eu-1"
	assert.EqualError(t, nf, `no API resource named "frobs"; "kubectl --context eu-1 api-resources" lists the names the cluster serves`)
}

// TestResolveKubectl: fedctl get TYPE takes the names kubectl get takes
// besides kubefedctl's: NAME.GROUP and NAME.VERSION.GROUP with NAME the
// singular, kind or short name too (what -o name prints reads back).
func TestResolveKubectl(t *testing.T) {
	t.Parallel()
	deploy := typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	exampleDeploy := typeconfig.Type{Group: "example.com", Version: "v1alpha1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	cm := typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	for _, tt := range []struct {
		key     string
		want    typeconfig.Type
		wantErr string
	}{
		{key: "deployments", wantErr: `"deployments" matches more than one resource`},
		{key: "deployment.apps", want: deploy},
		{key: "Deployment.apps", want: deploy},
		{key: "deploy.apps", want: deploy},
		{key: "deployments.v1.apps", want: deploy},
		{key: "Deployment.v1.apps", want: deploy},
		{key: "deployment.example.com", want: exampleDeploy},
		{key: "deployments.v1alpha1.example.com", want: exampleDeploy},
		{key: "configmap.v1", want: cm},
		{key: "deployments.v2.apps", wantErr: `no API resource named "deployments.v2.apps"`},
		{key: "deployment.nope", wantErr: `no API resource named "deployment.nope"`},
		{key: "widget.example.com", want: typeconfig.Type{Group: "example.com", Version: "v1alpha1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}},
	} {
		got, err := typeconfig.ResolveKubectl(tt.key, crowdedLists())
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, tt.key)
			continue
		}
		require.NoError(t, err, tt.key)
		assert.Equal(t, tt.want, got, tt.key)
	}
}
