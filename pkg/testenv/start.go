package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// apiserverArgs are the flags of one member's API server: loopback only,
// the shared etcd under the cluster's own prefix, token authentication and
// RBAC, with the admission plugins and features a 2-core machine can run.
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
