package dns

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// shop is a Domain, a Service web placed in a and b (not c), a Deployment
// whose pods it selects split 1/2/3 by an RSP, and an Ingress in a and c.
const shop = `apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata: {name: example}
domain: example.com
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {selector: {app: web}, ports: [{port: 80}], type: LoadBalancer}}
  placement: {clusters: [{name: a}, {name: b}]}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
  clusters: {a: {weight: 1}, b: {weight: 2}, c: {weight: 3}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedIngress
metadata: {name: front, namespace: shop}
spec:
  template: {spec: {rules: [{host: shop.example.com}]}}
  placement: {clusters: [{name: a}, {name: c}]}
`

const serviceRecordDoc = `---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: shop}
spec:
  domainRef: example
`

const ingressRecordDoc = `---
apiVersion: multiclusterdns.kubefed.k8s.io/v1alpha1
kind: IngressDNSRecord
metadata: {name: front, namespace: shop}
spec:
  hosts: [shop.example.com, www.example.com]
  recordTTL: 60
`

var members = []placement.Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}

// rendered decodes and renders text for members a, b, c.
func rendered(t *testing.T, text string) (*federation.Set, *render.Result) {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	out, err := pipeline.Run(pipeline.Input{Docs: docs, DefaultNamespace: "default", Members: members, Types: typeconfig.Builtin()})
	require.NoError(t, err)
	require.Empty(t, out.Result.Errors)
	return out.Set, out.Result
}

func inputFor(t *testing.T, set *federation.Set, res *render.Result, weights bool) Input {
	t.Helper()
	in := Input{DNS: set.DNS, Members: []string{"a", "b", "c"}, Weights: weights}
	placedIn := map[*federation.Object][]string{}
	for _, p := range res.Placed {
		placedIn[p.Object] = p.Clusters
	}
	replicas := func(o *federation.Object) map[string]int64 {
		out := map[string]int64{}
		for _, tg := range res.Targets {
			if tg.Source == o {
				out[tg.Cluster], _ = tg.Object["spec"].(map[string]any)["replicas"].(int64)
			}
		}
		return out
	}
	require.NoError(t, FromRender(&in, set, placedIn, replicas))
	return in
}

func up(region string, zones ...string) *MemberState {
	return &MemberState{Region: region, Zones: zones, Services: map[string]ServiceState{}, Ingresses: map[string]LoadBalancer{}}
}

func (m *MemberState) service(endpoints bool, targets ...string) *MemberState {
	m.Services["shop/web"] = ServiceState{Found: true, Endpoints: endpoints, LoadBalancer: lb(targets...)}
	return m
}

func (m *MemberState) withService(name string, endpoints bool, targets ...string) *MemberState {
	m.Services["shop/"+name] = ServiceState{Found: true, Endpoints: endpoints, LoadBalancer: lb(targets...)}
	return m
}

func (m *MemberState) ingress(targets ...string) *MemberState {
	m.Ingresses["shop/front"] = lb(targets...)
	return m
}

