// Package dns computes multi-cluster DNS the way KubeFed v0.6's DNS
// controllers did (pkg/controller/servicedns and dnsendpoint): from the
// ServiceDNSRecords and IngressDNSRecords of the input, where their
// Service or Ingress is placed, and what each member says of it (its load
// balancers, whether the Service has endpoints, the member's region and
// zones), it writes ExternalDNS DNSEndpoint objects with global, region
// and zone names, a CNAME to the level above where a level has nothing.
// fedctl adds weights that follow the replica split. It takes data and
// returns data; reading the members is the caller's.
package dns

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/federation"
)

// ExternalDNS's DNSEndpoint.
const (
	EndpointAPIVersion = "externaldns.k8s.io/v1alpha1"
	EndpointKind       = "DNSEndpoint"
	// DefaultTTL is KubeFed's record TTL when a record names none.
	DefaultTTL = 180
	// DefaultWeightKey is the providerSpecific name ExternalDNS's AWS
	// provider reads a weight from (Route 53 weighted routing).
	DefaultWeightKey = "aws/weight"
	// TargetsAnnotation records, on each DNSEndpoint, the load balancers
	// each member had when it was written, so that a member that cannot be
	// read next time keeps its targets instead of losing them.
	TargetsAnnotation = "fedctl.io/dns-targets"
)

// Record types.
const (
	TypeA     = "A"
	TypeAAAA  = "AAAA"
	TypeCNAME = "CNAME"
)

// LoadBalancer is what a member's Service or Ingress status.loadBalancer
// holds: IP addresses and hostnames.
type LoadBalancer struct {
	IPs       []string `json:"ips,omitempty"`
	Hostnames []string `json:"hostnames,omitempty"`
}

// Empty says there is no target.
func (lb LoadBalancer) Empty() bool { return len(lb.IPs) == 0 && len(lb.Hostnames) == 0 }

// Targets are the load balancer's addresses, IPs first, as KubeFed listed
// them.
func (lb LoadBalancer) Targets() []string { return append(slices.Clone(lb.IPs), lb.Hostnames...) }

// Recorded is what a DNSEndpoint recorded of a member (TargetsAnnotation):
// its load balancer, and where it is, for its names.
type Recorded struct {
	LoadBalancer `json:",inline"`
	Region       string   `json:"region,omitempty"`
	Zones        []string `json:"zones,omitempty"`
}

// ServiceState is a member's copy of a Service.
type ServiceState struct {
	Found bool
	// Endpoints says the Service has ready endpoint addresses (is backed
	// by pods).
	Endpoints    bool
	LoadBalancer LoadBalancer
}

// MemberState is what one member said.
type MemberState struct {
	Region string
	Zones  []string
	// Services and Ingresses by "namespace/name".
	Services  map[string]ServiceState
	Ingresses map[string]LoadBalancer
	// Err says the member could not be read; its records then come from
	// Previous (or are withdrawn). Region and Zones may still be set, from
	// the federation file.
	Err error
	// TopologyErr says why the nodes' topology labels could not be read,
	// when Region or Zones had to come from them.
	TopologyErr error
}

// Input is what Endpoints computes from.
type Input struct {
	DNS federation.DNS
	// Members are every member's name.
	Members []string
	// States are what each member said.
	States map[string]*MemberState
	// Placed are the members each record's Service or Ingress is placed
	// in, by RecordKey.
	Placed map[string][]string
	// Replicas are, by RecordKey of a weighted Service record, each
	// member's replicas of the Deployment the Service selects.
	Replicas map[string]map[string]int64
	// Weights weighs every Service record by replicas (--dns-weights
	// replicas), as spec.weighting does for one.
	Weights bool
	// WeightKey is the providerSpecific name of the weight.
	WeightKey string
	// Previous are the load balancers each member had in the last
	// DNSEndpoint written for a record (its TargetsAnnotation), by
	// RecordKey and member.
	Previous map[string]map[string]Recorded
	// WithdrawUnreachable drops the targets of members that could not be
	// read (KubeFed's way) instead of keeping their last ones.
	WithdrawUnreachable bool
}

