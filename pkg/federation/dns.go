package federation

import (
	"cmp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// KubeFed's multi-cluster DNS inputs (v0.6, pkg/apis/multiclusterdns):
// a Domain, and records that ask for DNS names for a federated Service or
// Ingress of the same namespace and name. fedctl turns them into
// ExternalDNS DNSEndpoints (pkg/dns).
const (
	DNSGroup       = "multiclusterdns.kubefed.io"
	LegacyDNSGroup = "multiclusterdns.kubefed.k8s.io"
	DNSVersion     = "v1alpha1"

	DomainKind           = "Domain"
	ServiceDNSRecordKind = "ServiceDNSRecord"
	IngressDNSRecordKind = "IngressDNSRecord"

	// WeightingReplicas weights a record's members by their replicas.
	WeightingReplicas = "replicas"
)

// DNS holds the DNS inputs of a set, in input order.
type DNS struct {
	Domains   []*Domain
	Services  []*ServiceDNSRecord
	Ingresses []*IngressDNSRecord
}

// Records says there is a record to write.
func (d DNS) Records() bool { return len(d.Services) > 0 || len(d.Ingresses) > 0 }

// Domain is the DNS zone records are written in.
type Domain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Domain is the zone ("example.com").
	Domain string `json:"domain"`
	// NameServer is the zone's authoritative name server, as KubeFed
	// recorded it; fedctl does not use it.
	NameServer string `json:"nameServer,omitempty"`
	// Spec is fedctl's: where ExternalDNS runs.
	Spec DomainSpec `json:"spec,omitempty"`

	Pos manifest.Positions `json:"-"`
}

// DomainSpec says where the DNSEndpoints of the domain go.
type DomainSpec struct {
	// Context is the member, or the kubeconfig context, where ExternalDNS
	// runs and reads DNSEndpoints; --dns-context overrides it.
	Context string `json:"context,omitempty"`
}

// ServiceDNSRecord asks for DNS names for the federated Service of the same
// namespace and name.
type ServiceDNSRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ServiceDNSSpec `json:"spec"`
	// Status is ignored (KubeFed's controllers wrote it).
	Status any `json:"status,omitempty"`

	Pos manifest.Positions `json:"-"`
}

// ServiceDNSSpec is KubeFed's ServiceDNSRecordSpec plus Weighting.
type ServiceDNSSpec struct {
	DomainRef                    string `json:"domainRef"`
	RecordTTL                    int64  `json:"recordTTL,omitempty"`
	DNSPrefix                    string `json:"dnsPrefix,omitempty"`
	ExternalName                 string `json:"externalName,omitempty"`
	AllowServiceWithoutEndpoints bool   `json:"allowServiceWithoutEndpoints,omitempty"`
	// Weighting "replicas" (fedctl's) gives each member a weighted
	// endpoint, its share of the replicas of the Deployment the Service
	// selects.
	Weighting string `json:"weighting,omitempty"`
}

// IngressDNSRecord asks for the hosts' names to point at the load balancers
// of the federated Ingress of the same namespace and name.
type IngressDNSRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              IngressDNSSpec `json:"spec"`
	Status            any            `json:"status,omitempty"`

	Pos manifest.Positions `json:"-"`
}

// IngressDNSSpec is KubeFed's IngressDNSRecordSpec.
type IngressDNSSpec struct {
	Hosts     []string `json:"hosts,omitempty"`
	RecordTTL int64    `json:"recordTTL,omitempty"`
}

// NamePrefix is what the record's DNS names start with, KubeFed's
// "SERVICE.NAMESPACE.DOMAINREF.svc" (spec.externalName for SERVICE when
// set): its global name adds the Domain's domain, its region and zone names
// the region, or the zone and region, before it.
func (r *ServiceDNSRecord) NamePrefix() string {
	return strings.Join([]string{cmp.Or(r.Spec.ExternalName, r.Name), r.Namespace, r.Spec.DomainRef, "svc"}, ".")
}

// ID and Errorf name and locate the DNS inputs in messages.
func (d *Domain) ID() string { return DomainKind + " " + d.Name }

// Errorf returns an error at field of the Domain, with its file and line.
func (d *Domain) Errorf(field, format string, args ...any) *manifest.Error {
	e := d.Pos.Errorf(field, format, args...)
	e.Object = d.ID()
	return e
}

// ID names the record in messages.
func (r *ServiceDNSRecord) ID() string {
	return ServiceDNSRecordKind + " " + r.Namespace + "/" + r.Name
}

// Errorf returns an error at field of the record, with its file and line.
func (r *ServiceDNSRecord) Errorf(field, format string, args ...any) *manifest.Error {
	e := r.Pos.Errorf(field, format, args...)
	e.Object = r.ID()
	return e
}

// ID names the record in messages.
func (r *IngressDNSRecord) ID() string {
	return IngressDNSRecordKind + " " + r.Namespace + "/" + r.Name
}

// Errorf returns an error at field of the record, with its file and line.
func (r *IngressDNSRecord) Errorf(field, format string, args ...any) *manifest.Error {
	e := r.Pos.Errorf(field, format, args...)
	e.Object = r.ID()
	return e
}
