package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/placement"
)

// Text writes rep for people. The marks ✓ and ✗ are always written, so
// that the bytes do not depend on the terminal; cs adds colour when it is
// enabled.
func Text(w io.Writer, rep *Report, cs *iostreams.ColorScheme) error {
	p := &textPrinter{cs: cs}
	if r := rep.Rollout; r != nil {
		p.rollout(r)
		p.buf.WriteByte('\n')
	}
	if len(rep.Objects) == 0 {
		p.line(0, "No federated objects.")
	}
	for i, o := range rep.Objects {
		if i > 0 {
			p.buf.WriteByte('\n')
		}
		p.object(o)
	}
	_, err := w.Write(p.buf.Bytes())
	return err
}

type textPrinter struct {
	buf bytes.Buffer
	cs  *iostreams.ColorScheme
}

func (p *textPrinter) line(indent int, format string, args ...any) {
	p.buf.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&p.buf, format, args...)
	p.buf.WriteByte('\n')
}

func (p *textPrinter) mark(ok bool) string {
	if ok {
		return p.cs.Green("✓")
	}
	return p.cs.Red("✗")
}

func (p *textPrinter) object(o Object) {
	id := o.Kind + " " + o.Name
	if o.Namespace != "" {
		id = o.Kind + " " + o.Namespace + "/" + o.Name
	}
	p.line(0, "%s  (%s)", p.cs.Bold(id), o.Source)
	if len(o.Errors) > 0 {
		p.line(1, "%s errors:", p.mark(false))
		for _, e := range o.Errors {
			p.line(2, "%s", e)
		}
	}
	if c := o.Compiled; c != nil {
		p.line(1, "From %s:", c.Dialect)
		for _, n := range c.Notes {
			p.line(2, "%s", n)
		}
	}
	p.placement(o.Placement, len(o.Errors) > 0)
	if o.Scheduling != nil {
		p.scheduling(o.Scheduling)
	}
	if len(o.Overrides) > 0 {
		p.line(1, "Overrides:")
		for _, c := range o.Overrides {
			p.clusterOverrides(c)
		}
	}
}

func (p *textPrinter) placement(pl Placement, failed bool) {
	p.line(1, "Placement:")
	p.selection(2, "own placement", pl.Own)
	if pl.ScheduledBy != "" {
		p.line(2, "replaced by %s: every planned cluster, those planned 0 included: %s", pl.ScheduledBy, list(pl.Scheduled))
	}
	if ns := pl.Namespace; ns != nil {
		switch {
		case ns.Optional:
			p.line(2, "namespace %s: not in the input; placed all the same (the namespace is expected to exist in the members)", ns.Name)
		case !ns.Found:
			p.line(2, "FederatedNamespace %s: not in the input, so the object goes nowhere", ns.Name)
		default:
			p.selection(2, fmt.Sprintf("FederatedNamespace %s (%s)", ns.Name, ns.Source), *ns.Selection)
		}
	}
	if pl.Reason != "" {
		p.line(2, "%s %s", p.mark(false), pl.Reason)
	}
	for _, m := range pl.Migrated {
		p.line(2, "migrated from %s to %s (fedctl migrate -l %s)", m.From, m.To, m.Selector)
	}
	if len(pl.MigratedTo) > 0 {
		p.line(2, "also in %s: objects in it are migrated there (fedctl migrate); it stays where it was", list(pl.MigratedTo))
	}
	if pl.PlacementOnly {
		p.line(2, "the federation is scoped to this namespace: never propagated as a Namespace (it exists in the members); its placement limits the objects in it")
	}
	if pl.SystemNamespace {
		p.line(2, "system namespace: never propagated as a Namespace; its placement applies to the objects in it")
	}
	result := "placed in: " + list(pl.Clusters)
	if pl.Namespace != nil && pl.Namespace.Found {
		result = "placed in (intersection with the FederatedNamespace): " + list(pl.Clusters)
	}
	if failed && len(pl.Clusters) == 0 {
		result = "placed nowhere: the errors above fail the object for every member"
	}
	p.line(2, "→ %s", result)
}