// RecordKey names a record in Input's maps: "Service/ns/name" or
// "Ingress/ns/name".
func RecordKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// Endpoint is one of a DNSEndpoint's spec.endpoints, as ExternalDNS reads it.
type Endpoint struct {
	DNSName          string             `json:"dnsName"`
	RecordTTL        int64              `json:"recordTTL,omitempty"`
	RecordType       string             `json:"recordType"`
	SetIdentifier    string             `json:"setIdentifier,omitempty"`
	Targets          []string           `json:"targets"`
	Labels           map[string]string  `json:"labels,omitempty"`
	ProviderSpecific []ProviderProperty `json:"providerSpecific,omitempty"`
}

// ProviderProperty is a provider-specific setting of an endpoint.
type ProviderProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Record is the DNSEndpoint of one record, and why each target is there.
type Record struct {
	// Kind is Service or Ingress; Namespace and Name are the record's.
	Kind, Namespace, Name string
	// Source is the record's file:line.
	Source    string
	Endpoints []Endpoint
	// Members are, per member, what it gave the record.
	Members []MemberTargets
	// Object is the DNSEndpoint to write.
	Object map[string]any
}

// MemberTargets says what one member gave a record, and why.
type MemberTargets struct {
	Member       string       `json:"member"`
	Region       string       `json:"region,omitempty"`
	Zones        []string     `json:"zones,omitempty"`
	LoadBalancer LoadBalancer `json:"loadBalancer"`
	Weight       *int64       `json:"weight,omitempty"`
	// Why says why the member has these targets, or none.
	Why string `json:"why"`
}

// Result is Endpoints' outcome.
type Result struct {
	Records []Record
	// Unreachable are the members that could not be read, sorted.
	Unreachable []string
	// Warnings say what was dropped.
	Warnings []string
}

