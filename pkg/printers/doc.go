// Package printers writes fedctl's results as tables, YAML, JSON or names,
// with kubectl's conventions: upper-case headers without spaces, columns
// separated by three spaces, keys sorted, exactly one trailing newline.
package printers