func lb(targets ...string) LoadBalancer {
	var out LoadBalancer
	for _, t := range targets {
		if strings.ContainsAny(t, ":") || strings.Count(t, ".") == 3 && strings.IndexFunc(t, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0 {
			out.IPs = append(out.IPs, t)
		} else {
			out.Hostnames = append(out.Hostnames, t)
		}
	}
	return out
}

// TestEndpointsGolden: the DNSEndpoints of each case, and why each member
// gives what it gives, against testdata/NAME.yaml.
func TestEndpointsGolden(t *testing.T) {
	for _, tt := range []struct {
		name    string
		records string
		states  map[string]*MemberState
		weights bool
		modify  func(*Input)
	}{
		{
			name: "levels", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a", "eu-west-1b").service(true, "10.0.0.1"),
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1", "10.0.1.2"),
				"c": up("us-east-1", "us-east-1c"),
			},
		},
		{
			name: "same-region", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.1"),
				"b": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.2"),
				"c": up("eu-west-1", "eu-west-1b"),
			},
		},
		{
			name: "prefix-and-external-name", records: strings.Replace(serviceRecordDoc, "  domainRef: example\n", "  domainRef: example\n  dnsPrefix: shop\n  externalName: storefront\n  recordTTL: 30\n", 1),
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.1"),
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
		},
		{
			name: "hostnames-and-ipv6", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(true, "lb-a.elb.amazonaws.com"),
				"b": up("us-east-1", "us-east-1a").service(true, "2001:db8::1", "10.0.1.1"),
				"c": up("us-east-1", "us-east-1b").service(true, "lb-c.elb.amazonaws.com"),
			},
		},
		{
			name: "without-endpoints", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(false, "10.0.0.1"),
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
		},
		{
			name: "allow-without-endpoints", records: strings.Replace(serviceRecordDoc, "  domainRef: example\n", "  domainRef: example\n  allowServiceWithoutEndpoints: true\n", 1),
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(false, "10.0.0.1"),
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
		},
		{
			name: "weighted", records: serviceRecordDoc, weights: true,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.1"),
				"b": up("eu-west-1", "eu-west-1b").service(true, "10.0.0.2"),
				"c": up("us-east-1", "us-east-1c"),
			},
		},
		{
			name: "unreachable-keeps", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": {Err: errors.New("connection refused")},
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
			modify: func(in *Input) {
				in.Previous = map[string]map[string]Recorded{"Service/shop/web": {"a": {LoadBalancer: LoadBalancer{IPs: []string{"10.0.0.1"}}, Region: "eu-west-1", Zones: []string{"eu-west-1a"}}}}
			},
		},
		{
			name: "unreachable-withdrawn", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": {Err: errors.New("connection refused")},
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
			modify: func(in *Input) {
				in.Previous = map[string]map[string]Recorded{"Service/shop/web": {"a": {LoadBalancer: LoadBalancer{IPs: []string{"10.0.0.1"}}, Region: "eu-west-1", Zones: []string{"eu-west-1a"}}}}
				in.WithdrawUnreachable = true
			},
		},
		{
			// the input no longer places the Service in a: known without
			// reading a, so its targets go, as they would were it read
			name: "unreachable-unplaced", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": {Err: errors.New("connection refused")},
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
			modify: func(in *Input) {
				in.Previous = map[string]map[string]Recorded{"Service/shop/web": {"a": {LoadBalancer: LoadBalancer{IPs: []string{"10.0.0.1"}}, Region: "eu-west-1", Zones: []string{"eu-west-1a"}}}}
				in.Placed["Service/shop/web"] = []string{"b"}
			},
		},
		{
			// a's region is the federation file's, its zones were its
			// nodes': unreachable, it keeps the zone names of the last apply
			name: "unreachable-region-from-file", records: serviceRecordDoc,
			states: map[string]*MemberState{
				"a": {Err: errors.New("connection refused"), Region: "eu-west-1"},
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c"),
			},
			modify: func(in *Input) {
				in.Previous = map[string]map[string]Recorded{"Service/shop/web": {"a": {LoadBalancer: LoadBalancer{IPs: []string{"10.0.0.1"}}, Region: "eu-west-1", Zones: []string{"eu-west-1a"}}}}
			},
		},
		{
			name: "several-services", records: serviceRecordDoc + `---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: api, namespace: shop}
spec:
  template: {spec: {selector: {app: api}, ports: [{port: 80}], type: LoadBalancer}}
  placement: {clusterSelector: {}}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: api, namespace: shop}
spec: {domainRef: example, recordTTL: 30}
`,
			states: map[string]*MemberState{
				"a": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.1").withService("api", true, "10.0.0.11"),
				"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
				"c": up("us-east-1", "us-east-1c").withService("api", true, "10.0.2.11"),
			},
		},
		{
			name: "ingress", records: ingressRecordDoc,
			states: map[string]*MemberState{
				"a": up("", "").ingress("10.1.0.1"),
				"b": up("", "").ingress("10.9.9.9"),
				"c": up("", "").ingress("10.1.0.3", "10.1.0.1"),
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, res := rendered(t, shop+tt.records)
			in := inputFor(t, set, res, tt.weights)
			in.States = tt.states
			if tt.modify != nil {
				tt.modify(&in)
			}
			out, err := Endpoints(in)
			require.NoError(t, err)
			var b strings.Builder
			for _, rec := range out.Records {
				data, err := yaml.Marshal(rec.Object)
				require.NoError(t, err)
				b.WriteString("---\n")
				b.Write(data)
				for _, m := range rec.Members {
					fmt.Fprintf(&b, "# %s %s: %s %v", rec.Kind, m.Member, m.Why, m.LoadBalancer.Targets())
					if m.Weight != nil {
						fmt.Fprintf(&b, " weight %d", *m.Weight)
					}
					b.WriteString("\n")
				}
			}
			for _, w := range out.Warnings {
				fmt.Fprintf(&b, "# warning: %s\n", w)
			}
			if len(out.Unreachable) > 0 {
				fmt.Fprintf(&b, "# unreachable: %v\n", out.Unreachable)
			}
			testutil.AssertGolden(t, []byte(b.String()), filepath.Join("testdata", tt.name+".yaml"))
		})
	}
}

