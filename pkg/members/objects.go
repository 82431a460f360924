package members

// ContextNamespace is the namespace m's kubeconfig context names, or
// "default", as kubectl resolves -n when it is not given.
func ContextNamespace(a Access, m Member) string {
	raw, err := a.RawConfig(m)
	if err == nil {
		if c, ok := raw.Contexts[m.ContextName()]; ok && c.Namespace != "" {
			return c.Namespace
		}
	}
	return "default"
}
