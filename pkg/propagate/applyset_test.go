package propagate

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/render"
)

func TestApplySetID(t *testing.T) {
	t.Parallel()
	// The expected values come from the shell, not from this package:
	// printf %s NAME.NAMESPACE.KIND. | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '='
	tests := []struct {
		name      string
		flag, ns  string
		wantKind  string
		wantID    string
		wantError string
	}{
		{name: "a bare name is a Secret", flag: "web", ns: "default", wantKind: "Secret", wantID: "applyset-zN5gMMt3uHLO5pHDCETR-9uiGqcPRNY0X24Hk0Rzcgo-v1"},
		{name: "secrets/NAME is a Secret", flag: "secrets/prod", ns: "default", wantKind: "Secret", wantID: "applyset-zRPdOdiFwnia1JIbrVPutd6ObN79Itf7d-qpVsRbs48-v1"},
		{name: "configmaps/NAME is a ConfigMap", flag: "configmaps/shop", ns: "shop", wantKind: "ConfigMap", wantID: "applyset-XH-PJYPzLD9nFYm7BNKLLSDNEG2L1ih90R3Ov_stz-s-v1"},
		{name: "another kind is refused", flag: "deployments/web", ns: "default", wantError: `--applyset "deployments/web": the parent must be secrets/NAME (the default) or configmaps/NAME`},
		{name: "an empty name is refused", flag: "secrets/", ns: "default", wantError: "want NAME, secrets/NAME or configmaps/NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := ParseApplySet(tt.flag, tt.ns, "fedctl/v1")
			if tt.wantError != "" {
				require.ErrorContains(t, err, tt.wantError)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantKind, set.Kind())
			assert.Equal(t, tt.wantID, set.ID())
		})
	}
}

func TestGroupKindsValue(t *testing.T) {
	t.Parallel()
	gks := parseGroupKinds(" Deployment.apps,ConfigMap,,Namespace ")
	assert.Equal(t, "ConfigMap,Deployment.apps,Namespace", groupKindsValue(gks), "sorted, core kinds without a group")
	assert.True(t, gks.Has(schema.GroupKind{Group: "apps", Kind: "Deployment"}))
}

func setOf(t *testing.T, name string) *ApplySet {
	t.Helper()
	set, err := ParseApplySet(name, "default", "fedctl/test")
	require.NoError(t, err)
	return &set
}

func parentIn(f *memberstest.Fake, set *ApplySet) *unstructured.Unstructured {
	return f.Object(memberstest.KeyOf(set.mapping(), set.Namespace, set.Name))
}

// TestRunPrunesTheApplySet: objects of the set whose federated objects
// left the input are deleted; fedctl objects outside the set, and objects
// marked kubefed.io/managed: "false", are not.
func TestRunPrunesTheApplySet(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType, deployType)
	set := setOf(t, "shop")
	res := resultFor(
		spec{t: cmType, name: "cfg", clusters: []string{"a"}},
		spec{t: cmType, name: "hands-off", clusters: []string{"a"}},
		spec{t: deployType, name: "web", clusters: []string{"a"}},
	)
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)
	parent := parentIn(fake, set)
	require.NotNil(t, parent, "the parent is created")
	assert.Equal(t, "Secret", parent.GetKind())
	assert.Equal(t, map[string]string{ApplySetIDLabel: set.ID()}, parent.GetLabels())
	assert.Equal(t, map[string]string{
		ApplySetToolingAnnotation:    "fedctl/test",
		ApplySetGroupKindsAnnotation: "ConfigMap,Deployment.apps",
		ApplySetNamespacesAnnotation: "shop",
	}, parent.GetAnnotations())
	cfg := fake.Object(memberstest.KeyOf(mappingOf(cmType), "shop", "cfg"))
	assert.Equal(t, set.ID(), cfg.GetLabels()[federation.ApplySetPartOfLabel])

	// a fedctl object of another input, not in the set
	_, other := object(cmType, "shop", "other", nil)
	fake.Put(memberstest.KeyOf(mappingOf(cmType), "shop", "other"), &unstructured.Unstructured{Object: other})
	// someone marks one of the set hands off
	hands := fake.Object(memberstest.KeyOf(mappingOf(cmType), "shop", "hands-off"))
	labels := hands.GetLabels()
	labels[federation.ManagedLabel] = "false"
	hands.SetLabels(labels)
	fake.ClearCalls()

	// web and hands-off leave the input
	rep = run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}), map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "deleted Deployment web", "skipped ConfigMap hands-off"}, actions(rep.Clusters[0]),
		"removals in reverse install order")
	assert.Equal(t, ReasonPruned, rep.Clusters[0].Objects[1].Reason)
	assert.Equal(t, "FederatedDeployment/shop/web", rep.Clusters[0].Objects[1].FederatedObject)
	assert.Equal(t, []string{"DELETE deployments web", "APPLY Secret shop"}, fake.Writes(),
		"only web is deleted, then the parent lists what is left")
	assert.Equal(t, "ConfigMap", parentIn(fake, set).GetAnnotations()[ApplySetGroupKindsAnnotation],
		"Deployment, all of it pruned, is no longer listed (ConfigMap is: cfg, and hands-off, which stays)")
	assert.True(t, fake.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "other")))
}

