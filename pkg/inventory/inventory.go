package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// APIVersion of MemberObjectList.
const APIVersion = "fedctl.io/v1alpha1"

// Defaults of ListInput.
const (
	DefaultConcurrency = 8
	DefaultTimeout     = 30 * time.Second
)

// Read says what List reads of each object.
type Read int

const (
	// ReadTable reads the API server's table, the columns kubectl get
	// prints.
	ReadTable Read = iota
	// ReadObjects reads the objects themselves (-o yaml|json|name,
	// templates and custom-columns).
	ReadObjects
	// ReadNames reads each object's metadata alone (shell completion).
	ReadNames
)

// ListInput says which member objects List lists.
type ListInput struct {
	// Clients returns the Client of a member (members.Clients).
	Clients func(cluster string) (members.Client, error)
	Members []members.Member
	// TypeName is the type as the user named it: a plural, singular,
	// kind, short name, NAME.GROUP or NAME.VERSION.GROUP, any case, as
	// kubectl takes it.
	TypeName string
	// Namespaces gives the namespace to list in each member ("" for all
	// namespaces); ignored for cluster-scoped types.
	Namespaces map[string]string
	// Name, when set, lists only the object of that name.
	Name string
	Read Read
	// WholeObjects asks the API server to send each table row's whole
	// object rather than its metadata, for --sort-by on any field.
	WholeObjects bool
	// Concurrency bounds the members read at once, Timeout the time each
	// has; zero means the defaults.
	Concurrency int
	Timeout     time.Duration
}

// MemberObjects is what one member holds.
type MemberObjects struct {
	Cluster string
	// Type is the type as this member serves it: its preferred version,
	// which may differ from another member's. Zero when NotServed or Err.
	Type typeconfig.Type
	// NotServed says the member does not serve the type (its CRD is not
	// installed there), so it holds none of its objects.
	NotServed bool
	// Table is the API server's table, rows sorted by namespace and name;
	// only with ReadTable.
	Table *metav1.Table
	// Objects are the objects, sorted by namespace and name; with
	// ReadObjects, and with ReadNames metadata alone.
	Objects []unstructured.Unstructured
	// Err says why the member could not be listed.
	Err error
}

// discovered is what one member's discovery says of the type.
type discovered struct {
	// answered says the member's discovery answered (in part, maybe):
	// the rest is its answer; otherwise MemberObjects.Err says why not
	answered bool
	lists    []*metav1.APIResourceList
	// partial says which API groups the member could not discover: the
	// type may be among them
	partial *members.DiscoveryError
	t       typeconfig.Type
	err     error // what the member's discovery says of the name
}

