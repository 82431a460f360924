package members

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// APIVersion and Kind identify a federation file.
const (
	APIVersion = "fedctl.io/v1alpha1"
	Kind       = "Federation"
)

// Federation is the content of the federation file. People write it by hand
// and keep it in git, so it is decoded strictly and written in a fixed order.
type Federation struct {
	APIVersion string `json:"apiVersion" yaml:"apiVersion"`
	Kind       string `json:"kind" yaml:"kind"`
	// Namespace, when set, makes the federation namespace-scoped, as
	// KubeFed's namespaced control plane: only namespaced objects in this
	// namespace propagate, without a FederatedNamespace (one, if present,
	// limits where they go), and the namespace is expected to exist in
	// every member; fedctl reads members in it alone.
	Namespace string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	// Clusters are the member clusters, kept sorted by name.
	Clusters []Member `json:"clusters" yaml:"clusters"`
	// Types are the types enabled for federation beyond the built-in defaults.
	Types []typeconfig.Type `json:"types" yaml:"types"`
	// DisabledTypes names built-in default types ("<plural>.<group>", or
	// "<plural>" for the core group) that are not federated; left out when
	// empty.
	DisabledTypes []string `json:"disabledTypes,omitempty" yaml:"disabledTypes,omitempty"`
	// Defaults are default values for fedctl's global flags, shared by
	// everyone who uses this file. FEDCTL_* variables and flags override them.
	Defaults *Defaults `json:"defaults,omitempty" yaml:"defaults,omitempty"`
	// Rollout are the waves of apply --rollout.
	Rollout *Rollout `json:"rollout,omitempty" yaml:"rollout,omitempty"`
}

// Member is one member cluster: a name that placement and overrides use, and
// what reaches it: a kubeconfig context, or a Cluster API Cluster whose
// kubeconfig Secret is read at run time (CAPI). It holds no credentials.
type Member struct {
	Name string `json:"name" yaml:"name"`
	// Context is the kubeconfig context; empty means the same as Name
	// (none for a member from Cluster API).
	Context string `json:"context,omitempty" yaml:"context,omitempty"`
	// Kubeconfig is the kubeconfig file holding Context. Empty means the
	// --kubeconfig flag, else the standard loading rules (KUBECONFIG,
	// ~/.kube/config). A relative path is relative to the federation file.
	Kubeconfig string `json:"kubeconfig,omitempty" yaml:"kubeconfig,omitempty"`
	// CAPI, when set, takes the member's credentials from Cluster API
	// instead of a kubeconfig context: the kubeconfig in the Cluster's
	// Secret, read from the management cluster on every run (so rotated
	// credentials are used at once), never written anywhere. Context and
	// Kubeconfig are then empty.
	CAPI   *CAPI             `json:"capi,omitempty" yaml:"capi,omitempty"`
	Labels map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	// Provider, Region and Zones describe where the member runs, as
	// Karmada's Cluster spec does; Karmada policies select members by them
	// (clusterAffinity.fieldSelector).
	Provider string   `json:"provider,omitempty" yaml:"provider,omitempty"`
	Region   string   `json:"region,omitempty" yaml:"region,omitempty"`
	Zones    []string `json:"zones,omitempty" yaml:"zones,omitempty"`
	// Cordoned, when set, keeps new objects and replica plans off the
	// member while what runs there stays (fedctl cordon).
	Cordoned *Cordon `json:"cordoned,omitempty" yaml:"cordoned,omitempty"`
	// Migrations move the federated objects their selectors match off the
	// member to another, in order (fedctl migrate); the rest stays.
	Migrations []Migration `json:"migrations,omitempty" yaml:"migrations,omitempty"`
}

// Migration is one "fedctl migrate --from THIS --to To -l Selector": the
// federated objects whose labels match Selector are placed in To instead
// of this member, and To takes this member's share of their replicas.
type Migration struct {
	Selector string `json:"selector" yaml:"selector"`
	To       string `json:"to" yaml:"to"`
	// Since is when, in RFC 3339.
	Since string `json:"since,omitempty" yaml:"since,omitempty"`
}

