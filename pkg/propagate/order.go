package propagate

import "github.com/fedctl/fedctl/pkg/typeconfig"

// rank and firstPhase are the install order, shared with render.
func rank(kind string) int { return typeconfig.InstallRank(kind) }

func firstPhase(kind string) bool { return typeconfig.FirstPhase(kind) }
