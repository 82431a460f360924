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
		writeObjectFailures(w, cs, c.Objects)
	}
}

// collapseAbove is the most objects that fail (or are skipped) for the
// same reason and are still listed one by one; more are one line.
const collapseAbove = 3

// writeObjectFailures writes the objects that failed or were skipped,
// grouped by what happened: a member that dies midway fails its remaining
// objects with one error, which is one line ("32 objects failed: the API
// server refused the connection"), and the objects a deadline left are
// always one line ("N objects not attempted: deadline reached").
func writeObjectFailures(w io.Writer, cs *iostreams.ColorScheme, objects []propagate.ObjectResult) {
	type group struct {
		action  propagate.Action
		message string
		objects []propagate.ObjectResult
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, o := range objects {
		if o.Action != propagate.Failed && o.Action != propagate.Skipped {
			continue
		}
		key := [2]string{string(o.Action), o.Error}
		g := index[key]
		if g == nil {
			g = &group{action: o.Action, message: o.Error}
			index[key] = g
			groups = append(groups, g)
		}
		g.objects = append(g.objects, o)
	}
	for _, g := range groups {
		word := cs.Red("failed")
		if g.action == propagate.Skipped {
			word = cs.Yellow("skipped")
		}
		n := len(g.objects)
		switch {
		case g.message == propagate.NotAttemptedDeadline:
			fmt.Fprintf(w, "    %d %s %s\n", n, plural(int64(n), "object", "objects"), cs.Red(g.message))
		case n > collapseAbove:
			fmt.Fprintf(w, "    %d objects %s: %s (%s, %s and %d more)\n", n, word, g.message, g.objects[0].Ref(), g.objects[1].Ref(), n-2)
		default:
			for _, o := range g.objects {
				fmt.Fprintf(w, "    %s %s: %s\n", word, o.Ref(), o.Error)
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
