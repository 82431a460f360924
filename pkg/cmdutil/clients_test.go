package cmdutil

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
)

// TestMemberClientsShareOneClientPerMember: a run reads its access once,
// tunes it, and builds each member's client once, whoever asks (the live
// read, the push, the DNS step); a DNS cluster that is a member gets the
// member's client, one that is a kubeconfig context a client of its own.
func TestMemberClientsShareOneClientPerMember(t *testing.T) {
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "a"}, false))
	require.NoError(t, fed.Put(members.Member{Name: "b"}, false))
	reads, built := 0, map[string]int{}
	var timeouts []time.Duration
	clients := NewMemberClients(func() (members.Access, error) {
		reads++
		return members.Access{}, nil
	}, func(a members.Access, m members.Member) (members.Client, error) {
		built[m.Name]++
		timeouts = append(timeouts, a.Timeout)
		return memberstest.New(), nil
	}, Tuning{Timeout: 7 * time.Second})

	first, err := clients.Of(fed)
	require.NoError(t, err)
	again, err := clients.Of(fed)
	require.NoError(t, err)
	a1, err := first("a")
	require.NoError(t, err)
	a2, err := again("a")
	require.NoError(t, err)
	assert.Same(t, a1, a2, "one client of a for the run")
	dns, err := OpenDNS(fed, "a", clients)
	require.NoError(t, err)
	wrapped, ok := dns.Client.(interface{ Unwrap() members.Client })
	require.True(t, ok, "the DNS cluster's requests are bounded one by one (members.Bounded)")
	assert.Same(t, a1, wrapped.Unwrap(), "the DNS cluster a is the member a: its client")
	_, err = OpenDNS(fed, "elsewhere", clients)
	require.NoError(t, err)
	_, err = first("nosuch")
	assert.ErrorContains(t, err, "nosuch")
	assert.Equal(t, 1, reads, "the access is read once")
	assert.Equal(t, map[string]int{"a": 1, "elsewhere": 1}, built)
	assert.Equal(t, []time.Duration{7 * time.Second, 7 * time.Second}, timeouts, "every client has the tuned access")
}

// TestMemberClientsAccessError: an access that cannot be read is every
// caller's error, and is not read again.
func TestMemberClientsAccessError(t *testing.T) {
	reads := 0
	clients := NewMemberClients(func() (members.Access, error) {
		reads++
		return members.Access{}, errors.New("kubeconfig: no such file")
	}, nil, Tuning{})
	_, err := clients.Of(members.New())
	assert.EqualError(t, err, "kubeconfig: no such file")
	_, err = clients.Open(members.Member{Name: "x"})
	assert.EqualError(t, err, "kubeconfig: no such file")
	assert.Equal(t, 1, reads)
}
