package propagate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// FieldManager is the default field manager of fedctl's server-side applies.
const FieldManager = "fedctl"

// Mapping is where a kind is served in one member.
type Mapping struct {
	Resource   schema.GroupVersionResource
	Namespaced bool
}

// WriteOptions are the options of every write.
type WriteOptions struct {
	FieldManager string
	// Force takes over fields other managers own (--force-conflicts).
	Force bool
	// DryRun sends the write as a server-side dry run.
	DryRun bool
}

// Applier is one member's API, as propagate uses it. Implementations are
// safe for concurrent use.
type Applier interface {
	// Map resolves a kind; a *NotServedError when the member does not
	// serve it.
	Map(gvk schema.GroupVersionKind) (Mapping, error)
	// Reset forgets what Map learnt, after a CRD was created.
	Reset()
	// List lists the objects of m in every namespace matching selector.
	List(ctx context.Context, m Mapping, selector string) ([]unstructured.Unstructured, error)
	// Get reads one object.
	Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error)
	// ListMetadata lists the metadata of every object of m in namespace
	// ("" for a cluster-scoped type), fedctl's or not.
	ListMetadata(ctx context.Context, m Mapping, namespace string) ([]metav1.PartialObjectMetadata, error)
	// NamespaceContents lists the metadata (with apiVersion and kind) of
	// every object in namespace, of every listable namespaced type the
	// member serves but those federate --contents leaves out (events,
	// endpoints, ...).
	NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error)
	// Apply sends obj as a server-side apply.
	Apply(ctx context.Context, m Mapping, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error)
	// MergePatch sends a JSON merge patch.
	MergePatch(ctx context.Context, m Mapping, namespace, name string, patch []byte, opts WriteOptions) (*unstructured.Unstructured, error)
	// Delete deletes one object.
	Delete(ctx context.Context, m Mapping, namespace, name string, opts metav1.DeleteOptions) error
}

// NotServedError says a member does not serve a kind.
type NotServedError struct{ GVK schema.GroupVersionKind }

func (e *NotServedError) Error() string {
	gv := e.GVK.GroupVersion().String()
	return fmt.Sprintf("type %s %s is not served by this cluster; install its CRD there first", gv, e.GVK.Kind)
}

// dynamicApplier is the Applier of a real member.
type dynamicApplier struct {
	client dynamic.Interface
	meta   metadata.Interface // LISTs of metadata only
	disco  discovery.DiscoveryInterface

	mu     sync.Mutex
	mapper meta.RESTMapper // nil until the first Map and after Reset
}

var _ Applier = (*dynamicApplier)(nil)

// NewApplier returns the Applier for the member cfg reaches. Discovery is
// lazy (the first Map) and cached until Reset.
func NewApplier(cfg *rest.Config) (Applier, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &dynamicApplier{client: client, meta: md, disco: disco}, nil
}

// NewMemberApplier returns the Applier of member m reached through a.
func NewMemberApplier(a members.Access, m members.Member) (Applier, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return nil, err
	}
	return NewApplier(cfg)
}

// MemberAppliers returns Input.Appliers for the members of fed: newApplier
// (NewMemberApplier outside tests) is called once per member and its
// Applier kept for the run, so that a command that reads a member several
// times (apply --wait, status --wait) discovers its types once.
func MemberAppliers(fed *members.Federation, a members.Access, newApplier func(members.Access, members.Member) (Applier, error)) func(cluster string) (Applier, error) {
	var mu sync.Mutex
	cached := map[string]Applier{}
	return func(name string) (Applier, error) {
		mu.Lock()
		defer mu.Unlock()
		if ap, ok := cached[name]; ok {
			return ap, nil
		}
		m, ok := fed.Member(name)
		if !ok {
			return nil, &members.NotMemberError{Name: name, Members: fed.Names()}
		}
		ap, err := newApplier(a, m)
		if err == nil {
			cached[name] = ap
		}
		return ap, err
	}
}

