package render_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
)

func TestInputErrLeavesPerMemberErrors(t *testing.T) {
	t.Parallel()
	obj := &federation.Object{}
	obj.Kind, obj.Name = "FederatedConfigMap", "web"
	whole := &render.TargetError{Object: obj, Err: errors.New("spec.overrides[0].clusterOverrides[0].path: forbidden")}
	oneMember := &render.TargetError{Cluster: "cluster2", Object: obj, Err: errors.New("override 0 failed")}
	decode := errors.New("manifests.yaml:3: unknown field")
	res := &render.Result{Errors: []error{decode, oneMember, whole}}

	err := res.InputErr()
	require.Error(t, err)
	assert.ErrorIs(t, err, decode)
	assert.ErrorIs(t, err, whole)
	assert.NotContains(t, err.Error(), "override 0 failed", "per-member failures are reported per member")
	assert.NoError(t, (&render.Result{Errors: []error{oneMember}}).InputErr())
}
