package testenv

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// FakeNodeName is the Node that Options.Controllers creates in every
	// cluster. kwok keeps it Ready and runs the Pods bound to it.
	FakeNodeName = "kwok-node-0"

	// fakeNodeAnnotation marks the Nodes kwok manages (its
	// --manage-nodes-with-annotation-selector), so it leaves any other
	// Node a test creates alone.
	fakeNodeAnnotation = "kwok.x-k8s.io/node"
)

// controller is a control-plane program that acts on one cluster through
// its own kubeconfig and token.
type controller struct {
	name       string // program: kube-controller-manager, kube-scheduler, kwok
	proc       *process
	user       string // in tokens.csv
	token      string
	kubeconfig string
}

// newControllers prepares kube-controller-manager, kube-scheduler and kwok
// for c; they are started by startControllers once c's Server is known.
//
// Each authenticates as its own user in system:masters. The bootstrap RBAC
// roles of kube-controller-manager's user only suffice together with
// --use-service-account-credentials, which adds a service account and a
// token round trip per controller for no gain in a test cluster.
//
// None of them serves HTTP: kube-controller-manager and kube-scheduler
// would otherwise all bind their default ports (10257, 10259) and collide
// across clusters and test processes, and kwok serves only when told
// --server-address or --node-port, which we never pass.
func (e *Env) newControllers(c *Cluster) ([]*controller, error) {
	specs := []struct {
		name, user, bin string
		args            []string
	}{
		{
			name: "kube-controller-manager", user: "system:kube-controller-manager", bin: e.bins.KubeControllerManager,
			args: []string{
				"--leader-elect=false",
				"--secure-port=0",
				// Service account token Secrets are signed with the key the
				// API server verifies, and carry the CA that the root CA
				// publisher also puts in every kube-root-ca.crt ConfigMap.
				"--service-account-private-key-file=" + filepath.Join(c.dir, "sa.key"),
				"--root-ca-file=" + e.path("pki", "ca.crt"),
				"--cluster-name=" + c.Name,
			},
		},
		{
			name: "kube-scheduler", user: "system:kube-scheduler", bin: e.bins.KubeScheduler,
			args: []string{"--leader-elect=false", "--secure-port=0"},
		},
		{
			name: "kwok", user: "kwok", bin: e.bins.Kwok,
			args: []string{
				"--manage-all-nodes=false",
				"--manage-nodes-with-annotation-selector=" + fakeNodeAnnotation + "=fake",
				"--cidr=10.244.0.0/16",
				"--node-ip=10.244.0.1",
				// Renew a Lease in kube-node-lease like a kubelet. Without
				// one, kube-controller-manager sees no heartbeat within its
				// 50 s grace period and marks the Node NotReady, and with
				// it every Pod, about a minute after start.
				"--node-lease-duration-seconds=40",
			},
		},
	}
	var out []*controller
	for _, s := range specs {
		token, err := randomToken()
		if err != nil {
			return nil, err
		}
		kubeconfig := filepath.Join(c.dir, s.name+".kubeconfig")
		out = append(out, &controller{
			name:       s.name,
			user:       s.user,
			token:      token,
			kubeconfig: kubeconfig,
			proc: &process{
				name:    c.Name + " " + s.name,
				path:    s.bin,
				args:    append([]string{"--kubeconfig=" + kubeconfig}, s.args...),
				logPath: e.path("logs", c.Name+"-"+s.name+".log"),
				// kwok reads ~/.kwok/kwok.yaml whenever it exists, on top
				// of any --config; a home of its own keeps a developer's
				// kwok settings out of the tests.
				env: []string{"HOME=" + c.dir},
			},
		})
	}
	return out, nil
}

