// Package iostreams holds fedctl's standard streams and decides, once per
// run, whether they are terminals and whether output is coloured.
//
// Data that scripts parse goes to Out; progress, warnings and summaries go to
// ErrOut. Colour is used only on a terminal and never when NO_COLOR is set.
package iostreams
