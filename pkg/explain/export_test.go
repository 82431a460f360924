package explain

// MemberObject is the member object explained for c, before fedctl's
// markers.
func MemberObject(c ClusterOverrides) map[string]any { return c.object }