func (p *textPrinter) selection(indent int, what string, s Selection) {
	if s.Error != "" {
		p.line(indent, "%s: %s invalid clusterSelector: %s", what, p.mark(false), s.Error)
		return
	}
	switch s.Rule {
	case string(placement.RuleClusters):
		if len(s.Listed) == 0 {
			p.line(indent, "%s: clusters [] (empty list decides alone: no clusters; clusterSelector ignored)", what)
		} else {
			p.line(indent, "%s: clusters %s (the list decides alone; clusterSelector ignored)", what, list(s.Listed))
		}
		if len(s.Unknown) > 0 {
			p.line(indent+1, "%s not members, dropped: %s", p.mark(false), list(s.Unknown))
		}
		p.line(indent+1, "selected: %s", list(s.Selected))
	case string(placement.RuleSelector):
		if len(s.Terms) == 0 {
			p.line(indent, "%s: clusterSelector {} (empty selector selects every member): %s", what, list(s.Selected))
			return
		}
		p.line(indent, "%s: clusterSelector (every term must match):", what)
		for _, m := range s.Members {
			p.line(indent+1, "%s %s", p.mark(m.Selected), m.Name)
			for i, tm := range m.Terms {
				p.line(indent+3, "%s", p.termMatch(s.Terms[i], tm))
			}
		}
		p.line(indent+1, "selected: %s", list(s.Selected))
	default:
		p.line(indent, "%s: no clusters and no clusterSelector: selects nothing", what)
	}
}

// termMatch writes "region In (eu, us): region=eu ✓".
func (p *textPrinter) termMatch(t placement.Term, m placement.TermMatch) string {
	have := "no " + t.Key + " label"
	if m.HasLabel {
		have = t.Key + "=" + m.Value
	}
	return t.String() + ": " + have + " " + p.mark(m.Matched)
}

func (p *textPrinter) scheduling(s *Scheduling) {
	p.line(1, "Replica plan: %s (%s)", s.Preference, s.Source)
	p.line(2, "totalReplicas %d, rebalance %t, hash key %q", s.TotalReplicas, s.Rebalance, s.Key)
	var prefs []string
	for _, pr := range s.Preferences {
		prefs = append(prefs, preferenceText(pr))
	}
	switch {
	case s.Defaulted:
		p.line(2, "preferences: spec.clusters is empty, so %s (KubeFed's default)", strings.Join(prefs, ", "))
	case len(prefs) == 0:
		p.line(2, "preferences: spec.clusters is empty")
	default:
		p.line(2, "preferences: %s", strings.Join(prefs, ", "))
	}
	if s.IntersectWithClusterSelector {
		if s.Selector != nil {
			p.selection(2, "clusters considered (intersectWithClusterSelector: the target's clusterSelector only)", *s.Selector)
		}
	} else if s.Skipped != "" && len(s.Considered) > 0 {
		p.line(2, "clusters considered: %s, none of them left to plan over", list(s.Considered))
	} else if s.Live != nil && len(s.Live.NotAnswering) > 0 && !s.Live.KeepShares {
		p.line(2, "clusters considered: the members that answered: %s (%s did not: KubeFed plans over ready clusters)", list(s.Considered), strings.Join(s.Live.NotAnswering, ", "))
	} else {
		p.line(2, "clusters considered: every member: %s", list(s.Considered))
	}
	if s.Stranded != "" {
		p.line(2, "left out: %s: their shares are planned over the others", s.Stranded)
	}
	if l := s.Live; l != nil {
		p.line(2, "live figures: current replicas %s; estimated capacity %s", replicasText(l.Current, "none read"), replicasText(l.Capacity, "not limited"))
		if l.KeepShares && len(l.NotAnswering) > 0 {
			p.line(2, "%s did not answer; --no-failover keeps their share", strings.Join(l.NotAnswering, ", "))
		}
	}
	if s.Error != "" {
		p.line(2, "%s %s", p.mark(false), s.Error)
		return
	}
	if s.Skipped != "" {
		p.line(2, "%s", s.Skipped)
		return
	}
	prev := ""
	for _, st := range s.Steps {
		indent := 3
		if st.Kind != prev {
			switch st.Kind {
			case "ordered":
				p.line(2, "order: weight descending, then FNV-1 hash of cluster name + %q ascending:", s.Key)
			case "minimum":
				p.line(2, "minimums, in that order:")
			case "preallocated":
				p.line(2, "running replicas kept (no rebalance):")
			case "overflow":
				p.line(2, "overflow:")
			}
		}
		if st.Kind == "unmatched" || st.Kind == "pass" || st.Kind == "done" {
			indent = 2
		}
		p.line(indent, "%s", StepText(st))
		prev = st.Kind
	}
	var plan []string
	for _, r := range s.Plan {
		plan = append(plan, fmt.Sprintf("%s %d", r.Cluster, r.Replicas))
	}
	for _, m := range s.Migrated {
		p.line(2, "migrated: %s's replicas go to %s (fedctl migrate -l %s)", m.From, m.To, m.Selector)
	}
	p.line(2, "→ plan: %s", strings.Join(plan, ", "))
	if l := s.Live; l != nil {
		if offline := replicasText(l.OfflinePlan, ""); offline != strings.Join(plan, ", ") {
			p.line(2, "  from the manifests alone (render without --live): %s", offline)
		} else {
			p.line(2, "  the same as from the manifests alone")
		}
	}
}

