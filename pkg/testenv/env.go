package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// defaultClusters is what Options.Clusters = 0 means: enough to tell
	// "all members" from "some members" in placement tests.
	defaultClusters = 3

	// readyTimeout bounds the wait for one process to answer its health
	// endpoint. An API server needs about 3 s here; the margin is for a
	// loaded CI machine running several test binaries at once.
	readyTimeout = 60 * time.Second

	// stopGrace is how long a process gets to exit after SIGTERM before
	// it is killed.
	stopGrace = 10 * time.Second

	// portAttempts bounds the starts of one process whose port was taken
	// by someone else in the meantime (see freePorts).
	portAttempts = 5
)

// Options configures Start. The zero value starts three bare API servers
// in a temporary directory.
type Options struct {
	// Clusters is the number of member clusters, named cluster1..N.
	// Zero means 3.
	Clusters int

	// Controllers also runs, per cluster, kube-controller-manager,
	// kube-scheduler and kwok with one fake Node (FakeNodeName), so that
	// Deployments get Pods that are scheduled and become Ready. Without
	// it, objects are stored but nothing acts on them: Deployments get no
	// status and deleted namespaces stay Terminating.
	Controllers bool

	// Dir receives certificates, kubeconfigs, tokens, etcd data and logs.
	// Empty means a new temporary directory, which Stop removes; a given
	// directory is kept, and Start overwrites the files it writes there
	// and starts from empty etcd data.
	Dir string

	// Log receives progress lines such as "started 3 API servers in
	// 4.2s"; nil discards them.
	Log io.Writer
}

// Env is a set of running member clusters: one etcd shared by one
// kube-apiserver per cluster (each under its own etcd prefix), and
// optionally their controllers. Its methods are safe for concurrent use.
type Env struct {
	// Kubeconfig is the path of a kubeconfig with a context per cluster
	// (current context: the first cluster) and the bad-credentials
	// context (see BadCredsSuffix).
	Kubeconfig string

	// Dir holds everything the environment writes; logs are in
	// Dir/logs, one file per process.
	Dir string

	// Clusters are the member clusters in order, cluster1 first.
	Clusters []*Cluster

	bins    Binaries
	log     io.Writer
	ownsDir bool
	caPEM   []byte
	auth    *authority   // signs client certificates (ClientCertificate)
	client  *http.Client // health probes; trusts the environment's CA
	etcd    *process
	etcdURL string

	mu      sync.Mutex // serialises Stop, StopCluster and StartCluster
	stopped bool
	stopErr error
}

// Cluster is one member cluster. Its fields do not change after Start:
// StartCluster brings a stopped API server back on the same Server URL.
type Cluster struct {
	// Name is cluster1..N.
	Name string

	// Context is the kubeconfig context for the cluster; same as Name.
	Context string

	// Server is the API server URL, https://127.0.0.1:PORT.
	Server string

	// Token is the bearer token of user admin-<Name> in group
	// system:masters. Only this cluster accepts it.
	Token string

	dir         string // Env.Dir/<Name>: tokens, keys, component kubeconfigs
	apiserver   *process
	controllers []*controller // nil unless Options.Controllers
}

// Start provisions the binaries (see EnsureBinaries), starts etcd and one
// API server per cluster in parallel, waits until each answers /readyz,
// and writes the kubeconfig. With Options.Controllers it then starts the
// controllers and waits until each cluster's fake Node is Ready. On error
// everything already started is stopped, and the error carries the last
// log lines of the process that failed.
//
// ctx bounds provisioning and startup only; the processes run until Stop.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	if opts.Clusters < 0 {
		return nil, fmt.Errorf("start test environment: clusters must be at least 1, got %d", opts.Clusters)
	}
	if opts.Clusters == 0 {
		opts.Clusters = defaultClusters
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	bins, err := EnsureBinaries(ctx, log)
	if err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}

	began := time.Now()
	e := &Env{bins: bins, log: log}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("start test environment: %w", err), e.Stop())
		}
	}()
	if err := e.makeDir(opts.Dir); err != nil {
		return nil, err
	}
	auth, err := e.writePKI()
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(auth.cert)
	e.client = &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	for i := 1; i <= opts.Clusters; i++ {
		c, err := e.newCluster(fmt.Sprintf("cluster%d", i), opts.Controllers)
		if err != nil {
			return nil, err
		}
		e.Clusters = append(e.Clusters, c)
	}

	if err := e.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := e.startAPIServers(ctx); err != nil {
		return nil, err
	}
	if err := e.writeKubeconfig(); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "started %s (%s, etcd %s) in %s (kubeconfig %s)\n",
		count(len(e.Clusters), "kube-apiserver"), KubernetesVersion, EtcdVersion, time.Since(began).Round(100*time.Millisecond), e.Kubeconfig)

	if opts.Controllers {
		began = time.Now()
		if err := e.startControllers(ctx); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "started controllers and node %s in %s in %s\n",
			FakeNodeName, count(len(e.Clusters), "cluster"), time.Since(began).Round(100*time.Millisecond))
	}
	return e, nil
}

// makeDir creates the environment directory, or a temporary one owned
// (and later removed) by the Env.
func (e *Env) makeDir(dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "fedctl-testenv-")
		if err != nil {
			return err
		}
		e.Dir, e.ownsDir = tmp, true
	} else {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		e.Dir = abs
	}
	for _, sub := range []string{"pki", "logs"} {
		if err := os.MkdirAll(e.path(sub), 0o755); err != nil {
			return err
		}
	}
	return nil
}