// List finds the type in.TypeName names and lists, in every member in
// parallel, the objects of it that fedctl manages (its managed-by label):
// one discovery and one label-selected LIST per member (paged), each given
// in.Timeout, results in in.Members' order.
//
// Each member lists the type at the version it serves itself, so members
// that prefer different versions of a CRD are each read at theirs, and a
// member that does not serve the type at all (its CRD is installed on some
// members only) holds none of its objects: it is NotServed, not failed.
// The name is resolved in each member's own discovery; the first member in
// in.Members' order that answers decides which type it names (kubectl
// resolves against one cluster), and a member where the name means another
// type (a short name two CRDs share, say) is listed at the decided one's
// group and resource. A member whose discovery failed, or missed the API
// group the type is in, has Err: fedctl cannot tell what it holds.
//
// List returns the decided type, or the first member's NotFoundError when
// no member serves it, and the members' errors when none answered.
func List(ctx context.Context, in ListInput) (typeconfig.Type, []MemberObjects, error) {
	n := len(in.Members)
	out := make([]MemberObjects, n)
	found := make([]discovered, n)
	concurrency, timeout := in.Concurrency, in.Timeout
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	type firstPass struct {
		objects MemberObjects
		found   discovered
	}
	answers, errs := members.Gather(ctx, concurrency, timeout, n, func(mctx context.Context, i int) firstPass {
		m := in.Members[i]
		c, err := in.Clients(m.Name)
		if err != nil {
			return firstPass{objects: MemberObjects{Cluster: m.Name, Err: err}}
		}
		lists, err := members.ResourcesOf(mctx, c, m)
		var de *members.DiscoveryError
		if err != nil && !errors.As(err, &de) {
			return firstPass{objects: MemberObjects{Cluster: m.Name, Err: err}}
		}
		t, err := typeconfig.ResolveKubectl(in.TypeName, lists)
		p := firstPass{objects: MemberObjects{Cluster: m.Name}, found: discovered{answered: true, lists: lists, partial: de, t: t, err: err}}
		if err == nil {
			// most likely the type decided: list it now rather than
			// after every member's discovery
			p.objects = in.listIn(mctx, c, m, t)
		}
		return p
	})
	for i, a := range answers {
		out[i], found[i] = a.objects, a.found
	}
	for i, err := range errs {
		if err != nil { // never ran (ctx ended first), or panicked
			out[i] = MemberObjects{Cluster: in.Members[i].Name, Err: fmt.Errorf("cluster %s: %w", in.Members[i].Name, err)}
		}
	}
	t, err := in.decide(out, found)
	if err != nil {
		return typeconfig.Type{}, out, err
	}
	var again []int // members to list at the decided type
	for i := range out {
		if !found[i].answered {
			continue // its error stands
		}
		if found[i].err == nil && found[i].t.Group == t.Group && found[i].t.Plural == t.Plural {
			continue // listed already
		}
		out[i] = MemberObjects{Cluster: in.Members[i].Name}
		mt, err := typeconfig.ResolveKubectl(qualified(t), found[i].lists)
		var nf *typeconfig.NotFoundError
		switch {
		case errors.As(err, &nf) && found[i].partial != nil && found[i].partial.Missed(t.Group):
			out[i].Err = fmt.Errorf("cluster %s: %s may be there, in API group %s, which could not be discovered: %s; run it again once the group's API service answers",
				in.Members[i].Name, t.Name(), t.Group, found[i].partial.GroupText(t.Group))
		case errors.As(err, &nf):
			out[i].NotServed = true
		case err != nil:
			out[i].Err = fmt.Errorf("cluster %s: %w", in.Members[i].Name, err)
		default:
			found[i].t, found[i].err = mt, nil
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		lists, errs := members.Gather(ctx, concurrency, timeout, len(again), func(mctx context.Context, j int) MemberObjects {
			m := in.Members[again[j]]
			c, err := in.Clients(m.Name)
			if err != nil {
				return MemberObjects{Cluster: m.Name, Err: err}
			}
			return in.listIn(mctx, c, m, found[again[j]].t)
		})
		for j, l := range lists {
			out[again[j]] = l
		}
		for j, err := range errs {
			if err != nil {
				i := again[j]
				out[i] = MemberObjects{Cluster: in.Members[i].Name, Err: fmt.Errorf("cluster %s: %w", in.Members[i].Name, err)}
			}
		}
	}
	return t, out, nil
}

// decide is the type the first member in order that answered discovery
// finds in.TypeName to be (or its AmbiguousError); the first member's
// NotFoundError when none serves it; the members' errors when none
// answered.
func (in ListInput) decide(out []MemberObjects, found []discovered) (typeconfig.Type, error) {
	var notFound error
	var failed []error
	for i, m := range in.Members {
		if !found[i].answered {
			failed = append(failed, out[i].Err)
			continue
		}
		var nf *typeconfig.NotFoundError
		if !errors.As(found[i].err, &nf) {
			return found[i].t, found[i].err
		}
		if notFound == nil {
			nf.Context = m.ContextName()
			notFound = fmt.Errorf("cluster %s: %w", m.Name, nf)
			if found[i].partial != nil {
				// as enable says it: the type may be in a group
				// that did not answer
				notFound = fmt.Errorf("%w (or it is in an API group that could not be discovered: %s)", notFound, found[i].partial.GroupsText())
			}
		}
	}
	if notFound != nil {
		return typeconfig.Type{}, notFound
	}
	return typeconfig.Type{}, fmt.Errorf("resolve type %q: no member cluster answered: %w", in.TypeName, errors.Join(failed...))
}

// qualified is t's name as kubectl qualifies it, <plural>.<group>, which
// only t's group and resource match (the plural alone for the core group,
// where a core match wins).
func qualified(t typeconfig.Type) string {
	if t.Group == "" {
		return t.Plural
	}
	return t.Plural + "." + t.Group
}

// listIn lists the objects of t in member m.
func (in ListInput) listIn(ctx context.Context, c members.Client, m members.Member, t typeconfig.Type) MemberObjects {
	mo := MemberObjects{Cluster: m.Name, Type: t}
	mapping := members.MappingOf(t.Group, t.Version, t.Plural, t.Namespaced())
	opts := members.ListOptions{LabelSelector: federation.ManagedBySelector, WholeTableObjects: in.WholeObjects}
	if t.Namespaced() {
		opts.Namespace = in.Namespaces[m.Name]
	}
	if in.Name != "" {
		opts.FieldSelector = "metadata.name=" + in.Name
	}
	var err error
	switch in.Read {
	case ReadObjects:
		mo.Objects, err = c.List(ctx, mapping, opts)
	case ReadNames:
		var metas []metav1.PartialObjectMetadata
		metas, err = c.ListMetadata(ctx, mapping, opts)
		for _, meta := range metas {
			mo.Objects = append(mo.Objects, unstructured.Unstructured{Object: map[string]any{
				"metadata": map[string]any{"namespace": meta.Namespace, "name": meta.Name},
			}})
		}
	default:
		mo.Table, err = c.ListTable(ctx, mapping, opts)
	}
	if err != nil {
		return MemberObjects{Cluster: m.Name, Err: fmt.Errorf("cluster %s: list %s: %w", m.Name, t.Name(), members.RequestError(err))}
	}
	sortObjects(mo.Objects)
	sortRows(mo.Table)
	return mo
}

func sortObjects(items []unstructured.Unstructured) {
	slices.SortFunc(items, func(a, b unstructured.Unstructured) int {
		return compareNames(a.GetNamespace(), a.GetName(), b.GetNamespace(), b.GetName())
	})
}

func compareNames(ns1, n1, ns2, n2 string) int {
	if c := strings.Compare(ns1, ns2); c != 0 {
		return c
	}
	return strings.Compare(n1, n2)
}

// sortRows sorts a table's rows by namespace and name, from the object
// metadata the API server sends with each row.
func sortRows(table *metav1.Table) {
	if table == nil {
		return
	}
	table.Continue = ""
	slices.SortStableFunc(table.Rows, func(a, b metav1.TableRow) int {
		ans, an := RowMeta(a)
		bns, bn := RowMeta(b)
		return compareNames(ans, an, bns, bn)
	})
}

// RowMeta is the namespace and name of a table row, from the object
// metadata the API server sends with each row.
func RowMeta(row metav1.TableRow) (namespace, name string) {
	var meta metav1.PartialObjectMetadata
	if len(row.Object.Raw) > 0 {
		_ = json.Unmarshal(row.Object.Raw, &meta)
	}
	return meta.Namespace, meta.Name
}

// ObjectTable merges the members' tables into one, with a CLUSTER column
// first (then NAMESPACE with withNamespace), rows sorted by cluster,
// namespace and name. The columns are those of the first member that
// answered, priorities kept (-o wide shows the others); another member's
// cells are matched by column name, so a member whose server prints other
// columns (another version) shows <none> where it lacks one. Each row
// keeps the object the server sent with it (metadata, or the whole object
// with ListInput.WholeObjects) for -L, --show-labels and --sort-by.
// Members that failed are left out (the caller reports them).
func ObjectTable(list []MemberObjects, withNamespace bool) *printers.ObjectTable {
	var defs []metav1.TableColumnDefinition
	for _, mo := range list {
		if mo.Err == nil && mo.Table != nil {
			defs = mo.Table.ColumnDefinitions
			break
		}
	}
	t := &printers.ObjectTable{Columns: []metav1.TableColumnDefinition{{Name: "CLUSTER"}}}
	if withNamespace {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: "NAMESPACE"})
	}
	t.Columns = append(t.Columns, defs...)
	for _, mo := range list {
		if mo.Err != nil || mo.Table == nil {
			continue
		}
		col := map[string]int{}
		for i, d := range mo.Table.ColumnDefinitions {
			col[d.Name] = i
		}
		for _, row := range mo.Table.Rows {
			var doc map[string]any
			if len(row.Object.Raw) > 0 {
				_ = json.Unmarshal(row.Object.Raw, &doc)
			}
			obj := unstructured.Unstructured{Object: doc}
			cells := []any{mo.Cluster}
			if withNamespace {
				cells = append(cells, obj.GetNamespace())
			}
			for _, d := range defs {
				i, ok := col[d.Name]
				if !ok || i >= len(row.Cells) {
					cells = append(cells, nil)
					continue
				}
				cells = append(cells, row.Cells[i])
			}
			t.Rows = append(t.Rows, printers.ObjectRow{Cells: cells, Labels: obj.GetLabels(), Doc: doc})
		}
	}
	return t
}

