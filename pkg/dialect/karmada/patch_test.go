package karmada

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNegativeIndices: json-patch v5, which Karmada's overriders use with
// negative indices allowed, counts an add's index from the end of the
// array grown by one (-1 appends) and the others' from its end (-1 is
// the last item).
func TestNegativeIndices(t *testing.T) {
	for _, tc := range []struct {
		op   op
		want []any
	}{
		{op{Op: "add", Path: "/l/-1", Value: "x"}, []any{"a", "b", "c", "x"}},
		{op{Op: "add", Path: "/l/-2", Value: "x"}, []any{"a", "b", "x", "c"}},
		{op{Op: "add", Path: "/l/-4", Value: "x"}, []any{"x", "a", "b", "c"}},
		{op{Op: "replace", Path: "/l/-1", Value: "x"}, []any{"a", "b", "x"}},
		{op{Op: "remove", Path: "/l/-3"}, []any{"b", "c"}},
	} {
		doc, err := applyOp(map[string]any{"l": []any{"a", "b", "c"}}, tc.op)
		require.NoError(t, err, "%s %s", tc.op.Op, tc.op.Path)
		assert.Equal(t, tc.want, doc.(map[string]any)["l"], "%s %s", tc.op.Op, tc.op.Path)
	}
	for _, bad := range []op{{Op: "add", Path: "/l/-5", Value: "x"}, {Op: "replace", Path: "/l/-4", Value: "x"}} {
		_, err := applyOp(map[string]any{"l": []any{"a", "b", "c"}}, bad)
		assert.Error(t, err, "%s %s is out of bounds", bad.Op, bad.Path)
	}
}
