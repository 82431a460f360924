package cmdutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
)

func TestEmptySelectionError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name        string
		src         Source
		consequence string
		want        string
	}{
		{"files", Source{Filenames: []string{"a", "-"}}, "",
			"-f a, STDIN holds no federated objects; check the -f path, or pass --allow-empty if that is what you mean"},
		{"a kustomization", Source{Kustomize: "overlay"}, "",
			"-k overlay holds no federated objects; check the -k directory, or pass --allow-empty if that is what you mean"},
		{"a selector", Source{Filenames: []string{"dir"}, Selector: "app=web"}, "",
			"-f dir holds no federated objects matching -l app=web; check the -f path and the selector, or pass --allow-empty if that is what you mean"},
		{"with a consequence", Source{Kustomize: "k"}, "with --prune this would delete everything",
			"-k k holds no federated objects: with --prune this would delete everything; check the -k directory, or pass --allow-empty if that is what you mean"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.EqualError(t, EmptySelectionError(tt.src, tt.consequence), tt.want)
		})
	}
	assert.Equal(t, EmptySelectionError(Source{Filenames: []string{"x"}}, "c"), EmptyInputError([]string{"x"}, "c"))
}

func TestParseSelector(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		selector string
		labels   map[string]string
		want     bool
		wantErr  string
	}{
		{selector: "app=web", labels: map[string]string{"app": "web"}, want: true},
		{selector: "app=web", labels: map[string]string{"app": "api"}},
		{selector: "tier in (a,b),!canary", labels: map[string]string{"tier": "b"}, want: true},
		{selector: "tier in (a,b),!canary", labels: map[string]string{"tier": "b", "canary": "1"}},
		{selector: "app in (web", wantErr: "-l app in (web: unable to parse requirement: found '', expected: ',' or ')'"},
	} {
		t.Run(tt.selector, func(t *testing.T) {
			t.Parallel()
			sel, err := ParseSelector(tt.selector)
			if tt.wantErr != "" {
				var fe *FlagError
				require.ErrorAs(t, err, &fe, "a usage error: exit 2")
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel.Matches(labels.Set(tt.labels)))
		})
	}
	sel, err := ParseSelector("")
	require.NoError(t, err)
	assert.Nil(t, sel, "no -l: every object")
}

func TestCheckInputFlags(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckInputFlags([]string{"a"}, ""))
	assert.NoError(t, CheckInputFlags(nil, "k"))
	assert.EqualError(t, CheckInputFlags([]string{"a"}, "k"), "-f and -k cannot be used together")
	assert.EqualError(t, CheckInputFlags(nil, ""), "-f is required: a file, a directory, an http(s) URL or - for standard input; or -k DIR for a kustomization")
	assert.NoError(t, CheckPruneSelector(true, ""))
	assert.NoError(t, CheckPruneSelector(false, "a=b"))
	assert.ErrorContains(t, CheckPruneSelector(true, "a=b"), "--prune cannot be used with -l a=b")
}
