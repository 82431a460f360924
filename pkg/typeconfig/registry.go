package typeconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Registry is the set of federated types in effect: KubeFed's defaults,
// less the disabled ones, plus the types enabled in the federation file. An
// enabled type with the group and kind of a default replaces that default
// (another version of it). Lookups by federated kind and by name are map
// reads. A Registry is never modified; Enable and Disable return the
// federation file's new lists instead.
type Registry struct {
	enabled  []Type   // the federation file's types, as given
	disabled []string // its disabledTypes, as given

	types           []Type // in effect, sorted by name
	byFederatedKind map[string]Type
	byName          map[string]Type
	resources       []Resource // types with the names they answer to, for Find
}

// NewRegistry builds the registry from the federation file's enabled types
// and disabled default names. It neither keeps nor modifies the slices. It
// reports, all at once: a disabled name that is not a default type, a name
// disabled twice, a type enabled twice (same group and kind), a type both
// enabled and disabled, and two types in effect that would share a name or
// a federated kind (FederatedDeployment can carry only one Deployment), or
// kinds that differ only in case.
func NewRegistry(enabled []Type, disabled []string) (*Registry, error) {
	r := &Registry{
		enabled:         slices.Clone(enabled),
		disabled:        slices.Clone(disabled),
		byFederatedKind: map[string]Type{},
		byName:          map[string]Type{},
	}
	var errs []error
	off := map[string]bool{}
	for _, name := range disabled {
		if _, ok := Default(name); !ok {
			errs = append(errs, fmt.Errorf("disabledTypes: %q is not a default type (default types: %s)", name, strings.Join(DefaultNames(), ", ")))
		} else if off[name] {
			errs = append(errs, fmt.Errorf("disabledTypes: %q is listed twice", name))
		}
		off[name] = true
	}

	// Defaults first, then enabled types replace those of the same group
	// and kind.
	byGroupKind := map[string]int{} // group/kind -> index in r.resources
	for _, d := range defaults {
		if off[d.Name()] {
			continue
		}
		byGroupKind[d.Group+"/"+d.Kind] = len(r.resources)
		r.resources = append(r.resources, d.clone())
	}
	seen := map[string]Type{}
	for _, t := range enabled {
		key := t.Group + "/" + t.Kind
		if prev, dup := seen[key]; dup {
			errs = append(errs, fmt.Errorf("types: %s is enabled twice (%s and %s)", t.Name(), prev.APIVersion(), t.APIVersion()))
			continue
		}
		seen[key] = t
		if d, ok := defaultFor(t); ok && off[d.Name()] {
			errs = append(errs, fmt.Errorf("types: %s is enabled, and disabledTypes disables it", t.Name()))
			continue
		}
		res := Resource{Type: t}
		if i, ok := byGroupKind[key]; ok {
			// Another version of a default: it keeps the default's names
			// (deploy is still the Deployment).
			res.Singular, res.ShortNames = r.resources[i].Singular, r.resources[i].ShortNames
			r.resources[i] = res
			continue
		}
		res.ShortNames = slices.Clone(builtinShortNames[key])
		byGroupKind[key] = len(r.resources)
		r.resources = append(r.resources, res)
	}

	byFoldedKind := map[string]Type{}
	for _, res := range r.resources {
		t := res.Type
		// Files (render --output-dir, convert) and Karmada's policy names
		// spell a kind in lower case, so two kinds that differ only in
		// case would write over each other's objects.
		folded := strings.ToLower(t.Kind)
		if prev, dup := byFoldedKind[folded]; dup && prev.Kind != t.Kind {
			errs = append(errs, fmt.Errorf("types: %s and %s cannot both be enabled: their kinds %s and %s differ only in case, and fedctl's output files and Karmada policy names spell kinds in lower case", prev.Name(), t.Name(), prev.Kind, t.Kind))
		}
		byFoldedKind[folded] = t
		if prev, dup := r.byName[t.Name()]; dup {
			errs = append(errs, fmt.Errorf("types: %s names two types (%s %s and %s %s)", t.Name(), prev.APIVersion(), prev.Kind, t.APIVersion(), t.Kind))
		}
		if prev, dup := r.byFederatedKind[t.FederatedKind()]; dup {
			errs = append(errs, &KindConflictError{Type: t, Other: prev})
		}
		r.byName[t.Name()] = t
		r.byFederatedKind[t.FederatedKind()] = t
		r.types = append(r.types, t)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sortByName(r.types)
	slices.SortFunc(r.resources, func(a, b Resource) int { return strings.Compare(a.Name(), b.Name()) })
	return r, nil
}

// Builtin is the registry of the defaults alone, as an empty federation
// file gives.
func Builtin() *Registry {
	r, err := NewRegistry(nil, nil)
	if err != nil {
		panic(err) // the defaults are a constant table
	}
	return r
}

// KindConflictError says that two types would share a federated kind, as
// deployments.apps and deployments.example.com share FederatedDeployment.
// KubeFed refuses the same: both would need the CRD
// federateddeployments.types.kubefed.io.
type KindConflictError struct {
	Type  Type // the type that cannot be federated
	Other Type // the type that has the federated kind
}

func (e *KindConflictError) Error() string {
	return fmt.Sprintf("%s and %s cannot both be enabled: both would be federated as %s; to federate %s, run \"fedctl disable %s\" first (--force for one of KubeFed's defaults)",
		e.Other.Name(), e.Type.Name(), e.Type.FederatedKind(), e.Type.Name(), e.Other.Name())
}

// ByFederatedKind returns the type whose federated kind is kind
// ("FederatedDeployment" gives the apps/v1 Deployment).
func (r *Registry) ByFederatedKind(kind string) (Type, bool) {
	t, ok := r.byFederatedKind[kind]
	return t, ok
}

// Get returns the type called name, exactly as Type.Name spells it:
// "deployments.apps", "services".
func (r *Registry) Get(name string) (Type, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Types returns the types in effect, sorted by name. The slice is a copy.
func (r *Registry) Types() []Type { return slices.Clone(r.types) }

// IsDefault reports whether t has the group and kind of a default type,
// whatever its version.
func (r *Registry) IsDefault(t Type) bool {
	_, ok := defaultFor(t)
	return ok
}

// Disabled returns the default types the federation file disables, sorted.
func (r *Registry) Disabled() []Type {
	out := make([]Type, 0, len(r.disabled))
	for _, name := range r.disabled {
		if t, ok := Default(name); ok {
			out = append(out, t)
		}
	}
	sortByName(out)
	return out
}

// Find resolves a name a user typed against the types in effect, offline:
// as Lookup does (plural, singular, kind, "<plural>.<group>", short names,
// ignoring case; a core-group match wins), and also by federated kind
// (FederatedDeployment). Short names are known for Kubernetes' own types
// (sts, hpa, ...), not for custom resources, which answer to their plural,
// kind and "<plural>.<group>" only. No match is a *NotFederatedError,
// several an *AmbiguousError.
func (r *Registry) Find(name string) (Type, error) {
	var found []Type
	for _, res := range r.resources {
		if !res.matches(name) && !strings.EqualFold(name, res.FederatedKind()) {
			continue
		}
		if res.Group == "" {
			return res.Type, nil
		}
		found = append(found, res.Type)
	}
	switch len(found) {
	case 0:
		names := make([]string, len(r.types))
		for i, t := range r.types {
			names[i] = t.Name()
		}
		return Type{}, &NotFederatedError{Name: name, Types: names}
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.Name()
	}
	return Type{}, &AmbiguousError{Name: name, Candidates: names}
}

// Outcome says what Enable or Disable did.
type Outcome int

// Outcomes of Enable and Disable.
const (
	// Unchanged: enabled already (same version), or disabled already.
	Unchanged Outcome = iota
	// Added: a type that was not federated now is.
	Added
	// Replaced: the type was federated at another version (Edit.Previous).
	Replaced
	// Reenabled: a disabled default type is federated again.
	Reenabled
	// Removed: an enabled type is no longer federated.
	Removed
	// DisabledDefault: a default type is no longer federated; it is
	// listed in disabledTypes.
	DisabledDefault
)

// Edit is the result of Enable or Disable: the federation file's new types
// and disabledTypes lists, each sorted by name, and what changed.
type Edit struct {
	Type     Type // the type enabled or disabled
	Outcome  Outcome
	Previous Type // Replaced: the version in effect before
	Types    []Type
	Disabled []string
}

// Enable federates t, which usually comes from Resolve. A type of the same
// group and kind is replaced (another version); a default type at its
// default version needs no entry in types, and one that was disabled is
// re-enabled by leaving disabledTypes. Enabling what is in effect already
// is Unchanged. A type whose federated kind belongs to another type in
// effect is a *KindConflictError.
func (r *Registry) Enable(t Type) (Edit, error) {
	e := Edit{Type: t, Types: slices.Clone(r.enabled), Disabled: slices.Clone(r.disabled)}
	e.Types = slices.DeleteFunc(e.Types, func(x Type) bool { return sameGroupKind(x, t) })
	d, isDefault := defaultFor(t)
	if isDefault && slices.Contains(e.Disabled, d.Name()) {
		e.Outcome = Reenabled
		e.Disabled = slices.DeleteFunc(e.Disabled, func(n string) bool { return n == d.Name() })
	}
	if !isDefault || d.Type != t {
		e.Types = append(e.Types, t)
	}
	if e.Outcome != Reenabled {
		current, ok := r.inEffect(t)
		switch {
		case ok && current == t:
			return r.unchanged(t), nil
		case ok:
			e.Outcome, e.Previous = Replaced, current
		default:
			e.Outcome = Added
		}
	}
	if other, ok := r.byFederatedKind[t.FederatedKind()]; ok && !sameGroupKind(other, t) {
		return Edit{}, &KindConflictError{Type: t, Other: other}
	}
	e = e.normalized()
	// The file must load again: a kind that differs from another's only in
	// case, say, would make every later command (disable included) refuse
	// it.
	if _, err := NewRegistry(e.Types, e.Disabled); err != nil {
		return Edit{}, err
	}
	return e, nil
}

// Disable stops federating the type called name, which Find resolves. A
// default type is refused with a *DefaultTypeError unless force is set;
// then it is listed in disabledTypes (and any other version of it leaves
// types). A default that is disabled already is Unchanged.
func (r *Registry) Disable(name string, force bool) (Edit, error) {
	t, err := r.Find(name)
	if err != nil {
		var nf *NotFederatedError
		if errors.As(err, &nf) {
			if d, ok := r.findDisabled(name); ok {
				return r.unchanged(d), nil
			}
		}
		return Edit{}, err
	}
	e := Edit{Type: t, Types: slices.Clone(r.enabled), Disabled: slices.Clone(r.disabled)}
	e.Types = slices.DeleteFunc(e.Types, func(x Type) bool { return sameGroupKind(x, t) })
	if d, ok := defaultFor(t); ok {
		if !force {
			return Edit{}, &DefaultTypeError{Type: t}
		}
		e.Outcome = DisabledDefault
		e.Disabled = append(e.Disabled, d.Name())
	} else {
		e.Outcome = Removed
	}
	return e.normalized(), nil
}

// normalized sorts the lists; types is never nil (the file always has
// "types:"), disabledTypes is nil when empty (the file leaves it out).
func (e Edit) normalized() Edit {
	if e.Types == nil {
		e.Types = []Type{}
	}
	sortByName(e.Types)
	if len(e.Disabled) == 0 {
		e.Disabled = nil
	}
	slices.Sort(e.Disabled)
	return e
}

// NotFederatedError says that no type in effect answers to a name.
type NotFederatedError struct {
	Name  string
	Types []string // names of the types in effect, sorted
}

func (e *NotFederatedError) Error() string {
	return fmt.Sprintf("no federated type named %q (types in effect: %s)", e.Name, strings.Join(e.Types, ", "))
}

// DefaultTypeError refuses to disable a default type without --force.
type DefaultTypeError struct{ Type Type }

func (e *DefaultTypeError) Error() string {
	return fmt.Sprintf("%s is one of KubeFed's default types; disabling it makes fedctl stop rendering %s objects (%s objects already propagated stay in the member clusters); pass --force to disable it anyway",
		e.Type.Name(), e.Type.FederatedKind(), e.Type.Kind)
}

// unchanged is the Edit that changes nothing: the lists as the registry
// was built from them.
func (r *Registry) unchanged(t Type) Edit {
	return Edit{Type: t, Outcome: Unchanged, Types: slices.Clone(r.enabled), Disabled: slices.Clone(r.disabled)}
}

func (r *Registry) inEffect(t Type) (Type, bool) {
	i := slices.IndexFunc(r.types, func(x Type) bool { return sameGroupKind(x, t) })
	if i < 0 {
		return Type{}, false
	}
	return r.types[i], true
}

// findDisabled resolves name against the disabled defaults.
func (r *Registry) findDisabled(name string) (Type, bool) {
	for _, n := range r.disabled {
		d, ok := defaultResource(n)
		if ok && (d.matches(name) || strings.EqualFold(name, d.FederatedKind())) {
			return d.Type, true
		}
	}
	return Type{}, false
}