// Cordon says why and since when a member is cordoned.
type Cordon struct {
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// Since is when, in RFC 3339.
	Since string `json:"since,omitempty" yaml:"since,omitempty"`
}

// ContextName is the kubeconfig context of the member: Context, else
// Name. A member from Cluster API has none: "".
func (m Member) ContextName() string {
	switch {
	case m.CAPI != nil:
		return ""
	case m.Context != "":
		return m.Context
	}
	return m.Name
}

// Origin says in words what reaches the member, for messages: `context
// "eu-1"`, or "Cluster API cluster capi/web-1 in management cluster mgmt".
func (m Member) Origin() string {
	if m.CAPI != nil {
		return m.CAPI.String()
	}
	return fmt.Sprintf("context %q", m.ContextName())
}

// Defaults are defaults for fedctl's global flags.
type Defaults struct {
	// Color is auto, always or never.
	Color string `json:"color,omitempty" yaml:"color,omitempty"`
	// Verbosity is the default of -v.
	Verbosity *int `json:"verbosity,omitempty" yaml:"verbosity,omitempty"`
}

// credentialFields are kubeconfig keys people paste into the federation file
// by mistake; the decoder rejects them like any unknown field, and the error
// says where credentials belong.
var credentialFields = []string{"token", "client-certificate-data", "client-key-data", "password", "username", "certificate-authority-data", "user", "auth-provider", "exec"}

// Decode reads a federation file from doc, strictly: unknown fields, duplicate
// keys, values of the wrong kind, duplicate cluster names and invalid names or
// labels are all reported, each with its line. An empty document is an empty
// federation.
func Decode(doc manifest.Document) (*Federation, error) {
	fed, _, err := decode(doc)
	return fed, err
}

// decode is Decode that also returns where each field is, for errors
// found after loading (File.Errorf).
func decode(doc manifest.Document) (*Federation, manifest.Positions, error) {
	fed := &Federation{}
	pos, err := manifest.DecodeStrict(doc, fed)
	if err != nil {
		return nil, pos, withCredentialHint(err)
	}
	if strings.TrimSpace(string(doc.Data)) == "" {
		return New(), pos, nil
	}
	if err := fed.validate(pos); err != nil {
		return nil, pos, err
	}
	fed.sort()
	return fed, pos, nil
}

// New returns an empty federation.
func New() *Federation {
	return &Federation{APIVersion: APIVersion, Kind: Kind, Clusters: []Member{}, Types: []typeconfig.Type{}}
}

func withCredentialHint(err error) error {
	for _, f := range credentialFields {
		if strings.Contains(err.Error(), fmt.Sprintf("unknown field %q", f)) {
			return fmt.Errorf("%w\ncredentials do not belong in the federation file: keep them in a kubeconfig and name its context with \"context:\"", err)
		}
	}
	return err
}

