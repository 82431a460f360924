package pipeline_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// The benchmark corpus is the one of the engine issue's performance
// requirement: N FederatedDeployments, every other one with a
// ReplicaSchedulingPreference, each with two overrides, a third placed by a
// label selector (the others by a list of clusters or by {}), and one
// FederatedNamespace for all of them, rendered for a federation of ten
// members. It is generated, not checked in, and depends on N alone: the same
// N always gives the same bytes.

// corpusNamespace holds every generated object.
const corpusNamespace = "bench"

// corpusMember is a member of the generated federation.
type corpusMember struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// corpusMembers are the ten members, sorted by name as members.Load sorts
// them. Their labels give the selectors below something to choose from.
var corpusMembers = func() []corpusMember {
	var out []corpusMember
	for _, r := range []struct{ region, provider string }{
		{"ap-south-1", "aws"}, {"ap-southeast-1", "gcp"}, {"eu-central-1", "aws"}, {"eu-north-1", "gcp"}, {"eu-west-1", "aws"},
		{"eu-west-2", "azure"}, {"sa-east-1", "aws"}, {"us-central-1", "gcp"}, {"us-east-1", "aws"}, {"us-west-2", "azure"},
	} {
		tier := "prod"
		if r.region == "eu-north-1" || r.region == "sa-east-1" {
			tier = "staging"
		}
		out = append(out, corpusMember{Name: r.region, Labels: map[string]string{
			"region":   r.region,
			"area":     strings.SplitN(r.region, "-", 2)[0],
			"provider": r.provider,
			"tier":     tier,
		}})
	}
	return out
}()

func memberName(i int) string { return corpusMembers[((i%10)+10)%10].Name }

// corpusFederation is the federation file for the corpus.
func corpusFederation() []byte {
	data, err := yaml.Marshal(map[string]any{
		"apiVersion": "fedctl.io/v1alpha1",
		"kind":       "Federation",
		"clusters":   corpusMembers,
		"types":      []any{},
	})
	if err != nil {
		panic(err)
	}
	return data
}

// corpusFiles returns the corpus as files (relative path to content): one
// FederatedNamespace file and one file per FederatedDeployment holding it
// and its preference, if any. Documents are YAML, written the way people
// write them (block style, comments, unquoted where YAML allows).
func corpusFiles(deployments int) map[string][]byte {
	files := map[string][]byte{
		"00-namespace.yaml": []byte(`# Every benchmark object lives here, in every member.
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata:
  name: bench
  namespace: bench
spec:
  template:
    metadata:
      labels:
        team: bench
  placement:
    clusterSelector: {}
`),
	}
	for i := range deployments {
		var b strings.Builder
		b.WriteString(federatedDeployment(i))
		if i%2 == 0 {
			b.WriteString("---\n")
			b.WriteString(preference(i))
		}
		files[fmt.Sprintf("app-%05d.yaml", i)] = []byte(b.String())
	}
	return files
}

// corpusDocs returns the documents of the corpus in the order the engine
// reads them (lexical file order).
func corpusDocs(deployments int) [][]byte {
	files := corpusFiles(deployments)
	var docs [][]byte
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for _, d := range strings.Split(string(files[name]), "---\n") {
			if strings.TrimSpace(d) != "" {
				docs = append(docs, []byte(d))
			}
		}
	}
	return docs
}

// writeCorpus writes the corpus under dir: dir/manifests/... and
// dir/federation.yaml. It returns the manifests directory and the
// federation file.
func writeCorpus(tb testing.TB, dir string, deployments int) (manifests, federation string) {
	tb.Helper()
	manifests = filepath.Join(dir, "manifests")
	for name, data := range corpusFiles(deployments) {
		p := filepath.Join(manifests, name)
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, data, 0o644))
	}
	federation = filepath.Join(dir, "federation.yaml")
	require.NoError(tb, os.WriteFile(federation, corpusFederation(), 0o644))
	return manifests, federation
}

