package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/overrides"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Input is what Build explains.
type Input struct {
	Set   *federation.Set
	Types federation.Types
	// Members are the member clusters with their labels.
	Members []placement.Cluster
	// Only, when not empty, limits the per-cluster overrides to these
	// members; placement and plans always consider every member.
	Only []string
	// Names, when not empty, limits the report to the objects they match
	// (see Match).
	Names []string
	// Live, when set, plans replicas from the members' live state, as
	// render did (explain --live), and the report says what it changed.
	Live *render.Live
}

// replicasPath is the override a ReplicaSchedulingPreference writes.
const replicasPath = "/spec/replicas"

// NoMatchError says that a name given to explain matches no federated
// object of the input.
type NoMatchError struct {
	Name    string
	Objects []string // what there is, sorted
}

func (e *NoMatchError) Error() string {
	if len(e.Objects) == 0 {
		return fmt.Sprintf("no federated object matches %q: the input has none", e.Name)
	}
	return fmt.Sprintf("no federated object matches %q; the input has: %s", e.Name, strings.Join(e.Objects, ", "))
}

// Build explains every federated object of in.Set that in.Names selects,
// sorted by group, kind, namespace and name. Objects whose types are not
// enabled are left out (Decode refuses them). A name that matches nothing
// is a *NoMatchError. The input is not modified.
func Build(in Input) (*Report, error) {
	members := slices.Clone(in.Members)
	slices.SortFunc(members, func(a, b placement.Cluster) int { return strings.Compare(a.Name, b.Name) })
	rep := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, Members: []Member{}, Objects: []Object{}}
	for _, m := range members {
		rep.Members = append(rep.Members, Member{Name: m.Name, Labels: m.Labels, Provider: m.Provider, Region: m.Region, Zones: m.Zones})
	}

	type typed struct {
		o *federation.Object
		t typeconfig.Type
	}
	var objects []typed
	namespaces := map[string]*federation.Object{}
	for name, o := range in.Set.Namespaces() {
		if _, ok := in.Types.ByFederatedKind(o.Kind); ok {
			namespaces[name] = o
		}
	}
	for _, o := range in.Set.Objects {
		t, ok := in.Types.ByFederatedKind(o.Kind)
		if !ok {
			continue
		}
		objects = append(objects, typed{o, t})
	}
	slices.SortFunc(objects, func(a, b typed) int {
		return cmpChain(strings.Compare(a.t.Group, b.t.Group), strings.Compare(a.t.Kind, b.t.Kind),
			strings.Compare(a.o.Namespace, b.o.Namespace), strings.Compare(a.o.Name, b.o.Name))
	})

	var selected []typed
	matched := make([]bool, len(in.Names))
	for _, x := range objects {
		keep := len(in.Names) == 0
		for i, name := range in.Names {
			if Match(name, x.o, x.t) {
				keep, matched[i] = true, true
			}
		}
		if keep {
			selected = append(selected, x)
		}
	}
	for i, ok := range matched {
		if !ok {
			ids := make([]string, len(objects))
			for j, x := range objects {
				ids[j] = x.o.ID()
			}
			return nil, &NoMatchError{Name: in.Names[i], Objects: ids}
		}
	}

	scheduled := schedule(in.Set, members, in.Live)
	idx := render.IndexOf(in.Set, namespaces, members)
	for _, x := range selected {
		rep.Objects = append(rep.Objects, explainObject(x.o, x.t, scheduled[x.o], idx, members, in.Only))
	}
	return rep, nil
}

// Match reports whether name designates o of type t: NAME, KIND/NAME,
// NAMESPACE/NAME or KIND/NAMESPACE/NAME, where KIND is the federated kind
// or the target kind, in any case (FederatedDeployment, deployment).
func Match(name string, o *federation.Object, t typeconfig.Type) bool {
	parts := strings.Split(name, "/")
	kindIs := func(k string) bool {
		return strings.EqualFold(k, o.Kind) || strings.EqualFold(k, t.Kind) || strings.EqualFold(k, t.Plural) || strings.EqualFold(k, t.FederatedPlural())
	}
	switch len(parts) {
	case 1:
		return parts[0] == o.Name
	case 2:
		return parts[1] == o.Name && (kindIs(parts[0]) || parts[0] == o.Namespace)
	case 3:
		return parts[2] == o.Name && parts[1] == o.Namespace && kindIs(parts[0])
	}
	return false
}

