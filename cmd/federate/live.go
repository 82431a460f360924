package federate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func jsonIndent(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// runLive reads TYPE NAME from a member and prints its federated object,
// with the namespace's contents after it when asked.
func (o *FederateOptions) runLive(cmd *cobra.Command) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), o.Timeout)
	defer cancel()
	err := o.readLive(ctx)
	// The request's own timeout (the same --timeout) can end it a moment
	// before the context's timer marks ctx done: the clock says which.
	deadline, _ := ctx.Deadline()
	if err != nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || !time.Now().Before(deadline)) {
		return fmt.Errorf("%w (not read within --timeout %s)", err, o.Timeout)
	}
	return err
}

func (o *FederateOptions) readLive(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	m, err := o.member(file.Federation)
	if err != nil {
		return err
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	client, err := members.NewMemberClient(access, m)
	if err != nil {
		return err
	}
	lists, err := members.ResourcesOf(ctx, client, m)
	var partial *members.DiscoveryError
	switch {
	case errors.As(err, &partial):
		o.warn(m.Name, partial.Error())
	case err != nil:
		return err
	}
	t, err := typeconfig.Resolve(o.TypeName, "", lists)
	if err != nil {
		return fmt.Errorf("cluster %s: %w", m.Name, err)
	}
	if o.Contents && t.Kind != "Namespace" {
		return fmt.Errorf("--contents works for namespaces only, not %s", t.Kind)
	}
	namespace := o.Namespace
	switch {
	case t.Kind == "Namespace":
		namespace = o.Name
	case namespace == "" && t.Namespaced():
		namespace = members.ContextNamespace(access, m)
	}
	obj, err := getObject(ctx, client, t, namespace, o.Name)
	if err != nil {
		return members.MemberError(client, m, err)
	}
	reg, err := file.Federation.Registry()
	if err != nil {
		return err
	}
	out, err := o.convert([]unstructured.Unstructured{*obj}, reg, m.Name)
	if err != nil {
		return err
	}
	if o.Contents {
		contents, err := o.contents(ctx, client, m, lists, namespace, reg)
		if err != nil {
			return err
		}
		out = append(out, contents...)
	}
	return o.print(out)
}

// member is --cluster, or the first member by name.
func (o *FederateOptions) member(fed *members.Federation) (members.Member, error) {
	switch len(o.Cluster) {
	case 0:
		if len(fed.Clusters) == 0 {
			return members.Member{}, errors.New("no member clusters to read from; join one with \"fedctl join NAME --cluster-context CONTEXT\"")
		}
		return fed.Clusters[0], nil
	case 1:
		m, ok := fed.Member(o.Cluster[0])
		if !ok {
			return members.Member{}, &members.NotMemberError{Name: o.Cluster[0], Members: fed.Names()}
		}
		return m, nil
	}
	return members.Member{}, fmt.Errorf("--cluster: give one member to read from, got %d", len(o.Cluster))
}

// contents federates the namespaced objects in namespace, type by type in
// name order, leaving out what SkipContent rejects (said on stderr).
func (o *FederateOptions) contents(ctx context.Context, c members.Client, m members.Member, lists []*metav1.APIResourceList, namespace string, reg *typeconfig.Registry) ([]map[string]any, error) {
	var out []map[string]any
	for _, t := range federation.ContentsTypes(lists, o.Skip) {
		objs, err := c.List(ctx, mappingOf(t), members.ListOptions{Namespace: namespace})
		if err != nil {
			return nil, members.MemberError(c, m, fmt.Errorf("list %s in namespace %s: %w", t.Name(), namespace, err))
		}
		var kept []unstructured.Unstructured
		for _, obj := range objs {
			if reason := federation.SkipContent(&obj); reason != "" {
				o.warn(m.Name, fmt.Sprintf("%s %s/%s left out: %s", obj.GetKind(), namespace, obj.GetName(), reason))
				continue
			}
			kept = append(kept, obj)
		}
		fed, err := o.convert(kept, reg, m.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, fed...)
	}
	return out, nil
}

func (o *FederateOptions) convert(objs []unstructured.Unstructured, reg *typeconfig.Registry, cluster string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(objs))
	for i := range objs {
		fed, notes, err := o.federateOne(&objs[i], reg)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %s: %w", cluster, describe(&objs[i]), err)
		}
		for _, n := range notes {
			o.warn(cluster, describe(&objs[i])+": "+n)
		}
		out = append(out, fed)
	}
	return out, nil
}

func (o *FederateOptions) warn(cluster, msg string) {
	printWarning(o, &manifest.Error{Object: "cluster " + cluster, Err: errors.New(msg)})
}

func mappingOf(t typeconfig.Type) members.Mapping {
	return members.MappingOf(t.Group, t.Version, t.Plural, t.Namespaced())
}

// getObject reads one object of type t; namespace is ignored for
// cluster-scoped types.
func getObject(ctx context.Context, c members.Client, t typeconfig.Type, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.Get(ctx, mappingOf(t), namespace, name)
	return obj, err
}