// TestWriteBenchCorpus writes the corpus for "make bench" and for profiling
// the binary by hand:
//
//	FEDCTL_BENCH_CORPUS=/tmp/corpus FEDCTL_BENCH_SIZE=2000 go test ./pkg/engine -run TestWriteBenchCorpus
//	fedctl render -f /tmp/corpus/manifests --config /tmp/corpus/federation.yaml
func TestWriteBenchCorpus(t *testing.T) {
	dir := os.Getenv("FEDCTL_BENCH_CORPUS")
	if dir == "" {
		t.Skip("set FEDCTL_BENCH_CORPUS=DIR (and FEDCTL_BENCH_SIZE, default 2000) to write the benchmark corpus")
	}
	n := 2000
	if s := os.Getenv("FEDCTL_BENCH_SIZE"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "FEDCTL_BENCH_SIZE")
	}
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "manifests")))
	manifests, federation := writeCorpus(t, dir, n)
	t.Logf("wrote %d FederatedDeployments to %s and the federation to %s", n, manifests, federation)
}

// federatedDeployment is deployment i: a Deployment of realistic size (three
// containers with env, resources, probes and mounts), placed by selector,
// list or {} in turn, with two overrides.
func federatedDeployment(i int) string {
	name := fmt.Sprintf("app-%05d", i)
	team := []string{"storefront", "payments", "search", "identity", "platform"}[i%5]
	replicas := 2 + i%7
	version := fmt.Sprintf("1.%d.%d", i%40, i%13)
	return fmt.Sprintf(`# %[1]s, owned by %[2]s.
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: %[1]s
  namespace: bench
  labels:
    team: %[2]s
spec:
  template:
    metadata:
      labels:
        app: %[1]s
        team: %[2]s
        tier: backend
    spec:
      replicas: %[3]d
      revisionHistoryLimit: 5
      selector:
        matchLabels:
          app: %[1]s
      strategy:
        type: RollingUpdate
        rollingUpdate:
          maxSurge: 25%%
          maxUnavailable: 0
      template:
        metadata:
          labels:
            app: %[1]s
            team: %[2]s
            version: "%[4]s"
          annotations:
            prometheus.io/scrape: "true"
            prometheus.io/port: "9090"
        spec:
          serviceAccountName: %[1]s
          terminationGracePeriodSeconds: 30
          securityContext:
            runAsNonRoot: true
            runAsUser: 10001
            fsGroup: 10001
          containers:
          - name: app
            image: registry.example.com/%[2]s/%[1]s:%[4]s
            imagePullPolicy: IfNotPresent
            args: ["--listen=:8080", "--metrics=:9090", "--log-level=info"]
            ports:
            - {name: http, containerPort: 8080, protocol: TCP}
            - {name: metrics, containerPort: 9090, protocol: TCP}
            env:
            - name: APP_NAME
              value: %[1]s
            - name: LOG_FORMAT
              value: json
            - name: CACHE_TTL
              value: "%[5]ds"
            - name: DB_HOST
              valueFrom:
                configMapKeyRef: {name: %[1]s-config, key: db-host}
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef: {name: %[1]s-db, key: password}
            resources:
              requests: {cpu: %[6]dm, memory: %[7]dMi}
              limits: {cpu: "1", memory: %[8]dMi}
            readinessProbe:
              httpGet: {path: /healthz/ready, port: http}
              initialDelaySeconds: 5
              periodSeconds: 10
            volumeMounts:
            - {name: config, mountPath: /etc/%[1]s, readOnly: true}
            - {name: cache, mountPath: /var/cache/%[1]s}
            securityContext:
              allowPrivilegeEscalation: false
              readOnlyRootFilesystem: true
              capabilities:
                drop: [ALL]
          - name: proxy
            image: registry.example.com/infra/proxy:2.7.%[9]d
            args: [--upstream=http://127.0.0.1:8080]
            ports:
            - {name: https, containerPort: 8443, protocol: TCP}
            resources:
              requests: {cpu: 50m, memory: 64Mi}
              limits: {cpu: 200m, memory: 128Mi}
            volumeMounts:
            - {name: tls, mountPath: /etc/tls, readOnly: true}
          volumes:
          - name: config
            configMap: {name: %[1]s-config}
          - name: cache
            emptyDir: {sizeLimit: 1Gi}
          - name: tls
            secret: {secretName: %[1]s-tls}
          tolerations:
          - {key: dedicated, operator: Equal, value: %[2]s, effect: NoSchedule}
%[10]s%[11]s`, name, team, replicas, version, 30+i%90, 100+10*(i%20), 128+64*(i%8), 256+128*(i%8), i%10,
		placementOf(i), overridesOf(i))
}

