// Package testutil holds helpers shared by fedctl's tests: golden files,
// a federation's type registry, the documents of input files, and a
// server that never answers.
package testutil
