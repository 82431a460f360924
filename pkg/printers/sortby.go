package printers

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/util/jsonpath"
)

// SortRows returns rows stably sorted by the value the JSONPath expression
// expr (kubectl's --sort-by) finds in each row's Doc: numbers by value,
// quantities (100Mi, 2) by amount, other strings in natural order (web-2
// before web-10), rows where the field is missing first. An expression
// that does not parse is an error naming it.
func SortRows(rows []ObjectRow, expr string) ([]ObjectRow, error) {
	path, err := ParseJSONPath("sort-by", expr)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(rows))
	for i, r := range rows {
		results, err := path.FindResults(r.Doc)
		if err != nil || len(results) == 0 || len(results[0]) == 0 {
			continue
		}
		v := results[0][0]
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				break
			}
			v = v.Elem()
		}
		if v.IsValid() && v.CanInterface() {
			keys[i] = v.Interface()
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareValues(keys[a], keys[b]) })
	out := make([]ObjectRow, len(rows))
	for i, j := range order {
		out[i] = rows[j]
	}
	return out, nil
}

// ParseJSONPath parses a JSONPath expression as kubectl's --sort-by and
// custom-columns accept it: with or without the braces and the leading
// dot. Missing keys find nothing rather than failing.
func ParseJSONPath(flag, expr string) (*jsonpath.JSONPath, error) {
	relaxed, err := relaxedJSONPath(expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	p := jsonpath.New(flag).AllowMissingKeys(true)
	if err := p.Parse(relaxed); err != nil {
		return nil, fmt.Errorf("%s: %q is not a JSONPath expression: %w", flag, expr, err)
	}
	return p, nil
}

var jsonPathBraces = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// relaxedJSONPath turns "metadata.name", ".metadata.name" and
// "{.metadata.name}" into "{.metadata.name}", as kubectl does.
func relaxedJSONPath(expr string) (string, error) {
	if strings.TrimSpace(expr) == "" {
		return "", fmt.Errorf("an empty JSONPath expression; give a field such as .metadata.name")
	}
	m := jsonPathBraces.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("%q is not a JSONPath expression: give one field such as .metadata.name or {.metadata.name}", expr)
	}
	field := m[1] + m[2]
	if field == "" {
		return "{.}", nil
	}
	return "{." + field + "}", nil
}

// compareValues orders two values found by --sort-by; nil (missing) first.
func compareValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return cmp.Compare(x, y)
		}
	}
	sa, sb := fmt.Sprint(a), fmt.Sprint(b)
	if qa, err := resource.ParseQuantity(sa); err == nil {
		if qb, err := resource.ParseQuantity(sb); err == nil {
			return qa.Cmp(qb)
		}
	}
	return naturalCompare(sa, sb)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// naturalCompare compares strings with runs of digits compared by value.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