// Endpoints computes every record's DNSEndpoint. A member without region
// or zones is an error for Service records, as in KubeFed (its names need
// them).
func Endpoints(in Input) (*Result, error) {
	res := &Result{}
	members := slices.Sorted(slices.Values(in.Members))
	for _, m := range members {
		if st := in.States[m]; st != nil && st.Err != nil {
			res.Unreachable = append(res.Unreachable, m)
		}
	}
	domains := map[string]*federation.Domain{}
	for _, d := range in.DNS.Domains {
		domains[d.Name] = d
	}
	var errs []string
	if len(in.DNS.Services) > 0 {
		for _, m := range members {
			st := in.States[m]
			if st == nil || st.Err != nil {
				continue
			}
			if st.Region == "" || len(st.Zones) == 0 {
				why := ""
				if st.TopologyErr != nil {
					why = fmt.Sprintf(" (its nodes could not be read: %v)", st.TopologyErr)
				}
				errs = append(errs, fmt.Sprintf("member %s has no region or zones%s, which DNS names need: set them with \"fedctl join %s --region R --zone Z --overwrite\", or label its nodes topology.kubernetes.io/region and topology.kubernetes.io/zone", m, why, m))
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	for _, r := range in.DNS.Services {
		rec, err := serviceRecord(in, members, domains[r.Spec.DomainRef], r, res)
		if err != nil {
			return nil, err
		}
		res.Records = append(res.Records, rec)
	}
	for _, r := range in.DNS.Ingresses {
		rec, err := ingressRecord(in, members, r, res)
		if err != nil {
			return nil, err
		}
		res.Records = append(res.Records, rec)
	}
	if err := sharedNames(res.Records); err != nil {
		return nil, err
	}
	return res, nil
}

// memberLB is what a member gives a record: its load balancer, or the
// last one recorded when it cannot be read. One the input no longer places
// the record's object in (what, "Service") gives nothing, read or not:
// that is known without reading it.
func memberLB(in Input, key, member, what string, live func(*MemberState) (LoadBalancer, string)) (LoadBalancer, string) {
	st := in.States[member]
	if !slices.Contains(in.Placed[key], member) {
		return LoadBalancer{}, "the " + what + " is not placed here"
	}
	if st == nil {
		return LoadBalancer{}, "not read"
	}
	if st.Err != nil {
		if in.WithdrawUnreachable {
			return LoadBalancer{}, "could not be read: its targets are withdrawn (--dns-withdraw-unreachable)"
		}
		if prev, ok := in.Previous[key][member]; ok && !prev.Empty() {
			return prev.LoadBalancer, "could not be read: keeps the targets of the last apply"
		}
		return LoadBalancer{}, "could not be read, and no targets were recorded for it before"
	}
	return live(st)
}

func serviceRecord(in Input, members []string, domain *federation.Domain, r *federation.ServiceDNSRecord, res *Result) (Record, error) {
	key := RecordKey("Service", r.Namespace, r.Name)
	rec := Record{Kind: "Service", Namespace: r.Namespace, Name: r.Name, Source: fmt.Sprintf("%s:%d", r.Pos.File(), r.Pos.Line(""))}
	if domain == nil {
		return rec, r.Errorf("spec.domainRef", "no Domain %s in the input", r.Spec.DomainRef)
	}
	var labels map[string]string
	if r.Spec.ExternalName != "" {
		labels = map[string]string{"serviceName": r.Name}
	}
	prefix := r.NamePrefix()
	global := prefix + "." + domain.Domain
	ttl := cmp.Or(r.Spec.RecordTTL, DefaultTTL)
	weighted := in.Weights || r.Spec.Weighting == federation.WeightingReplicas
	var cands []candidate
	for _, m := range members {
		mt := MemberTargets{Member: m}
		st := in.States[m]
		// An unreadable member's names stay where they were: with its
		// targets, or withdrawn, as CNAMEs to the level above. Its region
		// may be the federation file's while its zones were its nodes':
		// each comes from the last apply when the member does not say it.
		prev, recorded := in.Previous[key][m]
		if st != nil {
			mt.Region, mt.Zones = st.Region, st.Zones
		}
		if recorded && (mt.Region == "" || mt.Region == prev.Region) {
			mt.Region = cmp.Or(mt.Region, prev.Region)
			if len(mt.Zones) == 0 && (st == nil || st.Err != nil) {
				mt.Zones = prev.Zones
			}
		}
		lb, why := memberLB(in, key, m, "Service", func(st *MemberState) (LoadBalancer, string) {
			s := st.Services[r.Namespace+"/"+r.Name]
			switch {
			case !s.Found:
				return LoadBalancer{}, "the Service is placed here but not found (not applied yet?)"
			case !s.Endpoints && !r.Spec.AllowServiceWithoutEndpoints:
				return LoadBalancer{}, "the Service has no ready endpoints (no pods behind it; spec.allowServiceWithoutEndpoints writes it all the same)"
			case s.LoadBalancer.Empty():
				return LoadBalancer{}, "the Service has no load balancer in status.loadBalancer"
			}
			return s.LoadBalancer, "the Service's load balancer"
		})
		mt.LoadBalancer, mt.Why = lb, why
		if weighted {
			w := in.Replicas[key][m]
			mt.Weight = &w
		}
		rec.Members = append(rec.Members, mt)
		if mt.Region == "" {
			continue // unreadable and never read: no names of its own
		}
		region := prefix + "." + mt.Region + "." + domain.Domain
		for _, z := range mt.Zones {
			cands = append(cands, candidate{name: prefix + "." + z + "." + mt.Region + "." + domain.Domain, lb: lb, up: region, member: m, weight: mt.Weight})
		}
		cands = append(cands, candidate{name: region, lb: lb, up: global, member: m, weight: mt.Weight})
		cands = append(cands, candidate{name: global, lb: lb, member: m, weight: mt.Weight})
	}
	if weighted && cmp.Or(in.WeightKey, DefaultWeightKey) == DefaultWeightKey {
		scaleWeights(rec.Members, maxRoute53Weight)
	}
	var err error
	if rec.Endpoints, err = merge(cands, ttl, labels, weighted, cmp.Or(in.WeightKey, DefaultWeightKey),
		"weight the record (spec.weighting: replicas, or --dns-weights replicas), which gives each member an endpoint of its own", &res.Warnings); err != nil {
		return rec, r.Errorf("", "%v", err)
	}
	if r.Spec.DNSPrefix != "" {
		rec.Endpoints = append(rec.Endpoints, Endpoint{DNSName: r.Spec.DNSPrefix + "." + domain.Domain, RecordTTL: ttl, RecordType: TypeCNAME, Targets: []string{global}, Labels: labels})
		sortEndpoints(rec.Endpoints)
	}
	rec.Object = object(EndpointName("Service", r.Name), r.Namespace, rec)
	return rec, nil
}

func ingressRecord(in Input, members []string, r *federation.IngressDNSRecord, res *Result) (Record, error) {
	key := RecordKey("Ingress", r.Namespace, r.Name)
	rec := Record{Kind: "Ingress", Namespace: r.Namespace, Name: r.Name, Source: fmt.Sprintf("%s:%d", r.Pos.File(), r.Pos.Line(""))}
	var all LoadBalancer
	for _, m := range members {
		lb, why := memberLB(in, key, m, "Ingress", func(st *MemberState) (LoadBalancer, string) {
			lb, found := st.Ingresses[r.Namespace+"/"+r.Name]
			switch {
			case !found:
				return LoadBalancer{}, "the Ingress is placed here but not found (not applied yet?)"
			case lb.Empty():
				return LoadBalancer{}, "the Ingress has no load balancer in status.loadBalancer"
			}
			return lb, "the Ingress's load balancer"
		})
		mt := MemberTargets{Member: m, LoadBalancer: lb, Why: why}
		if st := in.States[m]; st != nil {
			mt.Region, mt.Zones = st.Region, st.Zones
		}
		rec.Members = append(rec.Members, mt)
		all.IPs = append(all.IPs, lb.IPs...)
		all.Hostnames = append(all.Hostnames, lb.Hostnames...)
	}
	ttl := cmp.Or(r.Spec.RecordTTL, DefaultTTL)
	var cands []candidate
	for _, host := range r.Spec.Hosts {
		if !all.Empty() { // KubeFed writes nothing for a host without targets
			cands = append(cands, candidate{name: host, lb: all})
		}
	}
	var err error
	if rec.Endpoints, err = merge(cands, ttl, nil, false, "",
		"an Ingress record is not weighted: give the load balancers addresses, or place the Ingress where one load balancer answers", &res.Warnings); err != nil {
		return rec, r.Errorf("", "%v", err)
	}
	rec.Object = object(EndpointName("Ingress", r.Name), r.Namespace, rec)
	return rec, nil
}

// EndpointName is the name of a record's DNSEndpoint, as KubeFed named it:
// "service-NAME", "ingress-NAME".
func EndpointName(kind, name string) string { return strings.ToLower(kind) + "-" + name }

// object is the DNSEndpoint of a record, named as KubeFed named it
// ("service-NAME", "ingress-NAME") in the record's namespace, labelled as
// fedctl's, with each member's load balancers recorded.
func object(name, namespace string, rec Record) map[string]any {
	byMember := map[string]Recorded{}
	for _, m := range rec.Members {
		if !m.LoadBalancer.Empty() {
			byMember[m.Member] = Recorded{LoadBalancer: m.LoadBalancer, Region: m.Region, Zones: m.Zones}
		}
	}
	recorded, _ := json.Marshal(byMember) // map keys are sorted
	endpoints := make([]any, 0, len(rec.Endpoints))
	for _, ep := range rec.Endpoints {
		var m map[string]any
		data, _ := json.Marshal(ep)
		_ = json.Unmarshal(data, &m)
		endpoints = append(endpoints, m)
	}
	return map[string]any{
		"apiVersion": EndpointAPIVersion,
		"kind":       EndpointKind,
		"metadata": map[string]any{
			"name":        name,
			"namespace":   namespace,
			"labels":      map[string]any{federation.ManagedByLabel: federation.ManagedByValue},
			"annotations": map[string]any{TargetsAnnotation: string(recorded), federation.SourceAnnotation: rec.Kind + "DNSRecord/" + namespace + "/" + rec.Name},
		},
		"spec": map[string]any{"endpoints": endpoints},
	}
}

// PreviousTargets reads TargetsAnnotation of a DNSEndpoint written before.
func PreviousTargets(annotations map[string]string) map[string]Recorded {
	var out map[string]Recorded
	_ = json.Unmarshal([]byte(annotations[TargetsAnnotation]), &out)
	return out
}

// FromRender fills in what Endpoints needs of the render: where each
// record's Service or Ingress is placed, and for weighted Service records
// (spec.weighting, or weights) each member's replicas of the Deployments
// whose pods the Service selects, as placed and planned. A weighted record
// whose Service selects no Deployment of the input is an error at its line.
func FromRender(in *Input, set *federation.Set, placedIn map[*federation.Object][]string, replicas func(o *federation.Object) map[string]int64) error {
	in.Placed = map[string][]string{}
	in.Replicas = map[string]map[string]int64{}
	byKey := map[string]*federation.Object{}
	for _, o := range set.Objects {
		byKey[o.TargetKey()] = o
	}
	for _, r := range set.DNS.Ingresses {
		if o := byKey[federation.KindPrefix+"Ingress/"+r.Namespace+"/"+r.Name]; o != nil {
			in.Placed[RecordKey("Ingress", r.Namespace, r.Name)] = placedIn[o]
		}
	}
	var errs []error
	for _, r := range set.DNS.Services {
		svc := byKey[federation.KindPrefix+"Service/"+r.Namespace+"/"+r.Name]
		if svc == nil {
			continue // the pipeline reported it
		}
		key := RecordKey("Service", r.Namespace, r.Name)
		in.Placed[key] = placedIn[svc]
		if !in.Weights && r.Spec.Weighting != federation.WeightingReplicas {
			continue
		}
		selector, _, _ := unstructured.NestedStringMap(svc.Spec.Template, "spec", "selector")
		if len(selector) == 0 {
			errs = append(errs, r.Errorf("spec.weighting", "weights follow the replicas of the Deployment the Service selects, and the Service %s/%s has no selector", r.Namespace, r.Name))
			continue
		}
		total := map[string]int64{}
		found := false
		for _, o := range set.Objects {
			if o.Kind != federation.KindPrefix+"Deployment" || o.Namespace != r.Namespace {
				continue
			}
			podLabels, _, _ := unstructured.NestedStringMap(o.Spec.Template, "spec", "template", "metadata", "labels")
			if !labels.SelectorFromSet(selector).Matches(labels.Set(podLabels)) {
				continue
			}
			found = true
			for m, n := range replicas(o) {
				total[m] += n
			}
		}
		if !found {
			errs = append(errs, r.Errorf("spec.weighting", "weights follow the replicas of the Deployment the Service selects, and no FederatedDeployment of %s in the input has pods the Service %s selects", r.Namespace, r.Name))
			continue
		}
		in.Replicas[key] = total
	}
	return errors.Join(errs...) // each a *manifest.Error: file, line, field
}

// WriteWhy writes, per record, its source and each member's targets and why.
func WriteWhy(w io.Writer, res *Result) {
	for i, r := range res.Records {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%sDNSRecord %s/%s (%s) → DNSEndpoint %s/%s\n", r.Kind, r.Namespace, r.Name, r.Source, r.Namespace, EndpointName(r.Kind, r.Name))
		for _, m := range r.Members {
			where := ""
			if m.Region != "" {
				where = fmt.Sprintf(" (region %s, zones %s)", m.Region, strings.Join(m.Zones, ","))
			}
			targets := "no targets"
			if t := m.LoadBalancer.Targets(); len(t) > 0 {
				targets = strings.Join(t, ", ")
			}
			weight := ""
			if m.Weight != nil {
				weight = fmt.Sprintf(", weight %d", *m.Weight)
			}
			fmt.Fprintf(w, "  %s%s: %s%s: %s\n", m.Member, where, targets, weight, m.Why)
		}
		for _, ep := range r.Endpoints {
			id := ""
			if ep.SetIdentifier != "" {
				id = " [" + ep.SetIdentifier + "]"
			}
			fmt.Fprintf(w, "  %s %s%s → %s\n", ep.RecordType, ep.DNSName, id, strings.Join(ep.Targets, ", "))
		}
	}
}
