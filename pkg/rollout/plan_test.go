package rollout

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
)

const threeMembers = `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- {name: c1, labels: {tier: canary, region: eu}}
- {name: c2, labels: {region: eu}}
- {name: c3, labels: {region: us}}
- {name: c4, labels: {region: ap}}
types: []
`

func load(t *testing.T, content string) *members.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "federation.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	file, err := members.Load(path)
	require.NoError(t, err)
	return file
}

func clustersOf(p *Plan) map[string][]string {
	out := map[string][]string{}
	for _, w := range p.Waves {
		out[w.Name] = w.Clusters
	}
	return out
}

func TestFromFile(t *testing.T) {
	file := load(t, threeMembers+`rollout:
  waves:
  - name: canary
    clusterSelector: {matchLabels: {tier: canary}}
  - name: eu
    clusterSelector:
      matchExpressions: [{key: region, operator: In, values: [eu]}]
    maxConcurrency: 2
  - name: listed
    clusters: [c3, gone]
  - name: rest
  soak: 90s
  timeout: 5m
  maxFailures: 1
`)
	p, err := FromFile(file, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"canary", "eu", "listed", "rest"}, p.Names())
	assert.Equal(t, map[string][]string{"canary": {"c1"}, "eu": {"c2"}, "listed": {"c3"}, "rest": {"c4"}}, clustersOf(p),
		"a member goes in the first wave that selects it; the catch-all takes the rest")
	assert.Equal(t, 2, p.Waves[1].MaxConcurrency)
	assert.Equal(t, 90*time.Second, p.Soak)
	assert.Equal(t, 5*time.Minute, p.Timeout)
	assert.Equal(t, 1, p.MaxFailures)
	assert.Equal(t, []string{"rollout wave listed: gone is not a member, ignored"}, p.Warnings)
	assert.Equal(t, "eu", p.WaveOf("c2"))
	assert.Equal(t, "", p.WaveOf("nobody"))

	// --waves: names of the file's waves, in another order
	p, err = FromFile(file, "rest,canary")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"rest": {"c1", "c2", "c3", "c4"}, "canary": {}}, clustersOf(p))
	assert.Contains(t, p.Warnings, "rollout wave canary selects no member not in an earlier wave; it is skipped")

	// --waves: selectors, * for the rest
	p, err = FromFile(file, "tier=canary;region in (eu,us);*")
	require.NoError(t, err)
	assert.Equal(t, []string{"tier=canary", "region in (eu,us)", "*"}, p.Names())
	assert.Equal(t, map[string][]string{"tier=canary": {"c1"}, "region in (eu,us)": {"c2", "c3"}, "*": {"c4"}}, clustersOf(p))
	assert.Equal(t, DefaultTimeoutOf(file), p.Timeout, "the file's timeout still applies")
}

// DefaultTimeoutOf is the file's wave timeout.
func DefaultTimeoutOf(file *members.File) time.Duration {
	return file.Federation.Rollout.TimeoutDuration()
}

