package typeconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is a type as discovery describes it: the Type, plus the names
// that serve only to look it up. kubefedctl turns each short name into a
// short name of the federated CRD (deploy → fdeploy).
type Resource struct {
	Type
	Singular   string
	ShortNames []string
}

func (r Resource) clone() Resource {
	r.ShortNames = slices.Clone(r.ShortNames)
	return r
}

// matches is kubefedctl's NameMatchesResource: name, lower-cased, equals the
// plural, the singular, the lower-cased kind, "<plural>.<group>" or a
// lower-cased short name. The plural and singular are compared as discovery
// reports them, which is always lower case.
func (r Resource) matches(name string) bool {
	lower := strings.ToLower(name)
	if lower == r.Plural || (r.Singular != "" && lower == r.Singular) ||
		lower == strings.ToLower(r.Kind) || lower == r.Plural+"."+r.Group {
		return true
	}
	return slices.ContainsFunc(r.ShortNames, func(s string) bool { return lower == strings.ToLower(s) })
}

// NotFoundError says that no API resource answers to a name.
type NotFoundError struct {
	Name    string
	Version string // --version, if given
	// Elsewhere are the resources that match Name at other versions than
	// Version, as "deployments.apps at v1".
	Elsewhere []string
	// Context, when set, is the kubeconfig context whose cluster was asked;
	// the suggested kubectl command names it.
	Context string
}

func (e *NotFoundError) Error() string {
	kubectl := "kubectl api-resources"
	if e.Context != "" {
		kubectl = "kubectl --context " + e.Context + " api-resources"
	}
	if e.Version == "" {
		return fmt.Sprintf("no API resource named %q; %q lists the names the cluster serves", e.Name, kubectl)
	}
	msg := fmt.Sprintf("no API resource named %q at version %s", e.Name, e.Version)
	if len(e.Elsewhere) > 0 {
		return msg + fmt.Sprintf(" (--version only matches the version the API group prefers: %s)", strings.Join(e.Elsewhere, ", "))
	}
	return msg + fmt.Sprintf("; %q lists the names the cluster serves", kubectl)
}

// AmbiguousError says that a name matches resources of more than one API
// group and none of the core group.
type AmbiguousError struct {
	Name       string
	Candidates []string // "<plural>.<group>" of each match, sorted
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches more than one resource: %s; name one of them as <plural>.<group>, e.g. %q",
		e.Name, strings.Join(e.Candidates, ", "), e.Candidates[0])
}

// Resolve finds the type called name among lists, the discovery result of a
// member cluster (ServerPreferredResources). See Lookup for the rules.
func Resolve(name, version string, lists []*metav1.APIResourceList) (Type, error) {
	r, err := Lookup(name, version, lists)
	return r.Type, err
}

// ResolveKubectl finds the type called name among lists as kubectl get
// does, for fedctl get TYPE: kubefedctl's names (Lookup), and then the
// forms kubectl takes besides, NAME.GROUP and NAME.VERSION.GROUP where NAME
// is the plural, the singular, the kind or a short name ("deployment.apps",
// what -o name prints; "Deployment.apps"; "deployments.v1.apps"). A core
// match wins, as in Lookup; several others are an *AmbiguousError.
func ResolveKubectl(name string, lists []*metav1.APIResourceList) (Type, error) {
	t, err := Resolve(name, "", lists)
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return t, err
	}
	first, rest, qualified := strings.Cut(strings.ToLower(name), ".")
	if !qualified {
		return Type{}, err
	}
	r, found, ambiguous := pick(name, candidates(lists, ""), func(r Resource) bool {
		// GROUP, VERSION.GROUP, or VERSION alone for the core group
		return (rest == r.Group || rest == r.Version+"."+r.Group || r.Group == "" && rest == r.Version) && r.matches(first)
	})
	switch {
	case ambiguous != nil:
		return Type{}, ambiguous
	case !found:
		return Type{}, err
	}
	return r.Type, nil
}

// Lookup finds the resource called name among lists with kubefedctl's rules
// (LookupAPIResource in kubefedctl enable):
//
//   - name matches, ignoring case, a resource's plural, singular, kind,
//     "<plural>.<group>" or any of its short names;
//   - version, when not empty, keeps only lists of that version; since
//     ServerPreferredResources holds each group's preferred version only,
//     a type served at another version too is not found at it;
//   - subresources ("deployments/scale") never match;
//   - a match in the core group wins at once over every other match, so
//     "services" is the core Service even when a CRD of another group has
//     the same plural (kubefedctl returns the first match when it is in the
//     core group; discovery lists the core group first, so the first core
//     match is that);
//   - otherwise more than one match is an *AmbiguousError listing them, and
//     none is a *NotFoundError.
//
// Lists it cannot parse are skipped, as are lists discovery could not
// fetch: they are absent from lists.
func Lookup(name, version string, lists []*metav1.APIResourceList) (Resource, error) {
	r, found, err := pick(name, candidates(lists, version), func(r Resource) bool { return r.matches(name) })
	if found || err != nil {
		return r, err
	}
	nf := &NotFoundError{Name: name, Version: version}
	if version != "" {
		for _, r := range candidates(lists, "") {
			if r.matches(name) {
				nf.Elsewhere = append(nf.Elsewhere, r.Name()+" at "+r.Version)
			}
		}
		slices.Sort(nf.Elsewhere)
	}
	return Resource{}, nf
}

// pick is the resource among rs that match accepts: the first core one at
// once, else the only one; several are an *AmbiguousError naming them,
// and none is found false.
func pick(name string, rs []Resource, match func(Resource) bool) (Resource, bool, error) {
	var found []Resource
	for _, r := range rs {
		if !match(r) {
			continue
		}
		if r.Group == "" {
			return r, true, nil
		}
		found = append(found, r)
	}
	switch len(found) {
	case 0:
		return Resource{}, false, nil
	case 1:
		return found[0], true, nil
	}
	names := make([]string, len(found))
	for i, r := range found {
		names[i] = r.Name()
	}
	slices.Sort(names)
	return Resource{}, false, &AmbiguousError{Name: name, Candidates: slices.Compact(names)}
}

// candidates turns discovery lists into resources, in the lists' order,
// keeping only version when it is set and leaving out subresources.
func candidates(lists []*metav1.APIResourceList, version string) []Resource {
	var out []Resource
	for _, list := range lists {
		if list == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil || (version != "" && gv.Version != version) {
			continue
		}
		for _, ar := range list.APIResources {
			if strings.Contains(ar.Name, "/") {
				continue
			}
			scope := Cluster
			if ar.Namespaced {
				scope = Namespaced
			}
			out = append(out, Resource{
				Type:       Type{Group: gv.Group, Version: gv.Version, Kind: ar.Kind, Plural: ar.Name, Scope: scope},
				Singular:   ar.SingularName,
				ShortNames: slices.Clone(ar.ShortNames),
			})
		}
	}
	return out
}
