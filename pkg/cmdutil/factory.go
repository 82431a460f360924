package cmdutil

import (
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

// Settings are the global flags once resolved: flag, then FEDCTL_*
// variable, then the federation file's defaults, then the built-in default.
type Settings struct {
	ConfigPath string // the federation file
	Kubeconfig string // --kubeconfig; empty for the standard loading rules
	Color      string
	Verbosity  int
}

// BuildInfo describes the fedctl binary.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Factory hands commands what they need. The funcs are lazy so that a
// command pays only for what it uses: "fedctl version" never reads the
// federation file, and nothing opens a connection until Run.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Build     BuildInfo
	// Settings resolves the global flags.
	Settings func() (Settings, error)
	// Federation loads the federation file named by Settings.
	Federation func() (*members.File, error)
	// Access says how to reach the members.
	Access func() (members.Access, error)
}
