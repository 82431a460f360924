package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// env is the package's shared three-cluster environment (see RunMain).
// Tests that stop a cluster bring it back before they return.
var env *Env

func TestMain(m *testing.M) {
	os.Exit(RunMain(m, Options{Clusters: 3}, &env))
}

// contextConfig loads a context of the environment's kubeconfig the way
// fedctl will, so these tests check the file and not only the servers.
func contextConfig(t *testing.T, e *Env, context string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: e.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: context},
	).ClientConfig()
	require.NoError(t, err)
	return cfg
}

func clientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

func readyz(ctx context.Context, cs kubernetes.Interface) error {
	_, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

func TestEveryContextAnswersReadyzAndVersion(t *testing.T) {
	e := Require(t, env)
	require.Len(t, e.Clusters, 3)
	for i, c := range e.Clusters {
		t.Run(c.Name, func(t *testing.T) {
			assert.Equal(t, fmt.Sprintf("cluster%d", i+1), c.Name)
			assert.Equal(t, c.Name, c.Context)
			cfg := contextConfig(t, e, c.Context)
			assert.Equal(t, c.Server, cfg.Host)

			cs := clientset(t, cfg)
			require.NoError(t, readyz(t.Context(), cs))
			v, err := cs.Discovery().ServerVersion()
			require.NoError(t, err)
			assert.Equal(t, KubernetesVersion, v.GitVersion)
		})
	}
}

func TestClustersAreSeparate(t *testing.T) {
	e := Require(t, env)
	ctx := t.Context()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "only-in-cluster1"}}
	c1 := clientset(t, contextConfig(t, e, "cluster1"))
	_, err := c1.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c1.CoreV1().ConfigMaps("default").Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
	})

	c2 := clientset(t, contextConfig(t, e, "cluster2"))
	_, err = c2.CoreV1().ConfigMaps("default").Get(ctx, cm.Name, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "cluster2 must not see cluster1's objects, got %v", err)
}

func TestAnotherClustersTokenIsRejected(t *testing.T) {
	e := Require(t, env)
	cfg := contextConfig(t, e, "cluster1")
	cfg.BearerToken = e.Cluster("cluster2").Token
	_, err := clientset(t, cfg).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	assert.True(t, apierrors.IsUnauthorized(err), "want 401, got %v", err)
}

func TestBadCredsContextGets401(t *testing.T) {
	e := Require(t, env)
	cfg := contextConfig(t, e, "cluster1"+BadCredsSuffix)
	assert.Equal(t, e.Cluster("cluster1").Server, cfg.Host)
	_, err := clientset(t, cfg).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	assert.True(t, apierrors.IsUnauthorized(err), "want 401, got %v", err)
}

func TestStopAndStartCluster(t *testing.T) {
	e := Require(t, env)
	ctx := t.Context()
	c2 := e.Cluster("cluster2")
	server, oldPID := c2.Server, c2.apiserver.pid()
	cs := map[string]*kubernetes.Clientset{}
	for _, c := range e.Clusters {
		cs[c.Name] = clientset(t, contextConfig(t, e, c.Name))
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "survives-restart"}}
	_, err := cs["cluster2"].CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)

	require.NoError(t, e.StopCluster("cluster2"))
	t.Cleanup(func() { _ = e.StartCluster(context.Background(), "cluster2") })
	assert.False(t, pidAlive(oldPID), "old kube-apiserver pid %d still exists", oldPID)
	_, err = http.Get(server + "/readyz")
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "want connection refused, got %v", err)
	assert.NoError(t, readyz(ctx, cs["cluster1"]))
	assert.NoError(t, readyz(ctx, cs["cluster3"]))
	assert.NoError(t, e.StopCluster("cluster2"), "stopping a stopped cluster does nothing")

	began := time.Now()
	require.NoError(t, e.StartCluster(ctx, "cluster2"))
	t.Logf("cluster2 answered /readyz again %s after StartCluster", time.Since(began).Round(10*time.Millisecond))
	assert.Equal(t, server, c2.Server)
	require.NoError(t, readyz(ctx, cs["cluster2"]), "the client made before the restart works again")
	_, err = cs["cluster2"].CoreV1().ConfigMaps("default").Get(ctx, cm.Name, metav1.GetOptions{})
	assert.NoError(t, err, "objects survive the restart in etcd")
	assert.NoError(t, e.StartCluster(ctx, "cluster2"), "starting a running cluster does nothing")

	assert.ErrorContains(t, e.StopCluster("cluster9"), `unknown cluster "cluster9" (clusters: cluster1, cluster2, cluster3)`)
}

