package propagate

import "github.com/fedctl/fedctl/pkg/members"

// explain says in words what a failed request means for the member.
func explain(err error) error { return members.RequestError(err) }
