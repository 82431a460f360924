package pipeline

import (
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/dialect/fedv1"
	"github.com/fedctl/fedctl/pkg/dialect/karmada"
	"github.com/fedctl/fedctl/pkg/dialect/kubefed"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/parallel"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Dialects are the input languages fedctl reads, in the order they claim
// documents.
var Dialects = []dialect.Dialect{
	kubefed.Dialect{},
	fedv1.Dialect{},
	karmada.Dialect{}, // last: it claims the plain objects the others left
}

// Input is what to compile and for which members.
type Input struct {
	// Docs are the input's documents, in order, each with its file and
	// line: what manifest.Read, or pkg/input for URLs and -k, returned. The
	// caller reads them, so that the pipeline does no I/O and a reading
	// error is the caller's to join with the pipeline's.
	Docs             []manifest.Document
	DefaultNamespace string
	// Selector, when set, keeps the federated objects whose own labels
	// match it (-l); see Select.
	Selector labels.Selector
	// Members are the member clusters with their labels.
	Members []placement.Cluster
	// Types are the enabled federated types.
	Types *typeconfig.Registry
	// Only limits the output to these members (--cluster), which the
	// caller checked are members; placement and plans still consider
	// every member.
	Only []string
	// Live, when set, makes replica plans from the members' live state
	// (render.Live).
	Live *render.Live
	// Namespace, when set, scopes the federation to one namespace (the
	// federation file's namespace; see LimitToNamespace).
	Namespace string
}

// Output is the pipeline's result.
type Output struct {
	Set    *federation.Set
	Result *render.Result
}

// Run decodes and renders (Compile, then Render). Decoding problems are
// returned as the error; what did decode is rendered all the same, so that
// a caller can report every problem of the input in one run. Render
// problems are in Result.Errors, per object and member, so that a caller
// that pushes can proceed with the members that rendered.
func Run(in Input) (*Output, error) {
	set, err := Compile(in)
	return Render(set, in), err
}

// Compile decodes in's documents into the federated-object model and
// scopes it (Namespace, Selector), without rendering: what a caller needs
// to decide what to read from the members (the replica plans' targets)
// before the one render that uses it. Decoding problems are returned as
// the error, with what did decode.
func Compile(in Input) (*federation.Set, error) {
	set, decodeErr := Decode(in.Docs, in.Types, in.DefaultNamespace, in.Members)
	if in.Namespace != "" {
		var scopeErr error
		set, scopeErr = LimitToNamespace(set, in.Namespace, in.Types)
		decodeErr = errors.Join(decodeErr, scopeErr)
	}
	if in.Selector != nil {
		set = Select(set, in.Selector)
	}
	return set, decodeErr
}

// Render renders a decoded set (Compile's) for in's members, Only and
// Live.
func Render(set *federation.Set, in Input) *Output {
	res := render.ForClusters(render.Input{Set: set, Types: in.Types, Members: in.Members, Only: in.Only, Live: in.Live})
	res.Warnings = append(slices.Clone(set.Warnings), res.Warnings...)
	res.Namespace = in.Namespace
	return &Output{Set: set, Result: res}
}

// Readers names, for each document, the dialect that reads it ("" for a
// document none reads), without decoding anything: what fedctl federate
// asks to tell plain objects from another dialect's input.
func Readers(docs []manifest.Document) []string {
	parsed := parse(docs, nil)
	names := make([]string, len(parsed))
	taken := make([]bool, len(parsed))
	for _, d := range Dialects {
		for i, c := range d.Claim(parsed, taken) {
			if c && !taken[i] {
				names[i], taken[i] = d.Name(), true
			}
		}
	}
	return names
}

// docsPerWorker keeps small inputs, such as tests and single files, on one
// goroutine.
const docsPerWorker = 32

// parse parses every document, on all CPUs: parsing YAML is a large part of
// a large render, and documents are independent. The result is in input
// order. Each document that parsed is then offered, in the same worker, to
// early in order until one decodes it (see dialect.EarlyDecoder), so that
// its tree is freed right away.
func parse(docs []manifest.Document, early []dialect.EarlyDecoder) []dialect.Doc {
	out := make([]dialect.Doc, len(docs))
	parallel.For(len(docs), docsPerWorker, func(i int) {
		out[i] = dialect.ParseOne(docs[i])
		if out[i].Err != nil {
			return
		}
		for _, e := range early {
			if e.DecodeEarly(&out[i]) {
				return
			}
		}
	})
	return out
}

// Decode compiles documents into the federated-object model through every
// dialect in Dialects. A document that no dialect claims is an error, as is
// one that two claim, and so is a federated object defined twice, whichever
// dialects read the two.
func Decode(docs []manifest.Document, types federation.Types, defaultNamespace string, members []placement.Cluster) (*federation.Set, error) {
	var early []dialect.EarlyDecoder
	for _, d := range Dialects {
		if e, ok := d.(dialect.EarlyDecoder); ok {
			early = append(early, e)
		}
	}
	parsed := parse(docs, early)
	in := dialect.Input{Docs: parsed, Types: types, DefaultNamespace: defaultNamespace, Members: members}
	set := &federation.Set{}
	var errs []error
	owner := make([]dialect.Dialect, len(parsed))
	taken := make([]bool, len(parsed))
	left := len(parsed) // documents no dialect has claimed yet
	for _, d := range Dialects {
		if left == 0 {
			// Every document is read: the later dialects would claim
			// none (a dialect claims what the earlier ones left, or
			// kinds none of them takes; TestDecodeWithTwoDialects).
			break
		}
		claimed := d.Claim(parsed, taken)
		mine := 0
		for i, c := range claimed {
			if !c {
				continue
			}
			if owner[i] != nil {
				errs = append(errs, parsed[i].Errorf("", "read by two input dialects, %s and %s", owner[i].Name(), d.Name()))
				claimed[i] = false
				continue
			}
			owner[i] = d
			taken[i] = true
			mine++
			left--
		}
		if mine == 0 {
			continue // a dialect with nothing to read reads nothing
		}
		part, err := d.Read(in, claimed)
		if err != nil {
			errs = append(errs, err)
		}
		set.Objects = append(set.Objects, part.Objects...)
		set.RSPs = append(set.RSPs, part.RSPs...)
		set.Warnings = append(set.Warnings, part.Warnings...)
		set.DNS.Domains = append(set.DNS.Domains, part.DNS.Domains...)
		set.DNS.Services = append(set.DNS.Services, part.DNS.Services...)
		set.DNS.Ingresses = append(set.DNS.Ingresses, part.DNS.Ingresses...)
	}
	for i, doc := range parsed {
		switch {
		case owner[i] != nil:
		case doc.Err != nil:
			errs = append(errs, doc.Err)
		case doc.Head.Kind == "":
			errs = append(errs, doc.Errorf("kind", "is missing"))
		case doc.Head.APIVersion == "":
			errs = append(errs, doc.Errorf("apiVersion", "is missing; federated objects are in %s/%s", federation.TypesGroup, federation.TypesVersion))
		case doc.Kustomization != "":
			errs = append(errs, doc.Errorf("", "is not a federated object; convert the kustomization's output with \"fedctl federate -k %s\"", doc.Kustomization))
		default:
			path := doc.File
			if path == manifest.Stdin {
				path = "-"
			}
			errs = append(errs, doc.Errorf("", "is not a federated object; convert it with \"fedctl federate -f %s\"", path))
		}
	}
	if len(Dialects) > 1 {
		slices.SortStableFunc(set.Objects, func(a, b *federation.Object) int { return a.Origin.Doc - b.Origin.Doc })
	}
	set.Objects = withoutDuplicates(set.Objects, &errs)
	errs = append(errs, checkDNS(set)...)
	return set, errors.Join(inInputOrder(errs, docs)...)
}

// withoutDuplicates drops the second definition of a federated object,
// reporting it with the place of the first.
func withoutDuplicates(objs []*federation.Object, errs *[]error) []*federation.Object {
	seen := make(map[string]*federation.Object, len(objs))
	return slices.DeleteFunc(objs, func(o *federation.Object) bool {
		key := o.ID()
		if first, dup := seen[key]; dup {
			*errs = append(*errs, o.Errorf("metadata.name", "defined twice (also at %s:%d)", first.Pos.File(), first.Pos.Line("")))
			return true
		}
		seen[key] = o
		return false
	})
}

// inInputOrder orders errors as their documents come in the input, as a
// single reader would have found them: each dialect reports its own
// documents in order, and the unclaimed and duplicate ones come after. A
// joined error of one dialect is split into its documents' errors; errors
// with no position keep their order, last.
func inInputOrder(errs []error, docs []manifest.Document) []error {
	fileOrder := map[string]int{}
	for _, d := range docs {
		if _, ok := fileOrder[d.File]; !ok {
			fileOrder[d.File] = len(fileOrder)
		}
	}
	var flat []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			flat = append(flat, j.Unwrap()...)
			continue
		}
		flat = append(flat, err)
	}
	type key struct{ file, line int }
	keyOf := func(err error) key {
		var me *manifest.Error
		if !errors.As(err, &me) {
			return key{len(fileOrder), 0}
		}
		f, ok := fileOrder[me.File]
		if !ok {
			f = len(fileOrder)
		}
		return key{f, me.Line}
	}
	slices.SortStableFunc(flat, func(a, b error) int {
		ka, kb := keyOf(a), keyOf(b)
		if ka.file != kb.file {
			return ka.file - kb.file
		}
		return ka.line - kb.line
	})
	return flat
}

