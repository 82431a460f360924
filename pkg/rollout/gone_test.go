package rollout

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestWaitGone: a delete wave waits for what it deleted, in the members it
// is judged on; an object still there at the wave's end, or a member that
// cannot be read, is the member's reason, naming the objects; a type no
// longer served (its CRD went too) is gone.
func TestWaitGone(t *testing.T) {
	t.Parallel()
	cm, _ := typeconfig.Default("configmaps")
	deleted := func(kind, apiVersion, name string) propagate.ObjectResult {
		return propagate.ObjectResult{APIVersion: apiVersion, Kind: kind, Namespace: "shop", Name: name, Action: propagate.Deleted}
	}
	report := &propagate.Report{Clusters: []propagate.ClusterResult{
		{Cluster: "a", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "held"), deleted("Widget", "example.com/v1", "w"), // not served by a
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "kept", Action: propagate.Unchanged}}},
		{Cluster: "b", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "x")}},
		{Cluster: "c", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "y")}},
	}}
	a, b := memberstest.New(cm), memberstest.New(cm)
	held := &unstructured.Unstructured{}
	held.SetName("held")
	a.Put(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "held"), held)
	a.Put(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "kept"), held.DeepCopy())
	b.SetDown(errors.New("connection refused"))
	var progress bytes.Buffer
	r := &runner{out: &progress, in: Input{Plan: &Plan{Timeout: 300 * time.Millisecond}, Interval: 50 * time.Millisecond,
		Clients: func(c string) (members.Client, error) {
			return map[string]members.Client{"a": a, "b": b}[c], nil
		}}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	reasons := r.waitGone(ctx, report, []string{"a", "b"}) // c failed before: not judged
	assert.Equal(t, map[string]string{
		"a": "not gone within the wave timeout 300ms: ConfigMap shop/held",
		"b": "not gone within the wave timeout 300ms: ConfigMap shop/x (last read: connection refused)",
	}, reasons)
	assert.Contains(t, progress.String(), "waiting until the 3 deleted objects are gone")

	a.Remove(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "held"))
	b.SetDown(nil)
	progress.Reset()
	assert.Empty(t, r.waitGone(context.Background(), report, []string{"a", "b"}))
	assert.Contains(t, progress.String(), "  gone\n")
}
