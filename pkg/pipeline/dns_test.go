package pipeline_test

import (
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
