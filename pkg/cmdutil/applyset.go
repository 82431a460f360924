package cmdutil

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// ApplySetLookupTimeout bounds the search for an ApplySet's parent in one
// member.
const ApplySetLookupTimeout = 10 * time.Second

// FindApplySetNamespace settles the namespace of set's parent when
// --applyset was given without -n: the namespace decides the set's ID, so
// guessing "default" would silently start a second set beside the one in
// use. The parent is looked up by name in every namespace of the members:
// found in exactly one namespace, set.Namespace becomes it and a line on
// errOut says so; found in several, or nowhere, it is a usage error asking
// for -n (listing the namespaces, or saying no member holds the set yet).
func FindApplySetNamespace(ctx context.Context, errOut io.Writer, set *propagate.ApplySet, clusters []string, clients func(string) (members.Client, error), timeout time.Duration) error {
	found, failed := propagate.FindApplySet(ctx, *set, clusters, clients, min(timeout, ApplySetLookupTimeout))
	if err := ctx.Err(); err != nil {
		return err
	}
	unread := ""
	if len(failed) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(failed)) {
			parts = append(parts, fmt.Sprintf("%s: %v", c, failed[c]))
		}
		unread = fmt.Sprintf(" (not searched, could not be read: %s)", strings.Join(parts, "; "))
	}
	ref := fmt.Sprintf("%s %s", set.Kind(), set.Name)
	switch namespaces := slices.Sorted(maps.Keys(found)); len(namespaces) {
	case 0:
		return FlagErrorf("--applyset %s needs -n NAMESPACE: no member cluster holds the parent %s in any namespace yet%s, and the namespace is part of the set's identity", set.Name, ref, unread)
	case 1:
		set.Namespace = namespaces[0]
		fmt.Fprintf(errOut, "ApplySet %s: using namespace %s, where its parent %s is (%s); give -n to choose%s\n",
			set.Name, set.Namespace, ref, strings.Join(found[set.Namespace], ", "), unread)
		return nil
	default:
		var parts []string
		for _, ns := range namespaces {
			parts = append(parts, fmt.Sprintf("%s (%s)", ns, strings.Join(found[ns], ", ")))
		}
		return FlagErrorf("--applyset %s is ambiguous without -n: its parent %s is in several namespaces: %s; give -n NAMESPACE", set.Name, ref, strings.Join(parts, ", "))
	}
}
