package pipeline_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestDNSInputErrors: DNS inputs are read strictly, in either KubeFed
// group, and what they refer to is checked, every problem at its line.
func TestDNSInputErrors(t *testing.T) {
	docs, err := manifest.Split("in.yaml", []byte(`apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata: {name: example}
domain: Example_Com
---
apiVersion: multiclusterdns.kubefed.k8s.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: shop}
spec: {domainRef: nowhere, weighting: traffic, recordTTL: -1}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: api, namespace: shop}
spec: {domainRef: example, dnsPrefx: api}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: IngressDNSRecord
metadata: {name: front, namespace: shop}
spec: {hosts: ["*.shop.example.com", "bad host"]}
---
apiVersion: multiclusterdns.kubefed.io/v1beta1
kind: Domain
metadata: {name: other}
domain: other.com
`))
	require.NoError(t, err)
	_, err = pipeline.Decode(docs, typeconfig.Builtin(), "default", nil)
	require.Error(t, err)
	for _, want := range []string{
		`in.yaml:4: Domain example: domain: "Example_Com": a lowercase RFC 1123 subdomain must consist of`,
		`in.yaml:9: ServiceDNSRecord shop/web: spec.recordTTL: must not be negative, got -1`,
		`in.yaml:9: ServiceDNSRecord shop/web: spec.weighting: must be "replicas" (each member weighted by its replicas) or left out, got "traffic"`,
		`in.yaml:14: ServiceDNSRecord shop/api: spec: unknown field "dnsPrefx" (did you mean "dnsPrefix"?)`,
		`in.yaml:19: IngressDNSRecord shop/front: spec.hosts[1]: "bad host": a lowercase RFC 1123 subdomain`,
		`in.yaml:21: Domain other: apiVersion: multiclusterdns.kubefed.io/v1beta1 is not a version fedctl reads`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "*.shop.example.com", "a wildcard host is fine")

	docs, err = manifest.Split("in.yaml", []byte(`apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: shop}
spec: {domainRef: nowhere}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: IngressDNSRecord
metadata: {name: front, namespace: shop}
spec: {hosts: [shop.example.com]}
`))
	require.NoError(t, err)
	_, err = pipeline.Decode(docs, typeconfig.Builtin(), "default", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in.yaml:4: ServiceDNSRecord shop/web: spec.domainRef: no Domain nowhere in the input")
	assert.Contains(t, err.Error(), "in.yaml:3: ServiceDNSRecord shop/web: metadata.name: no FederatedService shop/web in the input: a record names the Service it is for")
	assert.Contains(t, err.Error(), "in.yaml:8: IngressDNSRecord shop/front: metadata.name: no FederatedIngress shop/front in the input")
}

// TestDNSNamesWrittenTwice: a DNS name two records write, where the input
// alone decides it (a Service record's global or dnsPrefix name, an Ingress
// host), is an error at the second record, naming the first, before any
// member is read; a record's own names may repeat.
func TestDNSNamesWrittenTwice(t *testing.T) {
	docs, err := manifest.Split("in.yaml", []byte(`apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata: {name: example}
domain: example.com
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: web, namespace: shop}
spec: {template: {spec: {ports: [{port: 80}]}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: api, namespace: shop}
spec: {template: {spec: {ports: [{port: 80}]}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedIngress
metadata: {name: front, namespace: shop}
spec: {template: {spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}}}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: shop}
spec: {domainRef: example, dnsPrefix: shop}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: api, namespace: shop}
spec: {domainRef: example, externalName: web, dnsPrefix: api}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: IngressDNSRecord
metadata: {name: front, namespace: shop}
spec: {hosts: [www.example.com, shop.example.com, www.example.com]}
`))
	require.NoError(t, err)
	_, err = pipeline.Decode(docs, typeconfig.Builtin(), "default", nil)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "in.yaml:29: ServiceDNSRecord shop/api: spec.externalName: writes the DNS name web.shop.example.svc.example.com, which ServiceDNSRecord shop/web (in.yaml:21) writes too; give one of them another")
	assert.Contains(t, msg, "in.yaml:34: IngressDNSRecord shop/front: spec.hosts[1]: writes the DNS name shop.example.com, which ServiceDNSRecord shop/web (in.yaml:21) writes too")
	assert.NotContains(t, msg, "www.example.com", "a record's own names may repeat")
	assert.NotContains(t, msg, "api.example.com")
	assert.Equal(t, 2, strings.Count(msg, "writes the DNS name"), msg)
}
