// Package testenv runs real member clusters on 127.0.0.1 for end-to-end
// tests and for make demo: one etcd shared by one kube-apiserver per
// cluster (cluster1..N, each under its own etcd prefix and with its own
// admin token), and optionally kube-controller-manager, kube-scheduler and
// kwok with a fake Node per cluster, so Deployments become Ready without
// any container runtime.
//
// The binaries are built once from source through the Go module proxy
// (EnsureBinaries) and cached in .cache/testbin; nothing is downloaded
// from GitHub or a bucket. Start writes a kubeconfig with a context per
// cluster, and StopCluster / StartCluster take one member down and bring it
// back on the same URL for fault tests. RunMain and Require wire one
// environment per test package into TestMain, and cmd/fedctl-testenv runs
// any command against a fresh environment.
//
// It deliberately does not emulate a kubelet, networking, or a federation
// control plane: fedctl is client-side, and member clusters are all it
// talks to. It targets Linux; elsewhere child processes may outlive a
// killed test binary.
package testenv
