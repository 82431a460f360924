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
	e.caPEM = auth.certPEM
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

// apiserverArgs are the flags measured to work in
// shared/reference/test-clusters.md.
func (e *Env) apiserverArgs(c *Cluster, port int) []string {
	return []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--etcd-servers=" + e.etcdURL,
		// One etcd serves every cluster; the prefix keeps them apart.
		"--etcd-prefix=/" + c.Name + "/registry",
		"--cert-dir=" + filepath.Join(c.dir, "certs"),
		"--tls-cert-file=" + e.path("pki", "apiserver.crt"),
		"--tls-private-key-file=" + e.path("pki", "apiserver.key"),
		"--client-ca-file=" + e.path("pki", "ca.crt"),
		"--token-auth-file=" + filepath.Join(c.dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(c.dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(c.dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// Pods need no service account token: there is no kubelet to
		// mount one, and kwok's fake pods never read it.
		"--disable-admission-plugins=ServiceAccount",
		// Without it the API server tries every few seconds to publish its
		// loopback address in the kubernetes Endpoints and logs an error.
		"--endpoint-reconciler-type=none",
	}
}

// startEtcd starts the etcd that all API servers share and waits for its
// /health endpoint.
func (e *Env) startEtcd(ctx context.Context) error {
	data := e.path("etcd")
	e.etcd = &process{name: "etcd", path: e.bins.Etcd, logPath: e.path("logs", "etcd.log")}
	pick := func() error {
		// A fresh data directory each attempt: etcd records its peer URL
		// there and would refuse a new one, and a Dir reused from an
		// earlier run must not bring back that run's objects.
		if err := os.RemoveAll(data); err != nil {
			return err
		}
		ports, err := freePorts(2)
		if err != nil {
			return err
		}
		e.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
		peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
		e.etcd.args = []string{
			"--name=testenv",
			"--data-dir=" + data,
			"--listen-client-urls=" + e.etcdURL,
			"--advertise-client-urls=" + e.etcdURL,
			"--listen-peer-urls=" + peer,
			"--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=testenv=" + peer,
			// Test data need not survive a power cut; fsync costs seconds
			// per test on slow disks.
			"--unsafe-no-fsync",
		}
		return nil
	}
	ready := func(ctx context.Context) error {
		return e.waitHealthy(ctx, e.etcd, e.etcdURL+"/health", "")
	}
	return e.startRetrying(ctx, e.etcd, pick, ready)
}

// startAPIServers starts every cluster's API server in parallel, which
// takes about as long as starting one.
func (e *Env) startAPIServers(ctx context.Context) error {
	errs := make([]error, len(e.Clusters))
	var wg sync.WaitGroup
	for i, c := range e.Clusters {
		wg.Go(func() {
			pick := func() error {
				ports, err := freePorts(1)
				if err != nil {
					return err
				}
				c.Server = fmt.Sprintf("https://127.0.0.1:%d", ports[0])
				c.apiserver.args = e.apiserverArgs(c, ports[0])
				return nil
			}
			errs[i] = e.startRetrying(ctx, c.apiserver, pick, e.apiserverReady(c))
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// apiserverReady waits until c's API server reports ready to an
// authenticated client that verifies its certificate, which is what a
// kubeconfig user does.
func (e *Env) apiserverReady(c *Cluster) func(context.Context) error {
	return func(ctx context.Context) error {
		return e.waitHealthy(ctx, c.apiserver, c.Server+"/readyz", c.Token)
	}
}

// startRetrying starts p and waits for ready. pick chooses p's ports and
// sets its args; a run that dies because a port was taken is retried with
// new ports. Without pick (a restart that must keep its port) the same
// port is tried again after a pause, which helps when the thief was
// another process's short-lived port probe.
func (e *Env) startRetrying(ctx context.Context, p *process, pick func() error, ready func(context.Context) error) error {
	var err error
	for attempt := 1; attempt <= portAttempts; attempt++ {
		if pick != nil {
			if err := pick(); err != nil {
				return fmt.Errorf("start %s: %w", p.name, err)
			}
		}
		if err := p.start(); err != nil {
			return err
		}
		if err = ready(ctx); err == nil {
			return nil
		}
		if kerr := p.kill(); kerr != nil {
			return errors.Join(err, kerr)
		}
		if !p.lostPort() || ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(e.log, "%s: port taken by another process, retrying (%d/%d)\n", p.name, attempt, portAttempts)
		if pick == nil {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Second):
			}
		}
	}
	return err
}

// waitHealthy polls url until it answers 200 OK, p exits, or readyTimeout
// passes. token, if set, is sent as a bearer token.
func (e *Env) waitHealthy(ctx context.Context, p *process, url, token string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	last := "no answer yet"
	for {
		if !p.running() {
			return fmt.Errorf("%s exited (%s) before answering %s; last log lines:\n%s",
				p.name, p.exitStatus(), url, p.logTail())
		}
		status, err := probe(ctx, e.client, url, token)
		switch {
		case err != nil:
			last = err.Error()
		case status == http.StatusOK:
			return nil
		default:
			last = fmt.Sprintf("HTTP %d", status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %w (last probe: %s); last log lines:\n%s",
				p.name, url, ctx.Err(), last, p.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func probe(ctx context.Context, client *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
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

// StopCluster kills the named cluster's API server, so that connections
// to its Server URL are refused, as for a member that went down, and its
// controllers with it. It uses SIGKILL rather than Stop's graceful
// SIGTERM: a terminated API server drains its watches for over ten
// seconds, for no gain since its state lives in etcd.
//
// The controllers are stopped too because they would otherwise survive
// the outage in a state nobody wants to test against: their informers
// back off, and after a 90 s outage Deployments took 46 s to become Ready
// again, against a fraction of a second with fresh controllers. Stopping
// a stopped cluster does nothing.
func (e *Env) StopCluster(name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.lookup(name)
	if err != nil {
		return fmt.Errorf("stop cluster: %w", err)
	}
	var errs []error
	for _, ctl := range c.controllers {
		errs = append(errs, ctl.proc.kill())
	}
	errs = append(errs, c.apiserver.kill())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stop cluster %s: %w", name, err)
	}
	return nil
}

// StartCluster starts the named cluster's API server again, with the same
// flags and port and therefore the same Server URL and kubeconfig entry,
// and waits until it answers /readyz; its objects are still in etcd. It
// then starts the cluster's controllers again, so that a Deployment
// applied next becomes Ready as quickly as after Start. Starting a running
// cluster does nothing.
func (e *Env) StartCluster(ctx context.Context, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.lookup(name)
	if err != nil {
		return fmt.Errorf("start cluster: %w", err)
	}
	if !c.apiserver.running() {
		if err := e.startRetrying(ctx, c.apiserver, nil, e.apiserverReady(c)); err != nil {
			return fmt.Errorf("start cluster %s: %w", name, err)
		}
	}
	if err := e.runControllers(ctx, c); err != nil {
		return fmt.Errorf("start cluster %s: %w", name, err)
	}
	return nil
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

// freePorts asks the kernel for n distinct free ports on 127.0.0.1 and
// releases them for a child to bind. Another process can take one in
// between, which startRetrying detects and handles; holding all n
// listeners until the end keeps the n ports distinct.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
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
