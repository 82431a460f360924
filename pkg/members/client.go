package members

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/fedctl/fedctl/pkg/federation"
)

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

// ListOptions select the objects of a List.
type ListOptions struct {
	// Namespace limits the list to one namespace; "" lists every
	// namespace (ignored for cluster-scoped types).
	Namespace     string
	LabelSelector string
	FieldSelector string
	// WholeTableObjects makes ListTable's rows carry the whole object
	// (includeObject=Object) instead of its metadata, as kubectl asks
	// when it sorts.
	WholeTableObjects bool
}

// Client is the one way fedctl talks to a member: type discovery, reads and
// writes. propagate, status, get, federate and unjoin all use it, and a
// run builds one per member (Clients), so that a member's types are
// discovered once. Implementations are safe for concurrent use.
//
// The member's client of a run (NewClient) sends again every request that
// failed transiently, within the context's time (Retrying): callers make
// one call per request and never retry themselves. That is safe because
// every request fedctl sends is idempotent: reads, server-side applies,
// merge patches of fixed values, and deletes with a UID precondition (a
// second one finds nothing, or another object, and changes nothing).
type Client interface {
	// Map resolves a kind ("" version: the member's preferred one). It
	// returns a *NotServedError when the member does not serve it, and a
	// *GroupDiscoveryError when the member failed to say whether it does
	// (an aggregated API that is unavailable): not knowing is not "not
	// served", and nothing may be deleted on the strength of it.
	Map(ctx context.Context, gvk schema.GroupVersionKind) (Mapping, error)
	// Reset forgets what Map learnt, after a CRD was created.
	Reset()
	// Server is the member's API server URL, for messages.
	Server() string
	// Resources lists the member's preferred API resources, as kubectl
	// api-resources does; a *DiscoveryError comes with a partial list.
	Resources(ctx context.Context) ([]*metav1.APIResourceList, error)
	// List lists the objects of m (paged).
	List(ctx context.Context, m Mapping, opts ListOptions) ([]unstructured.Unstructured, error)
	// ListTable lists the objects of m as the API server's Table, the
	// columns kubectl get prints (paged, rows in the server's order).
	ListTable(ctx context.Context, m Mapping, opts ListOptions) (*metav1.Table, error)
	// ListMetadata lists the metadata of every object of m, fedctl's or
	// not (paged).
	ListMetadata(ctx context.Context, m Mapping, opts ListOptions) ([]metav1.PartialObjectMetadata, error)
	// NamespaceContents lists the metadata (apiVersion, kind, name,
	// labels, annotations, owners, deletionTimestamp) of
	// every object in namespace, of every listable namespaced type the
	// member serves but those federate --contents leaves out (events,
	// endpoints, ...).
	NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error)
	// Get reads one object.
	Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error)
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

// GroupDiscoveryError says a member could not tell what one API group
// serves: its discovery of the group failed or is stale.
type GroupDiscoveryError struct {
	Group string
	Err   error
}

func (e *GroupDiscoveryError) Error() string {
	group := e.Group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("the API server cannot say what API group %s serves (%v); an aggregated API may be unavailable: check kubectl get apiservices", group, e.Err)
}

func (e *GroupDiscoveryError) Unwrap() error { return e.Err }

// dynamicClient is the Client of a real member.
type dynamicClient struct {
	member string // for messages
	cfg    *rest.Config
	client dynamic.Interface
	meta   metadata.Interface // LISTs of metadata only
	disco  *discovery.DiscoveryClient

	mu     sync.Mutex
	mapper meta.RESTMapper  // nil until the first Map and after Reset
	failed map[string]error // groups whose discovery failed, by name
}

var _ Client = (*dynamicClient)(nil)

// NewClient returns the Client for the member cfg reaches, retrying as
// Retrying says. Discovery is lazy (the first Map) and kept until Reset.
func NewClient(cfg *rest.Config) (Client, error) {
	c, err := newDynamicClient(cfg)
	if err != nil {
		return nil, err
	}
	return Retrying(c), nil
}

