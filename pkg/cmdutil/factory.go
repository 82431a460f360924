package cmdutil

import (
	"context"
	"sync"

	"github.com/spf13/viper"

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
	// Impersonate is --as, --as-group and --as-uid, for every member.
	Impersonate members.Impersonation
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
	// Context is the run's context, which Ctrl-C ends; the root command
	// sets it as a command starts, for what Access reads on its own
	// (members.Access.Context). nil in tests that build a Factory.
	Context context.Context
}

// Viper keys of the global flags. Each also reads FEDCTL_<KEY>.
const (
	FlagConfig     = "config"
	FlagKubeconfig = "kubeconfig"
	FlagColor      = "color"
	FlagVerbosity  = "v"
	// kubectl's impersonation flags, applied to every member.
	FlagAs      = "as"
	FlagAsGroup = "as-group"
	FlagAsUID   = "as-uid"
)

// -v levels, as kubectl's: DetailVerbosity adds a line for every object
// (unchanged ones too), TimingVerbosity one line of timings per member,
// RequestLogVerbosity every HTTP request to a member, RequestBodyVerbosity
// the requests' bodies (Secret values redacted).
const (
	DetailVerbosity      = 1
	TimingVerbosity      = 4
	RequestLogVerbosity  = 6
	RequestBodyVerbosity = 8
)

// NewFactory fills in the Factory from the global flags in v. Every func is lazy and reads viper only
// when called, after cobra has parsed the flags.
func NewFactory(ios *iostreams.IOStreams, v *viper.Viper, build BuildInfo) *Factory {
	f := &Factory{IOStreams: ios, Build: build}

	var (
		loadOnce sync.Once
		file     *members.File
		loadErr  error
	)
	// Depends on --config and FEDCTL_CONFIG only: the federation file
	// cannot choose its own path.
	f.Federation = func() (*members.File, error) {
		loadOnce.Do(func() {
			path := v.GetString(FlagConfig)
			named := path != ""
			if !named {
				if path, loadErr = members.DefaultPath(); loadErr != nil {
					return
				}
			}
			file, loadErr = members.Load(path)
			if file != nil {
				file.Named = named
			}
		})
		return file, loadErr
	}

	// Depends on the flags, FEDCTL_* variables and the federation file's
	// defaults section, which sits below the variables in viper's order.
	f.Settings = func() (Settings, error) {
		file, err := f.Federation()
		if err != nil {
			return Settings{}, err
		}
		if d := file.Federation.Defaults; d != nil {
			layer := map[string]any{}
			if d.Color != "" {
				layer[FlagColor] = d.Color
			}
			if d.Verbosity != nil {
				layer[FlagVerbosity] = *d.Verbosity
			}
			if err := v.MergeConfigMap(layer); err != nil {
				return Settings{}, err
			}
		}
		if v.GetString(FlagAs) == "" && (len(v.GetStringSlice(FlagAsGroup)) > 0 || v.GetString(FlagAsUID) != "") {
			// The flags replace the kubeconfig's whole impersonation, and
			// groups without a user are refused by every API server.
			return Settings{}, FlagErrorf("--%s and --%s need --%s: the user to impersonate", FlagAsGroup, FlagAsUID, FlagAs)
		}
		return Settings{
			ConfigPath: file.Path,
			Kubeconfig: v.GetString(FlagKubeconfig),
			Color:      v.GetString(FlagColor),
			Verbosity:  v.GetInt(FlagVerbosity),
			Impersonate: members.Impersonation{
				User: v.GetString(FlagAs), Groups: v.GetStringSlice(FlagAsGroup), UID: v.GetString(FlagAsUID),
			},
		}, nil
	}

	// Depends on Settings. One cache of what members from Cluster API read
	// from their management clusters for the whole run, so that each
	// kubeconfig Secret is read once however many clients a command makes.
	capi := members.NewCAPICache()
	f.Access = func() (members.Access, error) {
		s, err := f.Settings()
		if err != nil {
			return members.Access{}, err
		}
		a := members.Access{
			Kubeconfig:  s.Kubeconfig,
			Impersonate: s.Impersonate,
			BaseDir:     members.Dir(s.ConfigPath),
			UserAgent:   "fedctl/" + f.Build.Version,
			Warnings:    ios.ErrOut,
			CAPI:        capi,
			Context:     f.Context,
		}
		if s.Verbosity >= RequestLogVerbosity {
			a.RequestLog = ios.ErrOut
			a.RequestBodies = s.Verbosity >= RequestBodyVerbosity
		}
		return a, nil
	}
	return f
}

// VerbosityOf is -v, or 0 when the settings cannot be read (the command
// reports that error itself) or f has none (tests).
func VerbosityOf(f *Factory) int {
	if f.Settings == nil {
		return 0
	}
	s, err := f.Settings()
	if err != nil {
		return 0
	}
	return s.Verbosity
}
