package propagate

import "github.com/fedctl/fedctl/pkg/typeconfig"

// rank is kind's place in the install order, shared with render.
func rank(kind string) int { return typeconfig.InstallRank(kind) }

// firstPhase says whether kind is created before everything else: the
// Namespaces the other objects live in and the CRDs that define their
// types. The phase is apply's alone (waitForCRDs runs between the two), so
// it is decided here, not with the install order.
func firstPhase(kind string) bool {
	return kind == "Namespace" || kind == "CustomResourceDefinition"
}