func newDynamicClient(cfg *rest.Config) (*dynamicClient, error) {
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
	return &dynamicClient{cfg: cfg, client: client, meta: md, disco: disco}, nil
}

// NewMemberClient returns the Client of member m reached through a.
func NewMemberClient(a Access, m Member) (Client, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return nil, err
	}
	c, err := newDynamicClient(cfg)
	if err != nil {
		return nil, clientError(m, err)
	}
	c.member = m.Name
	return Retrying(c), nil
}

// Clients returns the Clients of the members of fed for one run: newClient
// (NewMemberClient outside tests) is called once per member and its Client
// kept, so that a command that reads a member several times (apply --wait,
// status --wait) discovers its types once. A failure is not kept. Members
// are made concurrently: making one may read the network (a member from
// Cluster API reads its Secret), and one that waits must not hold up the
// others.
func Clients(fed *Federation, a Access, newClient func(Access, Member) (Client, error)) func(cluster string) (Client, error) {
	type entry struct {
		mu sync.Mutex
		c  Client
	}
	var mu sync.Mutex
	entries := map[string]*entry{}
	return func(name string) (Client, error) {
		m, ok := fed.Member(name)
		if !ok {
			return nil, &NotMemberError{Name: name, Members: fed.Names()}
		}
		mu.Lock()
		e := entries[name]
		if e == nil {
			e = &entry{}
			entries[name] = e
		}
		mu.Unlock()
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.c != nil {
			return e.c, nil
		}
		c, err := newClient(a, m)
		if err == nil {
			e.c = c
		}
		return c, err
	}
}

// AnsweringOnly wraps clients so that a member not in answering (those
// that answered when a live plan was made) gets no request at all: it was
// planned without, and reaching it now (it may be back) could remove what
// the plan left out of it. Its sync fails, saying so (why[name], else
// /healthz); the next run plans over it again.
func AnsweringOnly(answering []string, why map[string]string, clients func(string) (Client, error)) func(string) (Client, error) {
	return func(name string) (Client, error) {
		if !slices.Contains(answering, name) {
			return nil, fmt.Errorf("did not answer when the plan was made (%s); nothing was sent to it, and the next run plans over it again", cmp.Or(why[name], "/healthz"))
		}
		return clients(name)
	}
}

// partialDiscoveryTries bounds the discoveries Map runs when some groups
// fail: an aggregated API that is down stays down, and every run would
// otherwise spend its whole --timeout on it. A discovery that fails as a
// whole (a 503 on /apis, a reset) is retried for as long as time allows.
const partialDiscoveryTries = 3

