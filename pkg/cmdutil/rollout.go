package cmdutil

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/rollout"
)

// RolloutFlags are --rollout and the flags that shape it, shared by apply
// and delete.
type RolloutFlags struct {
	Enabled bool
	// Waves overrides the federation file's waves for one run.
	Waves    string
	From, To string
	// Gate is a shell command run after each wave.
	Gate string
}

// AddRolloutFlags adds --rollout, --waves, --from-wave, --to-wave and
// --gate; verb is the command's ("apply", "delete").
func AddRolloutFlags(cmd *cobra.Command, f *RolloutFlags, verb string) {
	fl := cmd.Flags()
	order := "in the federation file's rollout.waves order"
	if verb == "delete" {
		order = "in the reverse of the federation file's rollout.waves order"
	}
	fl.BoolVar(&f.Enabled, "rollout", false, fmt.Sprintf("%s wave by wave, %s, stopping at the first wave that fails: later waves get no write", capitalized(verb), order))
	fl.StringVar(&f.Waves, "waves", "", "With --rollout: the waves for this run instead of the file's: names of its waves (canary,eu,rest; a last * for every other member: canary,*), or member label selectors separated by ; with * for every other member ('tier=canary;region=eu;*')")
	fl.StringVar(&f.From, "from-wave", "", "With --rollout: start at this wave; earlier ones are only checked, never written")
	fl.StringVar(&f.To, "to-wave", "", "With --rollout: stop after this wave (a promotion gate)")
	fl.StringVar(&f.Gate, "gate", "", "With --rollout: a shell command run after each wave (FEDCTL_WAVE, FEDCTL_CLUSTERS, FEDCTL_CONTEXTS set, and KUBECONFIG with a context per member named after it); non-zero stops the rollout")
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Validate checks the flags alone.
func (f *RolloutFlags) Validate() []error {
	if f.Enabled {
		return nil
	}
	var errs []error
	for _, flag := range []struct{ name, value string }{{"--waves", f.Waves}, {"--from-wave", f.From}, {"--to-wave", f.To}, {"--gate", f.Gate}} {
		if flag.value != "" {
			errs = append(errs, fmt.Errorf("%s needs --rollout", flag.name))
		}
	}
	return errs
}

// Plan is the rollout's plan from the federation file and --waves, with
// --from-wave and --to-wave checked against it; reverse (delete) turns
// the waves around first.
func (f *RolloutFlags) Plan(file *members.File, reverse bool) (*rollout.Plan, error) {
	plan, err := rollout.FromFile(file, f.Waves)
	var waves *rollout.WavesError
	if errors.As(err, &waves) {
		return nil, FlagErrorWrap(err)
	}
	if err != nil {
		return nil, err
	}
	if reverse {
		slices.Reverse(plan.Waves)
	}
	var errs []error
	from, to := 0, len(plan.Waves)-1
	for _, x := range []struct {
		flag, name string
		at         *int
	}{{"--from-wave", f.From, &from}, {"--to-wave", f.To, &to}} {
		if x.name == "" {
			continue
		}
		if *x.at = plan.Index(x.name); *x.at < 0 {
			errs = append(errs, FlagErrorf("%s %s: no such wave (waves: %v)", x.flag, x.name, plan.Names()))
		}
	}
	if len(errs) == 0 && from > to {
		errs = append(errs, FlagErrorf("--from-wave %s comes after --to-wave %s", f.From, f.To))
	}
	return plan, errors.Join(errs...)
}

// GateKubeconfig writes the kubeconfig a rollout's --gate command gets
// first in KUBECONFIG: one context per member of names (the waves the run
// goes through), named after it, that reaches it as fedctl does
// (members.Access.StandaloneKubeconfig), so that "kubectl --context $c"
// for each c of FEDCTL_CONTEXTS checks the wave's own members. The user's
// kubeconfig follows it in KUBECONFIG, so the gate's other contexts and the
// current one stay; a member's name wins over a context of the same name
// there. It goes to a private temporary directory (0700, the file 0600: it
// holds credentials), which remove deletes. Without a gate it writes
// nothing. A member that cannot be resolved fails the rollout before any
// write: its name would otherwise reach whatever the user's kubeconfig
// calls so.
func GateKubeconfig(gate string, access func() (members.Access, error), fed *members.Federation, names []string) (env []string, remove func(), err error) {
	remove = func() {}
	if gate == "" {
		return nil, remove, nil
	}
	a, err := access()
	if err != nil {
		return nil, remove, err
	}
	merged := clientcmdapi.NewConfig()
	var errs []error
	for _, m := range fed.Clusters {
		if !slices.Contains(names, m.Name) {
			continue
		}
		cfg, err := a.StandaloneKubeconfig(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		maps.Copy(merged.Clusters, cfg.Clusters)
		maps.Copy(merged.AuthInfos, cfg.AuthInfos)
		maps.Copy(merged.Contexts, cfg.Contexts)
	}
	if len(errs) > 0 {
		return nil, remove, fmt.Errorf("--gate: the kubeconfig it gets cannot be written, nothing was changed: %w; fix the member's kubeconfig (fedctl get clusters shows which answer), or run without --gate", errors.Join(errs...))
	}
	dir, err := os.MkdirTemp("", "fedctl-gate-")
	if err != nil {
		return nil, remove, fmt.Errorf("--gate: %w", err)
	}
	remove = func() { _ = os.RemoveAll(dir) }
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		remove()
		return nil, func() {}, fmt.Errorf("--gate: %w", err)
	}
	own := a.Kubeconfig
	if own == "" {
		own = cmp.Or(os.Getenv(clientcmd.RecommendedConfigPathEnvVar), clientcmd.RecommendedHomeFile)
	}
	return []string{"KUBECONFIG=" + path + string(os.PathListSeparator) + own}, remove, nil
}

// WriteRolloutReport prints a rollout's report on w as -o asks: the whole
// report as JSON, or each wave's objects by name; nothing otherwise.
func WriteRolloutReport(w io.Writer, output string, report *rollout.Report) error {
	switch output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	case "name":
		for _, wave := range report.Waves {
			if wave.Propagation != nil {
				if err := WriteNames(w, wave.Propagation); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// RolloutError is what a rollout's error makes of the run: one that
// stopped at a wave is a partial run (exit 3), any other is itself.
func RolloutError(err error) error {
	var stopped *rollout.StoppedError
	if errors.As(err, &stopped) {
		return &ExitError{Code: ExitPartial, Err: err}
	}
	return err
}
