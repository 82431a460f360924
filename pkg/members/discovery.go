package members

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// DiscoveryError says that some API groups of a member could not be
// discovered, typically aggregated APIs (metrics.k8s.io and the like) whose
// backing service is down. The resources of the other groups were
// discovered all the same.
type DiscoveryError struct {
	Member string
	// Groups maps each group version that failed ("metrics.k8s.io/v1beta1")
	// to its error.
	Groups map[string]error
}

func (e *DiscoveryError) Error() string {
	return fmt.Sprintf("cluster %s: some API groups could not be discovered, so their types are unknown: %s", e.Member, e.GroupsText())
}

// GroupsText lists the groups that could not be discovered, each with
// why, without naming the member.
func (e *DiscoveryError) GroupsText() string {
	return e.groupsText(func(string) bool { return true })
}

// GroupText says why group could not be discovered, at each version
// ("metrics.k8s.io/v1beta1 (the server is currently unable to handle the
// request)"); "" when it was.
func (e *DiscoveryError) GroupText(group string) string {
	return e.groupsText(func(gv string) bool { return inGroup(gv, group) })
}

func (e *DiscoveryError) groupsText(keep func(gv string) bool) string {
	var parts []string
	for _, gv := range slices.Sorted(maps.Keys(e.Groups)) {
		if keep(gv) {
			parts = append(parts, fmt.Sprintf("%s (%v)", gv, e.Groups[gv]))
		}
	}
	return strings.Join(parts, ", ")
}

// Missed reports whether group is among the groups that could not be
// discovered, at any version.
func (e *DiscoveryError) Missed(group string) bool {
	for gv := range e.Groups {
		if inGroup(gv, group) {
			return true
		}
	}
	return false
}

// inGroup says whether group version gv ("apps/v1", or "v1" for the core
// group) is of group.
func inGroup(gv, group string) bool {
	g, _, found := strings.Cut(gv, "/")
	return found && g == group || !found && group == ""
}

// APIResources returns the API resources m serves, each at the version its
// group prefers, as client-go's ServerPreferredResources lists them: the
// core group first, subresources left out. This is what kubefedctl enable
// resolves type names against (typeconfig.Lookup).
//
// When some groups cannot be discovered, the resources of the others are
// returned with a *DiscoveryError naming the failed ones; callers may go on
// with what they got. Any other failure, including ctx expiring, returns no
// resources and an error that says what went wrong with which server.
func APIResources(ctx context.Context, a Access, m Member) ([]*metav1.APIResourceList, error) {
	c, err := NewMemberClient(a, m)
	if err != nil {
		return nil, err
	}
	return ResourcesOf(ctx, c, m)
}

// ResourcesOf is c.Resources, with errors that name m and its API server.
func ResourcesOf(ctx context.Context, c Client, m Member) ([]*metav1.APIResourceList, error) {
	lists, err := c.Resources(ctx)
	var de *DiscoveryError
	switch {
	case ctx.Err() != nil:
		// Groups that failed because time ran out are no partial result.
		return nil, explain(c.Server(), m, ctx.Err())
	case errors.As(err, &de):
		de.Member = m.Name
		return lists, de
	case err != nil:
		return nil, explain(c.Server(), m, err)
	}
	return lists, nil
}

