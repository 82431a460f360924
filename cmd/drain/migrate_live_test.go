package drain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// shop is a FederatedNamespace; a Deployment labelled app=web split 2/2/2
// by an RSP; a ConfigMap app=web in every member; one app=web pinned to
// cluster2 by a clusters list; and a ConfigMap app=db in every member.
func shop(ns string) string {
	return fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %[1]s, namespace: %[1]s}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: %[1]s, labels: {app: web}}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: 100m}}}]
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: %[1]s}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: web-config, namespace: %[1]s, labels: {app: web}}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: web-local, namespace: %[1]s, labels: {app: web}}
spec:
  template: {data: {k: v}}
  placement:
    clusters: [{name: cluster2}]
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: db-config, namespace: %[1]s, labels: {app: db}}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`, ns)
}

func (d *drainEnv) migrate(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams:  ios,
		Federation: func() (*members.File, error) { return members.Load(d.fedPath) },
		Access:     func() (members.Access, error) { return members.Access{Kubeconfig: env.Kubeconfig}, nil },
	}
	cmd := NewCmdMigrate(f, nil)
	cmd.SetArgs(append([]string{"-f", filepath.Join(d.dir, "app")}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	t.Logf("fedctl migrate %v\nstdout:\n%s\nstderr:\n%s", args, out.String(), errOut.String())
	return out.String(), errOut.String(), err
}

func configMapIn(t *testing.T, cluster, ns, name string) bool {
	t.Helper()
	_, err := env.Dynamic(t, cluster).Resource(configMaps).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

func migrations(t *testing.T, path string) map[string][]members.Migration {
	t.Helper()
	file, err := members.Load(path)
	require.NoError(t, err)
	out := map[string][]members.Migration{}
	for _, m := range file.Federation.Clusters {
		if len(m.Migrations) > 0 {
			out[m.Name] = m.Migrations
		}
	}
	return out
}

// TestMigrate: the app=web objects move from cluster2 to cluster3 (which
// takes cluster2's 2 replicas on top of its own 2), after a capacity
// check; app=db stays, and so does the Namespace. The migration stays in
// the federation file, so a plain apply keeps them where they went;
// migrating back removes it and restores 2/2/2.
func TestMigrate(t *testing.T) {
	const ns = "migrate"
	d := newDrainEnv(t, shop(ns))
	move := []string{"--from", "cluster2", "--to", "cluster3", "-l", "app=web"}

	_, _, err := d.migrate(t, "--from", "cluster2", "--to", "cluster3", "-l", "app=nothing")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no federated object of the input matches -l app=nothing")

	_, _, err = d.migrate(t, move...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "objects pinned to cluster2 by spec.placement.clusters block the migrate")
	assert.Contains(t, err.Error(), "app.yaml:41: FederatedConfigMap migrate/web-local")
	assert.Empty(t, migrations(t, d.fedPath), "nothing recorded")

	out, errOut, err := d.migrate(t, append(move, "--force", "--dry-run")...)
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "FederatedDeployment migrate/web   cluster3   +2")
	assert.Regexp(t, `cluster3\s+cpu\s+200m\s+\S+\s+yes`, out)
	assert.Contains(t, errOut, "migrate of cluster2 fits (dry run): nothing was changed")
	assert.Empty(t, migrations(t, d.fedPath))
	n, _ := replicasIn(t, "cluster2", ns)
	assert.Equal(t, int64(2), n, "a dry run changes nothing")

	_, errOut, err = d.migrate(t, append(move, "--force")...)
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "migration cluster2 → cluster3 (-l app=web) recorded in the federation file")
	assert.Contains(t, errOut, "every moved object is Current in cluster3")
	assert.Contains(t, errOut, "cluster/cluster2 migrated: 3 objects removed")
	check := func(what string) {
		t.Helper()
		for c, want := range map[string]int64{"cluster1": 2, "cluster3": 4} {
			n, _ := replicasIn(t, c, ns)
			assert.Equal(t, want, n, "%s: web in %s", what, c)
		}
		_, ok := replicasIn(t, "cluster2", ns)
		assert.False(t, ok, "%s: web left cluster2", what)
		assert.False(t, configMapIn(t, "cluster2", ns, "web-config"), what)
		assert.False(t, configMapIn(t, "cluster2", ns, "web-local"), what)
		assert.True(t, configMapIn(t, "cluster3", ns, "web-config"), what)
		assert.True(t, configMapIn(t, "cluster3", ns, "web-local"), "%s: the pinned object went with --force", what)
		assert.True(t, configMapIn(t, "cluster2", ns, "db-config"), "%s: app=db stays", what)
	}
	check("after migrate")
	got := migrations(t, d.fedPath)
	require.Len(t, got["cluster2"], 1)
	assert.Equal(t, "app=web", got["cluster2"][0].Selector)
	assert.Equal(t, "cluster3", got["cluster2"][0].To)

	d.apply(t)
	check("after a plain apply")

	_, _, err = d.drainCluster(t, "cluster3", "--dry-run")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster cluster3 is the destination of migrations (from cluster2 -l app=web)")

	_, errOut, err = d.migrate(t, "--from", "cluster3", "--to", "cluster2", "-l", "app=web", "--force")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "migration cluster2 → cluster3 (-l app=web) removed from the federation file")
	assert.Empty(t, migrations(t, d.fedPath))
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		n, _ := replicasIn(t, c, ns)
		assert.Equal(t, int64(2), n, "back to 2/2/2: %s", c)
	}
	assert.True(t, configMapIn(t, "cluster2", ns, "web-local"), "the pinned object is back")
	assert.False(t, configMapIn(t, "cluster3", ns, "web-local"))
}

// TestDrainKeepsMigratedObjects: draining the source of a migration keeps
// what the migration moved where it runs now (web-local, pinned to
// cluster2 by its clusters list and migrated to cluster3, which a render
// without cluster2 would place nowhere and so delete from cluster3), and
// is not blocked by that pin: the object is no longer in cluster2.
func TestDrainKeepsMigratedObjects(t *testing.T) {
	const ns = "migrate-drain"
	d := newDrainEnv(t, shop(ns))
	_, errOut, err := d.migrate(t, "--from", "cluster2", "--to", "cluster3", "-l", "app=web", "--force")
	require.NoError(t, err, errOut)
	require.True(t, configMapIn(t, "cluster3", ns, "web-local"))

	_, errOut, err = d.drain(t)
	require.NoError(t, err, errOut)
	assert.True(t, configMapIn(t, "cluster3", ns, "web-local"), "the migrated object stays where it runs")
	assert.True(t, configMapIn(t, "cluster3", ns, "web-config"))
	assert.False(t, configMapIn(t, "cluster2", ns, "db-config"), "what was still in cluster2 left it")
	assert.True(t, configMapIn(t, "cluster1", ns, "db-config"))
	for c, want := range map[string]int64{"cluster1": 3, "cluster3": 3} {
		n, _ := replicasIn(t, c, ns)
		assert.Equal(t, want, n, "web in %s", c)
	}
	_, ok := replicasIn(t, "cluster2", ns)
	assert.False(t, ok)
}

// TestMigrateRefusesToMovePastTo: with cluster2's app=web objects migrated
// on to cluster3, migrating cluster1's to cluster2 would end them in
// cluster3, which the migration does not apply to, before removing them
// from cluster1: refused, nothing changed.
func TestMigrateRefusesToMovePastTo(t *testing.T) {
	const ns = "migrate-chain"
	d := newDrainEnv(t, shop(ns))
	_, errOut, err := d.migrate(t, "--from", "cluster2", "--to", "cluster3", "-l", "app=web", "--force")
	require.NoError(t, err, errOut)
	before := migrations(t, d.fedPath)

	_, _, err = d.migrate(t, "--from", "cluster1", "--to", "cluster2", "-l", "app=web", "--force")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the migrate of cluster1 would move these to members it does not apply to (only to cluster2)")
	assert.Contains(t, err.Error(), "FederatedDeployment migrate-chain/web: +2 replicas to cluster3")
	assert.Equal(t, before, migrations(t, d.fedPath), "nothing recorded")
	n, ok := replicasIn(t, "cluster1", ns)
	assert.True(t, ok)
	assert.Equal(t, int64(2), n, "cluster1 keeps its replicas")
}

// TestMigrateNotCurrentRecordsNothing: a migrate whose moved objects do
// not get Current in the destination (their pods fit no node there) stops
// before removing anything, and records no migration: the record is what
// lets a plain apply remove them from the source, which must not happen
// before they run elsewhere.
func TestMigrateNotCurrentRecordsNothing(t *testing.T) {
	const ns = "migrate-stuck"
	content := strings.Replace(shop(ns), "  placement: {clusterSelector: {}}\n---\napiVersion: scheduling.kubefed.io/v1alpha1",
		"  placement: {clusterSelector: {}}\n  overrides:\n  - clusterName: cluster3\n    clusterOverrides:\n    - path: /spec/template/spec/nodeSelector\n      value: {fedctl.io/no-such-node: \"true\"}\n---\napiVersion: scheduling.kubefed.io/v1alpha1", 1)
	require.NotEqual(t, shop(ns), content)
	d := newDrainEnv(t, content)

	_, errOut, err := d.migrate(t, "--from", "cluster2", "--to", "cluster3", "-l", "app=web", "--force", "--wait-timeout", "5s")
	require.Error(t, err, errOut)
	assert.Contains(t, err.Error(), "the moved objects are not Current in cluster3")
	assert.Contains(t, err.Error(), "cluster2 keeps its objects, and the federation file does not record the migrate")
	assert.NotContains(t, errOut, "recorded in the federation file")
	assert.Empty(t, migrations(t, d.fedPath), "nothing recorded")

	d.apply(t)
	n, ok := replicasIn(t, "cluster2", ns)
	assert.True(t, ok, "a plain apply after the failed migrate keeps web in cluster2")
	assert.Equal(t, int64(2), n)
	assert.True(t, configMapIn(t, "cluster2", ns, "web-config"))
}

// TestMigrateLeavesUnselectedAlone: a migrate applies to its destination
// the objects -l selects and what they need there (their namespace), not
// the rest of the input. Here app=db's ConfigMap changed in the manifests
// and was not applied yet: before, migrating app=web rolled the change
// out to cluster3 alone.
func TestMigrateLeavesUnselectedAlone(t *testing.T) {
	const ns = "migrate-unselected"
	d := newDrainEnv(t, shop(ns))
	app := filepath.Join(d.dir, "app", "app.yaml")
	changed := strings.Replace(shop(ns), "metadata: {name: db-config, namespace: "+ns+", labels: {app: db}}\nspec:\n  template: {data: {k: v}}",
		"metadata: {name: db-config, namespace: "+ns+", labels: {app: db}}\nspec:\n  template: {data: {k: v2}}", 1)
	require.NotEqual(t, shop(ns), changed)
	require.NoError(t, os.WriteFile(app, []byte(changed), 0o600))

	_, errOut, err := d.migrate(t, "--from", "cluster2", "--to", "cluster3", "-l", "app=web", "--force")
	require.NoError(t, err, errOut)
	assert.True(t, configMapIn(t, "cluster3", ns, "web-config"), "the selected objects moved")
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		cm, err := env.Dynamic(t, c).Resource(configMaps).Namespace(ns).Get(context.Background(), "db-config", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"k": "v"}, cm.Object["data"], "%s: app=db is not the migrate's business", c)
	}
}
