package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/input"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/liveplan"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
)

// Failing says which problems the pipeline finds stop a command before it
// does anything.
type Failing int

const (
	// FailOnInput: problems in the input itself — reading, decoding, and
	// a federated object that fails for every member — stop the command;
	// an object that fails for one member stays in the result, for that
	// member's report (apply, diff, delete).
	FailOnInput Failing = iota
	// FailOnAny: any problem stops the command (render: what it prints
	// must be complete).
	FailOnAny
	// FailOnDecode: only an input that does not read or decode stops the
	// command; render problems are the command's to report (status,
	// explain).
	FailOnDecode
)

// RenderInput is what a command that renders reads: manifests (-f, -R, -n)
// and the members to work on (--cluster; none means every member).
type RenderInput struct {
	// Context cancels the fetch of -f URLs (Ctrl-C) and bounds the live
	// read; nil: never.
	Context    context.Context
	Federation func() (*members.File, error)
	Filenames  []string
	Recursive  bool
	// Kustomize is -k DIR, exclusive with Filenames.
	Kustomize string
	// Selector is -l: only the federated objects whose labels match.
	Selector  string
	Namespace string
	Clusters  []string
	Failing   Failing
	// KeepWarnings leaves the printing of warnings to the command (explain
	// prints those of the objects it explains); on failure they are
	// printed all the same.
	KeepWarnings bool
	// AllowEmpty lets a run with nothing to do through (--allow-empty): no
	// members, a named federation file that does not exist, an input
	// without federated objects. Without it each is an error, so that a
	// wrong path in a pipeline fails loudly instead of doing nothing.
	AllowEmpty bool
	// EmptyInputErr, when set, replaces the error for an input without
	// federated objects: apply says what --prune would then delete.
	EmptyInputErr error
	// Docs, when set, are the input already read by an earlier Render
	// (Rendered.Docs), rendered again for another federation (drain's and
	// migrate's "after"): -f, -k and stdin are read once per run.
	Docs []manifest.Document
	// Live, when set, reads what the members say that a plan depends on:
	// which members answer and, for ReplicaSchedulingPreferences, each
	// member's current replicas and capacity. It is called only when the
	// input needs it (an RSP, or a placement that depends on which
	// members answer: federation.Rules.ByReachability), between decoding
	// and the one render, which then uses it. Commands that reach members set it;
	// render and explain only with --live.
	Live LiveFunc
}

// LiveFunc reads what the members say for a set's plans (RenderInput.Live).
type LiveFunc func(ctx context.Context, fed *members.Federation, set *federation.Set) *render.Live

// EmptyInputError is the error for an input without federated objects:
// consequence says what the run would do with it, if anything.
func EmptyInputError(filenames []string, consequence string) error {
	return EmptySelectionError(Source{Filenames: filenames}, consequence)
}

// Source names the input of a run in messages: -f, -k and -l.
type Source struct {
	Filenames []string
	Kustomize string
	Selector  string
}

// EmptySelectionError is EmptyInputError for any input: -f or -k, and the
// -l selector that selected nothing.
func EmptySelectionError(src Source, consequence string) error {
	var msg, check string
	if src.Kustomize != "" {
		msg, check = "-k "+src.Kustomize, "the -k directory"
	} else {
		msg, check = "-f "+describeFilenames(src.Filenames), "the -f path"
	}
	if src.Selector != "" {
		msg += " holds no federated objects matching -l " + src.Selector
		check += " and the selector"
	} else {
		msg += " holds no federated objects"
	}
	if consequence != "" {
		msg += ": " + consequence
	}
	return errors.New(msg + "; check " + check + ", or pass --allow-empty if that is what you mean")
}

// ParseSelector parses -l as kubectl does; a bad selector is a usage
// error. Empty gives nil: every object.
func ParseSelector(s string) (labels.Selector, error) {
	if s == "" {
		return nil, nil
	}
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, FlagErrorf("-l %s: %v", s, err)
	}
	return sel, nil
}

// describeFilenames names the -f arguments as kubectl does, STDIN for -.
func describeFilenames(filenames []string) string {
	names := make([]string, len(filenames))
	for i, f := range filenames {
		names[i] = f
		if f == "-" {
			names[i] = "STDIN"
		}
	}
	return strings.Join(names, ", ")
}

// Membership is the federation a command works on, checked: its members,
// their labels and the enabled types as plain data, and the members to
// work on.
type Membership struct {
	File       *members.File
	Federation *members.Federation
	// PlainData are the types, the members and the members to work on
	// (Clusters: --cluster, else every member) as the pure stages take
	// them.
	members.PlainData
}

