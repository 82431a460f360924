package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// ApplySetFromFlags is the ApplySet that --prune and --applyset ask for
// (nil without --prune), with the tooling annotation of fedctl at version.
// The flags go together: either alone is an error.
func ApplySetFromFlags(prune bool, applyset, namespace, version string) (*propagate.ApplySet, error) {
	switch {
	case prune && applyset == "":
		return nil, errors.New("--prune needs --applyset NAME: fedctl prunes only the objects of an ApplySet")
	case !prune && applyset != "":
		return nil, errors.New("--applyset needs --prune")
	case !prune:
		return nil, nil
	}
	if version == "" {
		version = "dev"
	}
	set, err := propagate.ParseApplySet(applyset, namespace, "fedctl/"+version)
	if err != nil {
		return nil, err
	}
	return &set, nil
}

// WriteSummary writes one line per member with its counts, then a line
// for each object that failed or was skipped, for people (stderr).
func WriteSummary(w io.Writer, cs *iostreams.ColorScheme, r *propagate.Report) {
	suffix := ""
	switch r.DryRun {
	case "client":
		suffix = " (client dry run: nothing written)"
	case "server":
		suffix = " (server dry run: nothing changed)"
	}
	for _, c := range r.Clusters {
		icon := cs.SuccessIcon()
		if c.Failed() {
			icon = cs.FailureIcon()
		}
		var counts []string
		for _, a := range propagate.ActionOrder {
			if n := c.Count(a); n > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", n, a))
			}
		}
		retries := ""
		if c.Retries > 0 {
			retries = fmt.Sprintf(" (%d %s, %.1fs waiting)", c.Retries, plural(c.Retries, "retry", "retries"), c.RetryWaitSeconds)
		}
		switch {
		case c.Error != "" && c.Count(propagate.Failed) == len(c.Objects):
			// nothing was done: the reason is the whole story
			fmt.Fprintf(w, "%s cluster %s: %s%s\n", icon, c.Cluster, c.Error, retries)
			continue
		case c.Error != "":
			// part was done before, or beside, what failed
			fmt.Fprintf(w, "%s cluster %s: %s%s%s; %s\n", icon, c.Cluster, strings.Join(counts, ", "), suffix, retries, c.Error)
		case len(counts) == 0:
			fmt.Fprintf(w, "%s cluster %s: nothing to do%s%s\n", icon, c.Cluster, suffix, retries)
		default:
			fmt.Fprintf(w, "%s cluster %s: %s%s%s\n", icon, c.Cluster, strings.Join(counts, ", "), suffix, retries)
		}
		for _, o := range c.Objects {
			switch o.Action {
			case propagate.Failed:
				fmt.Fprintf(w, "    %s %s: %s\n", cs.Red("failed"), o.Ref(), o.Error)
			case propagate.Skipped:
				fmt.Fprintf(w, "    %s %s: %s\n", cs.Yellow("skipped"), o.Ref(), o.Error)
			}
		}
	}
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