// TestRunKeepsAnotherSetsParent: a parent that belongs to another set or
// tool fails the member before anything is written.
func TestRunKeepsAnotherSetsParent(t *testing.T) {
	t.Parallel()
	set := setOf(t, "shop")
	for _, tt := range []struct {
		name    string
		labels  map[string]string
		ann     map[string]string
		wantErr string
	}{
		{name: "a plain Secret", wantErr: "Secret default/shop exists and is not an ApplySet parent (no applyset.kubernetes.io/id label); choose another --applyset name"},
		{name: "another set", labels: map[string]string{ApplySetIDLabel: "applyset-other-v1"}, wantErr: "Secret default/shop is the parent of ApplySet applyset-other-v1, not " + set.ID() + "; choose another --applyset name"},
		{name: "another tool", labels: map[string]string{ApplySetIDLabel: set.ID()}, ann: map[string]string{ApplySetToolingAnnotation: "kubectl/v1.33.0"},
			wantErr: "Secret default/shop is managed by kubectl/v1.33.0, not fedctl; fedctl does not prune a set another tool manages"},
		{name: "no tool", labels: map[string]string{ApplySetIDLabel: set.ID()}, ann: map[string]string{ApplySetGroupKindsAnnotation: "ConfigMap"},
			wantErr: "Secret default/shop is an ApplySet parent without the applyset.kubernetes.io/tooling annotation, so no tool is known to manage it; fedctl does not prune a set it cannot tell is its own (add applyset.kubernetes.io/tooling: fedctl/<version> if it is fedctl's)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := newFake(cmType)
			parent := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}
			parent.SetName("shop")
			parent.SetNamespace("default")
			parent.SetLabels(tt.labels)
			parent.SetAnnotations(tt.ann)
			fake.Put(memberstest.KeyOf(set.mapping(), "default", "shop"), parent)
			rep := run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}), map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
			assert.Equal(t, tt.wantErr, rep.Clusters[0].Error)
			assert.Empty(t, fake.Writes())
		})
	}
}

