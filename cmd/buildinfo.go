package cmd

import (
	"runtime"
	"runtime/debug"

	"github.com/fedctl/fedctl/pkg/cmdutil"
)

// Set by the linker: -X github.com/fedctl/fedctl/cmd.version=v1.2.3 (see the
// Makefile and .goreleaser.yaml).
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildInfo reports the stamped version, falling back to what the Go
// toolchain recorded (a "go install ...@v1.2.3" build knows its version).
func buildInfo() cmdutil.BuildInfo {
	b := cmdutil.BuildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}