// replicasText writes per-cluster figures: "cluster1 2, cluster2 3".
func replicasText(rs []Replicas, none string) string {
	if len(rs) == 0 {
		return none
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %d", r.Cluster, r.Replicas))
	}
	return strings.Join(parts, ", ")
}

func preferenceText(pr Preference) string {
	name := pr.Cluster
	if name == "*" {
		name = `"*"`
	}
	maxText := "none"
	if pr.MaxReplicas != nil {
		maxText = strconv.FormatInt(*pr.MaxReplicas, 10)
	}
	return fmt.Sprintf("%s {min %d, max %s, weight %d}", name, pr.MinReplicas, maxText, pr.Weight)
}

// StepText writes one planner step for people.
func StepText(s Step) string {
	n := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	switch s.Kind {
	case "unmatched":
		return fmt.Sprintf(`%s: no preference of its own and no "*": planned 0, takes no further part`, s.Cluster)
	case "ordered":
		maxText := "none"
		if s.MaxReplicas != nil {
			maxText = strconv.FormatInt(*s.MaxReplicas, 10)
		}
		pref := s.Preference
		if pref == "*" {
			pref = `"*"`
		}
		return fmt.Sprintf("%d. %s  weight %d  hash %s  (preference %s: min %d, max %s)", s.Position, s.Cluster, n(s.Weight), s.Hash, pref, n(s.MinReplicas), maxText)
	case "minimum":
		if n(s.Replicas) < n(s.MinReplicas) {
			return fmt.Sprintf("%s: min %d, only %d left → %d, %d left", s.Cluster, n(s.MinReplicas), n(s.Replicas), n(s.Total), n(s.Remaining))
		}
		return fmt.Sprintf("%s: min %d → %d, %d left", s.Cluster, n(s.MinReplicas), n(s.Total), n(s.Remaining))
	case "preallocated":
		return fmt.Sprintf("%s: keeps %d running → %d, %d left", s.Cluster, n(s.Replicas), n(s.Total), n(s.Remaining))
	case "pass":
		if n(s.WeightSum) == 0 {
			return fmt.Sprintf("pass %d: %d left, but the clusters not yet full weigh 0: nothing more can be placed", s.Pass, n(s.Distribute))
		}
		return fmt.Sprintf("pass %d: distribute %d by weight, weightSum %d", s.Pass, n(s.Distribute), n(s.WeightSum))
	case "share":
		var b strings.Builder
		fmt.Fprintf(&b, "%s: ceil(%d·%d/%d) = %d", s.Cluster, n(s.Distribute), n(s.Weight), n(s.WeightSum), n(s.Share))
		if n(s.Offered) < n(s.Share) {
			fmt.Fprintf(&b, ", only %d left", n(s.Offered))
		}
		if n(s.UsedPreallocated) > 0 {
			fmt.Fprintf(&b, ", %d of them already running", n(s.UsedPreallocated))
		}
		fmt.Fprintf(&b, " → %+d = %d", n(s.Replicas), n(s.Total))
		if s.CappedByMax {
			b.WriteString(", capped at its max (full)")
		}
		if s.CappedByCapacity {
			fmt.Fprintf(&b, ", capped at its capacity, overflow %d (full)", n(s.Overflow))
		}
		fmt.Fprintf(&b, ", %d left", n(s.Remaining))
		return b.String()
	case "overflow":
		if n(s.Overflow) == 0 {
			return fmt.Sprintf("%s: overflow dropped: no replicas left unplaced", s.Cluster)
		}
		return fmt.Sprintf("%s: overflow %d", s.Cluster, n(s.Overflow))
	case "done":
		if n(s.Remaining) == 0 {
			return "unplaced: 0"
		}
		return fmt.Sprintf("unplaced: %d (every cluster is full or weighs 0)", n(s.Remaining))
	}
	return s.Kind
}

