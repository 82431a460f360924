// Package federate implements "fedctl federate".
package federate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dialect/kubefed"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/input"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// FederateOptions are the inputs of "fedctl federate".
type FederateOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Filenames []string
	Recursive bool
	// Kustomize is -k DIR: the kustomization's output, instead of -f.
	Kustomize string
	Output    string
	// To is the API to write: "kubefed" (Federated<Kind>) or "karmada"
	// (plain manifests plus Karmada policies).
	To string

	// Live mode: TYPE NAME read from a member.
	TypeName  string
	Name      string
	Namespace string
	Cluster   []string
	Contents  bool
	Skip      []string
	// Timeout bounds the whole read of the live object (and of the
	// namespace's contents), retries included.
	Timeout time.Duration
}

// DefaultTimeout bounds federate's read of a live object: a member that
// never answers must not hold the command (kubefedctl has no such flag).
const DefaultTimeout = 30 * time.Second

// NewCmdFederate returns the federate command. runF, when set, replaces Run.
func NewCmdFederate(f *cmdutil.Factory, runF func(*FederateOptions) error) *cobra.Command {
	opts := &FederateOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "federate (-f FILENAME | -k DIR | TYPE NAME [-n NAMESPACE] [--cluster NAME] [--contents])",
		Short: "Turn plain manifests or live objects into federated objects",
		Long: `Turn Kubernetes objects into the KubeFed federated objects that propagate them
to every member, as kubefedctl federate does. The template keeps the object
without its status and without any metadata but labels; fields that a member
cluster assigns are dropped (a Service's clusterIP, clusterIPs and nodePorts,
a ServiceAccount's secrets, a Namespace's finalizers). Placement selects every
member (clusterSelector: {matchLabels: {}}); edit it to taste.

With -f (or -k, a kustomization's output), manifests are converted offline.
With TYPE NAME, the object is read from a member cluster (--cluster, default
the first member); for a namespace, --contents also federates every
namespaced object in it.

--to karmada (the same as "fedctl convert --to karmada --verify") goes the
other way for federated input, whatever its dialect (KubeFed, Federation v1,
Karmada; plain objects are federated first, as above): it writes plain
manifests plus Karmada PropagationPolicies and OverridePolicies (Cluster*
for cluster-scoped kinds) that make Karmada create, in the current members,
the member objects fedctl renders: placement as cluster names, replica
splits as static weights, per-member differences as plaintext overrides,
conflictResolution Overwrite so that Karmada adopts what fedctl applied. The
output is read back as Karmada input and rendered; every member object that
would differ is listed on stderr, and the exit code is then 3.`,
		Example: `  # Convert plain manifests
  fedctl federate -f deploy.yaml > federated.yaml

  # Convert what a kustomization of plain manifests builds
  fedctl federate -k plain/ > federated.yaml

  # Federate a live Deployment from member eu-1
  fedctl federate deployments web -n shop --cluster eu-1

  # Federate a namespace and everything in it
  fedctl federate namespace shop --contents

  # Write federated input as Karmada's plain manifests plus policies
  fedctl federate -f manifests/ --to karmada > karmada.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(opts.Filenames) > 0 && opts.Kustomize != "":
				return cmdutil.FlagErrorf("-f and -k cannot be used together")
			case opts.offline() && len(args) > 0:
				return cmdutil.FlagErrorf("give either -f (or -k) or TYPE NAME, not both")
			case !opts.offline() && len(args) != 2:
				return cmdutil.FlagErrorf("%q needs -f FILENAME, -k DIR or TYPE NAME", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				opts.TypeName, opts.Name = args[0], args[1]
			}
			if opts.Output != "yaml" && opts.Output != "json" {
				return cmdutil.FlagErrorf("--output must be yaml or json, got %q", opts.Output)
			}
			if opts.Contents && opts.offline() {
				return cmdutil.FlagErrorf("--contents needs TYPE NAME of a namespace, not -f or -k")
			}
			if opts.To != "kubefed" && opts.To != "karmada" {
				return cmdutil.FlagErrorf("--to must be kubefed or karmada, got %q", opts.To)
			}
			if opts.Timeout <= 0 {
				return cmdutil.FlagErrorf("--timeout must be positive, got %s", opts.Timeout)
			}
			if opts.To == "karmada" && !opts.offline() {
				return cmdutil.FlagErrorf("--to karmada converts manifests: give -f FILENAME or -k DIR")
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.To == "karmada" {
				return opts.runToKarmada(cmd)
			}
			if opts.offline() {
				return opts.runOffline(cmd.Context())
			}
			return opts.runLive(cmd)
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmd.Flags().Lookup("filename").Usage = "File, directory or - (standard input) holding the objects to federate, plain or another dialect's (repeatable)"
	cmd.Flags().StringVarP(&opts.Kustomize, "kustomize", "k", "", "Build the kustomization in this directory and federate its output instead of -f")
	_ = cmd.MarkFlagDirname("kustomize")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "yaml", "Output format: yaml or json")
	cmd.Flags().StringVar(&opts.To, "to", "kubefed", "API to write: kubefed (Federated<Kind> from plain objects) or karmada (plain manifests plus Karmada policies from federated input)")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "", "Namespace of the live object (default: the context's namespace, else default)")
	cmdutil.AddClusterFlag(f, cmd, &opts.Cluster, "Member cluster to read the live object from (default: the first member)")
	cmd.Flags().BoolVarP(&opts.Contents, "contents", "c", false, "For a namespace, also federate the namespaced objects in it")
	cmd.Flags().StringSliceVarP(&opts.Skip, "skip-api-resources", "s", nil, "With --contents, resources (name, kind, short name, plural.group or group) to leave out")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", DefaultTimeout, "Time allowed for reading TYPE NAME (and with --contents the namespace's objects) from the member, retries included")
	return cmd
}

// offline says the input is manifests (-f or -k), not a live TYPE NAME.
func (o *FederateOptions) offline() bool { return len(o.Filenames) > 0 || o.Kustomize != "" }

// readDocs reads -f or -k; nothing to federate is no success (a mistyped
// path, an empty directory or stdin).
func (o *FederateOptions) readDocs(ctx context.Context) ([]manifest.Document, error) {
	docs, err := input.Read(ctx, input.Options{Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Stdin: o.IO.In, Warnings: o.IO.ErrOut})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		if o.Kustomize != "" {
			return nil, fmt.Errorf("-k %s builds no objects to federate; check the kustomization's resources", o.Kustomize)
		}
		if slices.Equal(o.Filenames, []string{"-"}) {
			return nil, errors.New("standard input (-f -) holds no objects to federate; check what is piped in")
		}
		return nil, fmt.Errorf("-f %s holds no objects to federate; check the -f path", strings.Join(o.Filenames, " -f "))
	}
	return docs, nil
}

// federatePlain federates the plain objects among docs, in place of each:
// out[i] is docs[i]'s federated object, nil when read[i], a document of
// another input dialect. KubeFed's own federated objects are read when
// kubefedToo, and refused as federated already when not.
func (o *FederateOptions) federatePlain(docs []manifest.Document, kubefedToo bool) (out []map[string]any, read []bool, err error) {
	file, err := o.Federation()
	if err != nil {
		return nil, nil, err
	}
	reg, err := file.Federation.Registry()
	if err != nil {
		return nil, nil, err
	}
	// Documents another input dialect reads (Karmada's policies and the
	// objects they select, Federation v1's annotated workloads) are
	// compiled as they are; the others are plain objects.
	readers := pipeline.Readers(docs)
	out, read = make([]map[string]any, len(docs)), make([]bool, len(docs))
	var errs []error
	for i, doc := range docs {
		if r := readers[i]; r != "" && (kubefedToo || r != (kubefed.Dialect{}).Name()) {
			read[i] = true
			continue
		}
		obj, err := decodePlain(doc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fed, notes, err := o.federateOne(obj, reg)
		if err != nil {
			errs = append(errs, &manifest.Error{File: doc.File, Line: doc.Line, Object: describe(obj), Err: err})
			continue
		}
		for _, n := range notes {
			printWarning(o, &manifest.Error{File: doc.File, Line: doc.Line, Object: describe(obj), Err: errors.New(n)})
		}
		out[i] = fed
	}
	return out, read, errors.Join(errs...)
}

func (o *FederateOptions) runOffline(ctx context.Context) error {
	docs, err := o.readDocs(ctx)
	if err != nil {
		return err
	}
	federated, read, err := o.federatePlain(docs, false)
	if err != nil {
		return err
	}
	var out []map[string]any
	var dialectDocs []manifest.Document
	for i, doc := range docs {
		if read[i] {
			dialectDocs = append(dialectDocs, doc)
		} else {
			out = append(out, federated[i])
		}
	}
	if len(dialectDocs) == 0 {
		return o.print(out)
	}
	compiled, notes, mismatches, err := o.compile(dialectDocs)
	if err != nil {
		return err
	}
	if err := o.print(append(out, compiled...)); err != nil {
		return err
	}
	return o.report(notes, mismatches)
}

// compile reads another dialect's documents for the federation's members
// and writes the objects KubeFed's way, checking that they render as the
// input does.
func (o *FederateOptions) compile(docs []manifest.Document) ([]map[string]any, []export.Note, []string, error) {
	m, err := cmdutil.LoadMembership(o.Federation, nil, true)
	if err != nil {
		return nil, nil, nil, err
	}
	res, err := pipeline.Run(pipeline.Input{Docs: docs, DefaultNamespace: "default", Members: m.Members, Types: m.Types})
	if err == nil {
		err = res.Result.Err()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	cmdutil.PrintWarnings(o.IO, res.Result.Warnings)
	objs, notes, err := export.ToKubeFed(res.Set, res.Result)
	if err != nil {
		return nil, nil, nil, err
	}
	mismatches, err := export.Verify(objs, m.Types, m.Members, nil, res.Result, notes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("internal error: the federated objects written do not read back: %w", err)
	}
	return objs, notes, mismatches, nil
}

// federateOne converts obj, refusing objects that are federated already and
// warning when the type is not enabled (apply would refuse it).
func (o *FederateOptions) federateOne(obj *unstructured.Unstructured, reg *typeconfig.Registry) (map[string]any, []string, error) {
	group := obj.GroupVersionKind().Group
	if group == federation.TypesGroup || group == federation.LegacyTypesGroup {
		return nil, nil, errors.New("is already a federated object")
	}
	if obj.GetKind() == "" || obj.GetName() == "" {
		return nil, nil, errors.New("needs kind and metadata.name")
	}
	fed, notes := federation.Federate(obj)
	fedKind := federation.KindPrefix + obj.GetKind()
	if _, ok := reg.ByFederatedKind(fedKind); !ok {
		notes = append(notes, fmt.Sprintf("%s is not enabled; run \"fedctl enable %s\" before applying", fedKind, strings.ToLower(obj.GetKind())))
	}
	return fed, notes, nil
}

func decodePlain(doc manifest.Document) (*unstructured.Unstructured, error) {
	data, err := yaml.YAMLToJSON(doc.Data)
	if err != nil {
		return nil, &manifest.Error{File: doc.File, Line: doc.Line, Err: fmt.Errorf("invalid YAML: %w", err)}
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return nil, &manifest.Error{File: doc.File, Line: doc.Line, Err: fmt.Errorf("not an object: %w", err)}
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func describe(obj *unstructured.Unstructured) string {
	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return strings.TrimSpace(obj.GetKind() + " " + name)
}

// print writes the federated objects as YAML documents or, for JSON, a v1
// List (one object alone is printed as itself).
func (o *FederateOptions) print(objs []map[string]any) error {
	w := bufio.NewWriter(o.IO.Out)
	if o.Output == "json" {
		var v any = map[string]any{"apiVersion": "v1", "kind": "List", "items": objs}
		if len(objs) == 1 {
			v = objs[0]
		}
		data, err := jsonIndent(v)
		if err != nil {
			return err
		}
		w.Write(data)
		return w.Flush()
	}
	for i, obj := range objs {
		if i > 0 {
			w.WriteString("---\n")
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		w.Write(data)
	}
	return w.Flush()
}

func printWarning(o *FederateOptions, w *manifest.Error) {
	cmdutil.PrintWarnings(o.IO, []*manifest.Error{w})
}