// TestRunMaxDeletions: with more deletions than MaxDeletions in a member,
// de-placement and pruning together, none is sent and each is reported;
// a member within the bound deletes.
func TestRunMaxDeletions(t *testing.T) {
	t.Parallel()
	set := setOf(t, "shop")
	all := resultFor(
		spec{t: cmType, name: "a1", clusters: []string{"a", "b"}},
		spec{t: cmType, name: "a2", clusters: []string{"a", "b"}},
		spec{t: cmType, name: "kept", clusters: []string{"a", "b"}},
	)
	fakes := map[string]*memberstest.Fake{"a": newFake(cmType), "b": newFake(cmType)}
	require.Empty(t, run(t, all, fakes, Options{ApplySet: set}).Failed())
	for _, f := range fakes {
		f.ClearCalls()
	}
	// a1 leaves a only (de-placement), a2 leaves the input (prune)
	next := resultFor(
		spec{t: cmType, name: "a1", clusters: []string{"b"}},
		spec{t: cmType, name: "kept", clusters: []string{"a", "b"}},
	)
	one := 1
	rep := run(t, next, fakes, Options{ApplySet: set, MaxDeletions: &one})
	assert.Equal(t, []string{"a"}, rep.Failed())
	assert.Equal(t, []string{"unchanged ConfigMap kept", "failed ConfigMap a1", "failed ConfigMap a2"}, actions(rep.Clusters[0]))
	const msg = "not deleted: 2 objects would be deleted in this cluster, more than --max-deletions=1; check the input, then raise --max-deletions to allow it"
	assert.Equal(t, msg, rep.Clusters[0].Objects[1].Error)
	assert.Equal(t, ReasonTooManyDeletions, rep.Clusters[0].Objects[1].Reason)
	assert.Equal(t, ReasonTooManyDeletions, rep.Clusters[0].Objects[2].Reason, "a withheld prune is not reported Pruned: nothing was deleted")
	assert.NotContains(t, fakes["a"].Writes(), "DELETE configmaps a1")
	assert.NotContains(t, fakes["a"].Writes(), "DELETE configmaps a2")
	assert.Equal(t, "ConfigMap", parentIn(fakes["a"], set).GetAnnotations()[ApplySetGroupKindsAnnotation])
	assert.Equal(t, []string{"unchanged ConfigMap a1", "unchanged ConfigMap kept", "deleted ConfigMap a2"}, actions(rep.Clusters[1]), "b has one deletion")

	two := 2
	rep = run(t, next, fakes, Options{ApplySet: set, MaxDeletions: &two})
	require.Empty(t, rep.Failed())
	assert.Equal(t, []string{"unchanged ConfigMap kept", "deleted ConfigMap a1", "deleted ConfigMap a2"}, actions(rep.Clusters[0]))
}

// TestRunServerDryRunPrunesNothing: the dry run reports the prune and
// sends only dry runs.
func TestRunServerDryRunPrunesNothing(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	set := setOf(t, "shop")
	require.Empty(t, run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: cmType, name: "gone", clusters: []string{"a"}}),
		map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set}).Failed())
	rep := run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}), map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set, DryRun: true})
	require.Empty(t, rep.Failed())
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "deleted ConfigMap gone"}, actions(rep.Clusters[0]))
	assert.True(t, fake.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "gone")))
}

// TestPlanLiveSendsNoWrite: --dry-run=client --prune reads the member to
// report deletions and sends no write at all.
func TestPlanLiveSendsNoWrite(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	set := setOf(t, "shop")
	require.Empty(t, run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: cmType, name: "gone", clusters: []string{"a"}}),
		map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set}).Failed())
	fake.ClearCalls()
	rep := PlanLive(context.Background(), Input{Result: resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: cmType, name: "added", clusters: []string{"a"}}),
		Clusters: []string{"a"}, Clients: func(string) (members.Client, error) { return fake, nil }, Options: Options{ApplySet: set}})
	require.Empty(t, rep.Failed())
	assert.Equal(t, "client", rep.DryRun)
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "created ConfigMap added", "deleted ConfigMap gone"}, actions(rep.Clusters[0]))
	assert.Empty(t, fake.Writes(), "reads only: %v", fake.Calls())
	assert.True(t, fake.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "gone")))
}

// An object that fails to render for a member keeps its kind in the
// parent: it may be in the set from an earlier run, and a later prune must
// still find it.
func TestRunKeepsTheKindOfAnObjectThatFailedToRender(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType, deployType)
	set := setOf(t, "shop")
	rep := run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: deployType, name: "web", clusters: []string{"a"}}),
		map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)

	// now web's overrides fail for a
	res := failRender(resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: deployType, name: "web", clusters: []string{"a"}}), "a", "Deployment")
	rep = run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	assert.Equal(t, "ConfigMap,Deployment.apps", parentIn(fake, set).GetAnnotations()[ApplySetGroupKindsAnnotation])
	assert.True(t, fake.Has(memberstest.KeyOf(mappingOf(deployType), "shop", "web")), "not deleted either")
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "failed Deployment web"}, actions(rep.Clusters[0]))
}