func (e *Env) path(elem ...string) string {
	return filepath.Join(append([]string{e.Dir}, elem...)...)
}

// writePKI writes the CA and the serving certificate that every API server
// presents; one certificate fits all since they all listen on 127.0.0.1.
func (e *Env) writePKI() (*authority, error) {
	now := time.Now()
	auth, err := newAuthority(now)
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := auth.issueServing(now, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	e.caPEM, e.auth = auth.certPEM, auth
	return auth, writeFiles(map[string][]byte{
		e.path("pki", "ca.crt"):        auth.certPEM,
		e.path("pki", "apiserver.crt"): certPEM,
		e.path("pki", "apiserver.key"): keyPEM,
	})
}

// newCluster writes a cluster's tokens and service account keys and
// prepares (without starting) its processes. Each cluster gets its own
// tokens.csv, so one cluster's admin token is rejected by the others as it
// would be by real clusters.
func (e *Env) newCluster(name string, withControllers bool) (*Cluster, error) {
	c := &Cluster{Name: name, Context: name, dir: e.path(name)}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	c.Token = token
	saKey, saPub, err := newServiceAccountKey()
	if err != nil {
		return nil, err
	}
	// tokens.csv: token,user,uid,"group,...". system:masters bypasses RBAC.
	tokens := fmt.Sprintf("%s,admin-%s,admin-%s,\"system:masters\"\n", token, name, name)
	if withControllers {
		if c.controllers, err = e.newControllers(c); err != nil {
			return nil, err
		}
		for _, ctl := range c.controllers {
			tokens += fmt.Sprintf("%s,%s,%s,\"system:masters\"\n", ctl.token, ctl.user, ctl.user)
		}
	}
	if err := writeFiles(map[string][]byte{
		filepath.Join(c.dir, "tokens.csv"): []byte(tokens),
		filepath.Join(c.dir, "sa.key"):     saKey,
		filepath.Join(c.dir, "sa.pub"):     saPub,
	}); err != nil {
		return nil, err
	}
	c.apiserver = &process{
		name:    name + " kube-apiserver",
		path:    e.bins.KubeAPIServer,
		logPath: e.path("logs", name+"-kube-apiserver.log"),
	}
	return c, nil
}

// writeKubeconfig writes Env.Kubeconfig once every Server URL is known.
func (e *Env) writeKubeconfig() error {
	bad, err := randomToken()
	if err != nil {
		return err
	}
	e.Kubeconfig = e.path("kubeconfig")
	return clientcmd.WriteToFile(*envKubeconfig(e.caPEM, e.Clusters, bad), e.Kubeconfig)
}

// Cluster returns the cluster with the given name, or nil.
func (e *Env) Cluster(name string) *Cluster {
	for _, c := range e.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// RESTConfig returns a client configuration for the named cluster's admin
// user, equivalent to its kubeconfig context. Its rate limits are raised
// well above client-go's default of 5 requests per second, which would
// otherwise make polling tests wait on the client instead of the server.
func (e *Env) RESTConfig(name string) (*rest.Config, error) {
	c := e.Cluster(name)
	if c == nil {
		return nil, e.unknownCluster(name)
	}
	return &rest.Config{
		Host:            c.Server,
		BearerToken:     c.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.caPEM},
		QPS:             100,
		Burst:           200,
	}, nil
}

func (e *Env) unknownCluster(name string) error {
	names := make([]string, len(e.Clusters))
	for i, c := range e.Clusters {
		names[i] = c.Name
	}
	return fmt.Errorf("unknown cluster %q (clusters: %s)", name, strings.Join(names, ", "))
}

// lookup returns the named cluster of a running environment; e.mu must be
// held.
func (e *Env) lookup(name string) (*Cluster, error) {
	if e.stopped {
		return nil, errors.New("test environment is stopped")
	}
	c := e.Cluster(name)
	if c == nil {
		return nil, e.unknownCluster(name)
	}
	return c, nil
}

// Stop stops every process, controllers first so they do not spend the
// grace period retrying against API servers that are going away, then the
// API servers, then etcd. Each gets SIGTERM and, after a grace period,
// SIGKILL. It removes Dir if Start created it. Calling Stop again returns
// the first call's result.
func (e *Env) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return e.stopErr
	}
	e.stopped = true

	var controllers, apiservers []*process
	for _, c := range e.Clusters {
		for _, ctl := range c.controllers {
			controllers = append(controllers, ctl.proc)
		}
		if c.apiserver != nil {
			apiservers = append(apiservers, c.apiserver)
		}
	}
	errs := []error{stopAll(controllers), stopAll(apiservers)}
	if e.etcd != nil {
		errs = append(errs, e.etcd.stop(stopGrace))
	}
	if e.client != nil {
		e.client.CloseIdleConnections()
	}
	if e.ownsDir {
		errs = append(errs, os.RemoveAll(e.Dir))
	}
	if err := errors.Join(errs...); err != nil {
		e.stopErr = fmt.Errorf("stop test environment: %w", err)
	}
	return e.stopErr
}

// stopAll stops procs in parallel.
func stopAll(procs []*process) error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.stop(stopGrace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// count renders "1 cluster", "3 clusters".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeFiles writes each file readable only by its owner: they hold keys
// and tokens.
func writeFiles(files map[string][]byte) error {
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
