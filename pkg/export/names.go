package export

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/placement"
)

// maxClusterNameLength is the longest Cluster name Karmada accepts
// (karmada-io/karmada pkg/apis/cluster/validation: a DNS-1123 label of at
// most 48 characters, its execution namespace being karmada-es-<name>).
const maxClusterNameLength = 48

// KarmadaClusterNames gives each member the name its Karmada Cluster gets:
// its own name when Karmada takes it, else a DNS-1123 label made from it
// (lower case, other characters as "-", cut to 48 characters with a hash
// of the whole name kept at the end so that cut names stay apart). Every
// renamed member gets an informing Note, as the Karmada Cluster must be
// registered under that name. Two members that would get one name are an
// error.
func KarmadaClusterNames(members []placement.Cluster) (map[string]string, []Note, error) {
	names := make(map[string]string, len(members))
	owner := map[string]string{}
	var notes []Note
	sorted := slices.Clone(members)
	slices.SortFunc(sorted, func(a, b placement.Cluster) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range sorted {
		name := karmadaClusterName(m.Name)
		if other, taken := owner[name]; taken {
			return nil, nil, fmt.Errorf("members %q and %q would both be the Karmada cluster %q; rename one in the federation file first", other, m.Name, name)
		}
		owner[name] = m.Name
		names[m.Name] = name
		if name != m.Name {
			notes = append(notes, Note{Where: FederationFile, Object: "member " + m.Name, Members: []string{m.Name}, Exact: true,
				Message: fmt.Sprintf("Karmada takes cluster names that are DNS-1123 labels of at most %d characters: it is the Karmada cluster %s (register it under that name)", maxClusterNameLength, name)})
		}
	}
	return names, notes, nil
}

func karmadaClusterName(name string) string {
	if len(name) <= maxClusterNameLength && len(validation.IsDNS1123Label(name)) == 0 {
		return name
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		out = "member"
	}
	if len(out) > maxClusterNameLength || out != strings.ToLower(name) {
		// A hash of the original keeps "eu.west" and "eu_west" apart.
		h := fnv.New32a()
		h.Write([]byte(name))
		suffix := fmt.Sprintf("-%08x", h.Sum32())[:7]
		if len(out) > maxClusterNameLength-len(suffix) {
			out = strings.TrimRight(out[:maxClusterNameLength-len(suffix)], "-")
		}
		out += suffix
	}
	return out
}
