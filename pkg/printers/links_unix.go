//go:build unix

package printers

import (
	"io/fs"
	"syscall"
)

// hasOtherNames reports whether the file has hard links besides the name it
// was opened by.
func hasOtherNames(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || sys.Nlink > 1
}
