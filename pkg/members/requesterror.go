package members

import (
	"context"
	"errors"
	"net"
	"net/url"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RequestError says in words what a failed request to a member means and
// what to do about it, for reports that already name the member. Errors
// of the API server itself (conflicts, validation) already say it and are
// returned as they are.
func RequestError(err error) error {
	var status apierrors.APIStatus
	var opErr *net.OpError
	var urlErr *url.Error
	switch {
	case errors.As(err, &status):
		if apierrors.IsUnauthorized(err) {
			return errors.New("the API server rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig")
		}
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("the API server refused the connection; is the cluster running? (fedctl get clusters checks every member)")
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &urlErr) && urlErr.Timeout()):
		return errors.New("the API server did not answer within --timeout")
	case errors.As(err, &opErr):
		return errors.New("the API server cannot be reached: " + opErr.Err.Error())
	}
	return err
}
