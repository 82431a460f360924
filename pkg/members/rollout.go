package members

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// Rollout is the federation file's rollout: the waves apply --rollout goes
// through, in order, and how each is judged.
type Rollout struct {
	Waves []Wave `json:"waves" yaml:"waves"`
	// Soak is how long a wave stays under watch once Current before it is
	// checked again (a duration: "60s"); empty is none.
	Soak string `json:"soak,omitempty" yaml:"soak,omitempty"`
	// Timeout bounds each wave: apply, until Current, soak and gate
	// (a duration); empty is DefaultWaveTimeout.
	Timeout string `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	// MaxFailures are the members of a wave that may fail before the
	// rollout stops.
	MaxFailures int `json:"maxFailures,omitempty" yaml:"maxFailures,omitempty"`
}

// DefaultWaveTimeout bounds a wave whose rollout names no timeout.
const DefaultWaveTimeout = 10 * time.Minute

// Wave is one step of a rollout: the members it selects (Clusters, or
// ClusterSelector, or with neither every member not in an earlier wave),
// applied MaxConcurrency at a time (0: all at once).
type Wave struct {
	Name            string        `json:"name" yaml:"name"`
	Clusters        []string      `json:"clusters,omitempty" yaml:"clusters,omitempty"`
	ClusterSelector *WaveSelector `json:"clusterSelector,omitempty" yaml:"clusterSelector,omitempty"`
	MaxConcurrency  int           `json:"maxConcurrency,omitempty" yaml:"maxConcurrency,omitempty"`
}

// WaveSelector is a label selector over members' labels, metav1's
// LabelSelector with the federation file's YAML names.
type WaveSelector struct {
	MatchLabels      map[string]string     `json:"matchLabels,omitempty" yaml:"matchLabels,omitempty"`
	MatchExpressions []SelectorRequirement `json:"matchExpressions,omitempty" yaml:"matchExpressions,omitempty"`
}

// SelectorRequirement is one of a WaveSelector's matchExpressions.
type SelectorRequirement struct {
	Key      string   `json:"key" yaml:"key"`
	Operator string   `json:"operator" yaml:"operator"`
	Values   []string `json:"values,omitempty" yaml:"values,omitempty"`
}

// LabelSelector is s as metav1 has it.
func (s *WaveSelector) LabelSelector() *metav1.LabelSelector {
	out := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: r.Values})
	}
	return out
}

// SoakDuration and TimeoutDuration are the rollout's durations, which
// validate checked.
func (r *Rollout) SoakDuration() time.Duration {
	d, _ := time.ParseDuration(r.Soak)
	return d
}

// TimeoutDuration is the per-wave timeout, DefaultWaveTimeout when unset.
func (r *Rollout) TimeoutDuration() time.Duration {
	if r.Timeout == "" {
		return DefaultWaveTimeout
	}
	d, _ := time.ParseDuration(r.Timeout)
	return d
}

func (r *Rollout) validate(pos manifest.Positions) []error {
	var errs []error
	if len(r.Waves) == 0 {
		errs = append(errs, pos.Errorf("rollout.waves", "needs at least one wave"))
	}
	names := map[string]int{}
	for i, w := range r.Waves {
		path := fmt.Sprintf("rollout.waves[%d]", i)
		for _, msg := range validation.IsDNS1123Label(w.Name) {
			errs = append(errs, pos.Errorf(path+".name", "%s", msg))
		}
		if first, dup := names[w.Name]; dup && w.Name != "" {
			errs = append(errs, pos.Errorf(path+".name", "duplicate wave name %q (also rollout.waves[%d])", w.Name, first))
		}
		names[w.Name] = i
		if w.Clusters != nil && w.ClusterSelector != nil {
			errs = append(errs, pos.Errorf(path, "clusters and clusterSelector are exclusive: a wave selects by one of them, or by neither (every member not in an earlier wave)"))
		}
		if w.Clusters != nil && len(w.Clusters) == 0 {
			errs = append(errs, pos.Errorf(path+".clusters", "is empty: name members, or leave it out"))
		}
		for j, c := range w.Clusters {
			if slices.Index(w.Clusters, c) != j {
				errs = append(errs, pos.Errorf(fmt.Sprintf("%s.clusters[%d]", path, j), "duplicate member %q", c))
			}
		}
		if s := w.ClusterSelector; s != nil {
			if _, err := metav1.LabelSelectorAsSelector(s.LabelSelector()); err != nil {
				errs = append(errs, pos.Errorf(path+".clusterSelector", "%v", err))
			}
		}
		if w.MaxConcurrency < 0 {
			errs = append(errs, pos.Errorf(path+".maxConcurrency", "must not be negative, got %d", w.MaxConcurrency))
		}
	}
	for _, f := range []struct{ field, value string }{{"soak", r.Soak}, {"timeout", r.Timeout}} {
		if f.value == "" {
			continue
		}
		if d, err := time.ParseDuration(f.value); err != nil || d < 0 || (f.field == "timeout" && d == 0) {
			errs = append(errs, pos.Errorf("rollout."+f.field, "must be a positive duration such as 60s or 10m, got %q", f.value))
		}
	}
	// The soak is part of the wave's time, after the wave is Current: one
	// as long as the timeout could never end.
	if soak, err := time.ParseDuration(r.Soak); err == nil && soak > 0 {
		if timeout := r.TimeoutDuration(); timeout > 0 && soak >= timeout {
			errs = append(errs, pos.Errorf("rollout.soak", "%s is not shorter than the wave timeout %s (rollout.timeout), which it is part of: no wave could end; shorten it, or raise rollout.timeout", ShortDuration(soak), ShortDuration(timeout)))
		}
	}
	if r.MaxFailures < 0 {
		errs = append(errs, pos.Errorf("rollout.maxFailures", "must not be negative, got %d", r.MaxFailures))
	}
	return errs
}