// placementOf places deployment i by label selector (i%3 == 0), by a list of
// clusters (i%3 == 1) or in every member ({}, i%3 == 2).
func placementOf(i int) string {
	switch i % 3 {
	case 0:
		if i%2 == 0 {
			return "  placement:\n    clusterSelector:\n      matchLabels:\n        tier: prod\n"
		}
		return "  placement:\n    clusterSelector:\n      matchExpressions:\n      - {key: area, operator: In, values: [eu, us]}\n"
	case 1:
		var b strings.Builder
		b.WriteString("  placement:\n    clusters:\n")
		for k := range 6 + i%5 {
			fmt.Fprintf(&b, "    - name: %s\n", memberName(i+k))
		}
		return b.String()
	default:
		return "  placement:\n    clusterSelector: {}\n"
	}
}

// overridesOf gives deployment i another image in one member and a label,
// a pod annotation or an extra variable in another.
func overridesOf(i int) string {
	var second string
	switch i % 3 {
	case 0:
		second = "    - op: add\n      path: /metadata/labels/canary\n      value: \"true\"\n"
	case 1:
		second = "    - op: add\n      path: /spec/template/metadata/annotations/example.com~1rollout\n      value: slow\n"
	default:
		second = "    - op: add\n      path: /spec/template/spec/containers/0/env/-\n      value: {name: REGION_HINT, value: nearest}\n"
	}
	return fmt.Sprintf(`  overrides:
  - clusterName: %s
    clusterOverrides:
    - path: /spec/template/spec/containers/0/image
      value: registry.example.com/mirror/app-%05d:canary
  - clusterName: %s
    clusterOverrides:
%s`, memberName(i+1), i, memberName(i+4), second)
}

// preference is the ReplicaSchedulingPreference of deployment i, with
// weights, minimums and maximums varied.
func preference(i int) string {
	var clusters string
	switch (i / 2) % 4 { // i is even
	case 0:
		clusters = "    \"*\":\n      weight: 1\n"
	case 1:
		clusters = fmt.Sprintf("    %s:\n      weight: 3\n      minReplicas: 2\n    \"*\":\n      weight: 1\n      maxReplicas: 4\n", memberName(i))
	case 2:
		clusters = fmt.Sprintf("    %s:\n      weight: 2\n    %s:\n      weight: 2\n      maxReplicas: 3\n    \"*\":\n      weight: 1\n      minReplicas: 1\n", memberName(i+2), memberName(i+5))
	default:
		clusters = fmt.Sprintf("    %s:\n      minReplicas: 4\n      weight: 1\n    \"*\":\n      weight: 2\n", memberName(i+7))
	}
	intersect := ""
	if i%3 == 0 && (i/2)%4 == 0 {
		intersect = "  intersectWithClusterSelector: true\n"
	}
	return fmt.Sprintf(`apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: app-%05d
  namespace: bench
spec:
  targetKind: FederatedDeployment
  totalReplicas: %d
  rebalance: %t
%s  clusters:
%s`, i, 10+i%31, i%8 == 0, intersect, clusters)
}