// restMapper discovers the member's types once (aggregated discovery: two
// requests) and keeps them until Reset. A discovery that fails as a whole
// (a 503 on /apis, a reset) is retried for as long as the member's time
// allows; one where some groups fail is retried partialDiscoveryTries times
// and then kept, with the groups that failed remembered.
func (c *dynamicClient) restMapper(ctx context.Context) (meta.RESTMapper, map[string]error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mapper != nil {
		return c.mapper, c.failed, nil
	}
	var groups []*restmapper.APIGroupResources
	var failed map[schema.GroupVersion]error
	tries := 0
	err := Retry(ctx, Idempotent, func() error {
		tries++
		var err error
		groups, err = discoverGroups(ctx, c.disco)
		failed = nil
		if fg, partial := discovery.GroupDiscoveryFailedErrorGroups(err); partial {
			failed = fg
			if tries < partialDiscoveryTries {
				return errPartialDiscovery
			}
			return nil
		}
		return err
	})
	if err != nil && !errors.Is(err, errPartialDiscovery) {
		return nil, nil, err
	}
	failedGroups := map[string]error{}
	for gv, gvErr := range failed {
		failedGroups[gv.Group] = gvErr
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	if err != nil {
		// Partial, and cut short by this caller's time (a live read's)
		// before its tries were up: good for this call, not kept for the
		// run's later callers, which get their own tries.
		return mapper, failedGroups, nil
	}
	c.mapper, c.failed = mapper, failedGroups
	return c.mapper, c.failed, nil
}

// discoverGroups is the member's API groups with their resources, for a
// RESTMapper. Unlike restmapper.GetAPIGroupResources, which drops the
// error of a partial discovery, it returns the groups that were discovered
// together with the *discovery.ErrGroupDiscoveryFailed naming those that
// were not (stale aggregated APIs among them): not knowing what a group
// serves must never read as its types being absent.
func discoverGroups(ctx context.Context, disco discovery.DiscoveryInterfaceWithContext) ([]*restmapper.APIGroupResources, error) {
	groupList, resourceLists, err := disco.ServerGroupsAndResourcesWithContext(ctx)
	if groupList == nil || resourceLists == nil {
		return nil, err
	}
	byVersion := make(map[string][]metav1.APIResource, len(resourceLists))
	for _, rl := range resourceLists {
		byVersion[rl.GroupVersion] = rl.APIResources
	}
	groups := make([]*restmapper.APIGroupResources, 0, len(groupList))
	for _, g := range groupList {
		gr := &restmapper.APIGroupResources{Group: *g, VersionedResources: map[string][]metav1.APIResource{}}
		for _, v := range g.Versions {
			if resources, ok := byVersion[v.GroupVersion]; ok {
				gr.VersionedResources[v.Version] = resources
			}
		}
		groups = append(groups, gr)
	}
	return groups, err
}

func (c *dynamicClient) Map(ctx context.Context, gvk schema.GroupVersionKind) (Mapping, error) {
	mapper, failed, err := c.restMapper(ctx)
	if err != nil {
		return Mapping{}, err
	}
	if gErr, ok := failed[gvk.Group]; ok {
		return Mapping{}, &GroupDiscoveryError{Group: gvk.Group, Err: gErr}
	}
	var versions []string
	if gvk.Version != "" {
		versions = []string{gvk.Version}
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), versions...)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return Mapping{}, &NotServedError{GVK: gvk}
		}
		return Mapping{}, err
	}
	return Mapping{Resource: m.Resource, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

func (c *dynamicClient) Server() string { return c.cfg.Host }

func (c *dynamicClient) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mapper, c.failed = nil, nil
}

func (c *dynamicClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	var lists []*metav1.APIResourceList
	var partialErr error
	err := Retry(ctx, Idempotent, func() error {
		var err error
		lists, err = c.disco.ServerPreferredResourcesWithContext(ctx)
		partialErr = nil
		if failed, partial := discovery.GroupDiscoveryFailedErrorGroups(err); partial && len(lists) > 0 {
			de := &DiscoveryError{Member: c.member, Groups: map[string]error{}}
			for gv, gvErr := range failed {
				de.Groups[gv.String()] = gvErr
			}
			partialErr = de
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return lists, partialErr
}

// listPage is the page size of every LIST.
const listPage = 500

func (c *dynamicClient) resource(m Mapping, namespace string) dynamic.ResourceInterface {
	if m.Namespaced && namespace != "" {
		return c.client.Resource(m.Resource).Namespace(namespace)
	}
	return c.client.Resource(m.Resource)
}

func (o ListOptions) meta() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: listPage}
}

func (c *dynamicClient) List(ctx context.Context, m Mapping, opts ListOptions) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	lo := opts.meta()
	for {
		list, err := c.resource(m, opts.Namespace).List(ctx, lo)
		if err != nil {
			return nil, err
		}
		items = append(items, list.Items...)
		if list.GetContinue() == "" {
			return items, nil
		}
		lo.Continue = list.GetContinue()
	}
}

// tableAccept asks the API server for its Table rendering: the columns
// kubectl get prints, computed server side (built-in printers, or a CRD's
// additionalPrinterColumns), with JSON as the fallback.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

