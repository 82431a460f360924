package members

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// stuckClient is a Client whose Get ignores its context for an hour, as
// one held by a hanging exec credential plugin does, and whose Delete
// answers at once.
type stuckClient struct {
	Client
	release chan struct{}
}

func (c stuckClient) Get(context.Context, Mapping, string, string) (*unstructured.Unstructured, error) {
	select {
	case <-c.release:
	case <-time.After(time.Hour):
	}
	return nil, errors.New("late")
}

func (c stuckClient) Delete(context.Context, Mapping, string, string, metav1.DeleteOptions) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "x")
}

// TestBounded: a request that ignores its context ends at the deadline
// with a NoAnswerError; one that answers keeps its own error; wrapping
// twice wraps once.
func TestBounded(t *testing.T) {
	t.Parallel()
	stuck := stuckClient{release: make(chan struct{})}
	defer close(stuck.release)
	c := Bounded(stuck)
	assert.Equal(t, c, Bounded(c), "wrapped once")
	assert.Equal(t, Client(stuck), c.(interface{ Unwrap() Client }).Unwrap())
	assert.Nil(t, Bounded(nil))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Get(ctx, Mapping{}, "ns", "x")
	var na *NoAnswerError
	require.ErrorAs(t, err, &na)
	assert.Less(t, time.Since(start), 10*time.Second, "given up at the deadline, not after the hour")

	err = c.Delete(context.Background(), Mapping{}, "ns", "x", metav1.DeleteOptions{})
	assert.True(t, apierrors.IsNotFound(err), "its own answer: %v", err)
}
