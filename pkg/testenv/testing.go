package testenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// startTimeout bounds provisioning plus startup in RunMain. A cold cache
// means building five binaries, about six minutes on two cores; go test's
// own -timeout does not cover TestMain's work before m.Run.
const startTimeout = 15 * time.Minute

// RunMain is the body of a TestMain for a package whose tests need member
// clusters. It starts one Env for the whole package, stores it in *env,
// runs the tests, stops the Env and returns the exit code for os.Exit:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3}, &env))
//	}
//
// Under -short (make test-unit) nothing is started and *env stays nil;
// tests that need it call Require, which skips them. Otherwise a failure
// to provision or start fails the whole package with the reason; it never
// turns into silently skipped tests. opts.Log defaults to os.Stderr, which
// go test shows only for -v or a failing package.
//
// SIGINT and SIGTERM (Ctrl-C on go test) stop the Env before the process
// exits, so its temporary directory is removed too.
func RunMain(m *testing.M, opts Options, env **Env) int {
	if !flag.Parsed() {
		flag.Parse() // testing.Short needs the flags, and m.Run has not parsed them yet
	}
	if testing.Short() {
		return m.Run()
	}
	if opts.Log == nil {
		// The prefix lets "make test" pick these lines out of go test -v.
		opts.Log = linePrefixer{out: os.Stderr, prefix: "testenv: "}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancelTimeout := context.WithTimeout(ctx, startTimeout)
	e, err := Start(ctx, opts)
	cancelTimeout()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	*env = e

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "testenv: %v: stopping test environment\n", sig)
		if err := e.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		}
		os.Exit(1)
	}()

	code := m.Run()
	signal.Stop(sigs)
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Require returns env for a test that needs the package's member clusters.
// It skips the test under -short, where RunMain starts nothing, and fails
// it if env is nil otherwise, which means TestMain does not call RunMain.
func Require(t testing.TB, env *Env) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("needs real API servers (pkg/testenv), which -short does not start")
	}
	if env == nil {
		t.Fatal("test environment not started: TestMain must call testenv.RunMain")
	}
	return env
}

// linePrefixer writes prefix before each write; the environment's progress
// messages are written a whole line at a time.
type linePrefixer struct {
	out    io.Writer
	prefix string
}

func (p linePrefixer) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.out, p.prefix); err != nil {
		return 0, err
	}
	return p.out.Write(b)
}

// KubeconfigWith writes a copy of the environment's kubeconfig with one more
// context, name, that reaches server with cluster1's credentials, and
// returns its path. Tests point it at a refused port or a silent listener.
func (e *Env) KubeconfigWith(t testing.TB, name, server string) string {
	t.Helper()
	return e.KubeconfigVia(t, name, e.Clusters[0].Name, server)
}

// KubeconfigVia writes a copy of the environment's kubeconfig with one more
// context, name, that reaches server with the credentials of cluster, and
// returns its path: a FaultProxy's Server, to reach cluster through it.
func (e *Env) KubeconfigVia(t testing.TB, name, cluster, server string) string {
	t.Helper()
	cfg, via := e.loadContext(t, cluster)
	entry := cfg.Clusters[via.Cluster].DeepCopy()
	entry.Server = server
	cfg.Clusters[name] = entry
	ctx := via.DeepCopy()
	ctx.Cluster = name
	cfg.Contexts[name] = ctx
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// KubeconfigHangingExec writes a copy of the test kubeconfig with one more
// context, name, that reaches the cluster of context cluster as a user
// whose credentials come from an exec plugin that never answers (it sleeps
// for hangFor, then exits without credentials): a cloud login plugin with
// no route to its token service. No request through it leaves fedctl.
func (e *Env) KubeconfigHangingExec(t testing.TB, name, cluster string, hangFor time.Duration) string {
	t.Helper()
	cfg, via := e.loadContext(t, cluster)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "hanging-credential-plugin")
	script := fmt.Sprintf("#!/bin/sh\nexec sleep %d\n", int(hangFor.Seconds()))
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatalf("write exec plugin: %v", err)
	}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	ctx := via.DeepCopy()
	ctx.AuthInfo = name
	cfg.Contexts[name] = ctx
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// loadContext loads the test kubeconfig and its context named cluster.
func (e *Env) loadContext(t testing.TB, cluster string) (*clientcmdapi.Config, *clientcmdapi.Context) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(e.Kubeconfig)
	if err != nil {
		t.Fatalf("load kubeconfig: %v", err)
	}
	via, ok := cfg.Contexts[cluster]
	if !ok {
		t.Fatalf("kubeconfig has no context %q", cluster)
	}
	return cfg, via
}

// ClosedPort returns a loopback port that nothing listens on.
func ClosedPort(t testing.TB) int {
	t.Helper()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	return ports[0]
}

// Dynamic is a dynamic client of the named cluster as its admin user, for
// tests that look at or change what a member holds; it fails t otherwise.
func (e *Env) Dynamic(t testing.TB, name string) dynamic.Interface {
	t.Helper()
	cfg, err := e.RESTConfig(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ClientCertificate issues a client certificate and key in PEM for user in
// groups, which every API server of the environment accepts (they share
// the client CA): what Cluster API puts in a workload cluster's kubeconfig
// Secret, where a token would not be faithful. Each call issues a new
// pair, as a rotation does.
func (e *Env) ClientCertificate(user string, groups ...string) (certPEM, keyPEM []byte, err error) {
	if e.auth == nil {
		return nil, nil, errors.New("test environment has no certificate authority: it was not started")
	}
	return e.auth.issueClient(time.Now(), user, groups)
}

// CAData is the certificate authority of the API servers' serving
// certificate, in PEM, for kubeconfigs that tests write themselves.
func (e *Env) CAData() []byte { return e.caPEM }
