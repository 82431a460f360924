package members

// ContextNamespace is the namespace m's kubeconfig context names, or
// "default", as kubectl resolves -n when it is not given. For a member from
// Cluster API it is the namespace of its kubeconfig's current context.
func ContextNamespace(a Access, m Member) string {
	raw, err := a.RawConfig(m)
	if err == nil {
		if c, ok := raw.Contexts[contextIn(raw, m)]; ok && c.Namespace != "" {
			return c.Namespace
		}
	}
	return "default"
}
