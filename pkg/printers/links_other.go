//go:build !unix

package printers

import "io/fs"

// hasOtherNames reports true where the link count is not at hand, so that
// a file is replaced rather than rewritten in place, as it always was.
func hasOtherNames(fs.FileInfo) bool { return true }
