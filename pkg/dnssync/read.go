// Package dnssync reads from the members what multi-cluster DNS needs
// (pkg/dns): each record's Service (its load balancers and whether pods
// back it) or Ingress (its load balancers), and where the member is when
// the federation file does not say: its nodes' topology labels; and it
// writes the DNSEndpoints (pkg/dns) to the cluster where ExternalDNS runs.
package dnssync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// Node labels a member's region and zones fall back to.
const (
	RegionLabel = "topology.kubernetes.io/region"
	ZoneLabel   = "topology.kubernetes.io/zone"
)

var (
	serviceGVK       = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	endpointSliceGVK = schema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}
	ingressGVK       = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
	nodeGVK          = schema.GroupVersionKind{Version: "v1", Kind: "Node"}
)

// Input is what Read reads.
type Input struct {
	DNS     federation.DNS
	Members []members.Member
	Clients func(cluster string) (members.Client, error)
	// Concurrency bounds the members read at once (0: all); Timeout each
	// member's reads.
	Concurrency int
	Timeout     time.Duration
}

// Read reads every member in parallel. A member that cannot be read has
// Err set (with the region and zones of the federation file, if any);
// Read itself never fails.
func Read(ctx context.Context, in Input) map[string]*dns.MemberState {
	concurrency := in.Concurrency
	if concurrency <= 0 {
		concurrency = len(in.Members) // a handful of reads each: all at once
	}
	states, failed := members.Gather(ctx, concurrency, in.Timeout, len(in.Members), func(ctx context.Context, i int) *dns.MemberState {
		return readMember(ctx, in, in.Members[i])
	})
	out := map[string]*dns.MemberState{}
	for i, m := range in.Members {
		st := states[i]
		if st == nil {
			st = &dns.MemberState{Err: errors.New("not read")}
		}
		if failed[i] != nil {
			st.Err = failed[i]
		}
		if st.Err != nil && st.Region == "" {
			st.Region, st.Zones = m.Region, m.Zones
		}
		out[m.Name] = st
	}
	return out
}

func readMember(ctx context.Context, in Input, m members.Member) *dns.MemberState {
	st := &dns.MemberState{Region: m.Region, Zones: slices.Clone(m.Zones), Services: map[string]dns.ServiceState{}, Ingresses: map[string]dns.LoadBalancer{}}
	fail := func(err error) *dns.MemberState {
		st.Err = members.RequestErrorIn(ctx, err)
		return st
	}
	client, err := in.Clients(m.Name)
	if err != nil {
		return fail(err)
	}
	if len(in.DNS.Services) > 0 {
		svc, err := client.Map(ctx, serviceGVK)
		if err != nil {
			return fail(err)
		}
		sliceMapping, err := client.Map(ctx, endpointSliceGVK)
		if err != nil {
			return fail(err)
		}
		for _, r := range in.DNS.Services {
			s, err := readService(ctx, client, svc, sliceMapping, r.Namespace, r.Name)
			if err != nil {
				return fail(fmt.Errorf("Service %s/%s: %w", r.Namespace, r.Name, err))
			}
			st.Services[r.Namespace+"/"+r.Name] = s
		}
		if st.Region == "" || len(st.Zones) == 0 {
			region, zones, err := nodeTopology(ctx, client)
			if err != nil {
				st.TopologyErr = members.RequestErrorIn(ctx, err)
			}
			if st.Region == "" {
				st.Region = region
			}
			if len(st.Zones) == 0 {
				st.Zones = zones
			}
		}
	}
	if len(in.DNS.Ingresses) > 0 {
		ing, err := client.Map(ctx, ingressGVK)
		if err != nil {
			return fail(err)
		}
		for _, r := range in.DNS.Ingresses {
			obj, err := client.Get(ctx, ing, r.Namespace, r.Name)
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				return fail(fmt.Errorf("Ingress %s/%s: %w", r.Namespace, r.Name, err))
			}
			st.Ingresses[r.Namespace+"/"+r.Name] = loadBalancer(obj)
		}
	}
	return st
}

// readService reads a Service and whether any of its EndpointSlices has a
// ready endpoint (KubeFed read the Endpoints; EndpointSlices are their
// replacement).
func readService(ctx context.Context, client members.Client, svc, sliceMapping members.Mapping, namespace, name string) (dns.ServiceState, error) {
	obj, err := client.Get(ctx, svc, namespace, name)
	if apierrors.IsNotFound(err) {
		return dns.ServiceState{}, nil
	}
	if err != nil {
		return dns.ServiceState{}, err
	}
	s := dns.ServiceState{Found: true, LoadBalancer: loadBalancer(obj)}
	list, err := client.List(ctx, sliceMapping, members.ListOptions{Namespace: namespace, LabelSelector: "kubernetes.io/service-name=" + name})
	if err != nil {
		return s, err
	}
	for _, es := range list {
		eps, _, _ := unstructured.NestedSlice(es.Object, "endpoints")
		for _, e := range eps {
			ep, _ := e.(map[string]any)
			ready, found, _ := unstructured.NestedBool(ep, "conditions", "ready")
			if !found || ready { // a missing condition means ready
				s.Endpoints = true
			}
		}
	}
	return s, nil
}

// loadBalancer is status.loadBalancer.ingress of a Service or Ingress.
func loadBalancer(obj *unstructured.Unstructured) dns.LoadBalancer {
	var lb dns.LoadBalancer
	items, _, _ := unstructured.NestedSlice(obj.Object, "status", "loadBalancer", "ingress")
	for _, it := range items {
		m, _ := it.(map[string]any)
		if ip, _ := m["ip"].(string); ip != "" {
			lb.IPs = append(lb.IPs, ip)
		}
		if host, _ := m["hostname"].(string); host != "" {
			lb.Hostnames = append(lb.Hostnames, host)
		}
	}
	return lb
}

// nodeTopology is the member's region (the one most of its nodes are in)
// and zones, from its nodes' labels, or why they could not be read.
func nodeTopology(ctx context.Context, client members.Client) (string, []string, error) {
	m, err := client.Map(ctx, nodeGVK)
	if err != nil {
		return "", nil, err
	}
	nodes, err := client.List(ctx, m, members.ListOptions{})
	if err != nil {
		return "", nil, err
	}
	regions := map[string]int{}
	var zones []string
	for _, n := range nodes {
		labels := n.GetLabels()
		if r := labels[RegionLabel]; r != "" {
			regions[r]++
		}
		if z := labels[ZoneLabel]; z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	region, most := "", 0
	for _, r := range slices.Sorted(maps.Keys(regions)) {
		if regions[r] > most {
			region, most = r, regions[r]
		}
	}
	slices.Sort(zones)
	return region, zones, nil
}
