package status

import (
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/printers"
)

// Table is the report as a table, one row per federated object and
// member, in the report's order (federated kind, namespace, name, then
// cluster): KIND NAMESPACE NAME CLUSTER PROPAGATION READINESS DESIRED
// READY, and for -o wide REASON (the federated object's Propagation
// reason) and MESSAGE (why the propagation status is not OK, else
// kstatus's message). A federated object placed in no member gets one row
// without a cluster. Each row's document (for --sort-by and
// custom-columns) is the object as -o json prints it with "cluster", that
// row's entry of status.clusters.
func Table(r *Report) (*printers.ObjectTable, error) {
	t := &printers.ObjectTable{}
	for _, h := range []string{"KIND", "NAMESPACE", "NAME", "CLUSTER", "PROPAGATION", "READINESS", "DESIRED", "READY"} {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: h})
	}
	wide := []string{"REASON", "MESSAGE"}
	waves := hasWaves(r)
	if waves {
		wide = []string{"WAVE", "REASON", "MESSAGE"}
	}
	for _, h := range wide {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: h, Priority: 1})
	}
	docs, err := RowDocuments(r)
	if err != nil {
		return nil, err
	}
	row := 0
	for _, o := range r.Items {
		kind := strings.TrimPrefix(o.Kind, federation.KindPrefix)
		cond := o.Status.Conditions[0]
		if len(o.Status.Clusters) == 0 {
			msg := cond.Message
			switch {
			case msg != "":
			case len(o.unread) > 0:
				msg = fmt.Sprintf("placed only in member clusters not read (--cluster): %s", strings.Join(o.unread, ", "))
			default:
				msg = "placed in no member cluster"
			}
			cells := []any{kind, o.Metadata.Namespace, o.Metadata.Name, "", orOK(cond.Reason), "", "", ""}
			if waves {
				cells = append(cells, "")
			}
			t.Rows = append(t.Rows, printers.ObjectRow{
				Cells:  append(cells, cond.Reason, msg),
				Labels: o.Metadata.Labels, Doc: docs[row],
			})
			row++
			continue
		}
		for _, c := range o.Status.Clusters {
			msg := c.Message
			if msg == "" {
				msg = c.ReadinessMessage
			}
			cells := []any{kind, o.Metadata.Namespace, o.Metadata.Name, c.Name, c.Propagation(), c.Readiness, count(c.DesiredReplicas), count(c.ReadyReplicas)}
			if waves {
				cells = append(cells, c.Wave)
			}
			t.Rows = append(t.Rows, printers.ObjectRow{
				Cells:  append(cells, cond.Reason, msg),
				Labels: o.Metadata.Labels, Doc: docs[row],
			})
			row++
		}
	}
	return t, nil
}

// RowDocuments are the documents of the table's rows, in its order: each
// item of -o json, with "cluster" holding one entry of status.clusters (a
// federated object placed nowhere has one document without "cluster").
func RowDocuments(r *Report) ([]map[string]any, error) {
	var docs []map[string]any
	for _, o := range r.Items {
		doc, err := printers.Document(o)
		if err != nil {
			return nil, err
		}
		if len(o.Status.Clusters) == 0 {
			docs = append(docs, doc)
			continue
		}
		for _, c := range o.Status.Clusters {
			cd, err := printers.Document(c)
			if err != nil {
				return nil, err
			}
			d := maps.Clone(doc)
			d["cluster"] = cd
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// ReadinessColors colours the READINESS column on a terminal: Current
// green, Failed, Unknown and NotFound red, the others yellow.
func ReadinessColors(cs *iostreams.ColorScheme) map[string]func(string) string {
	if cs == nil || !cs.Enabled() {
		return nil
	}
	return map[string]func(string) string{"READINESS": func(r string) string {
		switch r {
		case Current:
			return cs.Green(r)
		case Failed, Unknown, NotFound:
			return cs.Red(r)
		}
		return cs.Yellow(r)
	}}
}

func orOK(reason string) string {
	if reason == "" {
		return OK
	}
	return reason
}

func count(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

// WriteSummary writes the roll-up line and the members that could not be
// read, for people (stderr).
func WriteSummary(w io.Writer, r *Report, cs *iostreams.ColorScheme) {
	for _, u := range r.Unreachable {
		fmt.Fprintf(w, "%s cluster %s could not be read (ClusterNotReady): %s\n", cs.FailureIcon(), u.Name, u.Error)
	}
	icon := cs.SuccessIcon()
	if r.Summary.Readiness[Current] < r.Summary.MemberObjects || len(r.Unreachable) > 0 {
		icon = cs.WarningIcon()
	}
	fmt.Fprintf(w, "%s %s\n", icon, r.Summary)
}

// hasWaves says whether any member has a rollout wave (-o wide's WAVE).
func hasWaves(r *Report) bool {
	for _, o := range r.Items {
		for _, c := range o.Status.Clusters {
			if c.Wave != "" {
				return true
			}
		}
	}
	return false
}
