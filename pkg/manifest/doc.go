// Package manifest reads YAML and JSON documents from files, directories and
// standard input, remembering the file and first line of each document, and
// decodes fedctl's own types strictly so that every typo, duplicate key and
// value of the wrong kind is reported with its line. Each document is parsed
// once (Parse), for both the checks and the decoded value.
//
// It performs no network I/O and knows nothing about clusters.
package manifest
