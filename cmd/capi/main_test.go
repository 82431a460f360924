// Package capi runs members from Cluster API end to end (issue 16, item 1):
// cluster1 is the management cluster, with Cluster API's Cluster CRD
// (testdata/crds/cluster.x-k8s.io_clusters.yaml), Clusters whose status is
// written through the status subresource as Cluster API's controllers would,
// and <cluster>-kubeconfig Secrets whose kubeconfig reaches cluster2 or
// cluster3 with a client certificate, as Cluster API's do. cluster2 also
// plays a management cluster that serves Cluster in v1beta2 only
// (testdata/crds/cluster.x-k8s.io_clusters_v1beta2.yaml). fedctl runs in
// process, one run per command (cmd.Execute), with a kubeconfig that holds
// the management context only. It holds tests only.
package capi

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds the management cluster (cluster1) and two workload clusters;
// nothing here needs controllers.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3}, &env))
}
