// Package rollout rolls a change out to member clusters wave by wave, as
// Argo CD's RollingSync, Fleet's partitions and OCM's progressive rollout
// do from a control plane, from a laptop or a CI job instead: each wave is
// applied, waited for until Current, soaked, checked again and gated
// before the next one gets any request. Plan decides the waves from the
// federation file (pure); Run goes through them.
package rollout

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/members"
)

// Wave is one step of a rollout with the members it holds.
type Wave struct {
	Name string `json:"name"`
	// Clusters are the wave's members, sorted; empty when it selects none.
	Clusters []string `json:"clusters"`
	// MaxConcurrency bounds the members applied at once; 0 is all.
	MaxConcurrency int `json:"maxConcurrency,omitempty"`
}

// Plan is a rollout's waves, in order, and how each is judged.
type Plan struct {
	Waves       []Wave
	Soak        time.Duration
	Timeout     time.Duration
	MaxFailures int
	// Warnings say what the plan ignored: names that are not members,
	// waves that select nobody.
	Warnings []string
}

// Index is the position of the wave called name, -1 if none.
func (p *Plan) Index(name string) int {
	return slices.IndexFunc(p.Waves, func(w Wave) bool { return w.Name == name })
}

// Between are the members of the waves from the one named from to the one
// named to, in order ("" for either end: the first, the last): those a
// run with --from-wave and --to-wave goes through.
func (p *Plan) Between(from, to string) []string {
	start, end := 0, len(p.Waves)-1
	if from != "" {
		start = max(p.Index(from), 0)
	}
	if to != "" {
		if i := p.Index(to); i >= 0 {
			end = i
		}
	}
	var out []string
	for i := start; i <= end && i < len(p.Waves); i++ {
		out = append(out, p.Waves[i].Clusters...)
	}
	return out
}

// WaveOf is the name of the wave that holds member, "" if none.
func (p *Plan) WaveOf(member string) string {
	for _, w := range p.Waves {
		if slices.Contains(w.Clusters, member) {
			return w.Name
		}
	}
	return ""
}

// Names are the waves' names, in order.
func (p *Plan) Names() []string {
	out := make([]string, len(p.Waves))
	for i, w := range p.Waves {
		out[i] = w.Name
	}
	return out
}

// waveSpec is a wave before its members are known: from the file or
// from --waves.
type waveSpec struct {
	name           string
	clusters       []string // listed members; nil when not a list
	selector       labels.Selector
	maxConcurrency int
}

// FromFile plans the rollout of the federation file, or of override (the
// --waves flag) when given: a member goes in the first wave that selects
// it, a wave without selector takes every member no earlier wave took, and
// a member in no wave is an error at the file's rollout.waves (a rollout
// that skips a member would report success with that member stale).
func FromFile(file *members.File, override string) (*Plan, error) {
	fed := file.Federation
	var spec members.Rollout
	if fed.Rollout != nil {
		spec = *fed.Rollout
	}
	var waves []waveSpec
	var err error
	if override != "" {
		waves, err = parseWaves(override, spec.Waves)
	} else {
		waves, err = fileWaves(file, spec.Waves)
	}
	if err != nil {
		return nil, err
	}
	if len(waves) == 0 {
		return nil, fmt.Errorf("--rollout needs waves: add rollout.waves to the federation file %s, or pass --waves (for example --waves 'tier=canary;*')", file.Path)
	}
	plan := &Plan{Soak: spec.SoakDuration(), Timeout: spec.TimeoutDuration(), MaxFailures: spec.MaxFailures}
	taken := map[string]bool{}
	names := fed.Names()
	for _, w := range waves {
		wave := Wave{Name: w.name, MaxConcurrency: w.maxConcurrency, Clusters: []string{}}
		for _, c := range w.clusters {
			if !slices.Contains(names, c) {
				plan.Warnings = append(plan.Warnings, fmt.Sprintf("rollout wave %s: %s is not a member, ignored", w.name, c))
			}
		}
		for _, m := range fed.Clusters {
			selected := w.selector == nil || w.selector.Matches(labels.Set(m.Labels))
			if w.clusters != nil {
				selected = slices.Contains(w.clusters, m.Name)
			}
			if !taken[m.Name] && selected {
				taken[m.Name] = true
				wave.Clusters = append(wave.Clusters, m.Name)
			}
		}
		slices.Sort(wave.Clusters)
		if len(wave.Clusters) == 0 {
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("rollout wave %s selects no member not in an earlier wave; it is skipped", w.name))
		}
		plan.Waves = append(plan.Waves, wave)
	}
	var left []string
	for _, n := range names {
		if !taken[n] {
			left = append(left, n)
		}
	}
	if len(left) > 0 {
		if override != "" {
			sep := ";"
			if namesWaves(override) {
				sep = ","
			}
			return nil, &WavesError{Value: override, Err: fmt.Errorf("%s in no wave; end it with * to take every other member: --waves '%s%s*'", strings.Join(left, ", "), override, sep)}
		}
		return nil, file.Errorf("rollout.waves", "%s in no wave: add them to a wave, or end the waves with one without clusters or clusterSelector (every other member)", strings.Join(left, ", "))
	}
	return plan, nil
}