func explainSelection(p federation.Placement, members []placement.Cluster, selectorOnly bool) Selection {
	explain := placement.Explain
	if selectorOnly {
		explain = placement.ExplainBySelector
	}
	ex, err := explain(p, members)
	if err != nil {
		return Selection{Rule: string(placement.RuleSelector), Selected: []string{}, Error: joinMessages(err)}
	}
	s := Selection{Rule: string(ex.Rule), Listed: ex.Listed, Unknown: ex.Unknown, Terms: ex.Terms, Selected: ex.Clusters}
	if s.Selected == nil {
		s.Selected = []string{}
	}
	if ex.Rule == placement.RuleSelector {
		s.Members = ex.Members
	}
	return s
}

func joinMessages(err error) string {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	msgs := make([]string, len(list))
	for i, e := range list {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

func migratedReport(moved []placement.Moved) []Migrated {
	out := make([]Migrated, len(moved))
	for i, m := range moved {
		out[i] = Migrated{From: m.From, To: m.To, Selector: m.Selector}
	}
	return out
}

func explainObject(o *federation.Object, t typeconfig.Type, s *scheduled, idx render.Index, members []placement.Cluster, only []string) Object {
	ns := ""
	if t.Namespaced() || o.IsNamespace() {
		ns = o.Namespace
	}
	out := Object{Kind: o.Kind, Namespace: ns, Name: o.Name, Source: source(o.Pos.File(), o.Pos.Line(""))}
	if len(o.Notes) > 0 {
		out.Compiled = &Compiled{Dialect: o.Origin.Dialect, Notes: o.Notes}
	}
	var errs []error
	eff, origins := o, identity(o.Spec.Overrides)
	var plan map[string]int64
	if s != nil {
		out.Scheduling = s.info
		errs = append(errs, s.errs...)
		if s.eff != nil {
			eff, origins, plan = s.eff, s.origins, s.plan
		}
	}
	fatal := false

	// Placement: the object's own, or the planned members.
	pl := &out.Placement
	pl.Own = explainSelection(o.Spec.Placement, members, false)
	clusters := pl.Own.Selected
	if eff != o {
		pl.ScheduledBy = s.info.Preference
		pl.Scheduled = slices.Sorted(maps.Keys(plan))
		clusters = pl.Scheduled
	} else if pl.Own.Error != "" {
		_, err := placement.Select(o.Spec.Placement, members)
		errs = append(errs, positioned(o, err)...)
		fatal = true
	}
	if t.Namespaced() && !o.IsNamespace() {
		np := &NamespacePlacement{Name: o.Namespace}
		pl.Namespace = np
		nsObj, ok := idx.Namespaces[o.Namespace]
		switch {
		case !ok && o.Rules.NamespaceOptional:
			np.Optional = true
		case !ok:
			if len(clusters) > 0 {
				pl.Reason = "NamespaceNotFederated"
			}
			clusters = nil
		default:
			np.Found, np.Source = true, source(nsObj.Pos.File(), nsObj.Pos.Line(""))
			sel := explainSelection(nsObj.Spec.Placement, members, false)
			np.Selection = &sel
			if sel.Error != "" {
				errs = append(errs, o.Errorf("metadata.namespace", "placement of FederatedNamespace %s: %s", o.Namespace, sel.Error))
				fatal = true
			}
			nsClusters := sel.Selected
			if eff != o { // as render: the Namespace follows migrated replicas
				nsClusters = placement.Union(nsClusters, placement.NamespaceDestinations(nsClusters, []map[string]string{o.Labels}, members))
			}
			clusters = placement.Intersect(clusters, nsClusters)
		}
	}
	switch {
	case o.IsNamespace() && len(idx.MigratedTo[o.Name]) > 0:
		pl.MigratedTo = idx.MigratedTo[o.Name]
		clusters = placement.Union(clusters, pl.MigratedTo)
	case eff == o && !fatal:
		var moved []placement.Moved
		clusters, moved = placement.Migrated(clusters, o.Labels, members)
		pl.Migrated = migratedReport(moved)
	}
	if err := overrides.Validate(eff.Spec.Overrides); err != nil && (len(clusters) > 0 || fatal) {
		// as render: wrong overrides fail an object that is placed, or
		// fails already, and are a warning (render's, printed) for one
		// placed nowhere
		errs = append(errs, positioned(o, err)...)
		fatal = true
	}
	if fatal {
		clusters = nil
	}
	pl.Clusters = clusters
	if pl.Clusters == nil {
		pl.Clusters = []string{}
	}
	if o.IsNamespace() && render.SystemNamespace(o.Name) {
		pl.SystemNamespace = true
		clusters = nil // no Namespace object anywhere
	}
	if o.Rules.PlacementOnly {
		pl.PlacementOnly = true
		clusters = nil
	}

	base := render.BaseObject(o, t)
	secret := t.Group == "" && t.Kind == "Secret"
	for _, c := range clusters {
		if len(only) > 0 && !slices.Contains(only, c) {
			continue
		}
		co := ClusterOverrides{Cluster: c, Applied: []Override{}}
		if n, ok := plan[c]; ok {
			co.Replicas = &n
		}
		m := overrides.Member{Name: c}
		if i := slices.IndexFunc(members, func(x placement.Cluster) bool { return x.Name == c }); i >= 0 {
			m.Labels = members[i].Labels
		}
		if err := eff.MemberErrors[c]; err != nil { // eff: a preference may fail a member (render.WithUnread)
			co.Error = &OverrideError{Message: err.Error(), Source: source(o.Pos.File(), o.Pos.Line(""))}
			out.Overrides = append(out.Overrides, co)
			continue
		}
		applied, obj, superseded, err := overrides.ExplainSuperseded(base, m, eff.Spec.Overrides)
		fieldOf := func(field string, entry, item int) string {
			if entry >= 0 && entry < len(origins) && item >= 0 && item < len(origins[entry]) && origins[entry][item].field != "" {
				return origins[entry][item].field
			}
			return field
		}
		for _, sup := range superseded {
			co.Superseded = append(co.Superseded, SupersededOverride{Field: fieldOf(sup.Field, sup.Entry, sup.Item), Op: sup.Op, Path: sup.Path,
				By: fieldOf(sup.By, sup.ByEntry, sup.ByItem)})
		}
		for _, a := range applied {
			org := origin{from: FromOverrides, field: a.Field} // a typed container override
			if a.Entry >= 0 {
				org = origins[a.Entry][a.Index]
			}
			ov := Override{From: org.from, Field: org.field, Op: a.Op, Path: a.Path, UserValue: org.userValue}
			if a.HadOld {
				ov.Old = mustJSON(a.Old)
			}
			if a.Op != overrides.OpRemove {
				ov.New = mustJSON(a.New)
			}
			if secret && !strings.HasPrefix(a.Path, "/metadata/") {
				ov.Old, ov.New, ov.UserValue, ov.Redacted = nil, nil, nil, true
			}
			co.Applied = append(co.Applied, ov)
		}
		if err != nil {
			co.Error = overrideError(o, s, err, len(applied), origins)
		}
		co.object = obj
		out.Overrides = append(out.Overrides, co)
	}
	for _, e := range errs {
		out.Errors = append(out.Errors, e.Error())
	}
	return out
}

// overrideError explains the override that failed; applied is how many of
// the member's overrides were applied before it.
func overrideError(o *federation.Object, s *scheduled, err error, applied int, origins [][]origin) *OverrideError {
	oe := &OverrideError{Index: applied, Message: err.Error(), Source: source(o.Pos.File(), o.Pos.Line(""))}
	var ae *overrides.ApplyError
	if !errors.As(err, &ae) || ae.Entry < 0 || ae.Entry >= len(origins) || ae.Item < 0 || ae.Item >= len(origins[ae.Entry]) {
		return oe
	}
	org := origins[ae.Entry][ae.Item]
	oe.From, oe.Field, oe.Op, oe.Path, oe.Message = org.from, org.field, ae.Op, ae.Path, ae.Err.Error()
	switch {
	case org.field != "":
		oe.Source = source(o.Pos.File(), o.Pos.Line(org.field))
	case s != nil:
		oe.Source = s.info.Source
	}
	return oe
}

// positioned is each problem of err at its field of o, as render reports
// it.
func positioned(o *federation.Object, err error) []error {
	if err == nil {
		return nil
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var me *manifest.Error
		var ofe *overrides.FieldError
		var pfe *placement.FieldError
		switch {
		case errors.As(e, &me):
			out = append(out, e)
		case errors.As(e, &ofe):
			out = append(out, o.Errorf(ofe.Field, "%v", ofe.Err))
		case errors.As(e, &pfe):
			out = append(out, o.Errorf(pfe.Field, "%v", pfe.Err))
		default:
			out = append(out, o.Errorf("", "%v", e))
		}
	}
	return out
}

func source(file string, line int) string {
	if file == "" {
		file = "<stdin>"
	}
	if line <= 0 {
		return file
	}
	return file + ":" + strconv.Itoa(line)
}

// mustJSON encodes a decoded JSON value, which cannot fail.
func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return data
}

func cmpChain(results ...int) int {
	for _, r := range results {
		if r != 0 {
			return r
		}
	}
	return 0
}
