package manifest

import (
	"fmt"
	"strings"
)

// Error points at the place in an input document that is wrong. Line is the
// line of the offending field when known, otherwise the document's first line;
// zero means the position is unknown. Object ("FederatedDeployment shop/web")
// and Field ("spec.overrides[1].clusterName") are optional.
type Error struct {
	File   string
	Line   int
	Object string
	Field  string
	Err    error
}

// Error renders "file:line: object: field: cause", leaving out the parts that
// are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Object != "" {
		b.WriteString(e.Object)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return strings.TrimSuffix(b.String(), ": ")
}

func (e *Error) Unwrap() error { return e.Err }
