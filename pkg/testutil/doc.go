// Package testutil holds helpers shared by fedctl's tests: golden files,
// a federation's type registry and the documents of input files.
package testutil
