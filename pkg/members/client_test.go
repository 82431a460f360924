package members

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubClient stands for a member's Client where only its identity matters.
type stubClient struct{ Client }

func TestClientsBuildsOncePerMember(t *testing.T) {
	t.Parallel()
	fed := New()
	require.NoError(t, fed.Put(Member{Name: "cluster1"}, false))
	require.NoError(t, fed.Put(Member{Name: "cluster2"}, false))
	built := map[string]int{}
	fail := true
	clients := Clients(fed, Access{}, func(_ Access, m Member) (Client, error) {
		built[m.Name]++
		if m.Name == "cluster2" && fail {
			return nil, errors.New("unusable kubeconfig")
		}
		return &stubClient{}, nil
	})

	a, err := clients("cluster1")
	require.NoError(t, err)
	again, err := clients("cluster1")
	require.NoError(t, err)
	assert.Same(t, a, again, "one Client per member for the run")

	_, err = clients("cluster2")
	assert.EqualError(t, err, "unusable kubeconfig")
	fail = false
	_, err = clients("cluster2")
	assert.NoError(t, err, "a failure is not cached")
	assert.Equal(t, map[string]int{"cluster1": 1, "cluster2": 2}, built)

	_, err = clients("cluster9")
	var nm *NotMemberError
	assert.True(t, errors.As(err, &nm))
}

// TestAnsweringOnly: a member that did not answer when the plan was made
// gets no client, and so no request, with the reason; the others get
// theirs.
func TestAnsweringOnly(t *testing.T) {
	asked := map[string]int{}
	clients := func(name string) (Client, error) { asked[name]++; return nil, nil }
	only := AnsweringOnly([]string{"a"}, map[string]string{"b": "connection refused"}, clients)
	_, err := only("a")
	require.NoError(t, err)
	_, err = only("b")
	assert.EqualError(t, err, "did not answer when the plan was made (connection refused); nothing was sent to it, and the next run plans over it again")
	_, err = only("c")
	assert.ErrorContains(t, err, "(/healthz)")
	assert.Equal(t, map[string]int{"a": 1}, asked)
}