// Select keeps the federated objects whose own metadata.labels match sel,
// as kubectl's -l selects objects, and the ReplicaSchedulingPreferences
// of the objects kept (and those whose target is not in the input at all,
// so that render still warns about them). The others move to Unselected:
// a FederatedNamespace there still places the objects of its namespace.
// Everything was decoded, so that a broken document is an error with -l
// too.
func Select(set *federation.Set, sel labels.Selector) *federation.Set {
	out := &federation.Set{Warnings: set.Warnings, Unselected: slices.Clone(set.Unselected)}
	all := map[string]bool{}
	kept := map[string]bool{}
	for _, o := range set.Objects {
		key := o.Kind + "/" + o.Namespace + "/" + o.Name
		all[key] = true
		if sel.Matches(labels.Set(o.Labels)) {
			out.Objects = append(out.Objects, o)
			kept[key] = true
		} else {
			out.Unselected = append(out.Unselected, o)
		}
	}
	for _, rsp := range set.RSPs {
		key := rsp.Spec.TargetKind + "/" + rsp.Namespace + "/" + rsp.Name
		if kept[key] || !all[key] {
			out.RSPs = append(out.RSPs, rsp)
		}
	}
	// DNS records follow their Service or Ingress; Domains stay.
	out.DNS.Domains = set.DNS.Domains
	for _, r := range set.DNS.Services {
		if kept[federation.KindPrefix+"Service/"+r.Namespace+"/"+r.Name] {
			out.DNS.Services = append(out.DNS.Services, r)
		}
	}
	for _, r := range set.DNS.Ingresses {
		if kept[federation.KindPrefix+"Ingress/"+r.Namespace+"/"+r.Name] {
			out.DNS.Ingresses = append(out.DNS.Ingresses, r)
		}
	}
	return out
}
