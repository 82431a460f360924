package propagate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
)

func TestMemberAppliersBuildsOncePerMember(t *testing.T) {
	t.Parallel()
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "cluster1"}, false))
	require.NoError(t, fed.Put(members.Member{Name: "cluster2"}, false))
	built := map[string]int{}
	fail := true
	appliers := MemberAppliers(fed, members.Access{}, func(_ members.Access, m members.Member) (Applier, error) {
		built[m.Name]++
		if m.Name == "cluster2" && fail {
			return nil, errors.New("unusable kubeconfig")
		}
		return newFake(), nil
	})

	a, err := appliers("cluster1")
	require.NoError(t, err)
	again, err := appliers("cluster1")
	require.NoError(t, err)
	assert.Same(t, a, again, "one Applier per member for the run")

	_, err = appliers("cluster2")
	assert.EqualError(t, err, "unusable kubeconfig")
	fail = false
	_, err = appliers("cluster2")
	assert.NoError(t, err, "a failure is not cached")
	assert.Equal(t, map[string]int{"cluster1": 1, "cluster2": 2}, built)

	_, err = appliers("cluster9")
	var nm *members.NotMemberError
	assert.True(t, errors.As(err, &nm))
}
