package cmdutil

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// TestRenderAgainFromDocs: a second render for another federation (drain's
// and migrate's "after") takes the documents the first one read, so that
// -f - (stdin, which cannot be read twice) renders the same input twice.
func TestRenderAgainFromDocs(t *testing.T) {
	fed := members.New()
	for _, name := range []string{"a", "b"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
	}
	file := func() (*members.File, error) { return &members.File{Federation: fed}, nil }
	ios, stdin, _, _ := iostreams.Test()
	stdin.WriteString(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
`)
	in := RenderInput{Federation: file, Filenames: []string{"-"}, Namespace: "default"}
	first, err := Render(ios, in)
	require.NoError(t, err)
	require.Len(t, first.Docs, 1)
	assert.Zero(t, stdin.Len(), "stdin was read")

	in.Docs = first.Docs
	second, err := Render(ios, in)
	require.NoError(t, err, "stdin is not read again")
	assert.Len(t, second.Result.Targets, len(first.Result.Targets))
	assert.Len(t, second.Result.Targets, 2)
}

// TestRenderWithLivePlanRendersOnce: a run whose replica plans read the
// members renders its set once, after the read, and not once before it as
// well. Measured by allocations, which do not depend on the machine's
// speed: rendering is about a quarter of them here (decoding is most of
// the rest), so a second render makes the live run allocate a third more
// than the offline run.
func TestRenderWithLivePlanRendersOnce(t *testing.T) {
	fed := members.New()
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
	}
	file := func() (*members.File, error) { return &members.File{Federation: fed}, nil }
	var src strings.Builder
	src.WriteString("apiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop, namespace: shop}\nspec: {placement: {clusterSelector: {}}}\n")
	for i := range 200 {
		fmt.Fprintf(&src, `---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web%d, namespace: shop}
spec:
  placement: {clusterSelector: {}}
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web%d}}
      template:
        metadata: {labels: {app: web%d}}
        spec: {containers: [{name: web, image: "nginx:1.27"}]}
  overrides:
  - clusterName: b
    clusterOverrides: [{path: /spec/template/spec/containers/0/image, value: "nginx:1.28"}]
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web%d, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`, i, i, i, i)
	}
	docs, err := manifest.Split("app.yaml", []byte(src.String()))
	require.NoError(t, err)
	ios, _, _, _ := iostreams.Test()
	reads := 0
	live := func(context.Context, *members.Federation, *federation.Set) *render.Live {
		reads++
		return &render.Live{Answering: []string{"a", "b", "c"}}
	}
	offline := RenderInput{Federation: file, Docs: docs, Namespace: "default"}
	online := offline
	online.Live = live

	var offlineOut, onlineOut *Rendered
	offlineAllocs := testing.AllocsPerRun(3, func() {
		offlineOut, err = Render(ios, offline)
	})
	require.NoError(t, err)
	onlineAllocs := testing.AllocsPerRun(3, func() {
		onlineOut, err = Render(ios, online)
	})
	require.NoError(t, err)
	require.Positive(t, reads, "the live read ran")
	require.NotNil(t, onlineOut.Live)
	assert.Len(t, onlineOut.Result.Targets, len(offlineOut.Result.Targets))
	ratio := onlineAllocs / offlineAllocs
	t.Logf("allocations: offline %.0f, live %.0f (%.2f×)", offlineAllocs, onlineAllocs, ratio)
	assert.Less(t, ratio, 1.15, "the live run rendered more than once (the old code came to 1.33×)")
}