// fileWaves are the federation file's waves, selectors parsed.
func fileWaves(file *members.File, waves []members.Wave) ([]waveSpec, error) {
	out := make([]waveSpec, 0, len(waves))
	for i, w := range waves {
		ws, err := specOf(w)
		if err != nil { // validated when the file was loaded
			return nil, file.Errorf(fmt.Sprintf("rollout.waves[%d].clusterSelector", i), "%v", err)
		}
		out = append(out, ws)
	}
	return out, nil
}

// specOf is a wave of the file with its selector parsed.
func specOf(w members.Wave) (waveSpec, error) {
	ws := waveSpec{name: w.Name, clusters: w.Clusters, maxConcurrency: w.MaxConcurrency}
	if w.ClusterSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(w.ClusterSelector.LabelSelector())
		if err != nil {
			return ws, err
		}
		ws.selector = sel
	}
	return ws, nil
}

// WavesError is a --waves value that cannot be used: a usage error.
type WavesError struct {
	Value string
	Err   error
}

func (e *WavesError) Error() string { return fmt.Sprintf("--waves %q: %v", e.Value, e.Err) }

func (e *WavesError) Unwrap() error { return e.Err }

// namesWaves says a --waves value names the file's waves (comma
// separated) rather than giving label selectors (semicolon separated).
func namesWaves(value string) bool { return !strings.ContainsAny(value, "=;!()") }

// parseWaves reads --waves: either names of the file's waves, comma
// separated, in the order to use ("canary,eu,rest"), a last "*" standing
// for every member in none of them ("canary,*"), or label selectors of
// members, semicolon separated, "*" standing for every other member
// ("tier=canary;region=eu-west-1;*"), each wave named after its selector.
func parseWaves(value string, fromFile []members.Wave) ([]waveSpec, error) {
	fail := func(format string, args ...any) error {
		return &WavesError{Value: value, Err: fmt.Errorf(format, args...)}
	}
	known := make([]string, len(fromFile))
	for j, w := range fromFile {
		known[j] = w.Name
	}
	sep := ";"
	if namesWaves(value) {
		sep = ","
	}
	parts, err := splitWaves(value, sep)
	if err != nil {
		return nil, fail("%v", err)
	}
	var out []waveSpec
	for i, part := range parts {
		switch {
		case part == "*":
			out = append(out, waveSpec{name: "*"})
		case sep == ",":
			at := slices.Index(known, part)
			if at < 0 {
				if len(fromFile) == 0 {
					return nil, fail("the federation file has no rollout.waves to name; give selectors instead, such as --waves 'tier=canary;*'")
				}
				return nil, fail("no wave %q in the federation file (waves: %s)", part, strings.Join(known, ", "))
			}
			ws, err := specOf(fromFile[at])
			if err != nil {
				return nil, fail("wave %s: %v", part, err)
			}
			out = append(out, ws)
		case slices.Contains(known, part):
			// "canary" would be the selector "has the label canary", which
			// is seldom what was meant
			return nil, fail("wave %d, %s, is a wave of the federation file, but waves separated by ; are label selectors; name the file's waves separated by commas (--waves %s,*)", i+1, part, part)
		default:
			sel, err := labels.Parse(part)
			if err != nil {
				return nil, fail("wave %d: %v", i+1, err)
			}
			out = append(out, waveSpec{name: part, selector: sel})
		}
	}
	return out, nil
}

// splitWaves splits --waves at sep, with the checks both forms share: no
// empty wave, "*" (every other member) only last, as a catch-all first
// would take every member and the waves after it none, and no wave twice.
func splitWaves(value, sep string) ([]string, error) {
	parts := strings.Split(value, sep)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		switch part := parts[i]; {
		case part == "":
			return nil, fmt.Errorf("wave %d is empty", i+1)
		case part == "*" && i != len(parts)-1:
			return nil, errors.New("* (every other member) can only be the last wave")
		case slices.Contains(parts[:i], part):
			return nil, fmt.Errorf("wave %d, %s, is given twice", i+1, part)
		}
	}
	return parts, nil
}
