package liveplan

import (
	"cmp"
	"context"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/planner"
	"github.com/fedctl/fedctl/pkg/render"
)

// Options say how to reach the members and what to read.
type Options struct {
	// Access reaches the members' health endpoints.
	Access members.Access
	// Clients are the run's clients of the members (cmdutil.MemberClients):
	// what the read discovers of a member's types, the push that follows
	// does not ask again.
	Clients func(cluster string) (members.Client, error)
	// Timeout bounds the health probe of every member, and then again the
	// reads of their replica state: the whole read takes at most twice it.
	Timeout time.Duration
	// KeepShares plans over every member, answering or not
	// (--no-failover).
	KeepShares bool
	// OfflinePlan reads which members answer but no replica state
	// (--offline-plan): plans are the manifests' alone.
	OfflinePlan bool
	// Now is the clock the pod analyzer compares with; time.Now when nil.
	Now func() time.Time
}

// targetKinds are the member kinds of the federated kinds an RSP targets.
var targetKinds = map[string]schema.GroupVersionKind{
	"FederatedDeployment": {Group: "apps", Version: "v1", Kind: "Deployment"},
	"FederatedReplicaSet": {Group: "apps", Version: "v1", Kind: "ReplicaSet"},
}

// Read probes every member's health (as get clusters does) and reads the
// replica state of every RSP target in the members that are ready. A
// member that cannot be read at all (no client, no discovery, its time
// ran out) counts as not answering: a plan made without it is made on
// what is known, and so does one that stops answering while it is read.
// One that answers a target's GET or pod LIST with a refusal (a 403, a
// 5xx that outlasted the retries) answers; that target alone is not
// planned (LiveReplicas.Unread), as KubeFed fails only that preference.
func Read(ctx context.Context, fed *members.Federation, set *federation.Set, opts Options) *render.Live {
	if ctx == nil {
		ctx = context.Background()
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(parent, opts.Timeout)
	defer cancel()
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	health := members.ProbeAll(ctx, opts.Access, fed.Clusters, len(fed.Clusters), 0)
	live := &render.Live{KeepShares: opts.KeepShares, Replicas: map[string]render.LiveReplicas{}, Why: map[string]string{}}
	var ready []members.Member
	for i, h := range health {
		if h.Ready() {
			ready = append(ready, fed.Clusters[i])
		} else {
			name := fed.Clusters[i].Name
			live.Why[name] = members.InMember(name, cmp.Or(h.Message(), h.State()))
		}
	}
	targets := rspTargets(set)
	if opts.OfflinePlan || len(targets) == 0 {
		for _, m := range ready {
			live.Answering = append(live.Answering, m.Name)
		}
		return live
	}
	for _, t := range targets {
		live.Replicas[t.TargetKey()] = render.LiveReplicas{Current: map[string]int64{}, Capacity: map[string]int64{}, Spec: map[string]int64{}}
	}
	// The reads get their own time: a slow probe must not leave them
	// none, and fail members over that answer.
	ctx, cancelReads := context.WithTimeout(parent, opts.Timeout)
	defer cancelReads()
	type memberRead struct {
		state map[string]memberState
		err   error
	}
	states, errs := members.Gather(ctx, len(ready), 0, len(ready), func(ctx context.Context, i int) memberRead {
		state, err := readMember(ctx, opts, ready[i], targets, now())
		return memberRead{state, err}
	})
	for i, m := range ready {
		if err := cmp.Or(errs[i], states[i].err); err != nil {
			// not answering, for the plan: on what is known
			live.Why[m.Name] = "its replica state could not be read: " + members.InMember(m.Name, members.RequestErrorIn(ctx, err).Error())
			continue
		}
		live.Answering = append(live.Answering, m.Name)
		for key, s := range states[i].state {
			if s.unread != nil {
				lr := live.Replicas[key]
				if lr.Unread == nil {
					lr.Unread = map[string]string{}
				}
				lr.Unread[m.Name] = members.RequestErrorIn(ctx, s.unread).Error()
				live.Replicas[key] = lr
				continue
			}
			if s.exists {
				live.Replicas[key].Current[m.Name] = s.current
				live.Replicas[key].Spec[m.Name] = s.spec
			}
			if s.capped {
				live.Replicas[key].Capacity[m.Name] = s.capacity
			}
		}
	}
	sort.Strings(live.Answering)
	return live
}

// rspTargets are the federated objects an RSP of the set targets.
func rspTargets(set *federation.Set) []*federation.Object {
	var out []*federation.Object
	seen := map[*federation.Object]bool{}
	for _, sc := range set.Scheduled() {
		if o := sc.Target; o != nil && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

type memberState struct {
	exists, capped          bool
	current, capacity, spec int64
	// unread is why the target's state could not be read in the member
	// (its GET or its pods' LIST failed): that preference is not
	// planned, the member still answers for the rest.
	unread error
}

// readMember reads one member's object of each target, fedctl's only (as
// KubeFed reads the objects its managed label marks), and, when its ready
// replicas are not its spec's, the pods its selector's matchLabels select.
func readMember(ctx context.Context, opts Options, m members.Member, targets []*federation.Object, now time.Time) (map[string]memberState, error) {
	client, err := opts.Clients(m.Name)
	if err != nil {
		return nil, err
	}
	out := map[string]memberState{}
	podMapping, err := client.Map(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		gvk, ok := targetKinds[t.Kind]
		if !ok {
			continue
		}
		mapping, err := client.Map(ctx, gvk)
		if err != nil {
			return nil, err
		}
		obj, err := client.Get(ctx, mapping, t.Namespace, t.Name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			if !members.Refused(ctx, err) {
				return nil, err // it did not answer: not this target's doing
			}
			out[t.TargetKey()] = memberState{unread: err}
			continue
		}
		if !federation.Owned(obj) {
			continue
		}
		spec, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
		ready, _, _ := unstructured.NestedInt64(obj.Object, "status", "readyReplicas")
		var pods []planner.Pod
		if spec != ready { // the pods count only then (planner.MemberReplicas)
			selector, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "selector", "matchLabels")
			list, err := client.List(ctx, podMapping, members.ListOptions{Namespace: t.Namespace, LabelSelector: labels.SelectorFromSet(selector).String()})
			if err != nil {
				if !members.Refused(ctx, err) {
					return nil, err
				}
				out[t.TargetKey()] = memberState{unread: err}
				continue
			}
			pods = podsOf(list)
		}
		current, capacity, capped := planner.MemberReplicas(spec, ready, pods, now)
		out[t.TargetKey()] = memberState{exists: true, current: current, capacity: capacity, capped: capped, spec: spec}
	}
	return out, nil
}

// podsOf is what the pod analyzer reads of listed pods.
func podsOf(list []unstructured.Unstructured) []planner.Pod {
	out := make([]planner.Pod, 0, len(list))
	for _, p := range list {
		phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
		pod := planner.Pod{Phase: phase}
		conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
		for _, c := range conds {
			cm, _ := c.(map[string]any)
			pc := planner.PodCondition{}
			pc.Type, _ = cm["type"].(string)
			pc.Status, _ = cm["status"].(string)
			pc.Reason, _ = cm["reason"].(string)
			if ts, _ := cm["lastTransitionTime"].(string); ts != "" {
				pc.LastTransitionTime, _ = time.Parse(time.RFC3339, strings.TrimSpace(ts))
			}
			pod.Conditions = append(pod.Conditions, pc)
		}
		out = append(out, pod)
	}
	return out
}
