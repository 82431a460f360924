package manifest

import (
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/fedctl/fedctl/pkg/yaml11"
)

// Free-form values for the fast path (see fastdecode.go): what yaml.v2
// decodes into interface{}, with numbers as the destination will hold them.

// free returns n as a free-form value, with numbers as mode says.
func free(n *yamlv3.Node, mode numberMode) (any, bool) {
	if !plainNode(n) {
		return nil, false
	}
	switch n.Kind {
	case yamlv3.MappingNode:
		m, ok := freeObject(n, mode)
		return m, ok
	case yamlv3.SequenceNode:
		return freeArray(n, mode)
	case yamlv3.ScalarNode:
		return freeScalar(n, mode)
	}
	return nil, false
}

func freeObject(n *yamlv3.Node, mode numberMode) (map[string]any, bool) {
	if !plainNode(n) || n.Kind != yamlv3.MappingNode {
		return nil, false
	}
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, ok := keyOf(n.Content[i])
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup { // the reference fails on duplicates
			return nil, false
		}
		v, ok := free(n.Content[i+1], mode)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	return m, true
}

func freeArray(n *yamlv3.Node, mode numberMode) ([]any, bool) {
	a := make([]any, len(n.Content))
	for i, item := range n.Content {
		v, ok := free(item, mode)
		if !ok {
			return nil, false
		}
		a[i] = v
	}
	return a, true
}

func freeScalar(n *yamlv3.Node, mode numberMode) (any, bool) {
	s := scalarOf(n)
	switch s.Kind {
	case yaml11.String:
		return n.Value, true
	case yaml11.Null:
		return nil, true
	case yaml11.Bool:
		return s.Bool, true
	case yaml11.Special:
		return nil, false
	}
	switch mode {
	case numbersGo:
		switch s.Kind {
		case yaml11.Int:
			return s.Int, true
		case yaml11.Uint:
			return s.Uint, true
		}
		return s.Float, true
	case numbersAPI:
		if s.Kind == yaml11.Int {
			return s.Int, true // its text has no '.' and fits
		}
		text := s.JSONNumber()
		if !strings.Contains(text, ".") {
			if i, err := strconv.ParseInt(text, 10, 64); err == nil {
				return i, true
			}
		}
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil
	default:
		f, err := strconv.ParseFloat(s.JSONNumber(), 64)
		return f, err == nil
	}
}