func TestFromFileErrors(t *testing.T) {
	noCatchAll := load(t, threeMembers+`rollout:
  waves:
  - name: canary
    clusters: [c1]
  - name: eu
    clusterSelector: {matchLabels: {region: eu}}
`)
	_, err := FromFile(noCatchAll, "")
	require.Error(t, err)
	assert.Regexp(t, `federation.yaml:10: rollout.waves: c3, c4 in no wave: add them to a wave, or end the waves with one without clusters or clusterSelector \(every other member\)`, err.Error())

	_, err = FromFile(noCatchAll, "tier=canary")
	assert.EqualError(t, err, `--waves "tier=canary": c2, c3, c4 in no wave; end it with * to take every other member: --waves 'tier=canary;*'`)
	var waves *WavesError
	assert.ErrorAs(t, err, &waves, "a usage error")
	_, err = FromFile(noCatchAll, "canary")
	assert.EqualError(t, err, `--waves "canary": c2, c3, c4 in no wave; end it with * to take every other member: --waves 'canary,*'`)
	// following that hint gives a canary (it did not: "canary;*" made
	// canary a selector that matched no member, and * took them all)
	p, err := FromFile(noCatchAll, "canary,*")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"canary": {"c1"}, "*": {"c2", "c3", "c4"}}, clustersOf(p))
	_, err = FromFile(noCatchAll, "canary;*")
	assert.EqualError(t, err, `--waves "canary;*": wave 1, canary, is a wave of the federation file, but waves separated by ; are label selectors; name the file's waves separated by commas (--waves canary,*)`)
	_, err = FromFile(noCatchAll, "*,canary")
	assert.EqualError(t, err, `--waves "*,canary": * (every other member) can only be the last wave`)
	_, err = FromFile(noCatchAll, "canary,canary,*")
	assert.EqualError(t, err, `--waves "canary,canary,*": wave 2, canary, is given twice`)
	_, err = FromFile(noCatchAll, "canary,,*")
	assert.EqualError(t, err, `--waves "canary,,*": wave 2 is empty`, "as in the selector form")
	_, err = FromFile(noCatchAll, "canary,nope")
	assert.EqualError(t, err, `--waves "canary,nope": no wave "nope" in the federation file (waves: canary, eu)`)
	assert.ErrorAs(t, err, &waves)
	_, err = FromFile(noCatchAll, "tier in (;*")
	assert.ErrorContains(t, err, `--waves "tier in (;*": wave 1:`)
	_, err = FromFile(noCatchAll, "a=b;;*")
	assert.EqualError(t, err, `--waves "a=b;;*": wave 2 is empty`)
	_, err = FromFile(noCatchAll, "*;tier=canary")
	assert.EqualError(t, err, `--waves "*;tier=canary": * (every other member) can only be the last wave`, "as in the names form")
	_, err = FromFile(noCatchAll, "a=b;a=b;*")
	assert.EqualError(t, err, `--waves "a=b;a=b;*": wave 2, a=b, is given twice`)
	assert.ErrorAs(t, err, &waves)

	none := load(t, threeMembers)
	_, err = FromFile(none, "")
	assert.ErrorContains(t, err, "--rollout needs waves: add rollout.waves to the federation file")
	_, err = FromFile(none, "canary")
	assert.ErrorContains(t, err, "the federation file has no rollout.waves to name")
	p, err = FromFile(none, "region=eu;*")
	require.NoError(t, err)
	assert.Equal(t, members.DefaultWaveTimeout, p.Timeout)
}

// TestRolloutValidation: a bad rollout block is reported at its lines when
// the file is loaded, before anything else runs.
func TestRolloutValidation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "federation.yaml")
	require.NoError(t, os.WriteFile(path, []byte(threeMembers+`rollout:
  waves:
  - name: Canary
    clusters: [c1]
    clusterSelector: {matchLabels: {tier: canary}}
  - name: eu
    clusterSelector:
      matchExpressions: [{key: region, operator: Sometimes}]
    maxConcurrency: -1
  - name: eu
    clusters: []
  soak: soon
  timeout: 0s
  maxFailures: -2
`), 0o600))
	_, err := members.Load(path)
	require.Error(t, err)
	for _, want := range []string{
		"federation.yaml:11: rollout.waves[0].name: a lowercase RFC 1123 label must consist of",
		"federation.yaml:11: rollout.waves[0]: clusters and clusterSelector are exclusive",
		`federation.yaml:15: rollout.waves[1].clusterSelector: "Sometimes" is not a valid label selector operator`,
		"federation.yaml:17: rollout.waves[1].maxConcurrency: must not be negative, got -1",
		`federation.yaml:18: rollout.waves[2].name: duplicate wave name "eu" (also rollout.waves[1])`,
		"federation.yaml:19: rollout.waves[2].clusters: is empty: name members, or leave it out",
		`federation.yaml:20: rollout.soak: must be a positive duration such as 60s or 10m, got "soon"`,
		`federation.yaml:21: rollout.timeout: must be a positive duration such as 60s or 10m, got "0s"`,
		"federation.yaml:22: rollout.maxFailures: must not be negative, got -2",
	} {
		assert.Contains(t, err.Error(), want)
	}

	// a soak the wave timeout (given or default) leaves no time for
	for _, tc := range []struct{ rollout, want string }{
		{"  soak: 15m\n", "federation.yaml:12: rollout.soak: 15m is not shorter than the wave timeout 10m (rollout.timeout), which it is part of"},
		{"  soak: 2m\n  timeout: 2m\n", "federation.yaml:12: rollout.soak: 2m is not shorter than the wave timeout 2m"},
	} {
		require.NoError(t, os.WriteFile(path, []byte(threeMembers+"rollout:\n  waves:\n  - name: all\n"+tc.rollout), 0o600))
		_, err = members.Load(path)
		assert.ErrorContains(t, err, tc.want)
	}
	require.NoError(t, os.WriteFile(path, []byte(threeMembers+"rollout:\n  waves:\n  - name: all\n  soak: 9m\n"), 0o600))
	_, err = members.Load(path)
	assert.NoError(t, err)
}
