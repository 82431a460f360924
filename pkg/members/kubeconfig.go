package members

import (
	"fmt"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// StandaloneKubeconfig is a kubeconfig that reaches member m as fedctl reaches it,
// standing alone: one context, named m.Name, with the member's cluster and
// user (files they name inlined) and fedctl's --as impersonation. It is
// what a command fedctl runs for the user (a rollout's --gate) needs to
// reach the member: the member's context name can mean another cluster in
// the user's own kubeconfig (kubeadm names every context alike, and a
// member may have its own kubeconfig file), and a member from Cluster API
// has no context at all.
func (a Access) StandaloneKubeconfig(m Member) (*clientcmdapi.Config, error) {
	var raw *clientcmdapi.Config
	var ctxName string
	if m.CAPI != nil {
		cfg, err := a.capiKubeconfig(m)
		if err != nil {
			return nil, err
		}
		raw, ctxName = cfg.DeepCopy(), cfg.CurrentContext // the cache's copy stays as it is
	} else {
		rules := a.loadingRules(m)
		loaded, err := rules.Load()
		if err != nil {
			return nil, &ConfigError{Member: m.Name, Context: m.ContextName(), Source: describeSource(rules), Err: err}
		}
		if _, ok := loaded.Contexts[m.ContextName()]; !ok {
			return nil, &ConfigError{Member: m.Name, Context: m.ContextName(), Source: describeSource(rules), Err: missingContext(loaded)}
		}
		raw, ctxName = loaded, m.ContextName()
	}
	kctx := raw.Contexts[ctxName]
	if kctx == nil {
		return nil, fmt.Errorf("cluster %s: its kubeconfig has no context %q", m.Name, ctxName)
	}
	cluster := raw.Clusters[kctx.Cluster]
	if cluster == nil {
		return nil, fmt.Errorf("cluster %s: context %q names cluster %q, which its kubeconfig does not have", m.Name, ctxName, kctx.Cluster)
	}
	user := clientcmdapi.NewAuthInfo()
	if u := raw.AuthInfos[kctx.AuthInfo]; u != nil {
		user = u.DeepCopy()
	}
	if !a.Impersonate.IsZero() {
		// exactly the flags, as RESTConfig sets them
		user.Impersonate, user.ImpersonateGroups, user.ImpersonateUID = a.Impersonate.User, a.Impersonate.Groups, a.Impersonate.UID
		user.ImpersonateUserExtra = nil
	}
	out := clientcmdapi.NewConfig()
	out.Clusters[m.Name] = cluster.DeepCopy()
	out.AuthInfos[m.Name] = user
	out.Contexts[m.Name] = &clientcmdapi.Context{Cluster: m.Name, AuthInfo: m.Name, Namespace: kctx.Namespace}
	out.CurrentContext = m.Name
	if err := clientcmdapi.FlattenConfig(out); err != nil {
		return nil, fmt.Errorf("cluster %s: reading the files its kubeconfig names: %w", m.Name, err)
	}
	return out, nil
}