// failRender makes the objects of kind in cluster fail to render in res
// (their overrides do not apply there), as render reports it.
func failRender(res *render.Result, cluster, kind string) *render.Result {
	var kept []render.Target
	for _, tg := range res.Targets {
		if tg.Cluster == cluster && tg.Type.Kind == kind {
			res.Errors = append(res.Errors, &render.TargetError{Cluster: cluster, Object: tg.Source, Err: errors.New("override 0: path not found")})
			continue
		}
		kept = append(kept, tg)
	}
	res.Targets = kept
	return res
}

// TestRunNeverPrunesOnPartialKnowledge: in a member where one kind of the
// set cannot be listed, nothing is pruned and the parent keeps listing
// that kind; the member fails with the reason, and the types that can be
// written are written. The other member is pruned.
func TestRunNeverPrunesOnPartialKnowledge(t *testing.T) {
	t.Parallel()
	set := setOf(t, "shop")
	fakes := map[string]*memberstest.Fake{"a": newFake(cmType, deployType), "b": newFake(cmType, deployType)}
	first := resultFor(
		spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}},
		spec{t: deployType, name: "web", clusters: []string{"a", "b"}},
		spec{t: cmType, name: "gone", clusters: []string{"a", "b"}},
	)
	require.Empty(t, run(t, first, fakes, Options{ApplySet: set}).Failed())
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", errors.New("RBAC says no"))
	fakes["a"].ListErr = func(resource string) error {
		if resource == "deployments" {
			return forbidden
		}
		return nil
	}

	// web and gone leave the input; cfg changes
	next := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v2"}}, clusters: []string{"a", "b"}})
	rep := run(t, next, fakes, Options{ApplySet: set})
	assert.Equal(t, []string{"a"}, rep.Failed())
	a := rep.Clusters[0]
	assert.Contains(t, a.Error, "fedctl's objects of some types could not be read, so nothing was pruned here")
	assert.Contains(t, a.Error, "Deployment.apps: deployments.apps is forbidden")
	assert.Equal(t, []string{"configured ConfigMap cfg", "skipped ConfigMap gone"}, actions(a), "what can be written is; what would be pruned is not")
	assert.Equal(t, ReasonNotPruned, a.Objects[1].Reason)
	assert.Zero(t, fakes["a"].Count("DELETE"))
	assert.Contains(t, parentIn(fakes["a"], set).GetAnnotations()[ApplySetGroupKindsAnnotation], "Deployment.apps", "a failure never narrows the set")
	assert.Equal(t, []string{"configured ConfigMap cfg", "deleted ConfigMap gone", "deleted Deployment web"}, sortedActions(rep.Clusters[1]))

	// fedctl delete there says what it could not delete
	rep = Delete(context.Background(), Input{Result: first, Clusters: []string{"a"},
		Clients: func(string) (members.Client, error) { return fakes["a"], nil }})
	assert.Contains(t, rep.Clusters[0].Error, "objects of these types were not deleted here")
	assert.True(t, fakes["a"].Has(memberstest.KeyOf(mappingOf(deployType), "shop", "web")), "web stays: it could not be listed")
}