// startControllers starts every cluster's controllers and fake Node in
// parallel and waits until they work.
func (e *Env) startControllers(ctx context.Context) error {
	errs := make([]error, len(e.Clusters))
	var wg sync.WaitGroup
	for i, c := range e.Clusters {
		wg.Go(func() { errs[i] = e.startClusterControllers(ctx, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startClusterControllers writes the controllers' kubeconfigs, creates
// the fake Node and runs the controllers.
func (e *Env) startClusterControllers(ctx context.Context, c *Cluster) error {
	for _, ctl := range c.controllers {
		cfg := buildKubeconfig(e.caPEM, endpoint{name: c.Name, server: c.Server, token: ctl.token})
		if err := clientcmd.WriteToFile(*cfg, ctl.kubeconfig); err != nil {
			return fmt.Errorf("%s: %w", ctl.proc.name, err)
		}
	}
	client, err := e.clientset(c)
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Nodes().Create(ctx, fakeNode(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("%s: create node %s: %w", c.Name, FakeNodeName, err)
	}
	return e.runControllers(ctx, c)
}

// runControllers starts those of c's controllers that are not running and
// waits until they work. A cluster without controllers has nothing to do.
func (e *Env) runControllers(ctx context.Context, c *Cluster) error {
	if len(c.controllers) == 0 {
		return nil
	}
	client, err := e.clientset(c)
	if err != nil {
		return err
	}
	for _, ctl := range c.controllers {
		if ctl.proc.running() {
			continue
		}
		if ctl.name == "kwok" {
			if err := releaseNodeLease(ctx, client); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
		if err := ctl.proc.start(); err != nil {
			return err
		}
	}
	return e.waitControllers(ctx, c, client)
}

// releaseNodeLease deletes the fake Node's Lease. Each kwok process renews
// it under a new random identity, so a restarted kwok would leave the Node
// and its Pods alone until the dead one's Lease expired (40 s, measured as
// 41 s to a Ready Deployment after StartCluster). The holder is known to
// be dead, since only a kwok we stopped can hold it.
func releaseNodeLease(ctx context.Context, client kubernetes.Interface) error {
	err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, FakeNodeName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release node lease %s: %w", FakeNodeName, err)
	}
	return nil
}

func (e *Env) clientset(c *Cluster) (kubernetes.Interface, error) {
	rc, err := e.RESTConfig(c.Name)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return client, nil
}

// fakeNode is a Node big enough for any test workload, without taints, and
// annotated for kwok. Its status is accepted on create, as a kubelet's is
// when it registers.
func fakeNode() *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        FakeNodeName,
			Annotations: map[string]string{fakeNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": FakeNodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// waitControllers waits until c's fake Node is Ready (kwok works) and the
// default ServiceAccount exists (kube-controller-manager works). The
// scheduler has no such visible sign; a Pod that it has not bound yet just
// waits for it, which tests' bounded waits absorb.
func (e *Env) waitControllers(ctx context.Context, c *Cluster, client kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	last := "no answer yet"
	for {
		for _, ctl := range c.controllers {
			if !ctl.proc.running() {
				return fmt.Errorf("%s exited (%s); last log lines:\n%s",
					ctl.proc.name, ctl.proc.exitStatus(), ctl.proc.logTail())
			}
		}
		done, status := controllersReady(ctx, client)
		if done {
			return nil
		}
		last = status
		select {
		case <-ctx.Done():
			var logs strings.Builder
			for _, ctl := range c.controllers {
				fmt.Fprintf(&logs, "\nlast log lines of %s:\n%s", ctl.proc.name, ctl.proc.logTail())
			}
			return fmt.Errorf("%s: controllers not working: %w (%s)%s", c.Name, ctx.Err(), last, logs.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// controllersReady reports whether the signs waitControllers looks for
// are there, and if not, which one is missing.
func controllersReady(ctx context.Context, client kubernetes.Interface) (bool, string) {
	node, err := client.CoreV1().Nodes().Get(ctx, FakeNodeName, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Sprintf("get node %s: %v", FakeNodeName, err)
	}
	ready := false
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			ready = true
		}
	}
	if !ready {
		return false, fmt.Sprintf("node %s not Ready yet (kwok)", FakeNodeName)
	}
	_, err = client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, "no default service account yet (kube-controller-manager)"
	case err != nil:
		return false, fmt.Sprintf("get service account default: %v", err)
	}
	return true, ""
}
