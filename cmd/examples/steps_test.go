package examples

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one --help example or README command, keyed by its exact text,
// with what it must do in the workspace; or, with setup, something the
// next examples take as given.
type step struct {
	// line is the example as --help shows it (without the indent) or the
	// README command without its trailing comment.
	line string
	// run, when set, is what runs instead of line, and why says why.
	run, why string
	code     int      // expected exit code
	out      []string // each is in stdout
	errOut   []string // each is in stderr
	check    func(t *testing.T, w *workspace, r result)

	name  string // of a setup step
	setup func(t *testing.T, w *workspace)
}

// notRun lists README commands that cannot run in the workspace, with the
// reason. Every other README command is a step.
var notRun = map[string]string{}

// steps run in this order, each in the state the previous ones left: the
// --help examples and README commands, with setup steps between them,
// grouped as join, label, get clusters, enable, render, explain, apply,
// status, get objects, diff, federate, delete, disable, unjoin. A README
// command that is also a --help example (fedctl get clusters) runs once,
// as the example.
var steps = []step{
	{line: "fedctl version", out: []string{"fedctl dev (commit unknown, built unknown, go"}},
	{line: "fedctl version -o json", check: func(t *testing.T, _ *workspace, r result) {
		var v struct{ Version, GoVersion, Platform string }
		require.NoError(t, json.Unmarshal([]byte(r.out), &v), r.out)
		assert.Equal(t, "dev", v.Version)
		assert.Equal(t, runtime.Version(), v.GoVersion)
		assert.Equal(t, runtime.GOOS+"/"+runtime.GOARCH, v.Platform)
	}},

	// join
	{line: "fedctl join eu-1 --cluster-context kind-eu-1 --label region=eu-west-1", errOut: []string{"cluster/eu-1 joined (context kind-eu-1"}},
	{line: "fedctl join us-1 --kubeconfig ~/.kube/us.yaml", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "cluster/us-1 joined (context us-1")
		assert.Contains(t, read(t, w.federationFile()), "kubeconfig: "+filepath.Join(w.dir, ".kube", "us.yaml"))
	}},
	{line: "fedctl join eu-2 --label region=eu-west-2 --dry-run=client", out: []string{"name: eu-2", "region: eu-west-2", "name: eu-1", "name: us-1"},
		check: func(t *testing.T, w *workspace, _ result) {
			assert.NotContains(t, read(t, w.federationFile()), "eu-2", "a dry run writes nothing")
		}},
	{line: "fedctl join eu-2 --provider aws --region eu-west-2 --zone eu-west-2a --zone eu-west-2b --dry-run=client",
		out: []string{"name: eu-2\n    provider: aws\n    region: eu-west-2\n    zones:\n      - eu-west-2a\n      - eu-west-2b\n"}},

	// join from Cluster API: mgmt (cluster1) manages web-1 (cluster3) and
	// web-2 (cluster2); they leave again before cordon, so that the steps
	// after see eu-1 and us-1 only
	{name: "a Cluster API management cluster mgmt with Clusters web-1 and web-2 (env=prod) in namespace capi", setup: func(t *testing.T, w *workspace) { w.clusterAPIManagement(t) }},
	{line: "fedctl join web-1 --from-capi web-1 --management-context mgmt -n capi", errOut: []string{"✓ cluster/web-1 joined (Cluster API cluster capi/web-1 in management cluster mgmt, Kubernetes v"},
		check: func(t *testing.T, w *workspace, _ result) {
			assert.Contains(t, read(t, w.federationFile()), "  - name: web-1\n    capi:\n      managementContext: mgmt\n      namespace: capi\n      cluster: web-1\n")
		}},
	{line: "fedctl join --all --from-capi --management-context mgmt -n capi -l env=prod --copy-labels",
		errOut: []string{"! cluster/web-1 skipped: already a member (Cluster API cluster capi/web-1 in management cluster mgmt); --overwrite replaces it\n", "✓ cluster/web-2 joined (Cluster API cluster capi/web-2 in management cluster mgmt, Kubernetes v"},
		check: func(t *testing.T, w *workspace, _ result) {
			assert.Contains(t, read(t, w.federationFile()), "      cluster: web-2\n    labels:\n      env: prod\n")
		}},
	{line: "fedctl get clusters -o custom-columns=NAME:.name,PHASE:.status.clusterAPI.phase", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `^NAME\s+PHASE\neu-1\s+<none>\nus-1\s+<none>\nweb-1\s+Provisioned\nweb-2\s+Provisioned\n$`, r.out)
	}},
	{name: "web-1 and web-2 leave the federation", setup: func(t *testing.T, w *workspace) { w.leaveClusterAPI(t) }},

	// cordon, uncordon
	{line: `fedctl cordon eu-1 --reason "node pool upgrade"`, errOut: []string{"cluster/eu-1 cordoned"}, check: func(t *testing.T, w *workspace, _ result) {
		assert.Contains(t, read(t, w.federationFile()), "reason: node pool upgrade")
	}},
	{line: "fedctl uncordon eu-1", errOut: []string{"cluster/eu-1 uncordoned"}, check: func(t *testing.T, w *workspace, _ result) {
		assert.NotContains(t, read(t, w.federationFile()), "cordoned:")
	}},

	// label
	{line: "fedctl label cluster eu-1 region=eu-west-1 tier=prod", check: func(t *testing.T, w *workspace, _ result) {
		assert.Contains(t, read(t, w.federationFile()), "tier: prod")
	}},
	{line: "fedctl label cluster eu-1 tier=staging region- --overwrite", check: func(t *testing.T, w *workspace, _ result) {
		f := read(t, w.federationFile())
		assert.Contains(t, f, "tier: staging")
		assert.NotContains(t, f, "region: eu-west-1")
	}},
	{line: "fedctl label cluster eu-1 --list", check: func(t *testing.T, _ *workspace, r result) {
		assert.Equal(t, "tier=staging\n", r.out)
	}},

	// get clusters: both members answer
	{line: "fedctl get clusters", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `\neu-1\s+True\s+v\d+\.\d+\.\d+\n`, r.out)
		assert.Regexp(t, `\nus-1\s+True\s+v\d+\.\d+\.\d+\n`, r.out)
	}},
	{line: "fedctl get clusters -o wide", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `\neu-1\s+True\s+\S+\s+kind-eu-1\s+tier=staging\s`, r.out)
		assert.Regexp(t, `\nus-1\s+True\s+\S+\s+us-1\s+<none>\s`, r.out)
	}},
	{line: "fedctl get clusters -o name", out: []string{"cluster/eu-1\ncluster/us-1\n"}},
	{line: "fedctl get clusters --ignore-not-ready", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `\neu-1\s+True\s`, r.out)
		assert.Regexp(t, `\nus-1\s+True\s`, r.out)
	}},
	{line: "fedctl get clusters -L region --sort-by .labels.region", check: func(t *testing.T, _ *workspace, r result) {
		// Neither member has a region label now (label cluster took eu-1's
		// away): the column is there, empty, and the order is the members'.
		assert.Regexp(t, `^NAME\s+READY\s+VERSION\s+REGION\neu-1\s+True\s+v\S+\s*\nus-1\s+True\s+v\S+\s*\n$`, r.out)
	}},

	// enable
	{name: "a CRD widgets.example.com in eu-1's cluster", setup: func(t *testing.T, w *workspace) {
		r := w.kubectl(t, "cluster1", "apply", "-f", "-", "<<'EOF'\n"+widgetCRD+"EOF")
		require.Equal(t, 0, r.code, r.errOut)
		r = w.kubectl(t, "cluster1", "wait", "--for", "condition=Established", "crd/widgets.example.com", "--timeout", "30s")
		require.Equal(t, 0, r.code, r.errOut)
	}},
	{line: "fedctl enable statefulsets", check: func(t *testing.T, w *workspace, r result) {
		assert.Equal(t, "✓ federatedtypeconfig/statefulsets.apps enabled (FederatedStatefulSet for apps/v1 StatefulSet, Namespaced)\n", r.errOut)
		assert.Contains(t, read(t, w.federationFile()), "kind: StatefulSet")
	}},
	{line: "fedctl enable widgets.example.com --cluster eu-1", check: func(t *testing.T, w *workspace, r result) {
		assert.Equal(t, "✓ federatedtypeconfig/widgets.example.com enabled (FederatedWidget for example.com/v1 Widget, Namespaced)\n", r.errOut)
		assert.Contains(t, read(t, w.federationFile()), "kind: Widget")
	}},
	{line: "fedctl enable statefulsets.apps -o yaml", out: []string{"kind: FederatedTypeConfig", "kind: CustomResourceDefinition", "FederatedStatefulSet"}},

	// render
	{line: "fedctl render -f manifests/", out: []string{"# Source: eu-1", "# Source: us-1", "region: eu-west-1", "region: us-east-1", "image: nginx:1.27-alpine"}},
	{line: "fedctl render -f manifests/ --cluster eu-1 | kubectl --context eu-1 apply -f -",
		out: []string{"namespace/shop created", "configmap/settings created", "deployment.apps/web created"}},
	{line: "fedctl render -R -f manifests/ --output-dir rendered/", check: func(t *testing.T, w *workspace, _ result) {
		for _, c := range []string{"eu-1", "us-1"} {
			assert.FileExists(t, filepath.Join(w.dir, "rendered", c, "_cluster", "namespace_shop.yaml"))
			assert.FileExists(t, filepath.Join(w.dir, "rendered", c, "shop", "configmap_settings.yaml"))
		}
		assert.Contains(t, read(t, filepath.Join(w.dir, "rendered", "eu-1", "shop", "deployment_web.yaml")), "replicas: 2")
		assert.Contains(t, read(t, filepath.Join(w.dir, "rendered", "us-1", "shop", "deployment_web.yaml")), "image: nginx:1.27-alpine")
	}},
	{line: "fedctl render -k overlays/prod", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.out, "# Source: us-1")
		assert.Equal(t, w.renderManifests(t), r.out, "the overlay labels federated objects only: the members get what manifests/ gives them")
	}},
	{line: "fedctl render -f https://example.com/shop/federated.yaml", check: func(t *testing.T, w *workspace, r result) {
		assert.Equal(t, int32(1), w.fetched.Load(), "fetched once from the local example.com")
		assert.Contains(t, r.out, "# Source: us-1")
		assert.Equal(t, w.renderManifests(t), r.out, "the same manifests, from a web server")
	}},

	// explain
	{line: "fedctl explain -f manifests/", out: []string{
		"FederatedConfigMap shop/settings", "FederatedNamespace shop/shop", "FederatedDeployment shop/web",
		`replace /data/region: "unknown" → "us-east-1"`, "→ plan: eu-1 2, us-1 1",
	}},
	{line: "fedctl explain -f manifests/ deployment/web --cluster eu-1", check: func(t *testing.T, _ *workspace, r result) {
		assert.Contains(t, r.out, "→ plan: eu-1 2, us-1 1")
		assert.Contains(t, r.out, "eu-1 (2 replicas planned):")
		assert.NotContains(t, r.out, "us-1 (1 replica planned):", "--cluster eu-1 shows eu-1's overrides only")
		assert.NotContains(t, r.out, "FederatedConfigMap", "only the object named")
	}},
	{line: "fedctl explain -f manifests/ shop/web -o json | jq '.objects[0].scheduling.plan'", check: func(t *testing.T, _ *workspace, r result) {
		assert.JSONEq(t, `[{"cluster": "eu-1", "replicas": 2}, {"cluster": "us-1", "replicas": 1}]`, r.out)
	}},

	// apply: the render example above created eu-1's objects with kubectl
	// from render's output, with fedctl's markers; fedctl takes them over
	{line: "fedctl apply -f manifests/", errOut: []string{
		"eu-1  deployment.apps/web configured", "us-1  deployment.apps/web created", "✓ cluster eu-1: 3 configured", "✓ cluster us-1: 3 created",
	}},
	{line: "fedctl apply -R -f manifests/ --cluster eu-1 --dry-run=server", check: func(t *testing.T, _ *workspace, r result) {
		assert.Equal(t, "✓ cluster eu-1: 3 unchanged (server dry run: nothing changed)\n", r.errOut)
	}},
	{line: "fedctl apply -f manifests/ -o json --wait --deadline 10m", check: func(t *testing.T, _ *workspace, r result) {
		assertApplyReport(t, r.out)
		assert.Contains(t, r.errOut, "✓ every member object is Current")
	}},
	{line: "fedctl apply -f manifests/ -o name", check: func(t *testing.T, _ *workspace, r result) {
		assert.Equal(t, "eu-1 namespace/shop\neu-1 configmap/settings\neu-1 deployment.apps/web\n"+
			"us-1 namespace/shop\nus-1 configmap/settings\nus-1 deployment.apps/web\n", r.out)
	}},
	{line: "fedctl apply -f manifests/ --prune --applyset shop -n shop", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "✓ cluster eu-1: 3 configured") // now part of the set
		for _, c := range []string{"cluster1", "cluster2"} {
			parent := w.kubectl(t, c, "get", "secret", "shop", "-n", "shop", "-o", "jsonpath='{.metadata.annotations.applyset\\.kubernetes\\.io/tooling}'")
			assert.Equal(t, 0, parent.code, parent.errOut)
			assert.True(t, strings.HasPrefix(parent.out, "fedctl/"), "%s holds the ApplySet's parent Secret shop/shop: %q", c, parent.out)
		}
	}},
	{line: "fedctl apply -k overlays/prod -l app=web", check: func(t *testing.T, _ *workspace, r result) {
		assert.Contains(t, r.errOut, "eu-1  deployment.apps/web")
		assert.Contains(t, r.errOut, "us-1  deployment.apps/web")
		assert.NotContains(t, r.errOut, "configmap/settings", "-l app=web selects the FederatedDeployment only")
	}},
	{line: "fedctl apply -f manifests/ --rollout --waves 'tier=staging;*'", errOut: []string{
		"wave 1/2 tier=staging: eu-1", "✓ wave tier=staging: Current in eu-1", "wave 2/2 *: us-1", "✓ wave *: Current in us-1",
	}},
	{line: "fedctl apply -f manifests/ --wait -o json > apply.json", check: func(t *testing.T, w *workspace, r result) {
		assert.Empty(t, r.out)
		assertApplyReport(t, read(t, filepath.Join(w.dir, "apply.json")))
	}},
	{line: "fedctl apply -f app/", errOut: []string{"✓ cluster eu-1: 3 unchanged", "✓ cluster us-1: 3 unchanged"}},

	// status: everything applied and Current, nothing drifted
	{line: "fedctl status -f manifests/", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `Deployment\s+shop\s+web\s+eu-1\s+OK\s+Current\s+2\s+2\n`, r.out)
		assert.Regexp(t, `Deployment\s+shop\s+web\s+us-1\s+OK\s+Current\s+1\s+1\n`, r.out)
		assert.Regexp(t, `ConfigMap\s+shop\s+settings\s+us-1\s+OK\s+Current`, r.out)
		assert.Contains(t, r.errOut, "3 federated objects, 6 member objects: 6 Current; propagation: 6 OK")
	}},
	{line: "fedctl status -f manifests/ -o wide --cluster eu-1", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `Deployment\s+shop\s+web\s+eu-1\s+OK\s+Current\s+2\s+2\s+.*Deployment is available`, r.out)
		assert.NotContains(t, r.out, "us-1")
	}},
	{line: "fedctl status fdeploy web -n shop", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `Deployment\s+shop\s+web\s+eu-1\s+OK\s+Current\s+2\s+2\n`, r.out)
		assert.Regexp(t, `Deployment\s+shop\s+web\s+us-1\s+OK\s+Current\s+1\s+1\n`, r.out)
		assert.NotContains(t, r.out, "ConfigMap", "one federated object")
	}},
	{line: "fedctl status -f manifests/ --wait --timeout 10m", errOut: []string{"✓ every member object is Current: 3 federated objects, 6 member objects"}},
	{line: "fedctl status -f manifests/ --exit-code", errOut: []string{"6 member objects: 6 Current; propagation: 6 OK"}},
	{line: "fedctl status -f manifests/ -o custom-columns=NAME:.metadata.name,CLUSTER:.cluster.name,READY:.cluster.readyReplicas --sort-by .cluster.readyReplicas", check: func(t *testing.T, _ *workspace, r result) {
		// Rows without ready replicas (the namespace, the ConfigMap) first,
		// then us-1's one replica, then eu-1's two.
		assert.Regexp(t, `^NAME\s+CLUSTER\s+READY\n(\S+\s+\S+\s+<none>\n){4}web\s+us-1\s+1\nweb\s+eu-1\s+2\n$`, r.out)
	}},

	// get objects
	{line: "fedctl get deployments -A", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `eu-1\s+shop\s+web\s+2/2\s`, r.out)
		assert.Regexp(t, `us-1\s+shop\s+web\s+1/1\s`, r.out)
	}},
	{line: "fedctl get cm settings -n shop --cluster eu-1 --cluster us-1", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `eu-1\s+settings\s+2\s`, r.out)
		assert.Regexp(t, `us-1\s+settings\s+2\s`, r.out)
	}},
	{line: "fedctl get deployments -n shop -o custom-columns=NAME:.metadata.name,IMAGE:.spec.template.spec.containers[0].image", check: func(t *testing.T, _ *workspace, r result) {
		assert.Regexp(t, `^CLUSTER\s+NAME\s+IMAGE\neu-1\s+web\s+nginx:\S+\nus-1\s+web\s+nginx:1\.27-alpine\n$`, r.out)
	}},

	// diff: a new key in manifests/ that apply would add (a new key: the
	// values kubectl applied in eu-1 are kubectl's too, and changing one
	// is a conflict until --force-conflicts)
	{name: "settings gets a new key in manifests/", setup: func(t *testing.T, w *workspace) {
		path := filepath.Join(w.dir, "manifests", "10-settings.yaml")
		write(t, path, strings.Replace(read(t, path), "      greeting: hello\n", "      greeting: hello\n      theme: dark\n", 1))
	}},
	{line: "fedctl diff -f manifests/", code: 1, check: func(t *testing.T, _ *workspace, r result) {
		assert.Contains(t, r.out, "/LIVE/eu-1_v1.ConfigMap.shop.settings")
		assert.Contains(t, r.out, "/LIVE/us-1_v1.ConfigMap.shop.settings")
		assert.Equal(t, 2, strings.Count(r.out, "\n+  theme: dark\n"), "the new key, in each member")
	}},
	{line: `KUBECTL_EXTERNAL_DIFF="colordiff -N -u" fedctl diff -f manifests/ --cluster eu-1 --prune --applyset shop`, code: 1, check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.out, "/LIVE/eu-1_v1.ConfigMap.shop.settings")
		assert.Contains(t, r.out, "theme: dark")
		assert.NotContains(t, r.out, "us-1")
		assert.Contains(t, r.errOut, "ApplySet shop: using namespace shop")
		if w.colordiffLog != "" {
			assert.Regexp(t, `^-N -u \S+/LIVE \S+/MERGED\n$`, read(t, w.colordiffLog), "fedctl ran colordiff with its arguments")
		}
	}},
	{name: "manifests/ as applied", setup: func(t *testing.T, w *workspace) {
		write(t, filepath.Join(w.dir, "manifests", "10-settings.yaml"), manifests["10-settings.yaml"])
	}},

	// federate
	{line: "fedctl federate -f deploy.yaml > federated.yaml", check: func(t *testing.T, w *workspace, r result) {
		assert.Empty(t, r.out)
		f := read(t, filepath.Join(w.dir, "federated.yaml"))
		assert.Contains(t, f, "kind: FederatedDeployment\nmetadata:\n  name: api\n  namespace: shop\n")
		assert.Contains(t, f, "image: registry.example.com/shop/api:1.0")
		assert.NotContains(t, f, "status:", "the template drops status")
	}},
	{name: "plain/, a kustomization of deploy.yaml with a name prefix", setup: func(t *testing.T, w *workspace) {
		write(t, filepath.Join(w.dir, "plain", "deploy.yaml"), plainDeployment)
		write(t, filepath.Join(w.dir, "plain", "kustomization.yaml"), "namePrefix: prod-\nresources: [deploy.yaml]\n")
	}},
	{line: "fedctl federate -k plain/ > federated.yaml", check: func(t *testing.T, w *workspace, r result) {
		assert.Empty(t, r.out)
		f := read(t, filepath.Join(w.dir, "federated.yaml"))
		assert.Contains(t, f, "kind: FederatedDeployment\nmetadata:\n  name: prod-api\n  namespace: shop\n")
	}},
	{line: "fedctl federate deployments web -n shop --cluster eu-1", check: func(t *testing.T, _ *workspace, r result) {
		assert.Contains(t, r.out, "kind: FederatedDeployment\nmetadata:\n  name: web\n  namespace: shop\n")
		assert.Contains(t, r.out, "replicas: 2", "eu-1's Deployment")
	}},
	{line: "fedctl federate namespace shop --contents", check: func(t *testing.T, _ *workspace, r result) {
		for _, want := range []string{"kind: FederatedNamespace\nmetadata:\n  name: shop\n", "kind: FederatedConfigMap\nmetadata:\n  name: settings\n", "kind: FederatedDeployment\nmetadata:\n  name: web\n"} {
			assert.Contains(t, r.out, want)
		}
		assert.Contains(t, r.errOut, "ConfigMap shop/kube-root-ca.crt left out")
		assert.Contains(t, r.errOut, "Secret shop/shop left out: it is the parent of ApplySet", "apply --prune --applyset shop's bookkeeping")
		assert.NotContains(t, r.out, "kind: FederatedSecret")
	}},
	{line: "fedctl federate -f manifests/ --to karmada > karmada.yaml", check: func(t *testing.T, w *workspace, r result) {
		assert.Empty(t, r.out)
		f := read(t, filepath.Join(w.dir, "karmada.yaml"))
		assert.Contains(t, f, "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n")
		assert.Contains(t, f, "conflictResolution: Overwrite")
		assert.NotContains(t, f, "types.kubefed.io", "plain manifests, no federated objects")
	}},

	// convert: Karmada and Argo CD input from manifests/
	{line: "fedctl convert --to karmada -f manifests/ --output-dir karmada/ --verify", check: func(t *testing.T, w *workspace, r result) {
		assert.Empty(t, r.out)
		assert.Contains(t, r.errOut, "verified: read back as karmada input, the output renders every member object as the input does")
		assert.Contains(t, r.errOut, "karmadactl join eu-1 --cluster-context kind-eu-1")
		assert.Contains(t, read(t, filepath.Join(w.dir, "karmada", "shop", "propagationpolicy_deployment-web.yaml")), "staticWeightList")
		assert.Contains(t, read(t, filepath.Join(w.dir, "karmada", "join-clusters.sh")), "karmadactl join us-1")
	}},
	{line: "fedctl convert --to karmada -f manifests/ -o json", check: func(t *testing.T, _ *workspace, r result) {
		var rep struct {
			Kind         string
			Items        []map[string]any
			Approximated []any
		}
		require.NoError(t, json.Unmarshal([]byte(r.out), &rep), r.out)
		assert.Equal(t, "ConversionReport", rep.Kind)
		assert.NotEmpty(t, rep.Items)
		assert.Empty(t, rep.Approximated)
	}},
	{line: "fedctl convert --to argocd -f manifests/ --repo https://git.example.com/shop.git --path deploy --output-dir deploy/", check: func(t *testing.T, w *workspace, r result) {
		appSet := read(t, filepath.Join(w.dir, "deploy", "applicationset.yaml"))
		assert.Contains(t, appSet, "repoURL: https://git.example.com/shop.git")
		assert.Contains(t, appSet, "path: deploy/eu-1")
		assert.Contains(t, appSet, "ServerSideApply=true")
		assert.Contains(t, read(t, filepath.Join(w.dir, "deploy", "us-1", "shop", "deployment_web.yaml")), "image: nginx:1.27-alpine")
		assert.Contains(t, r.errOut, "argocd cluster add kind-eu-1 --name eu-1 --yes")
	}},

	// release, as a server-side dry run: later examples still use manifests/
	{line: "fedctl release -f manifests/", run: "fedctl release -f manifests/ --dry-run=server", why: "the examples after it still need fedctl to own manifests/",
		errOut: []string{"cluster eu-1: 3 objects released", "cluster us-1: 3 objects released"}},
	{line: "fedctl release -f manifests/ --applyset shop -n shop", run: "fedctl release -f manifests/ --applyset shop -n shop --dry-run=server", why: "the examples after it still need fedctl to own manifests/",
		errOut: []string{"cluster eu-1: 3 objects released; ApplySet parent Secret shop/shop removed", "cluster us-1: 3 objects released; ApplySet parent Secret shop/shop removed"}},

	// dns: a Service with a load balancer in each member, a Domain and a
	// ServiceDNSRecord in dns/ (manifests/ has no DNS records)
	{name: "dns/: the Service web behind a load balancer in eu-1 and us-1, whose nodes say where they are", setup: func(t *testing.T, w *workspace) {
		for name, doc := range dnsFiles {
			write(t, filepath.Join(w.dir, "dns", name), doc)
		}
		for cluster, where := range map[string][3]string{"cluster1": {"eu-west-1", "eu-west-1a", "192.0.2.1"}, "cluster2": {"us-east-1", "us-east-1a", "198.51.100.2"}} {
			r := w.kubectl(t, cluster, "label", "node", "--all", "--overwrite", "topology.kubernetes.io/region="+where[0], "topology.kubernetes.io/zone="+where[1])
			require.Equal(t, 0, r.code, r.errOut)
			r = w.kubectl(t, cluster, "apply", "-f", "-", "<<'EOF'\n"+dnsService+"EOF")
			require.Equal(t, 0, r.code, r.errOut)
			r = w.kubectl(t, cluster, "patch", "service", "web", "-n", "shop", "--subresource=status", "--type=merge", "-p", `'{"status":{"loadBalancer":{"ingress":[{"ip":"`+where[2]+`"}]}}}'`)
			require.Equal(t, 0, r.code, r.errOut)
		}
	}},
	{line: "fedctl dns -f manifests/", run: "fedctl dns -f dns/", why: "manifests/ has no DNS records; dns/ adds a Service, a Domain and a ServiceDNSRecord",
		out: []string{"kind: DNSEndpoint", "name: service-web", "dnsName: web.shop.example.svc.example.com", "- 192.0.2.1", "- 198.51.100.2"}},
	{line: "fedctl dns -f manifests/ --why", run: "fedctl dns -f dns/ --why", why: "as above",
		out: []string{"eu-1 (region eu-west-1, zones eu-west-1a): 192.0.2.1: the Service's load balancer", "A web.shop.example.svc.example.com → 192.0.2.1, 198.51.100.2"}},

	// drain
	{line: "fedctl drain eu-1 -f manifests/ --dry-run=client --force", errOut: []string{"drain of eu-1 fits (dry run): nothing was changed"}, check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.out, "FederatedDeployment shop/web   us-1   +2", "eu-1's replicas move to us-1")
		assert.Regexp(t, `us-1\s+cpu\s+0\s+32\s+yes`, r.out)
		assert.NotContains(t, read(t, w.federationFile()), "cordoned:", "a dry run cordons nothing")
	}},
	{line: "fedctl drain eu-1 -f manifests/ --degrade --dry-run --force", errOut: []string{"drain of eu-1 fits (dry run): nothing was changed"}, check: func(t *testing.T, w *workspace, r result) {
		assert.NotContains(t, r.out, "DEGRADED", "us-1 has room: nothing is scaled down")
	}},

	// migrate, and back
	{line: "fedctl migrate --from eu-1 --to us-1 -l app=web -f manifests/", errOut: []string{
		"migration eu-1 → us-1 (-l app=web) recorded in the federation file", "every moved object is Current in us-1", "cluster/eu-1 migrated: 1 objects removed",
	}, check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.out, "FederatedDeployment shop/web   us-1   +2")
		assert.Contains(t, read(t, w.federationFile()), "selector: app=web")
	}},
	{line: "fedctl migrate --from us-1 --to eu-1 -l app=web -f manifests/", errOut: []string{
		"migration eu-1 → us-1 (-l app=web) removed from the federation file", "every moved object is Current in eu-1",
	}, check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.out, "FederatedDeployment shop/web   eu-1   +2")
		assert.NotContains(t, read(t, w.federationFile()), "migrations:")
	}},

	// unjoin, without removing eu-1 yet: what would stay there
	{line: "fedctl unjoin eu-1 --dry-run=client", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "cluster/eu-1 would be unjoined; dry run")
		assert.Contains(t, r.errOut, "fedctl's ApplySet parents left in cluster eu-1 (secrets, bookkeeping of apply --prune --applyset): shop/shop\n  kubectl --context kind-eu-1 delete secret -n shop shop\n",
			"the parent apply --prune --applyset shop made has no managed-by label, and is listed apart")
		assert.Contains(t, r.errOut, "deployments.apps: shop/web")
		assert.Contains(t, r.errOut, "configmaps: shop/settings")
		assert.Contains(t, read(t, w.federationFile()), "name: eu-1")
	}},

	// delete
	{line: "fedctl delete -f manifests/ --cluster eu-1 --dry-run=server", check: func(t *testing.T, _ *workspace, r result) {
		assert.Contains(t, r.errOut, "eu-1  deployment.apps/web deleted (server dry run)")
		assert.Contains(t, r.errOut, "✓ cluster eu-1: 3 deleted (server dry run: nothing changed)")
		assert.NotContains(t, r.errOut, "us-1")
	}},
	{line: "fedctl delete -f manifests/", errOut: []string{"eu-1  deployment.apps/web deleted", "us-1  namespace/shop deleted", "✓ cluster eu-1: 3 deleted", "✓ cluster us-1: 3 deleted"}},
	{name: "namespace shop is gone, and manifests/ applied again", setup: func(t *testing.T, w *workspace) {
		w.namespaceGone(t, "shop")
		r := w.sh(t, "fedctl apply -f manifests/ --wait", nil)
		require.Equal(t, 0, r.code, r.errOut)
	}},
	{line: "fedctl delete -f manifests/ -o name --deadline 5m", check: func(t *testing.T, _ *workspace, r result) {
		assert.Equal(t, "eu-1 deployment.apps/web\neu-1 configmap/settings\neu-1 namespace/shop\n"+
			"us-1 deployment.apps/web\nus-1 configmap/settings\nus-1 namespace/shop\n", r.out)
	}},
	{name: "namespace shop is gone", setup: func(t *testing.T, w *workspace) {
		w.namespaceGone(t, "shop")
	}},

	// disable
	{line: "fedctl disable statefulsets.apps", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "✓ federatedtypeconfig/statefulsets.apps disabled")
		assert.NotContains(t, read(t, w.federationFile()), "StatefulSet")
	}},
	{line: "fedctl disable jobs --force", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "✓ federatedtypeconfig/jobs.batch disabled")
		assert.Contains(t, read(t, w.federationFile()), "jobs.batch")
	}},

	// unjoin
	{line: "fedctl unjoin eu-1", check: func(t *testing.T, w *workspace, r result) {
		assert.Contains(t, r.errOut, "✓ cluster/eu-1 unjoined")
		assert.Contains(t, r.errOut, "no objects managed by the federation remain in cluster eu-1")
		assert.NotContains(t, read(t, w.federationFile()), "name: eu-1")
	}},

	// README's install section
	{line: "fedctl completion bash > /etc/bash_completion.d/fedctl", run: "mkdir -p bash_completion.d && fedctl completion bash > bash_completion.d/fedctl",
		why: "the test writes nothing outside its workspace", check: func(t *testing.T, w *workspace, _ result) {
			assert.Contains(t, read(t, filepath.Join(w.dir, "bash_completion.d", "fedctl")), "__start_fedctl")
		}},
}

