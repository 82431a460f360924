// Package input reads what -f and -k name, as manifest documents for the
// pipeline: files, directories and standard input (through pkg/manifest),
// http:// and https:// URLs (fetched with a timeout and a size limit), and
// kustomizations (built with kustomize's krusty, in memory, its warnings
// made fedctl's). It talks to web servers, never to member clusters.
package input
