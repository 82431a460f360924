// Package pipeline turns the documents of the input files into placed
// member objects: it runs fedctl's pure stages in order and hands the
// result to whichever command asked — render prints it, explain explains
// it, apply and diff push it, status compares it with the members.
//
//	files (-f, -R, -), URLs, -k  read by the caller, before the pipeline
//	  │ input.Read               (cmdutil.Render; manifest.Read in tests)
//	  ▼
//	documents (Input.Docs)       each with its file:line
//	  │ dialect.ParseOne         parse each document once (all CPUs),
//	  │                          then EarlyDecoders decode what they claim
//	  │ Dialect.Claim/Read       each input dialect reads its documents
//	  │   kubefed                  Federated<Kind>, FederatedNamespace, RSP
//	  │   fedv1                    Federation v1's annotated workloads, Namespaces
//	  ▼
//	federation.Set               the one federated-object model
//	  │ Select (-l)                the selected objects; the others only
//	  │                            place the objects of their namespace
//	  │                          (Compile ends here: a caller whose plans
//	  │                          need the members' live state reads it now
//	  │                          and hands it to Render as Input.Live)
//	  │ render.ForClusters, per object:
//	  │   planner                  RSP replica plan (KubeFed's planner)
//	  │   placement                clusters / clusterSelector ∩ namespace
//	  │   overrides                per-member JSON patches, then the plan's
//	  │   (markers)                fedctl's labels and annotations
//	  ▼
//	render.Result                member objects (Targets), per-object
//	  │                          placement (Placed), warnings and errors
//	  ▼
//	propagate / status / printers / explain   (outside this package)
//
// The members (names and labels) and the enabled types come in as plain
// values: the pipeline never sees the federation file, a kubeconfig or a
// client, and performs no I/O: the caller reads the input and hands over
// its documents. A new input dialect is one package implementing
// dialect.Dialect and one line in Dialects.
package pipeline
