package parallel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 5, 100, 1000} {
		calls := make([]int, n)
		For(n, 4, func(i int) { calls[i]++ })
		for i, c := range calls {
			assert.Equal(t, 1, c, "n=%d i=%d", n, i)
		}
	}
}