// IntegerReplicas reports whether objects of type t have a spec.replicas of
// type integer and format int32, which is how kubefedctl enable decides
// that a type is scalable and gives its federated type spec.retainReplicas.
//
// Like kubefedctl, it first looks for a CRD named "<plural>.<group>" (core
// types are never CRDs) and reads the schema of the CRD's first listed
// version, whichever version t is; a type that is not a CRD is looked up
// by group, version and kind in the member's OpenAPI v3 document for t's
// group version. A replicas field of type integer without format int32 does
// not count, as in kubefedctl. ctx bounds every request.
func IntegerReplicas(ctx context.Context, a Access, m Member, t typeconfig.Type) (bool, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return false, err
	}
	if t.Group != "" {
		client, err := apiextclient.NewForConfig(cfg)
		if err != nil {
			return false, clientError(m, err)
		}
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, t.Name(), metav1.GetOptions{})
		switch {
		case err == nil:
			return crdIntegerReplicas(crd), nil
		case !apierrors.IsNotFound(err):
			return false, explain(cfg.Host, m, fmt.Errorf("read CRD %s: %w", t.Name(), err))
		}
	}
	client, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return false, clientError(m, err)
	}
	gv := schema.GroupVersion{Group: t.Group, Version: t.Version}
	paths, err := client.OpenAPIV3WithContext(ctx).PathsWithContext(ctx)
	if err != nil {
		return false, explain(cfg.Host, m, fmt.Errorf("read the OpenAPI v3 index: %w", err))
	}
	path := "apis/" + gv.String()
	if gv.Group == "" {
		path = "api/" + gv.Version
	}
	doc, ok := paths[path]
	if !ok {
		return false, fmt.Errorf("cluster %s publishes no OpenAPI v3 schema for %s, so whether %s is scalable cannot be told", m.Name, t.APIVersion(), t.Kind)
	}
	data, err := doc.SchemaWithContext(ctx, "application/json")
	if err != nil {
		return false, explain(cfg.Host, m, fmt.Errorf("read the OpenAPI v3 schema of %s: %w", t.APIVersion(), err))
	}
	found, replicas, err := openAPIIntegerReplicas(data, t)
	if err != nil {
		return false, fmt.Errorf("cluster %s: OpenAPI v3 schema of %s: %w", m.Name, t.APIVersion(), err)
	}
	if !found {
		return false, fmt.Errorf("cluster %s: the OpenAPI v3 schema of %s has no %s", m.Name, t.APIVersion(), t.Kind)
	}
	return replicas, nil
}

// int32Replicas is kubefedctl's test of a spec.replicas schema.
func int32Replicas(typ, format string) bool { return typ == "integer" && format == "int32" }

func crdIntegerReplicas(crd *apiextv1.CustomResourceDefinition) bool {
	if len(crd.Spec.Versions) == 0 {
		return false
	}
	v := crd.Spec.Versions[0]
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return false
	}
	replicas, ok := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["replicas"]
	return ok && int32Replicas(replicas.Type, replicas.Format)
}

// openAPISchema is the part of an OpenAPI v3 schema object that
// openAPIIntegerReplicas reads.
type openAPISchema struct {
	Ref        string                    `json:"$ref"`
	AllOf      []openAPISchema           `json:"allOf"`
	Type       string                    `json:"type"`
	Format     string                    `json:"format"`
	Properties map[string]openAPISchema  `json:"properties"`
	GVKs       []schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
}

// openAPIIntegerReplicas finds t's schema in an OpenAPI v3 document (by its
// x-kubernetes-group-version-kind) and reports whether its spec.replicas is
// an int32 integer, following $ref and single-entry allOf, which is how
// the API server refers to DeploymentSpec from Deployment. found is false
// when the document has no schema for t.
func openAPIIntegerReplicas(data []byte, t typeconfig.Type) (found, replicas bool, err error) {
	var doc struct {
		Components struct {
			Schemas map[string]openAPISchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return false, false, fmt.Errorf("decode: %w", err)
	}
	schemas := doc.Components.Schemas
	want := schema.GroupVersionKind{Group: t.Group, Version: t.Version, Kind: t.Kind}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		s := schemas[name]
		if !slices.Contains(s.GVKs, want) {
			continue
		}
		spec := deref(schemas, s.Properties["spec"])
		r, ok := spec.Properties["replicas"]
		if !ok {
			return true, false, nil
		}
		r = deref(schemas, r)
		return true, int32Replicas(r.Type, r.Format), nil
	}
	return false, false, nil
}

// deref follows "$ref" and an allOf of one entry to the schema they name,
// a bounded number of times so that a cyclic document cannot loop.
func deref(schemas map[string]openAPISchema, s openAPISchema) openAPISchema {
	for range 10 {
		switch {
		case s.Ref != "":
			s = schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
		case len(s.AllOf) == 1 && s.Type == "" && len(s.Properties) == 0:
			s = s.AllOf[0]
		default:
			return s
		}
	}
	return s
}

// MemberError says what err, from a request to m through c, means, naming
// m, its API server and its context: for messages outside a per-member
// report.
func MemberError(c Client, m Member, err error) error {
	return explain(c.Server(), m, err)
}
