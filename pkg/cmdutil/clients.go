package cmdutil

import (
	"sync"
	"time"

	"github.com/fedctl/fedctl/pkg/members"
)

// MemberClients are one run's way to its members. The access (kubeconfig,
// credentials, and the command's --timeout, --qps and --burst) is read
// once, and each member's Client is built on first use and kept
// (members.Clients): the live read that plans the replicas, the push, the
// wait and the DNS step of one run discover a member's types once and share
// its rate limit, instead of each building clients of its own.
type MemberClients struct {
	access    func() (members.Access, error)
	newClient func(members.Access, members.Member) (members.Client, error)
	tuning    Tuning

	once sync.Once
	a    members.Access
	err  error

	mu  sync.Mutex
	of  map[*members.Federation]func(string) (members.Client, error)
	dns map[*members.Federation]func(string) (*DNSTarget, error)
}

// Tuning is what a command sets on the access of its members: the
// per-request timeout and, when set, rate limits and request stats. Plain
// data, so that no command's code is called back from here.
type Tuning struct {
	Timeout time.Duration
	QPS     float32
	Burst   int
	Stats   *members.RequestStats
}

// Tuning is t's flags as a Tuning.
func (t MemberTimeFlags) Tuning() Tuning {
	return Tuning{Timeout: *t.Timeout, QPS: *t.QPS, Burst: *t.Burst}
}

// NewMemberClients reads the access through access when it is first
// needed and sets tuning on it. newClient builds a member's Client
// (members.NewMemberClient when nil; tests pass fakes).
func NewMemberClients(access func() (members.Access, error), newClient func(members.Access, members.Member) (members.Client, error), tuning Tuning) *MemberClients {
	if newClient == nil {
		newClient = members.NewMemberClient
	}
	return &MemberClients{access: access, newClient: newClient, tuning: tuning,
		of: map[*members.Federation]func(string) (members.Client, error){}, dns: map[*members.Federation]func(string) (*DNSTarget, error){}}
}

// TimedMemberClients are a run's clients with the command's time flags
// and, at -v 4 and up (verbosity), counting the requests into their Stats:
// apply's and delete's.
func TimedMemberClients(access func() (members.Access, error), newClient func(members.Access, members.Member) (members.Client, error), times MemberTimeFlags, verbosity int) *MemberClients {
	tuning := times.Tuning()
	if verbosity >= TimingVerbosity {
		tuning.Stats = &members.RequestStats{}
	}
	return NewMemberClients(access, newClient, tuning)
}

// Stats are what the clients' requests counted; nil when they count
// nothing (below -v 4).
func (c *MemberClients) Stats() *members.RequestStats { return c.tuning.Stats }

// Access is the run's access, tuned; an error when the kubeconfig cannot
// be read.
func (c *MemberClients) Access() (members.Access, error) {
	c.once.Do(func() {
		c.a, c.err = c.access()
		t := c.tuning
		if t.Timeout > 0 {
			c.a.Timeout = t.Timeout
		}
		if t.QPS > 0 {
			c.a.QPS = t.QPS
		}
		if t.Burst > 0 {
			c.a.Burst = t.Burst
		}
		if t.Stats != nil {
			c.a.Stats = t.Stats
		}
	})
	return c.a, c.err
}

// Of are the run's clients of fed's members: the same ones at every call
// with the same federation.
func (c *MemberClients) Of(fed *members.Federation) (func(string) (members.Client, error), error) {
	a, err := c.Access()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	clients, ok := c.of[fed]
	if !ok {
		clients = members.Clients(fed, a, c.newClient)
		c.of[fed] = clients
	}
	return clients, nil
}

// ForRendered are the clients of what was rendered: Of(in.Federation),
// without a client for the members a live read found not answering
// (members.AnsweringOnly), whose plans moved their shares away.
func (c *MemberClients) ForRendered(in *Rendered) (func(string) (members.Client, error), error) {
	clients, err := c.Of(in.Federation)
	if err != nil || in.Live == nil {
		return clients, err
	}
	return members.AnsweringOnly(in.Live.Answering, in.Live.Why, clients), nil
}

// Open builds a Client of m outside the federation's members (a DNS
// cluster named by its kubeconfig context), with the run's access.
func (c *MemberClients) Open(m members.Member) (members.Client, error) {
	a, err := c.Access()
	if err != nil {
		return nil, err
	}
	return c.newClient(a, m)
}