func (c *dynamicClient) ListTable(ctx context.Context, m Mapping, opts ListOptions) (*metav1.Table, error) {
	cfg := rest.CopyConfig(c.cfg)
	cfg.GroupVersion = &schema.GroupVersion{Group: m.Resource.Group, Version: m.Resource.Version}
	cfg.APIPath = "/apis"
	if m.Resource.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	lo := opts.meta()
	var table *metav1.Table
	for {
		req := client.Get().Resource(m.Resource.Resource).SetHeader("Accept", tableAccept).
			VersionedParams(&lo, metav1.ParameterCodec)
		if m.Namespaced && opts.Namespace != "" {
			req = req.Namespace(opts.Namespace)
		}
		if opts.WholeTableObjects {
			req = req.Param("includeObject", string(metav1.IncludeObject))
		}
		raw, err := req.DoRaw(ctx)
		if err != nil {
			return nil, err
		}
		var page metav1.Table
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("decode the API server's table: %w", err)
		}
		if page.Kind != "Table" {
			return nil, fmt.Errorf("the API server answered with a %s instead of a Table; it may be too old for fedctl get", page.Kind)
		}
		if table == nil {
			table = &page
		} else {
			table.Rows = append(table.Rows, page.Rows...)
		}
		if page.Continue == "" {
			return table, nil
		}
		lo.Continue = page.Continue
	}
}

func (c *dynamicClient) ListMetadata(ctx context.Context, m Mapping, opts ListOptions) ([]metav1.PartialObjectMetadata, error) {
	var ri metadata.ResourceInterface = c.meta.Resource(m.Resource)
	if m.Namespaced && opts.Namespace != "" {
		ri = c.meta.Resource(m.Resource).Namespace(opts.Namespace)
	}
	var items []metav1.PartialObjectMetadata
	lo := opts.meta()
	for {
		list, err := ri.List(ctx, lo)
		if err != nil {
			return nil, err
		}
		items = append(items, list.Items...)
		if list.GetContinue() == "" {
			return items, nil
		}
		lo.Continue = list.GetContinue()
	}
}

func (c *dynamicClient) NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error) {
	var lists []*metav1.APIResourceList
	err := Retry(ctx, Idempotent, func() error {
		var err error
		lists, err = c.disco.ServerPreferredNamespacedResourcesWithContext(ctx)
		return err
	})
	if err != nil {
		// A group that failed discovery may hold objects: not knowing
		// what is there is no ground to delete it.
		return nil, fmt.Errorf("discover the types the namespace may hold: %w", err)
	}
	var out []unstructured.Unstructured
	for _, t := range federation.ContentsTypes(lists, nil) {
		gvr := schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Plural}
		var metas []metav1.PartialObjectMetadata
		err := Retry(ctx, Idempotent, func() error {
			var err error
			metas, err = c.ListMetadata(ctx, Mapping{Resource: gvr, Namespaced: true}, ListOptions{Namespace: namespace})
			return err
		})
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
			u.SetAnnotations(m.Annotations)
			u.SetOwnerReferences(m.OwnerReferences)
			u.SetDeletionTimestamp(m.DeletionTimestamp)
			out = append(out, u)
		}
	}
	return out, nil
}

func (c *dynamicClient) Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	return c.resource(m, namespace).Get(ctx, name, metav1.GetOptions{})
}

func dryRun(on bool) []string {
	if on {
		return []string{metav1.DryRunAll}
	}
	return nil
}

func (c *dynamicClient) Apply(ctx context.Context, m Mapping, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error) {
	if opts.FieldManager == "" {
		return nil, errors.New("no field manager")
	}
	return c.resource(m, obj.GetNamespace()).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: opts.FieldManager, Force: opts.Force, DryRun: dryRun(opts.DryRun)})
}

func (c *dynamicClient) MergePatch(ctx context.Context, m Mapping, namespace, name string, patch []byte, opts WriteOptions) (*unstructured.Unstructured, error) {
	return c.resource(m, namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: opts.FieldManager, DryRun: dryRun(opts.DryRun)})
}

func (c *dynamicClient) Delete(ctx context.Context, m Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	return c.resource(m, namespace).Delete(ctx, name, opts)
}

// MappingOf is the Mapping of a type known from elsewhere (the type
// registry), with no discovery.
func MappingOf(group, version, plural string, namespaced bool) Mapping {
	return Mapping{Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: plural}, Namespaced: namespaced}
}
