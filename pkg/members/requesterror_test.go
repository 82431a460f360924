package members

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRequestError(t *testing.T) {
	t.Parallel()
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "cfg", errors.New("changed"))
	for _, tt := range []struct {
		err  error
		want string
	}{
		{apierrors.NewUnauthorized("no"), "the API server rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig"},
		{conflict, conflict.Error()},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), "the API server refused the connection; is the cluster running? (fedctl get clusters checks every member)"},
		{fmt.Errorf("get: %w", context.Canceled), "interrupted"},
		{fmt.Errorf("get: %w", context.DeadlineExceeded), "the API server did not answer within --timeout"},
		{&net.OpError{Op: "dial", Err: errors.New("no route to host")}, "the API server cannot be reached: no route to host"},
		{errors.New("something else"), "something else"},
	} {
		assert.EqualError(t, RequestError(tt.err), tt.want)
	}
}