func (f *Federation) validate(pos manifest.Positions) error {
	var errs []error
	if f.APIVersion != APIVersion {
		errs = append(errs, pos.Errorf("apiVersion", "must be %q, got %q", APIVersion, f.APIVersion))
	}
	if f.Kind != Kind {
		errs = append(errs, pos.Errorf("kind", "must be %q, got %q", Kind, f.Kind))
	}
	if f.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(f.Namespace) {
			errs = append(errs, pos.Errorf("namespace", "%s", msg))
		}
	}
	seen := map[string]int{}
	for i, m := range f.Clusters {
		path := fmt.Sprintf("clusters[%d]", i)
		for _, msg := range ValidateName(m.Name) {
			errs = append(errs, pos.Errorf(path+".name", "%s", msg))
		}
		if first, dup := seen[m.Name]; dup && m.Name != "" {
			errs = append(errs, pos.Errorf(path+".name", "duplicate cluster name %q (also clusters[%d])", m.Name, first))
		}
		seen[m.Name] = i
		if m.CAPI != nil {
			errs = append(errs, m.validateCAPI(pos, path)...)
		}
		for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
			for _, msg := range ValidateLabel(k, m.Labels[k]) {
				errs = append(errs, pos.Errorf(path+".labels."+k, "%s", msg))
			}
		}
		zones := map[string]int{}
		for j, z := range m.Zones {
			if z == "" {
				errs = append(errs, pos.Errorf(fmt.Sprintf("%s.zones[%d]", path, j), "must not be empty"))
			}
			if first, dup := zones[z]; dup {
				errs = append(errs, pos.Errorf(fmt.Sprintf("%s.zones[%d]", path, j), "duplicate zone %q (also zones[%d])", z, first))
			}
			zones[z] = j
		}
	}
	for i, m := range f.Clusters {
		for j, mg := range m.Migrations {
			path := fmt.Sprintf("clusters[%d].migrations[%d]", i, j)
			if sel, err := labels.Parse(mg.Selector); err != nil || sel.Empty() {
				errs = append(errs, pos.Errorf(path+".selector", "must be a non-empty label selector: %q", mg.Selector))
			}
			if _, ok := seen[mg.To]; !ok || mg.To == m.Name {
				errs = append(errs, pos.Errorf(path+".to", "must name another member, got %q", mg.To))
			}
		}
	}
	enabled := map[string]int{}
	for i, t := range f.Types {
		path := fmt.Sprintf("types[%d]", i)
		if t.Kind == "" || t.Version == "" || t.Plural == "" {
			errs = append(errs, pos.Errorf(path, "kind, version and plural are required"))
		}
		if first, dup := enabled[t.Group+"/"+t.Kind]; dup {
			errs = append(errs, pos.Errorf(path, "%s is enabled twice (also types[%d]); keep one (fedctl disable, then enable the version wanted)", t.Name(), first))
		} else {
			enabled[t.Group+"/"+t.Kind] = i
		}
		if t.Scope != typeconfig.Namespaced && t.Scope != typeconfig.Cluster {
			errs = append(errs, pos.Errorf(path+".scope", "must be Namespaced or Cluster, got %q", t.Scope))
		}
	}
	errs = append(errs, f.validateDisabledTypes(pos)...)
	if f.Rollout != nil {
		errs = append(errs, f.Rollout.validate(pos)...)
	}
	if d := f.Defaults; d != nil && d.Color != "" {
		if !slices.Contains(ColorModes, d.Color) {
			errs = append(errs, pos.Errorf("defaults.color", "must be one of %s, got %q", strings.Join(ColorModes, ", "), d.Color))
		}
	}
	return errors.Join(errs...)
}

// validateDisabledTypes checks that each disabled name is a default type,
// named once, and not also enabled under types.
func (f *Federation) validateDisabledTypes(pos manifest.Positions) []error {
	var errs []error
	seen := map[string]int{}
	for i, name := range f.DisabledTypes {
		path := fmt.Sprintf("disabledTypes[%d]", i)
		d, ok := typeconfig.Default(name)
		if !ok {
			errs = append(errs, pos.Errorf(path, "%q is not a default type; disabledTypes names default types: %s", name, strings.Join(typeconfig.DefaultNames(), ", ")))
			continue
		}
		if first, dup := seen[name]; dup {
			errs = append(errs, pos.Errorf(path, "%q is listed twice (also disabledTypes[%d])", name, first))
		}
		seen[name] = i
		if j := slices.IndexFunc(f.Types, func(t typeconfig.Type) bool { return t.Group == d.Group && t.Kind == d.Kind }); j >= 0 {
			errs = append(errs, pos.Errorf(path, "%q is disabled and also enabled by types[%d]; keep one of the two", name, j))
		}
	}
	return errs
}

// ColorModes are the values of --color.
var ColorModes = []string{"auto", "always", "never"}

