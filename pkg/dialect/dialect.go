// Package dialect says what an input dialect is: a reader that compiles one
// language of federated input (KubeFed's Federated<Kind> objects today;
// Karmada's policies over plain manifests and Federation v1's annotations
// next) into fedctl's one federated-object model, federation.Set. Every
// stage after it (placement, replica planning, overrides, rendering, and
// apply, status, explain and diff after that) reads the model only and
// knows nothing of the dialect an object came from.
//
// A dialect is one package that implements Dialect, plus one line in
// pipeline's list of dialects. Documents are parsed once, for all dialects
// (ParseOne, which the pipeline runs on all CPUs); each dialect claims the
// documents it reads, and a document that no dialect claims is an error
// there, with its file and line.
package dialect

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
)

// Dialect compiles one input language into the federated-object model.
// Implementations are stateless and safe for concurrent use.
type Dialect interface {
	// Name names the dialect in messages ("KubeFed").
	Name() string
	// Claim says which documents the dialect reads (claimed[i] for
	// docs[i]). It sees every document of the run, so that a dialect
	// whose objects are plain manifests chosen by separate policies can
	// claim them only when the input holds such policies; taken[i] says
	// that a dialect before it in the pipeline's list claimed docs[i]
	// already. Documents that did not parse (Doc.Err) are never claimed.
	Claim(docs []Doc, taken []bool) []bool
	// Read strictly decodes the claimed documents into federated objects,
	// each with Origin set, and reports every problem at once, each with
	// its file, line, object and field. What did decode is returned along
	// with the errors, so that one run reports every problem of the input.
	// Duplicates across the whole input are the pipeline's to find.
	Read(in Input, claimed []bool) (*federation.Set, error)
}

// EarlyDecoder is a Dialect that can decode a document it will claim as
// soon as the document is parsed, because its claim depends on the
// document's Head alone. The pipeline calls it from its parse workers,
// right after ParseOne, so that a document's tree is freed right after
// use instead of every tree of the input being alive at once (most of
// render's peak memory at thousands of documents). Read then finds the
// result in Doc.Early.
type EarlyDecoder interface {
	// DecodeEarly decodes doc into doc.Early, and frees doc.Parsed, when
	// the dialect reads doc; it says whether it did. It must be safe for
	// concurrent use.
	DecodeEarly(doc *Doc) bool
}

// Input is what a dialect reads.
type Input struct {
	// Docs are every document of the run, in input order.
	Docs []Doc
	// Types are the enabled federated types.
	Types federation.Types
	// DefaultNamespace is given to namespaced objects that name none, as
	// kubectl gives them the context's namespace (-n).
	DefaultNamespace string
	// Members are the member clusters, for dialects that decide placement
	// per member while compiling (Karmada's policies).
	Members []placement.Cluster
}

// Doc is one input document, parsed once for every dialect.
type Doc struct {
	manifest.Document
	// Parsed is the document's tree, for the strict decoding of the
	// dialect that claims it; nil when Err is set, and once decoded (see
	// EarlyDecoder), so that the trees of a large input are not all alive
	// at once.
	Parsed *manifest.Parsed
	// Head is what a dialect needs to know to claim a document.
	Head Head
	// Early is what an EarlyDecoder made of the document after ParseOne
	// (Parsed is then nil): the dialect's own type.
	Early any
	// Err is a syntax error, or a document that is not an object.
	Err error
}

// Head is a document's apiVersion, kind, name and namespace.
type Head struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
}

// Group is the API group of the apiVersion ("" for the core group and when
// there is no apiVersion).
func (h Head) Group() string {
	group, _, found := strings.Cut(h.APIVersion, "/")
	if !found {
		return ""
	}
	return group
}

// ID names the document's object in messages: "FederatedDeployment
// shop/web", "object web" when the kind is missing.
func (h Head) ID() string {
	name := h.Metadata.Name
	if h.Metadata.Namespace != "" {
		name = h.Metadata.Namespace + "/" + name
	}
	kind := h.Kind
	if kind == "" {
		kind = "object"
	}
	return strings.TrimSpace(kind + " " + name)
}

// Errorf returns an error at the document's first line, naming its object.
func (d Doc) Errorf(field, format string, args ...any) *manifest.Error {
	return &manifest.Error{File: d.File, Line: d.Line, Object: d.Head.ID(), Field: field, Err: fmt.Errorf(format, args...)}
}

// ParseOne parses one document and reads its head (apiVersion, kind,
// name). A document that does not parse, or is not a Kubernetes object,
// has Err set, with its line. The pipeline calls it for every document on
// all CPUs, then offers the result to the early decoders (EarlyDecoder).
func ParseOne(doc manifest.Document) Doc {
	d := Doc{Document: doc}
	parsed, err := manifest.Parse(doc)
	if err != nil {
		d.Err = err // a syntax error, with its line
		return d
	}
	if err := parsed.Peek(&d.Head); err != nil {
		// Let the strict decoder say what is wrong, with lines.
		_, derr := parsed.DecodeStrict(&struct{}{})
		if derr == nil {
			derr = &manifest.Error{File: doc.File, Line: doc.Line, Err: fmt.Errorf("not a Kubernetes object: %w", err)}
		}
		d.Err = derr
		return d
	}
	d.Parsed = parsed
	return d
}

// WithObject names the object id in every positioned error of err that
// names none.
func WithObject(err error, id string) error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	for _, e := range list {
		var me *manifest.Error
		if errors.As(e, &me) && me.Object == "" {
			me.Object = id
		}
	}
	return err
}
