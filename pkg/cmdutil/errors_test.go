package cmdutil

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMembersError(t *testing.T) {
	t.Parallel()
	assert.NoError(t, MembersError(nil, false))

	err := MembersError([]string{"cluster2"}, false)
	var partial *PartialError
	assert.True(t, errors.As(err, &partial), "some members failed: exit 3")
	assert.Equal(t, []string{"cluster2"}, partial.Failed)

	err = MembersError([]string{"cluster1", "cluster2"}, false)
	assert.True(t, errors.As(err, &partial), "every member had a failure, but something was done: exit 3")

	err = MembersError([]string{"cluster1", "cluster2"}, true)
	assert.False(t, errors.As(err, &partial), "nothing could be done: a plain error, exit 1")
	assert.EqualError(t, err, "every member cluster failed: cluster1, cluster2")
}
