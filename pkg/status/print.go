package status

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/printers"
)

// WriteTable writes one row per federated object and member, in the
// report's order (federated kind, namespace, name, then cluster):
// KIND NAMESPACE NAME CLUSTER PROPAGATION READINESS DESIRED READY, and with
// wide REASON (the federated object's Propagation reason) and MESSAGE (why
// the propagation status is not OK, else kstatus's message). A federated
// object placed in no member gets one row without a cluster. cs colours
// the readiness column.
func WriteTable(w io.Writer, r *Report, wide bool, cs *iostreams.ColorScheme) error {
	headers := []string{"KIND", "NAMESPACE", "NAME", "CLUSTER", "PROPAGATION", "READINESS", "DESIRED", "READY"}
	if wide {
		headers = append(headers, "REASON", "MESSAGE")
	}
	t := printers.NewTable(headers...)
	for _, o := range r.Items {
		kind := strings.TrimPrefix(o.Kind, federation.KindPrefix)
		cond := o.Status.Conditions[0]
		if len(o.Status.Clusters) == 0 {
			msg := cond.Message
			if msg == "" {
				msg = "placed in no member cluster"
			}
			row := []string{kind, o.Metadata.Namespace, o.Metadata.Name, "", orOK(cond.Reason), colorReadiness(cs, ""), "", ""}
			if wide {
				row = append(row, cond.Reason, msg)
			}
			t.AddRow(row...)
			continue
		}
		for _, c := range o.Status.Clusters {
			row := []string{kind, o.Metadata.Namespace, o.Metadata.Name, c.Name, c.Propagation(), colorReadiness(cs, c.Readiness), count(c.DesiredReplicas), count(c.ReadyReplicas)}
			if wide {
				msg := c.Message
				if msg == "" {
					msg = c.ReadinessMessage
				}
				row = append(row, cond.Reason, msg)
			}
			t.AddRow(row...)
		}
	}
	return t.Write(w)
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

func colorReadiness(cs *iostreams.ColorScheme, r string) string {
	if cs == nil || !cs.Enabled() {
		return r
	}
	if r == "" {
		r = "<none>" // coloured like the others, so that columns stay aligned
	}
	switch r {
	case Current:
		return cs.Green(r)
	case Failed, Unknown, NotFound:
		return cs.Red(r)
	}
	return cs.Yellow(r)
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
