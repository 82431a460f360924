// Package testutil holds helpers shared by fedctl's tests: golden files.
package testutil
