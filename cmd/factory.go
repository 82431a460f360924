package cmd

import (
	"path/filepath"
	"sync"

	"github.com/spf13/viper"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

// requestLogVerbosity is the -v level from which every HTTP request to a
// member is logged, as kubectl does from -v 6.
const requestLogVerbosity = 6

// newFactory fills in the Factory. Every func is lazy and reads viper only
// when called, after cobra has parsed the flags.
func newFactory(ios *iostreams.IOStreams, v *viper.Viper) *cmdutil.Factory {
	f := &cmdutil.Factory{IOStreams: ios, Build: buildInfo()}

	var (
		loadOnce sync.Once
		file     *members.File
		loadErr  error
	)
	// Depends on --config and FEDCTL_CONFIG only: the federation file
	// cannot choose its own path.
	f.Federation = func() (*members.File, error) {
		loadOnce.Do(func() {
			path := v.GetString(keyConfig)
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
	f.Settings = func() (cmdutil.Settings, error) {
		file, err := f.Federation()
		if err != nil {
			return cmdutil.Settings{}, err
		}
		if d := file.Federation.Defaults; d != nil {
			layer := map[string]any{}
			if d.Color != "" {
				layer[keyColor] = d.Color
			}
			if d.Verbosity != nil {
				layer[keyVerbosity] = *d.Verbosity
			}
			if err := v.MergeConfigMap(layer); err != nil {
				return cmdutil.Settings{}, err
			}
		}
		return cmdutil.Settings{
			ConfigPath: file.Path,
			Kubeconfig: v.GetString(keyKubeconfig),
			Color:      v.GetString(keyColor),
			Verbosity:  v.GetInt(keyVerbosity),
		}, nil
	}

	// Depends on Settings.
	f.Access = func() (members.Access, error) {
		s, err := f.Settings()
		if err != nil {
			return members.Access{}, err
		}
		a := members.Access{
			Kubeconfig: s.Kubeconfig,
			BaseDir:    filepath.Dir(s.ConfigPath),
			UserAgent:  "fedctl/" + f.Build.Version,
			Warnings:   ios.ErrOut,
		}
		if s.Verbosity >= requestLogVerbosity {
			a.RequestLog = ios.ErrOut
		}
		return a, nil
	}
	return f
}