// restMapper discovers the member's types once (aggregated discovery: two
// requests) and keeps them until Reset. A failed discovery is not cached.
func (a *dynamicApplier) restMapper() (meta.RESTMapper, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.mapper == nil {
		groups, err := restmapper.GetAPIGroupResources(a.disco)
		if err != nil {
			return nil, err
		}
		a.mapper = restmapper.NewDiscoveryRESTMapper(groups)
	}
	return a.mapper, nil
}

func (a *dynamicApplier) Map(gvk schema.GroupVersionKind) (Mapping, error) {
	mapper, err := a.restMapper()
	if err != nil {
		return Mapping{}, err
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return Mapping{}, &NotServedError{GVK: gvk}
		}
		return Mapping{}, err
	}
	return Mapping{Resource: m.Resource, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

func (a *dynamicApplier) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mapper = nil
}

func (a *dynamicApplier) resource(m Mapping, namespace string) dynamic.ResourceInterface {
	if m.Namespaced && namespace != "" {
		return a.client.Resource(m.Resource).Namespace(namespace)
	}
	return a.client.Resource(m.Resource)
}

func (a *dynamicApplier) List(ctx context.Context, m Mapping, selector string) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{LabelSelector: selector, Limit: 500}
	for {
		list, err := a.resource(m, "").List(ctx, opts)
		if err != nil {
			return nil, err
		}
		items = append(items, list.Items...)
		if list.GetContinue() == "" {
			return items, nil
		}
		opts.Continue = list.GetContinue()
	}
}

func (a *dynamicApplier) ListMetadata(ctx context.Context, m Mapping, namespace string) ([]metav1.PartialObjectMetadata, error) {
	var ri metadata.ResourceInterface = a.meta.Resource(m.Resource)
	if m.Namespaced && namespace != "" {
		ri = a.meta.Resource(m.Resource).Namespace(namespace)
	}
	var items []metav1.PartialObjectMetadata
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		items = append(items, list.Items...)
		if list.GetContinue() == "" {
			return items, nil
		}
		opts.Continue = list.GetContinue()
	}
}

func (a *dynamicApplier) NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error) {
	lists, err := a.disco.ServerPreferredNamespacedResources()
	if err != nil {
		// A group that failed discovery may hold objects: not knowing
		// what is there is no ground to delete it.
		return nil, fmt.Errorf("discover the types the namespace may hold: %w", err)
	}
	var out []unstructured.Unstructured
	for _, t := range federation.ContentsTypes(lists, nil) {
		gvr := schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Plural}
		metas, err := a.ListMetadata(ctx, Mapping{Resource: gvr, Namespaced: true}, namespace)
		if err != nil {
			return nil, fmt.Errorf("list %s in %s: %w", t.Name(), namespace, err)
		}
		for _, m := range metas {
			u := unstructured.Unstructured{}
			u.SetAPIVersion(t.APIVersion())
			u.SetKind(t.Kind)
			u.SetNamespace(m.Namespace)
			u.SetName(m.Name)
			u.SetLabels(m.Labels)
			u.SetOwnerReferences(m.OwnerReferences)
			out = append(out, u)
		}
	}
	return out, nil
}

func (a *dynamicApplier) Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	return a.resource(m, namespace).Get(ctx, name, metav1.GetOptions{})
}

func dryRun(on bool) []string {
	if on {
		return []string{metav1.DryRunAll}
	}
	return nil
}

func (a *dynamicApplier) Apply(ctx context.Context, m Mapping, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error) {
	if opts.FieldManager == "" {
		return nil, errors.New("no field manager")
	}
	return a.resource(m, obj.GetNamespace()).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: opts.FieldManager, Force: opts.Force, DryRun: dryRun(opts.DryRun)})
}

func (a *dynamicApplier) MergePatch(ctx context.Context, m Mapping, namespace, name string, patch []byte, opts WriteOptions) (*unstructured.Unstructured, error) {
	return a.resource(m, namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: opts.FieldManager, DryRun: dryRun(opts.DryRun)})
}

func (a *dynamicApplier) Delete(ctx context.Context, m Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	return a.resource(m, namespace).Delete(ctx, name, opts)
}