// TestEndpointsErrors: a member without region or zones cannot have names;
// a weighted record needs a Deployment its Service selects.
func TestEndpointsErrors(t *testing.T) {
	set, res := rendered(t, shop+serviceRecordDoc)
	in := inputFor(t, set, res, false)
	in.States = map[string]*MemberState{"a": up("eu-west-1"), "b": up("", "us-east-1a"), "c": up("us-east-1", "us-east-1c")}
	_, err := Endpoints(in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `member a has no region or zones, which DNS names need: set them with "fedctl join a --region R --zone Z --overwrite"`)
	assert.Contains(t, err.Error(), "member b has no region or zones")

	// two members' load balancers with hostnames: one CNAME cannot hold
	// both, so the record is refused, with the way out; weighted, each
	// member has an endpoint (and a CNAME) of its own
	in = inputFor(t, set, res, false)
	in.States = map[string]*MemberState{
		"a": up("eu-west-1", "eu-west-1a").service(true, "lb-a.elb.amazonaws.com"),
		"b": up("eu-west-1", "eu-west-1b").service(true, "lb-b.elb.amazonaws.com"),
		"c": up("us-east-1", "us-east-1c"),
	}
	_, err = Endpoints(in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ServiceDNSRecord shop/web: web.shop.example.svc.eu-west-1.example.com: the load balancers answering for it have hostnames lb-a.elb.amazonaws.com, lb-b.elb.amazonaws.com, and a CNAME holds one: weight the record")
	in.Weights = true
	in.Replicas = map[string]map[string]int64{"Service/shop/web": {"a": 1, "b": 1}}
	out, err := Endpoints(in)
	require.NoError(t, err, "weighted, each member has its own CNAME")
	for _, ep := range out.Records[0].Endpoints {
		assert.LessOrEqual(t, len(ep.Targets), 1, "%s %s %s", ep.DNSName, ep.RecordType, ep.SetIdentifier)
	}

	// an Ingress host that is the Service record's name in a member's
	// region: the two DNSEndpoints would fight over it. (A clash the input
	// alone decides is the pipeline's error; this one needs the regions.)
	set, res = rendered(t, shop+serviceRecordDoc+strings.Replace(ingressRecordDoc, "hosts: [shop.example.com,", "hosts: [web.shop.example.svc.eu-west-1.example.com,", 1))
	in = inputFor(t, set, res, false)
	in.States = map[string]*MemberState{
		"a": up("eu-west-1", "eu-west-1a").service(true, "10.0.0.1").ingress("10.1.0.1"),
		"b": up("us-east-1", "us-east-1a").service(true, "10.0.1.1"),
		"c": up("us-east-1", "us-east-1c"),
	}
	_, err = Endpoints(in)
	require.Error(t, err)
	assert.Regexp(t, `IngressDNSRecord shop/front \(in.yaml:\d+\) and ServiceDNSRecord shop/web \(in.yaml:\d+\) both write the DNS name web.shop.example.svc.eu-west-1.example.com`, err.Error())

	noDeploy := strings.Replace(shop, "selector: {app: web}, ports", "selector: {app: other}, ports", 1)
	set, res = rendered(t, noDeploy+strings.Replace(serviceRecordDoc, "  domainRef: example\n", "  domainRef: example\n  weighting: replicas\n", 1))
	in = Input{DNS: set.DNS}
	placedIn := map[*federation.Object][]string{}
	for _, p := range res.Placed {
		placedIn[p.Object] = p.Clusters
	}
	err = FromRender(&in, set, placedIn, func(*federation.Object) map[string]int64 { return nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in.yaml:51: ServiceDNSRecord shop/web: spec.weighting: weights follow the replicas of the Deployment the Service selects, and no FederatedDeployment of shop in the input has pods the Service web selects")
}

// TestScaleWeights: Route 53 takes weights up to 255; replica counts above
// it are scaled, in proportion, and a member with replicas keeps at least 1.
func TestScaleWeights(t *testing.T) {
	w := func(n int64) *int64 { return &n }
	members := []MemberTargets{{Member: "a", Weight: w(300)}, {Member: "b", Weight: w(100)}, {Member: "c", Weight: w(1)}, {Member: "d", Weight: w(0)}, {Member: "e"}}
	scaleWeights(members, maxRoute53Weight)
	var got []any
	for _, m := range members {
		if m.Weight == nil {
			got = append(got, nil)
			continue
		}
		got = append(got, *m.Weight)
	}
	assert.Equal(t, []any{int64(255), int64(85), int64(1), int64(0), nil}, got)

	within := []MemberTargets{{Member: "a", Weight: w(255)}, {Member: "b", Weight: w(3)}}
	scaleWeights(within, maxRoute53Weight)
	assert.Equal(t, int64(255), *within[0].Weight, "within the limit: the replica counts themselves")
	assert.Equal(t, int64(3), *within[1].Weight)
}