// LoadMembership loads the federation file through load and checks it for a
// command that works on members: a federation file named explicitly that
// does not exist, or one without members, is an error with the next step
// unless allowEmpty (--allow-empty); every --cluster must be a member.
func LoadMembership(load func() (*members.File, error), clusters []string, allowEmpty bool) (*Membership, error) {
	file, err := load()
	if err != nil {
		return nil, err
	}
	fed := file.Federation
	if !allowEmpty {
		if file.Missing && file.Named {
			return nil, fmt.Errorf("federation file %s does not exist; check --config and FEDCTL_CONFIG, or create it with \"fedctl join NAME --cluster-context CONTEXT --config %s\"", file.Path, file.Path)
		}
		if len(fed.Clusters) == 0 {
			return nil, fmt.Errorf("no member clusters in %s; add one with \"fedctl join NAME --cluster-context CONTEXT\" (or pass --allow-empty)", file.Path)
		}
	}
	plain, err := fed.Plain(clusters)
	if err != nil {
		return nil, err
	}
	return &Membership{File: file, Federation: fed, PlainData: plain}, nil
}

// Rendered is RenderInput read and rendered.
type Rendered struct {
	*Membership
	// Docs are the documents read (see RenderInput.Docs).
	Docs   []manifest.Document
	Set    *federation.Set
	Result *render.Result
	// Live is what the members said, when the render used it.
	Live *render.Live
}

