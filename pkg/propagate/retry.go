package propagate

import (
	"context"

	"github.com/fedctl/fedctl/pkg/members"
)

// withRetry sends a request until it succeeds, fails for good, or the
// member's time leaves no room for another try (members.Retry). Every
// request propagate sends is idempotent: reads, server-side applies, merge
// patches of fixed values, and deletes with a UID precondition (a second
// one finds nothing, or another object, and changes nothing).
func withRetry(ctx context.Context, fn func() error) error {
	return members.Retry(ctx, members.Idempotent, fn)
}
