// Package members owns the federation file (the list of member clusters, each
// a kubeconfig context, and the types enabled beyond the defaults) and the
// connection to each member: resolving its kubeconfig context into a client
// configuration, checking that it answers, and probing its health the way
// KubeFed's cluster controller does.
//
// The federation file never holds credentials: a member points at a context
// in a kubeconfig, which keeps them, or at a Cluster API Cluster, whose
// kubeconfig Secret in the management cluster keeps them; fedctl reads that
// Secret once per run, in memory only.
package members
