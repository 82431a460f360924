package status

import (
	"errors"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// federatedType resolves the TYPE of "fedctl status TYPE NAME" against the
// types in effect, offline, accepting the names kubectl accepts for the
// federated CRD that kubefedctl enable generates: its plural
// (federateddeployments), with its group (federateddeployments.types.kubefed.io),
// its singular, its kind (FederatedDeployment) and its short names
// ("f" + the target's short name: fdeploy), in any case; and also the target
// type's own names (deployments, deploy), which name the same federated type.
func federatedType(reg *typeconfig.Registry, name string) (typeconfig.Type, error) {
	lower := strings.ToLower(name)
	for _, group := range []string{federation.TypesGroup, federation.LegacyTypesGroup} {
		lower = strings.TrimSuffix(lower, "."+group)
	}
	var candidates []string
	shortOnly := false
	if rest, ok := strings.CutPrefix(lower, "federated"); ok && rest != "" {
		candidates = append(candidates, rest)
	} else if rest, ok := strings.CutPrefix(lower, "f"); ok && rest != "" {
		candidates, shortOnly = append(candidates, rest), true
	}
	candidates = append(candidates, lower)
	var firstErr error
	for i, c := range candidates {
		t, err := reg.Find(c)
		// "f" makes a short name only of a short name: fdeploy, not
		// fdeployments.
		if err == nil && i == 0 && shortOnly && (c == t.Plural || c == strings.ToLower(t.Kind) || c == t.Name()) {
			continue
		}
		if err == nil {
			return t, nil
		}
		var amb *typeconfig.AmbiguousError
		if errors.As(err, &amb) {
			return typeconfig.Type{}, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	var nf *typeconfig.NotFederatedError
	if errors.As(firstErr, &nf) {
		nf.Name = name
		return typeconfig.Type{}, nf
	}
	return typeconfig.Type{}, firstErr
}