// ValidateName checks a member cluster name. Names become object names in
// KubeFed (KubeFedCluster) and directory names in rendered output, so they
// follow the DNS-1123 subdomain rules.
func ValidateName(name string) []string {
	if name == "" {
		return []string{"a cluster name is required"}
	}
	return validation.IsDNS1123Subdomain(name)
}

// ValidateLabel checks a label the way the API server checks object labels,
// because cluster selectors match member labels with label-selector rules.
func ValidateLabel(key, value string) []string {
	var msgs []string
	for _, m := range validation.IsQualifiedName(key) {
		msgs = append(msgs, fmt.Sprintf("invalid label key %q: %s", key, m))
	}
	for _, m := range validation.IsValidLabelValue(value) {
		msgs = append(msgs, fmt.Sprintf("invalid label value %q: %s", value, m))
	}
	return msgs
}

// Member returns the member called name.
func (f *Federation) Member(name string) (Member, bool) {
	i := slices.IndexFunc(f.Clusters, func(m Member) bool { return m.Name == name })
	if i < 0 {
		return Member{}, false
	}
	return f.Clusters[i], true
}

// Names returns the member names, sorted.
func (f *Federation) Names() []string {
	names := make([]string, len(f.Clusters))
	for i, m := range f.Clusters {
		names[i] = m.Name
	}
	return names
}

// Rejoined is m as join --overwrite records it in old's place: how to
// reach the member and what join's flags give are m's, while what other
// commands recorded on old stays: its cordon and migrations (fedctl
// cordon, drain, migrate) always, and its labels, provider, region and
// zones when m has none. A new context for a member must not put objects
// and replica shares back on it mid-drain.
func Rejoined(old, m Member) Member {
	m.Cordoned, m.Migrations = old.Cordoned, old.Migrations
	if len(m.Labels) == 0 {
		m.Labels = old.Labels
	}
	if m.Provider == "" {
		m.Provider = old.Provider
	}
	if m.Region == "" {
		m.Region = old.Region
	}
	if len(m.Zones) == 0 {
		m.Zones = old.Zones
	}
	return m
}

// Join adds m, or with overwrite rejoins the member of the same name as m
// (Rejoined: what other commands recorded on it stays): join's record.
func (f *Federation) Join(m Member, overwrite bool) (Member, error) {
	if old, ok := f.Member(m.Name); ok && overwrite {
		m = Rejoined(old, m)
	}
	return m, f.Put(m, overwrite)
}

// Put adds m, or replaces the member of the same name when overwrite is set.
func (f *Federation) Put(m Member, overwrite bool) error {
	if old, ok := f.Member(m.Name); ok {
		if !overwrite {
			return &ExistsError{Member: old}
		}
		f.Remove(m.Name)
	}
	f.Clusters = append(f.Clusters, m)
	f.sort()
	return nil
}

// Remove deletes the member called name and reports whether it was there.
func (f *Federation) Remove(name string) bool {
	n := len(f.Clusters)
	f.Clusters = slices.DeleteFunc(f.Clusters, func(m Member) bool { return m.Name == name })
	return len(f.Clusters) != n
}

// Clone returns a deep copy, so a command can compute a new file without
// touching the one it loaded.
func (f *Federation) Clone() *Federation {
	c := *f
	c.Clusters = make([]Member, len(f.Clusters))
	for i, m := range f.Clusters {
		m.Labels = maps.Clone(m.Labels)
		m.Zones = slices.Clone(m.Zones)
		if m.Cordoned != nil {
			cordon := *m.Cordoned
			m.Cordoned = &cordon
		}
		m.Migrations = slices.Clone(m.Migrations)
		if m.CAPI != nil {
			ref := *m.CAPI
			m.CAPI = &ref
		}
		c.Clusters[i] = m
	}
	c.Types = slices.Clone(f.Types)
	c.DisabledTypes = slices.Clone(f.DisabledTypes)
	if f.Defaults != nil {
		d := *f.Defaults
		c.Defaults = &d
	}
	if f.Rollout != nil {
		r := *f.Rollout
		r.Waves = slices.Clone(f.Rollout.Waves)
		c.Rollout = &r
	}
	return &c
}

