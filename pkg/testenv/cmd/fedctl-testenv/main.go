// Command fedctl-testenv starts real member clusters on 127.0.0.1 (see
// package testenv), runs a command against them with KUBECONFIG set, and
// stops them again. make demo and manual experiments use it:
//
//	fedctl-testenv [-clusters 3] [-controllers] [-dir DIR] -- COMMAND [ARGS...]
//
// The command gets KUBECONFIG (contexts cluster1..N and cluster1-badcreds)
// and FEDCTL_TESTENV_DIR added to its environment and inherits stdio.
// fedctl-testenv exits with the command's exit code (128+N if a signal
// killed it), 1 if the environment could not be started or stopped, and 2
// for bad usage. SIGINT and SIGTERM stop the environment before it exits.
//
//	fedctl-testenv -provision-only
//
// only builds or finds the binaries (kubectl included) and prints their
// paths, so that make can pay for a cold build before go test's timeouts
// start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/fedctl/fedctl/pkg/testenv"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("fedctl-testenv", flag.ContinueOnError)
	clusters := fs.Int("clusters", 3, "Number of member clusters, named cluster1..N")
	controllers := fs.Bool("controllers", false, "Also run controllers, a scheduler and kwok so Deployments become Ready")
	dir := fs.String("dir", "", "Directory for certificates, kubeconfig and logs, kept afterwards (default: a temporary directory, removed)")
	provisionOnly := fs.Bool("provision-only", false, "Build or find the binaries, print their paths and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage:\n  fedctl-testenv [-clusters N] [-controllers] [-dir DIR] -- COMMAND [ARGS...]\n  fedctl-testenv -provision-only\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	// A signal ends a start in progress; once the command runs, it is
	// passed on to it (see runCommand) and we stop the clusters after it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	forward := make(chan os.Signal, 1)
	go func() {
		for sig := range sigs {
			cancel()
			select {
			case forward <- sig:
			default:
			}
		}
	}()

	if *provisionOnly {
		return provision(ctx)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "fedctl-testenv: missing COMMAND after --")
		fs.Usage()
		return 2
	}
	// Checked before minutes of provisioning and seconds of startup.
	if _, err := exec.LookPath(fs.Arg(0)); err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 127
	}
	if *clusters < 1 {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: -clusters must be at least 1, got %d\n", *clusters)
		return 2
	}

	env, err := testenv.Start(ctx, testenv.Options{
		Clusters:    *clusters,
		Controllers: *controllers,
		Dir:         *dir,
		Log:         os.Stderr,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 1
	}
	code := runCommand(env, fs.Args(), forward)
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

func provision(ctx context.Context) int {
	bins, err := testenv.EnsureBinaries(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 1
	}
	// kubectl too: make test checks that kubectl reads fedctl's ApplySets,
	// and make bench-apply compares fedctl with it. Linked from the same
	// build cache as kube-apiserver, it costs seconds more.
	kubectl, err := testenv.EnsureKubectl(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 1
	}
	for _, path := range []string{bins.Etcd, bins.KubeAPIServer, bins.KubeControllerManager, bins.KubeScheduler, bins.Kwok, kubectl} {
		fmt.Println(path)
	}
	return 0
}

// runCommand runs argv against env and returns its exit code the way a
// shell reports it. Of the signals we receive, it passes SIGTERM on: one
// sent to us alone (by a supervisor) would otherwise leave the command
// running against clusters about to go away. SIGINT from a terminal has
// already reached the command, which shares our process group, and a
// second one could cut short its own cleanup.
func runCommand(env *testenv.Env, argv []string, signals <-chan os.Signal) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "FEDCTL_TESTENV_DIR="+env.Dir)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-signals:
				if sig == syscall.SIGTERM {
					_ = cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "fedctl-testenv: %v\n", err)
		return 1
	}
}