// assertApplyReport checks apply -o json --wait's report: every object of
// manifests/ in both members, and the wait's verdict.
func assertApplyReport(t *testing.T, doc string) {
	t.Helper()
	var report struct {
		Clusters []struct {
			Cluster string
			Objects []struct{ Kind, Name, Action string }
		}
		Wait struct{ Ready, TimedOut, Failed bool }
	}
	require.NoError(t, json.Unmarshal([]byte(doc), &report), doc)
	require.Len(t, report.Clusters, 2, doc)
	for i, c := range []string{"eu-1", "us-1"} {
		assert.Equal(t, c, report.Clusters[i].Cluster)
		assert.Len(t, report.Clusters[i].Objects, 3, "%s: namespace, configmap, deployment", c)
	}
	assert.True(t, report.Wait.Ready, "wait.ready")
	assert.False(t, report.Wait.TimedOut || report.Wait.Failed, "wait.timedOut, wait.failed")
}

// renderManifests is render's output for manifests/.
func (w *workspace) renderManifests(t *testing.T) string {
	t.Helper()
	r := w.sh(t, "fedctl render -f manifests/", nil)
	require.Equal(t, 0, r.code, r.errOut)
	return r.out
}

// namespaceGone waits until the namespace is gone from cluster1 and
// cluster2, the clusters of eu-1 and us-1.
func (w *workspace) namespaceGone(t *testing.T, ns string) {
	t.Helper()
	for _, c := range []string{"cluster1", "cluster2"} {
		r := w.kubectl(t, c, "wait", "--for=delete", "namespace/"+ns, "--timeout=60s")
		require.Equal(t, 0, r.code, "%s: %s", c, r.errOut)
	}
}

// federationFile is the default federation file, which the examples use.
func (w *workspace) federationFile() string {
	return filepath.Join(w.dir, ".config", "fedctl", "config.yaml")
}