// Render is the one preamble of every command that renders (render,
// explain, status, apply, diff, delete): it loads the federation
// (LoadMembership), reads the input (pkg/input: -f, -k), runs the pipeline
// on those plain data, prints the warnings to ios's stderr and fails as
// in.Failing says.
func Render(ios *iostreams.IOStreams, in RenderInput) (*Rendered, error) {
	if in.Kustomize != "" && len(in.Filenames) > 0 {
		return nil, FlagErrorf("-f and -k cannot be used together")
	}
	sel, err := ParseSelector(in.Selector)
	if err != nil {
		return nil, err
	}
	m, err := LoadMembership(in.Federation, in.Clusters, in.AllowEmpty)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Membership: m}
	defaultNamespace, err := ScopedNamespace(m.Federation, in.Namespace)
	if err != nil {
		return nil, err
	}
	// The input is read here, before the pipeline, which then works on
	// documents alone; what did read is decoded and rendered even when
	// reading failed, so that one run reports every problem of the input.
	docs, readErr := in.Docs, error(nil)
	if docs == nil {
		docs, readErr = input.Read(in.Context, input.Options{Filenames: in.Filenames, Recursive: in.Recursive, Kustomize: in.Kustomize, Stdin: ios.In, Warnings: ios.ErrOut})
	}
	r.Docs = docs
	pin := pipeline.Input{
		Docs:             docs,
		Selector:         sel,
		DefaultNamespace: defaultNamespace,
		Members:          r.Members,
		Types:            m.Types,
		Only:             in.Clusters,
		Namespace:        m.Federation.Namespace,
	}
	// The set is rendered once, after the live read when its plans or
	// placements need one: the read needs the decoded set only.
	set, err := pipeline.Compile(pin)
	if err == nil && in.Live != nil && needsLive(set) {
		live := in.Live(in.Context, m.Federation, set)
		pin.Live = live
		down := notAnswering(r.Members, live.Answering)
		if len(down) > 0 {
			why := make([]string, len(down))
			for i, m := range down {
				why[i] = m
				if reason := live.Reason(m); reason != "" {
					why[i] += " (" + reason + ")"
				}
			}
			fmt.Fprintf(ios.ErrOut, "%s members not answering: %s; replica plans and placements that depend on it use the members that answer\n",
				ios.ErrColorScheme().WarningIcon(), strings.Join(why, ", "))
			pin.Members = withUnreachable(r.Members, down)
		}
		if len(down) > 0 && byReachability(set) {
			// Karmada's clusterAffinities are decided while decoding.
			set, err = pipeline.Compile(pin)
		}
		r.Live = live
	}
	out := pipeline.Render(set, pin)
	err = errors.Join(readErr, err)
	r.Set, r.Result = out.Set, out.Result
	if err == nil && !in.AllowEmpty && len(r.Set.Objects) == 0 && (len(r.Set.RSPs) == 0 || sel != nil) {
		PrintWarnings(ios, r.Result.Warnings)
		if in.EmptyInputErr != nil {
			return nil, in.EmptyInputErr
		}
		return nil, EmptySelectionError(Source{Filenames: in.Filenames, Kustomize: in.Kustomize, Selector: in.Selector}, "")
	}
	switch in.Failing {
	case FailOnAny:
		err = errors.Join(err, r.Result.Err())
	case FailOnInput:
		err = errors.Join(err, r.Result.InputErr())
	case FailOnDecode:
		if err != nil {
			err = errors.Join(err, r.Result.Err())
		}
	}
	if err != nil || !in.KeepWarnings {
		PrintWarnings(ios, r.Result.Warnings)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// needsLive says whether the set's plans or placements depend on what the
// members say: a ReplicaSchedulingPreference, or an object placed by which
// members answer.
func needsLive(set *federation.Set) bool {
	return len(set.RSPs) > 0 || byReachability(set)
}

// byReachability says whether an object's placement was decided by which
// members answer (federation.Rules.ByReachability).
func byReachability(set *federation.Set) bool {
	return slices.ContainsFunc(set.Objects, func(o *federation.Object) bool { return o.Rules.ByReachability })
}

// notAnswering are the members not in answering.
func notAnswering(ms []placement.Cluster, answering []string) []string {
	var down []string
	for _, m := range ms {
		if !slices.Contains(answering, m.Name) {
			down = append(down, m.Name)
		}
	}
	return down
}

// withUnreachable is members with those named down marked Unreachable, as
// a copy.
func withUnreachable(ms []placement.Cluster, down []string) []placement.Cluster {
	out := make([]placement.Cluster, len(ms))
	for i, m := range ms {
		for _, d := range down {
			if m.Name == d {
				m.Unreachable = true
			}
		}
		out[i] = m
	}
	return out
}

// defaultProbeTimeout bounds a probe when --timeout does not.
const defaultProbeTimeout = 10 * time.Second

// ProbeTimeout is how long ProbeMembers waits: the command's per-request
// timeout when it has one.
func ProbeTimeout(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return defaultProbeTimeout
}

// PlanFlags are the flags of the commands that plan replicas from the
// members' live state (apply, diff).
type PlanFlags struct {
	// OfflinePlan plans from the manifests alone, as render does
	// (--offline-plan); which members answer still places Karmada's
	// clusterAffinities.
	OfflinePlan bool
	// NoFailover keeps the share of members that do not answer
	// (--no-failover).
	NoFailover bool
}

// AddPlanFlags adds --offline-plan and --no-failover.
func AddPlanFlags(cmd *cobra.Command, f *PlanFlags) {
	cmd.Flags().BoolVar(&f.OfflinePlan, "offline-plan", false, "Plan replicas from the manifests alone, as render does, instead of from the members' current replicas and capacity")
	cmd.Flags().BoolVar(&f.NoFailover, "no-failover", false, "Keep the replica share of members that do not answer, instead of planning over those that do (KubeFed's way)")
}

// OptInLive is the live read of --live on the commands that are offline
// without it (render, explain, convert), through the run's clients: nil
// when live is false.
func OptInLive(live bool, clients *MemberClients) LiveFunc {
	if !live {
		return nil
	}
	return LiveReader(clients, 0, PlanFlags{})
}

// NotAnswering are the members the live read found not answering (none
// without a live read), in the federation's order.
func (r *Rendered) NotAnswering() []string {
	if r.Live == nil {
		return nil
	}
	return notAnswering(r.Members, r.Live.Answering)
}

// LiveReader is a RenderInput.Live that reads the members through the
// run's clients (liveplan.Read), within timeout: the command's --timeout,
// or without one (0) ProbeTimeout's default.
func LiveReader(clients *MemberClients, timeout time.Duration, f PlanFlags) LiveFunc {
	timeout = ProbeTimeout(timeout)
	return func(ctx context.Context, fed *members.Federation, set *federation.Set) *render.Live {
		a, err := clients.Access()
		var of func(string) (members.Client, error)
		if err == nil {
			of, err = clients.Of(fed)
		}
		if err != nil {
			// The command reports its access error itself; plan as if
			// every member answered.
			all := make([]string, len(fed.Clusters))
			for i, m := range fed.Clusters {
				all[i] = m.Name
			}
			return &render.Live{Answering: all, KeepShares: f.NoFailover}
		}
		return liveplan.Read(ctx, fed, set, liveplan.Options{Access: a, Clients: of, Timeout: timeout, KeepShares: f.NoFailover, OfflinePlan: f.OfflinePlan})
	}
}

// ScopedNamespace is the namespace of objects that name none: -n, or in a
// namespace-scoped federation its namespace, which -n may only repeat (its
// default, "default", stands for it).
func ScopedNamespace(fed *members.Federation, flag string) (string, error) {
	scope := ""
	if fed != nil {
		scope = fed.Namespace
	}
	switch {
	case scope == "":
		return flag, nil
	case flag == "" || flag == "default" || flag == scope:
		return scope, nil
	}
	return "", FlagErrorf("-n %s: the federation is scoped to namespace %s (its file's namespace); leave -n out", flag, scope)
}

// NamespaceScope makes -n the federation's namespace when the federation is
// scoped to one (an error for another -n), so that an ApplySet parent is
// there too and is not looked for in other namespaces: it returns the
// namespace and whether it is settled. A federation that does not load is
// left to Render to report.
func NamespaceScope(load func() (*members.File, error), namespace string, given bool) (string, bool, error) {
	file, err := load()
	if err != nil || file.Federation == nil || file.Federation.Namespace == "" {
		return namespace, given, nil
	}
	ns, err := ScopedNamespace(file.Federation, namespace)
	return ns, true, err
}