// TestRunPrunesNothingAfterAFailure: as kubectl apply --prune, a member
// where one of the input's objects failed to apply or to render is not
// pruned (what failed may be what replaces the pruned object); the
// objects are reported NotPruned and the next run that applies everything
// prunes them. A member where everything applied is pruned.
func TestRunPrunesNothingAfterAFailure(t *testing.T) {
	t.Parallel()
	set := setOf(t, "shop")
	fakes := map[string]*memberstest.Fake{"a": newFake(cmType, deployType), "b": newFake(cmType, deployType)}
	first := resultFor(
		spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}},
		spec{t: deployType, name: "web", clusters: []string{"a", "b"}},
	)
	require.Empty(t, run(t, first, fakes, Options{ApplySet: set}).Failed())

	// web is renamed web2, whose apply a refuses
	fakes["a"].ApplyErr = func(obj *unstructured.Unstructured, _ int) error {
		if obj.GetName() == "web2" {
			return apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web2", nil)
		}
		return nil
	}
	next := resultFor(
		spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}},
		spec{t: deployType, name: "web2", clusters: []string{"a", "b"}},
	)
	rep := run(t, next, fakes, Options{ApplySet: set})
	assert.Equal(t, []string{"a"}, rep.Failed())
	a := rep.Clusters[0]
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "failed Deployment web2", "skipped Deployment web"}, actions(a))
	assert.Equal(t, ReasonNotPruned, a.Objects[2].Reason)
	assert.Equal(t, "not pruned: 1 of the input's objects failed in this cluster; prune runs once they apply", a.Objects[2].Error)
	assert.Zero(t, fakes["a"].Count("DELETE"))
	assert.True(t, fakes["a"].Has(memberstest.KeyOf(mappingOf(deployType), "shop", "web")), "the old Deployment keeps running")
	assert.Contains(t, parentIn(fakes["a"], set).GetAnnotations()[ApplySetGroupKindsAnnotation], "Deployment.apps")
	assert.Equal(t, []string{"created Deployment web2", "deleted Deployment web", "unchanged ConfigMap cfg"}, sortedActions(rep.Clusters[1]))

	// a render failure in a holds the prune back too
	fakes["a"].ApplyErr = nil
	failing := failRender(resultFor(
		spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}},
		spec{t: deployType, name: "web2", clusters: []string{"a", "b"}},
	), "a", "Deployment")
	rep = run(t, failing, fakes, Options{ApplySet: set})
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "failed Deployment web2", "skipped Deployment web"}, actions(rep.Clusters[0]))
	assert.Zero(t, fakes["a"].Count("DELETE"))

	// once everything applies, the prune happens
	rep = run(t, next, fakes, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)
	assert.Equal(t, []string{"created Deployment web2", "deleted Deployment web", "unchanged ConfigMap cfg"}, sortedActions(rep.Clusters[0]))
}

// TestDNSContextsOn: the parent's recorded DNS clusters are what it had,
// less those known empty, plus those of the run; a cluster the run did not
// check stays.
func TestDNSContextsOn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, live  string
		add, forget []string
		want        string
	}{
		{name: "nothing", want: ""},
		{name: "first record", add: []string{"dns"}, want: "dns"},
		{name: "unchanged", live: "dns", add: []string{"dns"}, want: "dns"},
		{name: "moved: the old one stays until known empty", live: "old", add: []string{"new"}, want: "new,old"},
		{name: "the old one is empty", live: "new,old", add: []string{"new"}, forget: []string{"old"}, want: "new"},
		{name: "not checked: kept", live: "x", want: "x"},
		{name: "the domain went and its cluster is empty", live: "dns", forget: []string{"dns"}, want: ""},
		{name: "spaces and order", live: " b , a", add: []string{"c"}, want: "a,b,c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := ApplySet{DNSContexts: tt.add, ForgetDNSContexts: tt.forget}
			assert.Equal(t, tt.want, set.dnsContextsOn(tt.live))
		})
	}
}

// TestCloseApplySetKeepsWhatACordonKeeps: an object of the set that a
// cordoned member keeps, no longer placed there and of a kind nothing else
// in the input has, stays listed by the parent: dropped, it would never be
// read again, nor pruned once its federated object leaves the input.
func TestCloseApplySetKeepsWhatACordonKeeps(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType, deployType)
	set := setOf(t, "shop")
	both := resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: deployType, name: "web", clusters: []string{"a"}})
	rep := run(t, both, map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)

	// web is no longer placed in a, which is cordoned: it stays there
	rep = run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: deployType, name: "web"}),
		map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set, Cordoned: []string{"a"}})
	require.Empty(t, rep.Failed(), "%+v", rep)
	require.True(t, fake.Has(memberstest.KeyOf(mappingOf(deployType), "shop", "web")), "the cordon keeps it")
	assert.Equal(t, "ConfigMap,Deployment.apps", parentIn(fake, set).GetAnnotations()[ApplySetGroupKindsAnnotation])

	// once uncordoned and gone from the input, it is pruned
	rep = run(t, resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}), map[string]*memberstest.Fake{"a": fake}, Options{ApplySet: set})
	require.Empty(t, rep.Failed(), "%+v", rep)
	assert.False(t, fake.Has(memberstest.KeyOf(mappingOf(deployType), "shop", "web")))
	assert.Equal(t, "ConfigMap", parentIn(fake, set).GetAnnotations()[ApplySetGroupKindsAnnotation])
}
