package export

import (
	"fmt"

	"github.com/fedctl/fedctl/pkg/federation"
)

// DNSNotes are the multi-cluster DNS inputs the other system (named by
// system) does not take over: fedctl writes their DNSEndpoints at each
// apply, from what the members report, and a control plane of its own
// does not. Approximated, as the records stop following the members.
func DNSNotes(set *federation.Set, system string) []Note {
	if set == nil {
		return nil
	}
	var notes []Note
	add := func(pos interface {
		File() string
		Line(string) int
	}, id string) {
		notes = append(notes, Note{Where: fmt.Sprintf("%s:%d", pos.File(), pos.Line("")), Object: id,
			Message: fmt.Sprintf("not converted: %s does not write fedctl's DNSEndpoints for ExternalDNS; keep running fedctl dns -f for the records, or move them to the control plane's own multi-cluster DNS", system)})
	}
	for _, r := range set.DNS.Services {
		add(r.Pos, r.ID())
	}
	for _, r := range set.DNS.Ingresses {
		add(r.Pos, r.ID())
	}
	return notes
}
