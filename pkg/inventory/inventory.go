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

// ResolveType finds the type called name (a plural, singular, kind, short
// name or <plural>.<group>, any case, as kubectl takes it) through the
// discovery of ms, asked all at once (DefaultConcurrency at a time), each
// given timeout: the first member in ms's order that answers decides, as
// soon as every member before it has failed or does not serve the type,
// and the discoveries still running are cancelled. So a member that does
// not answer, or lacks a CRD others have, neither stops the others nor
// makes them wait one timeout each. It returns the first member's
// NotFoundError when no member serves it, and the errors of the members
// when none answered.
func ResolveType(ctx context.Context, clients func(string) (members.Client, error), ms []members.Member, name string, timeout time.Duration) (typeconfig.Type, error) {
	type answer struct {
		t         typeconfig.Type
		err       error // what the member's discovery says of name
		unreached error // the member did not answer
		// partial says which API groups the member could not discover:
		// name may be among them
		partial *members.DiscoveryError
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make([]answer, len(ms))
	done := make([]chan struct{}, len(ms))
	for i := range done {
		done[i] = make(chan struct{})
	}
	go func() {
		discover := func(mctx context.Context, i int) answer {
			c, err := clients(ms[i].Name)
			if err != nil {
				return answer{unreached: err}
			}
			lists, err := members.ResourcesOf(mctx, c, ms[i])
			var de *members.DiscoveryError
			if err != nil && !errors.As(err, &de) {
				return answer{unreached: err}
			}
			t, err := typeconfig.ResolveKubectl(name, lists)
			return answer{t: t, err: err, partial: de}
		}
		ran := members.ForEach(ctx, DefaultConcurrency, timeout, len(ms), func(mctx context.Context, i int) {
			answers[i] = discover(mctx, i)
			close(done[i])
		})
		for i, err := range ran {
			if err != nil { // never ran (ctx ended first), or panicked
				answers[i] = answer{unreached: err}
				close(done[i])
			}
		}
	}()
	var notFound error
	var failed []error
	for i, m := range ms {
		<-done[i]
		a := answers[i]
		var nf *typeconfig.NotFoundError
		switch {
		case a.unreached != nil:
			failed = append(failed, a.unreached)
		case errors.As(a.err, &nf):
			if notFound == nil {
				nf.Context = m.ContextName()
				notFound = fmt.Errorf("cluster %s: %w", m.Name, nf)
				if a.partial != nil {
					// as enable says it: the type may be in a group
					// that did not answer
					notFound = fmt.Errorf("%w (or it is in an API group that could not be discovered: %v)", notFound, a.partial)
				}
			}
		default:
			return a.t, a.err
		}
	}
	if notFound != nil {
		return typeconfig.Type{}, notFound
	}
	return typeconfig.Type{}, fmt.Errorf("resolve type %q: no member cluster answered: %w", name, errors.Join(failed...))
}

// ListInput says which member objects ListObjects lists.
type ListInput struct {
	// Clients returns the Client of a member (members.Clients).
	Clients func(cluster string) (members.Client, error)
	Members []members.Member
	Type    typeconfig.Type
	// Namespaces gives the namespace to list in each member ("" for all
	// namespaces); ignored for cluster-scoped types.
	Namespaces map[string]string
	// Name, when set, lists only the object of that name.
	Name string
	// Objects lists the objects themselves instead of the API server's
	// table (for -o yaml|json|name, templates and custom-columns).
	Objects bool
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
	// Table is the API server's table, rows sorted by namespace and name;
	// nil with ListInput.Objects.
	Table *metav1.Table
	// Objects are the objects, sorted by namespace and name; only with
	// ListInput.Objects.
	Objects []unstructured.Unstructured
	// Err says why the member could not be listed.
	Err error
}

// ListObjects lists, in every member in parallel, the objects of in.Type
// that fedctl manages (its managed-by label), one label-selected LIST per
// member (paged), in in.Members' order.
func ListObjects(ctx context.Context, in ListInput) []MemberObjects {
	out := make([]MemberObjects, len(in.Members))
	concurrency, timeout := in.Concurrency, in.Timeout
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	errs := members.ForEach(ctx, concurrency, timeout, len(in.Members), func(mctx context.Context, i int) {
		m := in.Members[i]
		out[i] = MemberObjects{Cluster: m.Name}
		c, err := in.Clients(m.Name)
		if err != nil {
			out[i].Err = err
			return
		}
		if in.Objects {
			out[i].Objects, err = c.List(mctx, in.mapping(), in.options(m))
		} else {
			out[i].Table, err = c.ListTable(mctx, in.mapping(), in.options(m))
		}
		if err != nil {
			out[i].Err = fmt.Errorf("cluster %s: list %s: %w", m.Name, in.Type.Name(), members.RequestError(err))
			return
		}
		sortObjects(out[i].Objects)
		sortRows(out[i].Table)
	})
	for i, err := range errs {
		if err != nil {
			out[i] = MemberObjects{Cluster: in.Members[i].Name, Err: fmt.Errorf("cluster %s: %w", in.Members[i].Name, err)}
		}
	}
	return out
}

func (in ListInput) mapping() members.Mapping {
	return members.MappingOf(in.Type.Group, in.Type.Version, in.Type.Plural, in.Type.Namespaced())
}

func (in ListInput) options(m members.Member) members.ListOptions {
	opts := members.ListOptions{LabelSelector: federation.ManagedBySelector, WholeTableObjects: in.WholeObjects}
	if in.Type.Namespaced() {
		opts.Namespace = in.Namespaces[m.Name]
	}
	if in.Name != "" {
		opts.FieldSelector = "metadata.name=" + in.Name
	}
	return opts
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
