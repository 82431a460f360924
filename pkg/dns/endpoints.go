package dns

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
)

// sharedNames is an error naming each DNS name two records write (an
// Ingress host that is a Service record's dnsPrefix name, two records
// with one externalName): their DNSEndpoints would fight over it, each
// apply and ExternalDNS run undoing the other's.
func sharedNames(recs []Record) error {
	owner := map[string]string{}
	var errs []string
	for _, rec := range recs {
		id := rec.Kind + "DNSRecord " + rec.Namespace + "/" + rec.Name
		for _, ep := range rec.Endpoints {
			switch first, seen := owner[ep.DNSName]; {
			case !seen:
				owner[ep.DNSName] = id
			case first != id:
				errs = append(errs, fmt.Sprintf("%s (%s) and %s (%s) both write the DNS name %s; give one of them another", id, rec.Source, first, sourceOf(recs, first), ep.DNSName))
				owner[ep.DNSName] = id // said once per pair
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(slices.Compact(errs), "; "))
	}
	return nil
}

// sourceOf is the file:line of the record id names.
func sourceOf(recs []Record, id string) string {
	for _, rec := range recs {
		if rec.Kind+"DNSRecord "+rec.Namespace+"/"+rec.Name == id {
			return rec.Source
		}
	}
	return ""
}

// maxRoute53Weight is the largest weight Route 53 takes (0 to 255).
const maxRoute53Weight = 255

// scaleWeights brings the members' weights within limit when one is
// above it, keeping their proportions (rounded, and at least 1 for a
// member with replicas, which must keep some traffic): 300 replicas
// against 100 become 255 and 85. Weights within the limit are the
// replica counts themselves.
func scaleWeights(members []MemberTargets, limit int64) {
	top := int64(0)
	for _, m := range members {
		if m.Weight != nil {
			top = max(top, *m.Weight)
		}
	}
	if top <= limit {
		return
	}
	for _, m := range members {
		if m.Weight != nil && *m.Weight > 0 {
			*m.Weight = max(1, (*m.Weight*limit+top/2)/top)
		}
	}
}

// candidate is one name a member asks for: its load balancer there, or a
// CNAME to up when it has none (no up: nothing).
type candidate struct {
	name   string
	lb     LoadBalancer
	up     string
	member string
	weight *int64
}

// merge turns the candidates into endpoints with KubeFed's
// DedupeAndMergeEndpoints rules: names sorted; a name with targets loses
// its CNAMEs to the level above; targets of one name merged, sorted and
// deduplicated. IPv4 addresses make an A record, IPv6 an AAAA record
// (KubeFed had A only), hostnames a CNAME when the name has no address
// (KubeFed resolved them; a name cannot hold both). Weighted, each member
// keeps an endpoint of its own, with its weight.
func merge(cands []candidate, ttl int64, labels map[string]string, weighted bool, weightKey, severalHosts string, warnings *[]string) ([]Endpoint, error) {
	type group struct {
		v4, v6, hosts map[string][]string // member ("" unweighted) → targets
		up            []string
	}
	groups := map[string]*group{}
	var names []string
	for _, c := range cands {
		g := groups[c.name]
		if g == nil {
			g = &group{v4: map[string][]string{}, v6: map[string][]string{}, hosts: map[string][]string{}}
			groups[c.name] = g
			names = append(names, c.name)
		}
		if c.lb.Empty() {
			if c.up != "" {
				g.up = append(g.up, c.up)
			}
			continue
		}
		who := ""
		if weighted {
			who = c.member
		}
		for _, ip := range c.lb.IPs {
			if parsed := net.ParseIP(ip); parsed != nil && parsed.To4() == nil {
				g.v6[who] = append(g.v6[who], ip)
			} else {
				g.v4[who] = append(g.v4[who], ip)
			}
		}
		g.hosts[who] = append(g.hosts[who], c.lb.Hostnames...)
	}
	weights := map[string]*int64{}
	for _, c := range cands {
		weights[c.member] = c.weight
	}
	var out []Endpoint
	for _, name := range names {
		g := groups[name]
		addresses := len(g.v4)+len(g.v6) > 0
		emit := func(recordType string, byMember map[string][]string) {
			for _, who := range slices.Sorted(maps.Keys(byMember)) {
				targets := uniqueSorted(byMember[who])
				if len(targets) == 0 {
					continue
				}
				ep := Endpoint{DNSName: name, RecordTTL: ttl, RecordType: recordType, Targets: targets, Labels: labels}
				if who != "" {
					ep.SetIdentifier = who
					if w := weights[who]; w != nil {
						ep.ProviderSpecific = []ProviderProperty{{Name: weightKey, Value: strconv.FormatInt(*w, 10)}}
					}
				}
				out = append(out, ep)
			}
		}
		switch {
		case addresses:
			emit(TypeA, g.v4)
			emit(TypeAAAA, g.v6)
			for _, who := range slices.Sorted(maps.Keys(g.hosts)) {
				if hosts := g.hosts[who]; len(hosts) > 0 {
					*warnings = append(*warnings, fmt.Sprintf("%s: the load balancer hostnames %s are left out: the name has addresses, and a DNS name cannot hold both (member %s)", name, strings.Join(uniqueSorted(hosts), ", "), cmp.Or(who, "any")))
				}
			}
		case hasAny(g.hosts):
			// A CNAME holds one target: several load balancer hostnames
			// for one name cannot be written as one (a provider refuses
			// it, or keeps one and sends no traffic to the others).
			for _, who := range slices.Sorted(maps.Keys(g.hosts)) {
				if hosts := uniqueSorted(g.hosts[who]); len(hosts) > 1 {
					what := "the load balancers answering for it have hostnames " + strings.Join(hosts, ", ") + ", and a CNAME holds one: " + severalHosts
					if who != "" {
						what = "member " + who + "'s load balancer has the hostnames " + strings.Join(hosts, ", ") + ", and a CNAME holds one"
					}
					return nil, fmt.Errorf("%s: %s", name, what)
				}
			}
			emit(TypeCNAME, g.hosts)
		case len(g.up) > 0:
			out = append(out, Endpoint{DNSName: name, RecordTTL: ttl, RecordType: TypeCNAME, Targets: uniqueSorted(g.up), Labels: labels})
		}
	}
	sortEndpoints(out)
	return out, nil
}

func hasAny(m map[string][]string) bool {
	for _, v := range m {
		if len(v) > 0 {
			return true
		}
	}
	return false
}

func sortEndpoints(eps []Endpoint) {
	slices.SortStableFunc(eps, func(a, b Endpoint) int {
		return cmp.Or(strings.Compare(a.DNSName, b.DNSName), strings.Compare(a.RecordType, b.RecordType), strings.Compare(a.SetIdentifier, b.SetIdentifier))
	})
}

func uniqueSorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