func (f *Federation) sort() {
	slices.SortFunc(f.Clusters, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	if f.Clusters == nil {
		f.Clusters = []Member{}
	}
	if f.Types == nil {
		f.Types = []typeconfig.Type{}
	}
}

// ExistsError is returned when joining a name that is already a member.
type ExistsError struct{ Member Member }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("cluster %q is already a member (%s); use --overwrite to replace it", e.Member.Name, e.Member.Origin())
}

// NotMemberError is returned for a name that is not a member.
type NotMemberError struct {
	Name    string
	Members []string
}

func (e *NotMemberError) Error() string {
	if len(e.Members) == 0 {
		return fmt.Sprintf("cluster %q is not a member: the federation has no members yet; run \"fedctl join %s --cluster-context CONTEXT\"", e.Name, e.Name)
	}
	return fmt.Sprintf("cluster %q is not a member (members: %s)", e.Name, strings.Join(e.Members, ", "))
}

// Registry is the type registry of the federation: the built-in defaults
// less DisabledTypes, plus Types.
func (f *Federation) Registry() (*typeconfig.Registry, error) {
	return typeconfig.NewRegistry(f.Types, f.DisabledTypes)
}

// PlacementClusters are the members as placement sees them: names, labels
// and location, in the file's order.
func (f *Federation) PlacementClusters() []placement.Cluster {
	clusters := make([]placement.Cluster, len(f.Clusters))
	for i, m := range f.Clusters {
		clusters[i] = placement.Cluster{Name: m.Name, Labels: m.Labels, Provider: m.Provider, Region: m.Region, Zones: m.Zones, Cordoned: m.Cordoned != nil}
		for _, mg := range m.Migrations {
			// validate parsed every selector when the file was loaded
			sel, _ := labels.Parse(mg.Selector)
			clusters[i].Migrations = append(clusters[i].Migrations, placement.Migration{Selector: sel, To: mg.To})
		}
	}
	return clusters
}

// PlainData is what the pure stages need of a federation, as plain data:
// its type registry, its members as placement sees them, and the members a
// command works on.
type PlainData struct {
	Types   *typeconfig.Registry
	Members []placement.Cluster
	// Clusters are the members named by --cluster, or every member.
	Clusters []string
}

// Plain checks that every one of only (--cluster) is a member and returns
// the federation's plain data for the pure stages, with Clusters only, or
// every member when only is empty.
func (f *Federation) Plain(only []string) (PlainData, error) {
	if err := f.CheckMembers(only); err != nil {
		return PlainData{}, err
	}
	types, err := f.Registry()
	if err != nil {
		return PlainData{}, err
	}
	p := PlainData{Types: types, Members: f.PlacementClusters(), Clusters: only}
	if len(p.Clusters) == 0 {
		p.Clusters = f.Names()
	}
	return p, nil
}

// CheckMembers returns a *NotMemberError for the first of names that is not
// a member (--cluster).
func (f *Federation) CheckMembers(names []string) error {
	for _, name := range names {
		if _, ok := f.Member(name); !ok {
			return &NotMemberError{Name: name, Members: f.Names()}
		}
	}
	return nil
}

// CordonedNames are the names of the cordoned members.
func (f *Federation) CordonedNames() []string {
	var out []string
	for _, m := range f.Clusters {
		if m.Cordoned != nil {
			out = append(out, m.Name)
		}
	}
	return out
}

// MigrationsTo describes the migrations whose destination is name, as
// "SOURCE -l SELECTOR": such a member cannot leave the federation, nor be
// drained, while they send objects to it.
func (f *Federation) MigrationsTo(name string) []string {
	var out []string
	for _, m := range f.Clusters {
		for _, mg := range m.Migrations {
			if mg.To == name {
				out = append(out, m.Name+" -l "+mg.Selector)
			}
		}
	}
	return out
}