func (p *textPrinter) clusterOverrides(c ClusterOverrides) {
	head := c.Cluster
	if c.Replicas != nil {
		noun := "replicas"
		if *c.Replicas == 1 {
			noun = "replica"
		}
		head += fmt.Sprintf(" (%d %s planned)", *c.Replicas, noun)
	}
	if len(c.Applied) == 0 && c.Error == nil && len(c.Superseded) == 0 {
		p.line(2, "%s: no overrides", head)
		return
	}
	p.line(2, "%s:", head)
	for _, o := range c.Applied {
		p.line(3, "%s", OverrideText(o))
	}
	for _, o := range c.Superseded {
		p.line(3, "%s: %s %s: not applied, %s sets it later", o.Field, o.Op, o.Path, o.By)
	}
	if e := c.Error; e != nil {
		where := e.Field
		if e.From == FromPreference {
			where = "/spec/replicas override of the ReplicaSchedulingPreference"
		}
		if where == "" {
			where = fmt.Sprintf("override %d", e.Index)
		}
		p.line(3, "%s %s (%s): %s %s: %s", p.mark(false), where, e.Source, e.Op, e.Path, e.Message)
		p.line(4, "the member gets no object (KubeFed's ApplyOverridesFailed)")
	}
}

// OverrideText writes one applied override for people:
// "spec.overrides[0].clusterOverrides[1]: replace /data/x: "a" → "b"".
func OverrideText(o Override) string {
	var b strings.Builder
	switch o.From {
	case FromPreference:
		b.WriteString("ReplicaSchedulingPreference: ")
	default:
		b.WriteString(o.Field + ": ")
	}
	if o.Redacted {
		fmt.Fprintf(&b, "%s %s: (Secret data, not shown)", o.Op, o.Path)
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s: %s → %s", o.Op, o.Path, valueText(o.Old, "(none)"), valueText(o.New, "(removed)"))
	if o.From == FromOverridesSetByPreference {
		fmt.Fprintf(&b, " (value %s replaced by the ReplicaSchedulingPreference)", valueText(o.UserValue, "(none)"))
	}
	return b.String()
}

// valueText writes a JSON value compactly, or absent when there is none.
func valueText(v json.RawMessage, absent string) string {
	if len(v) == 0 {
		return absent
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	const maxRunes = 120
	if r := []rune(b.String()); len(r) > maxRunes {
		return string(r[:maxRunes]) + "…"
	}
	return b.String()
}

// list writes names separated by commas, or "(none)".
func list(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func (p *textPrinter) rollout(r *Rollout) {
	judged := fmt.Sprintf("timeout %s per wave, maxFailures %d", r.Timeout, r.MaxFailures)
	if r.Soak != "" {
		judged = "soak " + r.Soak + ", " + judged
	}
	p.line(0, "Rollout: %d waves, in this order (%s):", len(r.Waves), judged)
	for i, w := range r.Waves {
		if len(w.Clusters) == 0 {
			p.line(1, "%d. %s: no member; skipped", i+1, w.Name)
			continue
		}
		var members []string
		for _, c := range w.Clusters {
			members = append(members, fmt.Sprintf("%s (%d objects)", c, w.Objects[c]))
		}
		at := ""
		if w.MaxConcurrency > 0 && w.MaxConcurrency < len(w.Clusters) {
			at = fmt.Sprintf(", %d at a time", w.MaxConcurrency)
		}
		p.line(1, "%d. %s: %s%s", i+1, w.Name, strings.Join(members, ", "), at)
	}
	p.line(1, "each wave is applied, waited for until Current, soaked, checked again and gated before the next gets any write")
	for _, w := range r.Warnings {
		p.line(1, "%s %s", p.mark(false), w)
	}
}
