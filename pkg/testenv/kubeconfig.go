package testenv

import clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

// BadCredsSuffix is appended to the first cluster's name to form the
// kubeconfig context whose token every API server rejects with 401
// ("cluster1-badcreds"), for tests of how fedctl reports auth failures.
const BadCredsSuffix = "-badcreds"

// endpoint is what a kubeconfig entry needs to reach one API server.
type endpoint struct {
	name   string // used for the cluster, user and context entries alike
	server string
	token  string
}

// buildKubeconfig returns a kubeconfig with one cluster, user and context
// per endpoint, all named after it, that verify the server against caPEM
// (embedded, so the file can be copied anywhere) and authenticate with the
// endpoint's bearer token. The current context is the first endpoint.
func buildKubeconfig(caPEM []byte, endpoints ...endpoint) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	for _, ep := range endpoints {
		cluster := clientcmdapi.NewCluster()
		cluster.Server = ep.server
		cluster.CertificateAuthorityData = caPEM
		cfg.Clusters[ep.name] = cluster

		user := clientcmdapi.NewAuthInfo()
		user.Token = ep.token
		cfg.AuthInfos[ep.name] = user

		ctx := clientcmdapi.NewContext()
		ctx.Cluster = ep.name
		ctx.AuthInfo = ep.name
		cfg.Contexts[ep.name] = ctx
	}
	if len(endpoints) > 0 {
		cfg.CurrentContext = endpoints[0].name
	}
	return cfg
}

// envKubeconfig is the kubeconfig handed to tests and to the command run
// by fedctl-testenv: a context per cluster, current context the first
// cluster, plus the bad-credentials context. Its context points at the
// first cluster's entry so only the user differs.
func envKubeconfig(caPEM []byte, clusters []*Cluster, badToken string) *clientcmdapi.Config {
	endpoints := make([]endpoint, 0, len(clusters))
	for _, c := range clusters {
		endpoints = append(endpoints, endpoint{name: c.Name, server: c.Server, token: c.Token})
	}
	cfg := buildKubeconfig(caPEM, endpoints...)
	if len(clusters) > 0 {
		bad := clusters[0].Name + BadCredsSuffix
		user := clientcmdapi.NewAuthInfo()
		user.Token = badToken
		cfg.AuthInfos[bad] = user
		ctx := clientcmdapi.NewContext()
		ctx.Cluster = clusters[0].Name
		ctx.AuthInfo = bad
		cfg.Contexts[bad] = ctx
	}
	return cfg
}