// MemberObjectList is the -o yaml|json shape of fedctl get TYPE: each
// member object with the member it was read from.
type MemberObjectList struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Items      []MemberObject `json:"items"`
}

// MemberObject is one object of one member.
type MemberObject struct {
	Cluster string         `json:"cluster"`
	Object  map[string]any `json:"object"`
}

// redacted replaces the values of a Secret's data and stringData.
const redacted = "REDACTED"

// ObjectList builds the -o yaml|json list from what ListObjects read with
// ListInput.Objects, sorted by cluster, namespace and name. The values of
// a Secret's data and stringData, and of the annotations derived from them
// (kubectl's last-applied configuration, fedctl's applied hash), are
// replaced by REDACTED: fedctl never prints Secret data (kubectl --context
// CONTEXT get secret shows them). metadata.managedFields is left out
// unless showManagedFields, as kubectl get leaves it out unless
// --show-managed-fields.
func ObjectList(list []MemberObjects, showManagedFields bool) MemberObjectList {
	out := MemberObjectList{APIVersion: APIVersion, Kind: "MemberObjectList", Items: []MemberObject{}}
	for _, mo := range list {
		if mo.Err != nil {
			continue
		}
		for _, obj := range mo.Objects {
			o := obj.Object
			if obj.GetKind() == "Secret" && obj.GroupVersionKind().Group == "" {
				o = redactSecret(obj.DeepCopy().Object)
			}
			if !showManagedFields {
				o = withoutManagedFields(o)
			}
			out.Items = append(out.Items, MemberObject{Cluster: mo.Cluster, Object: o})
		}
	}
	return out
}

// withoutManagedFields is obj without metadata.managedFields, sharing
// everything else with it.
func withoutManagedFields(obj map[string]any) map[string]any {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, has := meta["managedFields"]; !has {
		return obj
	}
	out := maps.Clone(obj)
	meta = maps.Clone(meta)
	delete(meta, "managedFields")
	out["metadata"] = meta
	return out
}

func redactSecret(obj map[string]any) map[string]any {
	for _, field := range []string{"data", "stringData"} {
		if m, ok := obj[field].(map[string]any); ok {
			for k := range m {
				m[k] = redacted
			}
		}
	}
	// kubectl apply's last-applied annotation holds the data too, and
	// fedctl's applied hash would let a short secret be guessed offline.
	if meta, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := meta["annotations"].(map[string]any); ok {
			for _, k := range []string{"kubectl.kubernetes.io/last-applied-configuration", federation.HashAnnotation} {
				if _, ok := ann[k]; ok {
					ann[k] = redacted
				}
			}
		}
	}
	return obj
}

// ObjectName is kubectl's -o name of obj: "deployment.apps/web",
// "configmap/settings".
func ObjectName(obj unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + obj.GetName()
}
