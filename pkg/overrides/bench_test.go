package overrides_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
)

// deployment is a Deployment of typical size (about 2.5 KB of JSON) as
// rendering sees it before overrides.
const deployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "team": "storefront", "tier": "frontend"}},
  "spec": {
    "replicas": 3, "revisionHistoryLimit": 5,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
    "template": {
      "metadata": {"labels": {"app": "web", "team": "storefront", "tier": "frontend"}, "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090"}},
      "spec": {
        "serviceAccountName": "web", "terminationGracePeriodSeconds": 30,
        "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "fsGroup": 10001},
        "containers": [
          {
            "name": "web", "image": "registry.example.com/shop/web:1.42.0", "imagePullPolicy": "IfNotPresent",
            "args": ["--listen=:8080", "--metrics=:9090", "--log-format=json"],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}, {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
            "env": [
              {"name": "SHOP_REGION", "value": "global"},
              {"name": "SHOP_DB_HOST", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "db-host"}}},
              {"name": "SHOP_DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "web-db", "key": "password"}}},
              {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1"}}}
            ],
            "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "512Mi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz/ready", "port": "http"}, "initialDelaySeconds": 5, "periodSeconds": 10, "timeoutSeconds": 2, "failureThreshold": 3},
            "livenessProbe": {"httpGet": {"path": "/healthz/live", "port": "http"}, "initialDelaySeconds": 15, "periodSeconds": 20, "timeoutSeconds": 2, "failureThreshold": 3},
            "volumeMounts": [{"name": "config", "mountPath": "/etc/web", "readOnly": true}, {"name": "cache", "mountPath": "/var/cache/web"}],
            "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "capabilities": {"drop": ["ALL"]}}
          },
          {
            "name": "proxy", "image": "registry.example.com/infra/proxy:2.7.1",
            "args": ["--upstream=http://127.0.0.1:8080"],
            "ports": [{"name": "proxy", "containerPort": 8443, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"cpu": "200m", "memory": "128Mi"}}
          }
        ],
        "volumes": [{"name": "config", "configMap": {"name": "web-config"}}, {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}}],
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}}]}},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "shop", "effect": "NoSchedule"}]
      }
    }
  }
}`

// benchOverrides are two typical overrides for the benchmarked cluster, next
// to another cluster's.
var benchOverrides = []federation.ClusterOverrides{
	{ClusterName: "us-1", ClusterOverrides: []federation.Override{{Path: "/spec/replicas", Value: json.RawMessage(`6`)}}},
	{ClusterName: "eu-1", ClusterOverrides: []federation.Override{
		{Path: "/spec/replicas", Value: json.RawMessage(`5`)},
		{Path: "/spec/template/spec/containers/0/image", Value: json.RawMessage(`"registry.eu.example.com/shop/web:1.42.0"`)},
	}},
}

// BenchmarkApply measures one member object's overrides; a render of 20,000
// member objects does this 20,000 times.
func BenchmarkApply(b *testing.B) {
	obj := decodeObject(b, deployment)
	doc, err := json.Marshal(obj)
	require.NoError(b, err)
	b.Logf("object: %d bytes of JSON", len(doc))

	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := overrides.Apply(obj, "eu-1", benchOverrides); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := overrides.ApplyJSON(doc, "eu-1", benchOverrides); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("map without the fast path", func(b *testing.B) {
		// What Apply does when applyNative declines: encode, json-patch,
		// decode.
		b.ReportAllocs()
		for b.Loop() {
			enc, err := json.Marshal(obj)
			if err != nil {
				b.Fatal(err)
			}
			patched, err := overrides.ApplyJSON(enc, "eu-1", benchOverrides)
			if err != nil {
				b.Fatal(err)
			}
			var out map[string]any
			if err := utiljson.Unmarshal(patched, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("no overrides for the cluster", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := overrides.Apply(obj, "ap-1", benchOverrides); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kubefed way for comparison", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := kubefedApply(obj, benchOverrides[1].ClusterOverrides, json.Unmarshal); err != nil {
				b.Fatal(err)
			}
		}
	})
}