// TestControllersMakeDeploymentsReady uses an environment of its own: two
// clusters, enough to catch controllers of one cluster colliding with the
// other's (ports, tokens), and it ends by stopping it.
func TestControllersMakeDeploymentsReady(t *testing.T) {
	Require(t, env)
	began := time.Now()
	e, err := Start(t.Context(), Options{Clusters: 2, Controllers: true, Log: testLog{t}})
	require.NoError(t, err)
	t.Logf("started 2 clusters with controllers in %s", time.Since(began).Round(100*time.Millisecond))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = e.Stop()
		}
	})

	for _, c := range e.Clusters {
		t.Run(c.Name, func(t *testing.T) {
			rc, err := e.RESTConfig(c.Name)
			require.NoError(t, err)
			cs := clientset(t, rc)
			deploys := cs.AppsV1().Deployments("default")
			began := time.Now()
			_, err = deploys.Create(t.Context(), deployment("web", 2), metav1.CreateOptions{})
			require.NoError(t, err)
			waitReadyReplicas(t, deploys, "web", 2)
			t.Logf("readyReplicas=2 %s after create", time.Since(began).Round(10*time.Millisecond))
		})
	}

	// After an outage the cluster must work as if freshly started.
	t.Run("after StopCluster and StartCluster", func(t *testing.T) {
		c1 := e.Cluster("cluster1")
		require.NoError(t, e.StopCluster("cluster1"))
		for _, ctl := range c1.controllers {
			assert.False(t, ctl.proc.running(), "StopCluster stops %s", ctl.proc.name)
		}
		require.NoError(t, e.StartCluster(t.Context(), "cluster1"))
		rc, err := e.RESTConfig("cluster1")
		require.NoError(t, err)
		deploys := clientset(t, rc).AppsV1().Deployments("default")
		began := time.Now()
		_, err = deploys.Create(t.Context(), deployment("after-restart", 2), metav1.CreateOptions{})
		require.NoError(t, err)
		waitReadyReplicas(t, deploys, "after-restart", 2)
		t.Logf("readyReplicas=2 %s after create", time.Since(began).Round(10*time.Millisecond))
	})

	pids := map[string]int{}
	for _, p := range allProcesses(e) {
		require.True(t, p.running(), "%s is running before Stop", p.name)
		pids[p.name] = p.pid()
	}
	require.Len(t, pids, 1+2*4, "etcd, and per cluster an API server and three controllers")

	began = time.Now()
	require.NoError(t, e.Stop())
	stopped = true
	t.Logf("stopped %d processes in %s", len(pids), time.Since(began).Round(10*time.Millisecond))
	for name, pid := range pids {
		assert.False(t, pidAlive(pid), "%s (pid %d) outlived Stop", name, pid)
	}
	assert.NoDirExists(t, e.Dir, "Stop removes the temporary directory it created")
	assert.NoError(t, e.Stop(), "Stop is idempotent")
	assert.ErrorContains(t, e.StartCluster(t.Context(), "cluster1"), "test environment is stopped")
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: "nginx"}},
				},
			},
		},
	}
}

// waitReadyReplicas waits up to a minute for the deployment's status to
// report want ready replicas.
func waitReadyReplicas(t *testing.T, deploys appsv1client.DeploymentInterface, name string, want int32) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := deploys.Get(t.Context(), name, metav1.GetOptions{})
		if err == nil && d.Status.ReadyReplicas == want {
			return
		}
		if time.Now().After(deadline) {
			require.NoError(t, err)
			require.Equal(t, want, d.Status.ReadyReplicas, "deployment %s: ready replicas after a minute", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// allProcesses lists every process of e, whether running or not.
func allProcesses(e *Env) []*process {
	procs := []*process{e.etcd}
	for _, c := range e.Clusters {
		procs = append(procs, c.apiserver)
		for _, ctl := range c.controllers {
			procs = append(procs, ctl.proc)
		}
	}
	return procs
}

// testLog sends Start's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("%s", p)
	return len(p), nil
}
