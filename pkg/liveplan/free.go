package liveplan

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/capacity"
	"github.com/fedctl/fedctl/pkg/members"
)

// Free reads what a member has free for more pods: its nodes'
// allocatable, nodes marked unschedulable left out, minus the requests of
// its pods that have not finished (capacity.Free). Reads are retried for
// as long as ctx allows: ctx must bound them.
func Free(ctx context.Context, client members.Client) (capacity.Amounts, error) {
	nodeMapping, err := client.Map(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Node"})
	if err != nil {
		return nil, err
	}
	podMapping, err := client.Map(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		return nil, err
	}
	nodeList, err := client.List(ctx, nodeMapping, members.ListOptions{})
	if err != nil {
		return nil, err
	}
	var nodes []capacity.Node
	for _, n := range nodeList {
		alloc, _, _ := unstructured.NestedMap(n.Object, "status", "allocatable")
		unsched, _, _ := unstructured.NestedBool(n.Object, "spec", "unschedulable")
		nodes = append(nodes, capacity.Node{Name: n.GetName(), Allocatable: alloc, Unschedulable: unsched})
	}
	podList, err := client.List(ctx, podMapping, members.ListOptions{FieldSelector: "status.phase!=Succeeded,status.phase!=Failed"})
	if err != nil {
		return nil, err
	}
	var specs []map[string]any
	for _, p := range podList {
		if node, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName"); node == "" {
			continue // not on a node yet: it takes nothing there
		}
		spec, _, _ := unstructured.NestedMap(p.Object, "spec")
		specs = append(specs, spec)
	}
	return capacity.Free(nodes, specs), nil
}
